"""The gold set's focus times, indexed for the focus-time measures, and the relevance pool.

Focus-time relevance depends only on the pair (query focus time, document focus time), and a gold
set has far fewer distinct focus times than documents. So focus times are interned once per gold
set (a "universe" of distinct ones, each a code), and pools are computed per distinct focus time
with documents counted by multiplicity. Jaccard is computed in the form that fits
(:mod:`.jaccard`): on first and last years when every focus time is one run of years (the usual
case; the ideal pool then reads only the pairs of focus times that can overlap), else on year bits.

Everything is kept on the gold set (:meth:`GoldSet.memo
<pytest_tempoeval.data.goldset.GoldSet.memo>`) or on the run for a (run, gold set) pair.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING

import numpy as np

from pytest_tempoeval.data.columns import IdLookup, id_words_of
from pytest_tempoeval.data.focus_time import NOT_INTERNED, FocusTime, interned_in_order
from pytest_tempoeval.data.goldset import GoldSet
from pytest_tempoeval.data.run import Run
from pytest_tempoeval.metrics.jaccard import (
    NO_FIRST,
    NO_LAST,
    is_run,
    jaccard,
    pairwise_jaccard,
    run_jaccard,
    year_bitsets,
    year_runs,
)

if TYPE_CHECKING:
    from pytest_tempoeval.data.gold_schema import GoldDocument, GoldQuery

GRADE_SCALE = 4.0  # focus-time relevance is Jaccard scaled to [0, 4], like the LLM judge's grades


class FocusIndex:
    """The gold set's distinct focus times (the universe) and the code of each query's and
    document's. (A plain class: a dataclass costs ~0.6 ms to build, and this module is imported by
    the first focus-time call.)"""

    def __init__(
        self,
        universe: list[FocusTime],
        query_code: np.ndarray,
        doc_code: np.ndarray,
        doc_ids: list[str],
        doc_index: IdLookup | None,
    ) -> None:
        self.universe = universe  # distinct focus times of the gold set's queries and documents
        self.query_code = query_code  # [gold queries] universe index, -1: no (or empty) focus time
        self.doc_code = doc_code  # [gold documents] universe index, -1: no focus time known
        self.doc_ids = doc_ids
        self.doc_index = doc_index
        # [len(universe)] int32 first and last year, years, and gold documents of each focus time
        self.first, self.last, self.sizes = year_runs(universe)
        self.code_counts = np.bincount(doc_code[doc_code >= 0], minlength=len(universe))
        # whether every focus time of the universe is one run of consecutive years
        self.runs = bool(np.all(self.last - self.first + 1 == self.sizes))
        self._bitsets: tuple[np.ndarray, int] | None = None

    @property
    def bits(self) -> np.ndarray:
        """[len(universe), words] uint64 year bitsets (built when first read)."""
        return self._year_bitsets()[0]

    @property
    def first_year(self) -> int:
        """The year of bit 0 in :attr:`bits`."""
        return self._year_bitsets()[1]

    def _year_bitsets(self) -> tuple[np.ndarray, int]:
        if self._bitsets is None:
            self._bitsets = year_bitsets(self.universe)
        return self._bitsets


def focus_index(gold: GoldSet) -> FocusIndex:
    return gold.memo("focus_index", lambda: _build_focus_index(gold))


def _build_focus_index(gold: GoldSet) -> FocusIndex:
    queries, documents = gold.queries.values(), gold.documents.values()
    coded = _coded_by_intern_key(queries, documents)
    query_code, doc_code, universe = coded or _coded_by_years(queries, documents)
    doc_ids = list(gold.documents)
    index = IdLookup(id_words_of(doc_ids)) if doc_ids else None
    return FocusIndex(universe, query_code, doc_code, doc_ids, index)


Coded = tuple[np.ndarray, np.ndarray, list[FocusTime]]  # query codes, document codes, universe
_NO_KEY = (-1).to_bytes(4, "little", signed=True)  # the intern key read for "no focus time"


def _coded_by_intern_key(
    queries: Collection[GoldQuery], documents: Collection[GoldDocument]
) -> Coded | None:
    """Codes numbered in the order of the intern table, from one attribute read per item (the
    cold path of a gold set of 100,000 documents); None when a focus time is not interned."""
    query_keys, doc_keys = _intern_keys(queries), _intern_keys(documents)
    table = interned_in_order()
    # The last two entries are read by the keys -2 (NOT_INTERNED) and -1 (no focus time).
    code_of_key = np.full(len(table) + 2, -1, dtype=np.int64)
    code_of_key[query_keys] = code_of_key[doc_keys] = 0  # marks the keys in use
    if code_of_key[NOT_INTERNED] == 0:
        return None
    code_of_key[-1] = -1
    keys = [key for key in np.flatnonzero(code_of_key == 0).tolist() if table[key].years]
    code_of_key[:] = -1  # no focus time, and the empty one, stay -1
    code_of_key[keys] = np.arange(len(keys))
    return code_of_key[query_keys], code_of_key[doc_keys], [table[key] for key in keys]


def _intern_keys(items: Collection[GoldQuery | GoldDocument]) -> np.ndarray:
    """[items] intern key of each item's focus time (-1: none), as int32.

    One list comprehension (its attribute reads are specialised bytecode, faster than
    ``operator.attrgetter``) and one C-level join of the keys' bytes, where ``np.fromiter`` would
    convert an int per item. Most gold sets give every item a focus time: the comprehension that
    checks for None (a third slower) runs only when one has none.
    """
    try:
        keys = [item.focus_time._intern_key for item in items]  # type: ignore[union-attr]
    except AttributeError:  # an item with no focus time: None has no intern key
        keys = [
            _NO_KEY if (focus := item.focus_time) is None else focus._intern_key for item in items
        ]
    return np.frombuffer(b"".join(keys), dtype="<i4")


def _coded_by_years(queries: Iterable[GoldQuery], documents: Iterable[GoldDocument]) -> Coded:
    """Codes numbered in order of first appearance, by a dict lookup on each item's years (their
    frozenset: the hash is cached, and equal years are often the same object)."""
    no_time: frozenset[int] = frozenset()
    code_of = _CodeOf({no_time: -1})

    def codes(items: Iterable[GoldQuery | GoldDocument]) -> np.ndarray:
        years = [no_time if item.focus_time is None else item.focus_time.years for item in items]
        return np.fromiter(map(code_of.__getitem__, years), dtype=np.int64, count=len(years))

    query_code, doc_code = codes(queries), codes(documents)
    return query_code, doc_code, [FocusTime._trusted(years) for years in code_of if years]


class _CodeOf(dict[frozenset[int], int]):
    """Code of each distinct focus time, numbered in order of first appearance."""

    def __missing__(self, years: frozenset[int]) -> int:
        code = self[years] = len(self) - 1  # the first key, no focus time, is -1
        return code


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
    """Focus-time codes of a run's ranked documents against one gold set, joined to the depth a
    measure reads and deepened when a later call reads further.

    Gold documents have the universe's codes; a document the gold set lacks gets the focus time of
    its text in the run, as an extra code after the universe (``len(universe) + i``).
    """

    def __init__(self, run: Run, gold: GoldSet) -> None:
        self.run, self.gold, self.index = run, gold, focus_index(gold)
        index = self.index
        self.joined: np.ndarray = np.zeros((index.query_code.size, 0), dtype=np.int64)  # ranks done
        self.extras: list[FocusTime] = []
        self._extra_code_of: dict[FocusTime, int] = {}

    def codes(self, rows: np.ndarray) -> np.ndarray:
        """Code of the focus time at each rank (-1: unknown, and past the end of a ranking), for
        ``rows`` = ``ranked_rows(run, gold, depth)``: only the ranks not looked up yet are."""
        done, depth = self.joined.shape[1], rows.shape[1]
        if done < depth:
            new_rows = rows[:, done:]
            valid = new_rows >= 0
            found: np.ndarray
            if valid.all():
                found = self._look_up(new_rows.ravel()).reshape(new_rows.shape)
            else:
                found = np.full(new_rows.shape, -1, dtype=np.int64)
                found[valid] = self._look_up(new_rows[valid])
            self.joined = np.hstack((self.joined, found)) if done else found
        return self.joined if self.joined.shape[1] == depth else self.joined[:, :depth]

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

    def similarity(self, codes: np.ndarray) -> np.ndarray:
        """Jaccard of each gold query's focus time with each of ``codes`` ([gold queries, ranks]
        from :meth:`codes`); 0 where either is unknown."""
        index = self.index
        query_codes = index.query_code[:, None]
        if index.runs and all(is_run(extra) for extra in self.extras):
            # The entry after the last code is "unknown", read by code -1: it overlaps nothing.
            first, last, sizes = year_runs(self.extras)
            unknown = np.array([NO_FIRST, NO_LAST, 0], dtype=np.int32)
            first = np.concatenate((index.first, first, unknown[:1]))
            last = np.concatenate((index.last, last, unknown[1:2]))
            sizes = np.concatenate((index.sizes, sizes, unknown[2:]))
            return run_jaccard(
                first[query_codes],
                last[query_codes],
                sizes[query_codes],
                first[codes],
                last[codes],
                sizes[codes],
            )
        table = None if self.extras else similarity_table(self.gold)
        if table is not None:
            # one gather; code -1 (unknown) reads the table's all-zero last row/column
            similarity: np.ndarray = table[query_codes, codes]
            return similarity
        all_bits, all_sizes = self.bits_and_sizes()
        if not all_sizes.size:  # no focus time anywhere in the gold set or the run
            return np.zeros(codes.shape)
        known_pair = (codes >= 0) & (query_codes >= 0)
        doc_codes, query_codes = np.maximum(codes, 0), np.maximum(query_codes, 0)
        similarity = jaccard(
            all_bits[query_codes], all_sizes[query_codes], all_bits[doc_codes], all_sizes[doc_codes]
        )
        similarity[~known_pair] = 0.0
        return similarity

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
    return run.memo(("retrieved_focus_times", gold), lambda: RetrievedFocusTimes(run, gold))


def _focus_pool(gold: GoldSet, depth: int, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """Ideal relevances from every gold document with a focus time, and how many are relevant.

    Relevance depends only on (query focus time, document focus time), so it is computed once per
    distinct pair and documents are counted with their multiplicity.
    """
    index = focus_index(gold)
    n_queries = index.query_code.size
    ideal = np.zeros((n_queries, depth))
    n_relevant = np.zeros(n_queries, dtype=np.int64)
    used = np.flatnonzero(index.code_counts > 0)
    query_codes = np.flatnonzero(
        np.bincount(index.query_code[index.query_code >= 0], minlength=len(index.universe))
    )
    if used.size == 0 or query_codes.size == 0:
        return ideal, n_relevant
    if index.runs:
        top, relevant_count = _run_pool(index, query_codes, used, depth, threshold)
        slot_of_code = np.zeros(len(index.universe), dtype=np.int64)
        slot_of_code[query_codes] = np.arange(query_codes.size)
        members = np.flatnonzero(index.query_code >= 0)
        slot = slot_of_code[index.query_code[members]]
        ideal[members] = top[slot]
        n_relevant[members] = relevant_count[slot]
        return ideal, n_relevant
    table = similarity_table(gold)
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


def _run_pool(
    index: FocusIndex, query_codes: np.ndarray, used: np.ndarray, depth: int, threshold: float
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_focus_pool` when every focus time is one run of years: per query code, the
    ``depth`` best relevances over the gold documents (code ``used[j]`` counted
    ``code_counts[used[j]]`` times) and how many documents are relevant.

    Only overlapping pairs have a Jaccard above 0, and every relevant document overlaps (relevant
    means Jaccard > threshold >= 0). With the used codes sorted by first year, the codes that can
    overlap a query's run [a, b] are those whose first year lies in [a - longest + 1, b]: one slice
    each, found by two searches. Each query code's row holds its slice, padded with zeros that
    count no document; the codes left out would be zeros too.
    """
    by_first = used[np.argsort(index.first[used], kind="stable")]
    used_first, used_last = index.first[by_first], index.last[by_first]
    used_sizes, used_counts = index.sizes[by_first], index.code_counts[by_first]
    query_first, query_last = index.first[query_codes], index.last[query_codes]
    longest = int(used_sizes.max())
    low = np.searchsorted(used_first, query_first - (longest - 1), side="left")
    high = np.searchsorted(used_first, query_last, side="right")
    at = low[:, None] + np.arange(max(1, int((high - low).max())))  # [query codes, widest slice]
    inside = at < high[:, None]
    np.minimum(at, by_first.size - 1, out=at)
    similarity = run_jaccard(
        query_first[:, None],
        query_last[:, None],
        index.sizes[query_codes][:, None],
        used_first[at],
        used_last[at],
        used_sizes[at],
    )
    similarity[~inside] = 0.0
    counts = np.where(inside, used_counts[at], 0)
    relevant = (similarity > threshold) if threshold > 0 else (similarity > 0)
    relevant_count = np.where(relevant, counts, 0).sum(axis=1)
    return _top_with_counts(GRADE_SCALE * similarity, counts, depth), relevant_count


def focus_pool(gold: GoldSet, depth: int, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """[gold queries, depth] ideal relevances from every gold document with a focus time, and
    [gold queries] how many are relevant; computed once per gold set, depth and threshold."""
    return gold.memo(("focus_pool", depth, threshold), lambda: _focus_pool(gold, depth, threshold))


def _top_with_counts(values: np.ndarray, counts: np.ndarray, depth: int) -> np.ndarray:
    """Per row, the ``depth`` largest values when value j occurs ``counts[j]`` times (``counts``:
    one row for all, or one per row). A value that occurs no time must be the smallest of its row
    (it may take the place of another as small)."""
    if values.shape[1] > depth:
        candidates = np.argpartition(-values, depth - 1, axis=1)[:, :depth]
    else:
        candidates = np.broadcast_to(np.arange(values.shape[1]), values.shape)
    chosen = np.take_along_axis(values, candidates, axis=1)
    order = np.argsort(-chosen, axis=1, kind="stable")
    chosen = np.take_along_axis(chosen, order, axis=1)
    chosen_columns = np.take_along_axis(candidates, order, axis=1)
    if counts.ndim == 1:
        chosen_counts = counts[chosen_columns]
    else:
        chosen_counts = np.take_along_axis(counts, chosen_columns, axis=1)
    repeats = np.cumsum(chosen_counts, axis=1)
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
