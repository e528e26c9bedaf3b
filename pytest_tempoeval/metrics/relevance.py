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

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from pytest_tempoeval.data.columns import count_per_group
from pytest_tempoeval.data.goldset import GoldSet
from pytest_tempoeval.data.run import Run
from pytest_tempoeval.errors import MetricError
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
    from pytest_tempoeval.metrics.llm_judgments import Judge

# Why a query is left out of a mean.
NO_FOCUS_TIME = "no focus time (none given, none found in its text)"
NO_RELEVANT_JUDGED = "no relevant document judged"
NO_OVERLAP = "no known document overlaps its focus time"
NO_QUERY_TEXT = "no query text for the judge"
NOTHING_JUDGED_RELEVANT = "no retrieved document was judged relevant"
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
# compare the queries whose part is unchanged.
GOLD_READS = {
    "gold": (("relevant",), ()),
    "focus_time": (("focus_time",), ("focus_time",)),
    "llm": (("text", "temporal_focus"), ("text",)),
}

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
    from pytest_tempoeval.metrics.llm_prompts import MAX_DOCUMENT_CHARS

    if judge is None:
        raise MetricError(
            "mode='llm' needs judge=: an AnthropicJudge (the tempoeval_judge fixture gives one "
            "bound to this test's cassette)"
        )
    rows = ranked_rows(run, gold, depth)
    items, positions, excluded = [], [], {}
    cut: dict[int, int] = {}  # query position -> documents the prompt cuts at MAX_DOCUMENT_CHARS
    documents = gold.documents
    for position, query in enumerate(gold.queries.values()):
        if not query.text:
            excluded[position] = NO_QUERY_TEXT
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
    focus = {query.id: query.temporal_focus for query in gold.queries.values()}
    judgments, stopped = judged(
        lambda: judge.grade_all(items) if graded else judge.verdict_all(items, focus)
    )
    relevance = np.zeros(rows.shape)
    known = np.zeros(rows.shape, dtype=bool)
    for (position, rank), judgment in zip(positions, judgments):
        relevance[position, rank] = judgment.value
        known[position, rank] = True

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
        notes={
            position: f"{count} document{'s' if count > 1 else ''} longer than "
            f"{MAX_DOCUMENT_CHARS:,} characters, cut for the judge"
            for position, count in cut.items()
        },
        judge_dry_run=stopped,
    )
