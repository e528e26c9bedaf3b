r"""T-Coverage: do the top k cover both periods a cross-period query compares?

"How has Bitcoin's energy use changed since 2017?" needs evidence about 2017 and about now. A
retriever that returns only recent news can score well on relevance and still leave the question
unanswerable. Each query of gold/cross_period.yaml names its two periods (``baseline_period``,
``comparison_period``); the judge reads every document of the top k with TempoEval's
TemporalCoverage prompt and says which periods it covers. A query is scored 1 (both covered),
0.5 (one) or 0 (none); a query without the periods is left out and named.

The cassette in fixtures/cassettes/examples/test_temporal_coverage/ was recorded against the
loopback fake Messages API (a document covers a period when their years overlap), not against
Claude; re-record it as examples/test_llm_judge.py says.
"""

import pytest

from pytest_tempoeval import Run, temporal_coverage

pytestmark = pytest.mark.tempoeval(gold="gold/cross_period.yaml")

# Both retrievers put the newest document first; only the first also returns the baseline year's.
BOTH_PERIODS = Run(
    {
        "bitcoin-energy": ["btc2024", "btc2017", "btc2021"],
        "ev-share": ["ev2023", "ev2015", "ev2019"],
        "ev-sales-2019": ["ev2019", "ev2023"],
    }
)
RECENT_ONLY = Run(
    {
        "bitcoin-energy": ["btc2024", "btc2021", "btc2017"],
        "ev-share": ["ev2023", "ev2019", "ev2015"],
        "ev-sales-2019": ["ev2019", "ev2023"],
    }
)


def test_the_top_2_cover_both_periods(tempoeval_gold, tempoeval_judge) -> None:
    both = temporal_coverage(BOTH_PERIODS, tempoeval_gold, k=2, judge=tempoeval_judge)
    assert both >= 0.99  # measured when recorded: 1.0, each query's two periods covered
    assert list(both.excluded) == ["ev-sales-2019"]  # no periods: not a cross-period query
    # Recent news only: the comparison period is covered, the baseline is not (0.5 a query).
    recent = temporal_coverage(RECENT_ONLY, tempoeval_gold, k=2, judge=tempoeval_judge)
    assert recent.per_query == {"bitcoin-energy": 0.5, "ev-share": 0.5}
