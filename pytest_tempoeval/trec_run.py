"""Reading TREC run files into a :class:`~pytest_tempoeval.columns.Ragged` table, in trec_eval's order."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .columns import Ragged, duplicate_pairs, group_rows, words_to_ids
from .errors import RunError, located
from .trec import parse_floats, read_fields

_QUERY, _DOC, _SCORE = 0, 2, 4


def read_trec_run(path: Path) -> tuple[Ragged, np.ndarray]:
    """The run's table and the file line where each query's results start. Errors name file and line."""
    if not path.is_file():
        raise RunError(f"{path}: no such run file")
    fields = read_fields(
        path,
        6,
        ids=(_QUERY, _DOC),
        numbers={_SCORE: ("score", parse_floats, "a number")},
        error=RunError,
        what="TREC run: qid Q0 docid rank score tag",
    )
    lines, scores = fields.line_numbers, fields.numbers[_SCORE]
    words, width = fields.words[_DOC], fields.widths[_DOC]

    def doc(row: int) -> str:
        return _text(words_to_ids(words[row : row + 1], width)[0])

    bad = ~np.isfinite(scores)
    if bad.any():
        row = int(np.argmax(bad))
        raise RunError(
            located(
                path,
                int(lines[row]),
                f"score {_field_on_line(path, int(lines[row]), _SCORE)!r} of doc {doc(row)!r}: "
                "scores must be finite numbers",
            )
        )
    _check_utf8(words, width, lines, fields.non_ascii_rows, path)
    grouping = group_rows(fields.words[_QUERY], fields.widths[_QUERY])
    if grouping.order is not None:
        words, scores, lines = words[grouping.order], scores[grouping.order], lines[grouping.order]
    first_lines = lines[
        grouping.offsets[:-1]
    ]  # rows keep file order within a query until sorted below
    groups = np.repeat(np.arange(len(grouping.keys)), np.diff(grouping.offsets))
    for first, repeated in duplicate_pairs(groups, words)[:1]:
        raise RunError(
            located(
                path,
                int(lines[repeated]),
                f"doc {doc(repeated)!r} appears twice for query {_text(grouping.keys[groups[repeated]])!r} "
                f"(first at line {int(lines[first])}); trec_eval rejects duplicate documents",
            )
        )
    words, scores = put_in_trec_eval_order(groups, scores, words)
    keys = tuple(
        _decode_query(key, path, int(line))
        for key, line in zip(grouping.keys, first_lines.tolist())
    )
    return Ragged(keys, grouping.offsets, words_to_ids(words, width), scores, words), first_lines


def put_in_trec_eval_order(
    groups: np.ndarray, scores: np.ndarray, words: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Rows (contiguous per query) in trec_eval's order: score descending, ties by doc id descending.

    Runs are usually written sorted by score, with ties in whatever order the system produced. So
    this checks first; then, if only ties are out of order, sorts each run of tied rows by doc id
    (their only difference); only an unsorted file takes a full sort.
    """
    if groups.size < 2:
        return words, scores
    same_query = groups[1:] == groups[:-1]
    if np.any(same_query & (scores[1:] > scores[:-1])):
        # Keys, least significant first: doc id descending (~words ascending), score descending, query.
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


def _check_utf8(
    words: np.ndarray, width: int, lines: np.ndarray, rows: np.ndarray, path: Path
) -> None:
    """Doc ids must be UTF-8. Only ``rows`` (lines with a byte >= 0x80, rare) need decoding."""
    for row in rows.tolist():
        value = words_to_ids(words[row : row + 1], width)[0]
        try:
            value.decode("utf-8")
        except UnicodeDecodeError:
            raise RunError(
                located(path, int(lines[row]), f"doc id {value!r} is not valid UTF-8")
            ) from None


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
