"""GoldSet: a golden query set (queries, their focus times and graded judgments, document annotations).

File format (YAML or JSON; see the README for the full reference)::

    version: 1
    name: elections              # optional
    k: 10                        # optional default cutoff
    documents:                   # optional corpus annotations
      d1:
        text: "Biden won the 2020 election ..."
        focus_time: [2020, "2016-2018"]      # derived from text when absent
    queries:
      - id: q1
        text: "Who won the US presidential election in 2020?"
        focus_time: 2020                     # derived from text when absent
        temporal_focus: specific_time
        relevant: {d1: 3, d7: 1}             # a list means grade 1

Every problem raises :class:`GoldSetError` starting with ``path:line:`` and naming the value.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import FocusTimeError, GoldSetError, located
from .focus_time import FocusTime

if TYPE_CHECKING:
    import numpy as np

    from .columns import HashIndex, Ragged

TREC_QRELS_FORMAT = "qid iter docid grade"
_TOP_KEYS = ("version", "name", "k", "documents", "queries")
_QUERY_KEYS = ("id", "text", "focus_time", "temporal_focus", "relevant")
_DOCUMENT_KEYS = ("text", "focus_time")
_MAX_GOLD_BYTES = 512 * 1024 * 1024


@dataclass(frozen=True)
class GoldQuery:
    id: str
    text: str | None = None
    focus_time: FocusTime | None = (
        None  # None: unknown (no focus_time given and no text to read it from)
    )
    temporal_focus: str | None = None
    relevant: Mapping[str, int] = field(default_factory=dict)
    line: int | None = None


@dataclass(frozen=True)
class GoldDocument:
    id: str
    text: str | None = None
    focus_time: FocusTime | None = None
    line: int | None = None


class GoldSet:
    """Queries with focus times and graded judgments, plus optional document annotations."""

    def __init__(
        self,
        queries: Mapping[str, GoldQuery] | list[GoldQuery],
        documents: Mapping[str, GoldDocument] | list[GoldDocument] | None = None,
        *,
        name: str | None = None,
        k: int | None = None,
        path: str | Path | None = None,
    ) -> None:
        self.path = str(path) if path is not None else "<gold set>"
        self.name = name
        self.k = k
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
        self.documents: dict[str, GoldDocument] = _index_by_id(document_list, self.path, "document")
        self._judgments: Ragged | None = None
        self._judgment_lines: np.ndarray | None = None

    # -- loading ----------------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path) -> GoldSet:
        """Load a gold set from YAML (``.yaml``/``.yml``) or JSON (``.json``)."""
        path = Path(path)
        if not path.is_file():
            raise GoldSetError(f"{path}: no such gold set file")
        if path.stat().st_size > _MAX_GOLD_BYTES:
            raise GoldSetError(
                located(path, None, "file larger than 512 MiB: split it or use from_trec_qrels")
            )
        from .gold_file import read_tree

        return cls.from_tree(read_tree(path), path)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> GoldSet:
        """Build from the same structure a YAML file holds (no line numbers in errors)."""
        from .gold_file import tree_from_python

        return cls.from_tree(tree_from_python(data), source)

    @classmethod
    def from_tree(cls, tree: Any, path: str | Path) -> GoldSet:
        from .gold_file import build_gold_set

        return build_gold_set(cls, tree, str(path))

    @classmethod
    def from_trec_qrels(cls, path: str | Path, name: str | None = None) -> GoldSet:
        """Read a TREC qrels file (``qid iter docid grade``). Queries have no text or focus time."""
        from .trec_qrels import read_trec_qrels

        path = Path(path)
        table, lines = read_trec_qrels(path)
        gold = cls.__new__(cls)
        gold.path, gold.name, gold.k = str(path), name or path.stem, None
        gold.documents = {}
        gold._judgments, gold._judgment_lines = table, lines
        return gold

    # -- queries ----------------------------------------------------------------------------------

    @property
    def queries(self) -> dict[str, GoldQuery]:
        """Query id -> query. Built on first use for qrels files (a million judgments stay columnar)."""
        if "_queries" not in self.__dict__:
            table = self._judgments
            assert table is not None and self._judgment_lines is not None
            self._queries = {
                key: GoldQuery(
                    key,
                    relevant=dict(zip(table.docs_of(index), table.values_of(index).tolist())),
                    line=int(self._judgment_lines[table.offsets[index]]),
                )
                for index, key in enumerate(table.keys)
            }
        return self._queries

    def __len__(self) -> int:
        return len(self._judgments.keys) if "_queries" not in self.__dict__ else len(self._queries)

    def __iter__(self) -> Iterator[GoldQuery]:
        return iter(self.queries.values())

    def __contains__(self, query_id: object) -> bool:
        return query_id in self.query_ids

    def __repr__(self) -> str:
        return f"GoldSet({self.name or self.path!r}, {len(self)} queries, {len(self.documents)} documents)"

    @cached_property
    def query_ids(self) -> tuple[str, ...]:
        return self._judgments.keys if "_queries" not in self.__dict__ else tuple(self._queries)

    @cached_property
    def query_position(self) -> dict[str, int]:
        return {query_id: index for index, query_id in enumerate(self.query_ids)}

    def line_of(self, query_id: str) -> int | None:
        return self.queries[query_id].line

    # -- columnar views used by the metrics -------------------------------------------------------

    @property
    def judgments(self) -> Ragged:
        """Graded judgments per query, in ``query_ids`` order."""
        if self._judgments is None:
            import numpy as np

            from .columns import ragged_from_lists

            queries = self._queries.values()
            self._judgments = ragged_from_lists(
                [q.id for q in queries],
                [list(q.relevant) for q in queries],
                [list(q.relevant.values()) for q in queries],
                np.int64,
            )
        return self._judgments

    @cached_property
    def judgment_index(self) -> HashIndex:
        """Hash index of (query position, doc id) for every judgment."""
        from .columns import HashIndex, id_words

        table = self.judgments
        return HashIndex(id_words(table.doc_ids), table.group_of_rows())

    @cached_property
    def fingerprint(self) -> str:
        """sha256 of the gold set's content (not its formatting): baselines use it to notice changes."""
        digest = hashlib.sha256()
        for query in self.queries.values():
            digest.update(
                json.dumps(
                    [
                        query.id,
                        query.text,
                        _ft(query.focus_time),
                        query.temporal_focus,
                        sorted(query.relevant.items()),
                    ]
                ).encode()
            )
        for document in sorted(self.documents.values(), key=lambda d: d.id):
            digest.update(
                json.dumps([document.id, document.text, _ft(document.focus_time)]).encode()
            )
        return digest.hexdigest()


def _ft(value: FocusTime | None) -> list[Any] | None:
    return None if value is None else value.to_json()


def _index_by_id(items: list[Any], path: str, what: str) -> dict[str, Any]:
    indexed: dict[str, Any] = {}
    for item in items:
        if item.id in indexed:
            first = indexed[item.id].line
            raise GoldSetError(
                located(
                    path,
                    item.line,
                    f"duplicate {what} id {item.id!r}"
                    + (f" (first at line {first})" if first else ""),
                )
            )
        indexed[item.id] = item
    return indexed


def did_you_mean(key: str, allowed: tuple[str, ...]) -> str:
    # Case-insensitive, so "ID" and "Relevant" find their key too.
    lowered = {name.lower(): name for name in allowed}
    close = [lowered[match] for match in difflib.get_close_matches(key.lower(), lowered, n=1)]
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown key {key!r}{hint} (allowed: {', '.join(allowed)})"


def parse_focus_time(value: Any, path: str, line: int | None, owner: str) -> FocusTime:
    try:
        return FocusTime.parse(value)
    except FocusTimeError as error:
        raise GoldSetError(
            located(path, line, f"{owner}: bad focus_time {value!r}: {error}")
        ) from None
