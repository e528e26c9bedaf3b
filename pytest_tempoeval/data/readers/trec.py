"""TREC run and qrels files, read as trec_eval reads them, on one core.

Both are whitespace-separated lines with a query id and a doc id: a run line is
``qid Q0 docid rank score tag``, a qrels line ``qid iter docid grade``. The shared core
(:func:`_read_grouped`) tokenises the file (:mod:`.trec_tokens`), checks that ids are UTF-8, groups
rows by query (in order of first appearance, file order within a query) and refuses a document
repeated within a query. Each format then reads its own value column: scores put the run in
trec_eval's order, grades become judgments.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

from pytest_tempoeval.data.columns import (
    Ragged,
    duplicate_pairs,
    group_rows,
    trec_eval_order,
    words_to_ids,
)
from pytest_tempoeval.data.readers.lines import SNIFF_BYTES, first_data_line, lines_end_in_cr
from pytest_tempoeval.data.readers.trec_tokens import (
    LineFormat,
    parse_float_words,
    parse_ints,
    read_fields,
)
from pytest_tempoeval.data.values import MAX_GRADE, grade_rule, id_problem, is_number
from pytest_tempoeval.errors import GoldSetError, RunError, located
from pytest_tempoeval.files import regular_file_problem

TREC_RUN_FORMAT = "qid Q0 docid rank score tag"
TREC_QRELS_FORMAT = "qid iter docid grade"
BEIR_QRELS_FORMAT = "query-id corpus-id score"
BEIR_QRELS_HEADER = b"query-id"  # the first line of a BEIR qrels file names its columns


# A NamedTuple, not a dataclass: defining a dataclass compiles its methods from source, about
# 0.4 ms at every start of the command (they are records; nothing compares them).
class _Format(NamedTuple):
    """One file format: its layout, the error its problems raise, and where its columns are."""

    noun: str  # "run", "qrels"
    layout: str  # TREC_RUN_FORMAT, ...
    error: type[Exception]
    query: int  # field of the query id
    doc: int  # field of the doc id
    value: int  # field of the score or grade
    parse_value: bool  # the tokeniser parses the value field as a float (scores)
    more_fields: bool  # trec_eval ignores fields after a run line's sixth
    repeated: str  # what a document repeated within a query is, in an error message

    def line_format(self) -> LineFormat:
        value_name = self.layout.split()[self.value]
        numbers: dict[int, tuple[str, Callable[[np.ndarray, int], np.ndarray], str]] = (
            {self.value: (value_name, parse_float_words, "a number")} if self.parse_value else {}
        )
        texts = () if self.parse_value else (self.value,)
        n_fields = len(self.layout.split())
        what = f"TREC {self.noun}: {self.layout}"
        return LineFormat(n_fields, (self.query, self.doc, *texts), numbers, what, self.more_fields)


_JUDGED_TWICE = "is judged twice for query {query!r} (first at line {first})"
_RUN = _Format(
    noun="run",
    layout=TREC_RUN_FORMAT,
    error=RunError,
    query=0,
    doc=2,
    value=4,
    parse_value=True,
    more_fields=True,
    repeated="appears twice for query {query!r} (first at line {first}); "
    "trec_eval rejects duplicate documents",
)
_QRELS = _Format(
    noun="qrels",
    layout=TREC_QRELS_FORMAT,
    error=GoldSetError,
    query=0,
    doc=2,
    value=3,
    parse_value=False,
    more_fields=False,
    repeated=_JUDGED_TWICE,
)
_BEIR_QRELS = _Format(
    noun="qrels",
    layout=BEIR_QRELS_FORMAT,
    error=GoldSetError,
    query=0,
    doc=1,
    value=2,
    parse_value=False,
    more_fields=False,
    repeated=_JUDGED_TWICE,
)


class _Grouped(NamedTuple):
    """A TREC file's rows grouped by query; every column in grouped order."""

    keys: tuple[str, ...]
    offsets: np.ndarray  # query i's rows are offsets[i]:offsets[i + 1]
    doc_words: np.ndarray
    doc_width: int
    lines: np.ndarray  # 1-based file line of every row
    values: np.ndarray  # the value field: parsed scores, or grades as ``S`` text


def read_trec_run(path: Path) -> tuple[Ragged, np.ndarray]:
    """The run in trec_eval's order (score descending, ties by doc id descending) and the file line
    where each query's results start."""
    rows = _read_grouped(path, _RUN)
    scores = rows.values
    bad = ~np.isfinite(scores)
    if bad.any():
        row = int(np.argmax(bad))
        line = int(rows.lines[row])
        raise RunError(
            located(
                path,
                line,
                f"score {_field_on_line(path, line, _RUN.value)!r} of doc {_doc(rows, row)!r}: "
                "scores must be finite numbers",
            )
        )
    first_lines = rows.lines[rows.offsets[:-1]]  # file order within a query, until sorted below
    words, scores = trec_eval_order(rows.offsets, scores, rows.doc_words)
    return Ragged.from_words(rows.keys, rows.offsets, words, rows.doc_width, scores), first_lines


def read_trec_qrels(path: Path, beir: bool = False) -> tuple[Ragged, np.ndarray]:
    """Judgments grouped by query (in order of first appearance) and the file line of every row.

    ``beir``: BEIR's ``qrels/<split>.tsv`` (``query-id corpus-id score``, after a header line).
    """
    kind = _BEIR_QRELS if beir else _QRELS
    try:
        rows = _read_grouped(path, kind, header=BEIR_QRELS_HEADER if beir else None)
        table = Ragged.from_words(
            rows.keys, rows.offsets, rows.doc_words, rows.doc_width, rows.values
        )
        grades = _grades(rows.values, table, rows.lines, path)
    except GoldSetError:
        header = None if beir else _header(path)
        if header is None:
            raise
        raise GoldSetError(header) from None
    return replace(table, values=grades), rows.lines


def _header(path: Path) -> str | None:
    """What to say about a first data line with no number in it (a header: ``query-id corpus-id
    score``), or None if it has one."""
    first = first_data_line(path)
    if first is None or any(is_number(field) for field in first[1]):
        return None
    from pytest_tempoeval.data.readers.structured import shown  # an error's wording only

    line, fields = first
    return located(
        path,
        line,
        f"the first line {shown(_text(b' '.join(fields)))} is a header, not a judgment: TREC "
        f"qrels have no header, only lines '{TREC_QRELS_FORMAT}'; remove it, or, for a BEIR "
        "qrels file, load its folder with GoldSet.from_beir(folder)",
    )


def _read_grouped(path: Path, kind: _Format, header: bytes | None = None) -> _Grouped:
    if problem := regular_file_problem(path, f"{kind.noun} file"):
        raise kind.error(problem)
    if path.stat().st_size == 0:
        raise kind.error(
            located(path, 1, f"the {kind.noun} file is empty; expected lines '{kind.layout}'")
        )
    fields = read_fields(path, kind.line_format(), kind.error, header)
    lines, doc_words = fields.line_numbers, fields.words[kind.doc]
    doc_width = fields.widths[kind.doc]
    _check_utf8(doc_words, doc_width, lines, fields.non_ascii_rows, path, kind.error)
    grouping = group_rows(fields.words[kind.query], fields.widths[kind.query])
    values = fields.numbers[kind.value] if kind.parse_value else fields.text(kind.value)
    if grouping.order is not None:
        order = grouping.order
        lines, doc_words, values = lines[order], doc_words[order], values[order]
    offsets = grouping.offsets
    all_ascii = fields.non_ascii_rows.size == 0  # no byte >= 0x7f (DEL, non-ASCII) anywhere
    keys = _decode_queries(grouping.keys, offsets, lines, path, kind.error, all_ascii)
    rows = _Grouped(keys, offsets, doc_words, doc_width, lines, values)
    for first, repeated in duplicate_pairs(offsets, doc_words)[:1]:
        query = keys[int(np.searchsorted(offsets, repeated, side="right")) - 1]
        problem = kind.repeated.format(query=query, first=int(lines[first]))
        message = f"doc {_doc(rows, repeated)!r} {problem}"
        raise kind.error(located(path, int(lines[repeated]), message))
    return rows


def _grades(text: np.ndarray, table: Ragged, lines: np.ndarray, path: Path) -> np.ndarray:
    """Grades are integers. A negative grade is kept: trec_eval reads it as judged non-relevant
    (-1 in its own ``qrels.rel_level``, -2 for junk in ClueWeb's web-track qrels)."""
    try:
        grades = parse_ints(text)
        if text.dtype.itemsize >= len(str(MAX_GRADE)):  # shorter grades cannot exceed it
            too_large = np.flatnonzero(np.abs(grades) > MAX_GRADE)
            if too_large.size:
                raise ValueError(int(too_large[0]))
    except ValueError as error:
        row = int(error.args[0])
        raise GoldSetError(
            located(
                path,
                int(lines[row]),
                f"grade {text[row].decode(errors='replace')!r} of doc "
                f"{table.ids_of(slice(row, row + 1))[0]!r} {grade_rule(negative=True)}",
            )
        ) from None
    return grades


def _check_utf8(
    words: np.ndarray,
    width: int,
    lines: np.ndarray,
    rows: np.ndarray,
    path: Path,
    error: type[Exception],
) -> None:
    """Doc ids must be UTF-8 and valid ids. Only ``rows`` (lines with a byte >= 0x7f, rare) need
    decoding: other ASCII fields have no blank or control byte (the tokeniser splits on or rejects
    them), but DEL is a control byte and a non-ASCII field can be Unicode whitespace such as
    U+2028 or U+00A0."""
    for row in rows.tolist():
        value = bytes(words_to_ids(words[row : row + 1], width)[0])
        try:
            problem = id_problem(value.decode("utf-8"))
        except UnicodeDecodeError:
            problem = f"{value!r} is not valid UTF-8: save the file as UTF-8"
        if problem:
            raise error(located(path, int(lines[row]), f"doc id {problem}"))


def _decode_queries(
    keys: list[bytes],
    offsets: np.ndarray,
    lines: np.ndarray,
    path: Path,
    error: type[Exception],
    all_ascii: bool = False,
) -> tuple[str, ...]:
    """Query ids as text; the non-ASCII ones and those with DEL (rare) are held to the id rules, as
    in _check_utf8. ``all_ascii``: the tokeniser found no such byte in the file (no key to look
    at one by one)."""
    if all_ascii or all(key.isascii() and b"\x7f" not in key for key in keys):
        return tuple([key.decode("ascii") for key in keys])
    decoded: list[str] = []
    for key, start in zip(keys, offsets[:-1].tolist()):
        text = ""
        try:
            text = key.decode("utf-8")
            problem = id_problem(text)
        except UnicodeDecodeError:
            problem = f"{key!r} is not valid UTF-8: save the file as UTF-8"
        if problem:
            raise error(located(path, int(lines[start]), f"query id {problem}"))
        decoded.append(text)
    return tuple(decoded)


def _doc(rows: _Grouped, row: int) -> str:
    return _text(words_to_ids(rows.doc_words[row : row + 1], rows.doc_width)[0])


def _field_on_line(path: Path, line: int, field: int) -> str:
    """The text of one field on one line (error messages only: reads the file again)."""
    with path.open("rb") as file:
        cr_lines = lines_end_in_cr(file.read(SNIFF_BYTES))
        file.seek(0)
        for number, content in enumerate(file.read().split(b"\r") if cr_lines else file, start=1):
            if number == line:
                return _text(content.split()[field])
    return "?"


def _text(value: bytes) -> str:
    return value.decode("utf-8", errors="replace")
