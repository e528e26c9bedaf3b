"""Memory bound: load and evaluate a 10,000-query gold set and a 10,000 x 100 run, peak RSS per
phase.

What is measured: peak resident memory (and wall time) of a *fresh* Python process that does what a
test suite does with a large gold set and run:

1. ``from pytest_tempoeval import ...`` (numpy and the metric modules load here);
2. load the gold set: ``GoldSet.load(gold.yaml)`` or ``GoldSet.from_trec_qrels(qrels.trec)``;
3. load the run: ``Run.load(run.trec)`` or ``Run.load(run.json)``;
4. evaluate: ``temporal_ndcg(k=10)`` and ``temporal_precision(k=10)`` in focus-time mode, then
   ``ndcg(k=10)``, ``precision(k=10)`` and ``mrr()`` in gold mode.

Cases: (a) YAML gold + TREC run, (b) TREC qrels gold + TREC run, (c) YAML gold + JSON run, plus a
floor: a child that only does step 1, so "memory above interpreter + imports" is explicit. A qrels
gold set has no texts or focus times, so in case (b) the two focus-time metrics exclude every query
(they still run); the gold-mode means must be identical in all three cases, which is checked.

How peak RSS is read, three ways, all reported:
- in the child, after each phase: ``getrusage(RUSAGE_SELF).ru_maxrss`` (peak so far) and the
  current ``VmRSS`` from ``/proc/self/status`` (what stays resident after the phase);
- in the child, at the end: ``VmHWM`` (the high-water mark of the child's own address space);
- in the parent: ``os.wait4``'s ``ru_maxrss``, taken when the child is reaped.
On Linux ``ru_maxrss`` (both the child's ``RUSAGE_SELF`` and ``wait4``'s) also counts the high-water
mark of the address space the child had *before* ``exec``, that is, a copy of the parent. So the
parent never holds the data: a separate child process writes the files, and the parent imports
neither numpy nor the package. ``VmHWM`` does not have this problem; the script reports the parent's
own peak RSS so the two can be compared.

Timing is from spawn to reap (``perf_counter`` around ``Popen`` + ``os.wait4``); each child also
prints its own phase times. The machine is shared and noisy, so cases alternate within each of
``--repeats`` rounds (floor, a, b, c, floor, a, b, c, ...) after one untimed warm-up per case (page
cache, bytecode cache, and the cross-case check of the means); the table shows medians.

Data (seeded, written to a temporary directory outside the repository, deleted afterwards unless
``--keep``): a corpus of ``--corpus`` (100,000) documents whose texts carry a year or a range
("Report on topic 417 in 1987.", "... from 1987 to 1990."), focus times read from the texts, as the
gold file gives none; ``--queries`` (10,000) queries of the same form, each with ``--judged`` (5)
judgments (three retrieved documents graded 1-3, one retrieved graded 0, one never retrieved); a run
of ``--docs`` (100) documents per query, half drawn near the query's years. Rankings and spans come
from ``make_inputs`` in ``bench_focus_vs_tempoeval.py`` (the same generator as section 2).

Target: every sample's peak RSS (the largest of the three readings) stays within
``PEAK_RSS_BOUND_MIB`` (768 MiB). Exit status 1 otherwise, or when the cross-case check fails.

To help extrapolate, each case then runs once more on ``--scale`` (2) times the queries and the
corpus, and the script prints the marginal peak per 1,000 more queries (not checked against the
bound).
``--tracemalloc`` adds one traced, untimed run per case: Python-level (and numpy) allocations per
phase and the allocation sites of what stays alive, to show what dominates.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
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

# The stated bound, for the default sizes (10,000 queries x 100 docs, 100,000-document corpus). On
# the reference machine (bench/README.md, section 5) the worst case, YAML gold + TREC run, peaked at
# 493-550 MiB over 10 samples (how much the TREC reader's two threads overlap varies); YAML gold +
# JSON run 376, qrels + TREC run 271-333, the floor 36. 768 MiB is ~40% above the worst sample: room
# for thread timing, allocator and numpy/PyYAML versions, while a regression the size of one of
# today's loaders (~250 MiB) still fails.
PEAK_RSS_BOUND_MIB = 768

CASES = {
    "a": ("YAML gold + TREC run", "gold.yaml", "run.trec"),
    "b": ("qrels gold + TREC run", "qrels.trec", "run.trec"),
    "c": ("YAML gold + JSON run", "gold.yaml", "run.json"),
}
FLOOR = "floor"
PHASES = ("import", "load_gold", "load_run", "evaluate")
METRICS = ("temporal_ndcg@10", "temporal_P@10", "ndcg@10", "P@10", "mrr")
DATA_FILES = ("gold.yaml", "qrels.trec", "run.trec", "run.json")

# argv: [gold_path run_path [trace]]; no paths: the floor (imports only). Prints one JSON line.
CHILD = textwrap.dedent(
    """
    import time
    _t0 = time.perf_counter()
    import json, resource, sys

    def _status():
        fields = {}
        with open("/proc/self/status") as status:
            for line in status:
                name, _, value = line.partition(":")
                if name in ("VmRSS", "VmHWM"):
                    fields[name] = int(value.split()[0])
        return fields

    phases, trace = {}, {}
    _last = _t0

    def _phase(name):
        global _last
        now = time.perf_counter()
        phases[name] = {
            "seconds": now - _last,
            "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            "rss_kib": _status()["VmRSS"],
        }
        if tracing:
            current, peak = tracemalloc.get_traced_memory()
            trace[name] = {"current": current, "peak": peak}
            tracemalloc.reset_peak()
        _last = time.perf_counter()

    args = sys.argv[1:]
    tracing = len(args) > 2 and args[2] == "trace"
    import numpy  # noqa: F401
    from pytest_tempoeval import GoldSet, Run, mrr, ndcg, precision, temporal_ndcg, \
temporal_precision
    if tracing:
        import tracemalloc
        tracemalloc.start(1)
    _phase("import")
    means, counted = {}, {}
    if args:
        gold_path, run_path = args[:2]
        gold = GoldSet.from_trec_qrels(gold_path) if gold_path.endswith(".trec") \
else GoldSet.load(gold_path)
        _phase("load_gold")
        run = Run.load(run_path)
        _phase("load_run")
        if tracing:
            retained = tracemalloc.take_snapshot()
        results = {
            "temporal_ndcg@10": temporal_ndcg(run, gold, k=10),
            "temporal_P@10": temporal_precision(run, gold, k=10),
            "ndcg@10": ndcg(run, gold, k=10),
            "P@10": precision(run, gold, k=10),
            "mrr": mrr(run, gold),
        }
        _phase("evaluate")
        means = {name: float(result) if result.per_query else None \
for name, result in results.items()}
        counted = {name: len(result.per_query) for name, result in results.items()}
        if tracing:
            top = retained.statistics("lineno")[:12]
            trace["retained_top"] = [[str(stat.traceback[0]), stat.size, stat.count] \
for stat in top]
    status = _status()
    print(json.dumps({
        "phases": phases, "means": means, "counted": counted, "trace": trace,
        "vmhwm_kib": status["VmHWM"], \
"maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }))
    """
)


# -- data (written by a separate child process, so the parent stays small) -------------------------


def generate(directory: Path, n_queries: int, docs_per_query: int, corpus: int, seed: int) -> dict:
    """Write gold.yaml, qrels.trec, run.trec and run.json into ``directory``; return their
    counts."""
    import numpy as np
    from bench_focus_vs_tempoeval import make_inputs

    inputs = make_inputs(n_queries, docs_per_query, corpus, seed, 1900, 2025, 5, 0.5)
    rng = np.random.default_rng(seed + 1)
    doc_text = [
        _text("Report on topic", i % 997, a, b, ".")
        for i, (a, b) in enumerate(inputs.doc_span.tolist())
    ]
    query_text = [
        _text("What happened to topic", i % 997, a, b, "?")
        for i, (a, b) in enumerate(inputs.query_span.tolist())
    ]
    rankings = inputs.rankings.tolist()
    judgments = []  # per query: [(doc index, grade)]
    for ranking in rankings:
        positions = rng.choice(len(ranking), size=4, replace=False).tolist()
        retrieved = [ranking[p] for p in positions]
        outside = int(rng.integers(0, corpus))
        while outside in ranking:
            outside = int(rng.integers(0, corpus))
        grades = [int(g) for g in rng.integers(1, 4, size=3)] + [0, int(rng.integers(1, 4))]
        judgments.append(list(zip([*retrieved, outside], grades)))

    with (directory / "gold.yaml").open("w") as out:
        out.write(
            f"# Synthetic gold set for bench/bench_memory.py (seed {seed}).\n"
            "version: 1\nname: memory-bench\nk: 10\n"
        )
        out.write("documents:\n")
        out.writelines(f'  d{i}: {{text: "{text}"}}\n' for i, text in enumerate(doc_text))
        out.write("queries:\n")
        out.writelines(
            (
                f'  - id: q{q}\n    text: "{query_text[q]}"\n'
                f"    relevant: {{{', '.join(f'd{d}: {g}' for d, g in judged)}}}\n"
            )
            for q, judged in enumerate(judgments)
        )
    with (directory / "qrels.trec").open("w") as out:
        out.writelines(
            f"q{q} 0 d{d} {g}\n" for q, judged in enumerate(judgments) for d, g in judged
        )
    # Scores fall with rank (distinct), so the TREC file and the JSON object rank identically.
    scores = [f"{docs_per_query - rank:.1f}" for rank in range(docs_per_query)]
    with (directory / "run.trec").open("w") as out:
        for q, ranking in enumerate(rankings):
            out.writelines(
                f"q{q} Q0 d{d} {rank + 1} {scores[rank]} bench\n" for rank, d in enumerate(ranking)
            )
    with (directory / "run.json").open("w") as out:
        out.write("{\n")
        out.write(
            ",\n".join(
                f'"q{q}": {{'
                + ", ".join(f'"d{d}": {scores[rank]}' for rank, d in enumerate(ranking))
                + "}"
                for q, ranking in enumerate(rankings)
            )
        )
        out.write("\n}\n")
    return {
        "queries": n_queries,
        "docs_per_query": docs_per_query,
        "corpus": corpus,
        "judgments": sum(len(j) for j in judgments),
        "run_lines": n_queries * docs_per_query,
    }


def _text(prefix: str, topic: int, first: int, last: int, end: str) -> str:
    when = (
        f"in {first}"
        if first == last
        else f"from {first} to {last}"
        if end == "."
        else f"between {first} and {last}"
    )
    return f"{prefix} {topic} {when}{end}"


# -- children --------------------------------------------------------------------------------------


@dataclass
class Sample:
    """One child: wall seconds, wait4's peak RSS (MiB) and the child's own report."""

    wall: float
    wait4_mib: float
    report: dict

    def phase_seconds(self, phase: str) -> float:
        return self.report["phases"][phase]["seconds"]

    def phase_peak_mib(self, phase: str) -> float:
        return self.report["phases"][phase]["maxrss_kib"] / 1024

    def phase_rss_mib(self, phase: str) -> float:
        return self.report["phases"][phase]["rss_kib"] / 1024

    @property
    def vmhwm_mib(self) -> float:
        return self.report["vmhwm_kib"] / 1024

    @property
    def peak_mib(self) -> float:
        """The largest of the three readings: what the bound is checked against."""
        return max(self.wait4_mib, self.vmhwm_mib, self.report["maxrss_kib"] / 1024)


def run_child(python: str, script: Path, args: list[str], env: dict[str, str], cwd: Path) -> Sample:
    """Spawn ``python script args``; time it from spawn to reap and take its own rusage via
    wait4."""
    return Sample(*run_json_child(python, script, args, env, cwd))


def case_args(case: str, data_dir: Path) -> list[str]:
    if case == FLOOR:
        return []
    _, gold, run = CASES[case]
    return [str(data_dir / gold), str(data_dir / run)]


def check_means(reports: dict[str, dict]) -> list[str]:
    """Gold-mode means agree across the three cases, temporal ones between (a) and (c)."""
    problems = []
    for name in METRICS:
        compared = ("a", "c") if name.startswith("temporal") else tuple(CASES)
        values = {case: reports[case]["means"][name] for case in compared}
        if (
            len({repr(v) for v in values.values()}) != 1
            and max(values.values()) - min(values.values()) > 1e-12
        ):
            problems.append(f"{name}: {values}")
    return problems


# -- report ----------------------------------------------------------------------------------------


def median(values: list[float]) -> float:
    return statistics.median(values)


def print_table(samples: dict[str, list[Sample]], sizes: dict, repeats: int) -> None:
    floor = median([s.peak_mib for s in samples[FLOOR]])
    print(
        f"\nMedians of {repeats} alternating runs. Peak = ru_maxrss after the phase (peak so far); "
        "RSS = VmRSS after it (what stays resident)."
    )
    print(f"{'case / phase':34s} {'time':>8s} {'peak MiB':>9s} {'RSS MiB':>8s}")
    for case in (FLOOR, *CASES):
        runs = samples[case]
        label = (
            "floor: interpreter + numpy + pytest_tempoeval"
            if case == FLOOR
            else f"({case}) {CASES[case][0]}"
        )
        print(label)
        for phase in PHASES if case != FLOOR else PHASES[:1]:
            print(
                f"  {phase:32s} {median([s.phase_seconds(phase) for s in runs]):7.2f}s "
                f"{median([s.phase_peak_mib(phase) for s in runs]):9.0f} "
                f"{median([s.phase_rss_mib(phase) for s in runs]):8.0f}"
            )
        wall = median([s.wall for s in runs])
        wait4 = median([s.wait4_mib for s in runs])
        vmhwm = median([s.vmhwm_mib for s in runs])
        print(
            f"  {'whole process (spawn to reap)':32s} {wall:7.2f}s {wait4:9.0f}  "
            f"(wait4; VmHWM {vmhwm:.0f})"
        )
        if case != FLOOR:
            above = median([s.peak_mib for s in runs]) - floor
            per_thousand = above / (sizes["queries"] / 1000)
            print(
                f"  peak above the floor: {above:.0f} MiB, "
                f"on average {per_thousand:.1f} MiB per 1,000 queries x "
                f"{sizes['docs_per_query']} docs (the {sizes['corpus']:,}-document corpus included)"
            )
    print(
        "all peak samples (MiB, largest reading): "
        + "; ".join(
            f"{case} " + ", ".join(f"{s.peak_mib:.0f}" for s in samples[case])
            for case in (FLOOR, *CASES)
        )
    )
    print(
        "all wall samples (s): "
        + "; ".join(
            f"{case} " + ", ".join(f"{s.wall:.2f}" for s in samples[case])
            for case in (FLOOR, *CASES)
        )
    )


def print_scaling(
    args: argparse.Namespace,
    data_dir: Path,
    script: Path,
    env: dict[str, str],
    samples: dict[str, list[Sample]],
    sizes: dict,
) -> None:
    """One more run of each case on ``--scale`` times the data: the marginal cost, for
    extrapolating."""
    print(
        f"\nscaling: {args.scale}x the queries and the corpus, one run per case "
        "(not checked against the bound)"
    )
    scaled_dir = data_dir / f"scaled_{args.scale}x"
    scaled = write_data(args, scaled_dir, args.scale)
    thousands = (scaled["queries"] - sizes["queries"]) / 1000
    for case in CASES:
        sample = run_child(args.python, script, case_args(case, scaled_dir), env, scaled_dir)
        base = median([s.peak_mib for s in samples[case]])
        phases = " ".join(f"{phase}={sample.phase_peak_mib(phase):.0f}" for phase in PHASES[1:])
        print(
            f"  ({case}) {CASES[case][0]:22s} peak {sample.peak_mib:5.0f} MiB "
            f"(vs {base:.0f}; after {phases}), "
            f"wall {sample.wall:5.1f}s: marginal {(sample.peak_mib - base) / thousands:5.1f} MiB "
            f"per 1,000 more queries x {sizes['docs_per_query']} docs "
            f"(+{sizes['corpus'] / sizes['queries'] * 1000:,.0f} corpus documents)"
        )


def print_trace(case: str, report: dict) -> None:
    trace = report["trace"]
    print(
        f"\ntracemalloc, case ({case}) {CASES[case][0]} "
        "(traced run, untimed; MiB of Python + numpy allocations):"
    )
    for phase in PHASES[1:]:
        peak, alive = trace[phase]["peak"] / 2**20, trace[phase]["current"] / 2**20
        print(f"  {phase:10s} peak during {peak:7.1f}  alive after {alive:7.1f}")
    print("  alive after loading, by allocation site:")
    for where, size, count in trace["retained_top"]:
        where = where.replace(str(REPO_ROOT) + os.sep, "")
        print(f"    {size / 2**20:7.1f} MiB {count:9d} blocks  {where}")


# -- main ------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--queries",
        type=int,
        default=10_000,
        help="queries in the gold set and run (default 10000)",
    )
    parser.add_argument(
        "--docs", type=int, default=100, help="retrieved docs per query (default 100)"
    )
    parser.add_argument(
        "--corpus", type=int, default=100_000, help="documents in the gold set (default 100000)"
    )
    parser.add_argument(
        "--repeats", type=int, default=3, help="timed runs of each case, alternating (default 3)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--bound-mib",
        type=float,
        default=PEAK_RSS_BOUND_MIB,
        help="peak RSS bound (default %(default)s)",
    )
    parser.add_argument(
        "--data-dir", type=Path, help="where to write the files (default: a new temp dir, deleted)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temp dir")
    parser.add_argument(
        "--python", default=sys.executable, help="interpreter for the children (default: this one)"
    )
    parser.add_argument(
        "--no-bytecode-cache",
        dest="bytecode_cache",
        action="store_false",
        help="children compile our modules from source (as in the other benchmarks)",
    )
    parser.add_argument(
        "--scale",
        type=int,
        default=2,
        help="also run each case once on this many times the queries and corpus, for the marginal "
        "cost per 1,000 queries (default 2; 1 skips it)",
    )
    parser.add_argument(
        "--tracemalloc",
        action="store_true",
        help="also one traced run per case: what the memory is",
    )
    parser.add_argument(
        "--generate", type=Path, help=argparse.SUPPRESS
    )  # internal: the data-writing child
    args = parser.parse_args()

    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if args.generate:
        print(json.dumps(generate(args.generate, args.queries, args.docs, args.corpus, args.seed)))
        return
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="bench_memory_"))
    if data_dir.resolve().is_relative_to(REPO_ROOT):
        raise SystemExit(
            f"--data-dir {data_dir} is inside the repository; use a directory outside it"
        )
    data_dir.mkdir(parents=True, exist_ok=True)
    try:
        failed = run_bench(args, data_dir)
    finally:
        if args.data_dir is None and not args.keep:
            shutil.rmtree(data_dir, ignore_errors=True)
        else:
            print(f"data kept in {data_dir}")
    sys.exit(1 if failed else 0)


def write_data(args: argparse.Namespace, directory: Path, factor: int = 1) -> dict:
    """Have a separate process write the files (the parent must not hold the data); print their
    sizes."""
    start = time.perf_counter()
    directory.mkdir(parents=True, exist_ok=True)
    written = subprocess.run(
        [
            args.python,
            str(Path(__file__).resolve()),
            "--generate",
            str(directory),
            "--queries",
            str(args.queries * factor),
            "--docs",
            str(args.docs),
            "--corpus",
            str(args.corpus * factor),
            "--seed",
            str(args.seed),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    sizes = json.loads(written.stdout.strip().splitlines()[-1])
    files = ", ".join(
        f"{name} {(directory / name).stat().st_size / 2**20:.1f} MiB" for name in DATA_FILES
    )
    print(
        f"data: {sizes['queries']:,} queries x {sizes['docs_per_query']} docs "
        f"({sizes['run_lines']:,} run lines), "
        f"{sizes['corpus']:,} gold documents with texts, {sizes['judgments']:,} judgments, "
        f"seed {args.seed}; "
        f"written in {time.perf_counter() - start:.1f}s by a separate process\nfiles: {files}"
    )
    return sizes


def run_bench(args: argparse.Namespace, data_dir: Path) -> bool:
    sizes = write_data(args, data_dir)
    script = data_dir / "child_memory.py"
    script.write_text(CHILD)
    env = child_environment(data_dir, args.bytecode_cache)
    print(f"python: {args.python}; measuring {code_version()}")

    # Untimed warm-up, one per case: page cache, bytecode cache, and the cross-case check.
    warm = {
        case: run_child(args.python, script, case_args(case, data_dir), env, data_dir)
        for case in (FLOOR, *CASES)
    }
    problems = check_means({case: warm[case].report for case in CASES})
    means = {name: [warm[c].report["means"][name] for c in CASES] for name in METRICS}
    counted = {name: [str(warm[c].report["counted"][name]) for c in CASES] for name in METRICS}
    shown = {
        name: "/".join("-" if v is None else f"{v:.6f}" for v in values)
        for name, values in means.items()
    }
    print(
        "means (warm-up): "
        + "; ".join(f"{name} {text}" for name, text in shown.items())
        + "  [cases a/b/c]"
    )
    print(
        "counted queries: "
        + "; ".join(f"{name} {'/'.join(values)}" for name, values in counted.items())
    )
    print(
        "cross-case check of the means: "
        + ("OK" if not problems else "MISMATCH " + "; ".join(problems))
    )

    samples: dict[str, list[Sample]] = {case: [] for case in (FLOOR, *CASES)}
    for repeat in range(args.repeats):
        for case in (FLOOR, *CASES):
            sample = run_child(args.python, script, case_args(case, data_dir), env, data_dir)
            samples[case].append(sample)
            print(
                f"  repeat {repeat + 1}/{args.repeats} {case:5s} wall {sample.wall:6.2f}s  "
                f"peak {sample.peak_mib:5.0f} MiB "
                f"(wait4 {sample.wait4_mib:.0f}, VmHWM {sample.vmhwm_mib:.0f})  "
                + " ".join(
                    f"{p}={v['seconds']:.2f}s/{v['maxrss_kib'] / 1024:.0f}"
                    for p, v in sample.report["phases"].items()
                ),
                flush=True,
            )
    print_table(samples, sizes, args.repeats)

    if args.scale > 1:
        print_scaling(args, data_dir, script, env, samples, sizes)

    if args.tracemalloc:
        for case in CASES:
            print_trace(
                case,
                run_child(
                    args.python, script, [*case_args(case, data_dir), "trace"], env, data_dir
                ).report,
            )

    parent_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"\nparent's own peak RSS: {parent_mib:.0f} MiB "
        "(ru_maxrss of a child can include it; VmHWM cannot)"
    )
    worst = max((s for case in CASES for s in samples[case]), key=lambda s: s.peak_mib)
    over = [
        f"{case} {s.peak_mib:.0f}"
        for case in CASES
        for s in samples[case]
        if s.peak_mib > args.bound_mib
    ]
    verdict = "MET" if not over else "NOT MET (" + ", ".join(over) + " MiB)"
    print(
        f"largest peak of any sample: {worst.peak_mib:.0f} MiB; "
        f"bound {args.bound_mib:.0f} MiB: {verdict}"
    )
    return bool(over or problems)


if __name__ == "__main__":
    main()
