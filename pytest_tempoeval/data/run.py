"""Run: the ranked results of a retriever, per query.

Accepted forms (all end up in the same columnar :class:`~pytest_tempoeval.data.columns.Ragged`
table):

- ``Run({"q1": ["d3", "d1"]})``: ids in rank order;
- ``Run({"q1": [("d3", 12.5), ("d1", 9.0)]})``: scored ids, ranked as trec_eval ranks them;
- ``Run({"q1": [("d3", "text of d3"), ...]})``: ids with their text, in rank order (the text gives
  the document a focus time, and the LLM judge something to read). A string that reads as a number
  (``("d3", "12.5")``) is a score written as a string, and an error: read as a text, the judge
  would see "12.5" as the document. A text that is only a number goes in ``texts=``;
- ``Run({"q1": [("d3", 12.5), ...]}, texts={"d3": "text of d3"})``: texts beside the rankings,
  scored or not;
- ``Run.load(path)``: a TREC run file (``qid Q0 docid rank score tag``) or JSON;
- ``Run.from_retriever(retriever, gold, k=10)``: asks a function, or a LangChain, LlamaIndex or
  Haystack retriever, every gold query's text (:mod:`pytest_tempoeval.data.retrievers`).

trec_eval ignores the rank column and orders each query's documents by score, descending, breaking
ties by doc id, descending (``strcmp``). Scored runs here are ordered the same way, so a metric
computed from a dict, a JSON file or a TREC file of the same run gives the same value.

One module on purpose, though longer than most: every accepted form of a run (mappings, scored
pairs, texts, TREC, JSON) lands in the same table through the same id and score checks, which stay
beside the class they guard.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from numbers import Real
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from pytest_tempoeval.constants import DEFAULT_K
from pytest_tempoeval.data.values import (
    PLAIN_ID,
    check_k,
    id_problem,
    short_repr,
    string_score_problem,
)
from pytest_tempoeval.errors import RunError, RunWarning, located, warn
from pytest_tempoeval.files import regular_file_problem

if TYPE_CHECKING:
    import numpy as np

    from pytest_tempoeval.data.columns import Ragged
    from pytest_tempoeval.data.focus_time import FocusTime
    from pytest_tempoeval.data.goldset import GoldSet
    from pytest_tempoeval.data.readers.structured import LineDict
    from pytest_tempoeval.data.retrievers import RetrieverLike

T = TypeVar("T")
TREC_RUN_FORMAT = "qid Q0 docid rank score tag"  # (the TREC reader is imported only when needed)


class Run(Mapping[str, list[str]]):
    """Ranked doc ids per query: a read-only mapping ``query id -> [doc ids in rank order]``."""

    def __init__(
        self,
        rankings: Mapping[Any, Any] | Run,
        *,
        source: str = "<run>",
        texts: Mapping[str, str] | None = None,
    ) -> None:
        """``texts`` (doc id -> text) gives documents their texts beside the rankings: for a
        scored run, or a text that is only a number (a pair's string that reads as a number is
        taken for a score written as a string, and refused)."""
        if isinstance(rankings, Run):
            if texts is not None:
                raise RunError("texts= goes with rankings given as a mapping, not with a Run")
            self.__dict__.update(rankings.__dict__)
            return
        given = _checked_texts(texts, source)
        table, texts, scored = _table_from_python(rankings, source, texts=given)
        self._init_table(table, texts, source, scored)

    def _init_table(
        self,
        table: Ragged,
        texts: dict[str, str],
        source: str,
        scored: bool,
        lines: np.ndarray | None = None,
        focus_times: dict[str, FocusTime] | None = None,
    ) -> None:
        self._table = table
        self._texts = texts
        self._focus_times = focus_times or {}
        self._source = source
        self._scored = scored
        self._lines = lines  # file line where each query's results start (TREC files), for errors
        self._query_position = {query_id: index for index, query_id in enumerate(table.keys)}
        self._memo: dict[Hashable, object] = {}  # key -> what its compute() returned

    # -- constructors -----------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path) -> Run:
        """Read a TREC run file, or JSON when the file name ends in ``.json``."""
        path = Path(path)
        if problem := regular_file_problem(path, "run file"):
            raise RunError(problem)
        if path.stat().st_size == 0:
            raise RunError(
                located(
                    path,
                    1,
                    f"the run file is empty; expected TREC run lines '{TREC_RUN_FORMAT}' "
                    '(or, in a .json file, an object like {"q1": ["d3", "d1"]})',
                )
            )
        if path.suffix.lower() == ".json":
            return cls.from_json(path)
        return cls.from_trec(path)

    @classmethod
    def from_json(cls, path: str | Path) -> Run:
        """JSON ``{"q1": ["d1", ...]}``, ``{"q1": {"d1": 12.5, ...}}`` or
        ``{"q1": [["d1", 12.5], ...]}``.

        Errors name the line of the offending result (or of its query). Duplicate keys, which
        ``json.loads`` would silently drop, are errors too.
        """
        # Imported here: a TREC run needs none of the JSON and YAML readers.
        from pytest_tempoeval.data.readers.structured import (
            LineDict,
            Source,
            read_text,
            strict_json,
        )

        path = Path(path)
        text = read_text(path, RunError, "run file")
        data: Any = strict_json(text, Source(path, RunError))  # errors with their line
        if not isinstance(data, dict):
            raise RunError(
                located(
                    path,
                    getattr(_json_with_lines(path, text), "line", None) or 1,
                    "a JSON run is an object mapping query id -> ranked results, "
                    '{"q1": ["d3", "d1"]} or {"q1": {"d3": 12.5, "d1": 9.0}}',
                )
            )
        try:
            table, texts, scored = _table_from_python(data, "")
        except RunError as error:
            tree = data if isinstance(data, LineDict) else _json_with_lines(path, text)
            query_id, rank = getattr(error, "query_id", None), getattr(error, "rank", None)
            line = _json_line(tree, query_id, rank) or tree.line
            raise RunError(located(path, line, getattr(error, "detail", str(error)))) from None
        run = cls.__new__(cls)
        run._init_table(table, texts, str(path), scored)
        return run

    @classmethod
    def from_trec(cls, path: str | Path) -> Run:
        """Read a TREC run file, ordered exactly as trec_eval orders it."""
        from pytest_tempoeval.data.readers.trec import read_trec_run

        run = cls.__new__(cls)
        table, lines = read_trec_run(Path(path))
        run._init_table(table, {}, str(path), True, lines)
        return run

    @classmethod
    def from_retriever(
        cls,
        retriever: RetrieverLike,
        gold: GoldSet,
        k: int | None = None,
        *,
        max_concurrency: int = 16,
        id_key: str | None = None,
        timeout: float | None = None,
    ) -> Run:
        """Ask ``retriever`` every gold query's text and keep the top ``k`` results.

        ``retriever`` may be a function of the query text (``k=`` is passed when it takes it;
        async ones are awaited), a LangChain retriever (``invoke``/``ainvoke``), a LlamaIndex
        retriever (``retrieve``/``aretrieve``) or a Haystack component (``run``). Results may be
        ids, ``(id, score)`` or ``(id, text)`` pairs, dicts with ``id`` and optional
        ``score``/``text``/``metadata``, a ``{id: score}`` mapping, or the frameworks' documents;
        ``id_key`` names the metadata key holding your doc id when a framework's own id is not it.

        Async retrievers run ``max_concurrency`` queries at a time; sync ones one at a time, in a
        worker thread (so a sync retriever may call ``asyncio.run`` itself). ``timeout``: the
        seconds each query may take; a query that takes longer is a RunError naming it (a sync
        call is abandoned in its thread; by default, no limit). Scored results are put in
        trec_eval's order (score descending, ties by doc id descending); unscored ones keep the
        retriever's order (mixing the two is an error). Texts become the documents' texts and
        metadata dates their focus times. Inside a running event loop, use :meth:`afrom_retriever`.

        A retriever that returns fewer than ``k`` results for most queries (LangChain's vector
        stores return 4 unless told otherwise) gets a :class:`~pytest_tempoeval.RunWarning` naming
        its setting: the missing ranks count as not relevant.
        """
        import asyncio

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            retrieved = cls._retrieved(
                retriever, gold, k, max_concurrency=max_concurrency, id_key=id_key, timeout=timeout
            )
            run, warning = asyncio.run(retrieved)
            if warning is not None:
                warn(warning)  # here, not in the event loop: it points at the caller's line
            return run
        raise RunError(
            "Run.from_retriever() was called inside a running event loop; use "
            "await Run.afrom_retriever(...)"
        )

    @classmethod
    async def afrom_retriever(
        cls,
        retriever: RetrieverLike,
        gold: GoldSet,
        k: int | None = None,
        *,
        max_concurrency: int = 16,
        id_key: str | None = None,
        timeout: float | None = None,
    ) -> Run:
        """:meth:`from_retriever` for async code."""
        run, warning = await cls._retrieved(
            retriever, gold, k, max_concurrency=max_concurrency, id_key=id_key, timeout=timeout
        )
        if warning is not None:
            warn(warning)
        return run

    @classmethod
    async def _retrieved(
        cls,
        retriever: RetrieverLike,
        gold: GoldSet,
        k: int | None,
        *,
        max_concurrency: int,
        id_key: str | None,
        timeout: float | None,
    ) -> tuple[Run, RunWarning | None]:
        """The run a retriever gives, and the warning its caller should see, if any."""
        from pytest_tempoeval.data.retrievers import (
            Retriever,
            retrieve_all,
            short_results_warning,
        )

        k = check_k(k if k is not None else gold.k or DEFAULT_K)
        limit: object = max_concurrency  # checked: a caller's types are not
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise RunError(f"max_concurrency must be a positive integer, got {max_concurrency!r}")
        if timeout is not None and (
            isinstance(timeout, bool)
            or not isinstance(timeout, Real)
            or not _finite(timeout)
            or timeout <= 0
        ):
            raise RunError(
                f"timeout must be a positive number of seconds per query (or None), got {timeout!r}"
            )
        adapter = Retriever(retriever, k, id_key)
        queries = []
        for query in gold.queries.values():
            if query.text is None:
                raise RunError(
                    located(
                        gold.path,
                        query.line,
                        f"query {query.id!r} has no text to send to the retriever; give it a "
                        "'text:' or build the run another way (Run({...}), Run.load(path))",
                    )
                )
            queries.append((query.id, query.text))
        retrieval = await retrieve_all(adapter, queries, max_concurrency, timeout)
        rankings = {
            query_id: [doc if score is None else (doc, score) for doc, score in ranking]
            for query_id, ranking in retrieval.rankings.items()
        }
        source = f"retriever {adapter.name!r}"
        table, texts, scored = _table_from_python(rankings, source, limit=k, texts=retrieval.texts)
        run = cls.__new__(cls)
        kept = set(texts) | set(retrieval.focus_times)
        focus_times = {doc: ft for doc, ft in retrieval.focus_times.items() if doc in kept}
        run._init_table(table, texts, source, scored, focus_times=focus_times)
        return run, short_results_warning(adapter, retrieval, [query_id for query_id, _ in queries])

    # -- mapping interface ------------------------------------------------------------------------

    def __getitem__(self, query_id: str) -> list[str]:
        return self._table.docs_of(self._query_position[query_id])

    def __iter__(self) -> Iterator[str]:
        return iter(self._table.keys)

    def __len__(self) -> int:
        return len(self._table.keys)

    def __repr__(self) -> str:
        return f"Run({len(self)} queries, {self._table.n_rows} results, source={self._source!r})"

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
    def focus_times(self) -> Mapping[str, FocusTime]:
        """Doc id -> focus time, for results that came with a date (a retriever's metadata)."""
        return self._focus_times

    @property
    def table(self) -> Ragged:
        """The columnar form metrics work on."""
        return self._table

    def scores(self, query_id: str) -> list[float] | None:
        """Scores of a query's results in rank order, or None for an unscored run."""
        if not self._scored:
            return None
        scores: list[float] = self._table.values_of(self._query_position[query_id]).tolist()
        return scores

    def line_of(self, query_id: str) -> int | None:
        """File line where a query's results start (TREC files), for error messages."""
        if self._lines is None:
            return None
        return int(self._lines[self._query_position[query_id]])

    def to_trec(self, path: str | Path, tag: str = "tempoeval") -> None:
        """Write a TREC run file (``qid Q0 docid rank score tag``) that :meth:`load` reads back.

        Unscored runs get descending scores that keep their order. Scores are written with
        ``repr`` (shortest exact form), so they read back bit for bit. A query with an empty
        ranking has no line to write and is absent from the file, as in any TREC run. Ids with
        whitespace or control characters cannot be written (they would split the line): RunError.
        """
        _check_trec_token(tag, "tag")
        for query_id in self:
            _check_trec_token(query_id, "query id")
            for doc in self[query_id]:
                _check_trec_token(doc, f"doc id (query {query_id!r})")
        with Path(path).open("w", encoding="utf-8", newline="\n") as out:
            for query_id in self:
                docs = self[query_id]
                scores = self.scores(query_id) or [
                    float(len(docs) - rank) for rank in range(len(docs))
                ]
                out.writelines(
                    f"{query_id} Q0 {doc} {rank} {score!r} {tag}\n"
                    for rank, (doc, score) in enumerate(zip(docs, scores), start=1)
                )

    def without_rows(self, drop: np.ndarray) -> Run:
        """This run without the results where ``drop`` (one bool per result, in table order) is
        set; texts and focus times of the results kept stay."""
        import numpy as np

        run = type(self).__new__(type(self))
        table = self._table.select(np.flatnonzero(~drop))
        run._init_table(
            table, self._texts, self._source, self._scored, self._lines, self._focus_times
        )
        return run

    def memo(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, once per ``key``: for data derived from this run, or from this run and a
        gold set named in the key (alignments, joins), which both objects' immutability keeps
        valid."""
        if key not in self._memo:
            self._memo[key] = compute()
        return cast(T, self._memo[key])  # the key's compute() made it


# -- helpers ---------------------------------------------------------------------------------------


def _remember_text(
    texts: dict[str, str], doc_id: str, text: str, source: str, query_id: str, rank: int
) -> None:
    """One text per doc id: the same doc with two texts in one run is an error, not a silent
    pick."""
    if texts.setdefault(doc_id, text) != text:
        raise _run_error(
            source,
            f"query {query_id!r}, rank {rank}: doc {doc_id!r} comes with two different texts in "
            "this run",
            query_id,
            rank,
        )


def _checked_texts(texts: Mapping[str, str] | None, source: str) -> dict[str, str]:
    """``Run(..., texts=...)`` as a fresh dict of doc id -> text, or a RunError naming the entry."""
    if texts is None:
        return {}
    if not isinstance(texts, Mapping):
        raise _run_error(source, f"texts must map doc id -> text, got {type(texts).__name__}")
    for doc_id, text in texts.items():
        problem = id_problem(doc_id)
        if problem:
            raise _run_error(source, f"texts: doc id {problem}")
        if not isinstance(text, str):
            raise _run_error(
                source, f"texts: the text of doc {doc_id!r} must be a string, got {text!r:.60}"
            )
    return {str(doc_id): text for doc_id, text in texts.items()}


def _run_error(
    source: str, detail: str, query_id: str | None = None, rank: int | None = None
) -> RunError:
    """A RunError ``source: detail`` that remembers where it happened (JSON files find the line)."""
    error = RunError(f"{source}: {detail}" if source else detail)
    error.detail = detail  # type: ignore[attr-defined]
    error.query_id = query_id  # type: ignore[attr-defined]
    error.rank = rank  # type: ignore[attr-defined]
    return error


def _table_from_python(
    rankings: object, source: str, limit: int | None = None, texts: dict[str, str] | None = None
) -> tuple[Ragged, dict[str, str], bool]:
    """Validate rankings given as Python data; the columnar table in trec_eval's order."""
    if not isinstance(rankings, Mapping):
        raise _run_error(
            source,
            f"a run is a mapping of query id -> ranked results, got {type(rankings).__name__}",
        )
    if not rankings:
        raise _run_error(source, "the run is empty: it has no queries; add at least one ranking")
    keys: list[str] = []
    groups: list[list[str]] = []
    scores: list[list[float]] = []
    texts = {} if texts is None else texts
    scored_query: str | None = None
    unscored_query: str | None = None
    seen_queries: dict[str, object] = {}
    for raw_query, results in rankings.items():
        problem = id_problem(raw_query)
        if problem:
            raise _run_error(source, f"query id {problem}", query_id=str(raw_query))
        query_id = str(raw_query)
        if query_id in seen_queries:
            raise _run_error(
                source,
                f"query id {query_id!r} appears twice (keys {seen_queries[query_id]!r} and "
                f"{raw_query!r}); merge the two rankings",
                query_id=query_id,
            )
        seen_queries[query_id] = raw_query
        docs, doc_scores, scored = _read_ranking(query_id, results, texts, source)
        if docs:
            if scored:
                scored_query = scored_query or query_id
            else:
                unscored_query = unscored_query or query_id
            if scored_query is not None and unscored_query is not None:
                raise _run_error(
                    source,
                    f"query {scored_query!r} has scored results but query {unscored_query!r} "
                    "does not; give every result a score, or none",
                    query_id=query_id,
                )
        keys.append(query_id)
        groups.append(docs)
        scores.append(doc_scores)
    scored = scored_query is not None
    table = _ragged_from_python(keys, groups, scores, scored, limit)
    if limit is not None and texts:
        kept = set(table.docs_of_all())
        texts = {doc: text for doc, text in texts.items() if doc in kept}
    return table, texts, scored


def _read_ranking(
    query_id: str, results: object, texts: dict[str, str], source: str
) -> tuple[list[str], list[float], bool]:
    """Doc ids, their scores (empty when unscored) and whether the ranking is scored."""
    if isinstance(results, Mapping):
        items: list[Any] = list(results.items())
        for rank, (doc, score) in enumerate(items, start=1):
            if isinstance(score, bool) or not isinstance(score, Real):
                raise _run_error(
                    source,
                    f"query {query_id!r}: score {score!r} of doc {doc!r} is not a number; a "
                    "{doc id: score} mapping needs numeric scores",
                    query_id,
                    rank,
                )
    elif isinstance(results, (str, bytes)) or not isinstance(results, Iterable):
        raise _run_error(
            source,
            f"query {query_id!r}: results must be a list of doc ids, (doc id, score) or "
            f"(doc id, text) pairs, or a {{doc id: score}} mapping, got {type(results).__name__}",
            query_id,
        )
    else:
        items = list(results)
    if all(type(item) is str for item in items):  # the common case: plain ids, checked fast
        for rank, doc_id in enumerate(items, start=1):
            if PLAIN_ID.fullmatch(doc_id) is None:
                _check_doc_id(doc_id, query_id, rank, source)
        if len(set(items)) != len(items):
            _first_duplicate(items, query_id, source)
        return items, [], False
    docs: list[str] = []
    scores: list[float] = []
    first_rank: dict[str, int] = {}
    kinds: set[str] = set()
    for rank, item in enumerate(items, start=1):
        if isinstance(item, (tuple, list)) and len(item) == 2:
            raw_doc, second = item
            if isinstance(second, str):
                problem = string_score_problem(second, raw_doc)
                if problem is not None:
                    raise _run_error(
                        source,
                        f"query {query_id!r}, rank {rank}: {problem}; give it as a number, "
                        f"({raw_doc!r}, {float(second)!r}); a document text that is only a "
                        f"number goes in Run(..., texts={{{raw_doc!r}: {second!r}}})",
                        query_id,
                        rank,
                    )
                kinds.add("text")
            elif isinstance(second, Real) and not isinstance(second, bool):
                kinds.add("score")
                if not _finite(second):
                    raise _run_error(
                        source,
                        f"query {query_id!r}, rank {rank}: doc {raw_doc!r} has score "
                        f"{short_repr(second)}; "
                        "scores must be finite numbers (within float range)",
                        query_id,
                        rank,
                    )
            else:
                raise _run_error(
                    source,
                    f"query {query_id!r}, rank {rank}: expected (doc id, score) or "
                    f"(doc id, text), got {item!r}",
                    query_id,
                    rank,
                )
        else:
            raw_doc, second = item, None
            kinds.add("id")
        if type(raw_doc) is not str or PLAIN_ID.fullmatch(raw_doc) is None:
            _check_doc_id(raw_doc, query_id, rank, source)
        doc_id = str(raw_doc)
        if doc_id in first_rank:
            _first_duplicate([*docs, doc_id], query_id, source)
        if "score" in kinds and len(kinds) > 1:
            raise _run_error(
                source,
                f"query {query_id!r}, rank {rank}: some results of query {query_id!r} have "
                "scores and some do not; give every result a score, or none",
                query_id,
                rank,
            )
        if isinstance(second, str):
            _remember_text(texts, doc_id, second, source, query_id, rank)
        elif second is not None:
            scores.append(float(second))
        first_rank[doc_id] = rank
        docs.append(doc_id)
    return docs, scores, bool(scores)


def _check_doc_id(value: object, query_id: str, rank: int, source: str) -> None:
    problem = id_problem(value)
    if problem:
        raise _run_error(
            source, f"query {query_id!r}, rank {rank}: doc id {problem}", query_id, rank
        )


def _first_duplicate(docs: list[str], query_id: str, source: str) -> None:
    first_rank: dict[str, int] = {}
    for rank, doc_id in enumerate(docs, start=1):
        if doc_id in first_rank:
            raise _run_error(
                source,
                f"query {query_id!r}, rank {rank}: doc {doc_id!r} appears twice in the ranking of "
                f"query {query_id!r} (first at rank {first_rank[doc_id]}); trec_eval rejects "
                "duplicate documents",
                query_id,
                rank,
            )
        first_rank[doc_id] = rank


def _ragged_from_python(
    keys: list[str],
    groups: list[list[str]],
    scores: list[list[float]],
    scored: bool,
    limit: int | None = None,
) -> Ragged:
    import numpy as np

    from pytest_tempoeval.data.columns import Ragged, ragged_from_lists, trec_eval_order

    if not scored:
        scores = [[0.0] * len(group) for group in groups]
    table = ragged_from_lists(keys, groups, scores, np.float64)
    if scored:
        # float64 already (built so above): the cast is for the type, and copies nothing
        scores_f64 = table.values.astype(np.float64, copy=False)
        words, values = trec_eval_order(table.offsets, scores_f64, table.words)
        table = Ragged.from_words(
            table.keys, table.offsets, words, table.width or table.doc_ids.itemsize, values
        )
    return table if limit is None else table.head(limit)


def _check_trec_token(value: str, what: str) -> None:
    if not value or any(char.isspace() or ord(char) < 32 or ord(char) == 127 for char in value):
        raise RunError(
            f"cannot write {what} {value!r} to a TREC run file: TREC fields are separated by "
            "whitespace, so ids and the tag must be non-empty and contain no whitespace or "
            "control characters; rename it, or save the run as JSON"
        )


def _json_with_lines(path: Path, text: str) -> Any:
    """Parse again keeping line numbers; a syntax error becomes a RunError with its line."""
    from pytest_tempoeval.data.readers.structured import Source, json_tree

    return json_tree(text, Source(path, RunError))


def _json_line(data: LineDict, query_id: str | None, rank: int | None) -> int | None:
    """Line of the offending result (or of its query) in a JSON run parsed with line numbers."""
    from pytest_tempoeval.data.readers.structured import LineDict

    if query_id is None or query_id not in data:
        return None
    results = data[query_id]
    if rank is not None:
        lines: list[int | None] | None = getattr(results, "item_lines", None)
        if lines is None and isinstance(results, LineDict):
            lines = list(results.key_lines.values())
        if lines is not None and 0 < rank <= len(lines) and lines[rank - 1] is not None:
            return lines[rank - 1]
    return data.key_lines.get(query_id)


def _finite(value: Real) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer beyond float range
        return False
