"""Properties every metric must have, on random gold sets and runs (hypothesis)."""

import math

from hypothesis import given, settings
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


@st.composite
def years(draw: st.DrawFn) -> str | None:
    if draw(st.booleans()) and draw(st.booleans()):
        return None
    start = draw(st.integers(1990, 2010))
    return f"{start}-{start + draw(st.integers(0, 4))}"


@st.composite
def gold_and_run(draw: st.DrawFn) -> tuple[GoldSet, Run, int]:
    documents = {doc: ({"focus_time": span} if (span := draw(years())) else {}) for doc in DOCS}
    queries, rankings = [], {}
    for index in range(draw(st.integers(1, 4))):
        judged = draw(st.lists(st.sampled_from(DOCS), unique=True, max_size=6))
        grades = {doc: draw(st.integers(0, 3)) for doc in judged}
        queries.append({"id": f"q{index}", "focus_time": draw(years()), "relevant": grades})
        pool = DOCS + ["unknown1", "unknown2"]
        ranking = draw(st.permutations(pool))
        rankings[f"q{index}"] = ranking[: draw(st.integers(0, len(pool)))]
    gold = GoldSet.from_dict({"documents": documents, "queries": queries})
    return gold, Run(rankings), draw(st.integers(1, 8))


@settings(max_examples=150, deadline=None)
@given(gold_and_run())
def test_scores_stay_in_unit_interval(case: tuple[GoldSet, Run, int]) -> None:
    gold, run, k = case
    for metric in ALL_METRICS:
        result = metric(run, gold, k=k)
        assert all(0.0 <= value <= 1.0 for value in result.per_query.values()), metric.__name__
        assert math.isnan(result) == (not result.per_query)
        assert set(result.per_query) | set(result.excluded) == set(gold.query_ids)


@settings(max_examples=150, deadline=None)
@given(gold_and_run())
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


@settings(max_examples=150, deadline=None)
@given(gold_and_run(), st.randoms(use_true_random=False))
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


@settings(max_examples=150, deadline=None)
@given(gold_and_run(), st.randoms(use_true_random=False))
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
