"""The public metric functions and their ``assert_*`` forms.

Every function takes a :class:`~pytest_tempoeval.data.run.Run` (or anything ``Run`` accepts, or a
path) and a :class:`~pytest_tempoeval.data.goldset.GoldSet` (or a path), and returns a
:class:`~pytest_tempoeval.metrics.results.MetricResult`. Conventions live next to their code in
:mod:`.kernels`; how relevance is decided per mode lives in :mod:`.relevance`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
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
from pytest_tempoeval.metrics.alignment import (
    check_no_ignored_queries,
    ignored_run_queries,
    scored_run,
)
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
    fail_on_excluded: bool | None = None,
) -> MetricResult:
    """Temporal nDCG@k. Relevance, by mode: focus_time 4·Jaccard(QFT, DFT); gold the graded
    judgments; llm the judge's grade."""
    scoring = _inputs(run, gold, k, strict, fail_on_excluded)
    _check_choice("gain", gain, kernels.GAINS)
    relevance = _relevance(scoring, mode, judge, strict=strict, modes=TEMPORAL_MODES)
    return _ndcg_result("temporal_ndcg", relevance, scoring, mode, gain)


def temporal_precision(
    run: RunLike,
    gold: GoldLike,
    k: int | None = None,
    mode: str = "focus_time",
    judge: Judge | None = None,
    threshold: float = 0.0,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
) -> MetricResult:
    """Temporal P@k: share of the top k whose focus time overlaps the query's (Jaccard >
    threshold when threshold > 0)."""
    scoring = _inputs(run, gold, k, strict, fail_on_excluded)
    relevance = _relevance(
        scoring, mode, judge, threshold, strict, modes=("focus_time", "llm"), binary=True
    )
    scores = kernels.precision(relevance.relevant, scoring.depth)
    return _result("temporal_precision", relevance, scoring, mode, scores, binary=True)


def temporal_recall(
    run: RunLike,
    gold: GoldLike,
    k: int | None = None,
    mode: str = "focus_time",
    threshold: float = 0.0,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
) -> MetricResult:
    """Temporal R@k: temporally relevant documents in the top k / all known temporally relevant
    documents."""
    scoring = _inputs(run, gold, k, strict, fail_on_excluded)
    relevance = _relevance(scoring, mode, None, threshold, strict, modes=("focus_time",))
    scores = kernels.recall(relevance.relevant, relevance.n_relevant, scoring.depth)
    return _result(
        "temporal_recall", relevance, scoring, mode, scores, binary=True, needs_relevant=True
    )


def temporal_mrr(
    run: RunLike,
    gold: GoldLike,
    k: int | None = None,
    mode: str = "focus_time",
    threshold: float = 0.0,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
) -> MetricResult:
    """Reciprocal rank of the first temporally relevant document (whole ranking unless k is
    given)."""
    scoring = _inputs(run, gold, k, strict, fail_on_excluded, cutoff=False)
    relevance = _relevance(scoring, mode, None, threshold, strict, modes=("focus_time",))
    scores = kernels.reciprocal_rank(relevance.relevant, scoring.k)
    return _result(
        "temporal_mrr", relevance, scoring, mode, scores, binary=True, needs_relevant=True
    )


def temporal_map(
    run: RunLike,
    gold: GoldLike,
    k: int | None = None,
    mode: str = "focus_time",
    threshold: float = 0.0,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
) -> MetricResult:
    """Average precision over temporally relevant documents (whole ranking unless k is given)."""
    scoring = _inputs(run, gold, k, strict, fail_on_excluded, cutoff=False)
    relevance = _relevance(scoring, mode, None, threshold, strict, modes=("focus_time",))
    scores = kernels.average_precision(relevance.relevant, relevance.n_relevant, scoring.k)
    return _result(
        "temporal_map", relevance, scoring, mode, scores, binary=True, needs_relevant=True
    )


# -- gold-judgment metrics (trec_eval semantics) ---------------------------------------------------


def ndcg(
    run: RunLike,
    gold: GoldLike,
    k: int | None = None,
    gain: str = "linear",
    strict: bool = False,
    fail_on_excluded: bool | None = None,
) -> MetricResult:
    """nDCG@k over graded judgments; equals trec_eval's ``ndcg_cut.k``."""
    scoring = _inputs(run, gold, k, strict, fail_on_excluded)
    _check_choice("gain", gain, kernels.GAINS)
    relevance = gold_relevance(scoring.run, scoring.gold, scoring.depth)
    return _ndcg_result("ndcg", relevance, scoring, "gold", gain)


def precision(
    run: RunLike,
    gold: GoldLike,
    k: int | None = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
) -> MetricResult:
    """P@k (grade >= 1 is relevant); equals trec_eval's ``P.k``."""
    scoring = _inputs(run, gold, k, strict, fail_on_excluded)
    relevance = gold_relevance(scoring.run, scoring.gold, scoring.depth, need_ideal=False)
    scores = kernels.precision(relevance.relevant, scoring.depth)
    return _result("precision", relevance, scoring, "gold", scores, binary=True)


def recall(
    run: RunLike,
    gold: GoldLike,
    k: int | None = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
) -> MetricResult:
    """R@k; equals trec_eval's ``recall.k``."""
    scoring = _inputs(run, gold, k, strict, fail_on_excluded)
    relevance = gold_relevance(scoring.run, scoring.gold, scoring.depth, need_ideal=False)
    scores = kernels.recall(relevance.relevant, relevance.n_relevant, scoring.depth)
    return _result("recall", relevance, scoring, "gold", scores, binary=True)


def mrr(
    run: RunLike,
    gold: GoldLike,
    k: int | None = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
) -> MetricResult:
    """Reciprocal rank; with ``k=None`` equals trec_eval's ``recip_rank`` (whole ranking)."""
    scoring = _inputs(run, gold, k, strict, fail_on_excluded, cutoff=False)
    relevance = gold_relevance(scoring.run, scoring.gold, scoring.depth, need_ideal=False)
    scores = kernels.reciprocal_rank(relevance.relevant, scoring.k)
    return _result("mrr", relevance, scoring, "gold", scores, binary=True)


def average_precision(
    run: RunLike,
    gold: GoldLike,
    k: int | None = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
) -> MetricResult:
    """AP; with ``k=None`` equals trec_eval's ``map`` per query, with k its ``map_cut.k``."""
    scoring = _inputs(run, gold, k, strict, fail_on_excluded, cutoff=False)
    relevance = gold_relevance(scoring.run, scoring.gold, scoring.depth, need_ideal=False)
    scores = kernels.average_precision(relevance.relevant, relevance.n_relevant, scoring.k)
    return _result("average_precision", relevance, scoring, "gold", scores, binary=True)


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


@dataclass(frozen=True)
class _Scoring:
    """One metric call's inputs, normalised, and what the reports should know about them."""

    run: Run  # as the gold set scores it (BEIR: without documents whose id is the query's)
    gold: GoldSet
    k: int | None  # the cutoff asked for (None: the whole ranking)
    depth: int  # how many ranks to read: k, or the longest ranking
    notes: dict[str, Any]  # run queries the gold set lacks, identical ids dropped
    fail_on_excluded: bool | None  # None: the session's policy


def _inputs(
    run: RunLike,
    gold: GoldLike,
    k: Any,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    cutoff: bool = True,
) -> _Scoring:
    """Normalise arguments. Cutoff metrics read ``k`` ranks (default: the gold set's k, else
    DEFAULT_K); the others the whole ranking unless ``k`` is given."""
    if not isinstance(gold, GoldSet):
        if isinstance(gold, (str, Path)):
            gold = GoldSet.load(gold)
        else:
            raise MetricError(
                f"gold must be a GoldSet or the path of one, got {type(gold).__name__}"
            )
    if not isinstance(run, Run):
        run = Run.load(run) if isinstance(run, (str, Path)) else Run(run)
    if strict:
        check_no_ignored_queries(run, gold)
    notes: dict[str, Any] = {"ignored_run_queries": ignored_run_queries(run, gold)}
    scored, dropped = scored_run(run, gold)
    if gold.ignore_identical_ids:
        notes["identical_ids_dropped"] = len(dropped)
        notes["identical_ids_judged_relevant"] = sorted(q for q, relevant in dropped if relevant)
    if cutoff:
        k = check_k(k if k is not None else gold.k or DEFAULT_K)
        return _Scoring(scored, gold, k, k, notes, fail_on_excluded)
    if k is not None:
        k = check_k(k)
        return _Scoring(scored, gold, k, k, notes, fail_on_excluded)
    depth = max(1, int(scored.table.lengths.max(initial=0)))
    return _Scoring(scored, gold, None, depth, notes, fail_on_excluded)


def _check_choice(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise MetricError(f"unknown {name} {value!r}; choose one of: {', '.join(allowed)}")


def _relevance(
    scoring: _Scoring,
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
    run, gold, depth = scoring.run, scoring.gold, scoring.depth
    if mode == "gold":
        return gold_relevance(run, gold, depth)
    if mode == "llm":
        return llm_relevance(run, gold, depth, judge, graded=not binary, strict=strict)
    return focus_time_relevance(run, gold, depth, threshold, strict, pool=not binary)


def _ndcg_result(
    name: str, relevance: Relevance, scoring: _Scoring, mode: str, gain: str
) -> MetricResult:
    gains = kernels.gain_values(relevance.relevance, gain)
    ideal = kernels.gain_values(relevance.ideal, gain)
    scores, no_ideal = kernels.ndcg(gains, ideal, scoring.depth)
    excluded = dict(relevance.excluded)
    for position in np.flatnonzero(no_ideal).tolist():
        excluded.setdefault(position, NO_RELEVANT_REASON[mode])
    return _package(name, relevance, scoring, mode, scores, excluded, binary=False)


def _result(
    name: str,
    relevance: Relevance,
    scoring: _Scoring,
    mode: str,
    scores: np.ndarray,
    binary: bool,
    needs_relevant: bool = False,
) -> MetricResult:
    excluded = dict(relevance.excluded)
    if needs_relevant or mode == "gold":
        for position in np.flatnonzero(relevance.n_relevant == 0).tolist():
            excluded.setdefault(position, NO_RELEVANT_REASON[mode])
    return _package(name, relevance, scoring, mode, scores, excluded, binary)


def _package(
    name: str,
    relevance: Relevance,
    scoring: _Scoring,
    mode: str,
    scores: np.ndarray,
    excluded: dict[int, str],
    binary: bool,
) -> MetricResult:
    ids = relevance.query_ids
    counted = np.ones(len(ids), dtype=bool)
    counted[list(excluded)] = False
    per_query = QueryScores(ids, scores, counted)
    top = relevance.rows[:, : scoring.k or relevance.rows.shape[1]]
    extra: dict[str, Any] = {
        "unjudged": int(((top >= 0) & ~relevance.known[:, : top.shape[1]]).sum()),
        "missing_queries": int(relevance.missing.sum()),
        **scoring.notes,
    }
    if relevance.judge_model is not None:
        extra["judge_model"] = relevance.judge_model
    reasons = {ids[i]: reason for i, reason in sorted(excluded.items())}
    explain = _explainer(relevance, scoring, binary)
    return MetricResult(
        name,
        scoring.k,
        mode,
        per_query,
        reasons,
        explain,
        extra,
        scoring.gold,
        scoring.fail_on_excluded,
    )


def _explainer(
    relevance: Relevance, scoring: _Scoring, binary: bool
) -> Callable[[str], QueryExplanation]:
    """What a query retrieved, with the relevance the score used, and the ideal ranking it was
    measured against (the same one: :attr:`Relevance.ideal_documents`)."""
    shown = scoring.k or DEFAULT_K
    table, position_of = scoring.run.table, scoring.gold.query_position

    def explain(query_id: str) -> QueryExplanation:
        position = position_of[query_id]
        retrieved: list[tuple[str, float | None]] = []
        for rank, row in enumerate(relevance.rows[position, :shown].tolist()):
            if row < 0:
                break
            doc = decode_ids(table.doc_ids[row : row + 1])[0]
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
