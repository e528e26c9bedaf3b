"""The drop-in classes take what TempoEval's own classes take, and agree with them where the
conventions are the same (checked against TempoEval 0.1.0, a dev extra)."""

import pytest
from tempoeval.core import FocusTime as TheirFocusTime
from tempoeval.metrics import TemporalNDCG as TheirNDCG
from tempoeval.metrics import TemporalPrecision as TheirPrecision

from pytest_tempoeval.metrics.tempoeval_compat import TemporalNDCG, TemporalPrecision


def test_tempoeval_focus_time_objects_are_accepted() -> None:
    """What TempoEval's FocusTime.from_years returns, as all 5 of its precision tests pass it."""
    qft = TheirFocusTime.from_years([2020])
    dfts = [TheirFocusTime.from_years(y) for y in ([2020], [2019], [2020, 2021], [2018])]
    ours = TemporalPrecision(use_focus_time=True).compute(qft=qft, dfts=dfts, k=4)
    theirs = TheirPrecision(use_focus_time=True).compute(qft=qft, dfts=dfts, k=4)
    assert float(ours) == pytest.approx(theirs, abs=1e-5) == 0.5  # TempoEval rounds to 5 places
    mixed = TemporalNDCG(use_focus_time=True).compute(qft=qft, dfts=[[2020], dfts[1]], k=2)
    assert 0 < float(mixed) <= 1


@pytest.mark.parametrize(
    "retrieved",
    [["d1"] + ["irrelevant"] * 9, ["irrelevant", "d1", "irrelevant", "d2"], ["d2", "d2", "d1"]],
)
def test_repeated_ids_are_read_position_by_position_as_tempoeval_does(
    retrieved: list[str],
) -> None:
    """Its docs example lists "irrelevant" nine times; the drop-in class used to refuse it."""
    gold = ["d1", "d2"]
    k = len(retrieved)
    ours = TemporalNDCG().compute(retrieved_ids=retrieved, gold_ids=gold, k=k)
    theirs = TheirNDCG().compute(retrieved_ids=retrieved, gold_ids=gold, k=k)
    assert float(ours) == pytest.approx(theirs, abs=1e-5)
