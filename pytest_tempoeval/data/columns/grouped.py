"""Rows in groups (a query's ranked documents, its judgments): per-group work without per-row loops.

A grouped column is described by ``offsets``: group ``g`` is rows ``offsets[g]:offsets[g + 1]``, so
no per-row group column is built unless a step needs one. Here: flags and counts per group, sorting
within every group at once, cutting the groups into chunks for two threads, and grouping a file's
rows by query id (:func:`group_rows`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple, TypeVar

import numpy as np

from pytest_tempoeval.data.columns.ids import words_to_ids

if TYPE_CHECKING:
    import numpy.typing as npt

WORKERS = 2  # threads for independent chunks: numpy releases the GIL in its sorts and loops
# Values of the [groups, width] matrices sort_within_groups sorts at once (8 MiB of uint64).
_SORT_CELLS = 1 << 20
_PADDING = np.uint64(np.iinfo(np.uint64).max)  # pads a matrix row: sorts after every value

_T = TypeVar("_T")
Chunk = tuple[int, int]  # groups first:stop


# -- per-group flags and counts --------------------------------------------------------------------


def same_group_as_next(offsets: npt.NDArray[np.integer]) -> npt.NDArray[np.bool_]:
    """[rows - 1] whether row ``i`` and row ``i + 1`` are in the same group."""
    n_rows = int(offsets[-1])
    starts = offsets[1:-1]  # of every group but the first (an empty group starts nothing)
    same = np.ones(max(n_rows - 1, 0), dtype=bool)
    same[starts[(starts > 0) & (starts < n_rows)] - 1] = False
    return same


def count_per_group(
    flags: npt.NDArray[np.bool_], offsets: npt.NDArray[np.integer]
) -> npt.NDArray[np.int64]:
    """[groups] how many of each group's rows are flagged."""
    counts = np.zeros(offsets.size - 1, dtype=np.int64)
    filled = np.flatnonzero(np.diff(offsets) > 0)
    if filled.size:  # reduceat reads an empty group's next row: only non-empty groups are summed
        counts[filled] = np.add.reduceat(flags, offsets[filled], dtype=np.int64)
    return counts


# -- chunks of whole groups, on two threads --------------------------------------------------------


def chunks_of_groups(rows_per_group: npt.NDArray[np.integer], chunk_rows: int) -> list[Chunk]:
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


def map_chunks(function: Callable[[Chunk], _T], chunks: list[Chunk]) -> list[_T]:
    """``function`` over each chunk, on up to :data:`WORKERS` threads; a single chunk runs here,
    without starting a thread (small inputs: starting one costs more than the work)."""
    if len(chunks) <= 1:
        return [function(chunk) for chunk in chunks]
    # Imported here: concurrent.futures loads logging and threading's queue (~1.5 ms), which a
    # small input that never starts a thread should not pay for.
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(WORKERS, os.cpu_count() or 1)) as pool:
        return list(pool.map(function, chunks))


# -- sorting within every group --------------------------------------------------------------------


def sort_within_groups(values: npt.NDArray[np.uint64], offsets: npt.NDArray[np.integer]) -> None:
    """Sort ``values[offsets[g]:offsets[g + 1]]`` of every group ``g``, in place (uint64).

    Groups of similar length are sorted as the rows of one matrix padded with the largest value:
    numpy sorts short rows in cache with vector sorting networks, many times faster per value than
    one long sort of the same values.
    """
    lengths = np.diff(offsets)
    width_class = np.zeros(lengths.size, dtype=np.int64)  # log2 of the padded row width
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
    values: npt.NDArray[np.uint64],
    offsets: npt.NDArray[np.integer],
    lengths: npt.NDArray[np.integer],
    groups: npt.NDArray[np.intp],
    width: int,
) -> None:
    sizes = lengths[groups]
    start, size = int(offsets[groups[0]]), int(sizes[0])
    if np.all(sizes == size) and int(offsets[groups[-1]]) - start == (groups.size - 1) * size:
        values[start : start + groups.size * size].reshape(groups.size, size).sort(axis=1)
        return  # consecutive groups of one size: their values already form the matrix
    columns = np.arange(width)
    present = columns[None, :] < sizes[:, None]
    at = (offsets[groups][:, None] + columns[None, :])[present]
    matrix = np.full((groups.size, width), _PADDING, dtype=np.uint64)
    matrix[present] = values[at]
    matrix.sort(axis=1)
    values[at] = matrix[present]  # the padding sorts last: each row's first values are its own


# -- a file's rows grouped by query ----------------------------------------------------------------


# A NamedTuple, not a dataclass: defining a dataclass compiles its methods from source, about
# 0.4 ms at every start of the command (they are records; nothing compares them).
class Grouping(NamedTuple):
    """How the rows of a file fall into queries (see :func:`group_rows`)."""

    keys: list[bytes]  # distinct query ids, in order of first appearance
    # the permutation making each query's rows contiguous; None if they already are
    order: npt.NDArray[np.intp] | None
    offsets: npt.NDArray[np.int64]  # group boundaries in the (permuted) rows


def group_rows(query_words: npt.NDArray[np.uint64], width: int) -> Grouping:
    """Group rows by query id (given as id words), keeping the order of first appearance and,
    within a query, file order."""
    n_rows = query_words.shape[0]
    changed = query_words[1:, 0] != query_words[:-1, 0]
    for column in range(1, query_words.shape[1]):
        changed |= query_words[1:, column] != query_words[:-1, column]
    boundaries = np.flatnonzero(changed) + 1
    block_starts = np.concatenate(([0], boundaries))
    block_keys = words_to_ids(query_words[block_starts], width).tolist()
    if len(dict.fromkeys(block_keys)) == len(block_keys):  # each query's lines are contiguous
        return Grouping(block_keys, None, np.concatenate((block_starts, [n_rows])).astype(np.int64))
    index_of: dict[bytes, int] = {}
    block_group = np.fromiter(
        (index_of.setdefault(key, len(index_of)) for key in block_keys),
        dtype=np.int64,
        count=len(block_keys),
    )
    block_ends = np.concatenate((boundaries, [n_rows]))
    row_group = np.repeat(block_group, block_ends - block_starts)
    order = np.argsort(row_group, kind="stable")
    counts = np.bincount(row_group, minlength=len(index_of))
    return Grouping(
        list(index_of), order, np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    )


# -- reference: the same results in plain Python, for the tests to compare with --------------------


def sort_within_groups_reference(groups: list[list[int]]) -> list[int]:
    """:func:`sort_within_groups`' values, the groups given as lists."""
    return [value for group in groups for value in sorted(group)]


def group_rows_reference(query_ids: list[bytes]) -> tuple[list[bytes], list[int], list[int]]:
    """:func:`group_rows` with a dict: the keys, the rows in grouped order, the offsets."""
    rows_of: dict[bytes, list[int]] = {}
    for row, query in enumerate(query_ids):
        rows_of.setdefault(query, []).append(row)
    offsets = [0]
    for rows in rows_of.values():
        offsets.append(offsets[-1] + len(rows))
    return list(rows_of), [row for rows in rows_of.values() for row in rows], offsets
