"""Every example of the seed pages runs with only its import changed, and gives the right value.

Seeds: ``shared/seeds`` (TempoEval's Temporal NDCG@K and Temporal Precision@K pages, an nDCG
explainer).
"""

import asyncio
import math
import operator

import pytest

from pytest_tempoeval import MetricResult
from pytest_tempoeval.errors import JudgeError, MetricError
from pytest_tempoeval.metrics import TemporalNDCG, TemporalPrecision

LOG2_3 = math.log2(3)


class FakeProvider:
    """A judge with TempoEval's provider interface, answering from a script of replies."""

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.prompts: list[str] = []

    async def agenerate(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]


def test_ndcg_focus_time_seed_example() -> None:
    metric = TemporalNDCG(use_focus_time=True)
    score = metric.compute(qft={2020, 2021}, dfts=[{2020, 2021}, {2019}], k=2)
    # rel = [4·1, 4·0]: the ideal order, so 1.0
    assert score == 1.0


def test_precision_focus_time_seed_example() -> None:
    metric = TemporalPrecision(use_focus_time=True)
    score = metric.compute(qft={2020, 2021}, dfts=[{2020}, {2019}], k=2)
    assert score == 0.5


def test_ndcg_llm_seed_example() -> None:
    llm = FakeProvider('{"relevance_score": 3, "reasoning": "mentions the year"}')
    metric = TemporalNDCG(use_llm=True)
    metric.llm = llm
    score = asyncio.run(metric.acompute(query="When did X happen?", retrieved_docs=["..."], k=5))
    # One judged document: it is its own ideal ranking.
    assert score == 1.0
    assert (
        "Rate the temporal relevance" in llm.prompts[0] and "When did X happen?" in llm.prompts[0]
    )


def test_precision_llm_seed_example() -> None:
    llm = FakeProvider('{"verdict": 1, "confidence": 0.9, "reason": "has a date"}')
    metric = TemporalPrecision()
    metric.llm = llm
    score = asyncio.run(
        metric.acompute(
            query="When did X happen?", retrieved_docs=["..."], temporal_focus="specific_time", k=5
        )
    )
    assert score == pytest.approx(1 / 5, abs=0)  # divides by k, the seed formula
    assert "Temporal Focus: specific_time" in llm.prompts[0]


def test_synchronous_compute_matches_acompute() -> None:
    metric = TemporalNDCG(
        use_llm=True, llm=FakeProvider('{"relevance_score": 1}', '{"relevance_score": 4}')
    )
    assert metric.compute(query="q?", retrieved_docs=["a", "b"], k=2) == pytest.approx(
        (1 + 4 / LOG2_3) / (4 + 1 / LOG2_3), rel=1e-15
    )


def test_explainer_example_is_096635() -> None:
    """The nDCG explainer's table: relevances [3, 1, 2, 0, 1]; its IDCG used 1/log2(6) at rank 4."""
    metric = TemporalNDCG()
    score = metric.compute(
        retrieved_ids=list("ABCDE"), gold_ids={"A": 3, "B": 1, "C": 2, "D": 0, "E": 1}, k=5
    )
    dcg = 3 + 1 / math.log2(3) + 2 / 2 + 0 + 1 / math.log2(6)
    idcg = 3 + 2 / math.log2(3) + 1 / 2 + 1 / math.log2(5) + 0
    assert score == pytest.approx(dcg / idcg, rel=1e-15)
    assert round(score, 5) == 0.96635


@pytest.mark.parametrize(
    ("kwargs", "published"),
    [
        # TempoEval 0.1.0's TemporalNDCG docstring example (focus time, exponential gain).
        ({"qft": {2020, 2021}, "dfts": [{2020, 2021}, {2019}, {2020}], "k": 3}, 0.97675),
        # TempoEval's README quick start (gold mode): retrieved 2020, 2019, 2021; gold 2020, 2021.
        (
            {
                "retrieved_ids": ["doc_2020", "doc_2019", "doc_2021"],
                "gold_ids": ["doc_2020", "doc_2021"],
                "k": 5,
            },
            0.91972,
        ),
    ],
)
def test_exponential_gain_reproduces_tempoeval(kwargs: dict, published: float) -> None:
    use_focus_time = "qft" in kwargs
    score = TemporalNDCG(use_focus_time=use_focus_time, gain="exponential").compute(**kwargs)
    assert round(score, 5) == published  # TempoEval rounds to 5 decimals; we do not round


def test_exponential_gain_by_hand() -> None:
    score = TemporalNDCG(use_focus_time=True, gain="exponential").compute(
        qft={2020, 2021}, dfts=[{2020, 2021}, {2019}, {2020}], k=3
    )
    # rel 4, 0, 2 -> gains 15, 0, 3
    assert score == pytest.approx((15 + 3 / 2) / (15 + 3 / LOG2_3), rel=1e-15)


def test_tempoeval_precision_test_values() -> None:
    """Values from TempoEval's own test suite (TestTemporalPrecisionFocusTime)."""
    metric = TemporalPrecision(use_focus_time=True)
    assert metric.compute(qft={2020, 2021}, dfts=[{2020}, {2019}, {2021}], k=3) == pytest.approx(
        2 / 3, rel=1e-15
    )
    assert metric.compute(
        qft={2020}, dfts=[{2020}] * 2 + [{2019}] + [{2020}] * 2, k=3
    ) == pytest.approx(2 / 3)


def test_ideal_is_over_all_dfts_not_just_top_k() -> None:
    # TempoEval re-sorts only the top k, so this ranking would score 1.0 there.
    score = TemporalNDCG(use_focus_time=True).compute(qft={2020}, dfts=[{2019}, {2020}], k=1)
    assert score == 0.0


def test_no_relevant_document_is_nan_and_refuses_comparison() -> None:
    result = TemporalNDCG(use_focus_time=True).compute(qft={2020}, dfts=[{2019}], k=1)
    assert math.isnan(result)
    assert result.excluded == {"q": "no document overlaps its focus time"}
    with pytest.raises(MetricError, match="no counted query"):
        assert result >= 0.5


@pytest.mark.parametrize("op", [operator.lt, operator.le, operator.gt, operator.ge])
def test_a_counted_nan_score_refuses_comparison_naming_the_query(op) -> None:
    # Before: NaN >= 0.5 was False and NaN <= 0.5 too; now neither passes nor fails silently.
    result = MetricResult(name="ndcg", k=10, mode="gold", per_query={"q1": 0.5, "q2": math.nan})
    with pytest.raises(MetricError, match=r"is NaN, so it cannot be compared: .*: 1 \('q2'\)"):
        op(result, 0.5)


def test_invalid_judge_reply_is_retried_once_then_raises() -> None:
    llm = FakeProvider("not json", '{"relevance_score": 7}')
    metric = TemporalNDCG(use_llm=True, llm=llm)
    with pytest.raises(JudgeError, match=r"raw reply: '\{\"relevance_score\": 7\}'"):
        metric.compute(query="When?", retrieved_docs=["doc"], k=1)
    assert len(llm.prompts) == 2


def test_one_invalid_reply_then_valid_succeeds() -> None:
    llm = FakeProvider('```json\n{"verdict": "yes"}\n```', '{"verdict": 1}')
    assert TemporalPrecision(llm=llm).compute(query="When?", retrieved_docs=["doc"], k=1) == 1.0


def test_llm_mode_without_judge_is_a_clear_error() -> None:
    with pytest.raises(MetricError, match="needs a judge"):
        TemporalNDCG(use_llm=True).compute(query="When?", retrieved_docs=["doc"], k=1)


@pytest.mark.parametrize("k", [0, -1, 2.5, True])
def test_bad_k(k: object) -> None:
    with pytest.raises(MetricError, match="k must be a positive integer"):
        TemporalPrecision(use_focus_time=True).compute(qft={2020}, dfts=[{2020}], k=k)
