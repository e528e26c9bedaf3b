"""The gate's verdict has one home (gate/verdict.py): the pytest gate, the session's Holm
correction and ``tempoeval compare`` (tests/test_cli.py) all decide with it."""

from __future__ import annotations

import json
import math

import pytest

from pytest_tempoeval.constants import SCORE_TOLERANCE
from pytest_tempoeval.gate import verdict
from pytest_tempoeval.gate.baselines import BaselineComparison, compare
from pytest_tempoeval.gate.randomization import CORRECTIONS, Correction
from pytest_tempoeval.gate.verdict import Verdict, alpha_from, max_drop_from, regressed
from pytest_tempoeval.judge.cassettes import RECORD_MODES, RecordMode
from pytest_tempoeval.metrics.checks import Check
from pytest_tempoeval.session import CheckRow, CheckStatus, TempoEvalSession

Asked = list[tuple[float, float, "float | None", float]]


def row(**fields: object) -> CheckRow:
    """A baseline check's row (nDCG@10 0.8 -> 0.7 over 12 queries), with ``fields`` changed."""
    values: dict[str, object] = {
        "test": "t::a",
        "sequence": 0,
        "metric": "nDCG@10",
        "mode": "gold",
        "counted": 12,
        "excluded": 0,
        "score": 0.7,
        "op": "drop <=",
        "threshold": 0.01,
        "passed": True,
        "baseline": 0.8,
        "delta": 0.7 - 0.8,
        "alpha": 0.05,
    }
    return CheckRow(**(values | fields))  # type: ignore[arg-type]


def test_a_drop_regresses_beyond_max_drop_and_when_significant() -> None:
    assert regressed(0.1, 0.05, None, 0.05)  # untested: max_drop alone decides
    assert not regressed(0.05 + SCORE_TOLERANCE / 2, 0.05, None, 0.05)  # float noise is no drop
    assert regressed(0.05 + 3 * SCORE_TOLERANCE, 0.05, None, 0.05)
    assert regressed(0.1, 0.0, 0.049, 0.05) and not regressed(0.1, 0.0, 0.05, 0.05)
    assert not regressed(-0.2, 0.0, 0.001, 0.05)  # an improvement


@pytest.mark.parametrize(
    ("drop", "p_value"), [(math.nan, None), (math.nan, 0.01), (0.2, math.nan), (-0.2, math.nan)]
)
def test_a_nan_drop_or_p_value_is_no_verdict(drop: float, p_value: float | None) -> None:
    # every comparison with NaN is false: "drop > max_drop" would have called a NaN drop a pass
    with pytest.raises(ValueError, match=r"^no verdict on a NaN \(drop "):
        regressed(drop, 0.0, p_value, 0.05)


def always_regressed(asked: Asked):  # type: ignore[no-untyped-def]
    def rule(drop: float, max_drop: float, p_value: float | None, alpha: float) -> bool:
        asked.append((drop, max_drop, p_value, alpha))
        return True

    return rule


def test_the_pytest_gate_asks_the_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    scores = {f"q{i}": 0.5 for i in range(3)}
    assert compare("nDCG@10", scores, scores, 0.0, 0.05).status == Verdict.PASS
    asked: Asked = []
    monkeypatch.setattr(verdict, "regressed", always_regressed(asked))
    comparison = compare("nDCG@10", scores, scores, 0.02, 0.1)
    assert comparison.status == "regressed" and not comparison.passed
    assert asked == [(0.0, 0.02, None, 0.1)]


def test_the_sessions_holm_correction_asks_the_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pending check (a significant drop beyond max_drop) is decided with the Holm-adjusted
    p-value: adjusted 0.04 * 2 = 0.08 >= alpha 0.05, so it passes; the verdict is asked with the
    row's drop, max_drop (its threshold) and alpha."""

    def session() -> TempoEvalSession:
        state = TempoEvalSession()
        for test, p_value, pending in (("t::a", 0.04, True), ("t::b", 0.5, False)):
            state.rows.append(
                row(test=test, p_value=p_value, pending=pending, pending_message="regressed")
            )
        return state

    state = session()
    assert state.correct_gate() == [] and state.rows[0].status == "pass"
    asked: Asked = []
    monkeypatch.setattr(verdict, "regressed", always_regressed(asked))
    state = session()
    assert [row.test for row in state.correct_gate()] == ["t::a"]
    (drop, max_drop, p_value, alpha) = asked[0]
    assert len(asked) == 1 and math.isclose(drop, 0.1) and (max_drop, alpha) == (0.01, 0.05)
    assert p_value == pytest.approx(0.08)


def test_a_baseline_comparison_becomes_its_check() -> None:
    comparison = BaselineComparison(
        key="nDCG@10",
        status=Verdict.PENDING,
        baseline=0.8,
        current=0.7,
        queries=12,
        p_value=0.01,
        max_drop=0.02,
        alpha=0.1,
        baseline_scores={"q1": 0.8},
    )
    check = Check.from_comparison("result", comparison, "the message")
    assert (check.op, check.threshold, check.passed, check.baseline) == ("drop <=", 0.02, True, 0.8)
    assert (check.p_value, check.alpha, check.baseline_scores) == (0.01, 0.1, {"q1": 0.8})
    assert check.note == comparison.note == "pending: decided with the session's Holm correction"
    assert check.pending_message == "the message"
    written = BaselineComparison(
        key="k", status=Verdict.WRITTEN, baseline=None, current=0.7, queries=12
    )
    assert Check.from_comparison("result", written, "unused").pending_message == ""
    assert json.dumps({"status": comparison.status}) == '{"status": "pending"}'
    with pytest.raises(TypeError):
        BaselineComparison("k", Verdict.PASS, 0.8, 0.8, 12)  # type: ignore[misc]


@pytest.mark.parametrize(
    ("parse", "text", "message"),
    [
        (max_drop_from, "inf", "must be a finite number >= 0, got 'inf'"),
        (max_drop_from, "-0.1", "must be a finite number >= 0, got '-0.1'"),
        (max_drop_from, "nan", "must be a finite number >= 0, got 'nan'"),
        (alpha_from, "1", "must be in (0, 1), got '1'"),
        (alpha_from, "often", "must be in (0, 1), got 'often'"),
    ],
)
def test_gate_settings_read_from_text(parse, text: str, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError) as raised:
        parse(text)
    assert str(raised.value) == message
    assert max_drop_from("0.02") == 0.02 and alpha_from("0.05") == 0.05


def test_states_are_enums_equal_to_their_strings() -> None:
    assert RECORD_MODES == ("none", "once", "new_episodes", "all") == tuple(RecordMode)
    assert CORRECTIONS == ("none", "holm") == tuple(Correction)
    assert Verdict.UNKNOWN_IDS == "unknown ids" and Verdict.DRY_RUN == "dry run"
    assert [state.passed for state in Verdict] == [
        True,  # pass
        True,  # improved
        False,  # regressed
        True,  # written
        False,  # incomplete
        False,  # unknown ids
        True,  # dry run
        True,  # pending: decided at the session's end
        True,  # ok
    ]
    failed = row(op=">=", threshold=0.8, passed=False, baseline=None, delta=None, alpha=None)
    assert failed.status == "FAIL" and failed.status is CheckStatus.FAIL
    assert row().status is CheckStatus.PASS and row(pending=True).status == "pending"
    text = json.dumps(failed.to_dict())
    assert json.loads(text)["status"] == "FAIL" and '"status": "FAIL"' in text
    assert CheckRow.from_dict(json.loads(text)) == failed


def test_records_are_built_by_keyword() -> None:
    with pytest.raises(TypeError):
        CheckRow("t.py::test_x", 0, "nDCG@10", "gold", 2, 0, 0.5, ">=", 0.8, False)  # type: ignore[misc]
    with pytest.raises(TypeError):
        Check(None, ">=", 0.8, False)  # type: ignore[misc]
    check = Check(result=None, op=">=", threshold=0.8, passed=False)
    assert (check.op, check.threshold, check.passed, check.note) == (">=", 0.8, False, "")
