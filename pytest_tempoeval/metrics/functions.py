"""The public metric functions and their ``assert_*`` forms.

Every function takes a :class:`~pytest_tempoeval.data.run.Run` (or anything ``Run`` accepts, or a
path) and a :class:`~pytest_tempoeval.data.goldset.GoldSet` (or a path), and returns a
:class:`~pytest_tempoeval.metrics.results.MetricResult`. Conventions live next to their code in
:mod:`.kernels`; how relevance is decided per mode lives in :mod:`.relevance`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from pytest_tempoeval.constants import DEFAULT_K
from pytest_tempoeval.data.columns import decode_ids
from pytest_tempoeval.data.goldset import GoldSet
from pytest_tempoeval.data.run import Run
from pytest_tempoeval.data.values import check_k
from pytest_tempoeval.errors import MetricError
from pytest_tempoeval.metrics import kernels
from pytest_tempoeval.metrics.explain import QueryExplanation
from pytest_tempoeval.metrics.llm_judgments import Judge
from pytest_tempoeval.metrics.relevance import (
    NO_RELEVANT_REASON,
    Relevance,
    focus_time_relevance,
    gold_relevance,
    llm_relevance,
)
from pytest_tempoeval.metrics.results import MetricResult, QueryScores

TEMPORAL_MODES = ("focus_time", "gold", "llm")
RunLike = Run | Mapping[str, Any] | str | Path
GoldLike = GoldSet | str | Path


# -- temporal metrics ------------------------------------------------------------------------------


def temporal_ndcg(
    run: RunLike,
    gold: GoldLike,
    k: int | None = None,
    mode: str = "focus_time",
    judge: Judge | None = None,
    gain: str = "linear",
    strict: bool = False,
) -> MetricResult:
    """Temporal nDCG@k. Relevance, by mode: focus_time 4·Jaccard(QFT, DFT); gold the graded
    judgments; llm the judge's grade."""
    run, gold, k = _inputs(run, gold, k)
    _check_choice("gain", gain, kernels.GAINS)
    relevance = _relevance(run, gold, k, mode, judge, strict=strict, modes=TEMPORAL_MODES)
    return _ndcg_result("temporal_ndcg", relevance, run, gold, k, mode, gain)


def temporal_precision(
    run: RunLike,
    gold: GoldLike,
    k: int | None = None,
    mode: str = "focus_time",
    judge: Judge | None = None,
    threshold: float = 0.0,
    strict: bool = False,
) -> MetricResult:
    """Temporal P@k: share of the top k whose focus time overlaps the query's (Jaccard >
    threshold when threshold > 0)."""
    run, gold, k = _inputs(run, gold, k)
    relevance = _relevance(
        run, gold, k, mode, judge, threshold, strict, modes=("focus_time", "llm"), binary=True
    )
    scores = kernels.precision(relevance.relevant, k)
    return _result("temporal_precision", relevance, run, gold, k, mode, scores, binary=True)


def temporal_recall(
    run: RunLike,
    gold: GoldLike,
    k: int | None = None,
    mode: str = "focus_time",
    threshold: float = 0.0,
    strict: bool = False,
) -> MetricResult:
    """Temporal R@k: temporally relevant documents in the top k / all known temporally relevant
    documents."""
    run, gold, k = _inputs(run, gold, k)
    relevance = _relevance(run, gold, k, mode, None, threshold, strict, modes=("focus_time",))
    scores = kernels.recall(relevance.relevant, relevance.n_relevant, k)
    return _result(
        "temporal_recall", relevance, run, gold, k, mode, scores, binary=True, needs_relevant=True
    )


def temporal_mrr(
    run: RunLike,
    gold: GoldLike,
    k: int | None = None,
    mode: str = "focus_time",
    threshold: float = 0.0,
    strict: bool = False,
) -> MetricResult:
    """Reciprocal rank of the first temporally relevant document (whole ranking unless k is
    given)."""
    run, gold, depth = _inputs(run, gold, k, cutoff=False)
    relevance = _relevance(run, gold, depth, mode, None, threshold, strict, modes=("focus_time",))
    scores = kernels.reciprocal_rank(relevance.relevant, k)
    return _result(
        "temporal_mrr", relevance, run, gold, k, mode, scores, binary=True, needs_relevant=True
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
    relevance = _relevance(run, gold, depth, mode, None, threshold, strict, modes=("focus_time",))
    scores = kernels.average_precision(relevance.relevant, relevance.n_relevant, k)
    return _result(
        "temporal_map", relevance, run, gold, k, mode, scores, binary=True, needs_relevant=True
    )


# -- gold-judgment metrics (trec_eval semantics) ---------------------------------------------------


def ndcg(run: RunLike, gold: GoldLike, k: int | None = None, gain: str = "linear") -> MetricResult:
    """nDCG@k over graded judgments; equals trec_eval's ``ndcg_cut.k``."""
    run, gold, k = _inputs(run, gold, k)
    _check_choice("gain", gain, kernels.GAINS)
    return _ndcg_result("ndcg", gold_relevance(run, gold, k), run, gold, k, "gold", gain)


def precision(run: RunLike, gold: GoldLike, k: int | None = None) -> MetricResult:
    """P@k (grade >= 1 is relevant); equals trec_eval's ``P.k``."""
    run, gold, k = _inputs(run, gold, k)
    relevance = gold_relevance(run, gold, k, need_ideal=False)
    scores = kernels.precision(relevance.relevant, k)
    return _result("precision", relevance, run, gold, k, "gold", scores, binary=True)


def recall(run: RunLike, gold: GoldLike, k: int | None = None) -> MetricResult:
    """R@k; equals trec_eval's ``recall.k``."""
    run, gold, k = _inputs(run, gold, k)
    relevance = gold_relevance(run, gold, k, need_ideal=False)
    scores = kernels.recall(relevance.relevant, relevance.n_relevant, k)
    return _result("recall", relevance, run, gold, k, "gold", scores, binary=True)


def mrr(run: RunLike, gold: GoldLike, k: int | None = None) -> MetricResult:
    """Reciprocal rank; with ``k=None`` equals trec_eval's ``recip_rank`` (whole ranking)."""
    run, gold, depth = _inputs(run, gold, k, cutoff=False)
    relevance = gold_relevance(run, gold, depth, need_ideal=False)
    scores = kernels.reciprocal_rank(relevance.relevant, k)
    return _result("mrr", relevance, run, gold, k, "gold", scores, binary=True)


def average_precision(run: RunLike, gold: GoldLike, k: int | None = None) -> MetricResult:
    """AP; with ``k=None`` equals trec_eval's ``map`` per query, with k its ``map_cut.k``."""
    run, gold, depth = _inputs(run, gold, k, cutoff=False)
    relevance = gold_relevance(run, gold, depth, need_ideal=False)
    scores = kernels.average_precision(relevance.relevant, relevance.n_relevant, k)
    return _result("average_precision", relevance, run, gold, k, "gold", scores, binary=True)


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


# -- shared plumbing -------------------------------------------------------------------------------


def _inputs(run: RunLike, gold: GoldLike, k: Any, cutoff: bool = True) -> tuple[Run, GoldSet, int]:
    """Normalise arguments. Returns the depth to read: k for cutoff metrics, else the longest
    ranking."""
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
        return run, gold, check_k(k if k is not None else gold.k or DEFAULT_K)
    if k is not None:
        return run, gold, check_k(k)
    return run, gold, max(1, int(run.table.lengths.max(initial=0)))


def _check_choice(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise MetricError(f"unknown {name} {value!r}; choose one of: {', '.join(allowed)}")


def _relevance(
    run: Run,
    gold: GoldSet,
    depth: int,
    mode: str,
    judge: Judge | None,
    threshold: float = 0.0,
    strict: bool = False,
    modes: tuple[str, ...] = TEMPORAL_MODES,
    binary: bool = False,
) -> Relevance:
    """Relevance for the chosen mode. ``binary`` metrics (precision) need no ideal ranking, and in
    LLM mode ask for the binary verdict instead of the 0-4 grade."""
    _check_choice("mode", mode, modes)
    if not 0.0 <= threshold < 1.0:
        raise MetricError(f"threshold is a Jaccard similarity in [0, 1), got {threshold!r}")
    if mode == "gold":
        return gold_relevance(run, gold, depth)
    if mode == "llm":
        return llm_relevance(run, gold, depth, judge, graded=not binary, strict=strict)
    return focus_time_relevance(run, gold, depth, threshold, strict, pool=not binary)


def _ndcg_result(
    name: str, relevance: Relevance, run: Run, gold: GoldSet, k: int, mode: str, gain: str
) -> MetricResult:
    gains = kernels.gain_values(relevance.relevance, gain)
    ideal = kernels.gain_values(relevance.ideal, gain)
    scores, no_ideal = kernels.ndcg(gains, ideal, k)
    excluded = dict(relevance.excluded)
    for position in np.flatnonzero(no_ideal).tolist():
        excluded.setdefault(position, NO_RELEVANT_REASON[mode])
    return _package(name, relevance, run, gold, k, mode, scores, excluded, binary=False)


def _result(
    name: str,
    relevance: Relevance,
    run: Run,
    gold: GoldSet,
    k: int | None,
    mode: str,
    scores: np.ndarray,
    binary: bool,
    needs_relevant: bool = False,
) -> MetricResult:
    excluded = dict(relevance.excluded)
    if needs_relevant or mode == "gold":
        for position in np.flatnonzero(relevance.n_relevant == 0).tolist():
            excluded.setdefault(position, NO_RELEVANT_REASON[mode])
    return _package(name, relevance, run, gold, k, mode, scores, excluded, binary)


def _package(
    name: str,
    relevance: Relevance,
    run: Run,
    gold: GoldSet,
    k: int | None,
    mode: str,
    scores: np.ndarray,
    excluded: dict[int, str],
    binary: bool,
) -> MetricResult:
    ids = relevance.query_ids
    counted = np.ones(len(ids), dtype=bool)
    counted[list(excluded)] = False
    per_query = QueryScores(ids, scores, counted)
    top = relevance.rows[:, : k or relevance.rows.shape[1]]
    extra: dict[str, Any] = {
        "unjudged": int(((top >= 0) & ~relevance.known[:, : top.shape[1]]).sum()),
        "missing_queries": int(relevance.missing.sum()),
    }
    if relevance.judge_model is not None:
        extra["judge_model"] = relevance.judge_model
    reasons = {ids[i]: reason for i, reason in sorted(excluded.items())}
    explain = _explainer(relevance, run, gold, k, binary)
    return MetricResult(name, k, mode, per_query, reasons, explain, extra, gold)


def _explainer(
    relevance: Relevance, run: Run, gold: GoldSet, k: int | None, binary: bool
) -> Callable[[str], QueryExplanation]:
    """What a query retrieved, with the relevance the score used, and the ideal ranking it was
    measured against (the same one: :attr:`Relevance.ideal_documents`)."""
    shown = k or DEFAULT_K

    def explain(query_id: str) -> QueryExplanation:
        position = gold.query_position[query_id]
        retrieved: list[tuple[str, float | None]] = []
        for rank, row in enumerate(relevance.rows[position, :shown].tolist()):
            if row < 0:
                break
            doc = decode_ids(run.table.doc_ids[row : row + 1])[0]
            value: float | None = None
            if relevance.known[position, rank]:
                value = float(relevance.relevance[position, rank])
                if binary:
                    value = 1.0 if relevance.relevant[position, rank] else 0.0
            retrieved.append((doc, value))
        ideal = relevance.ideal_documents(position, shown, binary)
        note = "not in the run: scored as an empty ranking" if relevance.missing[position] else ""
        return QueryExplanation(query_id, retrieved, ideal, note)

    return explain
