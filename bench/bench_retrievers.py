"""Framework retrievers: ``Run.from_retriever(retriever, gold, k=10, max_concurrency=...)`` with a
retriever that takes 50 ms per query, concurrent against sequential.

What is measured: the wall-clock time of one ``Run.from_retriever`` call over 200 queries (``gold =
GoldSet.from_records(queries=[(f"q{i}", f"query text {i}") for i in range(200)])``), with

- an async retriever, ``async def retriever(text)``, that awaits ``asyncio.sleep(0.05)`` and returns
  10 ids, at ``max_concurrency=16`` and at ``max_concurrency=1`` (one query after the other);
- for reference, a sync retriever that calls ``time.sleep(0.05)``: the plugin runs sync retrievers
  one query at a time by design (they may not be thread-safe), so it takes as long as the sequential
  async one.

This runs **in this process**, unlike the whole-process benchmarks: the call is latency-bound (it
sleeps 50 ms per query; the CPU work is a few ms in all), so start-up and imports would only add a
constant to both sides. The first call (imports, the event loop's first run) is an untimed warm-up.
The modes alternate (16, 1, sync, 16, 1, sync, ...) ``--repeats`` times, and the table shows the
median, min and max of each, and the CPU time of the process during the call (``process_time``),
which is the plugin's own overhead. The retriever counts the queries in flight, so the table also
shows the most it saw at once, and every run must hold the same 200 rankings of 10 ids.

The floors: 200 x 50 ms / 16 = 0.625 s is the latency floor at 16; as the 200 queries go in 13
waves of at most 16 (the last one of 8), no scheduler can do better than 13 x 50 ms = 0.65 s.
Sequential: 200 x 50 ms = 10 s. ``asyncio.sleep`` and ``time.sleep`` overshoot slightly; the script
measures their actual duration too, for the "observed" floors.

Peak RSS is the process's own ``ru_maxrss`` at the end (there is no child process).

Target: the concurrent run takes at most 1/10 of the sequential time.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import platform
import resource
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
sys.path.insert(0, str(REPO_ROOT))  # pytest_tempoeval from this checkout
sys.path.insert(0, str(BENCH_DIR))

from bench_common import code_version

from pytest_tempoeval import GoldSet, Run

TARGET = 0.1  # concurrent / sequential


@dataclass
class Sample:
    wall: float
    cpu: float
    most_in_flight: int


class Retrievers:
    """The async and sync retrievers, counting the queries in flight."""

    def __init__(self, latency: float, k: int) -> None:
        self.latency, self.k = latency, k
        self.in_flight = self.most_in_flight = 0

    def ids(self, text: str) -> list[str]:
        number = int(text.rsplit(" ", 1)[1])
        return [f"d{(number * 7 + rank * 13) % 1000}" for rank in range(self.k)]

    async def async_retriever(self, text: str) -> list[str]:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.latency)
        finally:
            self.in_flight -= 1
        return self.ids(text)

    def sync_retriever(self, text: str) -> list[str]:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        time.sleep(self.latency)
        self.in_flight -= 1
        return self.ids(text)


def one_run(
    retrievers: Retrievers, mode: str, gold: GoldSet, k: int, concurrency: int, expected: dict
) -> Sample:
    retriever = retrievers.sync_retriever if mode == "sync" else retrievers.async_retriever
    retrievers.most_in_flight = 0
    cpu, start = time.process_time(), time.perf_counter()
    run = Run.from_retriever(retriever, gold, k=k, max_concurrency=concurrency)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    if {query_id: list(run[query_id]) for query_id in run} != expected:
        raise SystemExit(f"MISMATCH: the {mode} run does not hold the expected rankings")
    return Sample(wall, cpu, retrievers.most_in_flight)


def sleep_overshoot(latency: float, times: int) -> tuple[float, float]:
    """Median actual duration of ``asyncio.sleep(latency)`` and of ``time.sleep(latency)``."""

    async def awaited() -> list[float]:
        durations = []
        for _ in range(times):
            start = time.perf_counter()
            await asyncio.sleep(latency)
            durations.append(time.perf_counter() - start)
        return durations

    slept = []
    for _ in range(times):
        start = time.perf_counter()
        time.sleep(latency)
        slept.append(time.perf_counter() - start)
    return statistics.median(asyncio.run(awaited())), statistics.median(slept)


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} s ({min(values):.3f}-{max(values):.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--queries", type=int, default=200, help="gold queries (default 200)")
    parser.add_argument(
        "--latency", type=float, default=0.05, help="retriever latency in seconds (default 0.05)"
    )
    parser.add_argument("--k", type=int, default=10, help="ids returned per query (default 10)")
    parser.add_argument(
        "--concurrency", type=int, default=16, help="max_concurrency of the concurrent runs"
    )
    parser.add_argument(
        "--repeats", type=int, default=5, help="runs of each mode, alternating (default 5)"
    )
    parser.add_argument(
        "--no-sync", dest="sync", action="store_false", help="skip the sync retriever"
    )
    parser.add_argument(
        "--sleep-samples",
        type=int,
        default=40,
        help="timed sleeps to measure their overshoot (default 40)",
    )
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")

    print(
        f"python {platform.python_version()}; measuring {code_version()}; in-process; "
        f"{args.queries} queries, {args.latency * 1e3:g} ms per query, k={args.k}"
    )
    gold = GoldSet.from_records(queries=[(f"q{i}", f"query text {i}") for i in range(args.queries)])
    retrievers = Retrievers(args.latency, args.k)
    expected = {f"q{i}": retrievers.ids(f"query text {i}") for i in range(args.queries)}
    modes = {
        f"async, max_concurrency={args.concurrency}": ("async", args.concurrency),
        "async, max_concurrency=1": ("async", 1),
    }
    if args.sync:
        modes[f"sync (time.sleep), max_concurrency={args.concurrency}"] = (
            "sync",
            args.concurrency,
        )

    one_run(retrievers, "async", gold, args.k, args.concurrency, expected)  # untimed warm-up
    samples: dict[str, list[Sample]] = {label: [] for label in modes}
    for repeat in range(args.repeats):
        for label, (mode, concurrency) in modes.items():
            sample = one_run(retrievers, mode, gold, args.k, concurrency, expected)
            samples[label].append(sample)
            print(
                f"  repeat {repeat + 1}/{args.repeats} {label:42s} wall {sample.wall:6.3f}s  "
                f"cpu {sample.cpu:.3f}s  most in flight {sample.most_in_flight}",
                flush=True,
            )
    awaited, slept = sleep_overshoot(args.latency, args.sleep_samples)

    waves = math.ceil(args.queries / args.concurrency)
    print(
        f"\nRun.from_retriever over {args.queries} queries, {args.latency * 1e3:g} ms each; "
        f"medians of {args.repeats} alternating runs (min-max)\n"
    )
    print("| retriever | wall | CPU (process) | most in flight | / sequential async |")
    print("|---|---|---|---|---|")
    sequential = statistics.median(s.wall for s in samples["async, max_concurrency=1"])
    for label, runs in samples.items():
        walls = [s.wall for s in runs]
        print(
            f"| {label} | {spread(walls)} | {spread([s.cpu for s in runs])} | "
            f"{max(s.most_in_flight for s in runs)} | "
            f"{statistics.median(walls) / sequential:.3f} |"
        )
    floor = args.queries * args.latency / args.concurrency
    print(
        f"\nfloors: {args.queries} x {args.latency * 1e3:g} ms / {args.concurrency} = "
        f"{floor:.3f} s; in waves, {waves} x {args.latency * 1e3:g} ms = "
        f"{waves * args.latency:.3f} s ({waves} x {awaited * 1e3:.1f} ms = {waves * awaited:.3f} s "
        f"with asyncio.sleep's measured {awaited * 1e3:.2f} ms); sequential "
        f"{args.queries * args.latency:.3f} s ({args.queries * awaited:.3f} s measured async, "
        f"{args.queries * slept:.3f} s with time.sleep's {slept * 1e3:.2f} ms)"
    )
    concurrent = statistics.median(
        s.wall for s in samples[f"async, max_concurrency={args.concurrency}"]
    )
    print(
        f"above the wave floor (measured sleeps): concurrent "
        f"{(concurrent - waves * awaited) * 1e3:.0f} ms in all; sequential "
        f"{(sequential - args.queries * awaited) / args.queries * 1e3:.2f} ms a query"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of this process: {peak:.0f} MiB")
    ratio = concurrent / sequential
    verdict = "MET" if ratio <= TARGET else "NOT MET"
    print(
        f"ratio concurrent / sequential = {ratio:.4f} ({1 / ratio:.1f}x faster); "
        f"target <= {TARGET:g}: {verdict}"
    )
    sys.exit(0 if ratio <= TARGET else 1)


if __name__ == "__main__":
    main()
