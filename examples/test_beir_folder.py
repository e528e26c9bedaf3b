"""Bring your own data: the same suite on a BEIR folder, and an async retriever.

``fixtures/beir/temporal-news/`` is the example corpus (gold/temporal_corpus.yaml) written as a
BEIR folder: ``corpus.jsonl``, ``queries.jsonl`` and ``qrels/test.tsv``. The marker takes the
folder as it takes a YAML file; ``GoldSet.from_beir(path, split="test")`` reads it too. Documents
are read when a metric needs them: here BM25 indexes them all, and focus-time mode reads their
years.

The retriever is async, as one behind a network call is: ``Run.from_retriever`` runs up to
``max_concurrency`` queries at a time.
"""

from __future__ import annotations

import asyncio

import pytest
from retrievers import BM25, TemporalReranker

from pytest_tempoeval import GoldSet, Run, ndcg, temporal_ndcg

pytestmark = pytest.mark.tempoeval(gold="fixtures/beir/temporal-news")


@pytest.fixture
def run(tempoeval_gold: GoldSet) -> Run:
    reranker = TemporalReranker(BM25.from_gold(tempoeval_gold), tempoeval_gold.documents)

    async def search(query: str, k: int = 10) -> list[tuple[str, float]]:
        await asyncio.sleep(0.001)  # a network round trip
        return reranker.search(query, k)

    return Run.from_retriever(search, tempoeval_gold, k=10, max_concurrency=8)


def test_reranker_meets_thresholds_on_the_beir_folder(tempoeval_gold: GoldSet, run: Run) -> None:
    assert len(tempoeval_gold) == 61 and len(tempoeval_gold.documents) == 203
    # The same figures as on the YAML gold set (test_retrieval_regression.py): 0.9005, 0.7666.
    assert ndcg(run, tempoeval_gold, k=10) >= 0.85
    assert temporal_ndcg(run, tempoeval_gold, k=10) >= 0.72


def test_reranker_has_not_regressed_on_the_beir_folder(
    tempoeval_gold: GoldSet, run: Run, tempoeval_baseline
) -> None:
    tempoeval_baseline.check(ndcg(run, tempoeval_gold, k=10), max_drop=0.01)
