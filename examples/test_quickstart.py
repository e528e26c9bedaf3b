"""Quick-start example: threshold tests for a retriever, in focus-time and gold mode.

Run with ``pytest examples``. The full regression suite, on a 61-query gold set with two retrievers,
is ``test_retrieval_regression.py``.
"""

from pathlib import Path

import pytest

from pytest_tempoeval import GoldSet, Run, ndcg, temporal_ndcg, temporal_precision

GOLD = GoldSet.load(Path(__file__).parent / "gold" / "mini_elections.yaml")


def keyword_retriever(query: str) -> list[str]:
    """Ranks documents by shared words, ignoring years: a retriever that drifts in time."""
    words = set(query.lower().split())
    scored = [
        (len(words & set(doc.text.lower().split())), doc_id)
        for doc_id, doc in GOLD.documents.items()
    ]
    return [doc_id for _, doc_id in sorted(scored, reverse=True)]


def year_aware_retriever(query: str) -> list[str]:
    """Same, but documents about the query's years come first."""
    from pytest_tempoeval import FocusTime

    query_years = FocusTime.from_text(query)
    ranked = keyword_retriever(query)
    return sorted(
        ranked, key=lambda doc_id: -query_years.jaccard(GOLD.documents[doc_id].focus_time)
    )


@pytest.fixture(params=[keyword_retriever, year_aware_retriever], ids=lambda f: f.__name__)
def run(request: pytest.FixtureRequest) -> Run:
    return Run.from_retriever(request.param, GOLD, k=3)


def test_year_aware_retriever_meets_temporal_thresholds() -> None:
    run = Run.from_retriever(year_aware_retriever, GOLD, k=3)
    assert temporal_ndcg(run, GOLD, k=3) >= 0.9
    assert temporal_precision(run, GOLD, k=1) == 1.0
    assert ndcg(run, GOLD, k=3) >= 0.9


def test_year_aware_beats_keyword_on_temporal_ndcg() -> None:
    plain = temporal_ndcg(Run.from_retriever(keyword_retriever, GOLD, k=3), GOLD, k=3)
    aware = temporal_ndcg(Run.from_retriever(year_aware_retriever, GOLD, k=3), GOLD, k=3)
    print(plain.explain(n=2))
    assert aware > plain


def test_every_query_is_counted(run: Run) -> None:
    result = temporal_ndcg(run, GOLD, k=3)
    assert not result.excluded
    assert set(result.per_query) == set(GOLD.query_ids)
