"""Gold mode vs pytrec_eval: the whole process, from a TREC run file and a qrels file to three
means.

What is measured: wall-clock time and peak RSS of a *fresh* Python process per side, so interpreter
start-up, imports, parsing both files and evaluating nDCG@10, P@10 and reciprocal rank all count.
That is what a CI job pays. Each child also prints its own phase timings (import / parse run /
parse qrels / evaluate) as JSON, so the table shows where the time goes.

- ours:        ``Run.load`` + ``GoldSet.from_trec_qrels`` + ``ndcg``, ``precision``, ``mrr``
- pytrec_eval: ``parse_run`` + ``parse_qrel`` + ``RelevanceEvaluator(...).evaluate`` + the means

The machine is shared and noisy, so the two sides run alternately (ours, theirs, ours, theirs, ...)
in one invocation, ``--repeats`` times each, and the table reports medians and the ratio of medians.
Before timing, one untimed pair (which also warms the page cache) dumps per-query values and checks
that both sides agree to ``--tolerance`` on every query and on the means.

Data (tie-heavy synthetic TREC files from ``bench/trec_data.py``) goes to a temporary directory,
never into the repository.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
sys.path.insert(0, str(BENCH_DIR))

from bench_common import child_environment, code_version, run_json_child
from trec_data import write_trec_files

# Keys: our metric name -> pytrec_eval measure (request name, result key).
MEASURES = {
    "ndcg@10": ("ndcg_cut.10", "ndcg_cut_10"),
    "P@10": ("P.10", "P_10"),
    "mrr": ("recip_rank", "recip_rank"),
}

# Each child: argv = run_path qrels_path [dump_path] [profile_path]. Prints one JSON line.
OURS_CHILD = textwrap.dedent(
    """
    import time
    _t0 = time.perf_counter()
    import json, resource, sys
    run_path, qrels_path, dump_path, profile_path = (sys.argv[1:] + ["", "", "", ""])[:4]
    if profile_path:
        import cProfile
        _profiler = cProfile.Profile()
        _profiler.enable()
    from pytest_tempoeval import Run, GoldSet, ndcg, precision, mrr
    _t1 = time.perf_counter()
    run = Run.load(run_path)
    _t2 = time.perf_counter()
    gold = GoldSet.from_trec_qrels(qrels_path)
    _t3 = time.perf_counter()
    results = {"ndcg@10": ndcg(run, gold, k=10), "P@10": precision(run, gold, k=10), \
"mrr": mrr(run, gold)}
    _t4 = time.perf_counter()
    if profile_path:
        _profiler.disable()
        _profiler.dump_stats(profile_path)
    if dump_path:
        with open(dump_path, "w") as out:
            json.dump({name: dict(result.per_query) for name, result in results.items()}, out)
    print(json.dumps({
        "phases": {"import": _t1 - _t0, "parse_run": _t2 - _t1, "parse_qrels": _t3 - _t2, \
"evaluate": _t4 - _t3},
        "means": {name: float(result) for name, result in results.items()},
        "queries": {name: len(result.per_query) for name, result in results.items()},
        "excluded": {name: len(result.excluded) for name, result in results.items()},
        "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }))
    """
)

PYTREC_CHILD = textwrap.dedent(
    """
    import time
    _t0 = time.perf_counter()
    import json, resource, sys
    import pytrec_eval
    run_path, qrels_path, dump_path = (sys.argv[1:] + ["", "", ""])[:3]
    MEASURES = MEASURES_LITERAL
    _t1 = time.perf_counter()
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    _t2 = time.perf_counter()
    with open(qrels_path) as f:
        qrel = pytrec_eval.parse_qrel(f)
    _t3 = time.perf_counter()
    evaluator = pytrec_eval.RelevanceEvaluator(qrel, {request for request, _ in MEASURES.values()})
    per_query = evaluator.evaluate(run)
    means = {name: sum(r[key] for r in per_query.values()) / len(per_query) \
for name, (_, key) in MEASURES.items()}
    _t4 = time.perf_counter()
    if dump_path:
        with open(dump_path, "w") as out:
            json.dump({name: {q: r[key] for q, r in per_query.items()} \
for name, (_, key) in MEASURES.items()}, out)
    print(json.dumps({
        "phases": {"import": _t1 - _t0, "parse_run": _t2 - _t1, "parse_qrels": _t3 - _t2, \
"evaluate": _t4 - _t3},
        "means": means,
        "queries": {name: len(per_query) for name in MEASURES},
        "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }))
    """
).replace("MEASURES_LITERAL", repr(MEASURES))


@dataclass
class Sample:
    """One child process: wall seconds, peak RSS (MiB, from wait4) and what the child reported."""

    wall: float
    maxrss_mib: float
    report: dict


def run_child(python: str, script: Path, args: list[str], env: dict[str, str], cwd: Path) -> Sample:
    """Spawn ``python script args``; time it from spawn to reap and take its own rusage via
    wait4."""
    return Sample(*run_json_child(python, script, args, env, cwd))


def check_agreement(
    ours_dump: Path, theirs_dump: Path, ours: Sample, theirs: Sample, tolerance: float
) -> list[str]:
    """Compare per-query values and means; return lines describing the result (raise on
    mismatch)."""
    mine, other = json.loads(ours_dump.read_text()), json.loads(theirs_dump.read_text())
    lines, failures = [], []
    for name in MEASURES:
        a, b = mine[name], other[name]
        only_theirs = sorted(set(b) - set(a))
        common = set(a) & set(b)
        worst = max((abs(a[q] - b[q]) for q in common), default=0.0)
        mean_diff = abs(ours.report["means"][name] - theirs.report["means"][name])
        lines.append(
            f"  {name:8s} per-query max |diff| {worst:.3g} over {len(common)} queries "
            f"(pytrec_eval only: {len(only_theirs)}); |mean diff| {mean_diff:.3g}"
        )
        if worst > tolerance or mean_diff > tolerance or set(a) - set(b):
            failures.append(name)
        if only_theirs and any(b[q] != 0 for q in only_theirs):
            failures.append(f"{name} (queries we exclude score non-zero in pytrec_eval)")
    if failures:
        raise SystemExit(
            "MISMATCH between ours and pytrec_eval: "
            + ", ".join(failures)
            + "\n"
            + "\n".join(lines)
        )
    return lines


def print_profile(profile_path: Path, top: int, callers: str) -> None:
    import pstats

    for sort in ("cumulative", "tottime"):
        print(f"\n--- cProfile of our child, top {top} by {sort} ---")
        pstats.Stats(str(profile_path)).sort_stats(sort).print_stats(top)
    if callers:
        print(f"\n--- who calls the functions matching {callers!r} ---")
        pstats.Stats(str(profile_path)).sort_stats("tottime").print_callers(callers)


def median(values: list[float]) -> float:
    return statistics.median(values)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--queries", type=int, default=100_000, help="queries in the run and qrels (default 100000)"
    )
    parser.add_argument(
        "--docs", type=int, default=100, help="retrieved docs per query (default 100)"
    )
    parser.add_argument("--judged", type=int, default=20, help="judgments per query (default 20)")
    parser.add_argument(
        "--repeats", type=int, default=3, help="timed runs of each side, alternating (default 3)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="where to write the TREC files (default: a new temp dir, deleted)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temp dir")
    parser.add_argument(
        "--python", default=sys.executable, help="interpreter for both children (default: this one)"
    )
    parser.add_argument(
        "--tolerance", type=float, default=1e-9, help="max |ours - pytrec_eval| per query and mean"
    )
    parser.add_argument(
        "--no-check", action="store_true", help="skip the untimed per-query agreement check"
    )
    parser.add_argument(
        "--no-bytecode-cache",
        dest="bytecode_cache",
        action="store_false",
        help=(
            "children compile our modules from source every time (PYTHONDONTWRITEBYTECODE=1) "
            "instead of using a bytecode cache in the data dir, as an installed package would"
        ),
    )
    parser.add_argument(
        "--profile", action="store_true", help="also run our child once under cProfile and print it"
    )
    parser.add_argument("--profile-top", type=int, default=30)
    parser.add_argument(
        "--profile-callers",
        default=r"\(diff\)|\(flatnonzero\)|\(find\)|\(_gather_words\)",
        help=(
            "regex of profiled functions whose callers to print "
            "(numpy helpers hide where time goes)"
        ),
    )
    args = parser.parse_args()

    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="bench_gold_"))
    if data_dir.resolve().is_relative_to(REPO_ROOT):
        raise SystemExit(
            f"--data-dir {data_dir} is inside the repository; use a directory outside it"
        )
    data_dir.mkdir(parents=True, exist_ok=True)
    try:
        run_bench(args, data_dir)
    finally:
        if args.data_dir is None and not args.keep:
            shutil.rmtree(data_dir, ignore_errors=True)
        elif args.keep or args.data_dir:
            print(f"data kept in {data_dir}")


def run_bench(args: argparse.Namespace, data_dir: Path) -> None:
    start = time.perf_counter()
    run_path, qrels_path = write_trec_files(
        data_dir / f"trec_{args.queries}x{args.docs}_s{args.seed}",
        args.queries,
        args.docs,
        args.seed,
        args.judged,
    )
    print(
        f"data: {args.queries} queries x {args.docs} docs, {args.judged} judgments/query, "
        f"seed {args.seed} ({run_path.stat().st_size / 2**20:.0f} MiB run, "
        f"{qrels_path.stat().st_size / 2**20:.0f} MiB qrels, "
        f"written in {time.perf_counter() - start:.1f}s) in {data_dir}"
    )
    ours_script, theirs_script = data_dir / "child_ours.py", data_dir / "child_pytrec_eval.py"
    ours_script.write_text(OURS_CHILD)
    theirs_script.write_text(PYTREC_CHILD)
    # Same interpreter and environment for both; ours is imported from this checkout.
    env = child_environment(data_dir, args.bytecode_cache)
    files = [str(run_path), str(qrels_path)]
    print(f"python: {args.python}; measuring {code_version()}")

    # Untimed warm-up pair: fills the page cache and the bytecode cache, and checks agreement.
    ours_dump, theirs_dump = data_dir / "ours.json", data_dir / "pytrec_eval.json"
    dump = not args.no_check
    ours = run_child(
        args.python, ours_script, [*files, str(ours_dump) if dump else ""], env, data_dir
    )
    theirs = run_child(
        args.python, theirs_script, [*files, str(theirs_dump) if dump else ""], env, data_dir
    )
    if dump:
        print(f"agreement check (untimed warm-up pair, tolerance {args.tolerance:g}):")
        print("\n".join(check_agreement(ours_dump, theirs_dump, ours, theirs, args.tolerance)))
        ours_dump.unlink()
        theirs_dump.unlink()

    samples: dict[str, list[Sample]] = {"ours": [], "pytrec_eval": []}
    for repeat in range(args.repeats):
        for side, script in (("ours", ours_script), ("pytrec_eval", theirs_script)):
            sample = run_child(args.python, script, files, env, data_dir)
            samples[side].append(sample)
            print(
                f"  repeat {repeat + 1}/{args.repeats} {side:11s} wall {sample.wall:7.2f}s  "
                f"peak RSS {sample.maxrss_mib:6.0f} MiB  phases "
                + " ".join(f"{k}={v:.2f}" for k, v in sample.report["phases"].items()),
                flush=True,
            )

    print_table(samples, args)
    if args.profile:
        profile_path = data_dir / "ours.prof"
        sample = run_child(args.python, ours_script, [*files, "", str(profile_path)], env, data_dir)
        print(f"\nprofiled run of ours: wall {sample.wall:.2f}s (profiling overhead included)")
        print_profile(profile_path, args.profile_top, args.profile_callers)


def print_table(samples: dict[str, list[Sample]], args: argparse.Namespace) -> None:
    ours, theirs = samples["ours"], samples["pytrec_eval"]
    rows: list[tuple[str, float, float]] = [
        ("wall (whole process)", median([s.wall for s in ours]), median([s.wall for s in theirs]))
    ]
    for phase in ours[0].report["phases"]:
        rows.append(
            (
                f"  {phase}",
                median([s.report["phases"][phase] for s in ours]),
                median([s.report["phases"][phase] for s in theirs]),
            )
        )
    rows.append(
        (
            "  start-up + exit (wall - phases)",
            median([s.wall - sum(s.report["phases"].values()) for s in ours]),
            median([s.wall - sum(s.report["phases"].values()) for s in theirs]),
        )
    )
    print(
        f"\nGold mode vs pytrec_eval: {args.queries} queries x {args.docs} docs, "
        f"medians of {args.repeats} alternating runs"
    )
    print(f"{'':36s} {'ours':>10s} {'pytrec_eval':>12s} {'ours/theirs':>12s}")
    for label, mine, other in rows:
        ratio = f"{mine / other:12.3f}" if other > 0 else f"{'-':>12s}"
        print(f"{label:36s} {mine:9.2f}s {other:11.2f}s {ratio}")
    rss_ours, rss_theirs = (
        median([s.maxrss_mib for s in ours]),
        median([s.maxrss_mib for s in theirs]),
    )
    print(
        f"{'peak RSS (MiB, wait4)':36s} {rss_ours:10.0f} {rss_theirs:12.0f} "
        f"{rss_ours / rss_theirs:12.3f}"
    )
    print(
        "all wall samples (s): ours "
        + ", ".join(f"{s.wall:.2f}" for s in ours)
        + " | pytrec_eval "
        + ", ".join(f"{s.wall:.2f}" for s in theirs)
    )
    print(
        "means: "
        + "; ".join(
            (
                f"{name} ours {ours[0].report['means'][name]:.12f} "
                f"pytrec_eval {theirs[0].report['means'][name]:.12f}"
            )
            for name in MEASURES
        )
    )
    ratio = median([s.wall for s in ours]) / median([s.wall for s in theirs])
    speedup = 1 / ratio
    verdict = "MET" if ratio < 1 / 3 else "NOT MET"
    print(
        f"ratio of medians ours/pytrec_eval = {ratio:.3f} (pytrec_eval is {speedup:.2f}x ours); "
        f"target < 0.333: {verdict}"
    )


if __name__ == "__main__":
    main()
