r"""LLM-judge thresholds, replayed from a shipped cassette: deterministic, free and offline.

The cassette in fixtures/cassettes/examples/test_llm_judge/ was recorded against the loopback fake
Messages API (``pytest_tempoeval.testing``, grades = 4 x year overlap), not against Claude, so
anyone can re-record it without a key:

    python -m pytest_tempoeval.testing &  # prints ANTHROPIC_BASE_URL=http://127.0.0.1:PORT
    ANTHROPIC_BASE_URL=... ANTHROPIC_API_KEY=fake pytest examples/test_llm_judge.py \
        --tempoeval-record-mode=all

Recorded against the real API (drop ANTHROPIC_BASE_URL, set a real key), the same tests judge with
Claude.
"""

import pytest

from pytest_tempoeval import FocusTime, GoldSet, Run, temporal_ndcg, temporal_precision

pytestmark = pytest.mark.tempoeval(gold="gold/mini_elections.yaml")


def year_aware(gold: GoldSet):
    def search(query: str) -> list[str]:
        years = FocusTime.from_text(query)
        return sorted(
            gold.documents, key=lambda doc: (-years.jaccard(gold.documents[doc].focus_time), doc)
        )

    return search


def test_llm_judged_ndcg_and_precision(tempoeval_gold: GoldSet, tempoeval_judge) -> None:
    run = Run.from_retriever(year_aware(tempoeval_gold), tempoeval_gold, k=3)
    # Measured when recorded: nDCG@3 = 1.0 and P@1 = 1.0 (each query's own-year document first).
    assert temporal_ndcg(run, tempoeval_gold, k=3, mode="llm", judge=tempoeval_judge) >= 0.95
    assert temporal_precision(run, tempoeval_gold, k=1, mode="llm", judge=tempoeval_judge) >= 0.95
