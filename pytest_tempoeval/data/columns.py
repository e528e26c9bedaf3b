"""Columnar storage shared by runs and gold sets, and the exact joins and lookups over it.

Ids are UTF-8 bytes in numpy ``S`` arrays. For comparisons they are also viewed as rows of
big-endian uint64 words ("id words"): comparing word rows lexicographically is comparing the byte
strings with ``strcmp`` (the order trec_eval breaks score ties in), and integers compare far faster
than strings.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

_GOLDEN = np.uint64(
    0x9E3779B97F4A7C15
)  # 2**64 / golden ratio: the usual multiplicative-hash constant


def encode_ids(ids: Iterable[str]) -> np.ndarray:
    """UTF-8 ``S`` array of string ids."""
    ids = ids if isinstance(ids, (list, tuple)) else list(ids)
    if not ids:
        return np.array([], dtype="S1")
    # Short ids (TREC, BEIR, MS MARCO) are encoded as one newline-joined string and cut into rows
    # with array ops, twice as fast as encoding them one by one. Longer ones are encoded one by
    # one: cutting costs per byte of the longest id, Python's encoding per id.
    sample = ids[:64]  # a guess, to skip joining long ids for nothing; the cut checks them all
    if sum(map(len, sample)) <= _SHORT_ID_BYTES * len(sample):
        data = np.frombuffer(("\n".join(ids) + "\n").encode("utf-8"), dtype=np.uint8)
        ends = np.flatnonzero(data == ord("\n"))
        starts = np.concatenate(([0], ends[:-1] + 1))
        width = max(1, int((ends - starts).max()))
        if ends.size == len(ids) and width <= _SHORT_ID_BYTES:  # (and no id holds a newline)
            return _cut_rows(data, starts, ends, width)
    encoded = [value.encode("utf-8") for value in ids]
    return np.array(encoded, dtype=f"S{max(1, *map(len, encoded))}")


_SHORT_ID_BYTES = 16
_CUT_CELLS = 1 << 20  # bytes cut per block: bounds the positions array to 8 MiB


def _cut_rows(data: np.ndarray, starts: np.ndarray, ends: np.ndarray, width: int) -> np.ndarray:
    """The ``S{width}`` array of the ids at ``data[start:end]``, zero-padded like any S array."""
    rows = np.empty((starts.size, width), dtype=np.uint8)
    step = max(1, _CUT_CELLS // width)
    for first in range(0, starts.size, step):
        at = starts[first : first + step, None] + np.arange(width)
        block = data[np.minimum(at, data.size - 1)]
        block[at >= ends[first : first + step, None]] = 0
        rows[first : first + step] = block
    return rows.view(f"S{width}").ravel()


def decode_ids(ids: np.ndarray) -> list[str]:
    return [value.decode("utf-8") for value in ids.tolist()]


def words_for(width: int) -> int:
    """uint64 words per row for ids of ``width`` bytes (at least one)."""
    return max(1, -(-width // 8))


def id_words(ids: np.ndarray, n_words: int | None = None) -> np.ndarray:
    """``(n, n_words)`` uint64 rows whose lexicographic order is the byte order of ``ids``."""
    width = ids.dtype.itemsize
    n_words = n_words or words_for(width)
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
    state = np.empty(words.shape[0], dtype=np.uint64)
    # In place, a block of rows at a time: fresh full-size temporaries would cost more in page
    # faults than the arithmetic, and small ones stay in cache.
    shifted = np.empty(min(words.shape[0], _HASH_BLOCK_ROWS), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for start in range(0, words.shape[0], _HASH_BLOCK_ROWS):
            block = state[start : start + _HASH_BLOCK_ROWS]
            if salt is None:
                block[:] = 0
            else:
                np.add(salt[start : start + block.size], 1, out=block, casting="unsafe")
                block *= _GOLDEN
            spare = shifted[: block.size]
            for column in range(words.shape[1]):
                block ^= words[start : start + block.size, column]
                block *= _GOLDEN
                np.right_shift(block, np.uint64(31), out=spare)
                block ^= spare
    return state


_HASH_BLOCK_ROWS = 1 << 16


class IdLookup:
    """Exact lookup of ids among distinct stored ids, with sorts and one merge-like search.

    Each side's ids become one uint64 each: the top bits of the id's hash, then its row. Sorting
    those (a plain sort, no argsort) orders both sides by hash, and searching the sorted asked keys
    in the sorted stored ones walks memory nearly sequentially: several times faster than a hash
    table's random probes or a binary search per unsorted id. Every candidate is verified on its
    full id words, and a run of equal hash bits (a collision) is walked until one matches, so a
    collision costs a comparison, never a wrong row.
    """

    def __init__(self, words: np.ndarray) -> None:
        self.words = words  # [stored ids, words], distinct ids
        self.row_bits = _row_bits(words.shape[0])
        keys = _hash_row_keys(hash_words(words), self.row_bits)
        keys.sort()
        self.top = keys >> np.uint64(self.row_bits)  # sorted hash bits
        self.rows = (keys & np.uint64((1 << self.row_bits) - 1)).astype(np.int64)

    def find(self, words: np.ndarray) -> np.ndarray:
        """Row of every asked id among the stored ones (-1 when absent)."""
        result = np.full(words.shape[0], -1, dtype=np.int64)
        n_stored, n_words = self.words.shape
        if n_stored == 0 or words.shape[0] == 0:
            return result
        if words.shape[1] > n_words:
            # Longer ids than any stored one can only match if their extra words are padding.
            fits = np.flatnonzero(~np.any(words[:, n_words:], axis=1))
            result[fits] = self.find(words[fits, :n_words])
            return result
        words = widen(words, n_words)
        row_bits = _row_bits(words.shape[0])
        asked = _hash_row_keys(hash_words(words), row_bits)
        asked.sort()
        shift = max(row_bits, self.row_bits)  # both sides compare the hash bits above this
        asked_top = asked >> np.uint64(shift)
        asked_rows = (asked & np.uint64((1 << row_bits) - 1)).astype(np.int64)
        stored_top = self.top >> np.uint64(shift - self.row_bits)
        at = np.searchsorted(stored_top, asked_top)
        pending = np.arange(asked.size)  # into the asked keys
        while pending.size:
            at = np.minimum(at, n_stored - 1)  # past the end: the last one, whose hash differs
            same_hash = stored_top[at] == asked_top[pending]
            stored, rows = self.rows[at], asked_rows[pending]
            hit = same_hash.copy()
            for column in range(n_words):  # column by column: no [rows, words] temporary
                hit &= self.words[stored, column] == words[rows, column]
            result[rows[hit]] = stored[hit]
            # a collision: go on to the next stored id, if it has the same hash bits
            walk = np.flatnonzero(same_hash & ~hit & (at + 1 < n_stored))
            pending, at = pending[walk], at[walk] + 1
        return result


def _row_bits(n_rows: int) -> int:
    return max(1, (n_rows - 1).bit_length())


def _hash_row_keys(hashes: np.ndarray, row_bits: int) -> np.ndarray:
    """uint64 keys: each row's hash with its low ``row_bits`` bits replaced by the row, so a plain
    sort of the keys orders the rows by hash and still says which row each key is."""
    shift = np.uint64(row_bits)
    keys = np.left_shift(hashes >> shift, shift)
    keys |= np.arange(hashes.size, dtype=np.uint64)
    return keys


def join_within_groups(
    left_counts: np.ndarray,
    left_words: np.ndarray,
    right_offsets: np.ndarray,
    right_words: np.ndarray,
    right_hashes: np.ndarray,
    chunk_rows: int = 1 << 20,
    left_rows: np.ndarray | None = None,
) -> np.ndarray:
    """For every left row, the right row of the same group with the same id (-1 when none).

    With ``left_rows``, left row ``i``'s id is ``left_words[left_rows[i]]``: gathered one chunk at
    a time, so a deep ranking's ids are never copied whole.

    Left rows are grouped, groups in order: ``left_counts[g]`` rows of group ``g`` (a per-row group
    column is built only a chunk at a time). Right group ``g`` is
    ``right[right_offsets[g]:right_offsets[g + 1]]``, with distinct ids; ``right_hashes`` is
    ``hash_words(right_words, salt=right group)``, computed once by the caller (left ids are hashed
    at the right side's width, so equal ids hash alike).

    A sort-merge join whose cost does not depend on the groups' sizes: per chunk of whole groups,
    each row becomes one uint64 (the top bits of its hash, a side bit, its row in the chunk), a
    plain sort within each group (:func:`sort_within_groups`, no argsort) brings equal hashes
    together, and each candidate pair is verified on its full id words, so hash collisions cost a
    comparison and never a wrong match.
    """
    left_starts = np.concatenate(([0], np.cumsum(left_counts)))
    result = np.full(int(left_starts[-1]), -1, dtype=np.int64)
    if result.size == 0 or right_offsets[-1] == 0:
        return result
    per_group = left_counts + np.diff(right_offsets)
    chunks = _chunks_of_groups(per_group, chunk_rows)
    index_bits = max(1, int(max(left_counts.max(), np.diff(right_offsets).max()) - 1).bit_length())
    index_bits = max(index_bits, int(chunk_rows - 1).bit_length())
    n_words = max(left_words.shape[1], right_words.shape[1])
    right_width = right_words.shape[1]

    def join(chunk: tuple[int, int]) -> None:  # chunks write disjoint rows of result
        first, stop = chunk
        l0, l1 = int(left_starts[first]), int(left_starts[stop])
        r0, r1 = int(right_offsets[first]), int(right_offsets[stop])
        if l0 == l1 or r0 == r1:
            return
        groups = np.repeat(np.arange(first, stop), left_counts[first:stop])
        words = left_words[l0:l1] if left_rows is None else left_words[left_rows[l0:l1]]
        # hashed on the right side's words: a longer left id only matches if the rest is padding,
        # which the verification below checks
        hashed = widen(words[:, :right_width], right_width)
        sides = (right_offsets[first : stop + 1] - r0, left_starts[first : stop + 1] - l0)
        pairs = _hash_matches(hash_words(hashed, groups), right_hashes[r0:r1], index_bits, sides)
        if pairs is None:
            return
        left, right = pairs
        same_group = right + r0 >= right_offsets[groups[left]]
        same_group &= right + r0 < right_offsets[groups[left] + 1]
        same_id = np.all(
            widen(words[left], n_words) == widen(right_words[right + r0], n_words), axis=1
        )
        hit = same_group & same_id
        result[l0 + left[hit]] = right[hit] + r0

    _map_chunks(join, chunks)
    return result


def same_group_as_next(offsets: np.ndarray) -> np.ndarray:
    """[rows - 1] whether row ``i`` and row ``i + 1`` are in the same group (group ``g`` is rows
    ``offsets[g]:offsets[g + 1]``; no per-row group column is built)."""
    n_rows = int(offsets[-1])
    starts = offsets[1:-1]  # of every group but the first (an empty group starts nothing)
    same = np.ones(max(n_rows - 1, 0), dtype=bool)
    same[starts[(starts > 0) & (starts < n_rows)] - 1] = False
    return same


def count_per_group(flags: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """[groups] how many of each group's rows are flagged (no per-row group column is built)."""
    counts = np.zeros(offsets.size - 1, dtype=np.int64)
    filled = np.flatnonzero(np.diff(offsets) > 0)
    if filled.size:  # reduceat reads an empty group's next row: only non-empty groups are summed
        counts[filled] = np.add.reduceat(flags, offsets[filled], dtype=np.int64)
    return counts


_T = TypeVar("_T")


def _map_chunks(
    function: Callable[[tuple[int, int]], _T], chunks: list[tuple[int, int]]
) -> list[_T]:
    """``function`` over each chunk of whole groups, on up to two threads (numpy releases the GIL
    in its sorts and loops, so the second core helps); a single chunk runs here, without starting
    a thread (small inputs: starting one costs more than the work)."""
    if len(chunks) <= 1:
        return [function(chunk) for chunk in chunks]
    with ThreadPoolExecutor(max_workers=min(2, os.cpu_count() or 1)) as pool:
        return list(pool.map(function, chunks))


def _chunks_of_groups(rows_per_group: np.ndarray, chunk_rows: int) -> list[tuple[int, int]]:
    """Ranges of whole groups holding about ``chunk_rows`` rows each (a bigger group alone)."""
    total = np.cumsum(rows_per_group)
    chunks, first = [], 0
    while first < rows_per_group.size:
        before = int(total[first - 1]) if first else 0
        stop = int(np.searchsorted(total, before + chunk_rows, side="right"))
        stop = max(stop, first + 1)
        chunks.append((first, stop))
        first = stop
    return chunks


def _hash_matches(
    left_hashes: np.ndarray,
    right_hashes: np.ndarray,
    index_bits: int,
    sides: tuple[np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray] | None:
    """Candidate (left row, right row) pairs whose hashes agree on their top bits.

    ``sides`` are the offsets of each group's rows on the right and on the left. Every pair of rows
    of a group with equal hashes is among the candidates; some are collisions, for the caller to
    verify. The usual run of equal keys is one right row then one left row; longer runs (a
    collision with a third row) are rare and paired exhaustively.
    """
    shift = np.uint64(index_bits + 1)
    side_bit = np.uint64(1 << index_bits)
    mask = np.uint64((1 << index_bits) - 1)
    right_offsets, left_offsets = sides
    # each group's right keys, then its left keys
    offsets = right_offsets + left_offsets
    keys = np.empty(left_hashes.size + right_hashes.size, dtype=np.uint64)
    right_at = _positions(right_offsets, offsets, 0)
    left_at = _positions(left_offsets, offsets, np.diff(right_offsets))
    keys[right_at] = _hash_row_keys(right_hashes, index_bits + 1)
    keys[left_at] = _hash_row_keys(left_hashes, index_bits + 1) | side_bit
    sort_within_groups(keys, offsets)
    top = keys >> shift
    equal = top[1:] == top[:-1]
    if not equal.any():
        return None
    is_left = (keys & side_bit) != 0
    index = (keys & mask).astype(np.int64)
    pair = equal & ~is_left[:-1] & is_left[1:]
    long_run = np.zeros(keys.size, dtype=bool)
    three = equal[1:] & equal[:-1]  # keys i, i+1, i+2 share their top bits
    if three.any():
        long_run[1:-1] = three
        long_run[:-2] |= three
        long_run[2:] |= three
        # a run of three or more may pair across its members: pair them all below
        pair &= ~long_run[:-1]
    at = np.flatnonzero(pair)
    left, right = index[at + 1], index[at]
    if long_run.any():
        extra_left, extra_right = [], []
        members = np.flatnonzero(long_run)
        runs = np.split(members, np.flatnonzero(np.diff(top[members]) != 0) + 1)
        for run in runs:
            lefts = index[run[is_left[run]]]
            rights = index[run[~is_left[run]]]
            extra_left.append(np.repeat(lefts, rights.size))
            extra_right.append(np.tile(rights, lefts.size))
        left = np.concatenate([left, *extra_left])
        right = np.concatenate([right, *extra_right])
    return left, right


def _positions(side_offsets: np.ndarray, offsets: np.ndarray, skip: np.ndarray | int) -> np.ndarray:
    """Where each row of one side goes when groups are laid out whole (group ``g`` at
    ``offsets[g]``, this side's rows ``skip`` places into it)."""
    lengths = np.diff(side_offsets)
    shift = offsets[:-1] + skip - side_offsets[:-1]
    return np.arange(int(side_offsets[-1]), dtype=np.int64) + np.repeat(shift, lengths)


# Rows of the [groups, width] matrices sort_within_groups sorts at once (8 MiB of uint64).
_SORT_CELLS = 1 << 20
_LAST = np.uint64(np.iinfo(np.uint64).max)


def sort_within_groups(values: np.ndarray, offsets: np.ndarray) -> None:
    """Sort ``values[offsets[g]:offsets[g + 1]]`` of every group ``g``, in place (uint64).

    Groups of similar length are sorted as the rows of one matrix padded with the largest value:
    numpy sorts short rows in cache with vector sorting networks, many times faster per value than
    one long sort of the same values.
    """
    lengths = np.diff(offsets)
    width_class = np.zeros(lengths.size, dtype=np.int64)
    longer = lengths > 1
    width_class[longer] = np.ceil(np.log2(lengths[longer])).astype(np.int64)
    for bucket in np.flatnonzero(np.bincount(width_class)).tolist():
        if bucket == 0:  # groups of zero or one value
            continue
        groups = np.flatnonzero(width_class == bucket)
        step = max(1, _SORT_CELLS >> bucket)
        for first in range(0, groups.size, step):
            _sort_rows(values, offsets, lengths, groups[first : first + step], 1 << bucket)


def _sort_rows(
    values: np.ndarray, offsets: np.ndarray, lengths: np.ndarray, groups: np.ndarray, width: int
) -> None:
    sizes = lengths[groups]
    start, size = int(offsets[groups[0]]), int(sizes[0])
    if np.all(sizes == size) and int(offsets[groups[-1]]) - start == (groups.size - 1) * size:
        values[start : start + groups.size * size].reshape(groups.size, size).sort(axis=1)
        return  # consecutive groups of one size: their values already form the matrix
    columns = np.arange(width)
    present = columns[None, :] < sizes[:, None]
    at = (offsets[groups][:, None] + columns[None, :])[present]
    matrix = np.full((groups.size, width), _LAST, dtype=np.uint64)
    matrix[present] = values[at]
    matrix.sort(axis=1)
    values[at] = matrix[present]  # the padding sorts last: each row's first values are its own


@dataclass(frozen=True, eq=False)
class Ragged:
    """Rows grouped by query: rows ``offsets[i]:offsets[i+1]`` belong to ``keys[i]``.

    Used for runs (``values`` = scores, rows in rank order) and judgments (``values`` = grades).
    """

    keys: tuple[str, ...]
    offsets: np.ndarray  # int64, len(keys) + 1
    stored_ids: np.ndarray | None  # ``S`` array, UTF-8; None: kept as ``known_words`` only
    values: np.ndarray
    known_words: np.ndarray | None = None  # id words of the doc ids, when the reader has them
    width: int = 0  # longest doc id in bytes, when only ``known_words`` are kept

    @property
    def doc_ids(self) -> np.ndarray:
        """Every row's doc id as an ``S`` array (built once from the words when not stored: a
        reader keeps only the words, half the memory for long ids)."""
        if self.stored_ids is None:
            assert self.known_words is not None
            object.__setattr__(self, "stored_ids", words_to_ids(self.known_words, self.width))
        return self.stored_ids

    @property
    def n_rows(self) -> int:
        return int(self.offsets[-1])

    def ids_of(self, rows: slice | np.ndarray) -> list[str]:
        """The doc ids of some rows, decoded, without building the whole ``S`` array."""
        if self.stored_ids is not None:
            return decode_ids(self.stored_ids[rows])
        assert self.known_words is not None
        return decode_ids(words_to_ids(self.known_words[rows], self.width))

    @property
    def words(self) -> np.ndarray:
        """Id words of the doc ids (computed once)."""
        if self.known_words is None:
            object.__setattr__(self, "known_words", id_words(self.doc_ids))
        return self.known_words

    def words_of(self, rows: np.ndarray) -> np.ndarray:
        """Id words of some rows, without computing every row's (a run built in Python has only
        its ``S`` array until something needs all the words)."""
        if self.known_words is not None:
            return self.known_words[rows]
        assert self.stored_ids is not None
        return id_words(self.stored_ids[rows])

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
        return cls(keys, offsets, None, values, words, width)

    def select(self, rows: np.ndarray) -> Ragged:
        """The rows ``rows`` (sorted, so every group keeps its order), groups unchanged."""
        lengths = np.bincount(self.group_of_rows()[rows], minlength=len(self.keys))
        offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        words = None if self.known_words is None else self.known_words[rows]
        ids = None if self.stored_ids is None else self.stored_ids[rows]
        return Ragged(self.keys, offsets, ids, self.values[rows], words, self.width)

    def head(self, limit: int) -> Ragged:
        """The first ``limit`` rows of every group."""
        rank = np.arange(self.n_rows) - np.repeat(self.offsets[:-1], self.lengths)
        return (
            self
            if rank.size == 0 or rank.max() < limit
            else self.select(np.flatnonzero(rank < limit))
        )

    def docs_of_all(self) -> list[str]:
        """Every row's doc id, decoded."""
        return decode_ids(self.doc_ids)

    def docs_of(self, index: int) -> list[str]:
        return self.ids_of(slice(self.offsets[index], self.offsets[index + 1]))

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
    offsets: np.ndarray, words: np.ndarray, chunk_rows: int = 1 << 20
) -> list[tuple[int, int]]:
    """(first row, repeated row) for every id repeated within a group (group ``g`` is rows
    ``offsets[g]:offsets[g + 1]``).

    Exact, and cheap when there are none: each group's ids (their one word, else a 64-bit hash) are
    sorted within the group (:func:`sort_within_groups`), and only rows whose key repeats are
    compared on their full ids. Works on chunks of whole groups so its temporaries stay small.
    """
    lengths = np.diff(offsets)

    def find(chunk: tuple[int, int]) -> list[tuple[int, int]]:
        first, stop = chunk
        start, end = int(offsets[first]), int(offsets[stop])
        chunk_words = words[start:end]
        keys = chunk_words[:, 0] if words.shape[1] == 1 else hash_words(chunk_words)
        group_offsets = offsets[first : stop + 1] - start
        ordered = keys.copy()
        sort_within_groups(ordered, group_offsets)
        same = (ordered[1:] == ordered[:-1]) & same_group_as_next(group_offsets)
        if not same.any():
            return []
        seen: dict[tuple[int, bytes], int] = {}
        pairs = []
        for row in np.flatnonzero(np.isin(keys, ordered[1:][same])).tolist():
            group = int(np.searchsorted(group_offsets, row, side="right"))
            key = (group, chunk_words[row].tobytes())
            if key in seen:
                pairs.append((start + seen[key], start + row))
            else:
                seen[key] = row
        return pairs

    found = _map_chunks(find, _chunks_of_groups(lengths, chunk_rows))
    return [pair for pairs in found for pair in pairs]


# -- trec_eval's ranking order ---------------------------------------------------------------------


def trec_eval_order(
    offsets: np.ndarray, scores: np.ndarray, words: np.ndarray, min_chunk_rows: int = 1 << 21
) -> tuple[np.ndarray, np.ndarray]:
    """Rows grouped by query (query ``g`` is rows ``offsets[g]:offsets[g + 1]``) in trec_eval's
    order: score descending, ties by doc id descending. ``words`` may be sorted in place.

    Runs are usually written sorted by score, with ties in whatever order the system produced. So
    this checks first; then, if only ties are out of order, sorts each run of tied rows by doc id
    (their only difference); only an unsorted file takes a full sort. Queries are independent: a
    large run is ordered in two halves of whole queries, one per core.
    """
    rows = int(offsets[-1])
    chunks = _chunks_of_groups(np.diff(offsets), max(min_chunk_rows, rows // 2 + 1))
    if len(chunks) == 1:
        return _trec_eval_order_of(offsets, scores, words)

    def order(chunk: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, bool]:
        first, stop = chunk
        start, end = int(offsets[first]), int(offsets[stop])
        part = words[start:end]
        ordered, part_scores = _trec_eval_order_of(
            offsets[first : stop + 1] - start, scores[start:end], part
        )
        return ordered, part_scores, ordered is part

    parts = _map_chunks(order, chunks)
    if all(in_place for _, _, in_place in parts):
        return words, scores  # no chunk needed a full sort: ``words`` is ordered in place
    return (
        np.concatenate([part_words for part_words, _, _ in parts]),
        np.concatenate([part_scores for _, part_scores, _ in parts]),
    )


def _trec_eval_order_of(
    offsets: np.ndarray, scores: np.ndarray, words: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    if scores.size < 2:
        return words, scores
    same_query = same_group_as_next(offsets)
    if np.any(same_query & (scores[1:] > scores[:-1])):
        # Keys, least significant first: doc id descending (~words ascending), score descending,
        # query.
        groups = np.repeat(np.arange(offsets.size - 1), np.diff(offsets))
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
    run_starts, run_lengths = _runs_of_true(tied)
    if words.shape[1] == 1:
        column = words[:, 0]
        # runs grouped by length with one radix sort (small ints), not a mask per length
        short = run_lengths.max() < np.iinfo(np.int16).max
        by_length = np.argsort(
            run_lengths.astype(np.int16) if short else run_lengths, kind="stable"
        )
        counts = np.bincount(run_lengths)
        taken = 0
        for length in np.flatnonzero(counts).tolist():
            starts = run_starts[by_length[taken : taken + counts[length]]]
            taken += int(counts[length])
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


def _runs_of_true(flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and length (in rows: a run of k flags joins k + 1 rows) of each maximal run of True.

    Positions are int32 when they fit: these arrays hold millions of runs, and their fresh pages
    cost more than the arithmetic.
    """
    as_int = flags.view(np.int8)
    edges = np.flatnonzero(as_int[1:] != as_int[:-1]) + 1  # where a run starts or stops
    if flags.size and flags[0]:
        edges = np.concatenate(([0], edges))
    if flags.size and flags[-1]:
        edges = np.concatenate((edges, [flags.size]))
    edges = edges.astype(np.int32 if flags.size < np.iinfo(np.int32).max else np.int64)
    starts = edges[0::2]
    return starts, edges[1::2] + 1 - starts


def _rows_greater(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Lexicographic ``left > right`` for rows of words."""
    greater = np.zeros(left.shape[0], dtype=bool)
    undecided = np.ones(left.shape[0], dtype=bool)
    for column in range(left.shape[1]):
        greater |= undecided & (left[:, column] > right[:, column])
        undecided &= left[:, column] == right[:, column]
    return greater
