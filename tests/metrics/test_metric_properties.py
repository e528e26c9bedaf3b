"""Properties every metric must have, on random gold sets and runs (hypothesis)."""

import math
import random
from fractions import Fraction

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pytest_tempoeval import (
    FocusTime,
    GoldSet,
    Run,
    average_precision,
    mrr,
    ndcg,
    precision,
    recall,
    temporal_map,
    temporal_mrr,
    temporal_ndcg,
    temporal_precision,
    temporal_recall,
)

DOCS = [f"d{i}" for i in range(12)]
ALL_METRICS = [
    temporal_ndcg, temporal_precision, temporal_recall, temporal_mrr, temporal_map,
    ndcg, precision, recall, mrr, average_precision,
]  # fmt: skip
CUTOFF_METRICS = [temporal_ndcg, temporal_precision, temporal_recall, ndcg, precision, recall]


# The strategies the composites draw from are made once: a strategy made anew for every draw is
# validated and labelled anew too, which was most of the time an example took (the same draws).
booleans = st.booleans()
first_years = st.integers(1990, 2010)
span_lengths = st.integers(0, 4)
query_counts = st.integers(1, 4)
judged_docs = st.lists(st.sampled_from(DOCS), unique=True, max_size=6)
grade_values = st.integers(0, 3)
POOL = DOCS + ["unknown1", "unknown2"]
pool_orders = st.permutations(POOL)
ranking_lengths = st.integers(0, len(POOL))
cutoffs = st.integers(1, 8)


@st.composite
def years(draw: st.DrawFn) -> str | None:
    if draw(booleans) and draw(booleans):
        return None
    start = draw(first_years)
    return f"{start}-{start + draw(span_lengths)}"


spans = years()


@st.composite
def gold_and_run(draw: st.DrawFn) -> tuple[GoldSet, Run, int]:
    documents = {doc: ({"focus_time": span} if (span := draw(spans)) else {}) for doc in DOCS}
    queries, rankings = [], {}
    for index in range(draw(query_counts)):
        judged = draw(judged_docs)
        grades = {doc: draw(grade_values) for doc in judged}
        queries.append({"id": f"q{index}", "focus_time": draw(spans), "relevant": grades})
        ranking = draw(pool_orders)
        rankings[f"q{index}"] = ranking[: draw(ranking_lengths)]
    gold = GoldSet.from_dict({"documents": documents, "queries": queries})
    return gold, Run(rankings), draw(cutoffs)


def _case(queries: list[dict], rankings: dict[str, list[str]], k: int, spans: dict[str, str]):
    documents = {doc: ({"focus_time": spans[doc]} if doc in spans else {}) for doc in DOCS}
    return GoldSet.from_dict({"documents": documents, "queries": queries}), Run(rankings), k


# The edges a draw of gold_and_run can reach, pinned: every property also runs on these (75 drawn
# cases each, not 150: the draws cover small collections, and these the corners).
EDGE_CASES = [
    # nothing judged, nothing retrieved, no focus time anywhere
    _case([{"id": "q0", "focus_time": None, "relevant": {}}], {"q0": []}, 1, {}),
    # a ranking shorter than k, starting with an unknown id; a judged document graded 0
    _case(
        [{"id": "q0", "focus_time": "1990-1994", "relevant": {"d0": 3, "d1": 0}}],
        {"q0": ["unknown1", "d1", "d0"]},
        8,
        {"d0": "1990-1992", "d1": "2010-2010"},
    ),
    # every grade 0; the whole pool retrieved; k = 1
    _case(
        [{"id": "q0", "focus_time": "2000-2004", "relevant": {"d2": 0, "d3": 0}}],
        {"q0": [*DOCS, "unknown1", "unknown2"]},
        1,
        {"d2": "2000-2004"},
    ),
    # four queries; ties in focus time and in grade; one query without a ranking; k = 8
    _case(
        [
            {"id": "q0", "focus_time": "1995-1999", "relevant": {"d0": 2, "d1": 2, "d5": 1}},
            {"id": "q1", "focus_time": None, "relevant": {"d4": 3}},
            {"id": "q2", "focus_time": "2010-2010", "relevant": {"d0": 1}},
            {"id": "q3", "focus_time": "1995-1999", "relevant": {}},
        ],
        {"q0": ["d1", "d0", "d4", "d5", "unknown2"], "q1": ["d4"], "q3": ["d0"]},
        8,
        {"d0": "1995-1999", "d1": "1995-1999", "d4": "2010-2014", "d5": "1990-1990"},
    ),
]


def edge_examples(with_rng: bool = False):
    """@example for each edge case (and a seeded Random when the test shuffles)."""

    def decorate(test):
        for case in reversed(EDGE_CASES):
            test = example(case, random.Random(0))(test) if with_rng else example(case)(test)
        return test

    return decorate


@settings(max_examples=75, deadline=None)
@given(gold_and_run())
@edge_examples()
def test_scores_stay_in_unit_interval(case: tuple[GoldSet, Run, int]) -> None:
    gold, run, k = case
    for metric in ALL_METRICS:
        result = metric(run, gold, k=k)
        assert all(0.0 <= value <= 1.0 for value in result.per_query.values()), metric.__name__
        assert math.isnan(result) == (not result.per_query)
        assert set(result.per_query) | set(result.excluded) == set(gold.query_ids)


@settings(max_examples=75, deadline=None)
@given(gold_and_run())
@edge_examples()
def test_ideal_ranking_scores_one(case: tuple[GoldSet, Run, int]) -> None:
    gold, _, k = case
    by_time, by_grade = {}, {}
    for query in gold:
        qft = query.focus_time or FocusTime()
        similarity = {
            doc: qft.jaccard(gold.documents[doc].focus_time or FocusTime()) for doc in DOCS
        }
        by_time[query.id] = sorted(DOCS, key=lambda d: -similarity[d])
        by_grade[query.id] = sorted(query.relevant, key=lambda d: -query.relevant[d])
    for value in temporal_ndcg(Run(by_time), gold, k=k).per_query.values():
        assert math.isclose(value, 1.0, rel_tol=1e-12)
    for value in ndcg(Run(by_grade), gold, k=k).per_query.values():
        assert math.isclose(value, 1.0, rel_tol=1e-12)
    for value in temporal_mrr(Run(by_time), gold).per_query.values():
        assert value == 1.0


@settings(max_examples=75, deadline=None)
@given(gold_and_run(), st.randoms(use_true_random=False))
@edge_examples(with_rng=True)
def test_order_within_top_k_does_not_change_precision_or_recall(
    case: tuple[GoldSet, Run, int], rng
) -> None:
    gold, run, k = case
    shuffled = {}
    for query in run:
        top, rest = run[query][:k], run[query][k:]
        rng.shuffle(top)
        shuffled[query] = top + rest
    for metric in (temporal_precision, temporal_recall, precision, recall):
        assert metric(Run(shuffled), gold, k=k).per_query == metric(run, gold, k=k).per_query


@settings(max_examples=75, deadline=None)
@given(gold_and_run(), st.randoms(use_true_random=False))
@edge_examples(with_rng=True)
def test_documents_below_rank_k_change_nothing(case: tuple[GoldSet, Run, int], rng) -> None:
    gold, run, k = case
    changed = {}
    for query in run:
        top, rest = run[query][:k], run[query][k:]
        rng.shuffle(rest)
        changed[query] = top + rest[: rng.randint(0, len(rest))]
    for metric in CUTOFF_METRICS:
        assert metric(Run(changed), gold, k=k).per_query == metric(run, gold, k=k).per_query, (
            metric.__name__
        )


def _exact_exponential_ndcg(ranking: list[str], grades: dict[str, int], k: int) -> Fraction:
    """nDCG@k with gains 2**grade - 1 as exact integers (the discounts are the floats)."""

    def dcg(values: list[int]) -> Fraction:
        return sum(
            (Fraction(2**g - 1) * Fraction(1 / math.log2(i + 2)) for i, g in enumerate(values)),
            Fraction(0),
        )

    retrieved = [grades.get(doc, 0) for doc in ranking[:k]]
    ideal = sorted(grades.values(), reverse=True)[:k]
    return dcg(retrieved) / dcg(ideal)


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(DOCS),
        st.one_of(st.integers(0, 60), st.integers(1000, 1100), st.integers(999_990, 1_000_000)),
        min_size=1,
    ),
    st.permutations(DOCS),
    st.integers(1, 12),
)
def test_exponential_gain_is_exact_up_to_the_largest_grade(
    grades: dict[str, int], ranking: list[str], k: int
) -> None:
    # 2**1100 overflows a float: the score was NaN, and a NaN never regresses.
    gold = GoldSet.from_dict({"queries": [{"id": "q", "relevant": grades}]})
    result = ndcg(Run({"q": ranking}), gold, k=k, gain="exponential")
    if max(grades.values()) <= 0:
        assert "q" in result.excluded
        return
    expected = _exact_exponential_ndcg(ranking, grades, k)
    assert result.per_query["q"] == pytest.approx(float(expected), rel=1e-12, abs=1e-300)


def test_exponential_gain_of_grade_1100_by_hand() -> None:
    # (2**1 - 1) / 1 + (2**1100 - 1) / log2(3), over (2**1100 - 1) / 1 + 1 / log2(3)
    gold = GoldSet.from_dict({"queries": [{"id": "q", "relevant": {"d0": 1100, "d1": 1}}]})
    result = ndcg(Run({"q": ["d1", "d0"]}), gold, k=10, gain="exponential")
    assert float(result) == pytest.approx(1 / math.log2(3), rel=1e-15)
    assert ndcg(Run({"q": ["d0", "d1"]}), gold, k=10, gain="exponential") == 1.0
