"""Reading TREC qrels files (``qid iter docid grade``) into a columnar judgment table."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .columns import Ragged, duplicate_pairs, group_rows
from .errors import GoldSetError, located
from .goldset import TREC_QRELS_FORMAT
from .trec import read_fields

_QUERY, _DOC, _GRADE = 0, 2, 3


def read_trec_qrels(path: Path) -> tuple[Ragged, np.ndarray]:
    """Judgments grouped by query (in order of first appearance) and the file line of every row."""
    if not path.is_file():
        raise GoldSetError(f"{path}: no such qrels file")
    if path.stat().st_size == 0:
        raise GoldSetError(
            located(path, 1, f"the qrels file is empty; expected lines '{TREC_QRELS_FORMAT}'")
        )
    fields = read_fields(
        path,
        4,
        ids=(_QUERY, _DOC, _GRADE),
        numbers={},
        error=GoldSetError,
        what="TREC qrels: qid iter docid grade",
    )
    lines = fields.line_numbers
    docs, grade_text = fields.text(_DOC), fields.text(_GRADE)
    grades = _grades(grade_text, docs, lines, path)
    grouping = group_rows(fields.words[_QUERY], fields.widths[_QUERY])
    if grouping.order is not None:
        docs, grades, lines = docs[grouping.order], grades[grouping.order], lines[grouping.order]
    groups = np.repeat(np.arange(len(grouping.keys)), np.diff(grouping.offsets))
    words = fields.words[_DOC] if grouping.order is None else fields.words[_DOC][grouping.order]
    for first, repeated in duplicate_pairs(groups, words)[:1]:
        raise GoldSetError(
            located(
                path,
                int(lines[repeated]),
                f"doc {docs[repeated].decode(errors='replace')!r} is judged twice for query "
                f"{grouping.keys[groups[repeated]].decode(errors='replace')!r} (first at line {int(lines[first])})",
            )
        )
    keys = []
    for index, key in enumerate(grouping.keys):
        line = int(lines[grouping.offsets[index]])
        try:
            keys.append(key.decode("utf-8"))
        except UnicodeDecodeError:
            raise GoldSetError(
                located(path, line, f"query id {key!r} is not valid UTF-8: save the file as UTF-8")
            ) from None
    if keys and keys[0].startswith("\ufeff"):
        raise GoldSetError(
            located(
                path,
                int(lines[0]),  # the first group starts with the file's first row
                "the file starts with a UTF-8 byte-order mark, which would become part of query id "
                f"{keys[0]!r}; save the file without a BOM",
            )
        )
    _check_utf8(docs, lines, path)
    return Ragged(tuple(keys), grouping.offsets, docs, grades), lines


def _check_utf8(docs: np.ndarray, lines: np.ndarray, path: Path) -> None:
    """Doc ids are decoded when judgments are read: a non-UTF-8 id is an error now, with its line."""
    if docs.size == 0:
        return
    high = np.any(docs.view(np.uint8).reshape(docs.size, -1) >= 0x80, axis=1)
    for row in np.flatnonzero(high).tolist():  # only ids with non-ASCII bytes need decoding
        try:
            docs[row].decode("utf-8")
        except UnicodeDecodeError:
            raise GoldSetError(
                located(
                    path,
                    int(lines[row]),
                    f"doc id {bytes(docs[row])!r} is not valid UTF-8: save the file as UTF-8",
                )
            ) from None


def _grades(text: np.ndarray, docs: np.ndarray, lines: np.ndarray, path: Path) -> np.ndarray:
    """Grades must be non-negative integers (the gold set contract; trec_eval would read -1 as 0 gain)."""
    from .trec import parse_ints

    try:
        grades = parse_ints(text)
    except ValueError as error:
        row = int(error.args[0])
        raise GoldSetError(
            located(
                path,
                int(lines[row]),
                f"grade {text[row].decode(errors='replace')!r} of doc "
                f"{docs[row].decode(errors='replace')!r} is not a non-negative integer; use 0 (judged "
                "non-relevant), 1, 2, ...",
            )
        ) from None
    negative = grades < 0
    if negative.any():
        row = int(np.argmax(negative))
        raise GoldSetError(
            located(
                path,
                int(lines[row]),
                f"grade {int(grades[row])} of doc {docs[row].decode(errors='replace')!r} "
                "is negative; gold sets take non-negative integer grades (0 = judged non-relevant)",
            )
        )
    return grades
