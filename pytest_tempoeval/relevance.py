"""From a run and a gold set to relevance matrices the kernels score: the shared engine of all metrics.

Every metric call goes through :func:`judge_run`, which returns one row per gold query:
``relevance[q, i]`` of the document at rank i + 1, whether it was judged, whether it is relevant,
the ideal (best possible) relevances, and how many relevant documents the query has.

Work that depends only on the gold set (hash index of its judgments and documents, bitsets of its
focus times) is cached on the gold set; work that depends on the pair (which run query is which
gold query, which retrieved document is which gold document) is cached on the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .columns import HashIndex, decode_ids, id_words, match_within_groups
from .errors import MetricError, RunError, located
from .focus_time import FocusTime

if TYPE_CHECKING:
    from .goldset import GoldSet
    from .run import Run

GRADE_SCALE = (
    4.0  # focus-time relevance is Jaccard scaled to [0, 4], like the LLM judge's 0-4 grades
)
NO_FOCUS_TIME = "no focus time (none given, none found in its text)"
NO_RELEVANT_JUDGED = "no relevant document judged"
NO_OVERLAP = "no known document overlaps its focus time"


@dataclass(frozen=True, eq=False)
class Judged:
    """Relevance of a run's top ``depth`` documents for every gold query (rows in gold order)."""

    query_ids: tuple[str, ...]
    rows: np.ndarray  # [nq, depth] row of the run table at each rank, -1 past the end
    relevance: np.ndarray  # [nq, depth] graded relevance (0 where unjudged or past the end)
    judged: np.ndarray  # [nq, depth] relevance is known
    relevant: np.ndarray  # [nq, depth] binary relevance used by P, R, MRR, AP
    ideal: np.ndarray  # [nq, depth] best possible graded relevances, descending
    n_relevant: np.ndarray  # [nq] relevant documents known for the query
    excluded: dict[int, str]  # query position -> reason it cannot be scored
    missing: np.ndarray  # [nq] gold query absent from the run (scored as an empty ranking)
    judge_model: str | None = None  # llm mode: the model that judged


# -- alignment --------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Alignment:
    run_of_gold: np.ndarray  # [gold queries] run group index, -1 when the run lacks the query


def align(run: Run, gold: GoldSet) -> Alignment:
    """Pair run queries with gold queries; a run query the gold set lacks is an error."""
    key = ("align", id(gold))
    cached = run._cache.get(key)
    if cached is not None and cached[0] is gold:
        return cached[1]
    position = gold.query_position
    run_of_gold = np.full(len(position), -1, dtype=np.int64)
    for run_index, query_id in enumerate(run.query_ids):
        gold_index = position.get(query_id)
        if gold_index is None:
            raise RunError(
                located(
                    run.source,
                    run.line_of(query_id),
                    f"query {query_id!r} is not in the gold set {gold.path} ({len(position)} queries); "
                    "remove it from the run or add it to the gold set",
                )
            )
        run_of_gold[gold_index] = run_index
    alignment = Alignment(run_of_gold)
    run._cache[key] = (gold, alignment)
    return alignment


def ranked_rows(run: Run, alignment: Alignment, depth: int) -> np.ndarray:
    """[gold queries, depth] run-table rows in rank order, -1 past the end of each ranking."""
    table = run.table
    present = alignment.run_of_gold >= 0
    groups = np.maximum(alignment.run_of_gold, 0)
    lengths = np.where(present, table.lengths[groups], 0)
    # int32 when it fits: this matrix is [queries, depth], e.g. 10 million entries at depth 100.
    dtype = np.int32 if table.doc_ids.size < np.iinfo(np.int32).max else np.int64
    ranks = np.arange(depth, dtype=dtype)
    rows = table.offsets[groups].astype(dtype)[:, None] + ranks[None, :]
    rows[ranks[None, :] >= lengths[:, None]] = -1
    return rows


# -- gold mode --------------------------------------------------------------------------------------


def judge_gold(
    run: Run, gold: GoldSet, depth: int, relevance_level: int = 1, need_ideal: bool = True
) -> Judged:
    """Graded judgments of the gold set (trec_eval semantics: unjudged = non-relevant)."""
    alignment = align(run, gold)
    rows = ranked_rows(run, alignment, depth)
    valid = rows >= 0
    judgments = gold.judgments
    found = _judgment_of_rows(run, gold, alignment)[rows[valid]]
    relevance = np.zeros(rows.shape, dtype=np.float64)
    judged = np.zeros(rows.shape, dtype=bool)
    grades = judgments.values
    if grades.size:
        relevance[valid] = np.where(found >= 0, grades[np.maximum(found, 0)], 0)
    judged[valid] = found >= 0
    # Binary metrics (P, R, MRR, AP) need no ideal ranking: skip a [queries, depth] matrix.
    ideal = (
        _top_grades_per_group(grades, judgments.offsets, depth)
        if need_ideal
        else np.zeros((rows.shape[0], 0))
    )
    n_relevant = np.bincount(
        judgments.group_of_rows(), weights=grades >= relevance_level, minlength=len(judgments.keys)
    )
    n_relevant = n_relevant.astype(np.int64)
    excluded = {int(q): NO_RELEVANT_JUDGED for q in np.flatnonzero(n_relevant == 0)}
    return Judged(
        judgments.keys,
        rows,
        relevance,
        judged,
        relevance >= relevance_level,
        ideal,
        n_relevant,
        excluded,
        alignment.run_of_gold < 0,
    )


def _judgment_of_rows(run: Run, gold: GoldSet, alignment: Alignment) -> np.ndarray:
    """Row of the gold judgment table for every run row (-1: unjudged). Cached on the run.

    Short judgment lists (the usual case) are matched by comparing ids within each query; long ones
    (hundreds of judgments per query) through the gold set's hash index.
    """
    key = ("judgments", id(gold))
    cached = run._cache.get(key)
    if cached is not None and cached[0] is gold:
        return cached[1]
    table, judgments = run.table, gold.judgments
    gold_of_run = np.full(len(table.keys), -1, dtype=np.int64)
    present = alignment.run_of_gold >= 0
    gold_of_run[alignment.run_of_gold[present]] = np.flatnonzero(present)
    judged_lengths = np.where(gold_of_run >= 0, judgments.lengths[np.maximum(gold_of_run, 0)], 0)
    comparisons = int((table.lengths * judged_lengths).sum())
    if comparisons <= 64 * max(1, table.doc_ids.size):
        starts = judgments.offsets[np.maximum(gold_of_run, 0)]
        right_offsets = np.stack((starts, starts + judged_lengths), axis=1).ravel()
        found = _match_ragged(
            table.offsets, run._doc_words, right_offsets, id_words(judgments.doc_ids)
        )
    else:
        found = gold.judgment_index.find(run._doc_words, np.repeat(gold_of_run, table.lengths))
    run._cache[key] = (gold, found)
    return found


def _match_ragged(
    left_offsets: np.ndarray,
    left_words: np.ndarray,
    right_bounds: np.ndarray,
    right_words: np.ndarray,
) -> np.ndarray:
    """:func:`match_within_groups` where right groups are (start, end) pairs into one table."""
    starts, ends = right_bounds[0::2], right_bounds[1::2]
    lengths = ends - starts
    # Gather each group's judgments into group order so offsets are contiguous.
    order = np.repeat(starts, lengths) + (
        np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    )
    if order.size == 0:
        return np.full(left_words.shape[0], -1, dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    matched = match_within_groups(left_offsets, left_words, offsets, right_words[order])
    return np.where(matched >= 0, order[np.maximum(matched, 0)], -1)


def _top_grades_per_group(grades: np.ndarray, offsets: np.ndarray, depth: int) -> np.ndarray:
    """[groups, depth] largest grades of each group, descending, zero-padded.

    Grades are small non-negative integers, so (group, grade descending) packs into one int64 key and
    one plain sort (no argsort, no per-group padding) orders a million judgments.
    """
    lengths = np.diff(offsets)
    out = np.zeros((lengths.size, depth))
    if grades.size == 0:
        return out
    top_grade = int(grades.max())
    groups = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
    keys = np.sort(groups * (top_grade + 1) + (top_grade - grades))
    sorted_groups, sorted_grades = keys // (top_grade + 1), top_grade - keys % (top_grade + 1)
    rank = np.arange(grades.size) - offsets[sorted_groups]
    keep = rank < depth
    out[sorted_groups[keep], rank[keep]] = sorted_grades[keep]
    return out


# -- focus-time mode --------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class FocusIndex:
    """The gold set's focus times as bitsets, over the distinct focus times only."""

    universe: list[FocusTime]  # distinct focus times of the gold set's queries and documents
    bits: np.ndarray  # [len(universe), words] uint64 year bitsets
    first_year: int
    sizes: np.ndarray  # [len(universe)] years in each focus time
    query_code: np.ndarray  # [gold queries] universe index, -1: no (or empty) focus time
    doc_code: np.ndarray  # [gold documents] universe index, -1: no focus time known
    doc_ids: list[str]
    code_counts: np.ndarray  # [len(universe)] gold documents having each focus time
    doc_index: HashIndex | None


def focus_index(gold: GoldSet) -> FocusIndex:
    cached = gold.__dict__.get("_focus_index")
    if cached is None:
        cached = gold.__dict__["_focus_index"] = _build_focus_index(gold)
    return cached


def _build_focus_index(gold: GoldSet) -> FocusIndex:
    from .columns import encode_ids

    # Interned by the years' frozenset (hash cached, compared in C), with C-level loops: 100,000
    # document focus times take milliseconds.
    no_time = frozenset()
    query_years = [
        no_time if q.focus_time is None else q.focus_time.years for q in gold.queries.values()
    ]
    doc_years = [
        no_time if d.focus_time is None else d.focus_time.years for d in gold.documents.values()
    ]
    distinct = dict.fromkeys(query_years + doc_years)
    distinct.pop(no_time, None)
    code_of = {years: code for code, years in enumerate(distinct)}
    code_of[no_time] = -1
    universe = [FocusTime.from_years(years) for years in distinct]
    query_code = np.fromiter(
        map(code_of.__getitem__, query_years), dtype=np.int64, count=len(query_years)
    )
    doc_code = np.fromiter(
        map(code_of.__getitem__, doc_years), dtype=np.int64, count=len(doc_years)
    )
    doc_ids = list(gold.documents)
    bits, first_year = year_bitsets(universe)
    sizes = np.array([len(ft) for ft in universe], dtype=np.int64)
    counts = np.bincount(doc_code[doc_code >= 0], minlength=len(universe))
    index = HashIndex(id_words(encode_ids(doc_ids))) if doc_ids else None
    return FocusIndex(
        universe, bits, first_year, sizes, query_code, doc_code, doc_ids, counts, index
    )


def year_bitsets(
    focus_times: list[FocusTime], first_year: int | None = None, n_words: int | None = None
) -> tuple[np.ndarray, int]:
    """[n, words] uint64 bitsets: bit ``y - first_year`` is set when year y is in the focus time."""
    years = [year for ft in focus_times for year in ft.years]
    if first_year is None:
        first_year = min(years, default=0)
    span = (max(years, default=first_year) - first_year + 1) if years else 1
    n_words = n_words or max(1, -(-span // 64))
    bits = np.zeros((len(focus_times), n_words), dtype=np.uint64)
    if years:
        owner = np.repeat(np.arange(len(focus_times)), [len(ft) for ft in focus_times])
        offset = np.array(years, dtype=np.int64) - first_year
        np.bitwise_or.at(
            bits,
            (owner, offset // 64),
            np.left_shift(np.uint64(1), (offset % 64).astype(np.uint64)),
        )
    return bits, first_year


def jaccard(
    bits_a: np.ndarray, sizes_a: np.ndarray, bits_b: np.ndarray, sizes_b: np.ndarray
) -> np.ndarray:
    """Elementwise |A∩B| / |A∪B| of bitset rows (0 when both are empty)."""
    overlap = np.bitwise_count(bits_a & bits_b).sum(axis=-1, dtype=np.int64)
    union = sizes_a + sizes_b - overlap
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(union > 0, overlap / union, 0.0)


def judge_focus_time(
    run: Run,
    gold: GoldSet,
    depth: int,
    threshold: float = 0.0,
    strict: bool = False,
    pool: bool = True,
) -> Judged:
    """Relevance = 4 x Jaccard(QFT, DFT); relevant = any overlap (or Jaccard > threshold)."""
    index = focus_index(gold)
    alignment = align(run, gold)
    key = ("focus_rows", id(gold), depth)
    cached = run._cache.get(key)
    if cached is None or cached[0] is not gold:  # rows and codes depend only on (run, gold, depth)
        rows = ranked_rows(run, alignment, depth)
        cached = run._cache[key] = (gold, rows, *_retrieved_codes(run, gold, index, rows))
    _, rows, codes, extra_bits, extra_sizes = cached  # codes: -1 past the end and where unknown
    if extra_sizes.size:
        all_bits = np.concatenate((index.bits, _fit(extra_bits, index)), axis=0)
        all_sizes = np.concatenate((index.sizes, extra_sizes))
    else:
        all_bits, all_sizes = index.bits, index.sizes
    # Whole [queries, depth] matrices, unknowns computed on a stand-in code and masked after:
    # cheaper than boolean indexing on this hot path.
    query_codes = index.query_code[:, None]
    known = (codes >= 0) & (query_codes >= 0)
    doc_codes, query_codes = np.maximum(codes, 0), np.maximum(query_codes, 0)
    table = _similarity_table(gold, index) if not extra_sizes.size else None
    if (
        table is not None
    ):  # one gather; code -1 (unknown) reads the table's all-zero last row/column
        similarity = table[index.query_code[:, None], codes]
    elif all_sizes.size:
        similarity = jaccard(
            all_bits[query_codes], all_sizes[query_codes], all_bits[doc_codes], all_sizes[doc_codes]
        )
        similarity[~known] = 0.0
    else:  # no focus time anywhere in the gold set or the run
        similarity = np.zeros(rows.shape)
    relevance = GRADE_SCALE * similarity
    judged = codes >= 0
    relevant = (similarity > threshold) if threshold > 0 else (similarity > 0)
    unknown = (rows >= 0) & ~judged
    if strict and unknown.any():
        position = np.argwhere(unknown)[0]
        doc = decode_ids(run.table.doc_ids[rows[tuple(position)] : rows[tuple(position)] + 1])[0]
        raise MetricError(
            f"doc {doc!r} (query {gold.query_ids[position[0]]!r}, rank {position[1] + 1}) has no focus time: "
            "it is not among the gold set's documents and the run has no text for it (strict=True)"
        )
    if pool:
        ideal, n_relevant = (array.copy() for array in _cached_pool(gold, index, depth, threshold))
        _add_retrieved_to_pool(ideal, n_relevant, codes, index, relevance, relevant)
    else:  # precision needs neither the ideal ranking nor the count of relevant documents
        ideal, n_relevant = np.zeros((rows.shape[0], 0)), np.zeros(rows.shape[0], dtype=np.int64)
    excluded = {}
    for position in np.flatnonzero(index.query_code < 0):
        excluded[int(position)] = NO_FOCUS_TIME
    return Judged(
        gold.query_ids,
        rows,
        relevance,
        judged,
        relevant,
        ideal,
        n_relevant,
        excluded,
        alignment.run_of_gold < 0,
    )


_TABLE_LIMIT = 1 << 22  # entries: 4 million float64 = 32 MiB at most


def _similarity_table(gold: GoldSet, index: FocusIndex) -> np.ndarray | None:
    """Jaccard of every pair of the gold set's distinct focus times, plus a zero last row and column
    for "unknown" (code -1), cached on the gold set. None when there are too many distinct ones."""
    size = len(index.universe)
    if (size + 1) ** 2 > _TABLE_LIMIT:
        return None
    table = gold.__dict__.get("_similarity_table")
    if table is None:
        table = np.zeros((size + 1, size + 1))
        table[:size, :size] = jaccard(
            index.bits[:, None, :],
            index.sizes[:, None],
            index.bits[None, :, :],
            index.sizes[None, :],
        )
        gold.__dict__["_similarity_table"] = table
    return table


def _fit(bits: np.ndarray, index: FocusIndex) -> np.ndarray:
    return (
        bits
        if bits.shape[1] == index.bits.shape[1]
        else np.zeros((0, index.bits.shape[1]), dtype=np.uint64)
    )


def _retrieved_codes(
    run: Run, gold: GoldSet, index: FocusIndex, rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Universe code of each retrieved row's focus time (-1: unknown).

    Gold documents come first; a document the gold set lacks gets the focus time of its text in the
    run, as extra codes after the universe (``len(universe) + i``).
    """
    cache_key = ("focus_codes", id(gold))
    cached = run._cache.get(cache_key)
    if cached is not None and cached[0] is gold:
        per_row = cached[1]
    else:
        # -2: not looked up yet. One extra entry, -1, answers for the row index -1 (past the end).
        per_row = np.full(run.table.doc_ids.size + 1, -2, dtype=np.int64)
        per_row[-1] = -1
        cached = (gold, per_row, [], {})
        run._cache[cache_key] = cached
    todo = rows[per_row[rows] == -2]
    if todo.size:
        if index.doc_index is None:  # the gold set annotates no documents
            found = codes = np.full(todo.size, -1, dtype=np.int64)
        else:
            found = index.doc_index.find(run._doc_words[todo])
            codes = np.where(found >= 0, index.doc_code[np.maximum(found, 0)], -1)
        extras, extra_code_of = cached[2], cached[3]
        if run.texts:
            for position in np.flatnonzero(found < 0).tolist():
                doc = decode_ids(run.table.doc_ids[todo[position] : todo[position] + 1])[0]
                text = run.texts.get(doc)
                if text is not None:
                    focus = FocusTime.from_text(text)
                    if focus:
                        if focus not in extra_code_of:
                            extra_code_of[focus] = len(index.universe) + len(extras)
                            extras.append(focus)
                        codes[position] = extra_code_of[focus]
        per_row[todo] = codes
    extras = cached[2]
    extra_bits = _extra_bits(extras, index)
    return per_row[rows], extra_bits, np.array([len(ft) for ft in extras], dtype=np.int64)


def _extra_bits(extras: list[FocusTime], index: FocusIndex) -> np.ndarray:
    if not extras:
        return np.zeros((0, index.bits.shape[1]), dtype=np.uint64)
    # Years outside the gold set's span cannot overlap anything in it but still count in the union.
    inside = [
        FocusTime(y for y in ft.years if 0 <= y - index.first_year < 64 * index.bits.shape[1])
        for ft in extras
    ]
    bits, _ = year_bitsets(inside, index.first_year, index.bits.shape[1])
    return bits


def _focus_pool(index: FocusIndex, depth: int, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """Ideal relevances from every gold document with a focus time, and how many are relevant.

    Relevance depends only on (query focus time, document focus time), so it is computed once per
    distinct pair and documents are counted with their multiplicity.
    """
    n_queries = index.query_code.size
    ideal = np.zeros((n_queries, depth))
    n_relevant = np.zeros(n_queries, dtype=np.int64)
    used = np.flatnonzero(index.code_counts > 0)
    query_codes = np.flatnonzero(
        np.bincount(index.query_code[index.query_code >= 0], minlength=len(index.universe))
    )
    if used.size == 0 or query_codes.size == 0:
        return ideal, n_relevant
    chunk = max(1, (1 << 22) // used.size)
    for start in range(0, query_codes.size, chunk):
        codes = query_codes[start : start + chunk]
        similarity = jaccard(
            index.bits[codes][:, None, :],
            index.sizes[codes][:, None],
            index.bits[used][None, :, :],
            index.sizes[used][None, :],
        )
        counts = index.code_counts[used]
        relevant = (similarity > threshold) if threshold > 0 else (similarity > 0)
        relevant_count = relevant @ counts
        top = _top_with_counts(GRADE_SCALE * similarity, counts, depth)
        members = (index.query_code >= codes[0]) & (index.query_code <= codes[-1])
        slot = np.searchsorted(codes, index.query_code[members])  # codes are sorted and unique
        ideal[members] = top[slot]
        n_relevant[members] = relevant_count[slot]
    return ideal, n_relevant


def _cached_pool(
    gold: GoldSet, index: FocusIndex, depth: int, threshold: float
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_focus_pool`, computed once per gold set, depth and threshold."""
    pools = gold.__dict__.setdefault("_focus_pools", {})
    key = (depth, threshold)
    if key not in pools:
        pools[key] = _focus_pool(index, depth, threshold)
    return pools[key]


def _top_with_counts(values: np.ndarray, counts: np.ndarray, depth: int) -> np.ndarray:
    """Per row, the ``depth`` largest values when value j occurs ``counts[j]`` times."""
    if values.shape[1] > depth:
        candidates = np.argpartition(-values, depth - 1, axis=1)[:, :depth]
    else:
        candidates = np.broadcast_to(np.arange(values.shape[1]), values.shape)
    chosen = np.take_along_axis(values, candidates, axis=1)
    order = np.argsort(-chosen, axis=1, kind="stable")
    chosen = np.take_along_axis(chosen, order, axis=1)
    repeats = np.cumsum(counts[np.take_along_axis(candidates, order, axis=1)], axis=1)
    which = (np.arange(depth)[None, :, None] >= repeats[:, None, :]).sum(axis=2)
    padded = np.concatenate((chosen, np.zeros((chosen.shape[0], 1))), axis=1)
    return np.take_along_axis(padded, np.minimum(which, chosen.shape[1]), axis=1)


def _add_retrieved_to_pool(
    ideal: np.ndarray,
    n_relevant: np.ndarray,
    codes: np.ndarray,
    index: FocusIndex,
    relevance: np.ndarray,
    relevant: np.ndarray,
) -> None:
    """Retrieved documents outside the gold set but with a focus time (from their text) join the pool."""
    outside = codes >= len(index.universe)
    if not outside.any():
        return
    extra = np.where(outside, relevance, 0.0)
    ideal[:] = -np.sort(-np.concatenate((ideal, extra), axis=1), axis=1)[:, : ideal.shape[1]]
    n_relevant += (outside & relevant).sum(axis=1)


# -- LLM mode -----------------------------------------------------------------------------------------

NO_QUERY_TEXT = "no query text for the judge"
NOTHING_JUDGED_RELEVANT = "no retrieved document was judged relevant"


def judge_llm(
    run: Run, gold: GoldSet, depth: int, judge: Any, graded: bool, strict: bool = False
) -> Judged:
    """Relevance from an LLM judge: grade 0-4 (graded) or verdict 0/1, for the top ``depth`` documents.

    The ideal ranking is the judged retrieved documents re-sorted: only they have a known grade.
    A document with no text (neither in the run nor in the gold set) cannot be judged: it counts as
    unjudged, or is an error with ``strict=True``.
    """
    if judge is None:
        raise MetricError(
            "mode='llm' needs judge=: an AnthropicJudge (the tempoeval_judge fixture gives one bound to this "
            "test's cassette)"
        )
    alignment = align(run, gold)
    rows = ranked_rows(run, alignment, depth)
    items, positions, excluded = [], [], {}
    documents = gold.documents
    for position, query in enumerate(gold.queries.values()):
        if not query.text:
            excluded[position] = NO_QUERY_TEXT
            continue
        valid = rows[position][rows[position] >= 0]
        for rank, doc in enumerate(decode_ids(run.table.doc_ids[valid])):
            text = run.texts.get(doc) or (documents[doc].text if doc in documents else None)
            if text is None:
                if strict:
                    raise MetricError(
                        f"doc {doc!r} (query {query.id!r}, rank {rank + 1}) has no text to judge (strict=True)"
                    )
                continue
            items.append((query.id, query.text, doc, text))
            positions.append((position, rank))
    judgments = (
        judge.grade_all(items)
        if graded
        else judge.verdict_all(
            items, {query.id: query.temporal_focus for query in gold.queries.values()}
        )
    )
    relevance = np.zeros(rows.shape)
    judged = np.zeros(rows.shape, dtype=bool)
    for (position, rank), judgment in zip(positions, judgments):
        relevance[position, rank] = judgment.value
        judged[position, rank] = True
    ideal = -np.sort(-relevance, axis=1)
    n_relevant = (relevance >= 1).sum(axis=1)
    return Judged(
        gold.query_ids,
        rows,
        relevance,
        judged,
        relevance >= 1,
        ideal,
        n_relevant,
        excluded,
        alignment.run_of_gold < 0,
        getattr(judge, "model", None),
    )
