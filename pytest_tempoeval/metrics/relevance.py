"""From a run and a gold set to the relevance matrices the kernels score: the shared engine of all
metrics.

Every metric call gets a :class:`Relevance` with one row per gold query: the relevance of the
document at each rank, whether it is known, whether it counts as relevant for the binary metrics,
the ideal (best possible) relevances, and how many relevant documents the query has. How relevance
is decided depends on the mode:

- **gold**: the gold set's graded judgments (trec_eval: an unjudged document is non-relevant);
- **focus_time**: 4 x Jaccard(query focus time, document focus time) (:mod:`.focus_index`);
- **llm**: the grades or verdicts of an LLM judge (:mod:`.llm_judgments`).

One module on purpose, though longer than most: the three modes build the one :class:`Relevance`,
and what each calls known, relevant and ideal is easiest to keep consistent side by side.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from numbers import Integral
from typing import TYPE_CHECKING

import numpy as np

from pytest_tempoeval.data.columns import count_per_group
from pytest_tempoeval.data.goldset import GoldSet
from pytest_tempoeval.data.run import Run
from pytest_tempoeval.errors import FocusTimeError, MetricError
from pytest_tempoeval.metrics.alignment import (
    joined_depth,
    judged_rows,
    judged_rows_of,
    ranked_lengths,
    ranked_rows,
    run_of_gold,
)

# Imported by their modes' functions: focus_index and the judge's modules (gold mode needs neither)
if TYPE_CHECKING:
    from pytest_tempoeval.data.focus_time import FocusTime
    from pytest_tempoeval.data.gold_schema import GoldQuery
    from pytest_tempoeval.metrics.llm_judgments import CoverageJudge, Judge, JudgmentRequest

# Why a query is left out of a mean.
NO_FOCUS_TIME = "no focus time (none given, none found in its text)"
NO_RELEVANT_JUDGED = "no relevant document judged"
NO_OVERLAP = "no known document overlaps its focus time"
NO_QUERY_TEXT = "no query text for the judge"
NOTHING_JUDGED_RELEVANT = "no retrieved document was judged relevant"
NOT_CROSS_PERIOD = "no baseline_period and comparison_period (not a cross-period query)"
# Per mode, why a query with nothing relevant (IDCG 0, no relevant document for R/AP) is left out.
NO_RELEVANT_REASON = {
    "gold": NO_RELEVANT_JUDGED,
    "focus_time": NO_OVERLAP,
    "llm": NOTHING_JUDGED_RELEVANT,
}

# What each mode reads of the gold set (GoldSet.fingerprints): of each query, and of the documents,
# which any query's score may read. In focus_time mode the ideal ranking pools every document's
# focus time, so a document's edit changes every query; in llm mode the judge reads the query's
# text (and, for verdicts, its temporal focus) and the text of any document it is shown. Baselines
# compare the queries whose part is unchanged. T-AnchorF1 reads a query's key_time_anchors (hashed
# only for a query that gives them: the other queries' hashes stay those baselines hold).
GOLD_READS = {
    "gold": (("relevant",), ()),
    "focus_time": (("focus_time", "key_time_anchors"), ("focus_time",)),
    "llm": (("text", "temporal_focus"), ("text",)),
}
# T-Coverage's judge also reads each query's two periods (a measure of its own: the other llm-mode
# measures' per-query hashes stay as their baselines stored them).
CROSS_PERIOD_READS = (
    ("text", "temporal_focus", "baseline_period", "comparison_period"),
    ("text",),
)

# (query position, how many, binary) -> the best documents known for the query, best first, ties
# by id: (doc id, relevance), or (doc id, 1.0) for the documents a binary metric counts relevant.
IdealDocuments = Callable[[int, int, bool], list[tuple[str, float]]]


@dataclass(frozen=True, eq=False, kw_only=True)
class Relevance:
    """Relevance of a run's top ``depth`` documents for every gold query (rows in gold order)."""

    query_ids: tuple[str, ...]
    rows: np.ndarray  # [nq, depth] row of the run table at each rank, -1 past the end
    relevance: np.ndarray  # [nq, depth] graded relevance (0 where unknown or past the end)
    known: np.ndarray  # [nq, depth] relevance is known (judged, has a focus time, was graded)
    relevant: np.ndarray  # [nq, depth] binary relevance used by P, R, MRR, AP
    ideal: np.ndarray  # [nq, depth or 0] best possible graded relevances, descending
    n_relevant: np.ndarray  # [nq] relevant documents known for the query
    excluded: dict[int, str]  # query position -> reason it cannot be scored
    missing: np.ndarray  # [nq] gold query absent from the run (scored as an empty ranking)
    ideal_documents: IdealDocuments  # the documents behind ``ideal``, for explanations
    judge_model: str | None = None  # llm mode: the model that judged
    # gold mode: [nq, depth] judged with a negative grade (trec_eval: "in the pool, unjudged")
    negative: np.ndarray | None = None
    # first-relevant-only (RR, Success): the same relevance with every rank joined, on demand
    complete: Callable[[], Relevance] | None = None
    notes: dict[int, str] | None = None  # query position -> what its explanation should add
    # first-relevant-only (RR, Success): [nq] rank index of the first relevant document (-1: none);
    # the matrices are then empty ([nq, 0]) and ``complete`` holds them
    first_relevant: np.ndarray | None = None
    judge_dry_run: str = ""  # llm mode: why a dry run judged nothing (see checks.dry_run_stops)
    # T-Coverage: [nq, depth, 2] the document covers the query's baseline / comparison period
    coverage: np.ndarray | None = None
    # What the score read of each query, when more than its mode's GOLD_READS (T-Coverage)
    gold_reads: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    # llm mode: (query position, rank) -> the judge's reason for its grade (reports show it)
    reasons: dict[tuple[int, int], str] | None = None

    def first_relevant_ranks(self) -> np.ndarray:
        """[nq] rank index (0-based) of each query's first relevant document, -1 when none."""
        if self.first_relevant is not None:
            return self.first_relevant
        return np.where(self.relevant.any(axis=1), np.argmax(self.relevant, axis=1), -1)


# -- gold mode ------------------------------------------------------------------------------------


# Ranks joined before looking deeper for a first relevant document (reciprocal rank, Success).
_FIRST_PASS_RANKS = 10


def gold_relevance(
    run: Run,
    gold: GoldSet,
    depth: int,
    relevance_level: int = 1,
    need_ideal: bool = True,
    first_relevant_only: bool = False,
) -> Relevance:
    """Graded judgments of the gold set (trec_eval semantics: unjudged = non-relevant).

    ``first_relevant_only`` (reciprocal rank, Success): only the rank of each query's first
    relevant document is found (:attr:`Relevance.first_relevant`); past the first ranks only the
    queries with no relevant document yet are joined deeper, and no [queries, depth] matrix is
    built. :attr:`Relevance.complete` gives the whole relevance for counts and explanations.
    """
    judgments = gold.judgments
    grades = judgments.values
    relevant_grades = (grades >= relevance_level) & (grades >= 0)
    n_relevant = gold.memo(
        ("n_relevant", relevance_level), lambda: count_per_group(relevant_grades, judgments.offsets)
    )
    excluded = {int(q): NO_RELEVANT_JUDGED for q in np.flatnonzero(n_relevant == 0)}
    # (with no judgment at all there is nothing to find in the first pass, nor past it)
    if first_relevant_only and depth > _FIRST_PASS_RANKS and grades.size > 0:
        none = np.zeros((len(judgments.keys), 0))
        return Relevance(
            query_ids=judgments.keys,
            rows=none.astype(np.int64),
            relevance=none,
            known=none.astype(bool),
            relevant=none.astype(bool),
            ideal=none,
            n_relevant=n_relevant,
            excluded=excluded,
            missing=run_of_gold(run, gold) < 0,
            ideal_documents=lambda position, n, binary: [],
            complete=lambda: gold_relevance(run, gold, depth, relevance_level, need_ideal),
            first_relevant=_first_relevant_ranks(run, gold, depth, relevant_grades),
        )
    # Kept per (gold set, level, ideal or not): a measure scored after a deeper one (P@5 after AP)
    # reads the first ranks of its matrices, which are the ones it would build.
    kept: list[Relevance] = run.memo(("gold_relevance", gold, relevance_level, need_ideal), list)
    if kept and kept[0].rows.shape[1] >= depth:
        return _first_ranks(kept[0], depth)
    rows = ranked_rows(run, gold, depth)
    found = judged_rows(run, gold, depth)  # -1 where unjudged or past the end
    # A negative grade is judged non-relevant (trec_eval): no gain, never relevant, but judged.
    known = found >= 0
    # Only the judged ranks are gathered and written (flat indices: a boolean-mask assignment
    # costs several times more), so a sparse join costs little past its own size.
    at = np.flatnonzero(known)
    grade = grades[found.ravel()[at]]
    relevance = np.zeros(rows.shape)
    relevance.ravel()[at] = np.maximum(grade, 0)
    relevant = np.zeros(rows.shape, dtype=bool)
    relevant.ravel()[at] = (grade >= relevance_level) & (grade >= 0)
    negative = np.zeros(rows.shape, dtype=bool)
    negative.ravel()[at] = grade < 0
    # Binary metrics (P, R, MRR, AP) need no ideal ranking: skip a [queries, depth] matrix.
    if need_ideal:
        ideal = _top_grades_per_group(grades, judgments.offsets, depth)
    else:
        ideal = np.zeros((rows.shape[0], 0))

    def ideal_documents(position: int, n: int, binary: bool) -> list[tuple[str, float]]:
        docs, values = judgments.docs_of(position), judgments.values_of(position).tolist()
        floor = max(relevance_level, 0) if binary else 1
        best = sorted((-grade, doc) for doc, grade in zip(docs, values) if grade >= floor)
        return [(doc, 1.0 if binary else float(-grade)) for grade, doc in best[:n]]

    built = Relevance(
        query_ids=judgments.keys,
        rows=rows,
        relevance=relevance,
        known=known,
        relevant=relevant,
        ideal=ideal,
        n_relevant=n_relevant,
        excluded=excluded,
        missing=run_of_gold(run, gold) < 0,
        ideal_documents=ideal_documents,
        negative=negative,
    )
    kept[:] = [built]
    return built


def _first_ranks(relevance: Relevance, depth: int) -> Relevance:
    """``relevance`` (gold mode) to its first ``depth`` ranks: views, no copy."""
    assert relevance.negative is not None
    ideal = relevance.ideal[:, :depth] if relevance.ideal.shape[1] else relevance.ideal
    return replace(
        relevance,
        rows=relevance.rows[:, :depth],
        relevance=relevance.relevance[:, :depth],
        known=relevance.known[:, :depth],
        relevant=relevance.relevant[:, :depth],
        ideal=ideal,
        negative=relevance.negative[:, :depth],
    )


def _first_relevant_ranks(
    run: Run, gold: GoldSet, depth: int, relevant_grades: np.ndarray
) -> np.ndarray:
    """[gold queries] rank index of each query's first relevant document (-1: none in ``depth``).

    The first ranks come from the join the cutoff metrics share; only the rankings with nothing
    relevant there are joined deeper, a chunk of queries at a time. When that join is already
    ``depth`` deep (AP or recall scored first), it is read, not joined again.
    """
    if joined_depth(run, gold) >= depth:
        return _first_relevant_in(judged_rows(run, gold, depth), relevant_grades)
    first = judged_rows(run, gold, _FIRST_PASS_RANKS)
    ranks = _first_relevant_in(first, relevant_grades)
    lengths = ranked_lengths(run, gold)
    deeper = np.flatnonzero((ranks < 0) & (lengths > _FIRST_PASS_RANKS))
    for start in range(0, deeper.size, _DEEPER_QUERIES_PER_CHUNK):
        queries = deeper[start : start + _DEEPER_QUERIES_PER_CHUNK]
        rows = ranked_rows(run, gold, depth, queries, first_rank=_FIRST_PASS_RANKS)
        later = _first_relevant_in(judged_rows_of(run, gold, rows, queries), relevant_grades)
        ranks[queries] = np.where(later >= 0, later + _FIRST_PASS_RANKS, -1)
    return ranks


def _first_relevant_in(judged: np.ndarray, relevant_grades: np.ndarray) -> np.ndarray:
    """[rows] column of the first relevant judgment in each row of judgment rows, -1 when none."""
    is_relevant = (judged >= 0) & relevant_grades[np.maximum(judged, 0)]
    return np.where(is_relevant.any(axis=1), is_relevant.argmax(axis=1), -1)


# Rankings joined at once past the first ranks (bounds the temporary [queries, depth] matrices).
_DEEPER_QUERIES_PER_CHUNK = 50_000


def _top_grades_per_group(grades: np.ndarray, offsets: np.ndarray, depth: int) -> np.ndarray:
    """[groups, depth] largest gains of each group, descending, zero-padded: a negative grade
    (judged non-relevant, trec_eval) gains what 0 does.

    Grades are small integers, so each group's grades are counted, not sorted: the ideal gain at
    rank r is the number of levels g >= 1 that more than r of the group's grades reach. Unusually
    large grades take one sort of (group, gain descending) packed in an int64.
    """
    lengths = np.diff(offsets)
    out = np.zeros((lengths.size, depth))
    if grades.size == 0:
        return out
    top_grade = max(int(grades.max()), 0)
    if top_grade <= _COUNTED_GRADES:
        ranks = np.arange(depth)
        for level in range(1, top_grade + 1):
            out += count_per_group(grades >= level, offsets)[:, None] > ranks[None, :]
        return out
    groups = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
    keys = np.sort(groups * (top_grade + 1) + (top_grade - np.maximum(grades, 0)))
    sorted_groups, sorted_grades = keys // (top_grade + 1), top_grade - keys % (top_grade + 1)
    rank = np.arange(grades.size) - offsets[sorted_groups]
    keep = rank < depth
    out[sorted_groups[keep], rank[keep]] = sorted_grades[keep]
    return out


# Grades up to this are counted per level by _top_grades_per_group; higher ones are sorted.
_COUNTED_GRADES = 16


# -- focus-time mode ------------------------------------------------------------------------------


def focus_time_relevance(
    run: Run,
    gold: GoldSet,
    depth: int,
    threshold: float = 0.0,
    strict: bool = False,
    pool: bool = True,
) -> Relevance:
    """Relevance = 4 x Jaccard(QFT, DFT); relevant = any overlap (or Jaccard > threshold)."""
    from pytest_tempoeval.metrics.focus_index import (
        GRADE_SCALE,
        add_retrieved_to_pool,
        focus_index,
        focus_pool,
        retrieved_focus_times,
    )
    from pytest_tempoeval.metrics.jaccard import jaccard

    index = focus_index(gold)
    rows = run.memo(("ranked_rows", gold, depth), lambda: ranked_rows(run, gold, depth))
    retrieved = retrieved_focus_times(run, gold)
    codes = run.memo(("focus_codes", gold, depth), lambda: retrieved.codes(rows))
    similarity = run.memo(("focus_similarity", gold, depth), lambda: retrieved.similarity(codes))
    relevance = GRADE_SCALE * similarity
    known = codes >= 0
    relevant = (similarity > threshold) if threshold > 0 else (similarity > 0)
    unknown = (rows >= 0) & ~known
    if strict and unknown.any():
        query, rank = np.argwhere(unknown)[0].tolist()
        doc = run.table.ids_of(slice(rows[query, rank], rows[query, rank] + 1))[0]
        raise MetricError(
            f"doc {doc!r} (query {gold.query_ids[query]!r}, rank {rank + 1}) has no focus time: it "
            "is not among the gold set's documents and the run has no text for it (strict=True)"
        )
    if pool:
        ideal, n_relevant = (array.copy() for array in focus_pool(gold, depth, threshold))
        add_retrieved_to_pool(ideal, n_relevant, codes, index, relevance, relevant)
    else:  # precision needs neither the ideal ranking nor the count of relevant documents
        ideal = np.zeros((rows.shape[0], 0))
        n_relevant = np.zeros(rows.shape[0], dtype=np.int64)
    excluded = {int(position): NO_FOCUS_TIME for position in np.flatnonzero(index.query_code < 0)}
    outside = codes >= len(index.universe)  # retrieved, not in the gold set, a focus time from text

    def ideal_documents(position: int, n: int, binary: bool) -> list[tuple[str, float]]:
        code = index.query_code[position]
        has_time = index.doc_code >= 0
        if code < 0:
            return []
        doc_codes = index.doc_code[has_time]
        pool_similarity = jaccard(
            index.bits[code][None, :],
            index.sizes[code],
            index.bits[doc_codes],
            index.sizes[doc_codes],
        ).tolist()
        docs = [doc for doc, keep in zip(index.doc_ids, has_time.tolist()) if keep]
        candidates = list(zip(docs, pool_similarity))
        for rank in np.flatnonzero(outside[position]).tolist():
            row = rows[position, rank]
            doc = run.table.ids_of(slice(row, row + 1))[0]
            candidates.append((doc, float(similarity[position, rank])))
        floor = threshold if binary and threshold > 0 else 0.0
        best = sorted((-value, doc) for doc, value in candidates if value > floor)
        return [(doc, 1.0 if binary else GRADE_SCALE * -value) for value, doc in best[:n]]

    return Relevance(
        query_ids=gold.query_ids,
        rows=rows,
        relevance=relevance,
        known=known,
        relevant=relevant,
        ideal=ideal,
        n_relevant=n_relevant,
        excluded=excluded,
        missing=run_of_gold(run, gold) < 0,
        ideal_documents=ideal_documents,
    )


# -- LLM mode -------------------------------------------------------------------------------------


def llm_relevance(
    run: Run, gold: GoldSet, depth: int, judge: Judge | None, graded: bool, strict: bool = False
) -> Relevance:
    """Relevance from an LLM judge: grade 0-4 (graded) or verdict 0/1, for the top ``depth``
    documents.

    The ideal ranking is the judged retrieved documents re-sorted: only they have a known grade.
    A document with no text (neither in the run nor in the gold set) cannot be judged: it counts as
    unknown, or is an error with ``strict=True``.
    """
    from pytest_tempoeval.metrics.llm_judgments import judged

    if judge is None:
        raise MetricError(
            "mode='llm' needs judge=: an AnthropicJudge (the tempoeval_judge fixture gives one "
            "bound to this test's cassette)"
        )
    rows = ranked_rows(run, gold, depth)
    excluded = {
        position: NO_QUERY_TEXT
        for position, query in enumerate(gold.queries.values())
        if not query.text
    }
    items, positions, cut = _items_to_judge(run, gold, rows, excluded, strict)
    focus = {query.id: query.temporal_focus for query in gold.queries.values()}
    judgments, stopped = judged(
        lambda: judge.grade_all(items) if graded else judge.verdict_all(items, focus)
    )
    relevance = np.zeros(rows.shape)
    known = np.zeros(rows.shape, dtype=bool)
    reasons: dict[tuple[int, int], str] = {}
    for (position, rank), judgment in zip(positions, judgments):
        relevance[position, rank] = judgment.value
        known[position, rank] = True
        if judgment.reasoning:
            reasons[position, rank] = judgment.reasoning

    def ideal_documents(position: int, n: int, binary: bool) -> list[tuple[str, float]]:
        graded_docs = []
        for rank in np.flatnonzero(known[position] & (relevance[position] >= 1)).tolist():
            row = rows[position, rank]
            doc = run.table.ids_of(slice(row, row + 1))[0]
            graded_docs.append((-relevance[position, rank], doc))
        return [(doc, 1.0 if binary else float(-value)) for value, doc in sorted(graded_docs)[:n]]

    return Relevance(
        query_ids=gold.query_ids,
        rows=rows,
        relevance=relevance,
        known=known,
        relevant=relevance >= 1,
        ideal=-np.sort(-relevance, axis=1),
        n_relevant=(relevance >= 1).sum(axis=1),
        excluded=excluded,
        missing=run_of_gold(run, gold) < 0,
        ideal_documents=ideal_documents,
        judge_model=getattr(judge, "model", None),
        notes={position: _cut_note(count) for position, count in cut.items()},
        judge_dry_run=stopped,
        reasons=reasons,
    )


def _items_to_judge(
    run: Run, gold: GoldSet, rows: np.ndarray, skipped: Mapping[int, str], strict: bool
) -> tuple[list[JudgmentRequest], list[tuple[int, int]], dict[int, int]]:
    """The (query id, query, doc id, document) items of every ranked document with a text, for
    every query not ``skipped``; the (query position, rank) of each; and per query position how
    many documents the prompt cuts at MAX_DOCUMENT_CHARS. A document with no text (neither in the
    run nor in the gold set) cannot be judged: it is left unknown, or an error with ``strict``."""
    from pytest_tempoeval.metrics.llm_prompts import MAX_DOCUMENT_CHARS

    items: list[JudgmentRequest] = []
    positions: list[tuple[int, int]] = []
    cut: dict[int, int] = {}
    documents = gold.documents
    for position, query in enumerate(gold.queries.values()):
        if position in skipped or not query.text:
            continue
        valid = rows[position][rows[position] >= 0]
        for rank, doc in enumerate(run.table.ids_of(valid)):
            text = run.texts.get(doc) or (documents[doc].text if doc in documents else None)
            if text is None:
                if strict:
                    raise MetricError(
                        f"doc {doc!r} (query {query.id!r}, rank {rank + 1}) has no text to judge "
                        "(strict=True)"
                    )
                continue
            items.append((query.id, query.text, doc, text))
            positions.append((position, rank))
            if len(text) > MAX_DOCUMENT_CHARS:
                cut[position] = cut.get(position, 0) + 1
    return items, positions, cut


def _cut_note(count: int) -> str:
    from pytest_tempoeval.metrics.llm_prompts import MAX_DOCUMENT_CHARS

    return (
        f"{count} document{'s' if count > 1 else ''} longer than {MAX_DOCUMENT_CHARS:,} "
        "characters, cut for the judge"
    )


# -- T-Coverage (llm mode) -------------------------------------------------------------------------


def llm_coverage(
    run: Run, gold: GoldSet, depth: int, judge: CoverageJudge | object, strict: bool = False
) -> Relevance:
    """Which of its query's two periods (``baseline_period``, ``comparison_period``) each of the
    top ``depth`` documents covers, by the judge's answer to TempoEval's TemporalCoverage prompt
    (:attr:`Relevance.coverage`). A document's relevance is how many periods it covers (0-2).

    A query without the periods, or without a text, is left out and named. Every ranked document
    with a text is asked (TempoEval's ``acompute`` asks them all too). A document with no text
    cannot be judged: it covers nothing, counted as unknown, or an error with ``strict=True``.
    """
    from pytest_tempoeval.metrics.llm_judgments import (
        COVERS_BASELINE,
        COVERS_COMPARISON,
        CrossPeriod,
        judged,
    )

    ask = getattr(judge, "coverage_all", None)
    if judge is None or not callable(ask):
        raise MetricError(
            "T-Coverage needs judge=: a judge with coverage_all(items, periods), such as "
            "AnthropicJudge (the tempoeval_judge fixture) or CachedJudge"
            + ("" if judge is None else f"; {judge!r} has none")
        )
    rows = ranked_rows(run, gold, depth)
    excluded: dict[int, str] = {}
    periods: dict[str, CrossPeriod] = {}
    shown: dict[int, tuple[str, str]] = {}  # query position -> its periods as the prompt has them
    for position, query in enumerate(gold.queries.values()):
        pair = _cross_periods(query)
        if pair is None:
            excluded[position] = NOT_CROSS_PERIOD
        elif not query.text:
            excluded[position] = NO_QUERY_TEXT
        else:
            shown[position] = (str(pair[0]), str(pair[1]))
            periods[query.id] = CrossPeriod(*shown[position], query.temporal_focus)
    items, positions, cut = _items_to_judge(run, gold, rows, excluded, strict)
    judgments, stopped = judged(lambda: ask(items, periods))
    if not stopped and len(judgments) != len(items):
        raise MetricError(
            f"the judge {judge!r} gave {len(judgments)} coverage judgments for {len(items)} "
            "documents; a judge answers every item, in order"
        )
    coverage = np.zeros((*rows.shape, 2), dtype=bool)
    known = np.zeros(rows.shape, dtype=bool)
    reasons: dict[tuple[int, int], str] = {}
    for (position, rank), item, judgment in zip(positions, items, judgments):
        flags: object = judgment.value  # a judge of the user's may give anything
        if (judgment.query_id, judgment.doc_id) != (item[0], item[2]) or (
            isinstance(flags, bool)
            or not isinstance(flags, Integral)
            or not 0 <= int(flags) <= COVERS_BASELINE | COVERS_COMPARISON
        ):
            raise MetricError(
                f"the judge {judge!r} answered ({judgment.query_id!r}, {judgment.doc_id!r}, "
                f"{flags!r}) for doc {item[2]!r} of query {item[0]!r}: expected that query and "
                "doc, and coverage flags 0..3 (COVERS_BASELINE | COVERS_COMPARISON)"
            )
        covers = int(flags)
        coverage[position, rank] = (covers & COVERS_BASELINE, covers & COVERS_COMPARISON)
        known[position, rank] = True
        reasoning = getattr(judgment, "reasoning", None)  # a judge of the user's may build its own
        if isinstance(reasoning, str) and reasoning:
            reasons[position, rank] = reasoning
    relevance = coverage.sum(axis=2).astype(np.float64)

    def document(position: int, rank: int) -> str:
        row = rows[position, rank]
        return run.table.ids_of(slice(row, row + 1))[0]

    def ideal_documents(position: int, n: int, binary: bool) -> list[tuple[str, float]]:
        ranks = np.flatnonzero(known[position] & (relevance[position] >= 1)).tolist()
        best = sorted((-relevance[position, rank], document(position, rank)) for rank in ranks)
        return [(doc, 1.0 if binary else float(-value)) for value, doc in best[:n]]

    notes = {position: _cut_note(count) for position, count in cut.items()}
    if not stopped:
        for position, (baseline, comparison) in shown.items():
            covered = [
                [
                    document(position, rank)
                    for rank in np.flatnonzero(coverage[position, :, side]).tolist()
                ]
                for side in (0, 1)
            ]
            what = "; ".join(
                f"{name} period {period}: " + (_some(docs) if docs else "not covered")
                for name, period, docs in zip(
                    ("baseline", "comparison"), (baseline, comparison), covered
                )
            )
            notes[position] = "; ".join(filter(None, (what, notes.get(position))))
    return Relevance(
        query_ids=gold.query_ids,
        rows=rows,
        relevance=relevance,
        known=known,
        relevant=relevance >= 1,
        ideal=np.zeros((rows.shape[0], 0)),
        n_relevant=(relevance >= 1).sum(axis=1),
        excluded=excluded,
        missing=run_of_gold(run, gold) < 0,
        ideal_documents=ideal_documents,
        judge_model=getattr(judge, "model", None),
        notes=notes,
        judge_dry_run=stopped,
        coverage=coverage,
        gold_reads=CROSS_PERIOD_READS,
        reasons=reasons,
    )


def _cross_periods(query: GoldQuery) -> tuple[FocusTime, FocusTime] | None:
    """A query's baseline and comparison periods, or None when it gives neither. The gold-set
    files refuse one without the other; a GoldQuery built in Python is checked here."""
    from pytest_tempoeval.data.focus_time import FocusTime

    given = {"baseline_period": query.baseline_period, "comparison_period": query.comparison_period}
    if all(value is None for value in given.values()):
        return None
    periods = []
    for name, value in given.items():
        if value is None:
            other = next(key for key in given if key != name)
            raise MetricError(
                f"query {query.id!r}: {other} is given without {name}; a cross-period query "
                "(T-Coverage) names both periods it compares"
            )
        try:
            period = FocusTime.parse(value)
        except FocusTimeError as error:
            raise MetricError(f"query {query.id!r}: bad {name} {value!r}: {error}") from None
        if not period:
            raise MetricError(f"query {query.id!r}: {name} names no year")
        periods.append(period)
    return periods[0], periods[1]


def _some(docs: list[str], shown: int = 3) -> str:
    """``d1, d2, d3 and 2 more``."""
    more = f" and {len(docs) - shown} more" if len(docs) > shown else ""
    return ", ".join(docs[:shown]) + more
