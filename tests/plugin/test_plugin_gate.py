"""The baseline gate in a session: the Judged@k note, the Holm correction, and baseline files
written before measure strings keyed them."""

from __future__ import annotations

import json

import pytest
from plugin_helpers import XDIST_MODES, make_baseline_suite

UPDATE = "--tempoeval-update-baseline"

# 12 queries; each judges d<i> (grade 3) and e<i> (grade 0). The baseline run retrieves both; with
# UNJUDGED=n, the first n queries retrieve an unjudged y<i> first and d<i> second.
JUDGED_GOLD = "version: 1\nqueries:\n" + "".join(
    f'  - id: q{i:02d}\n    text: "In {2000 + i}?"\n    relevant: {{d{i}: 3, e{i}: 0}}\n'
    for i in range(12)
)
JUDGED_TESTS = """
import os
import pytest
from pytest_tempoeval import Run, ndcg

@pytest.mark.tempoeval("gold.yaml")
def test_gate(tempoeval_gold, tempoeval_baseline):
    unjudged = int(os.environ.get("UNJUDGED", "0"))
    run = Run({f"q{i:02d}": [f"y{i}", f"d{i}"] if i < unjudged else [f"d{i}", f"e{i}"]
               for i in range(12)})
    tempoeval_baseline.check(ndcg(run, tempoeval_gold, k=2))
"""


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_fall_of_judged_at_k_is_named_in_the_failure(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, xdist: list[str]
) -> None:
    pytester.makefile(".yaml", gold=JUDGED_GOLD)
    pytester.makepyfile(test_judged=JUDGED_TESTS)
    monkeypatch.delenv("UNJUDGED", raising=False)
    pytester.runpytest(UPDATE).assert_outcomes(passed=1)  # the baseline checked under each mode
    stored = json.loads(next(pytester.path.glob("fixtures/baselines/**/*.json")).read_text())
    assert stored["results"]["nDCG@2"]["judged"] == {f"q{i:02d}": 1.0 for i in range(12)}
    monkeypatch.setenv("UNJUDGED", "12")
    result = pytester.runpytest(*xdist, "--tempoeval-report=report.json")
    result.assert_outcomes(failed=1)
    note = (
        "Judged@2 fell from 1.00 to 0.50: part of this drop may be unjudged documents, not worse "
        "ranking; judge them (mode='llm') or add judgments"
    )
    assert note in result.stdout.str()
    rows = json.loads((pytester.path / "report.json").read_text())["checks"]
    assert note in rows[0]["note"]


def test_no_note_when_the_judged_share_held(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = make_baseline_suite(pytester, monkeypatch)  # x<i> (unjudged) swaps rank with d<i>
    suite.runpytest(UPDATE).assert_outcomes(passed=2)
    monkeypatch.setenv("WORSE", "12")
    result = suite.runpytest()
    result.assert_outcomes(failed=2)
    assert "regression against" in result.stdout.str() and "Judged@" not in result.stdout.str()


def test_baseline_files_keyed_before_measure_strings_are_still_read(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = make_baseline_suite(pytester, monkeypatch)
    suite.runpytest(UPDATE).assert_outcomes(passed=2)
    for path in (suite.path / "base").glob("**/*.json"):  # as an older plugin wrote them
        data = json.loads(path.read_text())
        data["results"] = {"ndcg@2 gold": data["results"]["nDCG@2"]}
        path.write_text(json.dumps(data))
    suite.runpytest().assert_outcomes(passed=2)
    monkeypatch.setenv("WORSE", "12")
    result = suite.runpytest()
    result.assert_outcomes(failed=2)
    assert "nDCG@2: 1.0000 -> 0.6309" in result.stdout.str()


# -- Holm ------------------------------------------------------------------------------------------
# 15 gated checks over 12 queries. WORSE=w lowers w queries of every check (exact p = 2**-w);
# STRONG=i lowers all 12 queries of check i (p = 2**-12).
HOLM_TESTS = """
import os
import pytest
from pytest_tempoeval import Run, ndcg

@pytest.mark.tempoeval(gold="gold.yaml")
@pytest.mark.parametrize("check", range(15))
def test_check(tempoeval_gold, tempoeval_baseline, check):
    worse = int(os.environ.get("WORSE", "0"))
    if os.environ.get("STRONG") == str(check):
        worse = 12
    run = Run({q: ([f"x{i}", f"d{i}"] if i < worse else [f"d{i}", f"x{i}"])
               for i, q in enumerate(sorted(tempoeval_gold.queries))})
    tempoeval_baseline.check(ndcg(run, tempoeval_gold, k=2))
"""
HOLM = ["-o", "tempoeval_gate_correction=holm"]


@pytest.fixture
def holm_suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    suite = make_baseline_suite(pytester, monkeypatch)
    (suite.path / "test_module.py").unlink()
    suite.makepyfile(test_holm=HOLM_TESTS)
    monkeypatch.delenv("STRONG", raising=False)
    suite.runpytest(UPDATE).assert_outcomes(passed=15)
    return suite


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_holm_keeps_a_session_of_small_drops_from_failing(
    holm_suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, xdist: list[str]
) -> None:
    """Every check drops on 5 of 12 queries: p = 1/32 = 0.031 each. Without a correction, all 15
    fail at alpha 0.05; with Holm, 15 x 0.031 > 0.05 and the session passes, each check saying
    why. The uncorrected session is the contrast, without xdist (a drop's per-test verdict under
    -n 2 is test_plugin_baselines.py's); the correction, made on the controller, runs under each
    mode."""
    monkeypatch.setenv("WORSE", "5")
    uncorrected = holm_suite.runpytest()
    uncorrected.assert_outcomes(failed=15)
    assert "p = 0.03125" in uncorrected.stdout.str()
    corrected = holm_suite.runpytest(*xdist, *HOLM, "--tempoeval-report=report.json")
    corrected.assert_outcomes(passed=15)
    assert corrected.ret == pytest.ExitCode.OK
    rows = json.loads((holm_suite.path / "report.json").read_text())["checks"]
    assert [row["status"] for row in rows] == ["pass"] * 15
    assert {row["p_adjusted"] for row in rows} == {0.46875}  # 15 x 1/32
    assert rows[0]["note"].startswith(
        "not significant: Holm-adjusted p = 0.4688 over 15 tested checks"
    )


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_holm_fails_the_session_on_a_real_regression_and_names_it(
    holm_suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, xdist: list[str]
) -> None:
    monkeypatch.setenv("WORSE", "5")
    monkeypatch.setenv("STRONG", "7")
    result = holm_suite.runpytest(*xdist, *HOLM, "--tempoeval-report=report.json")
    result.assert_outcomes(passed=15)  # each test ran to its end; the family's verdict is below
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    output = result.stdout.str()
    assert "1 baseline check regressed after the Holm correction" in output
    assert "test_holm.py::test_check[7]: regression against" in output
    assert "nDCG@2: 1.0000 -> 0.6309" in output and "re-baseline with" in output
    rows = {
        row["test"]: row
        for row in json.loads((holm_suite.path / "report.json").read_text())["checks"]
    }
    assert rows["test_holm.py::test_check[7]"]["status"] == "FAIL"
    assert rows["test_holm.py::test_check[7]"]["p_adjusted"] == pytest.approx(15 / 4096)
    assert rows["test_holm.py::test_check[3]"]["status"] == "pass"


def test_an_unknown_correction_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_nothing(): pass")
    result = pytester.runpytest("-o", "tempoeval_gate_correction=bonferroni")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*tempoeval_gate_correction must be one of none, holm*"])
