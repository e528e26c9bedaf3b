"""The command's start-up against the trec_eval binary: ``tempoeval evaluate RUN QRELS --format
trec`` at 1,000 queries (the two shapes of cli_vs_trec_eval where start-up is most of the time),
nine alternating rounds each, so that the start-up figure can be re-measured in a minute without
the 100,000-query rows (trec_eval takes minutes on those). Same binary rules as cli_vs_trec_eval.
"""

from __future__ import annotations

from typing import Any

from bench.harness import Context
from bench.scenarios.cli_vs_trec_eval import compare_shapes

REPEATS = 9
SHAPES: list[tuple[int, int | str, int]] = [(1_000, 100, 20), (1_000, "b", 0)]


def run(ctx: Context) -> dict[str, Any]:
    return compare_shapes(ctx, ctx.pick(SHAPES, [(200, 100, 20)]))
