"""Columnar storage shared by runs and gold sets, and the exact hash index the joins use.

Ids are UTF-8 bytes in numpy ``S`` arrays. For comparisons they are also viewed as rows of
big-endian uint64 words ("id words"): comparing word rows lexicographically is comparing the byte
strings with ``strcmp`` (the order trec_eval breaks score ties in), and integers compare far faster
than strings.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

_GOLDEN = np.uint64(
    0x9E3779B97F4A7C15
)  # 2**64 / golden ratio: the usual multiplicative-hash constant


def encode_ids(ids: Iterable[str]) -> np.ndarray:
    """UTF-8 ``S`` array of string ids (numpy's own str->bytes cast is ASCII-only)."""
    encoded = [value.encode("utf-8") for value in ids]
    width = max(map(len, encoded), default=1)
    return np.array(encoded, dtype=f"S{max(1, width)}")


def decode_ids(ids: np.ndarray) -> list[str]:
    return [value.decode("utf-8") for value in ids.tolist()]


def id_words(ids: np.ndarray, n_words: int | None = None) -> np.ndarray:
    """``(n, n_words)`` uint64 rows whose lexicographic order is the byte order of ``ids``."""
    width = ids.dtype.itemsize
    n_words = n_words or max(1, -(-width // 8))
    padded = np.zeros((ids.size, n_words * 8), dtype=np.uint8)
    padded[:, :width] = ids.view(np.uint8).reshape(ids.size, width)
    return padded.view(">u8").astype(np.uint64)


def words_to_ids(words: np.ndarray, width: int) -> np.ndarray:
    """Inverse of :func:`id_words`."""
    raw = (
        np.ascontiguousarray(words.astype(">u8"))
        .view(np.uint8)
        .reshape(words.shape[0], 8 * words.shape[1])
    )
    return np.ascontiguousarray(raw[:, :width]).view(f"S{width}").ravel()


def widen(words: np.ndarray, n_words: int) -> np.ndarray:
    """Pad word rows with zero words (an id's own padding) up to ``n_words`` columns."""
    if words.shape[1] >= n_words:
        return words
    out = np.zeros((words.shape[0], n_words), dtype=np.uint64)
    out[:, : words.shape[1]] = words
    return out


def hash_words(words: np.ndarray, salt: np.ndarray | None = None) -> np.ndarray:
    """A 64-bit hash per row (multiply-xorshift). Collisions happen: callers verify matches."""
    with np.errstate(over="ignore"):
        if salt is None:
            state = np.zeros(words.shape[0], dtype=np.uint64)
        else:
            state = (salt.astype(np.uint64) + np.uint64(1)) * _GOLDEN
        for column in range(words.shape[1]):
            state = (state ^ words[:, column]) * _GOLDEN
            state ^= state >> np.uint64(31)
    return state


class HashIndex:
    """An exact open-addressing hash table over rows of id words, built and probed with array ops.

    Binary search (``searchsorted``) costs ~20 dependent cache misses per lookup; a table at load
    factor <= 1/2 with linear probing costs one or two, which makes joins of millions of rows cheap.
    Keys are (salt, id words) pairs; ``salt`` lets one table hold per-query keys.
    """

    def __init__(self, words: np.ndarray, salt: np.ndarray | None = None) -> None:
        n_keys = words.shape[0]
        self.words = words
        self.salt = salt
        self.hashes = hash_words(words, salt)
        self.mask = np.uint64((1 << max(4, (2 * n_keys).bit_length())) - 1)
        self.slots = np.full(int(self.mask) + 1, -1, dtype=np.int64)
        duplicate_of: dict[int, int] = {}
        pending = np.arange(n_keys)
        probes = np.zeros(n_keys, dtype=np.uint64)
        while pending.size:
            slot = ((self.hashes[pending] + probes[pending]) & self.mask).astype(np.int64)
            occupant = self.slots[slot]
            occupied = occupant >= 0
            same = np.zeros(pending.size, dtype=bool)
            same[occupied] = self._equal(occupant[occupied], pending[occupied], words, salt)
            for row, first in zip(pending[same].tolist(), occupant[same].tolist()):
                duplicate_of[row] = first
            probes[pending[occupied & ~same]] += np.uint64(1)  # taken by another key: probe on
            # Several keys may race for one empty slot: the earliest row wins, deterministically.
            racers, racer_slots = pending[~occupied], slot[~occupied]
            order = np.lexsort((racers, racer_slots))
            racers, racer_slots = racers[order], racer_slots[order]
            wins = np.ones(racers.size, dtype=bool)
            wins[1:] = racer_slots[1:] != racer_slots[:-1]
            self.slots[racer_slots[wins]] = racers[wins]
            # Losers keep their probe count and look at the same slot again next round, so a loser
            # equal to the winner is caught as a duplicate instead of sliding past it.
            pending = np.concatenate((pending[occupied & ~same], racers[~wins]))
        self.duplicate_of = duplicate_of  # row -> earlier row with the same key

    def _equal(
        self, stored: np.ndarray, rows: np.ndarray, words: np.ndarray, salt: np.ndarray | None
    ) -> np.ndarray:
        equal = self.hashes[stored] == self.hashes[rows]
        equal &= np.all(self.words[stored] == words[rows], axis=1)
        if salt is not None:
            equal &= self.salt[stored] == salt[rows]
        return equal

    def find(self, words: np.ndarray, salt: np.ndarray | None = None) -> np.ndarray:
        """Row of every key in the table (-1 when absent)."""
        n_words = self.words.shape[1]
        if words.shape[1] > n_words:
            # Longer ids than any stored one can only match if their extra words are padding.
            fits = ~np.any(words[:, n_words:], axis=1)
            result = np.full(words.shape[0], -1, dtype=np.int64)
            result[fits] = self.find(words[fits, :n_words], None if salt is None else salt[fits])
            return result
        words = widen(words, n_words)
        hashes = hash_words(words, salt)
        result = np.full(words.shape[0], -1, dtype=np.int64)
        pending = np.arange(words.shape[0])
        probe = np.uint64(0)
        while pending.size:
            slot = ((hashes[pending] + probe) & self.mask).astype(np.int64)
            occupant = self.slots[slot]
            occupied = occupant >= 0
            hit = np.zeros(pending.size, dtype=bool)
            stored, asked = occupant[occupied], pending[occupied]
            match = (self.hashes[stored] == hashes[asked]) & np.all(
                self.words[stored] == words[asked], axis=1
            )
            if salt is not None:
                match &= self.salt[stored] == salt[asked]
            hit[occupied] = match
            result[pending[hit]] = occupant[hit]
            pending = pending[occupied & ~hit]  # an empty slot ends the probe sequence: absent
            probe += np.uint64(1)
        return result


def match_within_groups(
    left_offsets: np.ndarray,
    left_words: np.ndarray,
    right_offsets: np.ndarray,
    right_words: np.ndarray,
    budget: int = 1 << 22,
) -> np.ndarray:
    """For every left row, the right row of the same group with the same id (-1 when none).

    Group ``i`` is ``left[left_offsets[i]:left_offsets[i+1]]`` against
    ``right[right_offsets[i]:right_offsets[i+1]]``.
    Every left id is compared with every right id of its group, in padded blocks of groups of
    similar sizes: exact, and sequential in memory, which beats hashing when groups are short
    (a ranking of 100 against 20 judgments). Right ids must be distinct within a group.
    """
    n_words = max(left_words.shape[1], right_words.shape[1])
    left_words, right_words = widen(left_words, n_words), widen(right_words, n_words)
    result = np.full(left_words.shape[0], -1, dtype=np.int64)
    left_lengths, right_lengths = np.diff(left_offsets), np.diff(right_offsets)
    active = np.flatnonzero((left_lengths > 0) & (right_lengths > 0))
    if active.size == 0:
        return result
    # Bucket groups by the powers of two above their sizes, so padding wastes at most half.
    size_class = _ceil_log2(left_lengths[active]) * 64 + _ceil_log2(right_lengths[active])
    order = np.argsort(size_class, kind="stable")
    active, size_class = active[order], size_class[order]
    blocks = []
    for members in np.split(active, np.flatnonzero(np.diff(size_class)) + 1):
        left_width, right_width = (
            int(left_lengths[members].max()),
            int(right_lengths[members].max()),
        )
        per_block = max(1, budget // (left_width * right_width * n_words))
        blocks += [
            (members[start : start + per_block], left_width, right_width)
            for start in range(0, members.size, per_block)
        ]

    def match(block: tuple[np.ndarray, int, int]) -> None:  # blocks write disjoint rows of result
        groups, left_width, right_width = block
        left_rows, left_valid = _padded_rows(left_offsets[groups], left_lengths[groups], left_width)
        right_rows, right_valid = _padded_rows(
            right_offsets[groups], right_lengths[groups], right_width
        )
        equal = left_valid[:, :, None] & right_valid[:, None, :]
        for word in range(n_words):
            equal &= (
                left_words[left_rows, word][:, :, None] == right_words[right_rows, word][:, None, :]
            )
        hit = equal.any(axis=2)
        partner = np.take_along_axis(right_rows, equal.argmax(axis=2), axis=1)
        result[left_rows[hit]] = partner[hit]

    # numpy releases the GIL in these loops, so a second thread uses the second core.
    workers = min(2, os.cpu_count() or 1) if len(blocks) > 1 else 1
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(match, blocks))
    return result


def _padded_rows(
    starts: np.ndarray, lengths: np.ndarray, width: int
) -> tuple[np.ndarray, np.ndarray]:
    """Row indices of each group padded to ``width`` (padding repeats the first row), and which
    are real."""
    columns = np.arange(width)
    valid = columns[None, :] < lengths[:, None]
    return starts[:, None] + np.where(valid, columns[None, :], 0), valid


def _ceil_log2(values: np.ndarray) -> np.ndarray:
    return np.ceil(np.log2(np.maximum(values, 1))).astype(np.int64)


@dataclass(frozen=True, eq=False)
class Ragged:
    """Rows grouped by query: rows ``offsets[i]:offsets[i+1]`` belong to ``keys[i]``.

    Used for runs (``values`` = scores, rows in rank order) and judgments (``values`` = grades).
    """

    keys: tuple[str, ...]
    offsets: np.ndarray  # int64, len(keys) + 1
    doc_ids: np.ndarray  # ``S`` array, UTF-8
    values: np.ndarray
    known_words: np.ndarray | None = None  # id words of doc_ids, when the reader already has them

    @property
    def words(self) -> np.ndarray:
        """Id words of ``doc_ids`` (computed once)."""
        if self.known_words is None:
            object.__setattr__(self, "known_words", id_words(self.doc_ids))
        return self.known_words

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def group_of_rows(self) -> np.ndarray:
        """Index into ``keys`` of every row."""
        return np.repeat(np.arange(len(self.keys)), self.lengths)

    @classmethod
    def from_words(
        cls,
        keys: tuple[str, ...],
        offsets: np.ndarray,
        words: np.ndarray,
        width: int,
        values: np.ndarray,
    ) -> Ragged:
        """A table whose doc ids are given as id words of ids at most ``width`` bytes long."""
        return cls(keys, offsets, words_to_ids(words, width), values, words)

    def select(self, rows: np.ndarray) -> Ragged:
        """The rows ``rows`` (sorted, so every group keeps its order), groups unchanged."""
        lengths = np.bincount(self.group_of_rows()[rows], minlength=len(self.keys))
        offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        words = None if self.known_words is None else self.known_words[rows]
        return Ragged(self.keys, offsets, self.doc_ids[rows], self.values[rows], words)

    def head(self, limit: int) -> Ragged:
        """The first ``limit`` rows of every group."""
        rank = np.arange(self.doc_ids.size) - np.repeat(self.offsets[:-1], self.lengths)
        return (
            self
            if rank.size == 0 or rank.max() < limit
            else self.select(np.flatnonzero(rank < limit))
        )

    def docs_of_all(self) -> list[str]:
        """Every row's doc id, decoded."""
        return decode_ids(self.doc_ids)

    def docs_of(self, index: int) -> list[str]:
        return decode_ids(self.doc_ids[self.offsets[index] : self.offsets[index + 1]])

    def values_of(self, index: int) -> np.ndarray:
        return self.values[self.offsets[index] : self.offsets[index + 1]]


def ragged_from_lists(
    keys: Sequence[str],
    groups: Sequence[Sequence[str]],
    values: Sequence[Sequence[float]],
    dtype: type,
) -> Ragged:
    """Build a :class:`Ragged` from Python lists (small, in-memory inputs)."""
    lengths = np.fromiter((len(group) for group in groups), dtype=np.int64, count=len(groups))
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    flat_ids = [doc for group in groups for doc in group]
    flat_values = np.fromiter(
        (v for group in values for v in group), dtype=dtype, count=len(flat_ids)
    )
    return Ragged(tuple(keys), offsets, encode_ids(flat_ids), flat_values)


@dataclass(frozen=True)
class Grouping:
    """How the rows of a file fall into queries (see :func:`group_rows`)."""

    keys: list[bytes]  # distinct query ids, in order of first appearance
    order: (
        np.ndarray | None
    )  # permutation making each query's rows contiguous; None if they already are
    offsets: np.ndarray  # group boundaries in the (permuted) rows


def group_rows(query_words: np.ndarray, width: int) -> Grouping:
    """Group rows by query id (given as id words), keeping the order of first appearance and,
    within a query, file order."""
    n_rows = query_words.shape[0]
    changed = query_words[1:, 0] != query_words[:-1, 0]
    for column in range(1, query_words.shape[1]):
        changed |= query_words[1:, column] != query_words[:-1, column]
    boundaries = np.flatnonzero(changed) + 1
    block_starts = np.concatenate(([0], boundaries))
    block_keys = words_to_ids(query_words[block_starts], width).tolist()
    index_of: dict[bytes, int] = {}
    block_group = np.fromiter(
        (index_of.setdefault(key, len(index_of)) for key in block_keys),
        dtype=np.int64,
        count=len(block_keys),
    )
    block_ends = np.concatenate((boundaries, [n_rows]))
    if len(index_of) == len(block_keys):  # every query's lines are contiguous: no reordering
        return Grouping(block_keys, None, np.concatenate((block_starts, [n_rows])).astype(np.int64))
    row_group = np.repeat(block_group, block_ends - block_starts)
    order = np.argsort(row_group, kind="stable")
    counts = np.bincount(row_group, minlength=len(index_of))
    return Grouping(
        list(index_of), order, np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    )


def duplicate_pairs(
    groups: np.ndarray, words: np.ndarray, chunk_rows: int = 1 << 20
) -> list[tuple[int, int]]:
    """(first row, repeated row) for every id repeated within a group (rows contiguous per group).

    Exact, and cheap when there are none: sorting 64-bit hashes (numpy's SIMD sort, no permutation)
    finds candidates, and only rows whose hash repeats are compared. Works on chunks of whole groups
    so its temporaries stay small.
    """
    pairs: list[tuple[int, int]] = []
    start = 0
    while start < groups.size:
        end = min(start + chunk_rows, groups.size)
        if end < groups.size:  # extend to the end of the group the chunk stops in
            end = int(np.searchsorted(groups, groups[end - 1], side="right"))
        pairs += _duplicates_in(groups[start:end], words[start:end], start)
        start = end
    return pairs


def _duplicates_in(groups: np.ndarray, words: np.ndarray, offset: int) -> list[tuple[int, int]]:
    if groups.size < 2:
        return []
    hashes = hash_words(words, salt=groups)
    ordered = np.sort(hashes)
    repeated = ordered[1:][ordered[1:] == ordered[:-1]]
    if repeated.size == 0:
        return []
    seen: dict[tuple[int, bytes], int] = {}
    pairs = []
    for row in np.flatnonzero(np.isin(hashes, repeated)).tolist():
        key = (int(groups[row]), words[row].tobytes())
        if key in seen:
            pairs.append((offset + seen[key], offset + row))
        else:
            seen[key] = row
    return pairs


# -- trec_eval's ranking order ---------------------------------------------------------------------


def trec_eval_order(
    groups: np.ndarray, scores: np.ndarray, words: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Rows (contiguous per query) in trec_eval's order: score descending, ties by doc id
    descending.

    Runs are usually written sorted by score, with ties in whatever order the system produced. So
    this checks first; then, if only ties are out of order, sorts each run of tied rows by doc id
    (their only difference); only an unsorted file takes a full sort.
    """
    if groups.size < 2:
        return words, scores
    same_query = groups[1:] == groups[:-1]
    if np.any(same_query & (scores[1:] > scores[:-1])):
        # Keys, least significant first: doc id descending (~words ascending), score descending,
        # query.
        keys = [~words[:, column] for column in reversed(range(words.shape[1]))]
        order = np.lexsort((*keys, -scores, groups))
        return words[order], scores[order]
    tied = same_query & (scores[1:] == scores[:-1])
    if not np.any(tied & ~_rows_greater(words[:-1], words[1:])):
        return words, scores
    return _sort_tied_runs(tied, words), scores


def _sort_tied_runs(tied: np.ndarray, words: np.ndarray) -> np.ndarray:
    """Each maximal run of tied rows sorted by doc id, descending, in place. ``tied[i]``: rows i and
    i+1 tie.

    Tied rows differ only in their id, so one-word ids are sorted as plain values: runs of the same
    length form a matrix sorted row-wise (pairs, the commonest, by one compare-and-swap). Longer ids
    take a stable row-wise argsort per word, from the last word to the first, on padded blocks.
    """
    padded = np.zeros(tied.size + 2, dtype=np.int8)
    padded[1:-1] = tied
    edges = np.diff(padded)  # +1 where a run of ties starts, -1 where it ends
    run_starts = np.flatnonzero(edges == 1)
    run_lengths = np.flatnonzero(edges == -1) + 1 - run_starts
    if words.shape[1] == 1:
        column = words[:, 0]
        for length in np.flatnonzero(np.bincount(run_lengths)).tolist():
            starts = run_starts[run_lengths == length]
            if length == 2:
                first, second = column[starts], column[starts + 1]
                column[starts], column[starts + 1] = (
                    np.maximum(first, second),
                    np.minimum(first, second),
                )
            else:
                rows = starts[:, None] + np.arange(length)
                column[rows] = np.sort(column[rows], axis=1)[:, ::-1]
        return words
    size_class = np.ceil(np.log2(run_lengths)).astype(np.int64)
    for bucket in np.flatnonzero(
        np.bincount(size_class)
    ).tolist():  # (np.unique would import numpy.ma)
        members = size_class == bucket
        starts, lengths = run_starts[members], run_lengths[members]
        columns = np.arange(int(lengths.max()))[None, :]
        valid = columns < lengths[:, None]
        order = starts[:, None] + np.where(valid, columns, 0)
        for word in reversed(range(words.shape[1])):
            keys = np.where(valid, ~words[order, word], np.uint64(np.iinfo(np.uint64).max))
            step = np.argsort(keys, axis=1, kind="stable")
            order, valid = (
                np.take_along_axis(order, step, axis=1),
                np.take_along_axis(valid, step, axis=1),
            )
        words[(starts[:, None] + columns)[columns < lengths[:, None]]] = words[order[valid]]
    return words


def _rows_greater(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Lexicographic ``left > right`` for rows of words."""
    greater = np.zeros(left.shape[0], dtype=bool)
    undecided = np.ones(left.shape[0], dtype=bool)
    for column in range(left.shape[1]):
        greater |= undecided & (left[:, column] > right[:, column])
        undecided &= left[:, column] == right[:, column]
    return greater
