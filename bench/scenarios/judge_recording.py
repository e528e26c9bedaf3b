"""Judge recording concurrency: recording judgments into a new cassette (record mode ``all``)
against a fake Messages API that answers in 50 ms, at ``max_concurrency=16`` and at 1.

The fake server (``children/fake_server.py``) runs in its own process, as the real API is not in
the test's process either; it counts the requests and the most it answered at once. Each sample is
a fresh ``children/judge.py record`` process; the figure is the time from the first judgment to the
saved cassette, measured in the child (the whole process is shown too). Every run must send one
request per judgment and never more at once than allowed. Target (issue 4): concurrent <= 1/10 of
sequential (the latency floor is N x 50 ms / 16 against N x 50 ms).
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

from bench.harness import Context, Mismatch, Sample, alternate, child, median, run_child, spread

REPEATS = 2
LATENCY = 0.05
WIDE = 16


def record(ctx: Context, n: int, concurrency: int) -> Sample:
    """One recording child against a fresh fake server process; checks what the server saw."""
    server = subprocess.Popen(
        child("fake_server", LATENCY),
        env=ctx.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    base_url = server.stdout.readline().strip()  # type: ignore[union-attr]
    path = ctx.workdir / f"record_{concurrency}.yaml"
    path.unlink(missing_ok=True)
    try:
        sample = run_child(
            child("judge", "record", n, path, base_url, concurrency), ctx.env, ctx.workdir
        )
    finally:
        seen = json.loads(server.communicate("", timeout=60)[0].strip().splitlines()[-1])
    sample.report["server"] = seen
    if sample.report["count"] != n or seen["requests"] != n or seen["max_in_flight"] > concurrency:
        raise Mismatch(f"recording {n} at {concurrency}: {sample.report}")
    return sample


def run(ctx: Context) -> dict[str, Any]:
    n = ctx.pick(500, 40)
    record(ctx, min(n, 20), WIDE)  # untimed: bytecode cache
    sides = {
        f"max_concurrency={WIDE}": lambda: record(ctx, n, WIDE),
        "max_concurrency=1 (sequential)": lambda: record(ctx, n, 1),
    }
    samples = alternate(sides, ctx.repeats)
    rows = [
        [label, spread([s.report["block"] for s in runs]), spread([s.wall for s in runs])]
        + [spread([s.cpu for s in runs]), max(s.report["server"]["max_in_flight"] for s in runs)]
        + [spread([s.rss_mib for s in runs], "MiB")]
        for label, runs in samples.items()
    ]
    fast, slow = (median([s.report["block"] for s in runs]) for runs in samples.values())
    table = {
        "title": f"Recording {n:,} judgments, {LATENCY * 1000:g} ms per answer",
        "columns": ["judge", "recording (judge + save)", "whole process", "CPU", "most in flight"]
        + ["peak RSS"],
        "rows": rows,
        "note": f"Latency floor: {n * LATENCY / WIDE:.2f} s at {WIDE} in flight, "
        f"{n * LATENCY:.1f} s sequential.",
    }
    target = {"what": "concurrent / sequential <= 0.1", "value": f"{fast / slow:.3f}"}
    return {
        "params": {"n": n, "latency": LATENCY},
        "tables": [table],
        "targets": [{**target, "met": fast / slow <= 0.1}],
    }
