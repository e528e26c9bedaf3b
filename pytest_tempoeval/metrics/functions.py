"""The public metric functions and their ``assert_*`` forms.

Every function takes a :class:`~pytest_tempoeval.data.run.Run` (or anything ``Run`` accepts, or a
path) and a :class:`~pytest_tempoeval.data.goldset.GoldSet` (or a path), and returns a
:class:`~pytest_tempoeval.metrics.results.MetricResult`. Conventions live next to their code in
:mod:`.kernels`; how relevance is decided per mode lives in :mod:`.relevance`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np

from pytest_tempoeval.constants import DEFAULT_K
from pytest_tempoeval.data.goldset import GoldSet
from pytest_tempoeval.data.run import Run
from pytest_tempoeval.data.values import check_k, rel_problem
from pytest_tempoeval.errors import MetricError
from pytest_tempoeval.metrics import kernels
from pytest_tempoeval.metrics.alignment import (
    check_no_ignored_queries,
    ignored_run_queries,
    knows_some_id,
    retrieved_count,
    scored_run,
    short_rankings,
    unknown_ids,
)
from pytest_tempoeval.metrics.explain import QueryExplanation
from pytest_tempoeval.metrics.llm_judgments import Judge
from pytest_tempoeval.metrics.measures import Measure, measure_of
from pytest_tempoeval.metrics.relevance import (
    NO_RELEVANT_REASON,
    Relevance,
    focus_time_relevance,
    gold_relevance,
    llm_relevance,
)
from pytest_tempoeval.metrics.results import MetricResult, QueryScores

TEMPORAL_MODES = ("focus_time", "gold", "llm")
ALL_RANKS = "all"  # k="all": the whole ranking (trec_eval's ndcg, recall, map, recip_rank)
# A gain's name in the functions (gain="exponential") and in measure strings (gain=exp).
MEASURE_GAIN = {"linear": "linear", "exponential": "exp"}
RunLike = Run | Mapping[str, Any] | str | Path
Cutoff = int | Literal["all"] | None
GoldLike = GoldSet | str | Path


# -- temporal metrics ------------------------------------------------------------------------------


def temporal_ndcg(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
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
    measure = measure_of("T-nDCG", scoring.k, mode=mode, gain=MEASURE_GAIN[gain])
    return _ndcg_result("temporal_ndcg", measure, relevance, scoring, mode, gain)


def temporal_precision(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
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
    measure = measure_of("T-P", scoring.k, mode=mode, threshold=float(threshold))
    return _result("temporal_precision", measure, relevance, scoring, mode, scores, binary=True)


def temporal_recall(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
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
    measure = measure_of("T-R", scoring.k, mode=mode, threshold=float(threshold))
    return _result(
        "temporal_recall",
        measure,
        relevance,
        scoring,
        mode,
        scores,
        binary=True,
        needs_relevant=True,
    )


def temporal_mrr(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    mode: str = "focus_time",
    threshold: float = 0.0,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
) -> MetricResult:
    """Reciprocal rank of the first temporally relevant document (whole ranking unless k is
    given)."""
    scoring = _inputs(run, gold, k, strict, fail_on_excluded, cutoff=False)
    relevance = _relevance(scoring, mode, None, threshold, strict, modes=("focus_time",))
    scores = kernels.reciprocal_rank(relevance.first_relevant_ranks(), scoring.k)
    measure = measure_of("T-RR", scoring.k, mode=mode, threshold=float(threshold))
    return _result(
        "temporal_mrr", measure, relevance, scoring, mode, scores, binary=True, needs_relevant=True
    )


def temporal_map(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    mode: str = "focus_time",
    threshold: float = 0.0,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
) -> MetricResult:
    """Average precision over temporally relevant documents (whole ranking unless k is given)."""
    scoring = _inputs(run, gold, k, strict, fail_on_excluded, cutoff=False)
    relevance = _relevance(scoring, mode, None, threshold, strict, modes=("focus_time",))
    scores = kernels.average_precision(relevance.relevant, relevance.n_relevant, scoring.k)
    measure = measure_of("T-AP", scoring.k, mode=mode, threshold=float(threshold))
    return _result(
        "temporal_map", measure, relevance, scoring, mode, scores, binary=True, needs_relevant=True
    )


# -- gold-judgment metrics (trec_eval semantics) ---------------------------------------------------


def ndcg(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    gain: str = "linear",
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    judged_only: bool = False,
) -> MetricResult:
    """nDCG@k over graded judgments; equals trec_eval's ``ndcg_cut.k``. ``judged_only``: unjudged
    documents are removed from the ranking first (trec_eval ``-J``, ir_measures ``judged_only``)."""
    return _ndcg(run, gold, k, gain, strict, fail_on_excluded, judged_only)


def precision(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
) -> MetricResult:
    """P@k (grade >= ``rel``, default 1, is relevant); equals trec_eval's ``P.k`` (``-l rel``)."""
    level = _level(rel, relevance_level)
    scoring = _inputs(run, gold, k, strict, fail_on_excluded)
    relevance = gold_relevance(scoring.run, scoring.gold, scoring.depth, level, need_ideal=False)
    scores = kernels.precision(relevance.relevant, scoring.depth)
    measure = measure_of("P", scoring.k, rel=level)
    return _result("precision", measure, relevance, scoring, "gold", scores, binary=True)


def recall(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
) -> MetricResult:
    """R@k; equals trec_eval's ``recall.k``."""
    level = _level(rel, relevance_level)
    scoring = _inputs(run, gold, k, strict, fail_on_excluded)
    relevance = gold_relevance(scoring.run, scoring.gold, scoring.depth, level, need_ideal=False)
    scores = kernels.recall(relevance.relevant, relevance.n_relevant, scoring.depth)
    measure = measure_of("R", scoring.k, rel=level)
    return _result("recall", measure, relevance, scoring, "gold", scores, binary=True)


def mrr(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
) -> MetricResult:
    """Reciprocal rank; with ``k=None`` equals trec_eval's ``recip_rank`` (whole ranking)."""
    level = _level(rel, relevance_level)
    scoring = _inputs(run, gold, k, strict, fail_on_excluded, cutoff=False)
    relevance = gold_relevance(
        scoring.run, scoring.gold, scoring.depth, level, need_ideal=False, first_relevant_only=True
    )
    scores = kernels.reciprocal_rank(relevance.first_relevant_ranks(), scoring.k)
    measure = measure_of("RR", scoring.k, rel=level)
    return _result("mrr", measure, relevance, scoring, "gold", scores, binary=True)


def average_precision(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
) -> MetricResult:
    """AP; with ``k=None`` equals trec_eval's ``map`` per query, with k its ``map_cut.k``."""
    level = _level(rel, relevance_level)
    scoring = _inputs(run, gold, k, strict, fail_on_excluded, cutoff=False)
    relevance = gold_relevance(scoring.run, scoring.gold, scoring.depth, level, need_ideal=False)
    scores = kernels.average_precision(relevance.relevant, relevance.n_relevant, scoring.k)
    measure = measure_of("AP", scoring.k, rel=level)
    return _result("average_precision", measure, relevance, scoring, "gold", scores, binary=True)


def success(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
) -> MetricResult:
    """Success@k: 1 when a relevant document (grade >= ``rel``) is in the top k; trec_eval's
    ``success.k``."""
    level = _level(rel, relevance_level)
    scoring = _inputs(run, gold, k, strict, fail_on_excluded)
    relevance = gold_relevance(
        scoring.run, scoring.gold, scoring.depth, level, need_ideal=False, first_relevant_only=True
    )
    scores = kernels.success(relevance.first_relevant_ranks(), scoring.depth)
    measure = measure_of("Success", scoring.k, rel=level)
    return _result("success", measure, relevance, scoring, "gold", scores, binary=True)


def judged(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
) -> MetricResult:
    """Judged@k: the share of the retrieved top k that the gold set judges (any grade, negative
    included). Every gold query counts, those with nothing relevant too; one the run lacks scores
    0."""
    scoring = _inputs(run, gold, k, strict, fail_on_excluded)
    relevance = gold_relevance(scoring.run, scoring.gold, scoring.depth, need_ideal=False)
    scores = kernels.judged_share(relevance.known, relevance.rows >= 0, scoring.depth)
    measure = measure_of("Judged", scoring.k)
    return _package("judged", measure, relevance, scoring, "gold", scores, {}, binary=False)


def _ndcg(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff,
    gain: str,
    strict: bool,
    fail_on_excluded: bool | None,
    judged_only: bool,
) -> MetricResult:
    """nDCG@k, or with ``k="all"`` trec_eval's ``ndcg``: every rank, against the ideal ranking of
    all the query's judgments."""
    _check_choice("gain", gain, kernels.GAINS)
    whole_ranking = k == ALL_RANKS
    scoring = _inputs(run, gold, k, strict, fail_on_excluded)
    if whole_ranking or judged_only:  # -J reads past k: unjudged documents make room for others
        longest = int(scoring.run.table.lengths.max(initial=0))
        judged_most = int(np.diff(scoring.gold.judgments.offsets).max(initial=0))
        depth = max(1, longest, judged_most if whole_ranking else scoring.depth)
        scoring = replace(scoring, depth=depth)
    relevance = gold_relevance(scoring.run, scoring.gold, scoring.depth)
    scored = relevance.relevance
    if judged_only:  # as trec_eval -J: a negative grade ("in the pool, unjudged") is removed too
        assert relevance.negative is not None
        scored = kernels.condensed(scored, relevance.known & ~relevance.negative)
    measure = measure_of("nDCG", scoring.k, gain=MEASURE_GAIN[gain], judged_only=bool(judged_only))
    return _ndcg_result("ndcg", measure, relevance, scoring, "gold", gain, scored)


def _level(rel: int | None, relevance_level: int | None) -> int:
    """The grade from which a judgment counts as relevant: ``rel=`` (ir_measures) or
    ``relevance_level=`` (pytrec_eval), default 1 (trec_eval)."""
    if rel is not None and relevance_level is not None and rel != relevance_level:
        raise MetricError(f"rel={rel!r} and relevance_level={relevance_level!r} disagree; give one")
    level = rel if rel is not None else relevance_level if relevance_level is not None else 1
    problem = rel_problem(level)
    if problem is not None:
        raise MetricError(problem)
    return int(level)


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
assert_success = _checked(success)
assert_judged = _checked(judged)


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
    DEFAULT_K); the others the whole ranking unless ``k`` is given. ``k="all"``: the whole
    ranking, for every metric."""
    gold, run = as_gold_set(gold), as_run(run)
    if strict:
        check_no_ignored_queries(run, gold)
    notes: dict[str, Any] = {"ignored_run_queries": ignored_run_queries(run, gold)}
    scored, dropped = scored_run(run, gold)
    if gold.ignore_identical_ids:
        notes["identical_ids_dropped"] = len(dropped)
        notes["identical_ids_judged_relevant"] = sorted(q for q, relevant in dropped if relevant)
    if k == ALL_RANKS:
        depth = max(1, int(scored.table.lengths.max(initial=0)))
        return _Scoring(scored, gold, None, depth, notes, fail_on_excluded)
    if cutoff or k is not None:
        k = check_k(k if k is not None else gold.k or DEFAULT_K)
        # The rankings as retrieved (before BEIR's identical-id rule): what the retriever was asked.
        short = short_rankings(run, gold, k)
        if short is not None:
            notes["short_rankings"] = short
        return _Scoring(scored, gold, k, k, notes, fail_on_excluded)
    depth = max(1, int(scored.table.lengths.max(initial=0)))
    return _Scoring(scored, gold, None, depth, notes, fail_on_excluded)


def as_gold_set(gold: GoldLike) -> GoldSet:
    """A gold set, loaded when given as a path."""
    if isinstance(gold, GoldSet):
        return gold
    if isinstance(gold, (str, Path)):
        return GoldSet.load(gold)
    raise MetricError(f"gold must be a GoldSet or the path of one, got {type(gold).__name__}")


def as_run(run: RunLike) -> Run:
    """A run, loaded when given as a path, built when given as a mapping."""
    if isinstance(run, Run):
        return run
    return Run.load(run) if isinstance(run, (str, Path)) else Run(run)


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
    name: str,
    measure: Measure,
    relevance: Relevance,
    scoring: _Scoring,
    mode: str,
    gain: str,
    scored: np.ndarray | None = None,
) -> MetricResult:
    """nDCG of ``scored`` (default: the relevance at each rank; judged_only passes the condensed
    ranking's), explained with the ranking as retrieved."""
    gains, ideal = kernels.gain_values(
        relevance.relevance if scored is None else scored, relevance.ideal, gain
    )
    scores, no_ideal = kernels.ndcg(gains, ideal, scoring.k or scoring.depth)
    excluded = dict(relevance.excluded)
    for position in np.flatnonzero(no_ideal).tolist():
        excluded.setdefault(position, NO_RELEVANT_REASON[mode])
    return _package(name, measure, relevance, scoring, mode, scores, excluded, binary=False)


def _result(
    name: str,
    measure: Measure,
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
    return _package(name, measure, relevance, scoring, mode, scores, excluded, binary)


def _package(
    name: str,
    measure: Measure,
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
    extra: dict[str, Any] = {
        "missing_queries": int(relevance.missing.sum()),
        **scoring.notes,
    }
    if relevance.judge_model is not None:
        extra["judge_model"] = relevance.judge_model
    reasons = {ids[i]: reason for i, reason in sorted(excluded.items())}
    # A first-relevant-only score (RR, Success) did not look past the first relevant document:
    # what the counts and explanations need of the rest is joined only if they are asked for.
    whole = relevance.complete or (lambda: relevance)

    def unjudged() -> dict[str, Any]:
        full = whole()
        top = full.rows[:, : scoring.k or full.rows.shape[1]]
        return {"unjudged": int(((top >= 0) & ~full.known[:, : top.shape[1]]).sum())}

    self_described = mode != "gold"  # the modes that read texts know a document by its text

    def later() -> dict[str, Any]:  # the ids the gold set does not know: counted when asked for
        run, gold = scoring.run, scoring.gold
        unknown = unknown_ids(run, gold, scoring.k or scoring.depth, self_described)
        unknown["run_retrieved_ids"] = retrieved_count(run, gold)
        return {**unjudged(), **unknown} if relevance.complete else unknown

    def some_known() -> bool:  # at any rank; the ranks scored first, as they usually answer
        first = relevance.first_relevant
        if (first >= 0).any() if first is not None else relevance.known.any():
            return True
        return knows_some_id(scoring.run, scoring.gold, self_described)

    def judged() -> QueryScores:
        return _judged_shares(whole(), scoring)

    explain = _explainer(whole, scoring, binary)
    result = MetricResult(
        name,
        scoring.k,
        mode,
        per_query,
        reasons,
        explain,
        extra if relevance.complete else {**unjudged(), **extra},
        scoring.gold,
        scoring.fail_on_excluded,
        str(measure),
        (judged if relevance.complete else judged()) if mode == "gold" else None,
        later_extra=later,
        some_known=some_known,
    )
    result.judge_dry_run = relevance.judge_dry_run
    return result


def _judged_shares(relevance: Relevance, scoring: _Scoring) -> QueryScores:
    """Judged@k of each query the score covers, kept with gold-mode results: a baseline stores it,
    so the gate can tell fewer judged documents from a worse ranking."""
    shares = kernels.judged_share(relevance.known, relevance.rows >= 0, scoring.k or scoring.depth)
    return QueryScores(relevance.query_ids, shares, np.ones(shares.size, dtype=bool))


def _explainer(
    whole: Callable[[], Relevance], scoring: _Scoring, binary: bool
) -> Callable[[str], QueryExplanation]:
    """What a query retrieved, with the relevance the score used, and the ideal ranking it was
    measured against (the same one: :attr:`Relevance.ideal_documents`)."""
    shown = scoring.k or DEFAULT_K
    table, position_of = scoring.run.table, scoring.gold.query_position

    def explain(query_id: str) -> QueryExplanation:
        position, relevance = position_of[query_id], whole()
        retrieved: list[tuple[str, float | None]] = []
        for rank, row in enumerate(relevance.rows[position, :shown].tolist()):
            if row < 0:
                break
            doc = table.ids_of(slice(row, row + 1))[0]
            value: float | None = None
            if relevance.known[position, rank]:
                value = float(relevance.relevance[position, rank])
                if binary:
                    value = 1.0 if relevance.relevant[position, rank] else 0.0
            retrieved.append((doc, value))
        ideal = relevance.ideal_documents(position, shown, binary)
        notes = (
            ["not in the run: scored as an empty ranking"] if relevance.missing[position] else []
        )
        if relevance.notes and position in relevance.notes:
            notes.append(relevance.notes[position])
        return QueryExplanation(query_id, retrieved, ideal, "; ".join(notes))

    return explain
