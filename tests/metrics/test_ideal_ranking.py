"""The ideal ranking an explanation shows is the one the score was measured against, in every
mode."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pytest_tempoeval import GoldSet, Run, ndcg, precision, temporal_ndcg, temporal_precision
from pytest_tempoeval.metrics.llm_judgments import Judgment, JudgmentRequest
from pytest_tempoeval.metrics.relevance import (
    _top_grades_per_group,
    focus_time_relevance,
    gold_relevance,
    llm_relevance,
)

GOLD = GoldSet.from_dict(
    {
        "documents": {
            "a": {"text": "The 2020 election."},
            "b": {"text": "Results of 2020."},
            "c": {"text": "What 2020 brought."},
            "d": {"text": "Looking back at 2019 and 2020."},
            "e": {"text": "Nothing dated."},
        },
        "queries": [
            {"id": "q2020", "text": "What happened in 2020?", "relevant": {"a": 3, "d": 1, "e": 0}},
            {"id": "q2019", "text": "And in 2019?", "relevant": {"d": 2}},
        ],
    }
)
RUN = Run({"q2020": ["e", "a", "b"], "q2019": ["a", "d"]})


class GradesOnlyB:
    """A judge that finds only document b relevant (grade 4, verdict 1)."""

    model = "stub-judge"

    def grade_all(self, items: Sequence[JudgmentRequest]) -> list[Judgment]:
        return [Judgment(query, doc, 4 if doc == "b" else 0) for query, _, doc, _ in items]

    def verdict_all(
        self, items: Sequence[JudgmentRequest], temporal_focus: object = None
    ) -> list[Judgment]:
        return [Judgment(query, doc, int(doc == "b")) for query, _, doc, _ in items]


def test_llm_mode_explains_the_ideal_of_judged_documents() -> None:
    """The judge graded only b: the ideal the score used is b(4) alone, not the gold set's
    documents of the right years (which the explanation showed before)."""
    result = temporal_ndcg(RUN, GOLD, k=3, mode="llm", judge=GradesOnlyB())
    assert result.per_query["q2020"] == pytest.approx((4 / 2) / 4)  # b at rank 3: 4/log2(4) = 2
    assert result.explain_query("q2020").ideal == [("b", 4.0)]
    assert "ideal: b(4)" in result.explain()
    assert result.excluded == {"q2019": "no retrieved document was judged relevant"}


@pytest.mark.parametrize("k", [1, 2, 3, 5])
@pytest.mark.parametrize(
    "relevance_of",
    [
        lambda run, gold, k: gold_relevance(run, gold, k),
        lambda run, gold, k: focus_time_relevance(run, gold, k),
        lambda run, gold, k: llm_relevance(run, gold, k, GradesOnlyB(), graded=True),
    ],
    ids=["gold", "focus_time", "llm"],
)
def test_shown_ideal_values_are_the_scored_ideal_values(relevance_of: object, k: int) -> None:
    relevance = relevance_of(RUN, GOLD, k)  # type: ignore[operator]
    for position, _ in enumerate(GOLD.query_ids):
        shown = [value for _, value in relevance.ideal_documents(position, k, False)]
        scored = [value for value in relevance.ideal[position, :k].tolist() if value > 0]
        assert shown == scored


def test_focus_time_ideal_includes_retrieved_documents_known_by_their_text() -> None:
    run = Run({"q2020": [("x", "A story from 2020."), ("a", "The 2020 election.")]})
    result = temporal_ndcg(run, GOLD, k=2)
    ideal = result.explain_query("q2020").ideal
    assert [doc for doc, _ in ideal] == ["a", "b"]  # five tie at 4: ties by id, top 2 shown
    assert result.explain_query("q2020").retrieved == [("x", 4.0), ("a", 4.0)]
    assert result.per_query["q2020"] == pytest.approx(1.0)


def test_binary_metrics_show_the_documents_they_count_relevant() -> None:
    gold_ideal = precision(RUN, GOLD, k=3).explain_query("q2020").ideal
    assert gold_ideal == [("a", 1.0), ("d", 1.0)]  # e is judged 0: not relevant
    focus_ideal = temporal_precision(RUN, GOLD, k=2).explain_query("q2019").ideal
    assert focus_ideal == [("d", 1.0)]  # only d mentions 2019
    assert ndcg(RUN, GOLD, k=3).explain_query("q2020").ideal == [("a", 3.0), ("d", 1.0)]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.lists(st.integers(-3, 40), max_size=12), min_size=1, max_size=8),
    st.integers(1, 15),
)
# Pinned corners (100 drawn cases, not 200): empty groups first and last; only negative grades;
# grades on each side of 16 (counted up to it, sorted past it) in one group; a group longer than
# the depth, and one shorter.
@example([[], [3, 1], []], 2)
@example([[-3, -1, -2]], 3)
@example([[15, 16, 17, 0, 40, 16]], 4)
@example([[1] * 12, [2]], 15)
def test_top_grades_per_group_counted_or_sorted_equal_python(
    groups: list[list[int]], depth: int
) -> None:
    """Grades up to 16 are counted per level, larger ones sorted: both give each group's best
    gains, descending, zero-padded. A negative grade (judged non-relevant) gains what 0 does."""
    grades = np.array([grade for group in groups for grade in group], dtype=np.int64)
    offsets = np.cumsum([0] + [len(group) for group in groups])
    gains = [[max(grade, 0) for grade in group] for group in groups]
    expected = [(sorted(group, reverse=True) + [0] * depth)[:depth] for group in gains]
    assert _top_grades_per_group(grades, offsets, depth).tolist() == expected
    small = [[min(gain, 16) for gain in group] for group in gains]
    clipped = np.minimum(grades, 16)
    expected_small = [(sorted(group, reverse=True) + [0] * depth)[:depth] for group in small]
    assert _top_grades_per_group(clipped, offsets, depth).tolist() == expected_small
