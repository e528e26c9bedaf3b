"""The scoring engine: one :class:`~.specs.MeasureSpec` and a call's arguments to a
:class:`~.results.MetricResult`. Every public metric function (:mod:`.functions`) and every
measure by name (:mod:`.by_name`) is scored here.

A call goes: the arguments checked against the spec, the run and gold set normalised
(:func:`inputs`), the :class:`~.relevance.Relevance` of the mode built, the spec's kernel called
with the arrays its parameters name (:data:`_KERNEL_INPUTS`), the queries it cannot score left
out, and the result packaged with what its explanations and counts need.

One module on purpose, though longer than most: the steps of one call, in the order it takes
them; split, a reader would follow one call through several modules.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import numpy as np

from pytest_tempoeval.constants import DEFAULT_K
from pytest_tempoeval.data.goldset import GoldSet
from pytest_tempoeval.data.run import Run
from pytest_tempoeval.data.values import check_k
from pytest_tempoeval.errors import MetricError, check_choice
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
from pytest_tempoeval.metrics.diagnostics import document_years, query_figures_of, summary_of
from pytest_tempoeval.metrics.measures import measure_of
from pytest_tempoeval.metrics.relevance import (
    NO_RELEVANT_REASON,
    Relevance,
    focus_time_relevance,
    gold_relevance,
    llm_coverage,
    llm_relevance,
)
from pytest_tempoeval.metrics.results import MetricResult, QueryScores
from pytest_tempoeval.metrics.specs import Aggregate, Empty, MeasureSpec, Mode, ParamValue

if TYPE_CHECKING:  # imported by llm mode, and by explanations, only
    from pytest_tempoeval.metrics.diagnostics import (
        QueryFigures,
        QueryTemporal,
        TemporalDiagnostics,
    )
    from pytest_tempoeval.metrics.explain import QueryExplanation
    from pytest_tempoeval.metrics.filling import FilledGrades
    from pytest_tempoeval.metrics.llm_judgments import Judge

ALL_RANKS: Literal["all"] = (
    "all"  # k="all": the whole ranking (trec_eval's ndcg, recall, map, recip_rank)
)
RunLike = Run | Mapping[str, Any] | str | Path
Cutoff = int | Literal["all"] | None
GoldLike = GoldSet | str | Path


def compute(
    spec: MeasureSpec,
    run: RunLike,
    gold: GoldLike,
    k: Cutoff,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    judge: Judge | None = None,
    empty: str = Empty.EXCLUDE,
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
    **given: object,
) -> MetricResult:
    """``spec`` scored on ``run`` against ``gold``; ``given``: the spec's parameters as the
    functions take them (``gain="exponential"``, ``rel=2``). ``empty``: what a query with nothing
    relevant gets (:class:`~.specs.Empty`): left out and named, or scored 0 as trec_eval does.
    ``fill_unjudged``: a judge that grades gold mode's holes, mapped by ``fill_grades`` or the
    gold set's scale (:mod:`.filling`)."""
    empty = Empty(check_choice("empty", empty, tuple(Empty), MetricError))
    values = spec.arguments(given)  # TypeError for a name the spec does not declare
    if not spec.rank_cutoff and k not in (None, ALL_RANKS):
        raise MetricError(
            f"{spec.name} reads the whole ranking and takes no cutoff: k must be None or 'all', "
            f"got {k!r}"
        )
    mode = Mode(str(values.get("mode", Mode.GOLD)))
    _check_fill(spec, mode, fill_unjudged, fill_grades)
    scoring = inputs(run, gold, k, strict, fail_on_excluded, spec)
    fill: Filling | None = None
    if fill_unjudged is not None:
        values["fill"] = "llm"
        fill = _filled(spec, scoring, fill_unjudged, fill_grades, values, strict)
        scoring = scoring._replace(gold=fill.gold)
    scoring = _deepened(spec, scoring, k, values)
    relevance = _relevance(spec, scoring, mode, judge, values, strict)
    scores, unscorable = _kernel_scores(spec, relevance, scoring, values)
    excluded = {} if spec.counts_every_query else dict(relevance.excluded)
    if unscorable is None and spec.needs_relevant:
        unscorable = relevance.n_relevant == 0
    empty_reason = spec.empty_reason or NO_RELEVANT_REASON[mode]
    for position in np.flatnonzero(unscorable).tolist() if unscorable is not None else ():
        excluded.setdefault(position, empty_reason)
    if empty == Empty.ZERO:
        scores, excluded = _zero_empty(scores, excluded, empty_reason)
    at = values[spec.at.name] if spec.at is not None else None
    cutoff = scoring.k if at is None else float(at)
    measure = str(measure_of(spec.name, cutoff, **spec.measure_params(values)))
    result = _package(spec, measure, relevance, scoring, mode, scores, excluded, fill)
    if fill is not None and not fill.stopped:
        # --tempoeval-propose-gold collects what was filled (the recorder of checks: loaded by
        # judged calls only, never by a command that prints results)
        from pytest_tempoeval.metrics.checks import record_fill

        record_fill(fill.report)
    return result


class Filling(NamedTuple):
    """A call's filled holes (:mod:`.filling`): the gold set scored (with the filled grades), the
    one given, what was filled, and why nothing was judged ("": it was)."""

    gold: GoldSet
    given: GoldSet
    report: FilledGrades
    stopped: str


def _check_fill(
    spec: MeasureSpec, mode: Mode, judge: object, fill_grades: Mapping[int, int] | None
) -> None:
    if judge is None and fill_grades is not None:
        raise MetricError(
            "fill_grades maps the grades the judge fills: give fill_unjudged=judge too (or "
            "fill=llm in the measure, with evaluate(..., judge=judge))"
        )
    if judge is None:
        return
    if not spec.fillable:
        raise MetricError(
            f"{spec.name} reads no judgments, so it has no holes to fill: drop fill_unjudged"
        )
    if mode != Mode.GOLD:
        raise MetricError(
            f"fill_unjudged fills the holes of the gold judgments: it needs mode='gold', got "
            f"mode={str(mode)!r} (mode='llm' has the judge grade every document)"
        )
    if not callable(getattr(judge, "grade_all", None)):
        raise MetricError(
            f"fill_unjudged takes a judge with grade_all(items), such as the tempoeval_judge "
            f"fixture; got {judge!r}"
        )


def _filled(
    spec: MeasureSpec,
    scoring: Scoring,
    judge: Judge,
    fill_grades: Mapping[int, int] | None,
    values: Mapping[str, ParamValue | None],
    strict: bool,
) -> Filling:
    """The holes of the ranks the measure reads (k, or the whole ranking) graded by ``judge``."""
    from pytest_tempoeval.metrics.filling import fill_holes, grade_map

    mapping = grade_map(scoring.gold, fill_grades)
    rel = values.get("rel")
    gold, report, stopped = fill_holes(
        scoring.run,
        scoring.gold,
        scoring.depth,
        judge,
        mapping,
        k=scoring.k,
        relevance_level=1 if rel is None else int(rel),
        strict=strict,
    )
    return Filling(gold, scoring.gold, report, stopped)


def _zero_empty(
    scores: np.ndarray, excluded: dict[int, str], empty_reason: str
) -> tuple[np.ndarray, dict[int, str]]:
    """trec_eval's rule: a query with nothing relevant scores 0 (its denominator is 0) and counts.
    Queries left out for another reason (no focus time, no text for the judge) stay out."""
    empty = [position for position, why in excluded.items() if why == empty_reason]
    if not empty:  # the scores as the kernel gave them: counts stay integers
        return scores, excluded
    scores = scores.astype(np.float64, copy=True)
    scores[empty] = 0.0
    return scores, {position: why for position, why in excluded.items() if position not in empty}


# -- arguments -------------------------------------------------------------------------------------


class Scoring(NamedTuple):  # a named tuple: a dataclass costs ~0.6 ms to build at import
    """One metric call's inputs, normalised, and what the reports should know about them."""

    run: Run  # as the gold set scores it (BEIR: without documents whose id is the query's)
    gold: GoldSet
    k: int | None  # the cutoff asked for (None: the whole ranking)
    depth: int  # how many ranks to read: k, or the longest ranking
    notes: dict[str, Any]  # run queries the gold set lacks, identical ids dropped
    fail_on_excluded: bool | None  # None: the session's policy


def inputs(
    run: RunLike,
    gold: GoldLike,
    k: object,
    strict: bool,
    fail_on_excluded: bool | None,
    spec: MeasureSpec,
) -> Scoring:
    """Normalise arguments. ``k=None`` reads the default k (the gold set's, else DEFAULT_K), or
    the whole ranking for a spec without ``function_default_k``. ``k="all"``: the whole ranking,
    for every measure."""
    gold, run = as_gold_set(gold), as_run(run)
    if strict:
        check_no_ignored_queries(run, gold)
    notes: dict[str, Any] = {"ignored_run_queries": ignored_run_queries(run, gold)}
    scored, dropped = scored_run(run, gold)
    if gold.ignore_identical_ids:
        notes["identical_ids_dropped"] = len(dropped)
        notes["identical_ids_judged_relevant"] = sorted(q for q, relevant in dropped if relevant)
    if k != ALL_RANKS and (spec.function_default_k or k is not None):
        k = check_k(k if k is not None else gold.k or DEFAULT_K)
        # The rankings as retrieved (before BEIR's identical-id rule): what the retriever was asked.
        short = short_rankings(run, gold, k)
        if short is not None:
            notes["short_rankings"] = short
        return Scoring(scored, gold, k, k, notes, fail_on_excluded)
    depth = max(1, int(scored.table.lengths.max(initial=0)))
    return Scoring(scored, gold, None, depth, notes, fail_on_excluded)


def _deepened(
    spec: MeasureSpec, scoring: Scoring, k: object, values: Mapping[str, ParamValue | None]
) -> Scoring:
    """The ranks read past k: with ``judged_only`` unjudged documents make room for others (as
    trec_eval -J), and ``k="all"`` reads as deep as the ideal ranking of every judgment."""
    whole = k == ALL_RANKS and spec.ideal_from_all_judgments
    if not (whole or values.get("judged_only")):
        return scoring
    longest = int(scoring.run.table.lengths.max(initial=0))
    judged_most = int(np.diff(scoring.gold.judgments.offsets).max(initial=0))
    return scoring._replace(depth=max(1, longest, judged_most if whole else scoring.depth))


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


# -- relevance and kernels -------------------------------------------------------------------------


def _relevance(
    spec: MeasureSpec,
    scoring: Scoring,
    mode: Mode,
    judge: Judge | None,
    values: Mapping[str, ParamValue | None],
    strict: bool,
) -> Relevance:
    """Relevance for the mode. A spec that ``needs_ideal`` gets every known document's relevance
    (the ideal ranking; in focus_time mode the pool); a ``binary`` one asks an LLM judge for the
    verdict instead of the 0-4 grade."""
    run, gold, depth = scoring.run, scoring.gold, scoring.depth
    if mode == Mode.GOLD:
        rel = values.get("rel")  # RBP without rel is graded: relevant is then a grade >= 1
        return gold_relevance(
            run,
            gold,
            depth,
            1 if rel is None else int(rel),
            need_ideal=spec.needs_ideal,
            first_relevant_only=spec.first_relevant_only,
        )
    if mode == Mode.LLM and spec.cross_period:
        return llm_coverage(run, gold, depth, judge, strict)
    if mode == Mode.LLM:
        return llm_relevance(run, gold, depth, judge, graded=not spec.binary, strict=strict)
    threshold = float(values.get("threshold") or 0.0)
    return focus_time_relevance(run, gold, depth, threshold, strict, pool=spec.needs_ideal)


def _year_input(name: str) -> Callable[[Relevance, Scoring, Graded], object]:
    """The focus-time set measures' input ``name``: a field of year_sets.YearSets."""

    def year_input(relevance: Relevance, scoring: Scoring, graded: Graded) -> object:
        from pytest_tempoeval.metrics.year_sets import year_sets  # focus-time measures only

        return getattr(year_sets(scoring.run, scoring.gold, relevance.rows), name)

    return year_input


# What a kernel's parameter gets, by its name (metrics/kernels.py: every kernel names its inputs
# so). ``k``: the ranks scored. ``gains``/``ideal``: the graded relevance through the spec's gain.
# Any other parameter of a kernel is one of its spec's parameters, passed as the call gave it.
Graded = Callable[[], tuple[np.ndarray, np.ndarray]]
_KERNEL_INPUTS: dict[str, Callable[[Relevance, Scoring, Graded], object]] = {
    "relevant": lambda relevance, scoring, graded: relevance.relevant,
    "n_relevant": lambda relevance, scoring, graded: relevance.n_relevant,
    "first_relevant": lambda relevance, scoring, graded: relevance.first_relevant_ranks(),
    "known": lambda relevance, scoring, graded: relevance.known,
    "retrieved": lambda relevance, scoring, graded: relevance.rows >= 0,
    "gains": lambda relevance, scoring, graded: graded()[0],
    "ideal": lambda relevance, scoring, graded: graded()[1],
    "k": lambda relevance, scoring, graded: scoring.k or scoring.depth,
    "cutoff": lambda relevance, scoring, graded: scoring.k,  # None: the whole ranking
    "query_ids": lambda relevance, scoring, graded: relevance.query_ids,  # to name one in errors
    "grades": lambda relevance, scoring, graded: trec_grades(relevance),
    "levels": lambda relevance, scoring, graded: grade_levels(scoring.gold),
    # T-Coverage: [nq, depth, 2] the document covers the baseline / the comparison period
    "coverage": lambda relevance, scoring, graded: relevance.coverage,
    # The focus-time set measures' (T-YearP, ...): the years of each rank, query and anchor.
    **{name: _year_input(name) for name in kernels.YEAR_INPUTS},
}


# trec_eval's codes for a retrieved document without a grade (its RELVALUE_NONPOOL and
# RELVALUE_UNJUDGED): not in the qrels, and in the qrels with a negative grade (a pool sample
# left unjudged, as infAP's qrels mark it). The kernels that read them define them.
NOT_JUDGED, POOLED_UNJUDGED = kernels.NOT_JUDGED, kernels.POOLED_UNJUDGED


def trec_grades(relevance: Relevance) -> np.ndarray:
    """[nq, depth] each rank's grade as trec_eval's ranked list holds it: the grade (>= 0),
    NOT_JUDGED, or POOLED_UNJUDGED (a negative grade); NOT_JUDGED past the end of a ranking."""
    grades = np.where(relevance.known, relevance.relevance, NOT_JUDGED).astype(np.int64)
    if relevance.negative is not None:
        grades[relevance.negative] = POOLED_UNJUDGED
    return grades


def grade_levels(gold: GoldSet) -> np.ndarray:
    """[nq, top grade + 1] how many documents each query judged at each grade >= 0 (trec_eval's
    ``rel_levels``); every measure that needs the pool's make-up (bpref, infAP, Rprec_mult, ndcg
    ideal gains) reads it."""

    def count() -> np.ndarray:
        judgments = gold.judgments
        grades = judgments.values.astype(np.int64)
        query = np.repeat(np.arange(len(judgments.keys)), np.diff(judgments.offsets))
        graded = grades >= 0
        top = int(grades.max(initial=0))
        levels = np.zeros((len(judgments.keys), max(top, 0) + 1), dtype=np.int64)
        np.add.at(levels, (query[graded], grades[graded]), 1)
        return levels

    levels: np.ndarray = gold.memo(("grade_levels",), count)
    return levels


def _kernel_scores(
    spec: MeasureSpec,
    relevance: Relevance,
    scoring: Scoring,
    values: Mapping[str, ParamValue | None],
) -> tuple[np.ndarray, np.ndarray | None]:
    """The kernel's per-query scores, and the mask of the queries it cannot score (nDCG: IDCG
    0), None when it returns scores only. A kernel parameter named like one of the spec's
    parameters gets its value (RBP's ``p``); the others get the arrays of ``_KERNEL_INPUTS``."""
    kernel: Callable[..., np.ndarray | tuple[np.ndarray, np.ndarray]] = getattr(
        kernels, spec.kernel
    )

    @functools.cache
    def graded() -> tuple[np.ndarray, np.ndarray]:
        scored = relevance.relevance
        if values.get("judged_only"):  # as trec_eval -J: a negative grade is removed too
            assert relevance.negative is not None
            scored = kernels.condensed(scored, relevance.known & ~relevance.negative)
        return kernels.gain_values(scored, relevance.ideal, str(values.get("gain", "linear")))

    code = kernel.__code__
    names = code.co_varnames[: code.co_argcount]
    scores = kernel(
        *(
            values[name] if name in values else _KERNEL_INPUTS[name](relevance, scoring, graded)
            for name in names
        )
    )
    return scores if isinstance(scores, tuple) else (scores, None)


# -- the result ------------------------------------------------------------------------------------


def _package(
    spec: MeasureSpec,
    measure: str,
    relevance: Relevance,
    scoring: Scoring,
    mode: Mode,
    scores: np.ndarray,
    excluded: dict[int, str],
    fill: Filling | None = None,
) -> MetricResult:
    ids = relevance.query_ids
    # With filled holes, the result is of the gold set given (its fingerprints key baselines);
    # what the score read, the filled judgments included, is ``scoring.gold``'s.
    given = scoring.gold if fill is None else fill.given
    if fill is not None:
        relevance = _with_fill_notes(relevance, fill.report)
    counted = np.ones(len(ids), dtype=bool)
    counted[list(excluded)] = False
    extra: dict[str, Any] = {
        "missing_queries": int(relevance.missing.sum()),
        **scoring.notes,
    }
    if relevance.judge_model is not None:
        extra["judge_model"] = relevance.judge_model
    if fill is not None:  # a baseline compares the judge model: another judge, another score
        extra["judge_model"] = fill.report.model
        extra["filled_grades"] = fill.report.filled
        extra["unjudged_without_text"] = fill.report.without_text
    # A first-relevant-only score (RR, Success) did not look past the first relevant document:
    # what the counts and explanations need of the rest is joined only if they are asked for.
    whole = relevance.complete or (lambda: relevance)

    def unjudged() -> dict[str, Any]:
        full = whole()
        top = full.rows[:, : scoring.k or full.rows.shape[1]]
        return {"unjudged": int(((top >= 0) & ~full.known[:, : top.shape[1]]).sum())}

    self_described = mode != Mode.GOLD  # the modes that read texts know a document by its text

    def later() -> dict[str, Any]:  # the ids the gold set does not know: counted when asked for
        run, gold = scoring.run, given  # ids the judge graded are still unknown to the gold set
        unknown = unknown_ids(run, gold, scoring.k or scoring.depth, self_described)
        unknown["run_retrieved_ids"] = retrieved_count(run, gold)
        return {**unjudged(), **unknown} if relevance.complete else unknown

    def some_known() -> bool:  # at any rank; the ranks scored first, as they usually answer
        first = relevance.first_relevant
        if fill is None and ((first >= 0).any() if first is not None else relevance.known.any()):
            return True
        # (filled grades make ranks known that the gold set does not know: it is asked)
        return knows_some_id(scoring.run, given, self_described)

    def judged() -> QueryScores:
        return _judged_shares(whole(), scoring)

    judged_shares: QueryScores | Callable[[], QueryScores] | None = None
    if mode == Mode.GOLD:  # computed now when it is cheap, else when asked for
        judged_shares = judged if relevance.complete else judged()
    value = None  # the mean, computed by MetricResult
    if spec.aggregate != Aggregate.MEAN:
        value = kernels.aggregate(scores[counted], spec.aggregate)
    # temporal diagnostics (issue 28): computed when an explanation, a report or a baseline asks
    figures = query_figures_of(scoring.run, given, scoring.k or DEFAULT_K)
    result = MetricResult(
        value=value,
        name=spec.function,
        k=scoring.k,
        mode=mode.value,
        per_query=QueryScores(ids, scores, counted),
        excluded={ids[i]: reason for i, reason in sorted(excluded.items())},
        explain_query=_explainer(whole, scoring, spec.binary, figures, mode == Mode.GOLD),
        extra=extra if relevance.complete else {**unjudged(), **extra},
        gold=given,
        fail_on_excluded=scoring.fail_on_excluded,
        measure=measure,
        judged=judged_shares,
        filled=None if fill is None else fill.report,
        later_extra=later,
        some_known=some_known,
        gold_reads=relevance.gold_reads,
        temporal=functools.partial(_temporal_of, figures, ids, counted),
        ranked_ids=_ranked_ids(whole, scoring),
    )
    result.judge_dry_run = relevance.judge_dry_run or ("" if fill is None else fill.stopped)
    return result


def _with_fill_notes(relevance: Relevance, filled: FilledGrades) -> Relevance:
    """``relevance`` whose explanations say, per query, which grades the judge filled and which
    holes it left unjudged."""
    notes = dict(relevance.notes or {})
    for position, query in enumerate(relevance.query_ids):
        fill = filled.queries.get(query)
        note = fill.note(filled.model) if fill is not None else ""
        if note:
            notes[position] = "; ".join(filter(None, (notes.get(position), note)))
    complete = relevance.complete
    return replace(
        relevance,
        notes=notes,
        complete=None if complete is None else lambda: _with_fill_notes(complete(), filled),
    )


def _judged_shares(relevance: Relevance, scoring: Scoring) -> QueryScores:
    """Judged@k of each query the score covers, kept with gold-mode results: a baseline stores it,
    so the gate can tell fewer judged documents from a worse ranking."""
    shares = kernels.judged_share(relevance.known, relevance.rows >= 0, scoring.k or scoring.depth)
    return QueryScores(relevance.query_ids, shares, np.ones(shares.size, dtype=bool))


def _temporal_of(
    figures: Callable[[], QueryFigures | None],
    ids: Sequence[str],
    counted: np.ndarray,
    queries: Collection[str] | None = None,
) -> TemporalDiagnostics | None:
    """The result's temporal diagnostics, over its counted queries, or over those of ``queries``
    alone (a period's slice)."""
    if queries is not None:
        wanted = set(queries)
        counted = counted & np.fromiter((query in wanted for query in ids), bool, len(ids))
    return summary_of(figures(), counted)


def _explainer(
    whole: Callable[[], Relevance],
    scoring: Scoring,
    binary: bool,
    figures: Callable[[], QueryFigures | None],
    gold_mode: bool = False,
) -> Callable[[str], QueryExplanation]:
    """What a query retrieved, with the relevance the score used, and the ideal ranking it was
    measured against (the same one: :attr:`Relevance.ideal_documents`); in gold mode, who judged
    the documents shown, when it was not a person."""
    shown = scoring.k or DEFAULT_K
    table, position_of = scoring.run.table, scoring.gold.query_position

    def explain(query_id: str) -> QueryExplanation:
        from pytest_tempoeval.metrics.explain import QueryExplanation

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
        judged_by = scoring.gold.provenance_of(query_id) if gold_mode else {}
        if judged_by:
            from pytest_tempoeval.metrics.explain import provenance_note

            docs = dict.fromkeys(doc for doc, _ in [*retrieved, *ideal])
            grades = scoring.gold.queries[query_id].relevant
            note = provenance_note(
                [(doc, grades[doc], judged_by[doc].source) for doc in docs if doc in judged_by]
            )
            if note:
                notes.append(note)

        def temporal() -> QueryTemporal | None:  # when read: the figures are kept on the run
            computed = figures()
            return None if computed is None else computed.query(position)

        reasons = {}
        if relevance.reasons:  # llm mode: the judge's words for each grade shown
            for rank, (doc, _) in enumerate(retrieved):
                reason = relevance.reasons.get((position, rank))
                if reason:
                    reasons[doc] = reason
        return QueryExplanation(
            query_id,
            retrieved,
            ideal,
            "; ".join(notes),
            temporal,
            reasons,
            functools.partial(document_years, scoring.run, scoring.gold),
        )

    return explain


def _ranked_ids(
    whole: Callable[[], Relevance], scoring: Scoring
) -> Callable[[Collection[str], int], dict[str, list[str]]]:
    """Each of some queries' top ``n`` retrieved ids (a baseline stores them, ini
    ``tempoeval_baseline_rankings``), read from the rows the score used."""
    table, position_of = scoring.run.table, scoring.gold.query_position

    def ranked(queries: Collection[str], n: int) -> dict[str, list[str]]:
        rows = whole().rows
        ranked_ids: dict[str, list[str]] = {}
        for query in queries:
            top = rows[position_of[query], :n]
            ranked_ids[query] = list(table.ids_of(top[top >= 0])) if (top >= 0).any() else []
        return ranked_ids

    return ranked
