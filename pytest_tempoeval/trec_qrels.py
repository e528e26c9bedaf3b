"""Reading TREC qrels files (``qid iter docid grade``) into a columnar judgment table."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .columns import Ragged, duplicate_pairs, group_rows
from .errors import GoldSetError, located
from .trec import read_fields

_QUERY, _DOC, _GRADE = 0, 2, 3


def read_trec_qrels(path: Path) -> tuple[Ragged, np.ndarray]:
    """Judgments grouped by query (in order of first appearance) and the file line of every row."""
    if not path.is_file():
        raise GoldSetError(f"{path}: no such qrels file")
    fields = read_fields(path, 4, (_QUERY, _DOC, _GRADE), GoldSetError, "TREC qrels: qid iter docid grade")
    lines = fields.line_numbers
    queries, docs, grade_text = fields.text(_QUERY), fields.text(_DOC), fields.text(_GRADE)
    grades = _grades(grade_text, docs, lines, path)
    grouping = group_rows(queries)
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
        try:
            keys.append(key.decode("utf-8"))
        except UnicodeDecodeError:
            raise GoldSetError(located(path, int(lines[grouping.offsets[index]]), f"query id {key!r} is not UTF-8")) from None
    return Ragged(tuple(keys), grouping.offsets, docs, grades), lines


def _grades(text: np.ndarray, docs: np.ndarray, lines: np.ndarray, path: Path) -> np.ndarray:
    """Grades must be non-negative integers (the gold set contract; trec_eval would read -1 as 0 gain)."""
    from .trec import parse_ints

    try:
        grades = parse_ints(text)
    except ValueError as error:
        row = int(error.args[0])
        raise GoldSetError(
            located(path, int(lines[row]), f"grade {text[row].decode(errors='replace')!r} of doc "
                    f"{docs[row].decode(errors='replace')!r} is not a non-negative integer")
        ) from None
    negative = grades < 0
    if negative.any():
        row = int(np.argmax(negative))
        raise GoldSetError(
            located(path, int(lines[row]), f"grade {int(grades[row])} of doc {docs[row].decode(errors='replace')!r} "
                    "is negative; gold sets take non-negative integer grades (0 = judged non-relevant)")
        )
    return grades
