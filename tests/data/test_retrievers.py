"""Run.from_retriever with what teams actually have: functions, async functions, LangChain and
LlamaIndex retrievers (the real packages, offline, with their fake embeddings) and Haystack-shaped
components; and the errors a result that cannot be read gets."""

from __future__ import annotations

import asyncio
import math
import threading
import warnings
from collections.abc import Callable
from typing import Any

import pytest

from pytest_tempoeval import (
    GoldSet,
    MetricError,
    Run,
    RunError,
    RunWarning,
    ndcg,
    temporal_ndcg,
    temporal_precision,
)

GOLD = GoldSet.from_dict(
    {
        "queries": [
            {"id": "q2020", "text": "Who won in 2020?", "relevant": {"d2020": 1}},
            {"id": "q2016", "text": "Who won in 2016?", "relevant": {"d2016": 1}},
        ]
    }
)
TEXTS = {"d2020": "Biden won the 2020 election.", "d2016": "Trump won in 2016.", "dx": "No year."}


def test_async_retrievers_run_concurrently_up_to_max_concurrency() -> None:
    in_flight, most = 0, 0

    async def retrieve(text: str) -> list[str]:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        await asyncio.sleep(0.01)
        in_flight -= 1
        return ["d2020" if "2020" in text else "d2016"]

    gold = GoldSet.from_dict(
        {"queries": [{"id": f"q{i}", "text": f"Query {i}"} for i in range(20)]}
    )
    assert len(Run.from_retriever(retrieve, gold, k=1, max_concurrency=4)) == 20
    assert most == 4
    Run.from_retriever(retrieve, gold, k=1, max_concurrency=1)
    assert most == 4 and in_flight == 0


def test_sync_retrievers_run_one_query_at_a_time() -> None:
    calls: list[str] = []

    def retrieve(text: str, k: int) -> list[tuple[str, float]]:
        calls.append(text)
        return [("dx", 0.5), ("d2020", 0.9)][:k]

    run = Run.from_retriever(retrieve, GOLD, k=2)
    assert calls == ["Who won in 2020?", "Who won in 2016?"]
    assert run["q2020"] == ["d2020", "dx"]  # scored: trec_eval's order


def test_sync_retrievers_are_called_in_one_thread_that_is_not_the_callers() -> None:
    """Outside the event loop that runs async retrievers (below), in one worker thread: state a
    retriever keeps per thread (a connection it opens on first use) holds across queries."""
    threads: list[int] = []

    def retrieve(text: str) -> list[str]:
        threads.append(threading.get_ident())
        return ["dx"]

    Run.from_retriever(retrieve, GOLD, k=1)
    assert len(threads) == 2 and len(set(threads)) == 1 and threads[0] != threading.get_ident()


async def _search(text: str) -> list[str]:
    await asyncio.sleep(0)
    return ["d2020" if "2020" in text else "d2016"]


def test_a_sync_retriever_may_run_asyncio_itself() -> None:
    """A sync wrapper around an async client calls asyncio.run: inside the plugin's event loop
    that failed ('cannot be called from a running event loop')."""

    def retrieve(text: str) -> list[str]:
        return asyncio.run(_search(text))

    def lazily(text: str) -> Any:  # a generator: its code runs when the results are listed
        yield from asyncio.run(_search(text))

    for retriever in (retrieve, lazily):
        assert dict(Run.from_retriever(retriever, GOLD, k=1)) == {
            "q2020": ["d2020"],
            "q2016": ["d2016"],
        }

    async def inside_a_loop() -> Run:
        return await Run.afrom_retriever(retrieve, GOLD, k=1)

    assert dict(asyncio.run(inside_a_loop())) == {"q2020": ["d2020"], "q2016": ["d2016"]}


def test_a_hanging_sync_retriever_times_out_naming_the_query() -> None:
    """Without a timeout it hung forever. The call is abandoned in its thread, which ends when
    the call returns (here: when the test lets it)."""
    release, called = threading.Event(), threading.Event()
    threads: list[threading.Thread] = []

    def retrieve(text: str) -> list[str]:
        threads.append(threading.current_thread())
        called.set()
        release.wait()
        return ["dx"]

    try:
        with pytest.raises(RunError) as error:
            Run.from_retriever(retrieve, GOLD, k=1, timeout=0.01)
        assert called.is_set()
    finally:
        release.set()
    assert str(error.value).startswith(
        "retriever 'retrieve' did not answer query 'q2020' ('Who won in 2020?') within "
        "timeout=0.01 seconds"
    )
    threads[0].join(timeout=60)  # it ends once its call returns (60 s: a bound, not a measure)
    assert not threads[0].is_alive()
    assert len(threads) == 1  # the run stopped at the first query


def test_a_hanging_async_retriever_times_out_naming_the_query() -> None:
    async def retrieve(text: str) -> list[str]:
        if "2016" in text:
            await asyncio.Event().wait()  # never set: cancelled at the timeout
        return ["dx"]

    with pytest.raises(RunError, match=r"did not answer query 'q2016' .* timeout=0\.05 seconds"):
        Run.from_retriever(retrieve, GOLD, k=1, timeout=0.05)

    async def inside_a_loop() -> Run:
        return await Run.afrom_retriever(retrieve, GOLD, k=1, timeout=0.05)

    with pytest.raises(RunError, match=r"did not answer query 'q2016'"):
        asyncio.run(inside_a_loop())


def test_a_timeout_that_is_not_reached_changes_nothing() -> None:
    def retrieve(text: str) -> list[str]:
        return ["d2020"]

    assert dict(Run.from_retriever(retrieve, GOLD, k=1, timeout=600)) == dict(
        Run.from_retriever(retrieve, GOLD, k=1)
    )


@pytest.mark.parametrize("value", [0, -1, True, math.nan, math.inf, "5"])
def test_bad_timeout(value: Any) -> None:
    with pytest.raises(RunError, match="timeout must be a positive number of seconds per query"):
        Run.from_retriever(lambda text: [], GOLD, timeout=value)


def test_inside_a_running_event_loop_use_the_async_form() -> None:
    async def retrieve(text: str) -> list[str]:
        return ["d2020"]

    async def test() -> Run:
        with pytest.raises(RunError, match="await Run.afrom_retriever"):
            Run.from_retriever(retrieve, GOLD)
        return await Run.afrom_retriever(retrieve, GOLD, k=1)

    assert asyncio.run(test())["q2016"] == ["d2020"]


def langchain_store(documents: Callable[[Any], list[Any]]) -> Any:
    """LangChain's in-memory vector store (offline: a fake embedding) holding
    ``documents(the Document class)``."""
    vectorstores = pytest.importorskip("langchain_core.vectorstores")
    embeddings = pytest.importorskip("langchain_core.embeddings")
    document = pytest.importorskip("langchain_core.documents").Document
    store = vectorstores.InMemoryVectorStore(embeddings.DeterministicFakeEmbedding(size=16))
    store.add_documents(documents(document))
    return store


def test_langchain_retriever_documents_give_ids_texts_and_dates() -> None:
    store = langchain_store(
        lambda document: (
            [
                document(page_content=text, id=doc_id, metadata={"doc_id": doc_id})
                for doc_id, text in TEXTS.items()
            ]
            + [
                document(
                    page_content="Undated.",
                    id="dz",
                    metadata={"date": "2020-01-05", "doc_id": "dz"},
                )
            ]
        )
    )
    run = Run.from_retriever(store.as_retriever(search_kwargs={"k": 4}), GOLD, k=4)
    assert sorted(run["q2020"]) == ["d2016", "d2020", "dx", "dz"]
    assert run.texts["d2020"] == TEXTS["d2020"] and run.focus_times["dz"] == {2020}
    # llm and focus-time modes need no texts in the gold set: the retriever's are used.
    result = temporal_precision(run, GOLD, k=4)
    assert result.per_query == {"q2020": 0.5, "q2016": 0.25}  # d2020 and dz (dated); d2016
    by_metadata = Run.from_retriever(
        store.as_retriever(search_kwargs={"k": 3}), GOLD, k=3, id_key="doc_id"
    )
    assert len(by_metadata["q2016"]) == 3 and set(by_metadata["q2016"]) <= {*TEXTS, "dz"}


def test_a_langchain_retriever_without_id_key_gives_ids_that_pass_no_check() -> None:
    """InMemoryVectorStore gives each document a random UUID unless told otherwise: scored in gold
    mode, such a run is 0.0 and used to compare, and baseline, like any score."""
    vectorstores = pytest.importorskip("langchain_core.vectorstores")
    embeddings = pytest.importorskip("langchain_core.embeddings")
    documents = pytest.importorskip("langchain_core.documents")
    store = vectorstores.InMemoryVectorStore(embeddings.DeterministicFakeEmbedding(size=16))
    store.add_documents(
        [documents.Document(page_content=t, metadata={"doc_id": d}) for d, t in TEXTS.items()]
    )
    uuids = Run.from_retriever(store.as_retriever(search_kwargs={"k": 3}), GOLD, k=3)
    result = ndcg(uuids, GOLD, k=3)
    assert float(result) == 0.0
    assert "none of the 6 retrieved ids in the top 3 is known to the gold set" in result.summary()
    with pytest.raises(
        MetricError,
        match=r"none of the 6 retrieved ids is known to the gold set \(e\.g\. '[0-9a-f-]{36}', .*"
        r"the gold set's ids look like 'd2020', 'd2016'; .*id_key='doc_id'",
    ):
        assert result >= 0.0
    # focus-time mode reads the texts the retriever returned: those ids are known by their text
    assert temporal_precision(uuids, GOLD, k=3) >= 0.0
    named = Run.from_retriever(
        store.as_retriever(search_kwargs={"k": 3}), GOLD, k=3, id_key="doc_id"
    )
    assert ndcg(named, GOLD, k=3) > 0.0  # comparable: its ids are the gold set's


def test_langchain_scored_pairs() -> None:
    documents = pytest.importorskip("langchain_core.documents")

    def similarity_search_with_score(text: str) -> list[tuple[Any, float]]:
        return [
            (documents.Document(page_content=TEXTS[d], id=d), s)
            for d, s in (("dx", 0.2), ("d2020", 0.8))
        ]

    assert Run.from_retriever(similarity_search_with_score, GOLD, k=2)["q2020"] == ["d2020", "dx"]


def test_llamaindex_retriever_nodes_with_scores() -> None:
    core = pytest.importorskip("llama_index.core")
    schema = pytest.importorskip("llama_index.core.schema")
    mock = pytest.importorskip("llama_index.core.embeddings")
    nodes = [
        schema.TextNode(id_=doc_id, text=text, metadata={"year": 2016})
        for doc_id, text in TEXTS.items()
    ]
    index = core.VectorStoreIndex(nodes=nodes, embed_model=mock.MockEmbedding(embed_dim=8))
    run = Run.from_retriever(index.as_retriever(similarity_top_k=2), GOLD, k=2)
    assert len(run["q2020"]) == 2 and run.scores("q2020") is not None  # NodeWithScore scores
    assert set(run.texts) <= set(TEXTS) and all(ft == {2016} for ft in run.focus_times.values())
    # The nodes' dates (2016) override their texts: query q2016 overlaps every retrieved document.
    assert temporal_precision(run, GOLD, k=2).per_query["q2016"] == 1.0


class HaystackDocument:
    def __init__(self, doc_id: str, content: str, score: float) -> None:
        self.id, self.content, self.score, self.meta = doc_id, content, score, {}


class HaystackRetriever:
    """The shape of a Haystack component: run(query=..., top_k=...) -> {"documents": [...]}."""

    def run(self, query: str, top_k: int = 10) -> dict[str, list[HaystackDocument]]:
        ranked = sorted(TEXTS.items(), key=lambda item: item[0] not in query.lower())
        return {
            "documents": [
                HaystackDocument(d, t, 1.0 / (i + 1)) for i, (d, t) in enumerate(ranked[:top_k])
            ]
        }


def test_haystack_shaped_component() -> None:
    run = Run.from_retriever(HaystackRetriever(), GOLD, k=2)
    assert run["q2020"] == ["d2020", "d2016"]  # scored, so trec_eval's order
    assert run.texts == {doc: TEXTS[doc] for doc in ("d2020", "d2016")}  # texts of the kept
    assert temporal_ndcg(run, GOLD, k=2).per_query


@pytest.mark.parametrize(
    ("result", "fragments"),
    [
        ([object()], ["query 'q2020', rank 1", "cannot read a doc id from object", "id_key="]),
        ([{"doc": "a"}], ["rank 1", "a dict without an 'id'", "keys it has: 'doc'"]),
        (None, ["returned NoneType None for query 'q2020'"]),
    ],
)
def test_unreadable_results_name_query_rank_type_and_id_key(
    result: Any, fragments: list[str]
) -> None:
    with pytest.raises(RunError) as error:
        Run.from_retriever(lambda text: result, GOLD)
    for fragment in fragments:
        assert fragment in str(error.value)


def test_a_framework_document_without_an_id_suggests_id_key() -> None:
    documents = pytest.importorskip("langchain_core.documents")
    document = documents.Document(page_content="x", metadata={"source": "a.txt"})
    with pytest.raises(RunError, match="with no .id.*id_key=.*keys it has: 'source'"):
        Run.from_retriever(lambda text: [document], GOLD)
    with pytest.raises(RunError, match="whose metadata has no 'doc_id'"):
        Run.from_retriever(lambda text: [document], GOLD, id_key="doc_id")


def test_failures_inside_async_retrievers_name_the_query_and_chain_the_cause() -> None:
    async def retrieve(text: str) -> list[str]:
        if "2016" in text:
            raise TimeoutError("the index timed out")
        await asyncio.sleep(0)
        return ["a"]

    with pytest.raises(RunError, match=r"failed on query 'q2016'.*timed out") as error:
        Run.from_retriever(retrieve, GOLD)
    assert isinstance(error.value.__cause__, TimeoutError)


@pytest.mark.parametrize("value", [0, -1, True, 2.5])
def test_bad_max_concurrency(value: Any) -> None:
    with pytest.raises(RunError, match="max_concurrency must be a positive integer"):
        Run.from_retriever(lambda text: [], GOLD, max_concurrency=value)


def test_bad_k_is_the_metric_error_everywhere() -> None:
    with pytest.raises(MetricError, match="k must be a positive integer"):
        Run.from_retriever(lambda text: [], GOLD, k=0)


def test_a_langchain_retriever_returning_fewer_than_k_warns_naming_its_setting() -> None:
    store = langchain_store(
        lambda document: [
            document(page_content=f"Report {i} of 2020.", id=f"r{i}") for i in range(12)
        ]
    )
    with pytest.warns(RunWarning) as caught:
        run = Run.from_retriever(store.as_retriever(), GOLD, k=10)  # LangChain's default: 4
    [warning] = caught
    message = str(warning.message)
    assert "returned fewer than k=10 results for 2 of 2 queries (typically 4)" in message
    assert "P@10 of such a query is at most 4/10" in message
    assert 'it asks for LangChain\'s default of 4: use as_retriever(search_kwargs={"k": 10})' in (
        message
    )
    assert warning.filename == __file__  # the caller's line, not the event loop's
    # The score is not changed: 4 documents of 2020 in 10 ranks.
    assert temporal_precision(run, GOLD, k=10).per_query == {"q2020": 0.4, "q2016": 0.0}
    with warnings.catch_warnings():
        warnings.simplefilter("error", RunWarning)  # what -W error does
        with pytest.raises(RunWarning, match="fewer than k=10"):
            Run.from_retriever(store.as_retriever(search_kwargs={"k": 4}), GOLD, k=10)
        full = Run.from_retriever(store.as_retriever(search_kwargs={"k": 10}), GOLD, k=10)
    assert len(full["q2020"]) == 10


@pytest.mark.parametrize(
    ("retriever", "hint"),
    [
        (lambda text: ["d2020", "d2016"], "let it take a k= argument (k=10 is passed to it)"),
        (lambda text, k: ["d2020"], "it was called with k=10: its index may hold fewer"),
        (HaystackRetriever(), "its run() was asked for top_k=10: its store may hold fewer"),
    ],
)
def test_short_results_warn_with_the_setting_of_each_kind(retriever: Any, hint: str) -> None:
    with pytest.warns(RunWarning, match="fewer than k=10 results for 2 of 2 queries") as caught:
        Run.from_retriever(retriever, GOLD)

    async def in_a_coroutine() -> None:
        with pytest.warns(RunWarning) as again:
            await Run.afrom_retriever(retriever, GOLD)
        assert again[0].filename == __file__

    asyncio.run(in_a_coroutine())
    assert hint in str(caught[0].message)


def test_a_few_short_rankings_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", RunWarning)
        run = Run.from_retriever(
            lambda text: ["d2020", "d2016"] if "2020" in text else [], GOLD, k=2
        )
    assert run["q2016"] == []
    # ... but the metrics still say so.
    assert (
        "ranking shorter than k=2 for 1 query (depth 0)"
        in temporal_precision(run, GOLD, k=2).summary()
    )


def test_string_scores_are_errors_and_numeric_texts_have_their_own_forms() -> None:
    """A (doc id, "1.0") pair used to become the text "1.0", which the judge then read as the
    document: a score written as a string is an error; a text that is only a number is given as a
    dict item or a framework document."""
    documents = pytest.importorskip("langchain_core.documents")
    with pytest.raises(RunError) as error:
        Run.from_retriever(lambda text: [("d2020", "1.0")], GOLD, k=1)
    message = str(error.value)
    assert "query 'q2020', rank 1: score '1.0' of doc 'd2020' is not a number" in message
    assert "{'id': 'd2020', 'text': '1.0'}" in message
    with pytest.raises(RunError, match="score '0.9' of doc 'd2020' is not a number"):
        Run.from_retriever(
            lambda text: [(documents.Document(page_content="x", id="d2020"), "0.9")], GOLD, k=1
        )
    # The text "2020" as a dict item or a LangChain document: a text, and its year a focus time.
    for result in ({"id": "d2020", "text": "2020"}, documents.Document("2020", id="d2020")):
        run = Run.from_retriever(lambda text, result=result: [result], GOLD, k=1)
        assert run.texts == {"d2020": "2020"}
        assert temporal_precision(run, GOLD, k=1).per_query == {"q2020": 1.0, "q2016": 0.0}


def test_a_year_in_metadata_is_a_year_and_out_of_range_is_an_error() -> None:
    """year: 20200 in a document's metadata was read as a Unix timestamp: 1970."""
    documents = pytest.importorskip("langchain_core.documents")

    def document(year: object) -> Any:
        return documents.Document(page_content="x", id="d2020", metadata={"year": year})

    run = Run.from_retriever(lambda text: [document(2020)], GOLD, k=1)
    assert run.focus_times == {"d2020": {2020}}
    for year in (0, -5, 20200):
        with pytest.raises(RunError) as error:
            Run.from_retriever(lambda text, year=year: [document(year)], GOLD, k=1)
        assert str(error.value) == (
            f"retriever '<lambda>': query 'q2020', rank 1: doc 'd2020': 'year' is {year}, not a "
            "year (a whole number in 1..9999)"
        )
    with pytest.raises(RunError, match="query 'q2020', rank 1: doc 'a': 'date' is 20200, not a"):
        Run.from_retriever(lambda text: [{"id": "a", "metadata": {"date": 20200}}], GOLD, k=1)
    stamped = Run.from_retriever(lambda text: [{"id": "a", "timestamp": 1_600_000_000}], GOLD, k=1)
    assert stamped.focus_times == {"a": {2020}}
