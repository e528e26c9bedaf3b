"""GoldSet: a golden query set (queries with focus times and graded judgments, documents).

Build one from a YAML or JSON file (:meth:`GoldSet.load`, format in ``docs/gold-set.md``), from the
same structure as Python data (:meth:`GoldSet.from_dict`), from a TREC qrels file
(:meth:`GoldSet.from_trec_qrels`), or from :class:`GoldQuery`/:class:`GoldDocument` lists.

One module on purpose, though longer than most: every way of building a gold set ends in the same
object, whose views (queries, judgments, documents, focus times, fingerprints) share its columns.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from pytest_tempoeval.data.readers.lines import reads_as_columns
from pytest_tempoeval.data.values import grade_problem
from pytest_tempoeval.errors import GoldSetError, located

# The gold-set file schema (GoldQuery, GoldDocument and their YAML/JSON readers), focus times and
# corpora are imported where they are used: a gold set read from TREC qrels and scored in gold
# mode needs none of them (~3 ms of imports at every start of `tempoeval evaluate`).
if TYPE_CHECKING:
    import numpy as np

    from pytest_tempoeval.data.columns import Ragged
    from pytest_tempoeval.data.focus_time import FocusTime
    from pytest_tempoeval.data.gold_schema import GoldContent, GoldDocument, GoldQuery
    from pytest_tempoeval.data.provenance import Provenance
    from pytest_tempoeval.data.readers.ir_datasets import IrDatasetLike
    from pytest_tempoeval.data.readers.records import Records

T = TypeVar("T")
Item = TypeVar("Item", "GoldQuery", "GoldDocument")


class GoldSet:
    """Queries with focus times and graded judgments, plus optional document annotations.

    Immutable once built: everything derived from it (indexes, pools) is computed once and kept
    (:meth:`memo`).
    """

    def __init__(
        self,
        queries: Mapping[str, GoldQuery] | list[GoldQuery],
        documents: Mapping[str, GoldDocument] | list[GoldDocument] | None = None,
        *,
        name: str | None = None,
        k: int | None = None,
        path: str | Path | None = None,
        ignore_identical_ids: bool = False,
        grade_scale: tuple[int, int] | None = None,
    ) -> None:
        """``grade_scale``: ``(low, high)``, the scale the grades are on (the file's
        ``grade_scale: [low, high]``); None: 0 to the largest grade (:attr:`grade_scale`)."""
        self.path = str(path) if path is not None else "<gold set>"
        self.name = name
        self.k = k
        # BEIR's rule: a retrieved document whose id is its query's id is dropped before scoring.
        self.ignore_identical_ids = ignore_identical_ids
        query_list = list(queries.values()) if isinstance(queries, Mapping) else list(queries)
        document_list = (
            list((documents or {}).values())
            if isinstance(documents, Mapping)
            else list(documents or [])
        )
        if not query_list:
            raise GoldSetError(
                located(
                    self.path,
                    None,
                    "the gold set has no queries; add at least one under 'queries:'",
                )
            )
        self._queries = _index_by_id(query_list, self.path, "query")
        _check_grades(query_list, self.path)
        self.declared_grade_scale = _checked_scale(grade_scale, query_list, self.path)
        if any(query.provenance for query in query_list):
            _check_provenance(query_list, self.path)
        if any(query.key_time_anchors for query in query_list):
            from pytest_tempoeval.data.time_anchors import check_time_anchors

            check_time_anchors(((q.id, q.line, q.key_time_anchors) for q in query_list), self.path)
        self.documents: Mapping[str, GoldDocument] = _index_by_id(
            document_list, self.path, "document"
        )
        self._judgments: Ragged | None = None
        self._judgment_lines: np.ndarray | None = None
        self._query_texts: Mapping[str, tuple[str | None, FocusTime | None]] = {}
        self._memo: dict[Hashable, object] = {}  # key -> what its compute() returned

    # -- loading ----------------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path) -> GoldSet:
        """Load a gold set, whatever its format: a BEIR folder (split ``test``), YAML
        (``.yaml``/``.yml``), JSON (``.json``), or a TREC qrels file (any other name whose first
        data line is whitespace-separated columns, not YAML: ``qid iter docid grade``; a line of
        three columns or a header is then a qrels error naming the line). Other files are read
        as YAML."""
        path = Path(path)
        if path.is_dir():
            return cls.from_beir(path)
        if path.suffix.lower() not in (".yaml", ".yml", ".json") and reads_as_columns(path):
            return cls.from_trec_qrels(path)
        from pytest_tempoeval.data.gold_schema import read_gold_file

        return cls._from_content(read_gold_file(path), path)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> GoldSet:
        """Build from the same structure a YAML file holds (no line numbers in errors)."""
        from pytest_tempoeval.data.gold_schema import content_from_tree
        from pytest_tempoeval.data.readers.structured import tree_from_python

        return cls._from_content(content_from_tree(tree_from_python(data), source), source)

    @classmethod
    def _from_content(cls, content: GoldContent, path: str | Path) -> GoldSet:
        return cls(
            content.queries,
            content.documents,
            name=content.name,
            k=content.k,
            path=path,
            grade_scale=content.grade_scale,
        )

    @classmethod
    def from_trec_qrels(cls, path: str | Path, name: str | None = None) -> GoldSet:
        """Read a TREC qrels file (``qid iter docid grade``) as trec_eval reads it. Queries have
        no text or focus time."""
        from pytest_tempoeval.data.readers.trec import read_trec_qrels

        path = Path(path)
        table, lines = read_trec_qrels(path)
        return cls._columnar(table, lines, path=path, name=name or path.stem)

    @classmethod
    def from_beir(
        cls, path: str | Path, split: str = "test", *, ignore_identical_ids: bool = True
    ) -> GoldSet:
        """Read a BEIR folder: ``corpus.jsonl`` (or ``.jsonl.gz``), ``queries.jsonl`` and
        ``qrels/<split>.tsv``. The queries are those the split judges.

        Documents are read when first needed (gold mode needs none). Their text is the title and
        the body, as BEIR's dense models see them; their focus time comes from a date field of the
        line or its ``metadata``, else from the text. ``ignore_identical_ids``: BEIR's evaluator
        drops a retrieved document whose id is its query's id; so do these metrics, unless this is
        False.
        """
        from pytest_tempoeval.data.readers.beir import read_beir

        folder = Path(path)
        beir = read_beir(folder, split)
        texts = {query_id: (text, focus) for query_id, (text, focus, _) in beir.queries.items()}
        return cls._columnar(
            beir.qrels,
            beir.qrels_lines,
            path=beir.qrels_path,
            name=folder.name,
            query_texts=texts,
            documents=beir.corpus,
            ignore_identical_ids=ignore_identical_ids,
        )

    @classmethod
    def from_ir_datasets(
        cls, dataset: IrDatasetLike | str, *, ignore_identical_ids: bool = False
    ) -> GoldSet:
        """Read an ir_datasets dataset: anything with ``docs_iter()``, ``queries_iter()`` and
        ``qrels_iter()``, or a dataset id (needs the ``ir_datasets`` extra; the dataset is
        downloaded by ir_datasets as usual). Documents are read on first access where the dataset
        has a docs store."""
        from pytest_tempoeval.data.readers.ir_datasets import read_ir_datasets

        found = read_ir_datasets(dataset)
        return cls._columnar(
            found.qrels,
            None,
            path=found.name,
            name=found.name,
            query_texts=found.queries,
            documents=found.documents,
            ignore_identical_ids=ignore_identical_ids,
        )

    @classmethod
    def from_records(
        cls,
        queries: Records = (),
        qrels: Records = (),
        documents: Records = (),
        *,
        name: str | None = None,
        k: int | None = None,
    ) -> GoldSet:
        """Build from plain records: dicts or tuples, or pandas/polars DataFrames of them.

        - queries: ``{"id"|"query_id"|"qid", "text", "focus_time"?}`` or ``(id, text)``;
        - qrels: ``{"query_id"|"qid", "doc_id"|"docid"|"corpus_id", "relevance"|"grade"|"score"}``
          or ``(query id, doc id, grade)`` or TREC's ``(query id, iteration, doc id, grade)``;
        - documents: ``{"id"|"doc_id", "text", "title"?, "date"?}`` or ``(id, text)``.

        Queries with judgments but no query record get no text; a query record with no judgment
        is kept (focus-time mode scores it).
        """
        from pytest_tempoeval.data.readers.records import read_records

        content = read_records(queries, qrels, documents)
        return cls(content.queries, content.documents, name=name, k=k, path="<records>")

    @classmethod
    def _columnar(
        cls,
        judgments: Ragged,
        lines: np.ndarray | None,
        *,
        path: str | Path,
        name: str | None,
        query_texts: Mapping[str, tuple[str | None, FocusTime | None]] | None = None,
        documents: Mapping[str, GoldDocument] | None = None,
        ignore_identical_ids: bool = False,
    ) -> GoldSet:
        """A gold set whose judgments stay columnar until a query is asked for (qrels files of
        millions of judgments)."""
        gold = cls.__new__(cls)
        gold.path, gold.name, gold.k = str(path), name, None
        gold.declared_grade_scale = None
        gold.ignore_identical_ids = ignore_identical_ids
        gold.documents = documents if documents is not None else {}
        gold._judgments, gold._judgment_lines = judgments, lines
        gold._query_texts = query_texts or {}
        gold._memo = {}
        return gold

    # -- queries ----------------------------------------------------------------------------------

    @property
    def queries(self) -> dict[str, GoldQuery]:
        """Query id -> query. Built on first use for qrels files (a million judgments stay
        columnar)."""
        if "_queries" not in self.__dict__:
            from pytest_tempoeval.data.gold_schema import GoldQuery

            table, lines, texts = self._judgments, self._judgment_lines, self._query_texts
            assert table is not None
            self._queries = {
                key: GoldQuery(
                    key,
                    *texts.get(key, (None, None)),
                    relevant=dict(zip(table.docs_of(index), table.values_of(index).tolist())),
                    line=None if lines is None else int(lines[table.offsets[index]]),
                )
                for index, key in enumerate(table.keys)
            }
        return self._queries

    def __len__(self) -> int:
        return len(self.query_ids)

    def __iter__(self) -> Iterator[GoldQuery]:
        return iter(self.queries.values())

    def __contains__(self, query_id: object) -> bool:
        return query_id in self.query_position

    def __repr__(self) -> str:
        return (
            f"GoldSet({self.name or self.path!r}, {len(self)} queries, "
            f"{len(self.documents)} documents)"
        )

    @cached_property
    def query_ids(self) -> tuple[str, ...]:
        if "_queries" not in self.__dict__:
            assert self._judgments is not None
            return self._judgments.keys
        return tuple(self._queries)

    @cached_property
    def query_position(self) -> dict[str, int]:
        """Query id -> its index in ``query_ids`` (the row of every per-query matrix)."""
        return {query_id: index for index, query_id in enumerate(self.query_ids)}

    def line_of(self, query_id: str) -> int | None:
        return self.queries[query_id].line

    def provenance_of(self, query_id: str) -> Mapping[str, Provenance]:
        """Doc id -> who judged it, for the query's judgments that are not a human's (empty for a
        hand-judged set; a qrels file's queries are not built to say so)."""
        if "_queries" not in self.__dict__:  # qrels, BEIR, ir_datasets: human judgments only
            return {}
        query = self._queries.get(query_id)
        return {} if query is None else query.provenance

    @cached_property
    def grade_scale(self) -> tuple[int, int]:
        """The scale ``(low, high)`` the grades are on: the declared one (a file's
        ``grade_scale: [low, high]``), else 0 to the largest grade, at least 1 (a set with no
        grade above 0 still tells relevant from not). The LLM judge's 0-4 grades are mapped onto
        it (:func:`~pytest_tempoeval.data.provenance.judge_grade_on_scale`)."""
        if self.declared_grade_scale is not None:
            return self.declared_grade_scale
        values = self.judgments.values
        largest = int(values.max()) if values.size else 0
        return 0, max(largest, 1)

    def query_focus_times(self) -> list[FocusTime | None]:
        """Each query's focus time (None: none given or found in its text), in ``query_ids``
        order; for a qrels file without building its queries."""
        if "_queries" not in self.__dict__:
            texts = self._query_texts
            return [texts[key][1] if key in texts else None for key in self.query_ids]
        return [query.focus_time for query in self._queries.values()]

    # -- derived data -----------------------------------------------------------------------------

    @property
    def judgments(self) -> Ragged:
        """Graded judgments per query, in ``query_ids`` order."""
        if self._judgments is None:
            import numpy as np

            from pytest_tempoeval.data.columns import ragged_from_lists

            queries = self._queries.values()
            self._judgments = ragged_from_lists(
                [q.id for q in queries],
                [list(q.relevant) for q in queries],
                [list(q.relevant.values()) for q in queries],
                np.int64,
            )
        return self._judgments

    def with_judgments(self, added: Mapping[str, Mapping[str, int]]) -> GoldSet:
        """This gold set with more judgments (query id -> doc id -> grade), for documents it does
        not judge yet: a new object, with its own memo (nothing derived from it reaches this
        one), sharing the documents and everything else. Gold mode's hole filling scores on it."""
        from dataclasses import replace

        for query_id, grades in added.items():
            judged = self.queries[query_id].relevant
            again = sorted(doc for doc in grades if doc in judged)
            if again:
                raise GoldSetError(
                    located(
                        self.path,
                        self.line_of(query_id),
                        f"query {query_id!r} already "
                        f"judges {', '.join(map(repr, again))}: only holes are added",
                    )
                )
        queries = [
            replace(query, relevant={**query.relevant, **added[query.id]})
            if added.get(query.id)
            else query
            for query in self.queries.values()
        ]
        _check_grades(queries, self.path)
        copy = GoldSet.__new__(GoldSet)
        copy.__dict__.update(
            {
                key: value
                for key, value in self.__dict__.items()
                if key not in _DERIVED  # cached views of the judgments, made anew
            }
        )
        copy._queries = {query.id: query for query in queries}
        copy._judgments, copy._judgment_lines, copy._memo = None, None, {}
        return copy

    def memo(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, once per ``key``: for data derived from this gold set (indexes, pools),
        which the gold set's immutability keeps valid."""
        if key not in self._memo:
            self._memo[key] = compute()
        return cast(T, self._memo[key])  # the key's compute() made it

    @cached_property
    def fingerprint(self) -> str:
        """sha256 of the gold set's content (not its formatting): baselines use it to notice
        changes."""
        import hashlib  # at first use: not on the import path of every process
        import json

        from pytest_tempoeval.data.corpus import LazyDocuments

        digest = hashlib.sha256()
        for query in self.queries.values():
            content: list[object] = [query.id, query.text, _as_json(query.focus_time)]
            content += [query.temporal_focus, sorted(query.relevant.items())]
            # Hashed only where given: a gold set without them keeps the fingerprint its
            # baselines were recorded with.
            if query.baseline_period is not None or query.comparison_period is not None:
                content += [_as_json(query.baseline_period), _as_json(query.comparison_period)]
            if query.key_time_anchors:
                content.append(_field(query, "key_time_anchors"))
            if query.provenance:  # who judged: hashed only for a set with an LLM's judgments
                content.append(_field(query, "provenance"))
            digest.update(json.dumps(content).encode())
        if self.declared_grade_scale is not None:
            digest.update(json.dumps(["grade_scale", *self.declared_grade_scale]).encode())
        if isinstance(self.documents, LazyDocuments):  # a corpus: hashed without reading it
            digest.update(self.documents.digest().encode())
            return digest.hexdigest()
        for document in sorted(self.documents.values(), key=lambda d: d.id):
            digest.update(
                json.dumps([document.id, document.text, _as_json(document.focus_time)]).encode()
            )
        return digest.hexdigest()

    def fingerprints(
        self, query_fields: tuple[str, ...], document_fields: tuple[str, ...] = ()
    ) -> tuple[dict[str, str], str]:
        """What a measure reads of this gold set, hashed: per query id, its ``query_fields``
        (``relevant``, ``focus_time``, ``text``, ``temporal_focus``, ``baseline_period``,
        ``comparison_period``); and, in one hash, what every query's score may read: the
        documents' ``document_fields`` (``focus_time``, ``text``) and the identical-ids rule. A
        baseline tells from them which queries changed for its measure (short hashes: they notice
        edits, they guard against no adversary)."""
        return self.memo(
            ("fingerprints", query_fields, document_fields),
            lambda: (
                {  # key_time_anchors, newer than the stored hashes, is hashed only when given
                    query.id: _short_hash(
                        [query.id, *(_field(query, f) for f in query_fields if _given(query, f))]
                    )
                    for query in self.queries.values()
                },
                self._documents_hash(document_fields),
            ),
        )

    def _documents_hash(self, fields: tuple[str, ...]) -> str:
        import hashlib  # at first use: not on the import path of every process
        import json

        from pytest_tempoeval.data.corpus import LazyDocuments

        digest = hashlib.sha256(json.dumps([self.ignore_identical_ids, fields]).encode())
        if fields and isinstance(self.documents, LazyDocuments):  # a corpus, hashed unread
            digest.update(self.documents.digest().encode())
        elif fields:
            for document in sorted(self.documents.values(), key=lambda d: d.id):
                digest.update(
                    json.dumps([document.id, *(_field(document, f) for f in fields)]).encode()
                )
        return digest.hexdigest()[:_SHORT_HASH]


_SHORT_HASH = 16  # hex digits: 64 bits
# What a gold set derives from its judgments and keeps (cached properties, memo): not copied by
# ``with_judgments``, whose judgments differ.
_DERIVED = frozenset({"fingerprint", "_memo", "_judgments", "_judgment_lines", "_queries"})


def _field(item: GoldQuery | GoldDocument, name: str) -> object:
    """A query's or document's field as JSON data, for hashing."""
    from pytest_tempoeval.data.focus_time import FocusTime

    value = getattr(item, name)
    if name == "relevant":
        return sorted(value.items())
    if name == "key_time_anchors":
        return [anchor.to_json() for anchor in value]
    if name == "provenance":
        return [
            [doc_id, judged.source, judged.reasoning, judged.prompt_hash]
            for doc_id, judged in sorted(value.items())
        ]
    return _as_json(value) if isinstance(value, FocusTime) else value


def _given(query: GoldQuery, name: str) -> bool:
    return name != "key_time_anchors" or bool(query.key_time_anchors)


def _short_hash(data: object) -> str:
    import hashlib
    import json

    return hashlib.sha256(json.dumps(data).encode()).hexdigest()[:_SHORT_HASH]


def _as_json(value: FocusTime | None) -> list[int | str] | None:
    return None if value is None else value.to_json()


def _index_by_id(items: list[Item], path: str, what: str) -> dict[str, Item]:
    indexed: dict[str, Item] = {}
    for item in items:
        if item.id in indexed:
            first = _id_line(indexed[item.id])
            raise GoldSetError(
                located(
                    path,
                    _id_line(item),
                    f"duplicate {what} id {item.id!r}"
                    + (f" (first at line {first})" if first else ""),
                )
            )
        indexed[item.id] = item
    return indexed


def _check_grades(queries: list[GoldQuery], path: str) -> None:
    """The loaders' rule for grades (a file's loader says more: its line, its record), for gold
    sets built from GoldQuery objects too: a grade past the bound overflows in the metrics."""
    for query in queries:
        for doc_id, grade in query.relevant.items():
            problem = grade_problem(grade)
            if problem is not None:
                message = f"query {query.id!r}: grade {grade!r} of doc {doc_id!r} {problem}"
                raise GoldSetError(located(path, query.line, message))


def _checked_scale(
    scale: tuple[int, int] | None, queries: list[GoldQuery], path: str
) -> tuple[int, int] | None:
    """The declared grade scale, checked: two integers, low < high, and every grade of 0 or more
    on it (a negative grade, from qrels, is judged non-relevant on any scale)."""
    if scale is None:
        return None
    from pytest_tempoeval.data.provenance import grade_scale_problem

    problem = grade_scale_problem(scale)
    if problem is not None:
        raise GoldSetError(located(path, None, problem))
    low, high = int(scale[0]), int(scale[1])
    for query in queries:
        for doc_id, grade in query.relevant.items():
            if grade >= 0 and not low <= grade <= high:
                message = (
                    f"query {query.id!r}: grade {grade} of doc {doc_id!r} is outside the gold "
                    f"set's grade_scale [{low}, {high}]; fix the grade, or widen grade_scale"
                )
                raise GoldSetError(located(path, query.line, message))
    return low, high


def _check_provenance(queries: list[GoldQuery], path: str) -> None:
    """Provenance given in Python: for a judged document, and well formed."""
    from pytest_tempoeval.data.provenance import provenance_problem

    for query in queries:
        for doc_id, judged in query.provenance.items():
            if doc_id not in query.relevant:
                message = (
                    f"query {query.id!r}: provenance is given for doc {doc_id!r}, which "
                    "'relevant' does not judge; judge it, or remove its provenance"
                )
                raise GoldSetError(located(path, query.line, message))
            problem = provenance_problem(judged)
            if problem is not None:
                message = f"query {query.id!r}: the judgment of doc {doc_id!r}: {problem}"
                raise GoldSetError(located(path, query.line, message))


def _id_line(item: GoldQuery | GoldDocument) -> int | None:
    return getattr(item, "id_line", None) or item.line
