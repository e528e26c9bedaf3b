"""The gold set's focus times as year bitsets, and the focus-time relevance pool.

Focus-time relevance depends only on the pair (query focus time, document focus time), and a gold
set has far fewer distinct focus times than documents. So focus times are interned once per gold
set (a "universe" of distinct ones, each a row of year bits), relevance is Jaccard over bitsets,
and pools are computed per distinct focus time with documents counted by multiplicity. Everything
is kept on the gold set (:meth:`GoldSet.memo <pytest_tempoeval.data.goldset.GoldSet.memo>`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from pytest_tempoeval.data.columns import IdLookup, encode_ids, id_words
from pytest_tempoeval.data.focus_time import FocusTime
from pytest_tempoeval.data.goldset import GoldSet
from pytest_tempoeval.data.run import Run

GRADE_SCALE = 4.0  # focus-time relevance is Jaccard scaled to [0, 4], like the LLM judge's grades


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
    doc_index: IdLookup | None


def focus_index(gold: GoldSet) -> FocusIndex:
    return gold.memo("focus_index", lambda: _build_focus_index(gold))


def _build_focus_index(gold: GoldSet) -> FocusIndex:
    # Interned by the years' frozenset (hash cached, compared in C), with C-level loops: no Python
    # work per document beyond one dict lookup, and a call only for a focus time not seen before.
    no_time: frozenset[int] = frozenset()
    code_of = _CodeOf({no_time: -1})
    query_years = [
        no_time if q.focus_time is None else q.focus_time.years for q in gold.queries.values()
    ]
    doc_years = [
        no_time if d.focus_time is None else d.focus_time.years for d in gold.documents.values()
    ]
    query_code = np.fromiter(
        map(code_of.__getitem__, query_years), dtype=np.int64, count=len(query_years)
    )
    doc_code = np.fromiter(
        map(code_of.__getitem__, doc_years), dtype=np.int64, count=len(doc_years)
    )
    # in code order; interned: no new objects
    universe = [FocusTime._trusted(years) for years in code_of if years]
    doc_ids = list(gold.documents)
    bits, first_year = year_bitsets(universe)
    sizes = np.array([len(ft) for ft in universe], dtype=np.int64)
    counts = np.bincount(doc_code[doc_code >= 0], minlength=len(universe))
    index = IdLookup(id_words(encode_ids(doc_ids))) if doc_ids else None
    return FocusIndex(
        universe, bits, first_year, sizes, query_code, doc_code, doc_ids, counts, index
    )


class _CodeOf(dict[frozenset[int], int]):
    """Code of each distinct focus time, numbered in order of first appearance."""

    def __missing__(self, years: frozenset[int]) -> int:
        code = self[years] = len(self) - 1  # the first key, no focus time, is -1
        return code


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


def pairwise_jaccard(
    bits_a: np.ndarray, sizes_a: np.ndarray, bits_b: np.ndarray, sizes_b: np.ndarray
) -> np.ndarray:
    """[len(a), len(b)] Jaccard of every pair of bitset rows (0 when both are empty).

    The intersections of all pairs are one matrix product of 0/1 rows over the years either side
    uses: exact (float32 holds every count below 2**24, and no count exceeds the number of years
    compared) and several times faster than intersecting bitsets pair by pair. Bit order does not
    matter, so the words are unpacked as raw bytes.
    """
    years_a = np.unpackbits(np.ascontiguousarray(bits_a).view(np.uint8), axis=1)
    years_b = np.unpackbits(np.ascontiguousarray(bits_b).view(np.uint8), axis=1)
    shared = np.flatnonzero(years_a.any(axis=0) & years_b.any(axis=0))
    exact = np.float32 if shared.size < 1 << 24 else np.float64
    overlap = (years_a[:, shared].astype(exact) @ years_b[:, shared].T.astype(exact)).astype(
        np.float64
    )
    union = sizes_a[:, None] + sizes_b[None, :] - overlap
    return np.divide(overlap, union, out=np.zeros_like(overlap), where=union > 0)


_TABLE_LIMIT = 1 << 22  # entries: 4 million float64 = 32 MiB at most


def similarity_table(gold: GoldSet) -> np.ndarray | None:
    """Jaccard of every pair of the gold set's distinct focus times, plus a zero last row and column
    for "unknown" (code -1). None when there are too many distinct ones."""
    index = focus_index(gold)
    size = len(index.universe)
    if (size + 1) ** 2 > _TABLE_LIMIT:
        return None

    def build() -> np.ndarray:
        table = np.zeros((size + 1, size + 1))
        table[:size, :size] = pairwise_jaccard(index.bits, index.sizes, index.bits, index.sizes)
        return table

    return gold.memo("similarity_table", build)


class RetrievedFocusTimes:
    """Focus-time codes of a run's retrieved documents against one gold set, looked up as deeper
    ranks are asked for.

    Gold documents have the universe's codes; a document the gold set lacks gets the focus time of
    its text in the run, as an extra code after the universe (``len(universe) + i``).
    """

    def __init__(self, run: Run, index: FocusIndex) -> None:
        self.run, self.index = run, index
        # -2: not looked up yet. One extra entry, -1, answers for the row index -1 (past the end).
        self.per_row = np.full(run.table.n_rows + 1, -2, dtype=np.int64)
        self.per_row[-1] = -1
        self.extras: list[FocusTime] = []
        self._extra_code_of: dict[FocusTime, int] = {}

    def codes(self, rows: np.ndarray) -> np.ndarray:
        """Code of every row's focus time (-1: unknown, and past the end of a ranking)."""
        codes = self.per_row[rows]
        todo = codes == -2
        if todo.any():
            asked = rows[todo]
            codes[todo] = self.per_row[asked] = self._look_up(asked)
        return codes

    def _look_up(self, rows: np.ndarray) -> np.ndarray:
        index, run = self.index, self.run
        if index.doc_index is None:  # the gold set annotates no documents
            found = codes = np.full(rows.size, -1, dtype=np.int64)
        else:
            found = index.doc_index.find(run.table.words_of(rows))
            codes = np.where(found >= 0, index.doc_code[np.maximum(found, 0)], -1)
        if run.texts or run.focus_times:
            for position in np.flatnonzero(found < 0).tolist():
                doc = run.table.ids_of(slice(rows[position], rows[position] + 1))[0]
                focus = run.focus_times.get(doc)  # a date in the retriever's metadata
                if focus is None and doc in run.texts:
                    focus = FocusTime.from_text(run.texts[doc])
                if focus:
                    if focus not in self._extra_code_of:
                        self._extra_code_of[focus] = len(index.universe) + len(self.extras)
                        self.extras.append(focus)
                    codes[position] = self._extra_code_of[focus]
        return codes

    def bits_and_sizes(self) -> tuple[np.ndarray, np.ndarray]:
        """Year bitsets and sizes of the universe followed by the extra focus times."""
        index = self.index
        if not self.extras:
            return index.bits, index.sizes
        # Years outside the gold set's span cannot overlap anything in it but count in the union.
        span = 64 * index.bits.shape[1]
        inside = [
            FocusTime(y for y in ft.years if 0 <= y - index.first_year < span) for ft in self.extras
        ]
        bits, _ = year_bitsets(inside, index.first_year, index.bits.shape[1])
        sizes = np.array([len(ft) for ft in self.extras], dtype=np.int64)
        return np.concatenate((index.bits, bits)), np.concatenate((index.sizes, sizes))


def retrieved_focus_times(run: Run, gold: GoldSet) -> RetrievedFocusTimes:
    return run.memo(
        ("retrieved_focus_times", gold), lambda: RetrievedFocusTimes(run, focus_index(gold))
    )


def _focus_pool(gold: GoldSet, depth: int, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """Ideal relevances from every gold document with a focus time, and how many are relevant.

    Relevance depends only on (query focus time, document focus time), so it is computed once per
    distinct pair (read from the similarity table when there is one) and documents are counted with
    their multiplicity.
    """
    index, table = focus_index(gold), similarity_table(gold)
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
    slot_of_code = np.zeros(len(index.universe), dtype=np.int64)  # in this chunk's rows
    for start in range(0, query_codes.size, chunk):
        codes = query_codes[start : start + chunk]
        if table is None:
            similarity = pairwise_jaccard(
                index.bits[codes], index.sizes[codes], index.bits[used], index.sizes[used]
            )
        else:  # two takes: several times faster than one np.ix_ gather
            similarity = table.take(codes, axis=0).take(used, axis=1)
        counts = index.code_counts[used]
        relevant = (similarity > threshold) if threshold > 0 else (similarity > 0)
        # float: a BLAS product, exact for counts below 2**53
        relevant_count = (relevant.astype(np.float64) @ counts.astype(np.float64)).astype(np.int64)
        top = _top_with_counts(GRADE_SCALE * similarity, counts, depth)
        members = (index.query_code >= codes[0]) & (index.query_code <= codes[-1])
        slot_of_code[codes] = np.arange(codes.size)
        slot = slot_of_code[index.query_code[members]]
        ideal[members] = top[slot]
        n_relevant[members] = relevant_count[slot]
    return ideal, n_relevant


def focus_pool(gold: GoldSet, depth: int, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """[gold queries, depth] ideal relevances from every gold document with a focus time, and
    [gold queries] how many are relevant; computed once per gold set, depth and threshold."""
    return gold.memo(("focus_pool", depth, threshold), lambda: _focus_pool(gold, depth, threshold))


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


def add_retrieved_to_pool(
    ideal: np.ndarray,
    n_relevant: np.ndarray,
    codes: np.ndarray,
    index: FocusIndex,
    relevance: np.ndarray,
    relevant: np.ndarray,
) -> None:
    """Retrieved documents outside the gold set but with a focus time (from their text) join the
    pool."""
    outside = codes >= len(index.universe)
    if not outside.any():
        return
    extra = np.where(outside, relevance, 0.0)
    ideal[:] = -np.sort(-np.concatenate((ideal, extra), axis=1), axis=1)[:, : ideal.shape[1]]
    n_relevant += (outside & relevant).sum(axis=1)


# -- the years themselves (TempoEval's focus-time set measures: T-YearP, T-YearR, T-Diversity,
# T-AnchorF1) ------------------------------------------------------------------------------------


class YearSets(NamedTuple):
    """Every focus time the set measures read, as year bitsets on one span: a union of bitsets
    counts its years exactly only if no year was clipped (``bits_and_sizes`` clips a retrieved
    document's years to the gold set's span, which Jaccard's counts allow and a union's do not)."""

    year_codes: np.ndarray  # [queries, depth] each rank's focus time: a row of year_bits (-1: none)
    query_codes: np.ndarray  # [queries] each query's focus time: a row of year_bits (-1: none)
    year_bits: np.ndarray  # [codes + 1, words] each code's years; the last row, none, is code -1
    anchor_years: np.ndarray  # [anchors, words] the queries' key_time_anchors, query after query
    anchor_offsets: np.ndarray  # [queries + 1] query q's anchors: rows offsets[q]:offsets[q + 1]
    collection_years: int  # distinct years of the gold set's documents


def year_sets(run: Run, gold: GoldSet, rows: np.ndarray) -> YearSets:
    """The years of the documents at ``rows`` (run-table rows, -1 past the end), of the gold
    set's queries and of their required anchors, on one span."""
    retrieved = retrieved_focus_times(run, gold)
    codes = retrieved.codes(rows)  # first: a document outside the gold set gets its code
    extras = retrieved.extras
    index = focus_index(gold)
    years = run.memo(("year_sets", gold, len(extras)), lambda: _year_sets(gold, list(extras)))
    return YearSets(codes, index.query_code, *years)


def _year_sets(
    gold: GoldSet, extras: list[FocusTime]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    index = focus_index(gold)
    per_query = [query.key_time_anchors for query in gold.queries.values()]
    anchors = [anchor for anchors in per_query for anchor in anchors]
    offsets = np.zeros(len(per_query) + 1, dtype=np.int64)
    np.cumsum([len(anchors) for anchors in per_query], out=offsets[1:])
    years = [year for ft in (*extras, *anchors) for year in (ft.min, ft.max) if year is not None]
    first, words = index.first_year, index.bits.shape[1]
    if index.universe:  # the gold set's span, widened to the others' years
        years += [first, first + 64 * words - 1]
    low, high = min(years, default=0), max(years, default=0)
    if low < first or high >= first + 64 * words or not index.universe:
        first, words = low, max(1, -(-(high - low + 1) // 64))
        universe, _ = year_bitsets(index.universe, first, words)
    else:  # nothing outside the gold set's span: its bitsets as they are
        universe = index.bits
    rows = [universe, year_bitsets(extras, first, words)[0], np.zeros((1, words), np.uint64)]
    documents = np.unique(index.doc_code[index.doc_code >= 0])
    collection = np.bitwise_or.reduce(universe[documents], axis=0) if documents.size else None
    return (
        np.concatenate(rows),
        year_bitsets(anchors, first, words)[0],
        offsets,
        0 if collection is None else int(np.bitwise_count(collection).sum()),
    )
