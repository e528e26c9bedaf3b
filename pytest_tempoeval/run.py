"""Run: the ranked results of a retriever, per query.

Accepted forms (all end up in the same columnar :class:`~pytest_tempoeval.columns.Ragged` table):

- ``Run({"q1": ["d3", "d1"]})``: ids in rank order;
- ``Run({"q1": [("d3", 12.5), ("d1", 9.0)]})``: scored ids, ranked as trec_eval ranks them;
- ``Run({"q1": [("d3", "text of d3"), ...]})``: ids with their text, in rank order (the text gives
  the document a focus time, and the LLM judge something to read);
- ``Run.load(path)``: a TREC run file (``qid Q0 docid rank score tag``) or JSON;
- ``Run.from_retriever(fn, gold, k=10)``: calls ``fn(query_text)`` for every gold query.

trec_eval ignores the rank column and orders each query's documents by score, descending, breaking
ties by doc id, descending (``strcmp``). Scored runs here are ordered the same way, so a metric
computed from a dict, a JSON file or a TREC file of the same run gives the same value.
"""

from __future__ import annotations

import inspect
import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cached_property
from numbers import Real
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import RunError, located

if TYPE_CHECKING:
    import numpy as np

    from .columns import Ragged
    from .goldset import GoldSet

TREC_RUN_FORMAT = "qid Q0 docid rank score tag"


class Run(Mapping[str, list[str]]):
    """Ranked doc ids per query. Behaves as a read-only mapping ``query id -> [doc ids in rank order]``."""

    def __init__(self, rankings: Mapping[Any, Iterable[Any]] | Run, *, source: str = "<run>") -> None:
        if isinstance(rankings, Run):
            self.__dict__.update(rankings.__dict__)
            return
        if not isinstance(rankings, Mapping):
            raise RunError(f"{source}: a run is a mapping of query id -> ranked results, got {type(rankings).__name__}")
        if not rankings:
            raise RunError(f"{source}: the run is empty: it has no queries")
        keys: list[str] = []
        groups: list[list[str]] = []
        scores: list[list[float]] = []
        texts: dict[str, str] = {}
        any_scored = False
        for raw_query, results in rankings.items():
            query_id = _check_id(raw_query, f"{source}: query id")
            docs, doc_scores, scored = _read_ranking(query_id, results, texts, source)
            any_scored |= scored
            keys.append(query_id)
            groups.append(docs)
            scores.append(doc_scores)
        self._init_table(_ragged_from_python(keys, groups, scores, any_scored), texts, source, any_scored)

    def _init_table(self, table: Ragged, texts: dict[str, str], source: str, scored: bool, lines: Any = None) -> None:
        self._table = table
        self._texts = texts
        self._source = source
        self._scored = scored
        self._lines = lines  # file line of every row (TREC files), for error messages
        self._query_position = {query_id: index for index, query_id in enumerate(table.keys)}
        self._cache: dict[Any, Any] = {}  # alignments with gold sets, keyed by gold set identity

    # -- constructors -----------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path) -> Run:
        """Read a TREC run file, or JSON when the file name ends in ``.json``."""
        path = Path(path)
        if not path.is_file():
            raise RunError(f"{path}: no such run file")
        if path.suffix.lower() == ".json":
            return cls.from_json(path)
        return cls.from_trec(path)

    @classmethod
    def from_json(cls, path: str | Path) -> Run:
        """JSON ``{"q1": ["d1", ...]}``, ``{"q1": {"d1": 12.5, ...}}`` or ``{"q1": [["d1", 12.5], ...]}``."""
        path = Path(path)
        text = path.read_text(encoding="utf-8")
        try:
            data = json.loads(text, parse_constant=_reject_constant)
        except json.JSONDecodeError as error:
            raise RunError(located(path, error.lineno, f"invalid JSON: {error.msg}")) from None
        except ValueError as error:
            raise RunError(located(path, None, str(error))) from None
        if not isinstance(data, dict):
            raise RunError(located(path, 1, "a JSON run is an object mapping query id -> ranked results"))
        normalized = {
            query: list(results.items()) if isinstance(results, dict) else results for query, results in data.items()
        }
        try:
            return cls(normalized, source="")
        except RunError as error:
            line = _json_line(text, getattr(error, "query_id", None))
            raise RunError(located(path, line, str(error).removeprefix(": "))) from None

    @classmethod
    def from_trec(cls, path: str | Path) -> Run:
        """Read a TREC run file, ordered exactly as trec_eval orders it."""
        from .trec_run import read_trec_run

        run = cls.__new__(cls)
        table, lines = read_trec_run(Path(path))
        run._init_table(table, {}, str(path), True, lines)
        return run

    @classmethod
    def from_retriever(
        cls, retrieve: Callable[..., Iterable[Any]], gold: GoldSet, k: int | None = None
    ) -> Run:
        """Call ``retrieve(query_text)`` for every gold query and keep the first ``k`` results.

        ``retrieve`` may return ids, ``(id, score)`` or ``(id, text)`` pairs, or dicts with ``id`` and
        optional ``score``/``text``. If it accepts a ``k`` keyword argument, ``k`` is passed to it.
        """
        from .metrics import check_k

        k = check_k(k if k is not None else gold.k or 10)
        takes_k = _accepts_keyword(retrieve, "k")
        rankings: dict[str, list[Any]] = {}
        for query in gold.queries.values():
            if query.text is None:
                raise RunError(
                    located(gold.path, query.line, f"query {query.id!r} has no text to send to the retriever")
                )
            try:
                results = retrieve(query.text, k=k) if takes_k else retrieve(query.text)
            except Exception as error:
                raise RunError(f"the retriever failed on query {query.id!r} ({query.text!r}): {error!r}") from error
            rankings[query.id] = [_from_retriever_item(item, query.id) for item in list(results)[:k]]
        return cls(rankings, source=f"retriever {getattr(retrieve, '__name__', retrieve)!r}")

    # -- mapping interface ------------------------------------------------------------------------

    def __getitem__(self, query_id: str) -> list[str]:
        return self._table.docs_of(self._query_position[query_id])

    def __iter__(self) -> Iterator[str]:
        return iter(self._table.keys)

    def __len__(self) -> int:
        return len(self._table.keys)

    def __repr__(self) -> str:
        return f"Run({len(self)} queries, {self._table.doc_ids.size} results, source={self._source!r})"

    @property
    def query_ids(self) -> tuple[str, ...]:
        return self._table.keys

    @property
    def source(self) -> str:
        return self._source

    @property
    def texts(self) -> Mapping[str, str]:
        """Doc id -> text, for results that came with their text."""
        return self._texts

    @property
    def table(self) -> Ragged:
        """The columnar form metrics work on."""
        return self._table

    def scores(self, query_id: str) -> list[float] | None:
        """Scores of a query's results in rank order, or None for an unscored run."""
        if not self._scored:
            return None
        return self._table.values_of(self._query_position[query_id]).tolist()

    def line_of(self, query_id: str) -> int | None:
        """File line where a query's results start (TREC files), for error messages."""
        if self._lines is None:
            return None
        return int(self._lines[self._table.offsets[self._query_position[query_id]]])

    def to_trec(self, path: str | Path, tag: str = "tempoeval") -> None:
        """Write a TREC run file. Unscored runs get descending scores that keep their order."""
        with Path(path).open("w", encoding="utf-8") as out:
            for query_id in self:
                docs = self[query_id]
                scores = self.scores(query_id) or [float(len(docs) - rank) for rank in range(len(docs))]
                out.writelines(
                    f"{query_id} Q0 {doc} {rank} {score!r} {tag}\n"
                    for rank, (doc, score) in enumerate(zip(docs, scores), start=1)
                )

    @cached_property
    def _doc_words(self) -> np.ndarray:
        from .columns import id_words

        return id_words(self._table.doc_ids)


# -- helpers ------------------------------------------------------------------------------------------


def _check_id(value: Any, what: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise RunError(f"{what} must be a string, got {value!r} ({type(value).__name__})")
    text = str(value)
    if not text or text != text.strip() or "\x00" in text:
        raise RunError(f"{what} {value!r} is empty or has surrounding whitespace or a NUL byte")
    return text


def _read_ranking(
    query_id: str, results: Iterable[Any], texts: dict[str, str], source: str
) -> tuple[list[str], list[float], bool]:
    try:
        return _read_ranking_items(query_id, results, texts, source)
    except RunError as error:
        error.query_id = query_id  # type: ignore[attr-defined]  # lets JSON loading find the line
        raise


def _read_ranking_items(
    query_id: str, results: Iterable[Any], texts: dict[str, str], source: str
) -> tuple[list[str], list[float], bool]:
    if isinstance(results, (str, bytes)) or not isinstance(results, Iterable):
        raise RunError(f"{source}: query {query_id!r}: results must be a list, got {type(results).__name__}")
    docs: list[str] = []
    scores: list[float] = []
    seen: set[str] = set()
    for rank, item in enumerate(results, start=1):
        where = f"{source}: query {query_id!r}, rank {rank}"
        if isinstance(item, (tuple, list)) and len(item) == 2:
            doc_id = _check_id(item[0], f"{where}: doc id")
            second = item[1]
            if isinstance(second, str):
                _remember_text(texts, doc_id, second, where)
            elif isinstance(second, Real) and not isinstance(second, bool):
                if not math.isfinite(second):
                    raise RunError(f"{where}: doc {doc_id!r} has score {second!r}; scores must be finite numbers")
                scores.append(float(second))
            else:
                raise RunError(f"{where}: expected (doc id, score) or (doc id, text), got {item!r}")
        else:
            doc_id = _check_id(item, f"{where}: doc id")
        if doc_id in seen:
            raise RunError(f"{where}: doc {doc_id!r} appears twice in the ranking of query {query_id!r}")
        seen.add(doc_id)
        docs.append(doc_id)
    if scores and len(scores) != len(docs):
        raise RunError(f"{source}: query {query_id!r}: some results have scores and some do not")
    return docs, scores, bool(scores)


def _remember_text(texts: dict[str, str], doc_id: str, text: str, where: str) -> None:
    previous = texts.setdefault(doc_id, text)
    if previous != text:
        raise RunError(f"{where}: doc {doc_id!r} comes with two different texts in this run")


def _ragged_from_python(keys: list[str], groups: list[list[str]], scores: list[list[float]], scored: bool) -> Ragged:
    import numpy as np

    from .columns import ragged_from_lists

    if not scored:
        return ragged_from_lists(keys, groups, [[0.0] * len(group) for group in groups], np.float64)
    for index, (docs, doc_scores) in enumerate(zip(groups, scores)):
        if not doc_scores and docs:
            raise RunError(f"query {keys[index]!r} has unscored results in a scored run")
        # trec_eval order: score descending, then doc id descending (byte order of UTF-8 = strcmp).
        ranked = sorted(zip(doc_scores, (doc.encode() for doc in docs)), reverse=True)
        groups[index] = [doc.decode() for _, doc in ranked]
        scores[index] = [score for score, _ in ranked]
    return ragged_from_lists(keys, groups, scores, np.float64)


def _from_retriever_item(item: Any, query_id: str) -> Any:
    if isinstance(item, Mapping):
        if "id" not in item:
            raise RunError(f"query {query_id!r}: the retriever returned a dict without an 'id': {item!r}")
        if "text" in item:
            return (item["id"], item["text"])
        if "score" in item:
            return (item["id"], item["score"])
        return item["id"]
    return item


def _accepts_keyword(function: Callable[..., Any], name: str) -> bool:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == name or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a valid score: scores must be finite numbers")


def _json_line(text: str, query_id: str | None) -> int | None:
    """Line of a query's key in a JSON file (the json module keeps no positions after parsing)."""
    if query_id is None:
        return None
    position = text.find(json.dumps(query_id))
    return text.count("\n", 0, position) + 1 if position >= 0 else None
