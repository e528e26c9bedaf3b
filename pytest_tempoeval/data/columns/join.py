"""Exact joins within groups: a ranking's documents against the same query's judgments
(:func:`join_within_groups`), and a group against itself (:func:`duplicate_pairs`).

Both are sort-merge joins on hash keys (:class:`~pytest_tempoeval.data.columns.keys.KeyLayout`)
sorted within each group (:func:`~pytest_tempoeval.data.columns.grouped.sort_within_groups`, no
argsort), whose cost does not depend on the groups' sizes. Equal keys only make candidates: each is
verified on its full id words, so hash collisions cost a comparison and never a wrong match. Work
is done a chunk of whole groups at a time, so temporaries stay small, on two threads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pytest_tempoeval.data.columns.grouped import (
    Chunk,
    chunks_of_groups,
    map_chunks,
    same_group_as_next,
    sort_within_groups,
)
from pytest_tempoeval.data.columns.ids import widen
from pytest_tempoeval.data.columns.keys import KeyLayout, bits_for, hash_words

if TYPE_CHECKING:
    import numpy.typing as npt

CHUNK_ROWS = 1 << 20  # rows (both sides) per chunk of whole groups
NO_MATCH = -1
RIGHT, LEFT = 0, 1  # the side bit of a key: right rows sort before left rows of the same hash


def join_within_groups(
    left_counts: npt.NDArray[np.integer],
    left_words: npt.NDArray[np.uint64],
    right_offsets: npt.NDArray[np.integer],
    right_words: npt.NDArray[np.uint64],
    right_hashes: npt.NDArray[np.uint64],
    chunk_rows: int = CHUNK_ROWS,
    left_rows: npt.NDArray[np.integer] | None = None,
) -> npt.NDArray[np.int64]:
    """For every left row, the right row of the same group with the same id (``NO_MATCH``: none).

    Left rows are grouped, groups in order: ``left_counts[g]`` rows of group ``g``. Right group
    ``g`` is ``right[right_offsets[g]:right_offsets[g + 1]]``, with distinct ids; ``right_hashes``
    is ``hash_words(right_words, salt=right group)``, computed once by the caller (left ids are
    hashed at the right side's width, so equal ids hash alike).

    With ``left_rows``, left row ``i``'s id is ``left_words[left_rows[i]]``: gathered one chunk at
    a time, so a deep ranking's ids are never copied whole.
    """
    left_offsets = np.concatenate(([0], np.cumsum(left_counts)))
    result = np.full(int(left_offsets[-1]), NO_MATCH, dtype=np.int64)
    if result.size == 0 or right_offsets[-1] == 0:
        return result
    right_counts = np.diff(right_offsets)
    chunks = chunks_of_groups(left_counts + right_counts, chunk_rows)
    # a key's row is its index among its side's rows in the chunk
    layout = KeyLayout(
        bits_for(max(int(left_counts.max()), int(right_counts.max()), chunk_rows)), has_side=True
    )
    n_words = max(left_words.shape[1], right_words.shape[1])
    right_width = right_words.shape[1]

    def join(chunk: Chunk) -> None:  # chunks write disjoint rows of result
        first, stop = chunk
        left_start, left_stop = int(left_offsets[first]), int(left_offsets[stop])
        right_start, right_stop = int(right_offsets[first]), int(right_offsets[stop])
        if left_start == left_stop or right_start == right_stop:
            return
        groups = np.repeat(np.arange(first, stop), left_counts[first:stop])
        if left_rows is None:
            words = left_words[left_start:left_stop]
        else:
            words = left_words[left_rows[left_start:left_stop]]
        # hashed on the right side's words: a longer left id only matches if the rest is padding,
        # which the verification below checks
        hashed = widen(words[:, :right_width], right_width)
        pairs = _hash_matches(
            layout,
            hash_words(hashed, groups),
            right_hashes[right_start:right_stop],
            left_offsets[first : stop + 1] - left_start,
            right_offsets[first : stop + 1] - right_start,
        )
        if pairs is None:
            return
        left, right = pairs
        same_group = right + right_start >= right_offsets[groups[left]]
        same_group &= right + right_start < right_offsets[groups[left] + 1]
        same_id = np.all(
            widen(words[left], n_words) == widen(right_words[right + right_start], n_words), axis=1
        )
        matched = same_group & same_id
        result[left_start + left[matched]] = right[matched] + right_start

    map_chunks(join, chunks)
    return result


def _hash_matches(
    layout: KeyLayout,
    left_hashes: npt.NDArray[np.uint64],
    right_hashes: npt.NDArray[np.uint64],
    left_offsets: npt.NDArray[np.integer],
    right_offsets: npt.NDArray[np.integer],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None:
    """Candidate (left row, right row) pairs of a group whose hashes agree on their top bits.

    Every pair of rows of a group with equal hashes is among the candidates; some are collisions,
    for the caller to verify. The usual run of equal keys is one right row then one left row;
    longer runs (a collision with a third row) are rare and paired exhaustively.
    """
    offsets = right_offsets + left_offsets  # each group's right keys, then its left keys
    keys = np.empty(left_hashes.size + right_hashes.size, dtype=np.uint64)
    keys[_positions(right_offsets, offsets, 0)] = layout.pack(right_hashes, RIGHT)
    keys[_positions(left_offsets, offsets, np.diff(right_offsets))] = layout.pack(left_hashes, LEFT)
    sort_within_groups(keys, offsets)
    hashes = layout.hashes(keys)
    same_hash = hashes[1:] == hashes[:-1]  # key i and key i + 1
    if not same_hash.any():
        return None
    is_left = layout.sides(keys)
    rows = layout.rows(keys)
    right_then_left = same_hash & ~is_left[:-1] & is_left[1:]
    in_long_run = np.zeros(keys.size, dtype=bool)
    three_alike = same_hash[1:] & same_hash[:-1]  # keys i, i + 1 and i + 2
    if three_alike.any():
        in_long_run[1:-1] = three_alike
        in_long_run[:-2] |= three_alike
        in_long_run[2:] |= three_alike
        # a run of three or more may pair across its members: pair them all below
        right_then_left &= ~in_long_run[:-1]
    firsts = np.flatnonzero(right_then_left)
    left, right = rows[firsts + 1], rows[firsts]
    if in_long_run.any():
        extra_left, extra_right = [], []
        members = np.flatnonzero(in_long_run)
        for run in np.split(members, np.flatnonzero(np.diff(hashes[members]) != 0) + 1):
            lefts = rows[run[is_left[run]]]
            rights = rows[run[~is_left[run]]]
            extra_left.append(np.repeat(lefts, rights.size))
            extra_right.append(np.tile(rights, lefts.size))
        left = np.concatenate([left, *extra_left])
        right = np.concatenate([right, *extra_right])
    return left, right


def _positions(
    side_offsets: npt.NDArray[np.integer],
    offsets: npt.NDArray[np.integer],
    skip: npt.NDArray[np.integer] | int,
) -> npt.NDArray[np.int64]:
    """Where each row of one side goes when groups are laid out whole (group ``g`` at
    ``offsets[g]``, this side's rows ``skip`` places into it)."""
    lengths = np.diff(side_offsets)
    shift = offsets[:-1] + skip - side_offsets[:-1]
    positions: npt.NDArray[np.int64] = np.arange(int(side_offsets[-1]), dtype=np.int64)
    positions += np.repeat(shift, lengths)
    return positions


def duplicate_pairs(
    offsets: npt.NDArray[np.integer], words: npt.NDArray[np.uint64], chunk_rows: int = CHUNK_ROWS
) -> list[tuple[int, int]]:
    """(first row, repeated row) for every id repeated within a group (group ``g`` is rows
    ``offsets[g]:offsets[g + 1]``).

    Exact, and cheap when there are none: each group's ids (their one word, else a 64-bit hash) are
    sorted within the group, and only rows whose key repeats are compared on their full ids.
    """
    lengths = np.diff(offsets)

    def find(chunk: Chunk) -> list[tuple[int, int]]:
        first, stop = chunk
        start, end = int(offsets[first]), int(offsets[stop])
        chunk_words = words[start:end]
        keys = chunk_words[:, 0] if words.shape[1] == 1 else hash_words(chunk_words)
        group_offsets = offsets[first : stop + 1] - start
        ordered = keys.copy()
        sort_within_groups(ordered, group_offsets)
        repeated = (ordered[1:] == ordered[:-1]) & same_group_as_next(group_offsets)
        if not repeated.any():
            return []
        seen: dict[tuple[int, bytes], int] = {}
        pairs = []
        for row in np.flatnonzero(np.isin(keys, ordered[1:][repeated])).tolist():
            group = int(np.searchsorted(group_offsets, row, side="right"))
            key = (group, chunk_words[row].tobytes())
            if key in seen:
                pairs.append((start + seen[key], start + row))
            else:
                seen[key] = row
        return pairs

    found = map_chunks(find, chunks_of_groups(lengths, chunk_rows))
    return [pair for pairs in found for pair in pairs]


# -- reference: the same results in plain Python, for the tests to compare with --------------------


def join_within_groups_reference(
    left_groups: list[list[bytes]], right_groups: list[list[bytes]]
) -> list[int]:
    """:func:`join_within_groups` with a dict per group (rows numbered across all groups)."""
    found, right_start = [], 0
    for left, right in zip(left_groups, right_groups, strict=True):
        row_of = {value: right_start + row for row, value in enumerate(right)}
        found += [row_of.get(value, NO_MATCH) for value in left]
        right_start += len(right)
    return found


def duplicate_pairs_reference(groups: list[list[bytes]]) -> list[tuple[int, int]]:
    """:func:`duplicate_pairs` with a dict per group (rows numbered across all groups)."""
    pairs, start = [], 0
    for group in groups:
        first: dict[bytes, int] = {}
        for row, value in enumerate(group, start=start):
            if value in first:
                pairs.append((first[value], row))
            else:
                first[value] = row
        start += len(group)
    return pairs
