"""Merge gate: the reranker must not regress against its recorded baseline.

The baseline
(fixtures/baselines/examples/test_merge_gate/test_reranker_has_not_regressed.json) holds the
per-query scores of the last accepted version. A check fails only on a real drop: the mean fell
by more than ``max_drop`` *and* a paired randomization test over the 61 queries says the drop is
significant (p < 0.05). When the retriever improves, the summary says "baseline can be raised".

After an intended change, re-baseline and commit the file:

    pytest examples/test_merge_gate.py --tempoeval-update-baseline
"""

from __future__ import annotations

import pytest
from retrievers import BM25, TemporalReranker

from pytest_tempoeval import GoldSet, Run, ndcg, temporal_ndcg, temporal_precision

pytestmark = pytest.mark.tempoeval(gold="gold/temporal_corpus.yaml")


def test_reranker_has_not_regressed(tempoeval_gold: GoldSet, tempoeval_baseline) -> None:
    bm25 = BM25.from_gold(tempoeval_gold)
    run = Run.from_retriever(
        TemporalReranker(bm25, tempoeval_gold.documents).search, tempoeval_gold, k=10
    )
    # Small wobbles (a tie broken differently) pass; a drop of 0.01 or more that is significant
    # fails.
    tempoeval_baseline.check(temporal_ndcg(run, tempoeval_gold, k=10), max_drop=0.01)
    tempoeval_baseline.check(temporal_precision(run, tempoeval_gold, k=5), max_drop=0.01)
    tempoeval_baseline.check(ndcg(run, tempoeval_gold, k=10), max_drop=0.01)
