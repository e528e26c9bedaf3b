"""Public metric functions, and the seed-compatible ``TemporalNDCG``/``TemporalPrecision`` classes.

Every function takes a :class:`~pytest_tempoeval.run.Run` (or anything ``Run`` accepts, or a path) and
a :class:`~pytest_tempoeval.goldset.GoldSet` (or a path), and returns a
:class:`~pytest_tempoeval.result.MetricResult`. Conventions live next to their code in
:mod:`pytest_tempoeval.kernels`; how relevance is decided per mode lives in
:mod:`pytest_tempoeval.relevance`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from . import kernels
from .columns import decode_ids
from .errors import MetricError
from .goldset import GoldSet
from .relevance import (
    GRADE_SCALE,
    NO_OVERLAP,
    NO_RELEVANT_JUDGED,
    NOTHING_JUDGED_RELEVANT,
    Judged,
    focus_index,
    jaccard,
    judge_focus_time,
    judge_gold,
    judge_llm,
)
from .result import MetricResult, QueryExplanation, QueryScores
from .run import Run
from .seed_compat import TemporalNDCG, TemporalPrecision

__all__ = [
    "TemporalNDCG",
    "TemporalPrecision",
    "assert_average_precision",
    "assert_mrr",
    "assert_ndcg",
    "assert_precision",
    "assert_recall",
    "assert_temporal_map",
    "assert_temporal_mrr",
    "assert_temporal_ndcg",
    "assert_temporal_precision",
    "assert_temporal_recall",
    "average_precision",
    "mrr",
    "ndcg",
    "precision",
    "recall",
    "temporal_map",
    "temporal_mrr",
    "temporal_ndcg",
    "temporal_precision",
    "temporal_recall",
]

TEMPORAL_MODES = ("focus_time", "gold", "llm")
# Why a query with nothing relevant (IDCG 0, or no relevant document for R/AP) is left out, per mode.
NO_RELEVANT_REASON = {
    "gold": NO_RELEVANT_JUDGED,
    "focus_time": NO_OVERLAP,
    "llm": NOTHING_JUDGED_RELEVANT,
}
GAINS = ("linear", "exponential")
RunLike = Run | Mapping[str, Any] | str | Path
GoldLike = GoldSet | str | Path


# -- temporal metrics -------------------------------------------------------------------------------


def temporal_ndcg(
    run: RunLike,
    gold: GoldLike,
    k: int | None = None,
    mode: str = "focus_time",
    judge: Any = None,
    gain: str = "linear",
    strict: bool = False,
) -> MetricResult:
    """Temporal nDCG@k. focus_time: relevance 4·Jaccard(QFT, DFT); gold: graded judgments; llm: judge grade."""
    run, gold, k = _inputs(run, gold, k)
    _check_choice("gain", gain, GAINS)
    judged = _judge(run, gold, k, mode, judge, strict=strict, modes=TEMPORAL_MODES)
    return _ndcg_result("temporal_ndcg", judged, run, gold, k, mode, gain)


def temporal_precision(
    run: RunLike,
    gold: GoldLike,
    k: int | None = None,
    mode: str = "focus_time",
    judge: Any = None,
    threshold: float = 0.0,
    strict: bool = False,
) -> MetricResult:
    """Temporal P@k: share of the top k whose focus time overlaps the query's (Jaccard > threshold if > 0)."""
    run, gold, k = _inputs(run, gold, k)
    judged = _judge(
        run, gold, k, mode, judge, threshold, strict, modes=("focus_time", "llm"), binary=True
    )
    return _result(
        "temporal_precision",
        judged,
        run,
        gold,
        k,
        mode,
        kernels.precision(judged.relevant, k),
        binary=True,
    )


def temporal_recall(
    run: RunLike,
    gold: GoldLike,
    k: int | None = None,
    mode: str = "focus_time",
    threshold: float = 0.0,
    strict: bool = False,
) -> MetricResult:
    """Temporal R@k: temporally relevant documents in the top k / all known temporally relevant documents."""
    run, gold, k = _inputs(run, gold, k)
    judged = _judge(run, gold, k, mode, None, threshold, strict, modes=("focus_time",))
    scores = kernels.recall(judged.relevant, judged.n_relevant, k)
    return _result(
        "temporal_recall", judged, run, gold, k, mode, scores, binary=True, needs_relevant=True
    )


def temporal_mrr(
    run: RunLike,
    gold: GoldLike,
    k: int | None = None,
    mode: str = "focus_time",
    threshold: float = 0.0,
    strict: bool = False,
) -> MetricResult:
    """Reciprocal rank of the first temporally relevant document (whole ranking unless k is given)."""
    run, gold, depth = _inputs(run, gold, k, cutoff=False)
    judged = _judge(run, gold, depth, mode, None, threshold, strict, modes=("focus_time",))
    scores = kernels.reciprocal_rank(judged.relevant, k)
    return _result(
        "temporal_mrr", judged, run, gold, k, mode, scores, binary=True, needs_relevant=True
    )


def temporal_map(
    run: RunLike,
    gold: GoldLike,
    k: int | None = None,
    mode: str = "focus_time",
    threshold: float = 0.0,
    strict: bool = False,
) -> MetricResult:
    """Average precision over temporally relevant documents (whole ranking unless k is given)."""
    run, gold, depth = _inputs(run, gold, k, cutoff=False)
    judged = _judge(run, gold, depth, mode, None, threshold, strict, modes=("focus_time",))
    scores = kernels.average_precision(judged.relevant, judged.n_relevant, k)
    return _result(
        "temporal_map", judged, run, gold, k, mode, scores, binary=True, needs_relevant=True
    )


# -- gold-judgment metrics (trec_eval semantics) ----------------------------------------------------


def ndcg(run: RunLike, gold: GoldLike, k: int | None = None, gain: str = "linear") -> MetricResult:
    """nDCG@k over graded judgments; equals trec_eval's ``ndcg_cut.k``."""
    run, gold, k = _inputs(run, gold, k)
    _check_choice("gain", gain, GAINS)
    return _ndcg_result("ndcg", judge_gold(run, gold, k), run, gold, k, "gold", gain)


def precision(run: RunLike, gold: GoldLike, k: int | None = None) -> MetricResult:
    """P@k (grade >= 1 is relevant); equals trec_eval's ``P.k``."""
    run, gold, k = _inputs(run, gold, k)
    judged = judge_gold(run, gold, k, need_ideal=False)
    return _result(
        "precision",
        judged,
        run,
        gold,
        k,
        "gold",
        kernels.precision(judged.relevant, k),
        binary=True,
    )


def recall(run: RunLike, gold: GoldLike, k: int | None = None) -> MetricResult:
    """R@k; equals trec_eval's ``recall.k``."""
    run, gold, k = _inputs(run, gold, k)
    judged = judge_gold(run, gold, k, need_ideal=False)
    scores = kernels.recall(judged.relevant, judged.n_relevant, k)
    return _result("recall", judged, run, gold, k, "gold", scores, binary=True)


def mrr(run: RunLike, gold: GoldLike, k: int | None = None) -> MetricResult:
    """Reciprocal rank; with ``k=None`` equals trec_eval's ``recip_rank`` (whole ranking)."""
    run, gold, depth = _inputs(run, gold, k, cutoff=False)
    judged = judge_gold(run, gold, depth, need_ideal=False)
    return _result(
        "mrr",
        judged,
        run,
        gold,
        k,
        "gold",
        kernels.reciprocal_rank(judged.relevant, k),
        binary=True,
    )


def average_precision(run: RunLike, gold: GoldLike, k: int | None = None) -> MetricResult:
    """AP; with ``k=None`` equals trec_eval's ``map`` per query, with k its ``map_cut.k``."""
    run, gold, depth = _inputs(run, gold, k, cutoff=False)
    judged = judge_gold(run, gold, depth, need_ideal=False)
    scores = kernels.average_precision(judged.relevant, judged.n_relevant, k)
    return _result("average_precision", judged, run, gold, k, "gold", scores, binary=True)


# -- bare-statement assertions ---------------------------------------------------------------------
# ``assert_temporal_ndcg(run, gold, k=10) >= 0.8`` needs no ``assert``: the comparison raises
# AssertionError with the explanation when it does not hold, and returns True otherwise.


def _checked(metric: Callable[..., MetricResult]) -> Callable[..., MetricResult]:
    def checked(*args: Any, **kwargs: Any) -> MetricResult:
        return metric(*args, **kwargs).checked()

    checked.__name__ = f"assert_{metric.__name__}"
    checked.__doc__ = (
        f"``{metric.__name__}`` whose comparisons raise AssertionError when they fail."
    )
    return checked


assert_temporal_ndcg = _checked(temporal_ndcg)
assert_temporal_precision = _checked(temporal_precision)
assert_temporal_recall = _checked(temporal_recall)
assert_temporal_mrr = _checked(temporal_mrr)
assert_temporal_map = _checked(temporal_map)
assert_ndcg = _checked(ndcg)
assert_precision = _checked(precision)
assert_recall = _checked(recall)
assert_mrr = _checked(mrr)
assert_average_precision = _checked(average_precision)


# -- shared plumbing --------------------------------------------------------------------------------


def check_k(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k <= 0:
        raise MetricError(f"k must be a positive integer (the rank cutoff), got {k!r}")
    return int(k)


def _inputs(run: RunLike, gold: GoldLike, k: Any, cutoff: bool = True) -> tuple[Run, GoldSet, int]:
    """Normalise arguments. Returns the depth to judge: k for cutoff metrics, else the longest ranking."""
    if not isinstance(gold, GoldSet):
        if isinstance(gold, (str, Path)):
            gold = GoldSet.load(gold)
        else:
            raise MetricError(
                f"gold must be a GoldSet or the path of one, got {type(gold).__name__}"
            )
    if not isinstance(run, Run):
        run = Run.load(run) if isinstance(run, (str, Path)) else Run(run)
    if cutoff:
        return run, gold, check_k(k if k is not None else gold.k or 10)
    if k is not None:
        return run, gold, check_k(k)
    return run, gold, max(1, int(run.table.lengths.max(initial=0)))


def _check_choice(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise MetricError(f"unknown {name} {value!r}; choose one of: {', '.join(allowed)}")


def _judge(
    run: Run,
    gold: GoldSet,
    depth: int,
    mode: str,
    judge: Any,
    threshold: float = 0.0,
    strict: bool = False,
    modes: tuple[str, ...] = TEMPORAL_MODES,
    binary: bool = False,
) -> Judged:
    """Relevance for the chosen mode. ``binary`` metrics (precision) need no ideal ranking, and in
    LLM mode ask for the binary verdict instead of the 0-4 grade."""
    _check_choice("mode", mode, modes)
    if not 0.0 <= threshold < 1.0:
        raise MetricError(f"threshold is a Jaccard similarity in [0, 1), got {threshold!r}")
    if mode == "gold":
        return judge_gold(run, gold, depth)
    if mode == "llm":
        return judge_llm(run, gold, depth, judge, graded=not binary, strict=strict)
    return judge_focus_time(run, gold, depth, threshold, strict, pool=not binary)


def _ndcg_result(
    name: str, judged: Judged, run: Run, gold: GoldSet, k: int, mode: str, gain: str
) -> MetricResult:
    gains = kernels.gain_values(judged.relevance, gain)
    ideal = kernels.gain_values(judged.ideal, gain)
    scores, no_ideal = kernels.ndcg(gains, ideal, k)
    excluded = dict(judged.excluded)
    reason = NO_RELEVANT_REASON[mode]
    for position in np.flatnonzero(no_ideal).tolist():
        excluded.setdefault(position, reason)
    return _package(name, judged, run, gold, k, mode, scores, excluded, binary=False)


def _result(
    name: str,
    judged: Judged,
    run: Run,
    gold: GoldSet,
    k: int | None,
    mode: str,
    scores: np.ndarray,
    binary: bool,
    needs_relevant: bool = False,
) -> MetricResult:
    excluded = dict(judged.excluded)
    if needs_relevant or mode == "gold":
        reason = NO_RELEVANT_REASON[mode]
        for position in np.flatnonzero(judged.n_relevant == 0).tolist():
            excluded.setdefault(position, reason)
    return _package(name, judged, run, gold, k, mode, scores, excluded, binary)


def _package(
    name: str,
    judged: Judged,
    run: Run,
    gold: GoldSet,
    k: int | None,
    mode: str,
    scores: np.ndarray,
    excluded: dict[int, str],
    binary: bool,
) -> MetricResult:
    ids = judged.query_ids
    counted = np.ones(len(ids), dtype=bool)
    counted[list(excluded)] = False
    per_query = QueryScores(ids, scores, counted)
    top = judged.rows[:, : k or judged.rows.shape[1]]
    extra = {
        "unjudged": int(((top >= 0) & ~judged.judged[:, : top.shape[1]]).sum()),
        "missing_queries": int(judged.missing.sum()),
    }
    if judged.judge_model is not None:
        extra["judge_model"] = judged.judge_model
    explain = _explainer(judged, run, gold, k, mode, binary)
    return MetricResult(
        name,
        k,
        mode,
        per_query,
        {ids[i]: r for i, r in sorted(excluded.items())},
        explain,
        extra,
        gold,
    )


def _explainer(
    judged: Judged, run: Run, gold: GoldSet, k: int | None, mode: str, binary: bool
) -> Callable[[str], QueryExplanation]:
    shown = k or 10

    def explain(query_id: str) -> QueryExplanation:
        position = gold.query_position[query_id]
        rows = judged.rows[position, :shown]
        retrieved = []
        for rank, row in enumerate(rows.tolist()):
            if row < 0:
                break
            doc = decode_ids(run.table.doc_ids[row : row + 1])[0]
            value = judged.relevance[position, rank] if judged.judged[position, rank] else None
            retrieved.append(
                (
                    doc,
                    (1.0 if judged.relevant[position, rank] else 0.0)
                    if binary and value is not None
                    else value,
                )
            )
        ideal = _ideal_documents(gold, position, shown, mode)
        note = "not in the run: scored as an empty ranking" if judged.missing[position] else ""
        return QueryExplanation(query_id, retrieved, ideal, note)

    return explain


def _ideal_documents(gold: GoldSet, position: int, n: int, mode: str) -> list[tuple[str, float]]:
    """The best documents the gold set knows for a query, best first (ties by id)."""
    if mode == "gold":
        relevant = gold.queries[gold.query_ids[position]].relevant
        ranked = sorted(((-grade, doc) for doc, grade in relevant.items() if grade > 0))
        return [(doc, float(-grade)) for grade, doc in ranked[:n]]
    index = focus_index(gold)
    code = index.query_code[position]
    has_time = index.doc_code >= 0
    if code < 0 or not has_time.any():
        return []
    codes = index.doc_code[has_time]
    similarity = jaccard(
        index.bits[code][None, :], index.sizes[code], index.bits[codes], index.sizes[codes]
    )
    docs = [doc for doc, keep in zip(index.doc_ids, has_time.tolist()) if keep]
    ranked = sorted((-value, doc) for value, doc in zip(similarity.tolist(), docs) if value > 0)
    return [(doc, GRADE_SCALE * -value) for value, doc in ranked[:n]]
