"""The judge's agreement with human grades: kappa against scikit-learn, and the result's behaviour
as a check."""

from __future__ import annotations

import math
import pickle
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pytest_tempoeval import AgreementResult, GoldSet, MetricError, judge_agreement
from pytest_tempoeval.metrics.agreement import cohen_kappa, confusion_matrix
from pytest_tempoeval.metrics.llm_judgments import Judgment


@pytest.fixture(scope="module")
def sklearn_kappa() -> Callable[..., float]:
    """scikit-learn's cohen_kappa_score, the reference. Imported by the tests that use it (outside
    hypothesis's timed examples): every xdist worker imports every test module, and scikit-learn
    takes 2 s of CPU to import."""
    from sklearn.metrics import cohen_kappa_score

    return cohen_kappa_score


@pytest.mark.filterwarnings("ignore::UserWarning")  # scikit-learn, when one label is all there is
@settings(max_examples=100)
@given(
    st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=2, max_size=60),
    st.sampled_from([None, "quadratic"]),
    st.booleans(),
)
# Pinned corners (100 drawn cases, not 200): one label only (undefined on the used labels, not on
# the whole scale), perfect agreement, the two ends of the scale swapped, two items.
@example([(2, 2), (2, 2)], None, False)
@example([(2, 2), (2, 2)], "quadratic", True)
@example([(0, 0), (4, 4), (1, 1)], "quadratic", False)
@example([(0, 4), (4, 0), (0, 4)], "quadratic", True)
@example([(0, 1), (3, 3)], None, True)
def test_kappa_equals_scikit_learn(
    sklearn_kappa: Callable[..., float],
    pairs: list[tuple[int, int]],
    weights: str | None,
    whole_scale: bool,
) -> None:
    first, second = (np.array(column) for column in zip(*pairs, strict=True))
    scale = list(range(5)) if whole_scale else None
    ours = cohen_kappa(first, second, weights, None if scale is None else np.array(scale))
    theirs = sklearn_kappa(first, second, weights=weights, labels=scale)
    if math.isnan(theirs):
        assert math.isnan(ours)
    else:
        assert ours == pytest.approx(theirs, abs=1e-12)


def test_kappa_by_hand() -> None:
    # Two raters, 10 items: agree on 4 zeros and 4 ones, disagree on 2. p_o = 0.8; each rater says
    # 1 half the time: p_e = 0.5. kappa = (0.8 - 0.5) / (1 - 0.5) = 0.6.
    first = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    second = np.array([0, 0, 0, 0, 1, 0, 1, 1, 1, 1])
    assert cohen_kappa(first, second) == pytest.approx(0.6)
    assert confusion_matrix(first, second, np.array([0, 1])).tolist() == [[4, 1], [1, 4]]
    assert math.isnan(cohen_kappa(np.array([2, 2]), np.array([2, 2])))  # one label: undefined


def test_the_graded_scale_is_whole_even_where_nobody_used_a_grade() -> None:
    """Gold (0, 4, 1), judge (0, 4, 0). On the used labels {0, 1, 4} grade 4 is one step from 1
    and kappa is 0.8; on the 0..4 scale it is three steps, and kappa is 1 - 3/59."""
    gold = GoldSet.from_dict(
        {
            "version": 1,
            "documents": {"a": {"text": "A."}, "b": {"text": "B."}, "c": {"text": "C."}},
            "queries": [{"id": "q", "text": "Q?", "relevant": {"a": 0, "b": 4, "c": 1}}],
        }
    )
    result = judge_agreement(gold, ScriptedJudge({("q", "a"): 0, ("q", "b"): 4, ("q", "c"): 0}))
    assert result.labels == [0, 1, 2, 3, 4]
    # observed: (1 - 0)^2 over 3 pairs; expected: the 9 pairings of gold {0, 4, 1} with judge
    # {0, 4, 0}: (0 + 16 + 0) + (16 + 0 + 16) + (1 + 9 + 1) = 59, over 9
    assert result.kappa == pytest.approx(1 - (1 / 3) / (59 / 9))
    used_only = cohen_kappa(np.array([0, 4, 1]), np.array([0, 4, 0]), "quadratic")
    assert used_only == pytest.approx(0.8)


class ScriptedJudge:
    """Answers from a table: (query, doc) -> grade or verdict."""

    model = "scripted"

    def __init__(self, answers: dict[tuple[str, str], int]) -> None:
        self.answers = answers

    def grade_all(self, items: list) -> list[Judgment]:
        return [Judgment(q, d, self.answers[q, d]) for q, _, d, _ in items]

    def verdict_all(self, items: list, temporal_focus: object = None) -> list[Judgment]:
        return [Judgment(q, d, int(self.answers[q, d] >= 2)) for q, _, d, _ in items]


GOLD = GoldSet.from_dict(
    {
        "version": 1,
        "documents": {f"d{i}": {"text": f"Document {i}."} for i in range(6)} | {"notext": {}},
        "queries": [
            {"id": "q1", "text": "First?", "relevant": {"d0": 0, "d1": 1, "d2": 3, "notext": 2}},
            {"id": "q2", "text": "Second?", "relevant": {"d3": 0, "d4": 2, "d5": 3}},
        ],
    }
)
ANSWERS = {
    ("q1", "d0"): 0,
    ("q1", "d1"): 1,
    ("q1", "d2"): 4,
    ("q2", "d3"): 3,
    ("q2", "d4"): 2,
    ("q2", "d5"): 3,
}


def test_judge_agreement_graded_and_binary(sklearn_kappa: Callable[..., float]) -> None:
    result = judge_agreement(GOLD, ScriptedJudge(ANSWERS))
    gold, judge = [0, 1, 3, 0, 2, 3], [0, 1, 4, 3, 2, 3]
    assert isinstance(result, AgreementResult) and result.mode == "graded"
    scale = [0, 1, 2, 3, 4]
    assert result.kappa == pytest.approx(
        sklearn_kappa(gold, judge, weights="quadratic", labels=scale)
    )
    assert result.labels == [0, 1, 2, 3, 4]
    assert result.confusion[0] == [1, 0, 0, 1, 0]  # gold 0: one judged 0, one judged 3
    assert result.counts == {
        "gold": {0: 2, 1: 1, 2: 1, 3: 2},
        "judge": {0: 1, 1: 1, 2: 1, 3: 2, 4: 1},
    }
    assert result.disagreements == [("q2", "d3", 0, 3), ("q1", "d2", 3, 4)]  # worst first
    assert result.excluded == {"q1 / notext": "no text for the judge (query or document)"}
    assert result.measure == "judge_agreement(graded)" and result.extra["pairs"] == 6
    binary = judge_agreement(GOLD, ScriptedJudge(ANSWERS), mode="binary", rel=2)
    assert binary.kappa == pytest.approx(sklearn_kappa([0, 0, 1, 0, 1, 1], [0, 0, 1, 1, 1, 1]))


def test_agreement_compares_like_a_metric_and_explains_itself() -> None:
    result = judge_agreement(GOLD, ScriptedJudge(ANSWERS))
    assert result >= 0.3
    with pytest.raises(AssertionError) as failure:
        assert result.checked() >= 0.99
    text = str(failure.value)
    assert text.startswith("judge_agreement(graded) [graded] = 0.")
    assert "confusion (rows: gold grade, columns: the judge's grade):" in text
    assert "q2 / d3: gold 0, judge 3" in text
    assert pickle.loads(pickle.dumps(result)).confusion == result.confusion


def test_agreement_that_cannot_be_measured_is_an_error() -> None:
    same = {pair: 3 for pair in ANSWERS}
    gold = GoldSet.from_dict(
        {
            "version": 1,
            "documents": {"d": {"text": "x"}},
            "queries": [{"id": "q", "text": "t", "relevant": {"d": 3}}],
        }
    )
    result = judge_agreement(gold, ScriptedJudge({("q", "d"): 3} | same))
    with pytest.raises(MetricError, match="kappa is undefined"):
        assert result >= 0.5
    with pytest.raises(MetricError, match="no .* pair of .* has texts"):
        judge_agreement(
            GoldSet.from_dict({"version": 1, "queries": [{"id": "q", "relevant": {"d": 1}}]}),
            ScriptedJudge({}),
        )
    with pytest.raises(
        MetricError, match="^agreement mode must be one of graded, binary, got 'ordinal'$"
    ):
        judge_agreement(GOLD, ScriptedJudge(ANSWERS), mode="ordinal")
