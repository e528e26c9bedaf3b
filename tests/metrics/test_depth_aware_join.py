"""The join reads only the ranks a measure needs: the values, counts and explanations are the same
as when every rank is joined."""

from __future__ import annotations

import pickle

import pytest

from pytest_tempoeval import GoldSet, Run, mrr, ndcg, precision, success

# q-early: its first relevant document at rank 2, judged documents at ranks 12 and 20 (grade 0 and
# 2). q-late: nothing relevant before rank 15. q-none: no relevant document retrieved at all.
RANKING = [f"d{i}" for i in range(1, 26)]
GOLD = GoldSet.from_dict(
    {
        "version": 1,
        "queries": [
            {"id": "q-early", "relevant": {"d2": 1, "d12": 0, "d20": 2, "x": 3}},
            {"id": "q-late", "relevant": {"d15": 3, "d3": 0}},
            {"id": "q-none", "relevant": {"y": 1, "d4": 0}},
        ],
    }
)
RUN = Run({query: list(RANKING) for query in ("q-early", "q-late", "q-none")})


def fresh() -> tuple[Run, GoldSet]:
    """New objects: nothing joined yet, so the first call takes the depth-aware path."""
    return Run({query: list(RANKING) for query in GOLD.query_ids}), GOLD


def test_reciprocal_rank_past_the_first_ranks() -> None:
    run, gold = fresh()
    result = mrr(run, gold)
    assert result.per_query == {"q-early": 0.5, "q-late": 1 / 15, "q-none": 0.0}
    assert success(*fresh(), k=20).per_query == {"q-early": 1.0, "q-late": 1.0, "q-none": 0.0}
    assert success(*fresh(), k=12).per_query == {"q-early": 1.0, "q-late": 0.0, "q-none": 0.0}


def test_counts_cover_every_rank_as_if_all_were_joined() -> None:
    run, gold = fresh()
    result = mrr(run, gold)
    # judged among the 25 retrieved: q-early d2, d12, d20; q-late d3, d15; q-none d4
    assert result.judged == pytest.approx({"q-early": 3 / 25, "q-late": 2 / 25, "q-none": 1 / 25})
    assert result.extra["unjudged"] == 3 * 25 - 6
    # the same after a pickle (xdist): the counts are computed before the result leaves
    again = pickle.loads(pickle.dumps(mrr(*fresh())))
    assert again.extra["unjudged"] == 69 and again.judged == result.judged


def test_the_explanation_shows_the_grades_of_every_shown_rank() -> None:
    run, gold = fresh()
    result = mrr(run, gold, k=20)
    shown = dict(result.explain_query("q-early").retrieved)
    assert shown["d12"] == 0.0 and shown["d20"] == 1.0 and shown["d5"] is None


def test_a_shallow_join_then_a_deeper_one_agree_with_one_deep_join() -> None:
    shallow_first, gold = fresh()
    ndcg(shallow_first, gold, k=5)
    precision(shallow_first, gold, k=10)
    deep_first, _ = fresh()
    mrr(deep_first, gold)
    for run in (shallow_first, deep_first):
        assert ndcg(run, gold, k=25).per_query == ndcg(*fresh(), k=25).per_query
        assert precision(run, gold, k=20).per_query == {
            "q-early": 0.1,
            "q-late": 0.05,
            "q-none": 0.0,
        }


def test_a_gold_set_without_any_judgment_excludes_every_query_past_the_first_ranks() -> None:
    """The first pass used to index an empty judgment table (IndexError) for rankings over 10."""
    gold = GoldSet.from_dict({"version": 1, "queries": [{"id": "q", "text": "x"}]})
    for metric in (mrr, success):
        result = metric(Run({"q": RANKING}), gold)
        assert result.excluded == {"q": "no relevant document judged"}


def test_reciprocal_rank_after_a_whole_ranking_measure_reads_its_join(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """AP joins every rank and keeps the join: reciprocal rank scored after it reads that join
    instead of joining the late ranks again, with the same values (hand-computed above)."""
    from pytest_tempoeval import average_precision
    from pytest_tempoeval.metrics import alignment, relevance

    run, gold = fresh()
    average_precision(run, gold)
    joins: list[int] = []
    join = alignment.judged_rows_of

    def counted(*args: object) -> object:
        joins.append(1)
        return join(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(relevance, "judged_rows_of", counted)
    assert mrr(run, gold).per_query == {"q-early": 0.5, "q-late": 1 / 15, "q-none": 0.0}
    assert joins == []
    assert mrr(*fresh()).per_query == {"q-early": 0.5, "q-late": 1 / 15, "q-none": 0.0}
    assert joins  # alone, it joins the ranks past the first ones itself


SHALLOW_AFTER_DEEP = ["P@5", "R@3", "nDCG@5", "AP@10", "Judged@4", "P(rel=2)@5", "RR@3"]


@pytest.mark.parametrize("measure", SHALLOW_AFTER_DEEP)
def test_a_measure_scored_after_deeper_ones_equals_it_scored_alone(measure: str) -> None:
    """Relevance is kept per level and read to fewer ranks by a later, shallower measure: its
    values, exclusions, Judged@k, counts and explanations are those it has on fresh objects
    (hand-computed for P@5 and R@3)."""
    from pytest_tempoeval import score

    run, gold = fresh()
    for deeper in ("AP", "R@25", "nDCG@20", "P(rel=2)@25"):
        score(deeper, run, gold)
    after, alone = score(measure, run, gold), score(measure, *fresh())
    assert after.per_query == alone.per_query
    assert after.excluded == alone.excluded and after.judged == alone.judged
    assert after.extra == alone.extra
    assert after.explain_query("q-early") == alone.explain_query("q-early")
    if measure == "P@5":
        assert alone.per_query == {"q-early": 0.2, "q-late": 0.0, "q-none": 0.0}
    if measure == "R@3":
        # q-early: d2 of its three relevant (d2, d20, x) in the top 3
        assert alone.per_query == pytest.approx({"q-early": 1 / 3, "q-late": 0.0, "q-none": 0.0})
