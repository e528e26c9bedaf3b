"""Framework retrievers: ``Run.from_retriever`` over 200 queries with a retriever that takes 50 ms
a query, concurrent (``max_concurrency=16``) against sequential; in this process.

The call is latency-bound (the CPU work is a few ms), so it runs in the harness's process: start-up
would only add a constant. Modes alternate: an async retriever (``await asyncio.sleep``) at
``max_concurrency=16`` and at 1, and a sync one (``time.sleep``), which the plugin runs one query
at a time by design. Each run must hold the expected rankings; the retriever counts the queries in
flight. The floor at 16 is 13 waves x 50 ms = 0.65 s; sequential, 10 s. CPU is the process's time
during the call (the plugin's own overhead). Target (issue 12): concurrent <= 1/10 of sequential.
"""

from __future__ import annotations

import asyncio
import math
import resource
import time
from typing import Any

from bench.harness import Context, alternate, median, spread

TARGET = 0.1
REPEATS = 3


class Retriever:
    """Async and sync retrievers of ``latency`` seconds a query, counting the queries in flight."""

    def __init__(self, latency: float) -> None:
        self.latency = latency
        self.in_flight = self.most = 0

    @staticmethod
    def ids(text: str) -> list[str]:
        number = int(text.rsplit(" ", 1)[1])
        return [f"d{(number * 7 + rank * 13) % 1000}" for rank in range(10)]

    def enter(self) -> None:
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)

    async def async_retriever(self, text: str) -> list[str]:
        self.enter()
        await asyncio.sleep(self.latency)
        self.in_flight -= 1
        return self.ids(text)

    def sync_retriever(self, text: str) -> list[str]:
        self.enter()
        time.sleep(self.latency)
        self.in_flight -= 1
        return self.ids(text)


def run(ctx: Context) -> dict[str, Any]:
    from pytest_tempoeval import GoldSet, Run

    queries, latency, wide = ctx.pick((200, 0.05, 16), (32, 0.01, 16))
    gold = GoldSet.from_records(queries=[(f"q{i}", f"query text {i}") for i in range(queries)])
    expected = {f"q{i}": Retriever.ids(f"query text {i}") for i in range(queries)}
    retriever = Retriever(latency)

    def mode(sync: bool, concurrency: int) -> Any:
        def one() -> dict[str, float]:
            retriever.most = 0
            function = retriever.sync_retriever if sync else retriever.async_retriever
            cpu, start = time.process_time(), time.perf_counter()
            found = Run.from_retriever(function, gold, k=10, max_concurrency=concurrency)
            wall, cpu = time.perf_counter() - start, time.process_time() - cpu
            if {query: list(found[query]) for query in found} != expected:
                raise AssertionError("the run does not hold the expected rankings")
            return {"wall": wall, "cpu": cpu, "most": retriever.most}

        return one

    modes = {
        f"async, max_concurrency={wide}": mode(False, wide),
        "async, max_concurrency=1": mode(False, 1),
        f"sync (time.sleep), max_concurrency={wide}": mode(True, wide),
    }
    next(iter(modes.values()))()  # untimed: imports, the event loop's first run
    samples = alternate(modes, ctx.repeats)
    sequential = median([s["wall"] for s in samples["async, max_concurrency=1"]])
    rows = [
        [label, spread([s["wall"] for s in runs]), spread([s["cpu"] for s in runs])]
        + [max(s["most"] for s in runs), round(median([s["wall"] for s in runs]) / sequential, 3)]
        for label, runs in samples.items()
    ]
    ratio = median([s["wall"] for s in samples[f"async, max_concurrency={wide}"]]) / sequential
    waves = math.ceil(queries / wide)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    table = {
        "title": f"Run.from_retriever: {queries} queries, {latency * 1000:g} ms each",
        "columns": ["retriever", "wall", "CPU (process)", "most in flight", "/ sequential async"],
        "rows": rows,
        "note": f"Floors: {waves} waves x {latency * 1000:g} ms = {waves * latency:.2f} s at "
        f"{wide}; {queries * latency:.1f} s sequential. Peak RSS of the harness process: "
        f"{peak:.0f} MiB.",
    }
    target = {"what": f"concurrent / sequential <= {TARGET:g}", "value": f"{ratio:.3f}"}
    return {
        "params": {"queries": queries, "latency": latency, "max_concurrency": wide},
        "tables": [table],
        "targets": [{**target, "met": ratio <= TARGET}],
    }
