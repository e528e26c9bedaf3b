"""Reading TREC run files into a :class:`~pytest_tempoeval.columns.Ragged` table, in trec_eval's order."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .columns import Ragged, duplicate_pairs, group_rows
from .errors import RunError, located
from .trec import parse_floats, read_fields

_QUERY, _DOC, _SCORE = 0, 2, 4


def read_trec_run(path: Path) -> tuple[Ragged, np.ndarray]:
    """The run's table and the file line of every row. Errors name the file and line."""
    if not path.is_file():
        raise RunError(f"{path}: no such run file")
    fields = read_fields(
        path, 6, ids=(_QUERY, _DOC), numbers={_SCORE: ("score", parse_floats, "a number")}, error=RunError,
        what="TREC run: qid Q0 docid rank score tag",
    )
    lines, scores = fields.line_numbers, fields.numbers[_SCORE]
    queries, docs, words = fields.text(_QUERY), fields.text(_DOC), fields.words[_DOC]
    bad = ~np.isfinite(scores)
    if bad.any():
        row = int(np.argmax(bad))
        raise RunError(
            located(
                path,
                int(lines[row]),
                f"score {_field_on_line(path, int(lines[row]), _SCORE)!r} of doc {_text(docs[row])!r}: "
                "scores must be finite numbers",
            )
        )
    _check_utf8(docs, words, lines, path)
    grouping = group_rows(queries)
    if grouping.order is not None:
        docs, scores, lines, words = (column[grouping.order] for column in (docs, scores, lines, words))
    groups = np.repeat(np.arange(len(grouping.keys)), np.diff(grouping.offsets))
    for first, repeated in duplicate_pairs(groups, words)[:1]:
        raise RunError(
            located(
                path,
                int(lines[repeated]),
                f"doc {_text(docs[repeated])!r} appears twice for query {_text(grouping.keys[groups[repeated]])!r} "
                f"(first at line {int(lines[first])}); trec_eval rejects duplicate documents",
            )
        )
    order = trec_eval_order(groups, scores, words)
    if order is not None:
        docs, scores, lines, words = docs[order], scores[order], lines[order], words[order]
    keys = tuple(_decode_query(key, path, int(lines[grouping.offsets[index]])) for index, key in enumerate(grouping.keys))
    return Ragged(keys, grouping.offsets, docs, scores, words), lines


def trec_eval_order(groups: np.ndarray, scores: np.ndarray, words: np.ndarray) -> np.ndarray | None:
    """Permutation putting rows in trec_eval's order, or None when they already are.

    Within a query (rows already contiguous): score descending, ties by doc id descending.
    Runs are usually written sorted by score with ties in whatever order the system produced, so
    the common repair is sorting each run of tied rows by doc id, not sorting the whole file.
    """
    if groups.size < 2:
        return None
    same_query = groups[1:] == groups[:-1]
    if np.any(same_query & (scores[1:] > scores[:-1])):
        # Scores not sorted: sort everything. Keys, least significant first: doc id descending
        # (~words ascending), score descending, query (already in first-appearance order).
        keys = [~words[:, column] for column in reversed(range(words.shape[1]))]
        return np.lexsort((*keys, -scores, groups))
    tied = same_query & (scores[1:] == scores[:-1])
    if not np.any(tied & ~_rows_greater(words[:-1], words[1:])):
        return None
    return _sort_tied_runs(tied, words)


def _sort_tied_runs(tied: np.ndarray, words: np.ndarray) -> np.ndarray:
    """Order rows so that each maximal run of tied rows is sorted by doc id, descending.

    ``tied[i]`` says rows i and i+1 tie. Runs are padded into blocks of similar length and sorted
    row-wise, one word column at a time from the last (a stable LSD sort), so cost is linear.
    """
    edges = np.diff(np.concatenate(([0], tied.astype(np.int8), [0])))
    run_starts = np.flatnonzero(edges == 1)
    run_lengths = np.flatnonzero(edges == -1) + 1 - run_starts
    order = np.arange(words.shape[0])
    size_class = np.ceil(np.log2(run_lengths)).astype(np.int64)
    for bucket in np.unique(size_class):
        members = size_class == bucket
        starts, lengths = run_starts[members], run_lengths[members]
        width = int(lengths.max())
        valid = np.arange(width)[None, :] < lengths[:, None]
        rows = starts[:, None] + np.where(valid, np.arange(width)[None, :], 0)
        for column in reversed(range(words.shape[1])):
            keys = np.where(valid, ~words[rows, column], np.uint64(np.iinfo(np.uint64).max))
            step = np.argsort(keys, axis=1, kind="stable")
            rows = np.take_along_axis(rows, step, axis=1)
            valid = np.take_along_axis(valid, step, axis=1)
        target = (starts[:, None] + np.arange(width)[None, :])[np.arange(width)[None, :] < lengths[:, None]]
        order[target] = rows[valid]
    return order


def _rows_greater(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Lexicographic ``left > right`` for rows of words."""
    greater = np.zeros(left.shape[0], dtype=bool)
    undecided = np.ones(left.shape[0], dtype=bool)
    for column in range(left.shape[1]):
        greater |= undecided & (left[:, column] > right[:, column])
        undecided &= left[:, column] == right[:, column]
    return greater


def _check_utf8(docs: np.ndarray, words: np.ndarray, lines: np.ndarray, path: Path) -> None:
    """Doc ids must be UTF-8. Only ids with a byte >= 0x80 (rare) are decoded to check."""
    high_bit = np.uint64(0x8080808080808080)
    for row in np.flatnonzero(np.any(words & high_bit, axis=1)).tolist():
        try:
            docs[row].decode("utf-8")
        except UnicodeDecodeError:
            raise RunError(located(path, int(lines[row]), f"doc id {docs[row]!r} is not valid UTF-8")) from None


def _field_on_line(path: Path, line: int, field: int) -> str:
    """The text of one field on one line (error messages only: reads the file again)."""
    with path.open("rb") as file:
        for number, content in enumerate(file, start=1):
            if number == line:
                return _text(content.split()[field])
    return "?"


def _text(value: bytes) -> str:
    return value.decode("utf-8", errors="replace")


def _decode_query(key: bytes, path: Path, line: int) -> str:
    try:
        return key.decode("utf-8")
    except UnicodeDecodeError:
        raise RunError(located(path, line, f"query id {key!r} is not valid UTF-8")) from None


