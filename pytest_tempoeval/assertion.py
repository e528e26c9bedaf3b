"""Failure explanations for metric thresholds, shared by ``pytest_assertrepr_compare`` and the
``assert_*`` helpers.

pytest shows only 8 lines of an explanation outside ``-vv`` (and in CI), so the first line carries
the essentials: metric, score, threshold, counted/excluded queries and the worst query ids.
"""

from __future__ import annotations

import math
from typing import Any

from .result import MetricResult

_FLIPPED = {">=": "<=", "<=": ">=", ">": "<", "<": ">", "==": "==", "!=": "!="}


def explain_comparison(result: MetricResult, op: str, threshold: float, verbose: int) -> list[str]:
    """Lines explaining why ``result op threshold`` failed; more queries with ``-vv``."""
    counted, excluded = len(result.per_query), len(result.excluded)
    score = "nan" if math.isnan(result) else f"{float(result):.4f}"
    worst = result.worst(3)
    head = (
        f"{result.label} [{result.mode}] = {score}, needed {op} {threshold:g}; "
        f"{counted} quer{'y' if counted == 1 else 'ies'} counted, {excluded} excluded"
    )
    if worst:
        head += "; worst: " + ", ".join(f"{q} {result.per_query[q]:.3f}" for q in worst)
    n_shown = len(result.per_query) if verbose >= 2 else 5
    lines = [head, *result.explain(n=n_shown).splitlines()[1:]]
    if verbose >= 2:
        lines.append("per query (all, worst first):")
        lines += [f"  {q}: {result.per_query[q]:.6f}" for q in result.worst(len(result.per_query))]
    return lines


def assertrepr_compare(op: str, left: Any, right: Any, verbose: int) -> list[str] | None:
    """The ``pytest_assertrepr_compare`` implementation: explain ``metric op number`` either way round."""
    if isinstance(left, MetricResult) and _is_number(right):
        return explain_comparison(left, op, float(right), verbose)
    if isinstance(right, MetricResult) and _is_number(left) and op in _FLIPPED:
        return explain_comparison(right, _FLIPPED[op], float(left), verbose)
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, (bool, MetricResult))
