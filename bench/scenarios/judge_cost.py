"""What judging costs: a dry run's time, recording live against through the Message Batches API,
and the price of 10,000 judgments; in this process, against the loopback fake Messages API.

Dry run: ``AnthropicJudge(dry_run=True)`` counts what a cassette lacks and estimates tokens, over
3,000 items, with an empty cassette and with one that holds them all; the fake server counts
requests to prove none is made. Recording 500 judgments at 50 ms per answer: live at
``max_concurrency=16`` and with ``batch=True`` (the fake ends a batch at its first poll, so this is
the plugin's own overhead, not Anthropic's queue), alternating, into fresh cassettes that must be
byte-identical. Cost: the tokens per judgment the recordings measured, at the default model's price.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from bench.data import judge_items
from bench.harness import Context, Mismatch, alternate, median, spread

REPEATS = 3
LATENCY = 0.05


def run(ctx: Context) -> dict[str, Any]:
    from pytest_tempoeval.errors import JudgeDryRun
    from pytest_tempoeval.judge.anthropic_judge import DEFAULT_MODEL, AnthropicJudge
    from pytest_tempoeval.judge.cassettes import JudgeCassette
    from pytest_tempoeval.judge.prices import PRICES_AS_OF, dollars, price_of
    from pytest_tempoeval.testing import FakeMessagesServer

    dry_n, recorded = ctx.pick((3_000, 500), (100, 30))

    def record(server: Any, path: Path, n: int, batch: bool) -> dict[str, Any]:
        before = server.http_requests
        cassette = JudgeCassette(path, "all")
        judge = AnthropicJudge(
            api_key="unused",
            base_url=server.base_url,
            cassette=cassette,
            max_concurrency=16,
            batch=batch,
            batch_poll=0.05,
        )
        start = time.perf_counter()
        judge.grade_all(judge_items(n))
        cassette.save()
        seconds = time.perf_counter() - start
        return {"seconds": seconds, "http": server.http_requests - before, "stats": judge.stats}

    def dry_run(cassette: Path, mode: str) -> float:
        judge = AnthropicJudge(
            api_key="unused",
            base_url="http://127.0.0.1:9",
            cassette=JudgeCassette(cassette, mode),
            dry_run=True,
        )
        start = time.perf_counter()
        try:
            judge.grade_all(judge_items(dry_n))
        except JudgeDryRun:
            pass
        return time.perf_counter() - start

    with FakeMessagesServer(latency=LATENCY) as server:
        full = ctx.workdir / "full.yaml"
        record(server, full, dry_n, batch=False)  # a cassette holding every dry-run item
        before = server.http_requests
        dry = alternate(
            {
                "empty": lambda: dry_run(ctx.workdir / "none.yaml", "all"),
                "full": lambda: dry_run(full, "once"),
            },
            ctx.repeats,
        )
        if server.http_requests != before:
            raise Mismatch("a dry run sent a request")
        counter = iter(range(10**6))
        paths: dict[str, list[Path]] = {"live": [], "batch": []}

        def side(name: str) -> Any:
            def one() -> dict[str, Any]:
                paths[name].append(ctx.workdir / f"{name}{next(counter)}.yaml")
                return record(server, paths[name][-1], recorded, batch=name == "batch")

            return one

        recordings = alternate({"live": side("live"), "batch": side("batch")}, ctx.repeats)
    if any(a.read_bytes() != b.read_bytes() for a, b in zip(paths["live"], paths["batch"])):
        raise Mismatch("the live and the batch cassettes differ")
    stats = recordings["live"][0]["stats"]
    per_in, per_out = stats.input_tokens / recorded, stats.output_tokens / recorded
    price = price_of(DEFAULT_MODEL)
    live_cost = price.cost(round(per_in * 10_000), round(per_out * 10_000))
    batch_cost = price.cost(round(per_in * 10_000), round(per_out * 10_000), batch=True)
    rows = [
        [f"dry run, {dry_n:,} judgments, empty cassette", spread(dry["empty"]), 0],
        [f"dry run, {dry_n:,} judgments, all held (YAML)", spread(dry["full"]), 0],
    ] + [
        [
            f"record {recorded:,}, {name}",
            spread([r["seconds"] for r in runs]),
            median([r["http"] for r in runs]),
        ]
        for name, runs in recordings.items()
    ]
    live, batch = (median([r["seconds"] for r in runs]) for runs in recordings.values())
    headline = f"record {recorded:,}: live {live:.2f} s, batch {batch:.2f} s; 10,000 judgments: "
    headline += f"{dollars(live_cost)} live, {dollars(batch_cost)} batch"
    return {
        "headline": headline,
        "params": {"dry_run": dry_n, "recorded": recorded, "latency": LATENCY},
        "tables": [
            {
                "title": "Judging: dry run and recording",
                "columns": ["measure", "time", "HTTP requests"],
                "rows": rows,
                "note": "The live and batch cassettes were byte-identical.",
            },
            {
                "title": f"Cost of 10,000 judgments at {DEFAULT_MODEL} (prices of {PRICES_AS_OF})",
                "columns": ["", "cost", "tokens per judgment (in + out)"],
                "rows": [
                    ["live", dollars(live_cost), f"{per_in:.0f} + {per_out:.0f}"],
                    ["batch", dollars(batch_cost), f"{per_in:.0f} + {per_out:.0f}"],
                ],
            },
        ],
    }
