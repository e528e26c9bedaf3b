"""TREC run and qrels files, read as trec_eval reads them, on one core.

Both are whitespace-separated lines with a query id and a doc id: a run line is
``qid Q0 docid rank score tag``, a qrels line ``qid iter docid grade``. The shared core
(:func:`_read_grouped`) tokenises the file (:mod:`.trec_tokens`), checks that ids are UTF-8, groups
rows by query (in order of first appearance, file order within a query) and refuses a document
repeated within a query. Each format then reads its own value column: scores put the run in
trec_eval's order, grades become judgments.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pytest_tempoeval.data.columns import (
    Ragged,
    duplicate_pairs,
    group_rows,
    trec_eval_order,
    words_to_ids,
)
from pytest_tempoeval.data.readers.trec_tokens import Parser, parse_floats, parse_ints, read_fields
from pytest_tempoeval.errors import GoldSetError, RunError, located

TREC_RUN_FORMAT = "qid Q0 docid rank score tag"
TREC_QRELS_FORMAT = "qid iter docid grade"
_QUERY, _DOC = 0, 2  # field positions shared by both formats
_SCORE, _GRADE = 4, 3


@dataclass(frozen=True)
class _Format:
    noun: str  # "run", "qrels"
    layout: str  # TREC_RUN_FORMAT, TREC_QRELS_FORMAT
    error: type[Exception]
    numbers: dict[int, tuple[str, Parser, str]]  # numeric fields the tokeniser parses
    texts: tuple[int, ...]  # further fields kept as id words
    repeated: str  # what a document repeated within a query is, in an error message


_RUN = _Format(
    "run",
    TREC_RUN_FORMAT,
    RunError,
    {_SCORE: ("score", parse_floats, "a number")},
    (),
    "appears twice for query {query!r} (first at line {first}); "
    "trec_eval rejects duplicate documents",
)
_QRELS = _Format(
    "qrels",
    TREC_QRELS_FORMAT,
    GoldSetError,
    {},
    (_GRADE,),
    "is judged twice for query {query!r} (first at line {first})",
)


@dataclass(frozen=True, eq=False)
class _Grouped:
    """A TREC file's rows grouped by query; every column in grouped order."""

    keys: tuple[str, ...]
    offsets: np.ndarray  # query i's rows are offsets[i]:offsets[i + 1]
    groups: np.ndarray  # query index of every row
    doc_words: np.ndarray
    doc_width: int
    lines: np.ndarray  # 1-based file line of every row
    values: dict[int, np.ndarray]  # numeric fields, parsed
    texts: dict[int, np.ndarray]  # further fields as ``S`` arrays


def read_trec_run(path: Path) -> tuple[Ragged, np.ndarray]:
    """The run in trec_eval's order (score descending, ties by doc id descending) and the file line
    where each query's results start."""
    rows = _read_grouped(path, _RUN)
    scores = rows.values[_SCORE]
    bad = ~np.isfinite(scores)
    if bad.any():
        row = int(np.argmax(bad))
        line = int(rows.lines[row])
        raise RunError(
            located(
                path,
                line,
                f"score {_field_on_line(path, line, _SCORE)!r} of doc {_doc(rows, row)!r}: "
                "scores must be finite numbers",
            )
        )
    first_lines = rows.lines[rows.offsets[:-1]]  # file order within a query, until sorted below
    words, scores = trec_eval_order(rows.groups, scores, rows.doc_words)
    return Ragged.from_words(rows.keys, rows.offsets, words, rows.doc_width, scores), first_lines


def read_trec_qrels(path: Path) -> tuple[Ragged, np.ndarray]:
    """Judgments grouped by query (in order of first appearance) and the file line of every row."""
    rows = _read_grouped(path, _QRELS)
    doc_ids = words_to_ids(rows.doc_words, rows.doc_width)
    grades = _grades(rows.texts[_GRADE], doc_ids, rows.lines, path)
    return Ragged(rows.keys, rows.offsets, doc_ids, grades, rows.doc_words), rows.lines


def _read_grouped(path: Path, kind: _Format) -> _Grouped:
    if not path.is_file():
        raise kind.error(f"{path}: no such {kind.noun} file")
    if path.stat().st_size == 0:
        raise kind.error(
            located(path, 1, f"the {kind.noun} file is empty; expected lines '{kind.layout}'")
        )
    fields = read_fields(
        path,
        len(kind.layout.split()),
        ids=(_QUERY, _DOC, *kind.texts),
        numbers=kind.numbers,
        error=kind.error,
        what=f"TREC {kind.noun}: {kind.layout}",
    )
    lines, doc_words, doc_width = fields.line_numbers, fields.words[_DOC], fields.widths[_DOC]
    _check_utf8(doc_words, doc_width, lines, fields.non_ascii_rows, path, kind.error)
    grouping = group_rows(fields.words[_QUERY], fields.widths[_QUERY])
    values = fields.numbers
    texts = {field: fields.text(field) for field in kind.texts}
    if grouping.order is not None:
        order = grouping.order
        lines, doc_words = lines[order], doc_words[order]
        values = {field: column[order] for field, column in values.items()}
        texts = {field: column[order] for field, column in texts.items()}
    groups = np.repeat(np.arange(len(grouping.keys)), np.diff(grouping.offsets))
    keys = tuple(
        _decode_query(key, path, int(lines[start]), kind.error)
        for key, start in zip(grouping.keys, grouping.offsets[:-1].tolist())
    )
    rows = _Grouped(keys, grouping.offsets, groups, doc_words, doc_width, lines, values, texts)
    for first, repeated in duplicate_pairs(groups, doc_words)[:1]:
        problem = kind.repeated.format(query=keys[groups[repeated]], first=int(lines[first]))
        raise kind.error(
            located(path, int(lines[repeated]), f"doc {_doc(rows, repeated)!r} {problem}")
        )
    return rows


def _grades(text: np.ndarray, docs: np.ndarray, lines: np.ndarray, path: Path) -> np.ndarray:
    """Grades are non-negative integers (the gold set contract; trec_eval reads -1 as 0 gain)."""
    try:
        grades = parse_ints(text)
    except ValueError as error:
        row = int(error.args[0])
        raise GoldSetError(
            located(
                path,
                int(lines[row]),
                f"grade {text[row].decode(errors='replace')!r} of doc "
                f"{docs[row].decode(errors='replace')!r} is not a non-negative integer; use 0 "
                "(judged non-relevant), 1, 2, ...",
            )
        ) from None
    negative = grades < 0
    if negative.any():
        row = int(np.argmax(negative))
        raise GoldSetError(
            located(
                path,
                int(lines[row]),
                f"grade {int(grades[row])} of doc {docs[row].decode(errors='replace')!r} is "
                "negative; gold sets take non-negative integer grades (0 = judged non-relevant)",
            )
        )
    return grades


def _check_utf8(
    words: np.ndarray,
    width: int,
    lines: np.ndarray,
    rows: np.ndarray,
    path: Path,
    error: type[Exception],
) -> None:
    """Doc ids must be UTF-8. Only ``rows`` (lines with a byte >= 0x80, rare) need decoding."""
    for row in rows.tolist():
        value = bytes(words_to_ids(words[row : row + 1], width)[0])
        try:
            value.decode("utf-8")
        except UnicodeDecodeError:
            raise error(
                located(
                    path,
                    int(lines[row]),
                    f"doc id {value!r} is not valid UTF-8: save the file as UTF-8",
                )
            ) from None


def _decode_query(key: bytes, path: Path, line: int, error: type[Exception]) -> str:
    try:
        return key.decode("utf-8")
    except UnicodeDecodeError:
        raise error(
            located(path, line, f"query id {key!r} is not valid UTF-8: save the file as UTF-8")
        ) from None


def _doc(rows: _Grouped, row: int) -> str:
    return _text(words_to_ids(rows.doc_words[row : row + 1], rows.doc_width)[0])


def _field_on_line(path: Path, line: int, field: int) -> str:
    """The text of one field on one line (error messages only: reads the file again)."""
    with path.open("rb") as file:
        for number, content in enumerate(file, start=1):
            if number == line:
                return _text(content.split()[field])
    return "?"


def _text(value: bytes) -> str:
    return value.decode("utf-8", errors="replace")
