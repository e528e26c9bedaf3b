"""trec_eval's ranking order: score descending, ties by doc id descending (:func:`trec_eval_order`).

Runs are usually written sorted by score, with ties in whatever order the system produced. So the
order is checked first; then, if only ties are out of order, each run of tied rows is sorted by doc
id (their only difference); only an unsorted file takes a full sort. Doc ids are compared as id
words (:mod:`~pytest_tempoeval.data.columns.ids`), whose order is ``strcmp``'s, as in trec_eval.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pytest_tempoeval.data.columns.grouped import (
    Chunk,
    chunks_of_groups,
    map_chunks,
    same_group_as_next,
)

if TYPE_CHECKING:
    import numpy.typing as npt

MIN_CHUNK_ROWS = 1 << 21  # a smaller run is ordered on one thread
_LAST = np.uint64(np.iinfo(np.uint64).max)  # pads a row of keys: sorts after every key
_INT16_MAX = np.iinfo(np.int16).max
_INT32_MAX = np.iinfo(np.int32).max


def trec_eval_order(
    offsets: npt.NDArray[np.integer],
    scores: npt.NDArray[np.float64],
    words: npt.NDArray[np.uint64],
    min_chunk_rows: int = MIN_CHUNK_ROWS,
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.float64]]:
    """Rows grouped by query (query ``g`` is rows ``offsets[g]:offsets[g + 1]``) in trec_eval's
    order: the words and the scores reordered. ``words`` may be sorted in place.

    Queries are independent: a large run is ordered in two halves of whole queries, one per core.
    """
    rows = int(offsets[-1])
    chunks = chunks_of_groups(np.diff(offsets), max(min_chunk_rows, rows // 2 + 1))
    if len(chunks) == 1:
        return _order_of(offsets, scores, words)

    def order(chunk: Chunk) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.float64], bool]:
        first, stop = chunk
        start, end = int(offsets[first]), int(offsets[stop])
        part = words[start:end]
        ordered, part_scores = _order_of(offsets[first : stop + 1] - start, scores[start:end], part)
        return ordered, part_scores, ordered is part

    parts = map_chunks(order, chunks)
    if all(in_place for _, _, in_place in parts):
        return words, scores  # no chunk needed a full sort: ``words`` is ordered in place
    return (
        np.concatenate([part_words for part_words, _, _ in parts]),
        np.concatenate([part_scores for _, part_scores, _ in parts]),
    )


def _order_of(
    offsets: npt.NDArray[np.integer],
    scores: npt.NDArray[np.float64],
    words: npt.NDArray[np.uint64],
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.float64]]:
    """:func:`trec_eval_order` of one chunk: the same arrays when the rows were in order, or
    their ties sorted in place, else new arrays."""
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


def _sort_tied_runs(
    tied: npt.NDArray[np.bool_], words: npt.NDArray[np.uint64]
) -> npt.NDArray[np.uint64]:
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
        short = run_lengths.max() < _INT16_MAX
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
    for bucket in np.flatnonzero(np.bincount(size_class)).tolist():  # (np.unique imports numpy.ma)
        members = size_class == bucket
        starts, lengths = run_starts[members], run_lengths[members]
        columns = np.arange(int(lengths.max()))[None, :]
        valid = columns < lengths[:, None]
        order = starts[:, None] + np.where(valid, columns, 0)
        for word in reversed(range(words.shape[1])):
            keys = np.where(valid, ~words[order, word], _LAST)
            step = np.argsort(keys, axis=1, kind="stable")
            order, valid = (
                np.take_along_axis(order, step, axis=1),
                np.take_along_axis(valid, step, axis=1),
            )
        words[(starts[:, None] + columns)[columns < lengths[:, None]]] = words[order[valid]]
    return words


def _runs_of_true(
    flags: npt.NDArray[np.bool_],
) -> tuple[npt.NDArray[np.signedinteger], npt.NDArray[np.signedinteger]]:
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
    edges = edges.astype(np.int32 if flags.size < _INT32_MAX else np.int64)
    starts = edges[0::2]
    return starts, edges[1::2] + 1 - starts


def _rows_greater(
    left: npt.NDArray[np.uint64], right: npt.NDArray[np.uint64]
) -> npt.NDArray[np.bool_]:
    """Lexicographic ``left > right`` for rows of words."""
    greater = np.zeros(left.shape[0], dtype=bool)
    undecided = np.ones(left.shape[0], dtype=bool)
    for column in range(left.shape[1]):
        greater |= undecided & (left[:, column] > right[:, column])
        undecided &= left[:, column] == right[:, column]
    return greater


# -- reference: the same results in plain Python, for the tests to compare with --------------------


def trec_eval_order_reference(
    rankings: list[list[tuple[bytes, float]]],
) -> list[list[tuple[bytes, float]]]:
    """:func:`trec_eval_order` of each query's (doc id, score) rows, with ``sorted``."""
    return [sorted(rows, key=lambda row: (row[1], row[0]), reverse=True) for rows in rankings]


def runs_of_true_reference(flags: list[bool]) -> list[tuple[int, int]]:
    """:func:`_runs_of_true` as (start, rows) pairs, one flag at a time."""
    runs: list[tuple[int, int]] = []
    for position, flag in enumerate(flags):
        if flag and (position == 0 or not flags[position - 1]):
            runs.append((position, 2))  # a run of k flags joins k + 1 rows
        elif flag:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
    return runs
