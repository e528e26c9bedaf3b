"""ir_datasets datasets: anything with ``docs_iter()``, ``queries_iter()`` and ``qrels_iter()``
yielding its namedtuples, or a dataset id when the optional ``ir_datasets`` package is installed.

Documents are read through the dataset's docs store on first access when it has one (MS MARCO holds
8.8 million passages); otherwise they are all read up front.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Protocol, cast

from pytest_tempoeval.data.columns import Ragged, ragged_from_lists
from pytest_tempoeval.data.corpus import LazyDocuments
from pytest_tempoeval.data.focus_time import FocusTime
from pytest_tempoeval.data.gold_schema import GoldDocument
from pytest_tempoeval.data.metadata import metadata_focus_time, model_text
from pytest_tempoeval.data.values import grade_problem, id_problem
from pytest_tempoeval.errors import GoldSetError

# Namedtuple fields read as a document's or a query's text, when it has no default_text().
_TEXT_FIELDS = ("text", "body", "abstract", "contents", "content", "passage", "query")


class IrDatasetLike(Protocol):
    """What is read of a dataset: its queries and qrels; ``docs_iter()`` and ``docs_store()`` when
    it has them. Records are the dataset's namedtuples, read by field name."""

    def qrels_iter(self) -> Iterable[object]: ...
    def queries_iter(self) -> Iterable[object]: ...


class _DocsStore(Protocol):
    def get(self, doc_id: str, /) -> object: ...


class _WithDocs(Protocol):  # a dataset whose docs_iter() is checked callable
    def docs_iter(self) -> Iterable[object]: ...


class _WithDocsStore(_WithDocs, Protocol):
    def docs_store(self) -> _DocsStore: ...


@dataclass(frozen=True)
class IrDataset:
    name: str
    qrels: Ragged
    queries: dict[str, tuple[str | None, FocusTime | None]]
    documents: Mapping[str, GoldDocument]


def read_ir_datasets(dataset: IrDatasetLike | str) -> IrDataset:
    if isinstance(dataset, str):
        dataset = _load(dataset)
    name = str(getattr(dataset, "dataset_id", lambda: None)() or type(dataset).__name__)
    for method in ("qrels_iter", "queries_iter"):
        if not callable(getattr(dataset, method, None)):
            raise GoldSetError(
                f"{name}: an ir_datasets dataset needs {method}() (and qrels_iter, queries_iter, "
                "docs_iter); this one has no " + method.removesuffix("_iter")
            )
    qrels = _qrels(dataset, name)
    queries = {}
    for number, query in enumerate(dataset.queries_iter(), start=1):
        query_id = _identifier(getattr(query, "query_id", None), name, f"query {number}")
        text = _text(query)
        where = f"{name}: query {query_id!r}"
        focus = metadata_focus_time(_fields(query), where=where, error=GoldSetError) or (
            FocusTime.from_text(text) if text else None
        )
        queries[query_id] = (text, focus or None)
    has_docs = callable(getattr(dataset, "docs_iter", None))
    documents: Mapping[str, GoldDocument] = {}
    if has_docs and callable(getattr(dataset, "docs_store", None)):
        documents = DocsStoreCorpus(cast(_WithDocsStore, dataset), name)
    elif has_docs:
        with_docs = cast(_WithDocs, dataset)
        documents = {document.id: document for document in _documents(with_docs, name)}
    return IrDataset(name, qrels, queries, documents)


def _load(dataset_id: str) -> IrDatasetLike:
    try:
        import ir_datasets
    except ImportError:
        raise GoldSetError(
            f"{dataset_id}: loading an ir_datasets id needs the ir_datasets package: "
            "pip install 'pytest-tempoeval[ir_datasets]' (or pass a dataset object)"
        ) from None
    try:
        return cast(IrDatasetLike, ir_datasets.load(dataset_id))  # (ir_datasets has no types)
    except KeyError:
        raise GoldSetError(f"{dataset_id}: ir_datasets knows no such dataset id") from None


def _qrels(dataset: IrDatasetLike, name: str) -> Ragged:
    import numpy as np

    grouped: dict[str, dict[str, int]] = {}
    for number, qrel in enumerate(dataset.qrels_iter(), start=1):
        where = f"qrel {number}"
        query_id = _identifier(getattr(qrel, "query_id", None), name, where)
        doc_id = _identifier(getattr(qrel, "doc_id", None), name, where)
        grade: object = getattr(qrel, "relevance", None)
        problem = grade_problem(grade)
        if problem is not None:
            raise GoldSetError(
                f"{name}: {where}: relevance {grade!r} of doc {doc_id!r} for query {query_id!r} "
                f"{problem}"
            )
        judged = grouped.setdefault(query_id, {})
        if doc_id in judged:
            raise GoldSetError(
                f"{name}: {where}: doc {doc_id!r} is judged twice for query {query_id!r}"
            )
        judged[doc_id] = int(cast(int, grade))  # an integer: grade_problem checked it
    if not grouped:
        raise GoldSetError(f"{name}: the dataset has no qrels; a gold set needs judged queries")
    keys = list(grouped)
    return ragged_from_lists(
        keys, [list(grouped[q]) for q in keys], [list(grouped[q].values()) for q in keys], np.int64
    )


def _identifier(value: object, name: str, where: str) -> str:
    problem = id_problem(value)
    if problem is not None:
        raise GoldSetError(f"{name}: {where}: id {problem}")
    return str(value)


def _fields(record: object) -> dict[str, object]:
    asdict = getattr(record, "_asdict", None)
    return dict(asdict()) if callable(asdict) else {}


def _text(record: object) -> str | None:
    default_text = getattr(record, "default_text", None)
    if callable(default_text):
        text = default_text()
        return text if isinstance(text, str) and text else None
    fields = _fields(record)
    texts = (fields.get(name) for name in _TEXT_FIELDS)
    body = next((text for text in texts if isinstance(text, str)), None)
    return model_text(_title(fields), body)


def _title(fields: dict[str, object]) -> str | None:
    title = fields.get("title")
    return title if isinstance(title, str) else None


def _document(record: object, name: str, where: str) -> GoldDocument:
    doc_id = _identifier(getattr(record, "doc_id", None), name, where)
    text = _text(record)
    fields = _fields(record)
    focus = metadata_focus_time(fields, where=f"{name}: doc {doc_id!r}", error=GoldSetError) or (
        FocusTime.from_text(text) if text else None
    )
    return GoldDocument(doc_id, text, focus or None, None, _title(fields) or None)


def _documents(dataset: _WithDocs, name: str) -> Iterator[GoldDocument]:
    for number, record in enumerate(dataset.docs_iter(), start=1):
        yield _document(record, name, f"document {number}")


class DocsStoreCorpus(LazyDocuments):
    """The dataset's documents, looked up in its docs store when first needed. Their ids are read
    (one pass over ``docs_iter()``) only when something asks for all of them."""

    def __init__(self, dataset: _WithDocsStore, name: str) -> None:
        super().__init__({})
        self._dataset, self._name = dataset, name
        self._store: _DocsStore | None = None
        self._all_ids: dict[str, int] | None = None

    def _lookup(self, doc_id: str) -> object:
        if self._store is None:
            self._store = self._dataset.docs_store()
        try:
            return self._store.get(doc_id)
        except KeyError:
            return None

    def __getitem__(self, doc_id: str) -> GoldDocument:
        document = self._read.get(doc_id)
        if document is None:
            record = self._lookup(doc_id)
            if record is None:
                raise KeyError(doc_id)
            document = self._read[doc_id] = _document(record, self._name, f"document {doc_id!r}")
        return document

    def __contains__(self, doc_id: object) -> bool:
        if not isinstance(doc_id, str):
            return False
        if doc_id in self._read or (self._all_ids is not None and doc_id in self._all_ids):
            return True
        return self._all_ids is None and self._lookup(doc_id) is not None

    def _every_id(self) -> dict[str, int]:
        if self._all_ids is None:
            self._all_ids = {}
            for position, document in enumerate(_documents(self._dataset, self._name)):
                self._all_ids[document.id] = position
                self._read.setdefault(document.id, document)
        return self._all_ids

    def __iter__(self) -> Iterator[str]:
        return iter(self._every_id())

    def __len__(self) -> int:
        return len(self._every_id())
