"""Under pytest-xdist, workers' checks reach the controller, which reports exactly as a serial
run: the reports' files are compared across modes, and the summary's lines counted once, in
test_plugin_reports.py; here, a worker killed mid-session."""

import json

import pytest
from plugin_helpers import make_baseline_suite

# -- a worker killed mid-session -------------------------------------------------------------------
# test_crashing.py: two baseline checks that regress on every query (WORSE=12: p = 1/4096 each),
# then a test that kills its own worker (CRASH=1). test_stable.py: six checks that hold.
CRASHING = """
import os
import signal
import pytest
from pytest_tempoeval import Run, ndcg

def run_for(gold):
    worse = int(os.environ.get("WORSE", "0"))
    return Run({q: ([f"x{i}", f"d{i}"] if i < worse else [f"d{i}", f"x{i}"])
                for i, q in enumerate(sorted(gold.queries))})

@pytest.mark.tempoeval(gold="gold.yaml")
@pytest.mark.parametrize("check", range(2))
def test_regressing(tempoeval_gold, tempoeval_baseline, check):
    tempoeval_baseline.check(ndcg(run_for(tempoeval_gold), tempoeval_gold, k=2))

def test_crash(tmp_path_factory):
    crashed = tmp_path_factory.getbasetemp().parent / "crashed"
    if os.environ.get("CRASH") and not crashed.exists():  # xdist runs it again: die once
        crashed.touch()
        os.kill(os.getpid(), signal.SIGKILL)
"""
STABLE = """
import pytest
from pytest_tempoeval import Run, ndcg

@pytest.mark.tempoeval(gold="gold.yaml")
@pytest.mark.parametrize("check", range(6))
def test_stable(tempoeval_gold, tempoeval_baseline, check):
    run = Run({q: [f"d{i}", f"x{i}"] for i, q in enumerate(sorted(tempoeval_gold.queries))})
    tempoeval_baseline.check(ndcg(run, tempoeval_gold, k=2))
"""


def test_a_killed_worker_loses_only_the_test_it_was_running(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The two regressions ran before the crash, on the worker that died: the controller has their
    checks, Holm's correction counts them (8 checks: adjusted p = 8/4096 and 7/4096, both below
    0.05), the crashed test is named, no baseline is called unused, and the session fails."""
    suite = make_baseline_suite(pytester, monkeypatch)
    (suite.path / "test_module.py").unlink()
    suite.makepyfile(test_crashing=CRASHING, test_stable=STABLE)
    monkeypatch.delenv("CRASH", raising=False)
    suite.runpytest("--tempoeval-update-baseline").assert_outcomes(passed=9)
    monkeypatch.setenv("WORSE", "12")
    monkeypatch.setenv("CRASH", "1")
    result = suite.runpytest_subprocess(
        "-n",
        "2",
        "--dist",
        "loadfile",
        "-o",
        "tempoeval_gate_correction=holm",
        "--tempoeval-report=report.json",
        "--tempoeval-markdown=report.md",
        "--tempoeval-html=report.html",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    output = result.stdout.str()
    assert "8 metric checks, 2 failed" in output
    assert "2 baseline checks regressed after the Holm correction" in output
    crashed = "the checks of 1 test whose xdist worker crashed may be missing (the session fails): "
    assert f"{crashed}test_crashing.py::test_crash" in output
    assert "unused baseline" not in output
    report = json.loads((suite.path / "report.json").read_text())
    failed = {row["test"] for row in report["checks"] if row["status"] == "FAIL"}
    assert failed == {
        "test_crashing.py::test_regressing[0]",
        "test_crashing.py::test_regressing[1]",
    }
    assert report["crashed_tests"] == ["test_crashing.py::test_crash"]
    assert report["failed"] == 3  # two checks, and a test whose checks are missing
    assert report["unused_baselines"] == []
    assert f"{crashed}test_crashing.py::test_crash" in (suite.path / "report.md").read_text()
    html = (suite.path / "report.html").read_text()
    assert (
        f'<span class="FAIL">8 metric checks, 2 failed; {crashed}test_crashing.py::test_crash'
        in html
    )
