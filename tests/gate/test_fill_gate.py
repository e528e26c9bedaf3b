"""The gate and grades filled by the judge (issue 29): a baseline stores the filled share, names
its change, and never compares a filled score with an unfilled one, or with another judge's."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from pytest_tempoeval import BaselineError, GoldSet, Run, ndcg
from pytest_tempoeval.data.gold_schema import GoldDocument, GoldQuery
from pytest_tempoeval.gate.baselines import BaselineStore
from pytest_tempoeval.metrics.llm_judgments import Judgment, JudgmentRequest

GOLD = GoldSet(
    [GoldQuery(f"q{i}", f"query {i}", relevant={f"r{i}": 2}) for i in range(4)],
    [GoldDocument(f"{kind}{i}", f"text {kind}{i}") for kind in "rhx" for i in range(4)],
)
# Every query finds its judged document at rank 1; FEW has one hole per query, MANY three.
FEW = Run({f"q{i}": [f"r{i}", f"h{i}"] for i in range(4)})
MANY = Run({f"q{i}": [f"r{i}", f"h{i}", f"x{i}", f"x{(i + 1) % 4}"] for i in range(4)})


class Grader:
    """A judge of the user's: every hole graded ``grade``."""

    def __init__(self, model: str = "stub-1", grade: int = 0) -> None:
        self.model, self.grade = model, grade

    def grade_all(self, items: Sequence[JudgmentRequest]) -> list[Judgment]:
        return [Judgment(query, doc, self.grade) for query, _, doc, _ in items]

    def verdict_all(self, items: Sequence[JudgmentRequest], focus: object = None) -> list:
        raise AssertionError("filling asks for grades only")


def written(path: Path, result: object, name: str | None = None) -> None:
    store = BaselineStore(path, update=True, test_id="t")
    store.check(result, name=name)
    store.finish()


def test_the_baseline_stores_the_filled_share_and_the_note_names_its_change(
    tmp_path: Path,
) -> None:
    path = tmp_path / "b.json"
    written(path, ndcg(FEW, GOLD, k=4, fill_unjudged=Grader()))
    stored = json.loads(path.read_text())["results"]["nDCG(fill=llm)@4"]
    assert stored["filled"] == {f"q{i}": 1 / 2 for i in range(4)}  # 1 of 2 retrieved, filled
    # the same scores (every hole graded 0), three times the holes filled: said in the note
    comparison = BaselineStore(path, update=False, test_id="t").check(
        ndcg(MANY, GOLD, k=4, fill_unjudged=Grader())
    )
    assert comparison.passed
    assert (
        "grades filled by the judge: 50.0% -> 75.0% of the top 4 over 4 queries; part of the "
        "change is the judge's grades, not the human judgments" in comparison.note
    )
    same = BaselineStore(path, update=False, test_id="t").check(
        ndcg(FEW, GOLD, k=4, fill_unjudged=Grader())
    )
    assert "grades filled" not in same.note


def test_a_score_without_fill_is_never_compared_with_a_filled_one(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    written(path, ndcg(FEW, GOLD, k=4))
    with pytest.raises(
        BaselineError, match=r"has nDCG@4 but the test now checks nDCG\(fill=llm\)@4"
    ):
        BaselineStore(path, update=False, test_id="t").check(
            ndcg(FEW, GOLD, k=4, fill_unjudged=Grader(grade=4))
        )
    # under one name= too: the measure is compared
    written(path, ndcg(FEW, GOLD, k=4), name="gate")
    with pytest.raises(BaselineError, match=r"the measure changed since the baseline of gate"):
        BaselineStore(path, update=False, test_id="t").check(
            ndcg(FEW, GOLD, k=4, fill_unjudged=Grader(grade=4)), name="gate"
        )


def test_another_judge_model_asks_for_a_re_baseline(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    written(path, ndcg(FEW, GOLD, k=4, fill_unjudged=Grader("stub-1")))
    with pytest.raises(BaselineError, match=r"the judge model changed .*stub-1 -> stub-2"):
        BaselineStore(path, update=False, test_id="t").check(
            ndcg(FEW, GOLD, k=4, fill_unjudged=Grader("stub-2"))
        )


def test_a_filled_share_outside_0_1_in_a_baseline_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    written(path, ndcg(FEW, GOLD, k=4, fill_unjudged=Grader()))
    path.write_text(path.read_text().replace('"q0": 0.5', '"q0": 1.5', 1))
    with pytest.raises(BaselineError, match=r"query 'q0': filled share 1.5 is not in \[0, 1\]"):
        BaselineStore(path, update=False, test_id="t").check(
            ndcg(FEW, GOLD, k=4, fill_unjudged=Grader())
        )
