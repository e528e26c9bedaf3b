"""Calling the retrievers teams have, and reading what they return, without depending on their
frameworks.

- a plain callable ``fn(query_text)`` (``k=`` is passed when it takes it), sync or async;
- LangChain: ``invoke``/``ainvoke`` returning ``Document`` objects (``.id`` or
  ``.metadata[id_key]``, ``.page_content``, ``.metadata``), or ``(Document, score)`` pairs;
- LlamaIndex: ``retrieve``/``aretrieve`` returning ``NodeWithScore`` (``.node.node_id``, ``.score``,
  ``.node.get_content()``, ``.node.metadata``);
- Haystack: a component whose ``run(query=...)`` returns ``{"documents": [...]}`` (``.id``,
  ``.content``, ``.score``, ``.meta``).

Async retrievers run concurrently, at most ``max_concurrency`` queries at a time; sync ones run one
query after the other (they may not be thread-safe), in a worker thread: outside the event loop that
runs the async ones, so a sync retriever may run asyncio itself (``asyncio.run``). A ``timeout``
bounds each query's call. What a result carries besides its id is kept:
its text becomes the document's text (llm mode reads it, focus-time mode reads its years), and a
date in its metadata its focus time.

A (doc id, string) pair is (doc id, text), unless the string reads as a number ("1.0"): that is a
score written as a string, and a RunError (read as a text, the judge would read "1.0" as the
document). A text that is only a number comes as a dict ``{"id": ..., "text": "2020"}`` or a
framework document. A retriever that returns fewer than ``k`` results for most queries gets a
:class:`~pytest_tempoeval.RunWarning` naming the setting to change.

One module on purpose, though longer than most: calling a retriever and reading what it returns are
decided together per framework (which method; which id, text and score fields), and the Protocols
describe the frameworks without importing them.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import queue
import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from numbers import Real
from typing import NoReturn, Protocol, TypeAlias

from pytest_tempoeval.data.focus_time import FocusTime
from pytest_tempoeval.data.metadata import metadata_focus_time
from pytest_tempoeval.data.values import id_problem, string_score_problem
from pytest_tempoeval.errors import RunError, RunWarning


# What Run.from_retriever accepts, for a type checker: the shapes below, read by duck typing.
class _Invokes(Protocol):  # LangChain
    def invoke(self, input: str, /) -> object: ...


class _AsyncInvokes(Protocol):
    def ainvoke(self, input: str, /) -> Awaitable[object]: ...


class _Retrieves(Protocol):  # LlamaIndex
    def retrieve(self, query: str, /) -> object: ...


class _AsyncRetrieves(Protocol):
    def aretrieve(self, query: str, /) -> Awaitable[object]: ...


class _Runs(Protocol):  # a Haystack component
    def run(self, *, query: str) -> object: ...


RetrieverLike: TypeAlias = (
    Callable[..., object] | _Invokes | _AsyncInvokes | _Retrieves | _AsyncRetrieves | _Runs
)
# A retriever's results, before they are read: a list, a {doc id: score} mapping, or anything it
# returned, which read_results refuses with a RunError naming what it got.
RawResults: TypeAlias = object


@dataclass
class Retrieval:
    """What a retriever returned for every query, read into plain values."""

    rankings: dict[str, list[tuple[str, float | None]]] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    focus_times: dict[str, FocusTime] = field(default_factory=dict)


class Retriever:
    """One retriever, however it is called."""

    def __init__(self, retriever: RetrieverLike, k: int, id_key: str | None) -> None:
        self.retriever, self.k, self.id_key = retriever, k, id_key
        self.name = _name(retriever)
        self.call, self.is_async = _calling(retriever, k)

    def depth_hint(self) -> str:
        """How to make this retriever return ``k`` results: the setting of its framework."""
        retriever, k = self.retriever, self.k
        search_kwargs = getattr(retriever, "search_kwargs", None)
        if isinstance(search_kwargs, Mapping):  # a LangChain VectorStoreRetriever
            asked = search_kwargs.get("k", "LangChain's default of 4")
            return f'it asks for {asked}: use as_retriever(search_kwargs={{"k": {k}}})'
        if _method(retriever, "ainvoke", "invoke"):
            return (
                f'set its k (LangChain vector stores: as_retriever(search_kwargs={{"k": {k}}}); '
                f"BM25Retriever: k={k})"
            )
        if _method(retriever, "aretrieve", "retrieve"):
            asked = getattr(retriever, "similarity_top_k", "LlamaIndex's default of 2")
            return f"it asks for {asked}: use as_retriever(similarity_top_k={k})"
        run = getattr(retriever, "run", None)
        if callable(run) and not callable(retriever):
            if _accepts(run, "top_k"):
                return f"its run() was asked for top_k={k}: its store may hold fewer documents"
            return f"set its top_k to {k} (its run() takes no top_k)"
        if _accepts(retriever, "k"):
            return f"it was called with k={k}: its index may hold fewer documents"
        return f"let it take a k= argument (k={k} is passed to it) or return {k} results"

    async def results(self, query_text: str, worker: Worker) -> RawResults:
        """What the retriever returns for one query; a sync one is called in ``worker``'s
        thread."""
        if self.is_async:
            results = self.call(query_text)
        else:
            results = await worker.call(lambda: _sync_results(self.call, query_text))
        if inspect.isawaitable(results):  # a sync-looking callable that returns a coroutine
            results = await results
        return _listed(results)


def _sync_results(call: Callable[[str], object], query_text: str) -> RawResults:
    """A sync call's results, listed in the worker thread: a generator runs retriever code too."""
    results = call(query_text)
    return results if inspect.isawaitable(results) else _listed(results)


def _listed(results: RawResults) -> RawResults:
    if isinstance(results, Mapping) and "documents" in results:  # a Haystack component
        results = results["documents"]
    if isinstance(results, Iterable) and not isinstance(results, (str, bytes, Mapping)):
        results = list(results)
    return results


class Worker:
    """One daemon thread that calls a sync retriever, a query at a time, outside the event loop:
    a retriever that runs asyncio itself cannot run inside a running loop. A daemon, so a call that
    never returns (abandoned at its timeout) keeps no process from exiting."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._closed = threading.Event()

    async def call(self, function: Callable[[], object]) -> object:
        """``function()``, run in the thread (with the caller's context variables)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[object] = loop.create_future()
        if self._thread is None:
            self._thread = threading.Thread(target=self._serve, name="tempoeval-retriever")
            self._thread.daemon = True
            self._thread.start()
        self._jobs.put((contextvars.copy_context(), function, loop, future))
        return await future

    def close(self) -> None:
        """Let the thread end once its current call, if any, returns; calls still queued (the
        run failed) are not made."""
        self._closed.set()
        if self._thread is not None:
            self._jobs.put(None)

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not None:
            if self._closed.is_set():
                continue
            context, function, loop, future = job
            outcome: tuple[object, BaseException | None]
            try:
                outcome = (context.run(function), None)
            # Any exception, SystemExit too, goes to the caller: else it would wait forever.
            except BaseException as error:  # noqa: BLE001
                outcome = (None, error)
            try:
                loop.call_soon_threadsafe(_settle, future, *outcome)
            except RuntimeError:  # the loop is closed: the run ended (a timeout) before this call
                pass


# A call the worker makes: in this context, this function, answered on this loop's future.
_Job: TypeAlias = tuple[
    contextvars.Context, Callable[[], object], asyncio.AbstractEventLoop, "asyncio.Future[object]"
]


def _settle(future: asyncio.Future[object], result: object, error: BaseException | None) -> None:
    if future.cancelled():  # timed out, or another query failed
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


def short_results_warning(
    retriever: Retriever, retrieval: Retrieval, query_ids: list[str]
) -> RunWarning | None:
    """A warning when the retriever returned fewer than ``k`` results for most queries: the metrics
    count the missing ranks as not relevant (P@k divides by k), which a wrong setting, such as
    LangChain's default of 4 documents, makes look like a bad retriever."""
    import statistics

    k = retriever.k
    short = [n for n in (len(retrieval.rankings[q]) for q in query_ids) if n < k]
    if 2 * len(short) <= len(query_ids):
        return None
    typical = statistics.median_low(short)
    return RunWarning(
        f"retriever {retriever.name!r} returned fewer than k={k} results for {len(short)} of "
        f"{len(query_ids)} queries (typically {typical}): the missing ranks count as not "
        f"relevant, so P@{k} of such a query is at most {typical}/{k}; "
        f"{retriever.depth_hint()}; or pass a smaller k"
    )


async def retrieve_all(
    retriever: Retriever,
    queries: list[tuple[str, str]],
    max_concurrency: int,
    timeout: float | None = None,
) -> Retrieval:
    """Ask ``retriever`` every (query id, text); async retrievers up to ``max_concurrency`` at a
    time, each query within ``timeout`` seconds (None: no limit). The first failure stops the
    others and is raised as a RunError naming the query."""
    limit = asyncio.Semaphore(max_concurrency if retriever.is_async else 1)
    retrieval = Retrieval()
    worker = Worker()

    async def one(query_id: str, text: str) -> None:
        async with limit:
            scope = asyncio.timeout(timeout)
            try:
                async with scope:
                    results = await retriever.results(text, worker)
            except Exception as error:
                if isinstance(error, TimeoutError) and scope.expired():
                    raise RunError(
                        f"retriever {retriever.name!r} did not answer query {query_id!r} "
                        f"({text!r}) within timeout={timeout} seconds; fix the retriever, or "
                        "give it a larger timeout"
                    ) from None
                raise RunError(
                    f"retriever {retriever.name!r} failed on query {query_id!r} ({text!r}): "
                    f"{error!r}; fix the retriever (the original exception is chained below)"
                ) from error
        read_results(results, query_id, retriever, retrieval)

    tasks = [asyncio.ensure_future(one(query_id, text)) for query_id, text in queries]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    finally:
        worker.close()
    return retrieval


def read_results(results: RawResults, query_id: str, retriever: Retriever, into: Retrieval) -> None:
    """One query's results as (doc id, score) pairs, with texts and focus times kept aside."""
    if isinstance(results, Mapping):  # {doc id: score}
        ranking = []
        for rank, (doc, score) in enumerate(results.items(), start=1):
            doc_id = _doc_id(doc, query_id, rank, retriever)
            if score is None:
                _not_a_score(score, doc_id, query_id, rank, retriever)
            ranking.append((doc_id, _score(score, doc_id, query_id, rank, retriever)))
        into.rankings[query_id] = ranking
        return
    if not isinstance(results, list):
        raise RunError(
            f"retriever {retriever.name!r} returned {type(results).__name__} {results!r:.80} for "
            f"query {query_id!r}; it must return a list of results (ids, (id, score) pairs, "
            "dicts with 'id', framework documents) or a {id: score} mapping"
        )
    ranking = into.rankings[query_id] = []
    for rank, item in enumerate(results, start=1):
        doc_id, score, text, focus = _read(item, query_id, rank, retriever)
        ranking.append((doc_id, score))
        if text is not None:
            known = into.texts.setdefault(doc_id, text)
            if known != text:
                raise RunError(
                    f"retriever {retriever.name!r}: query {query_id!r}, rank {rank}: doc "
                    f"{doc_id!r} comes with two different texts in this run"
                )
        if focus is not None:
            into.focus_times.setdefault(doc_id, focus)


def _read(
    item: object, query_id: str, rank: int, retriever: Retriever
) -> tuple[str, float | None, str | None, FocusTime | None]:
    """(doc id, score, text, focus time) of one result, whatever its shape."""
    score: object = None
    if isinstance(item, tuple) and len(item) == 2 and _is_document(item[0]):
        item, score = item  # LangChain's (Document, score) pairs
    if isinstance(item, (str, int)) and not isinstance(item, bool):
        return _doc_id(item, query_id, rank, retriever), None, None, None
    if isinstance(item, (tuple, list)) and len(item) == 2:
        doc_id, second = _doc_id(item[0], query_id, rank, retriever), item[1]
        if isinstance(second, str) and string_score_problem(second, doc_id) is None:
            return doc_id, None, second, FocusTime.from_text(second) or None
        return doc_id, _score(second, doc_id, query_id, rank, retriever, pair=True), None, None
    if isinstance(item, Mapping):
        key = retriever.id_key or "id"
        if key not in item:
            _unreadable(item, query_id, rank, retriever, f"a dict without an {key!r}", list(item))
        doc_id = _doc_id(item[key], query_id, rank, retriever)
        text = item.get("text")
        if text is not None and not isinstance(text, str):
            raise RunError(
                f"retriever {retriever.name!r}: query {query_id!r}, rank {rank}: 'text' of doc "
                f"{doc_id!r} must be a string, got {type(text).__name__}"
            )
        given = item.get("metadata")
        metadata = given if isinstance(given, Mapping) else {}
        return (
            doc_id,
            _score(item.get("score"), doc_id, query_id, rank, retriever),
            text,
            _focus_time(doc_id, query_id, rank, retriever, metadata, item),
        )
    if hasattr(item, "node") and hasattr(item, "score"):  # LlamaIndex NodeWithScore
        node = item.node
        metadata = getattr(node, "metadata", None) or {}
        own_id = getattr(node, "node_id", None) or getattr(node, "id_", None)
        doc_id = _framework_id(own_id, metadata, item, query_id, rank, retriever, "node.node_id")
        content = node.get_content() if callable(getattr(node, "get_content", None)) else None
        return (
            doc_id,
            _score(item.score, doc_id, query_id, rank, retriever),
            content,
            _focus_time(doc_id, query_id, rank, retriever, metadata),
        )
    if _is_document(item):  # LangChain Document, or Haystack's (content, meta)
        metadata = getattr(item, "metadata", None) or getattr(item, "meta", None) or {}
        content = getattr(item, "page_content", None)
        if content is None:
            content = getattr(item, "content", None)
        if score is None:
            score = getattr(item, "score", None)
        doc_id = _framework_id(
            getattr(item, "id", None), metadata, item, query_id, rank, retriever, ".id"
        )
        text = content if isinstance(content, str) else None
        score = _score(score, doc_id, query_id, rank, retriever)
        return doc_id, score, text, _focus_time(doc_id, query_id, rank, retriever, metadata)
    _unreadable(item, query_id, rank, retriever, type(item).__name__, None)


def _focus_time(
    doc_id: str, query_id: str, rank: int, retriever: Retriever, *sources: Mapping[str, object]
) -> FocusTime | None:
    """The focus time of a result's date fields; a field that is not a date is a RunError."""
    where = f"retriever {retriever.name!r}: query {query_id!r}, rank {rank}: doc {doc_id!r}"
    return metadata_focus_time(*sources, where=where, error=RunError)


def _is_document(item: object) -> bool:
    return hasattr(item, "page_content") or (hasattr(item, "content") and hasattr(item, "meta"))


def _framework_id(
    own_id: object,
    metadata: Mapping[str, object],
    item: object,
    query_id: str,
    rank: int,
    retriever: Retriever,
    attribute: str,
) -> str:
    """The id a framework result carries: ``metadata[id_key]`` when asked for, else its own."""
    if retriever.id_key is not None:
        if retriever.id_key not in metadata:
            _unreadable(
                item,
                query_id,
                rank,
                retriever,
                f"{type(item).__name__} whose metadata has no {retriever.id_key!r}",
                list(metadata),
            )
        return _doc_id(metadata[retriever.id_key], query_id, rank, retriever)
    if own_id is None or own_id == "":
        _unreadable(
            item,
            query_id,
            rank,
            retriever,
            f"{type(item).__name__} with no {attribute}",
            list(metadata),
        )
    return _doc_id(own_id, query_id, rank, retriever)


def _unreadable(
    item: object,
    query_id: str,
    rank: int,
    retriever: Retriever,
    got: str,
    keys: list[object] | None,
) -> NoReturn:
    hint = "pass id_key='<metadata key holding your doc id>'"
    if keys:
        hint += f" (keys it has: {', '.join(map(repr, keys[:10]))})"
    raise RunError(
        f"retriever {retriever.name!r}: query {query_id!r}, rank {rank}: cannot read a doc id from "
        f"{got}: {item!r:.120}; results may be ids, (id, score) or (id, text) pairs, dicts with "
        f"'id', LangChain documents, LlamaIndex NodeWithScore or Haystack documents; {hint}"
    )


def _doc_id(value: object, query_id: str, rank: int, retriever: Retriever) -> str:
    problem = id_problem(value)
    if problem is not None:
        raise RunError(
            f"retriever {retriever.name!r}: query {query_id!r}, rank {rank}: doc id {problem}"
        )
    return str(value)


def _score(
    value: object, doc_id: str, query_id: str, rank: int, retriever: Retriever, pair: bool = False
) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, Real):
        _not_a_score(value, doc_id, query_id, rank, retriever, pair)
    return float(value)


def _not_a_score(
    value: object, doc_id: str, query_id: str, rank: int, retriever: Retriever, pair: bool = False
) -> NoReturn:
    """A RunError for a score that is not a number; for a (doc id, "1.0") pair, how to give a
    text that is only a number instead."""
    where = f"retriever {retriever.name!r}: query {query_id!r}, rank {rank}"
    problem = string_score_problem(value, doc_id)
    if problem is None or not isinstance(value, str):  # (a problem is only a string's)
        raise RunError(
            f"{where}: score {value!r} of doc {doc_id!r} is not a number; give scores as int or "
            "float"
        )
    hint = f"{where}: {problem}; return it as a number ({float(value)!r})"
    if pair:
        hint += (
            f"; if {value!r} is the document's text, return {{'id': {doc_id!r}, 'text': "
            f"{value!r}}} or a framework document: a (doc id, string) pair whose string reads as "
            "a number is taken for a score"
        )
    raise RunError(hint)


def _method(retriever: object, *names: str) -> bool:
    return any(callable(getattr(retriever, name, None)) for name in names)


def _calling(retriever: object, k: int) -> tuple[Callable[[str], object], bool]:
    """How to ask ``retriever`` for one query's results, and whether that is async."""
    for method in ("aretrieve", "ainvoke"):  # LlamaIndex, LangChain: async when they can
        if callable(getattr(retriever, method, None)):
            return getattr(retriever, method), True
    for method in ("retrieve", "invoke"):
        if callable(getattr(retriever, method, None)):
            return getattr(retriever, method), False
    run = getattr(retriever, "run", None)
    if callable(run) and not callable(retriever):  # a Haystack component
        if _accepts(run, "top_k"):
            return (lambda text: run(query=text, top_k=k)), False
        return (lambda text: run(query=text)), False
    if not callable(retriever):
        raise RunError(
            f"{retriever!r:.80} is not a retriever: pass a function of the query text, or an "
            "object with invoke/ainvoke (LangChain), retrieve/aretrieve (LlamaIndex) or run "
            "(Haystack)"
        )
    # An async function, or an object whose __call__ is one (a function's own type's __call__ is
    # a slot wrapper, never a coroutine function).
    is_async = inspect.iscoroutinefunction(retriever) or inspect.iscoroutinefunction(
        type(retriever).__call__
    )
    if _accepts(retriever, "k"):
        return (lambda text: retriever(text, k=k)), is_async
    return retriever, is_async


def _accepts(function: object, name: str) -> bool:
    if not callable(function):
        return False
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(
        (p.name == name and p.kind is not inspect.Parameter.POSITIONAL_ONLY)
        or p.kind is inspect.Parameter.VAR_KEYWORD
        for p in parameters
    )


def _name(retriever: object) -> str:
    return getattr(retriever, "__name__", None) or type(retriever).__name__
