"""T-Persistence: the late period's score over the early one's, from the slices by period; equal to
TempoEval's TemporalPersistence (4-decimal rounding) on random cases, and never inf or NaN where
the ratio is undefined (TempoEval returns 1.0 there)."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
from tempoeval.metrics.retrieval.temporal_persistence import TemporalPersistence

from pytest_tempoeval import (
    FocusTime,
    GoldDocument,
    GoldQuery,
    GoldSet,
    MetricError,
    PersistenceResult,
    Run,
    assert_ndcg,
    evaluate,
    ndcg,
    temporal_ndcg,
    temporal_persistence,
)
from pytest_tempoeval.metrics import checks


def random_case(seed: int) -> tuple[GoldSet, Run]:
    """Queries about the 1990s and the 2010s (and a few undated), each judging 3 documents with
    random grades; the run retrieves a random 3 of them and of 2 unjudged ones."""
    rng = random.Random(seed)
    queries, documents, rankings = [], [], {}
    for i in range(rng.randint(4, 16)):
        decade = rng.choice([1990, 2010, None])
        year = None if decade is None else FocusTime.parse(decade + rng.randint(0, 9))
        judged = {f"d{i}_{j}": rng.randint(0, 3) for j in range(3)}
        if not any(judged.values()):
            judged[f"d{i}_0"] = 1  # something relevant: nDCG is defined
        queries.append(GoldQuery(f"q{i}", "q", year, relevant=judged))
        pool = [*judged, f"u{i}_0", f"u{i}_1"]
        documents += [GoldDocument(doc, "t", FocusTime.parse(2000)) for doc in pool]
        rankings[f"q{i}"] = rng.sample(pool, 3)
    return GoldSet(queries, documents), Run(rankings)


def mean_of(result: Any, gold: GoldSet, decade: int) -> float | None:
    """The mean score of the queries about ``decade``, grouped by hand."""
    scores = [
        score
        for query, score in result.per_query.items()
        if (focus := gold.queries[query].focus_time) and focus.min // 10 * 10 == decade
    ]
    return sum(scores) / len(scores) if scores else None


@pytest.mark.parametrize("seed", range(40))
def test_equal_to_tempoeval_on_random_cases(seed: int) -> None:
    gold, run = random_case(seed)
    result = ndcg(run, gold, k=3)
    early, late = mean_of(result, gold, 1990), mean_of(result, gold, 2010)
    if early is None or late is None or early == 0:  # undefined: see the tests below
        with pytest.raises(MetricError):
            temporal_persistence(result, early="1990-1999", late="2010-2019")
        return
    ours = temporal_persistence(result, early="1990-1999", late="2010-2019")
    assert float(ours) == pytest.approx(late / early, rel=1e-12)
    theirs = TemporalPersistence().compute(baseline_score=early, target_score=late)
    assert round(float(ours), 4) == pytest.approx(theirs, abs=1e-12)  # TempoEval rounds to 4


def test_enough_random_cases_are_defined() -> None:
    """The cross-check above must compare numbers, not only errors."""
    defined = 0
    for seed in range(40):
        gold, run = random_case(seed)
        result = ndcg(run, gold, k=3)
        early = mean_of(result, gold, 1990)
        defined += bool(early and mean_of(result, gold, 2010) is not None)
    assert defined >= 25


def worked_example() -> tuple[GoldSet, Run]:
    """q0, q1 about the 1990s, q2, q3 about the 2010s; q4 about the 1950s retrieves nothing
    relevant; q5 has no focus time. d<i> is the relevant document of q<i>."""
    years = [1991, 1995, 2011, 2015, 1955, None]
    queries = [
        GoldQuery(f"q{i}", "q", None if y is None else FocusTime.parse(y), relevant={f"d{i}": 1})
        for i, y in enumerate(years)
    ]
    documents = [GoldDocument(f"d{i}", "t", FocusTime.parse(1990 + i)) for i in range(6)]
    documents += [GoldDocument("x", "t", FocusTime.parse(1800))]
    # q0: rank 1 (1.0); q1: rank 2 (0.6309); q2: rank 2; q3: not retrieved (0); q4: not retrieved
    rankings = {"q0": ["d0"], "q1": ["x", "d1"], "q2": ["x", "d2"], "q3": ["x"], "q4": ["x"]}
    return GoldSet(queries, documents), Run(rankings | {"q5": ["d5"]})


def test_the_worked_example_and_its_explanation() -> None:
    gold, run = worked_example()
    persistence = temporal_persistence(ndcg(run, gold, k=2), early="1990-1999", late="2010-2019")
    rank2 = 1 / math.log2(3)
    assert float(persistence) == pytest.approx((rank2 / 2) / ((1 + rank2) / 2))
    assert isinstance(persistence, PersistenceResult)
    assert persistence.label == "T-Persistence(nDCG@2, 2010-2019 / 1990-1999)"
    assert sorted(persistence.per_query) == ["q0", "q1", "q2", "q3"]
    assert persistence.summary() == (
        f"T-Persistence(nDCG@2, 2010-2019 / 1990-1999) [gold] = {float(persistence):.4f}: "
        f"{rank2 / 2:.4f} over 2 queries about 2010-2019 / {(1 + rank2) / 2:.4f} over 2 queries "
        "about 1990-1999"
    )
    assert "the worst of the queries about 2010-2019:" in persistence.explain()
    assert "  q3: 0.0000" in persistence.explain()


def test_it_checks_and_records_as_a_result() -> None:
    gold, run = worked_example()
    persistence = temporal_persistence(
        assert_ndcg(run, gold, k=2), early="1990-1999", late="2010-2019"
    )
    recorded: list[Any] = []
    checks.active_recorders.append(recorded.append)
    try:
        with pytest.raises(AssertionError, match=r"T-Persistence\(nDCG@2, 2010-2019 / 1990-1999\)"):
            persistence >= 0.9  # noqa: B015 - from an assert_ form: a bare comparison raises
        assert persistence >= 0.3
    finally:
        checks.active_recorders.pop()
    assert [check.passed for check in recorded] == [False, True]


@pytest.mark.parametrize(
    ("early", "late", "words"),
    [
        ("1950-1959", "1990-1999", "nDCG@2 on the 1 queries about 1950-1959 (early) is 0: 0, so"),
        ("1990-1999", "1980-1989", "late='1980-1989' is not a period of nDCG@2 by decade"),
        ("1990s", "2010-2019", "early='1990s' is not a period"),
    ],
)
def test_an_undefined_ratio_is_an_error_never_inf_or_nan(early: str, late: str, words: str) -> None:
    gold, run = worked_example()
    with pytest.raises(MetricError) as error:
        temporal_persistence(ndcg(run, gold, k=2), early=early, late=late)
    assert words in str(error.value)


def test_a_period_with_no_counted_query_is_an_error() -> None:
    """In focus-time mode the undated query is excluded: its period has no score."""
    gold, run = worked_example()
    with pytest.raises(MetricError, match="no counted query about no focus time .late."):
        temporal_persistence(temporal_ndcg(run, gold, k=2), early="1990-1999", late="no focus time")
    assert TemporalPersistence().compute(baseline_score=0.0, target_score=0.5) == 1.0  # theirs


def test_other_slicings_and_what_cannot_be_persisted() -> None:
    gold, run = worked_example()
    result = ndcg(run, gold, k=2)
    by_bounds = temporal_persistence(
        result, early="1990-1999", late="2000 and later", by_period=[1990, 2000]
    )
    decade = temporal_persistence(result, early="1990-1999", late="2010-2019")
    assert float(by_bounds) == pytest.approx(float(decade))
    with pytest.raises(MetricError, match="a ratio of two periods' scores"):
        decade.by_period("decade")
    with pytest.raises(MetricError, match="takes the MetricResult a metric function returns"):
        temporal_persistence(0.5, early="1990-1999", late="2010-2019")  # type: ignore[arg-type]


def test_by_name_it_says_which_function_computes_it() -> None:
    gold, run = worked_example()
    with pytest.raises(MetricError, match="T-Persistence is a ratio of two periods' scores"):
        evaluate(run, gold, ["T-Persistence"])
