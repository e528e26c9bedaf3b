"""Judge replay, whole process: grading 1,000 and 3,000 items from a recorded cassette (YAML and
JSON) as the ``tempoeval_judge`` fixture does in record mode ``none``; a missing cassette; stock
vcrpy.

Cassettes are recorded first by a child against the loopback fake Messages API. Each sample is a
fresh ``children/judge.py replay`` process (start-up, imports, reading the cassette, the lookups,
exit), and must return the recorded judgments (SHA-256 of the grades, all answered by the
cassette). Sizes and serializers alternate after a warm-up. A missing cassette must fail with
``JudgeCassetteError`` at once. Stock vcrpy (``use_cassette(record_mode="none")``) scans every
stored interaction per request, so it is quadratic; it is stopped after a timeout. Targets (issue
4): N=3,000 in <= 3 s, t(3,000) <= 3.5 x t(1,000), a missing cassette fails within 1 s.
"""

from __future__ import annotations

from typing import Any

from bench.harness import Context, Mismatch, Sample, alternate, child, median, run_child, spread

REPEATS = 3
SERIALIZERS = ("yaml", "json")


def run(ctx: Context) -> dict[str, Any]:
    small, large = sizes = ctx.pick((1_000, 3_000), (50, 150))
    env = {
        k: v for k, v in ctx.env.items() if not k.startswith("ANTHROPIC_")
    }  # replay needs no key
    expected, paths = {}, {}
    for serializer in SERIALIZERS:
        for n in sizes:
            paths[serializer, n] = ctx.workdir / f"judge_{n}.{serializer}"
            recorded = run_child(
                child("judge", "record", n, paths[serializer, n], "-", 16), env, ctx.workdir
            )
            expected[serializer, n] = recorded.report["digest"]

    def replay(serializer: str, n: int) -> Any:
        def one() -> Sample:
            sample = run_child(child("judge", "replay", n, paths[serializer, n]), env, ctx.workdir)
            report = sample.report
            if (report["count"], report["answered"], report["cache_hits"]) != (n, n, 0) or (
                report["digest"] != expected[serializer, n]
            ):
                raise Mismatch(f"replay {serializer} N={n} did not return the recorded judgments")
            return sample

        return one

    for serializer in SERIALIZERS:
        replay(serializer, small)()  # untimed: fills the bytecode cache
    sides = {f"{s} N={n:,}": replay(s, n) for n in sizes for s in SERIALIZERS}
    samples = alternate(sides, ctx.repeats)
    missing = ctx.workdir / "missing" / "never.yaml"
    misses = [
        run_child(child("judge", "miss", small, missing), env, ctx.workdir)
        for _ in range(ctx.repeats)
    ]
    if any("never.yaml" not in (s.report["error"] or "") or s.report["count"] for s in misses):
        raise Mismatch(
            f"a missing cassette did not fail with JudgeCassetteError: {misses[0].report}"
        )
    samples["missing cassette (mode none)"] = misses
    stock_n, timeout = ctx.pick((1_000, 120.0), (50, 30.0))
    stock = run_child(
        child("judge", "stock", stock_n, paths["yaml", stock_n]), env, ctx.workdir, timeout=timeout
    )
    rows = []
    for label, runs in samples.items():
        key = label.split(" N=")
        size = (
            paths[key[0], int(key[1].replace(",", ""))].stat().st_size / 2**20
            if len(key) == 2
            else None
        )
        rows.append(
            [
                label,
                spread([s.wall for s in runs]),
                spread([s.report["phases"]["grade_all"] for s in runs]),
            ]
            + [
                spread([s.cpu for s in runs]),
                spread([s.rss_mib for s in runs], "MiB"),
                None if size is None else round(size, 1),
            ]
        )
    stock_row = [f"stock vcrpy, yaml N={stock_n:,}", f"> {timeout:g} s (stopped)", None, None, None]
    if not stock.timed_out:
        stock_row[1:] = [spread([stock.wall]), spread([stock.report["phases"]["grade_all"]])]
        stock_row += [spread([stock.cpu]), spread([stock.rss_mib], "MiB")]
    rows.append([*stock_row, None])
    targets = []
    for serializer in SERIALIZERS:
        t_small, t_large = (
            median([s.wall for s in samples[f"{serializer} N={n:,}"]]) for n in sizes
        )
        targets.append(
            {
                "what": f"{serializer} N={large:,} <= 3 s",
                "value": f"{t_large:.2f} s",
                "met": t_large <= 3,
            }
        )
        targets.append(
            {
                "what": f"{serializer} t({large:,}) / t({small:,}) <= 3.5",
                "value": f"{t_large / t_small:.2f}",
                "met": t_large / t_small <= 3.5,
            }
        )
    wall = median([s.wall for s in misses])
    targets.append(
        {"what": "a missing cassette fails within 1 s", "value": f"{wall:.2f} s", "met": wall < 1}
    )
    table = {
        "title": "Replaying recorded judgments, whole process",
        "columns": ["cassette", "whole process", "grade_all", "CPU", "peak RSS", "cassette MiB"],
        "rows": rows,
        "note": "Every replay returned the recorded judgments exactly.",
    }
    return {"params": {"sizes": sizes, "stock_n": stock_n}, "tables": [table], "targets": targets}
