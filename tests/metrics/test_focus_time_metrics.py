"""Temporal metrics in focus-time mode, on a small gold set whose values are computed by hand."""

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pytest_tempoeval import (
    FocusTime,
    GoldSet,
    MetricError,
    Run,
    RunError,
    temporal_map,
    temporal_mrr,
    temporal_ndcg,
    temporal_precision,
    temporal_recall,
)
from pytest_tempoeval.metrics.focus_index import pairwise_jaccard, year_bitsets

L3 = math.log2(3)  # discount at rank 2

GOLD = GoldSet.from_dict(
    {
        "version": 1,
        "documents": {
            "a": {"focus_time": 2020},
            "b": {"focus_time": "2019-2021"},
            "c": {"focus_time": 2015},
            "d": {"text": "Results of 2020 and 2021."},  # focus time read from the text
            "e": {},  # nothing known: unjudged
        },
        "queries": [
            {"id": "q1", "focus_time": 2020, "relevant": {"a": 2}},
            {"id": "q2", "text": "What happened from 2021 to 2022?"},
            {"id": "q3", "text": "What happened?"},  # no years anywhere: no focus time
        ],
    }
)
# Relevance = 4·Jaccard. q1 {2020}: a 4, b 4/3, c 0, d 2. q2 {2021, 2022}: a 0, b 1, c 0, d 4/3.
RUN = Run({"q1": ["c", "b", "a"], "q2": ["e", "d"], "q3": ["a"]})


def test_ndcg_ideal_uses_every_gold_document() -> None:
    result = temporal_ndcg(RUN, GOLD, k=3)
    q1 = ((4 / 3) / L3 + 4 / 2) / (4 + 2 / L3 + (4 / 3) / 2)
    q2 = ((4 / 3) / L3) / (4 / 3 + 1 / L3)
    assert result.per_query == pytest.approx({"q1": q1, "q2": q2}, rel=1e-15)
    assert float(result) == pytest.approx((q1 + q2) / 2, rel=1e-15)
    assert result.excluded == {"q3": "no focus time (none given, none found in its text)"}
    assert result.extra["unjudged"] == 1  # e
    assert result.median == pytest.approx((q1 + q2) / 2)


def test_precision_divides_by_k() -> None:
    result = temporal_precision(RUN, GOLD, k=3)
    assert result.per_query == {"q1": 2 / 3, "q2": 1 / 3}


def test_precision_threshold_uses_jaccard() -> None:
    # q1: b has Jaccard 1/3 (not > 0.4), a has 1. q2: d has 1/3.
    assert temporal_precision(RUN, GOLD, k=3, threshold=0.4).per_query == {"q1": 1 / 3, "q2": 0.0}


def test_recall_mrr_map() -> None:
    # q1 relevant docs known: a, b, d (3); retrieved relevant at ranks 2 and 3.
    # q2 relevant docs known: b, d (2); retrieved d at rank 2.
    assert temporal_recall(RUN, GOLD, k=3).per_query == {"q1": 2 / 3, "q2": 1 / 2}
    assert temporal_mrr(RUN, GOLD).per_query == {"q1": 1 / 2, "q2": 1 / 2}
    assert temporal_map(RUN, GOLD).per_query == pytest.approx(
        {"q1": (1 / 2 + 2 / 3) / 3, "q2": (1 / 2) / 2}
    )
    assert temporal_mrr(RUN, GOLD, k=1).per_query == {"q1": 0.0, "q2": 0.0}


def test_gold_mode_uses_graded_judgments() -> None:
    result = temporal_ndcg(RUN, GOLD, k=3, mode="gold")
    assert result.per_query == {"q1": (2 / 2) / 2}  # a (grade 2) at rank 3; ideal: a at rank 1
    assert result.excluded == {
        "q2": "no relevant document judged",
        "q3": "no relevant document judged",
    }


def test_strict_refuses_unjudged_documents() -> None:
    with pytest.raises(MetricError, match=r"doc 'e' \(query 'q2', rank 1\) has no focus time"):
        temporal_ndcg(RUN, GOLD, k=3, strict=True)


def test_retrieved_text_gives_a_focus_time_and_joins_the_ideal_pool() -> None:
    run = Run({"q1": [("x", "An article about the 2020 season."), ("c", "unused text")]})
    result = temporal_ndcg(run, GOLD, k=2)
    # x: {2020} -> 4; pool for q1: a 4, x 4, d 2, b 4/3 -> ideal top 2 is (4, 4).
    assert result.per_query["q1"] == pytest.approx(4 / (4 + 4 / L3), rel=1e-15)
    assert result.extra["unjudged"] == 0


def test_missing_query_is_scored_as_an_empty_ranking() -> None:
    result = temporal_ndcg(Run({"q1": ["a"]}), GOLD, k=3)
    assert result.per_query["q2"] == 0.0
    assert result.extra["missing_queries"] == 2
    assert "q2: 0.0000" in result.explain()


def test_explanation_names_retrieved_and_ideal_documents() -> None:
    text = temporal_ndcg(RUN, GOLD, k=3).explain(n=1)
    lines = text.splitlines()
    assert (
        lines[0].startswith("T-nDCG@3 [focus_time] = 0.4")
        and "over 2 queries (1 excluded)" in lines[0]
    )
    assert "excluded (no focus time (none given, none found in its text)): q3" in text
    assert "q2: 0.4283  retrieved: e(?) d(1.33)" in text
    assert "ideal: d(1.33) b(1)" in text


def test_unknown_run_query_is_ignored_and_reported_or_with_strict_an_error() -> None:
    run = Run({"q9": ["a"], "q1": ["a"]})
    result = temporal_ndcg(run, GOLD, k=3)
    assert result.extra["ignored_run_queries"] == ["q9"]
    assert "1 run query not in the gold set (ignored)" in result.summary()
    with pytest.raises(RunError, match="query 'q9' is not in the gold set .*strict=True"):
        temporal_ndcg(run, GOLD, k=3, strict=True)


def test_result_with_no_counted_query_refuses_comparisons() -> None:
    result = temporal_ndcg(
        Run({"q3": ["a"]}), GoldSet.from_dict({"queries": [{"id": "q3", "text": "no years"}]})
    )
    assert math.isnan(result)
    with pytest.raises(MetricError, match="all 1 queries were excluded"):
        assert result >= 0.5


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"k": 0}, "k must be a positive integer"),
        ({"k": -3}, "k must be a positive integer"),
        ({"mode": "fuzzy"}, "^mode must be one of focus_time, gold, llm, got 'fuzzy'$"),
        ({"gain": "cubic"}, "^gain must be one of linear, exponential, got 'cubic'$"),
        ({"gain": "exponentail"}, r"got 'exponentail' \(did you mean 'exponential'\?\)"),
    ],
)
def test_bad_arguments(kwargs: dict, message: str) -> None:
    with pytest.raises(MetricError, match=message):
        temporal_ndcg(RUN, GOLD, **kwargs)


def test_llm_mode_needs_a_judge() -> None:
    with pytest.raises(MetricError, match="mode='llm' needs judge="):
        temporal_ndcg(RUN, GOLD, mode="llm")


def test_empty_run_is_an_error() -> None:
    with pytest.raises(RunError, match="empty"):
        temporal_ndcg({}, GOLD)


YEAR_SETS = st.lists(st.sets(st.integers(1890, 2030), max_size=12), max_size=8)


@settings(max_examples=75, deadline=None)
@given(YEAR_SETS, YEAR_SETS)
# Pinned corners (75 drawn cases, not 150): no row or no column; empty focus times against empty
# and non-empty ones; years on each side of the 64-bit word boundaries (1890 + 64 = 1954,
# 1890 + 128 = 2018) and a span over all three words; equal and disjoint sets.
@example([], [{2000}])
@example([{2000}], [])
@example([set()], [set(), {1890}])
@example([{1890, 1953, 1954, 2017, 2018, 2030}], [{1953}, {1954, 2017}, set(range(1890, 2031))])
@example([{2000, 2001}, {1999}], [{2000, 2001}, {1999}, {2002}])
def test_pairwise_jaccard_equals_focus_time_jaccard(left: list, right: list) -> None:
    # The similarity table and the ideal pool come from this matrix product over year bits; spans
    # of 140 years use three 64-bit words, and empty focus times must give 0, not NaN.
    focus_times = [FocusTime(years) for years in left + right]
    bits, _ = year_bitsets(focus_times)
    sizes = np.array([len(ft) for ft in focus_times], dtype=np.int64)
    n = len(left)
    table = pairwise_jaccard(bits[:n], sizes[:n], bits[n:], sizes[n:])
    expected = [[a.jaccard(b) for b in focus_times[n:]] for a in focus_times[:n]]
    assert table.shape == (len(left), len(right))
    assert table.tolist() == expected  # exact: both divide the same two integers
