r"""Holes in a hand-judged gold set, graded by the LLM judge: the gate stops refusing the better
retriever.

``examples/pool/human.yaml`` was judged by hand on the top 5 of BM25, the retriever in production
(``examples/pool/bm25.trec``). The candidate, BM25 reranked by focus time
(``examples/pool/reranked.trec``), puts each query's answer in its top 5, and four of those answers
are documents nobody judged. Gold mode counts an unjudged document as not relevant (as trec_eval
does), so against the human judgments alone the better retriever scores lower, and a gate that
asks for "no worse than production" refuses it. With ``fill_unjudged=tempoeval_judge`` the judge
grades those four holes (only the holes of each top 5: every judged document keeps its human
grade), and the candidate passes.

The judge's answers are replayed from
``fixtures/cassettes/examples/test_fill_unjudged/``, recorded against the loopback fake Messages
API (``pytest_tempoeval.testing``, grades = 4 x the year overlap of query and document), not
against Claude, so anyone can re-record them without a key:

    python -m pytest_tempoeval.testing &  # prints ANTHROPIC_BASE_URL=http://127.0.0.1:PORT
    ANTHROPIC_BASE_URL=... ANTHROPIC_API_KEY=fake pytest examples/test_fill_unjudged.py \
        --tempoeval-record-mode=all
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_tempoeval import GoldSet, Run, ndcg

pytestmark = pytest.mark.tempoeval(gold="pool/human.yaml")
POOL = Path(__file__).parent / "pool"
PRODUCTION = Run.load(POOL / "bm25.trec")
CANDIDATE = Run.load(POOL / "reranked.trec")


def test_gold_only_the_gate_refuses_the_better_retriever(tempoeval_gold: GoldSet) -> None:
    production = ndcg(PRODUCTION, tempoeval_gold, k=5)  # its top 5 is judged whole
    candidate = ndcg(CANDIDATE, tempoeval_gold, k=5)
    # The candidate's four answers are holes, scored as not relevant: the gate "no worse than
    # production" (assert candidate >= production) would fail the better retriever. (Compared as
    # plain numbers here, so that the session's summary records no failed check.)
    assert candidate.extra["unjudged"] == 4
    assert (round(float(candidate), 4), round(float(production), 4)) == (0.8529, 0.9075)


def test_with_its_holes_filled_it_passes(tempoeval_gold: GoldSet, tempoeval_judge) -> None:
    production = ndcg(PRODUCTION, tempoeval_gold, k=5, fill_unjudged=tempoeval_judge)
    candidate = ndcg(CANDIDATE, tempoeval_gold, k=5, fill_unjudged=tempoeval_judge)
    # Measured when recorded: each hole graded 4 of 4 (3 on the set's 0-3 scale), nDCG@5 0.9876;
    # production has no hole, so nothing was asked for it and it keeps 0.9075.
    assert candidate >= production
    assert candidate.filled is not None and candidate.filled.filled == 4
    assert production.filled is not None and production.filled.filled == 0
