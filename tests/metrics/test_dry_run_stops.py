"""A judged call a dry run stopped: raised, unless the running test collects the stops (the plugin
does under --tempoeval-judge-dry-run); then the call returns a result with no score, whose checks
hold and record nothing, so the test goes on to its other judged calls."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from check_recording import recorded

from pytest_tempoeval import (
    BaselineStore,
    GoldSet,
    JudgeDryRun,
    Run,
    judge_agreement,
    temporal_ndcg,
)
from pytest_tempoeval.metrics import checks

GOLD = GoldSet.from_dict(
    {
        "documents": {"d1": {"text": "The 2020 report."}, "d2": {"text": "The 2016 report."}},
        "queries": [{"id": "q1", "text": "What happened in 2020?", "relevant": {"d1": 2, "d2": 0}}],
    }
)


class StoppingJudge:
    """What a judge does in a dry run when the cassette lacks judgments."""

    model = "dry"

    def grade_all(self, items):
        raise JudgeDryRun(f"judge dry run: {len(items)} judgments to ask", len(items), 0, "c.yaml")

    verdict_all = grade_all


@contextmanager
def collecting() -> Iterator[list[Exception]]:
    stops: list[Exception] = []
    checks.dry_run_stops.append(stops)
    try:
        yield stops
    finally:
        checks.dry_run_stops.pop()


def judged_calls():
    run = Run({"q1": ["d2", "d1"]})
    yield temporal_ndcg(run, GOLD, k=2, mode="llm", judge=StoppingJudge())
    yield judge_agreement(GOLD, StoppingJudge())


def test_outside_a_collecting_test_the_stop_is_raised() -> None:
    with pytest.raises(JudgeDryRun):
        temporal_ndcg(Run({"q1": ["d1"]}), GOLD, k=1, mode="llm", judge=StoppingJudge())
    with pytest.raises(JudgeDryRun):
        judge_agreement(GOLD, StoppingJudge())


def test_a_collected_stop_gives_a_result_whose_checks_hold_and_record_nothing(tmp_path) -> None:
    store = BaselineStore(tmp_path / "b.json", update=True, test_id="t.py::t")
    with collecting() as stops, recorded() as seen:
        results = list(judged_calls())
        for result in results:
            assert result >= 0.99 and result < 0.01
            assert store.check(result).status == "dry run"
    assert [(stop.needed, stop.held, stop.where) for stop in stops] == [(2, 0, "c.yaml")] * 2
    assert [result.judge_dry_run for result in results] == [str(stop) for stop in stops]
    assert seen == [] and not store.finish()  # no row, no 0.0000 baseline
