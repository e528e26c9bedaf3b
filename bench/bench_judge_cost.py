"""What judging costs, measured: a dry run's time, batch against live recording, and the price.

- **Dry run** of 3,000 judgments: ``AnthropicJudge(dry_run=True)`` counting what a cassette lacks
  and estimating tokens, once with an empty cassette and once with one that holds every judgment
  (the count then finds nothing to ask). No request is made; the fake server counts to prove it.
- **Recording 1,000 judgments** against the loopback fake Messages API, with ``--latency`` per
  answer: live at ``max_concurrency=16``, and through the Message Batches API (``batch=True``,
  the fake ending each batch at its first poll). Wall time and the HTTP requests each sends. The two
  cassettes are compared byte for byte.
- **Cost** of 10,000 judgments at the default model's price, live and through batches, from the
  tokens per judgment the recordings measured.

    python bench/bench_judge_cost.py            # ~1 min
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from bench_common import code_version

from pytest_tempoeval.errors import JudgeDryRun
from pytest_tempoeval.judge.anthropic_judge import DEFAULT_MODEL, AnthropicJudge
from pytest_tempoeval.judge.cassettes import JudgeCassette
from pytest_tempoeval.judge.prices import PRICES_AS_OF, dollars, price_of
from pytest_tempoeval.testing import FakeMessagesServer


def items(n: int) -> list[tuple[str, str, str, str]]:
    return [
        (f"q{i}", f"What happened in {1950 + i % 70}?", f"d{i}", f"In {1940 + i % 90}, story {i}.")
        for i in range(n)
    ]


def dry_run(cassette: Path, mode: str, n: int, repeats: int) -> tuple[list[float], int, int]:
    times, needed, held = [], 0, 0
    for _ in range(repeats):
        judge = AnthropicJudge(
            api_key="unused",
            base_url="http://127.0.0.1:9",
            cassette=JudgeCassette(cassette, mode),
            dry_run=True,
        )
        started = time.perf_counter()
        try:
            judge.grade_all(items(n))
            needed, held = 0, n
        except JudgeDryRun as stop:
            needed, held = stop.needed, stop.held
        times.append(time.perf_counter() - started)
    return times, needed, held


def record(
    server: FakeMessagesServer, path: Path, n: int, batch: bool
) -> tuple[float, int, object]:
    before = server.http_requests
    judge = AnthropicJudge(
        api_key="unused",
        base_url=server.base_url,
        cassette=JudgeCassette(path, "all"),
        max_concurrency=16,
        batch=batch,
        batch_poll=0.05,
    )
    started = time.perf_counter()
    judge.grade_all(items(n))
    judge.cassette.save()  # type: ignore[union-attr]
    return time.perf_counter() - started, server.http_requests - before, judge.stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dry-run-judgments", type=int, default=3000)
    parser.add_argument("--recorded", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per live answer")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"measuring {code_version()}")
    with (
        tempfile.TemporaryDirectory(prefix="bench_judge_cost_") as temporary,
        FakeMessagesServer(latency=args.latency) as server,
    ):
        directory = Path(temporary)
        full = directory / "full.yaml"
        record(server, full, args.dry_run_judgments, batch=False)  # a cassette holding them all
        requests_before = server.http_requests
        empty_times, needed, _ = dry_run(
            directory / "none.yaml", "all", args.dry_run_judgments, args.repeats
        )
        full_times, _, held = dry_run(full, "once", args.dry_run_judgments, args.repeats)
        assert server.http_requests == requests_before, "a dry run made a request"
        print(f"\ndry run of {args.dry_run_judgments:,} judgments, median of {args.repeats}:")
        print(
            f"  empty cassette: {statistics.median(empty_times):.3f}s ({min(empty_times):.3f}-"
            f"{max(empty_times):.3f}), {needed:,} to ask"
        )
        print(
            f"  full cassette:  {statistics.median(full_times):.3f}s ({min(full_times):.3f}-"
            f"{max(full_times):.3f}), {held:,} held"
        )

        # alternating, fresh cassettes each time; the fake ends a batch at its first poll, so
        # the batch figure is the plugin's own overhead, not the API's queueing time
        live_times, batch_times, same = [], [], True
        for repeat in range(args.repeats):
            live, batch = directory / f"live{repeat}.yaml", directory / f"batch{repeat}.yaml"
            seconds, live_http, live_stats = record(server, live, args.recorded, False)
            live_times.append(seconds)
            seconds, batch_http, _ = record(server, batch, args.recorded, True)
            batch_times.append(seconds)
            same = same and live.read_bytes() == batch.read_bytes()
        print(
            f"\nrecording {args.recorded:,} judgments, {args.latency * 1000:.0f} ms per live "
            f"answer, median of {args.repeats}:"
        )
        print(
            f"  live (max_concurrency=16): {statistics.median(live_times):.2f}s "
            f"({min(live_times):.2f}-{max(live_times):.2f}), {live_http:,} HTTP requests"
        )
        print(
            f"  batch:                     {statistics.median(batch_times):.2f}s "
            f"({min(batch_times):.2f}-{max(batch_times):.2f}), {batch_http:,} HTTP requests"
        )
        print(f"  cassettes byte-identical: {same}")

    per_in = live_stats.input_tokens / args.recorded  # type: ignore[attr-defined]
    per_out = live_stats.output_tokens / args.recorded  # type: ignore[attr-defined]
    price = price_of(DEFAULT_MODEL)
    assert price is not None
    n = 10_000
    live_cost = price.cost(round(per_in * n), round(per_out * n))
    batch_cost = price.cost(round(per_in * n), round(per_out * n), batch=True)
    print(
        f"\ncost of {n:,} judgments at {DEFAULT_MODEL} prices ({price.input:g}/{price.output:g} "
        f"USD per million tokens{', assumed' if price.assumed else ''}; table of {PRICES_AS_OF}), "
        f"{per_in:.0f} input + {per_out:.0f} output tokens each (the fake's counts):"
    )
    print(f"  live:  {dollars(live_cost)}\n  batch: {dollars(batch_cost)}")


if __name__ == "__main__":
    main()
