"""Retrieved ids the gold set does not know: counted in every explanation, and a result that knows
none of them (a retriever's own UUIDs, positions instead of ids) can pass no check.

Before this, such a run scored 0.0, compared like any score, and a baseline of 0.0000 passed
forever."""

from __future__ import annotations

import pickle

import pytest
from check_recording import recorded

from pytest_tempoeval import (
    BaselineStore,
    GoldSet,
    MetricError,
    Run,
    evaluate,
    mrr,
    ndcg,
    precision,
    temporal_ndcg,
)
from pytest_tempoeval.metrics import checks

# q1 judges d1, q2 judges d2; d3 is declared under documents, judged for nobody.
GOLD = GoldSet.from_dict(
    {
        "documents": {
            "d1": {"text": "The 2020 report."},
            "d2": {"text": "The 2016 report."},
            "d3": {"text": "The 2012 report."},
        },
        "queries": [
            {"id": "q1", "text": "What happened in 2020?", "relevant": {"d1": 2}},
            {"id": "q2", "text": "What happened in 2016?", "relevant": {"d2": 1}},
        ],
    }
)
UUIDS = [f"{i:08x}-5e0f-4c1d-9a57-3b1f2c9d8e7a" for i in range(6)]


def uuid_run() -> Run:
    return Run({"q1": UUIDS[:3], "q2": UUIDS[3:]})


def test_partly_unknown_ids_are_counted_in_the_ranks_scored_and_named() -> None:
    # top 4: q1 d1 (judged for q1), d2 (judged for q2), x, d3 (declared); q2 z, d2. y is rank 5.
    run = Run({"q1": ["d1", "d2", "x", "d3", "y"], "q2": ["z", "d2"]})
    result = ndcg(run, GOLD, k=4)
    assert (result.extra["unknown_ids"], result.extra["retrieved_ids"]) == (2, 6)
    assert result.extra["unknown_examples"] == ["x", "z"]
    assert "2 of 6 retrieved ids in the top 4 unknown to the gold set" in result.summary()
    assert "  unknown ids (e.g. 'x', 'z'): neither judged for a query nor declared" in (
        result.explain()
    )
    assert result >= 0.5  # counted and shown; it fails only with tempoeval_fail_on_unknown_ids
    whole = mrr(run, GOLD)  # no k: the whole ranking, y included
    assert (whole.extra["unknown_ids"], whole.extra["retrieved_ids"]) == (3, 7)
    assert "3 of 7 retrieved ids unknown to the gold set" in whole.summary()


@pytest.mark.parametrize(
    ("metric", "scored"),
    [
        (lambda run: ndcg(run, GOLD, k=10), "6 retrieved ids in the top 10"),
        (lambda run: precision(run, GOLD, k=2), "4 retrieved ids in the top 2"),
        (lambda run: mrr(run, GOLD), "6 retrieved ids"),  # reads to each first relevant doc
        (lambda run: temporal_ndcg(run, GOLD, k=10), "6 retrieved ids in the top 10"),
        (
            lambda run: evaluate(run, GOLD, ["Success@3"])["Success@3"],
            "6 retrieved ids in the top 3",
        ),
    ],
    ids=["nDCG", "P", "RR", "T-nDCG", "Success by name"],
)
def test_no_comparison_passes_when_the_gold_set_knows_none_of_the_ids(metric, scored) -> None:
    result = metric(uuid_run())
    assert float(result) == 0.0
    message = (
        r"measures nothing: none of the 6 retrieved ids is known to the gold set "
        rf"\(e\.g\. '{UUIDS[0]}', '{UUIDS[1]}', '0000000[23]-[^']+'\); the gold set's ids look "
        r"like 'd1', 'd2'; give the run the gold set's document ids \(Run\.from_retriever\(\.\.\., "
        r"id_key='doc_id'\)"
    )
    for compare in (
        lambda: result >= 0.0,
        lambda: result > -1,
        lambda: result <= 1.0,
        lambda: result < 2,
        lambda: 0.0 <= result,
    ):
        with recorded() as seen, pytest.raises(MetricError, match=message):
            compare()
        assert [check.passed for check in seen] == [False]  # shown as failed, then raised
    assert f", none of the {scored} is known to the gold set" in result.summary()


def test_the_failed_comparison_is_recorded_before_it_raises() -> None:
    with recorded() as seen, pytest.raises(MetricError):
        assert ndcg(uuid_run(), GOLD, k=3) >= 0.0
    assert [(check.op, check.threshold, check.passed) for check in seen] == [(">=", 0.0, False)]


def test_a_baseline_is_neither_written_nor_compared_from_it(tmp_path) -> None:
    store = BaselineStore(tmp_path / "b.json", update=True, test_id="t.py::t")
    with pytest.raises(MetricError, match="none of the 6 retrieved ids is known"):
        store.check(ndcg(uuid_run(), GOLD, k=3))
    assert not store.finish() and not (tmp_path / "b.json").exists()


def test_a_pickled_result_still_refuses() -> None:
    result = pickle.loads(pickle.dumps(ndcg(uuid_run(), GOLD, k=3)))
    with pytest.raises(MetricError, match="none of the 6 retrieved ids is known"):
        result.check_comparable()


def test_ids_known_only_deeper_than_k_are_comparable() -> None:
    """P@1 of a run that puts an unjudged document first everywhere: a bad run, not a foreign one.
    The note says so for the top 1; the comparison is an ordinary one."""
    run = Run({"q1": ["x1", "d1"], "q2": ["x2", "d2"]})
    result = precision(run, GOLD, k=1)
    assert "none of the 2 retrieved ids in the top 1 is known to the gold set" in result.summary()
    with recorded() as seen:
        assert not (result >= 0.5)
    assert [check.passed for check in seen] == [False]


def test_texts_make_ids_known_outside_gold_mode_only() -> None:
    """A retriever's UUIDs with their texts: focus-time mode reads the texts, gold mode cannot."""
    run = Run({"q1": [(UUIDS[0], "Events of 2020.")], "q2": [(UUIDS[1], "Events of 2016.")]})
    focus = temporal_ndcg(run, GOLD, k=2)
    assert focus.extra["unknown_ids"] == 0 and focus >= 0.1
    with recorded(), pytest.raises(MetricError, match="none of the 2 retrieved ids is known"):
        assert ndcg(run, GOLD, k=2) >= 0.0


def test_integer_ids_match_their_decimal_text_and_positions_are_named() -> None:
    numbered = GoldSet.from_dict({"queries": [{"id": "q1", "relevant": {"3": 1}}]})
    assert ndcg(Run({"q1": [3, 5]}), numbered, k=2) == 1.0  # 3 is "3"
    positions = r"\(e\.g\. '0', '1', '2'\); .*decimal text \(3 is '3'\)"
    with recorded(), pytest.raises(MetricError, match=positions):
        assert ndcg(Run({"q1": [0, 1, 2], "q2": [0]}), GOLD, k=3) >= 0.0


def test_fail_on_unknown_ids_fails_a_partly_unknown_result(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    run = Run({"q1": ["d1", "x"], "q2": ["d2"]})
    monkeypatch.setattr(checks.policy, "fail_on_unknown_ids", True)
    result = ndcg(run, GOLD, k=2)
    assert float(result) == 1.0
    with recorded():
        assert not (result >= 0.5)
    from pytest_tempoeval.metrics.explain import explain_comparison

    head = explain_comparison(result, ">=", 0.5, 0)[0]
    assert (
        "; 1 of 3 retrieved ids in the top 2 unknown to the gold set, which fails it "
        "(fail_on_unknown_ids); ranking shorter than k=2" in head
    )
    store = BaselineStore(tmp_path / "b.json", update=True, test_id="t.py::t", defer=True)
    comparison = store.check(result)
    assert comparison.status == "unknown ids" and not comparison.passed
    assert (
        "fails because every retrieved id must be known (fail_on_unknown_ids): 1 of 3"
        in (store.regressions[0])
    )
