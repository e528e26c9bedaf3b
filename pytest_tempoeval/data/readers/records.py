"""Gold sets from plain records: iterables of dicts or tuples, or DataFrames.

Neither pandas nor polars is a dependency: a DataFrame is read through its rows as plain dicts
(pandas' ``to_dict("records")``, polars' ``to_dicts()``; a polars LazyFrame is collected first).
Extra keys (columns) are ignored; a record lacking a required one is an error naming the record
and the keys it has.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeAlias, cast

from pytest_tempoeval.data.focus_time import FocusTime
from pytest_tempoeval.data.gold_schema import GoldDocument, GoldQuery, warn_undeclared
from pytest_tempoeval.data.metadata import metadata_focus_time, model_text
from pytest_tempoeval.data.values import grade_problem, id_problem
from pytest_tempoeval.errors import FocusTimeError, GoldSetError

SOURCE = "<records>"
# Accepted names of each field, as common tools name them (BEIR, ir_datasets, pyterrier, ranx).
QUERY_ID = ("id", "query_id", "qid", "_id", "query-id")
DOC_ID = ("doc_id", "docid", "docno", "corpus_id", "corpus-id", "_id", "id")
GRADE = ("relevance", "grade", "score", "rel", "label")
TEXT = ("text", "query", "body", "contents")


class _Collects(Protocol):  # a polars LazyFrame: collected first
    def collect(self) -> object: ...
    def lazy(self) -> object: ...


# What GoldSet.from_records reads: records (dicts or tuples), or a pandas/polars DataFrame of them.
Records: TypeAlias = Iterable[object] | _Collects


@dataclass(frozen=True)
class RecordsContent:
    queries: list[GoldQuery]
    documents: list[GoldDocument]


def read_records(queries: Records, qrels: Records, documents: Records) -> RecordsContent:
    judged: dict[str, dict[str, int]] = {}
    for number, record in enumerate(_rows(qrels), start=1):
        where = f"qrels record {number}"
        query_id, doc_id, grade = _qrel(record, where)
        grades = judged.setdefault(query_id, {})
        if doc_id in grades:
            raise _error(where, f"doc {doc_id!r} is judged twice for query {query_id!r}")
        grades[doc_id] = grade
    gold_queries: dict[str, GoldQuery] = {}
    for number, record in enumerate(_rows(queries), start=1):
        where = f"queries record {number}"
        if isinstance(record, Mapping):
            query_id = _id(_field(record, QUERY_ID, where, "query id"), where)
            text = _optional_text(_first(record, TEXT), where)
            focus = _focus_time(record, text, where, f"query {query_id!r}")
        else:
            query_id, text = _pair(record, where, "(query id, text)")
            focus = FocusTime.from_text(text) or None if text else None
        if query_id in gold_queries:
            raise _error(where, f"query {query_id!r} appears twice")
        gold_queries[query_id] = GoldQuery(query_id, text, focus, relevant=judged.get(query_id, {}))
    for query_id, grades in judged.items():  # judged, but with no query record: no text
        gold_queries.setdefault(query_id, GoldQuery(query_id, relevant=grades))
    gold_documents = [_document(record, n) for n, record in enumerate(_rows(documents), start=1)]
    if gold_documents:
        declared = {document.id for document in gold_documents}
        undeclared = [
            (query_id, doc_id, None)
            for query_id, grades in judged.items()
            for doc_id in grades
            if doc_id not in declared
        ]
        warn_undeclared(undeclared, declared, SOURCE, "in the documents records")
    if not gold_queries:
        raise _error("queries", "no queries and no qrels: a gold set needs at least one query")
    return RecordsContent(list(gold_queries.values()), gold_documents)


def _rows(records: object) -> Iterable[object]:
    """A table's rows as dicts: a DataFrame iterates over its column names, which would read as one
    malformed record per column. Polars is asked first: its DataFrame has a ``to_dict`` too, which
    gives columns and takes no ``"records"``."""
    collect = getattr(records, "collect", None)
    if callable(collect) and callable(getattr(records, "lazy", None)):
        records = collect()  # a polars LazyFrame (its .columns would warn, so not asked)
    rows: Iterable[object]
    if callable(to_dicts := getattr(records, "to_dicts", None)):
        rows = to_dicts()  # polars
    elif hasattr(records, "columns") and callable(to_dict := getattr(records, "to_dict", None)):
        rows = to_dict("records")  # pandas
    else:
        rows = cast("Iterable[object]", records)  # (anything else: what records were given)
    return rows


def _qrel(record: object, where: str) -> tuple[str, str, int]:
    if isinstance(record, Mapping):
        query_id = _field(record, QUERY_ID, where, "query id", exclude=("id", "_id"))
        doc_id = _field(record, DOC_ID, where, "doc id", exclude=("id", "_id"))
        grade = _field(record, GRADE, where, "grade")
    elif isinstance(record, (tuple, list)) and len(record) in (3, 4):
        query_id, doc_id, grade = (record[0], record[-2], record[-1])  # (q, doc, g) or TREC's 4
    else:
        raise _error(where, f"expected a dict or (query id, doc id, grade), got {record!r:.80}")
    query_id, doc_id = _id(query_id, where), _id(doc_id, where)
    if hasattr(grade, "item"):  # a numpy integer from a DataFrame
        grade = grade.item()
    if isinstance(grade, float) and grade.is_integer():
        grade = int(grade)
    problem = grade_problem(grade)
    if problem is not None:
        raise _error(where, f"grade {grade!r} of doc {doc_id!r} for query {query_id!r} {problem}")
    return query_id, doc_id, cast(int, grade)  # an integer: grade_problem checked it


def _document(record: object, number: int) -> GoldDocument:
    where = f"documents record {number}"
    if isinstance(record, Mapping):
        doc_id = _id(_field(record, DOC_ID, where, "doc id"), where)
        title = _optional_text(record.get("title"), where)
        text = model_text(title, _optional_text(_first(record, TEXT), where))
        focus = _focus_time(record, text, where, f"doc {doc_id!r}")
        return GoldDocument(doc_id, text, focus, None, title)
    doc_id, text = _pair(record, where, "(doc id, text)")
    return GoldDocument(doc_id, text, FocusTime.from_text(text) or None if text else None)


def _focus_time(
    record: Mapping[str, Any], text: str | None, where: str, who: str
) -> FocusTime | None:
    if record.get("focus_time") is not None:
        try:
            return FocusTime.parse(record["focus_time"])
        except FocusTimeError as error:
            raise _error(where, f"bad focus_time: {error}") from None
    found = metadata_focus_time(
        record, record.get("metadata") or {}, where=f"{SOURCE}: {where}: {who}", error=GoldSetError
    )
    if found is None and text:
        found = FocusTime.from_text(text)
    return found or None


def _pair(record: object, where: str, shape: str) -> tuple[str, str | None]:
    if not isinstance(record, (tuple, list)) or len(record) != 2:
        raise _error(where, f"expected a dict or {shape}, got {record!r:.80}")
    return _id(record[0], where), _optional_text(record[1], where)


def _first(record: Mapping[str, object], names: tuple[str, ...]) -> object:
    return next((record[name] for name in names if name in record), None)


def _field(
    record: Mapping[str, object],
    names: tuple[str, ...],
    where: str,
    what: str,
    exclude: tuple[str, ...] = (),
) -> object:
    for name in names:
        if name in record and name not in exclude:
            return record[name]
    accepted = ", ".join(name for name in names if name not in exclude)
    raise _error(
        where,
        f"no {what} (accepted keys: {accepted}; the record has: {', '.join(map(str, record))})",
    )


def _id(value: object, where: str) -> str:
    if hasattr(value, "item"):  # a numpy integer from a DataFrame
        value = value.item()
    problem = id_problem(value)
    if problem is not None:
        raise _error(where, f"id {problem}")
    return str(value)


def _optional_text(value: object, where: str) -> str | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):  # pandas' "none"
        return None
    if not isinstance(value, str):
        raise _error(where, f"text must be a string, got {type(value).__name__}")
    return value


def _error(where: str, message: str) -> GoldSetError:
    return GoldSetError(f"{SOURCE}: {where}: {message}")
