"""Gold mode vs pytrec_eval on three data shapes and four sizes: the whole process, alternating.

One generator flatters one code path, so this runs the comparison of ``bench_gold_vs_pytrec.py``
(fresh processes: read the run and the qrels, then nDCG@10, P@10 and MRR) on each named shape of
``trec_data.SHAPES`` (sparse judgments, dense judgments with short ids, long ids and deep rankings)
at each size. For every (shape, size) it writes the files to a temp dir, runs one untimed pair that
checks every per-query value against pytrec_eval, then ``--repeats`` alternating timed pairs, and
prints the medians with min and max, the peak RSS of each side, and their ratios. A size whose run
would exceed ``--max-rows`` lines is skipped and said so.

    python bench/bench_gold_shapes.py                                  # a, b, c at 1k, 10k, 100k
    python bench/bench_gold_shapes.py --shapes b --sizes 300k --repeats 3
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

from bench_common import child_environment, code_version
from bench_gold_vs_pytrec import OURS_CHILD, PYTREC_CHILD, Sample, run_child
from trec_data import SHAPES


def parse_size(text: str) -> int:
    scale = {"k": 1_000, "M": 1_000_000}
    return int(text[:-1]) * scale[text[-1]] if text[-1] in scale else int(text)


def spread(values: list[float], unit: str, digits: int) -> str:
    return (
        f"{statistics.median(values):.{digits}f}{unit} "
        f"({min(values):.{digits}f}-{max(values):.{digits}f})"
    )


def measure(
    shape: str, queries: int, repeats: int, directory: Path, env: dict[str, str]
) -> tuple[list[Sample], list[Sample]]:
    # Written by a separate process: a child forked from a big parent would count the parent's
    # pages in its peak RSS (Linux keeps the pre-exec high-water mark).
    data = directory / f"{shape}_{queries}"
    subprocess.run(
        [sys.executable, str(BENCH_DIR / "trec_data.py"), str(data)]
        + ["--queries", str(queries), "--shape", shape],
        check=True,
        capture_output=True,
    )
    run_path, qrels_path = data / "run.trec", data / "qrels.trec"
    ours_script, theirs_script = directory / "child_ours.py", directory / "child_pytrec.py"
    ours_script.write_text(OURS_CHILD)
    theirs_script.write_text(PYTREC_CHILD)
    files = [str(run_path), str(qrels_path)]
    size = (run_path.stat().st_size + qrels_path.stat().st_size) / 2**20
    print(f"\n=== shape {shape}, {queries:,} queries ({size:.0f} MiB run + qrels)", flush=True)
    # The untimed pair warms the page and bytecode caches and checks every per-query value.
    dumps = directory / "ours.json", directory / "theirs.json"
    ours = run_child(sys.executable, ours_script, [*files, str(dumps[0])], env, directory)
    theirs = run_child(sys.executable, theirs_script, [*files, str(dumps[1])], env, directory)
    # In a child too: the parsed dumps would stay in this process's memory, and every later child
    # would start from that high-water mark.
    check = (
        "import json, sys; from bench_gold_vs_pytrec import Sample, check_agreement; "
        "ours, theirs = (Sample(0, 0, json.loads(a)) for a in sys.argv[3:5]); "
        "print('\\n'.join(check_agreement(*map(__import__('pathlib').Path, sys.argv[1:3]), "
        "ours, theirs, 1e-9)))"
    )
    reports = [json.dumps(ours.report), json.dumps(theirs.report)]
    done = subprocess.run(
        [sys.executable, "-c", check, *map(str, dumps), *reports],
        cwd=BENCH_DIR,
        capture_output=True,
        text=True,
        check=False,
    )
    print(done.stdout.rstrip(), flush=True)
    if done.returncode:
        raise SystemExit(f"per-query values differ from pytrec_eval:\n{done.stderr}")
    samples: tuple[list[Sample], list[Sample]] = ([], [])
    for repeat in range(repeats):
        for side, script in enumerate((ours_script, theirs_script)):
            sample = run_child(sys.executable, script, files, env, directory)
            samples[side].append(sample)
            phases = " ".join(f"{k}={v:.2f}" for k, v in sample.report["phases"].items())
            print(
                f"  repeat {repeat + 1} {('ours', 'pytrec_eval')[side]:11s} {sample.wall:7.2f}s "
                f"{sample.maxrss_mib:7.0f} MiB  {phases}",
                flush=True,
            )
    shutil.rmtree(run_path.parent)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--shapes", nargs="+", default=list(SHAPES), choices=list(SHAPES))
    parser.add_argument("--sizes", nargs="+", default=["1k", "10k", "100k"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--max-rows", type=float, default=30e6, help="skip sizes whose run has more lines"
    )
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}; measuring {code_version()}")
    table = []
    with tempfile.TemporaryDirectory(prefix="bench_gold_shapes_") as temporary:
        directory = Path(temporary)
        env = child_environment(directory, bytecode_cache=True)
        for shape in args.shapes:
            for size in args.sizes:
                queries = parse_size(size)
                rows = queries * SHAPES[shape].docs_per_query
                if rows > args.max_rows:
                    print(f"\n=== shape {shape}, {size}: skipped, {rows:,} run lines > --max-rows")
                    continue
                ours, theirs = measure(shape, queries, args.repeats, directory, env)
                table.append((shape, size, ours, theirs))
    print(f"\nmedians of {args.repeats} alternating runs (min-max)")
    print("| shape | queries | ours | pytrec_eval | speed-up | peak RSS ours / pytrec_eval |")
    print("|---|---|---|---|---|---|")
    for shape, size, ours, theirs in table:
        mine, other = [s.wall for s in ours], [s.wall for s in theirs]
        rss_mine = statistics.median(s.maxrss_mib for s in ours)
        rss_other = statistics.median(s.maxrss_mib for s in theirs)
        print(
            f"| {shape} | {size} | {spread(mine, ' s', 2)} | {spread(other, ' s', 2)} | "
            f"{statistics.median(other) / statistics.median(mine):.2f}x | "
            f"{rss_mine:.0f} / {rss_other:.0f} MiB ({rss_mine / rss_other:.2f}) |"
        )


if __name__ == "__main__":
    main()
