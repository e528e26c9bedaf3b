"""Gold mode vs pytrec_eval, whole process: read a TREC run and qrels, then nDCG@10, P@10 and MRR,
on three data shapes and several sizes; time, peak RSS and where our time goes.

Each side is a fresh process (``children/gold_ours.py``: ``Run.load``, ``GoldSet.from_trec_qrels``,
``ndcg``, ``precision``, ``mrr``; ``children/gold_pytrec.py``: ``parse_run``, ``parse_qrel``,
``RelevanceEvaluator``), so start-up and imports count, as in a CI job. Per shape (``bench/data.py``
``SHAPES``: a sparse, b dense with short ids, c long ids and deep rankings) and size, an untimed
pair warms the page and bytecode caches and checks every per-query value against pytrec_eval
(1e-9), then the sides alternate. Sizes whose run would exceed 10M lines are left out.
Target (issue 1): at least 3x pytrec_eval's speed on shape a at the largest size.
"""

from __future__ import annotations

from importlib.util import find_spec
from typing import Any

from bench.harness import (
    Context,
    Mismatch,
    Skip,
    alternate,
    child,
    generate,
    median,
    run_child,
    spread,
)

# Docs per query of each of bench.data.SHAPES (not imported: it imports numpy, and this process
# must stay small, since every child's ru_maxrss starts from it).
SHAPES = {"a": 100, "b": 100, "c": 1000}
TOLERANCE = 1e-9
MAX_RUN_LINES = 10_000_000
REPEATS = 3


def run(ctx: Context) -> dict[str, Any]:
    if find_spec("pytrec_eval") is None:
        raise Skip("pytrec_eval is not installed (pip install pytrec-eval-terrier)")
    sizes = ctx.pick([1_000, 10_000, 100_000], [300])
    rows, targets, worst = [], [], 0.0
    for shape, docs in SHAPES.items():
        for queries in sizes:
            if queries * docs > MAX_RUN_LINES:
                continue
            ours, theirs, diff = measure(ctx, shape, queries)
            worst = max(worst, diff)
            speedup = median([s.wall for s in theirs]) / median([s.wall for s in ours])
            phases = [median([s.report["phases"][p] for s in ours]) for p in PHASES]
            rows.append(
                [shape, queries, spread([s.wall for s in ours]), spread([s.wall for s in theirs])]
                + [round(speedup, 2), spread([s.rss_mib for s in ours], "MiB")]
                + [
                    spread([s.rss_mib for s in theirs], "MiB"),
                    " / ".join(f"{p:.2f}" for p in phases),
                ]
            )
            if shape == "a" and queries == sizes[-1]:
                targets.append(
                    {
                        "what": f"speed-up >= 3 (shape a, {queries:,} queries)",
                        "value": f"{speedup:.2f}x",
                        "met": speedup >= 3,
                    }
                )
    columns = ["shape", "queries", "ours", "pytrec_eval", "speed-up", "ours peak RSS"]
    columns += ["pytrec_eval peak RSS", "ours: import / run / qrels / evaluate (s)"]
    note = f"Every per-query value agreed with pytrec_eval (largest difference {worst:.1e})."
    table = {"title": "Gold mode vs pytrec_eval, whole process", "columns": columns, "rows": rows}
    return {
        "params": {"sizes": sizes, "shapes": list(SHAPES)},
        "targets": targets,
        "tables": [{**table, "note": note}],
    }


PHASES = ("import", "parse_run", "parse_qrels", "evaluate")


def measure(ctx: Context, shape: str, queries: int) -> tuple[list[Any], list[Any], float]:
    """Write the files, check the values in an untimed pair, then time alternating pairs."""
    data = ctx.workdir / f"{shape}_{queries}"
    generate(ctx, "write_trec", data, queries=queries, shape=shape)
    files = [data / "run.trec", data / "qrels.trec"]
    dump = ctx.workdir / "pytrec_eval.json"
    run_child(child("gold_pytrec", *files, dump), ctx.env, ctx.workdir)
    check = run_child(child("gold_ours", *files, dump), ctx.env, ctx.workdir).report["check"]
    dump.unlink()
    bad = {
        name: c
        for name, c in check.items()
        if c["max_diff"] > TOLERANCE
        or c["only_ours"]
        or c["only_theirs_nonzero"]
        or c["mean_diff"] > TOLERANCE
    }
    if bad:
        raise Mismatch(f"shape {shape}, {queries} queries: ours and pytrec_eval differ: {bad}")
    samples = alternate(
        {
            "ours": lambda: run_child(child("gold_ours", *files), ctx.env, ctx.workdir),
            "pytrec_eval": lambda: run_child(child("gold_pytrec", *files), ctx.env, ctx.workdir),
        },
        ctx.repeats,
    )
    for path in files:
        path.unlink()
    return samples["ours"], samples["pytrec_eval"], max(c["max_diff"] for c in check.values())
