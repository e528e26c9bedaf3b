"""``tempoeval evaluate`` against the ``trec_eval`` binary, whole process, on TREC files.

Both read the same run and qrels files and print the same measures (trec_eval's names, its
``measure<TAB>all<TAB>value`` layout). Each sample is a fresh process timed from spawn to reap, with
its peak RSS from ``wait4``; the tools alternate, ``--repeats`` times, after one untimed pair that
warms the page cache and checks that every printed value is the same.

trec_eval: ``--trec-eval PATH``, or built from ``--trec-eval-src DIR`` (a checkout of
usnistgov/trec_eval) into the temporary data directory. Data: ``trec_data.py``, seeded, written to a
temporary directory outside the repository by a separate process, and deleted at the end.

    python bench/bench_cli_vs_trec_eval.py --trec-eval-src /path/to/trec_eval
    python bench/bench_cli_vs_trec_eval.py --trec-eval /usr/local/bin/trec_eval --shapes 100k:100:20
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_common import code_version

MEASURES = ["map", "P_5", "P_10", "recall_100", "recip_rank", "ndcg_cut_10"]
TREC_EVAL_MEASURES = ["-m", "map", "-m", "P.5,10", "-m", "recall.100", "-m", "recip_rank"]
TREC_EVAL_MEASURES += ["-m", "ndcg_cut.10"]
# queries : documents per query : judgments per query
SHAPES = ["100k:100:20", "10k:1000:100", "100k:10:5"]


def parse_shape(text: str) -> tuple[int, int, int]:
    queries, docs, judged = text.split(":")
    scale = {"k": 1_000, "M": 1_000_000}
    count = int(queries[:-1]) * scale[queries[-1]] if queries[-1] in scale else int(queries)
    return count, int(docs), int(judged)


def timed(command: list[str]) -> tuple[float, float, str]:
    """Wall seconds spawn to reap, peak RSS in MiB, stdout."""
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=stdout, stderr=stderr)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            stderr.seek(0)
            raise RuntimeError(f"{command[0]} failed: {stderr.read().decode(errors='replace')}")
        stdout.seek(0)
        return wall, usage.ru_maxrss / 1024, stdout.read().decode()


def all_values(output: str) -> dict[str, str]:
    values = {}
    for line in output.splitlines():
        measure, query, value = line.split()
        if query == "all" and measure in MEASURES:
            values[measure] = value
    return values


def build_trec_eval(source: Path, directory: Path) -> Path:
    build = directory / "trec_eval_src"
    shutil.copytree(source, build, ignore=shutil.ignore_patterns(".git"))
    subprocess.run(["make", "-s", "-C", str(build)], check=True, capture_output=True)
    return build / "trec_eval"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trec-eval", type=Path, help="the trec_eval binary")
    parser.add_argument("--trec-eval-src", type=Path, help="build trec_eval from this checkout")
    parser.add_argument("--shapes", nargs="+", default=SHAPES)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}; measuring {code_version()}")
    with tempfile.TemporaryDirectory(prefix="bench_cli_") as temporary:
        directory = Path(temporary)
        binary = args.trec_eval or (
            build_trec_eval(args.trec_eval_src, directory) if args.trec_eval_src else None
        )
        if binary is None:
            parser.error("give --trec-eval PATH or --trec-eval-src DIR")
        version = subprocess.run([str(binary), "-v"], capture_output=True, text=True, check=False)
        print(f"trec_eval: {binary} ({(version.stdout or version.stderr).strip()})")
        tempoeval = [sys.executable, "-m", "pytest_tempoeval", "evaluate"]
        summary = []
        for shape in args.shapes:
            queries, docs, judged = parse_shape(shape)
            data = directory / shape.replace(":", "_")
            # Written by a separate process: a child forked from a big parent would count the
            # parent's pages in its peak RSS (Linux keeps the pre-exec high-water mark).
            subprocess.run(
                [sys.executable, str(Path(__file__).with_name("trec_data.py")), str(data)]
                + ["--queries", str(queries), "--docs", str(docs), "--seed", "1"]
                + ["--judged", str(judged)],
                check=True,
                capture_output=True,
            )
            run, qrels = data / "run.trec", data / "qrels.trec"
            ours = [*tempoeval, str(run), str(qrels), "--format", "trec", "-m", *MEASURES]
            theirs = [str(binary), *TREC_EVAL_MEASURES, str(qrels), str(run)]
            size = (run.stat().st_size + qrels.stat().st_size) / 2**20
            print(
                f"\n=== {shape}: {queries:,} queries x {docs} docs, {judged} judged; {size:.0f} MiB"
            )
            _, _, our_out = timed(ours)
            _, _, their_out = timed(theirs)
            same = all_values(our_out) == all_values(their_out)
            print(f"  values (all): tempoeval {all_values(our_out)}")
            print(
                f"                trec_eval {all_values(their_out)}  {'SAME' if same else 'DIFFER'}"
            )
            samples: dict[str, list[tuple[float, float]]] = {"tempoeval": [], "trec_eval": []}
            for repeat in range(args.repeats):
                for name, command in (("tempoeval", ours), ("trec_eval", theirs)):
                    wall, rss, _ = timed(command)
                    samples[name].append((wall, rss))
                    print(f"  repeat {repeat + 1} {name:<9} {wall:6.2f}s  {rss:6.0f} MiB")
            ours_wall = statistics.median(wall for wall, _ in samples["tempoeval"])
            theirs_wall = statistics.median(wall for wall, _ in samples["trec_eval"])
            ours_rss = max(rss for _, rss in samples["tempoeval"])
            theirs_rss = max(rss for _, rss in samples["trec_eval"])
            summary.append(
                (shape, size, ours_wall, theirs_wall, ours_rss, theirs_rss, same, samples)
            )
            shutil.rmtree(data)
        print(
            "\n| shape | files | tempoeval | trec_eval | time ratio | tempoeval peak RSS | "
            "trec_eval peak RSS | values |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for shape, size, ow, tw, orss, trss, same, samples in summary:
            spread = {
                name: f"{min(w for w, _ in s):.2f}-{max(w for w, _ in s):.2f}"
                for name, s in samples.items()
            }
            print(
                f"| {shape} | {size:.0f} MiB | {ow:.2f}s ({spread['tempoeval']}) | {tw:.2f}s "
                f"({spread['trec_eval']}) | {ow / tw:.2f} | {orss:.0f} MiB | {trss:.0f} MiB | "
                f"{'same' if same else 'DIFFER'} |"
            )


if __name__ == "__main__":
    main()
