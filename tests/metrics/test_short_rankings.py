"""A ranking shorter than k is scored as it is (P@k divides by k, as trec_eval does) but never
silently: every explanation of the score says for how many queries, and how deep they were.

Before this, a run of depth 10 gave P@50 = 0.0225 with no note, which reads as a bad retriever."""

from __future__ import annotations

import pytest

from pytest_tempoeval import (
    GoldSet,
    Run,
    average_precision,
    ndcg,
    precision,
    temporal_precision,
)
from pytest_tempoeval.metrics.results import assertrepr_compare

# 4 queries, each judging its own d{q}-0 .. d{q}-2 relevant; a run of depth 10 retrieving one of
# them at rank 1 (q0, q1) or none (q2), and q3 not in the run at all (missing, not short).
GOLD = GoldSet.from_dict(
    {
        "queries": [
            {
                "id": f"q{q}",
                "text": f"Query {q} in 2020",
                "focus_time": 2020,
                "relevant": {f"d{q}-{i}": 1 for i in range(3)},
            }
            for q in range(4)
        ],
        "documents": {
            **{f"d{q}-{i}": {"focus_time": 2020} for q in range(4) for i in range(3)},
            **{f"x{i}": {"focus_time": 1990} for i in range(10)},
        },
    }
)
RUN = Run(
    {
        "q0": ["d0-0", *(f"x{i}" for i in range(9))],
        "q1": ["d1-0", *(f"x{i}" for i in range(9))],
        "q2": [f"x{i}" for i in range(10)],
    }
)
NOTE = "ranking shorter than k=50 for 3 queries (depth 10)"


def test_the_score_is_unchanged_and_every_explanation_says_so() -> None:
    result = precision(RUN, GOLD, k=50)
    # One relevant document in 50 ranks for q0 and q1, none for q2 and q3 (missing: scored 0).
    assert result.per_query == {"q0": 1 / 50, "q1": 1 / 50, "q2": 0.0, "q3": 0.0}
    assert float(result) == pytest.approx(2 / 50 / 4, rel=1e-15)
    assert NOTE in result.summary()
    explanation = result.explain()
    assert explanation.splitlines()[0].endswith(NOTE)
    assert "shorter than k=50 (the missing ranks count as not relevant" in explanation
    assert "q0 (10), q1 (10), q2 (10)" in explanation and "q3 (" not in explanation
    failure = assertrepr_compare(">=", result, 0.5, verbose=0)
    assert failure is not None and NOTE in failure[0]
    assert result.to_dict()["extra"]["short_rankings"] == {
        "k": 50,
        "queries": 3,
        "shortest": 10,
        "longest": 10,
        "examples": [["q0", 10], ["q1", 10], ["q2", 10]],
    }


def test_temporal_precision_too() -> None:
    result = temporal_precision(RUN, GOLD, k=50)
    assert result.per_query == {"q0": 1 / 50, "q1": 1 / 50, "q2": 0.0, "q3": 0.0}
    assert NOTE in result.summary()


def test_rankings_of_different_depths_show_the_range() -> None:
    run = Run({"q0": ["d0-0", "x1", "x2"], "q1": ["d1-0"], "q2": [f"x{i}" for i in range(10)]})
    result = ndcg(run, GOLD, k=5)
    assert "ranking shorter than k=5 for 2 queries (depth 1-3)" in result.summary()
    one = ndcg(run, GOLD, k=3)
    assert "ranking shorter than k=3 for 1 query (depth 1)" in one.summary()


def test_rankings_reaching_k_and_whole_ranking_metrics_have_no_note() -> None:
    for result in (precision(RUN, GOLD, k=10), average_precision(RUN, GOLD)):
        assert "shorter than" not in result.explain()
        assert "short_rankings" not in result.extra
    # A cutoff given to a whole-ranking metric is a cutoff: the note applies.
    assert NOTE in average_precision(RUN, GOLD, k=50).summary()
