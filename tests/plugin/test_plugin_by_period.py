"""The gate by period in a session, serial and under pytest-xdist: a regression confined to one
decade fails its test naming the decade although the overall mean moved within max_drop, and the
summary and the JSON report (on the controller) say which periods were not tested."""

from __future__ import annotations

import json

import pytest

DECADES = (1970, 1980, 1990)
PER_DECADE = 12
# 36 dated queries (q<decade>_<i>, about decade + i % 10) and 2 undated ones; each judges d<q>.
GOLD = (
    "version: 1\ndocuments:\n"
    + "".join(
        f'  d{d}_{i:02d}: {{text: "Report of {d + i % 10}."}}\n'
        f'  x{d}_{i:02d}: {{text: "Something else."}}\n'
        for d in DECADES
        for i in range(PER_DECADE)
    )
    + "queries:\n"
    + "".join(
        f'  - id: q{d}_{i:02d}\n    text: "What happened in {d + i % 10}?"\n'
        f"    relevant: {{d{d}_{i:02d}: 3}}\n"
        for d in DECADES
        for i in range(PER_DECADE)
    )
    + "".join(
        f'  - id: n{i}\n    text: "What happened then?"\n    relevant: {{dn{i}: 3}}\n'
        for i in range(2)
    )
)
# WORSE=1990: the 1990s queries get their relevant document at rank 2 (nDCG@2 1.0 -> 0.631). The
# mean over 38 queries drops by 12 * 0.369 / 38 = 0.117: within max_drop 0.15.
TESTS = """
import os
import pytest
from pytest_tempoeval import Run, ndcg

def run_for(gold):
    worse = os.environ.get("WORSE", "none")
    return Run({q: ([f"x{q[1:]}", f"d{q[1:]}"] if q.startswith(f"q{worse}") else [f"d{q[1:]}"])
                for q in gold.queries})

@pytest.mark.tempoeval(gold="gold.yaml")
def test_from_the_ini(tempoeval_gold, tempoeval_baseline):
    tempoeval_baseline.check(ndcg(run_for(tempoeval_gold), tempoeval_gold, k=2))

@pytest.mark.tempoeval(gold="gold.yaml")
def test_asked(tempoeval_gold, tempoeval_baseline):
    tempoeval_baseline.check(ndcg(run_for(tempoeval_gold), tempoeval_gold, k=2), by_period=[1980])
"""


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["serial", "n2"])
def test_a_regression_in_one_decade_fails_naming_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, xdist: list[str]
) -> None:
    pytester.makeini(
        "[pytest]\ntempoeval_baseline_dir = base\ntempoeval_max_drop = 0.15\n"
        "tempoeval_by_period = decade\n"
    )
    pytester.makefile(".yaml", gold=GOLD)
    pytester.makepyfile(test_decades=TESTS)
    monkeypatch.delenv("WORSE", raising=False)
    # The baselines (each query's start year in them) are written without xdist: writing them
    # from workers is test_plugin_baselines.py's subject; this test's is the check.
    pytester.runpytest("--tempoeval-update-baseline").assert_outcomes(passed=2)
    if not xdist:  # unchanged, nothing fails (one run is enough: workers cost seconds)
        pytester.runpytest().assert_outcomes(passed=2)
    monkeypatch.setenv("WORSE", "1990")
    result = pytester.runpytest(*xdist, "--tempoeval-report=report.json")
    result.assert_outcomes(failed=2)
    output = result.stdout.str()
    assert "test_from_the_ini: regression on queries about 1990-1999 against" in output
    assert "REGRESSED queries about 1990-1999: nDCG@2 1.0000 -> 0.6309 (-0.3691; 12 queries" in (
        output
    )
    # boundaries [1980]: the 1980s and 1990s are one period, "1980 and later"
    assert "test_asked: regression on queries about 1980 and later against" in output
    rows = {
        row["test"].split("::")[1]: row
        for row in json.loads((pytester.path / "report.json").read_text())["checks"]
    }
    note = rows["test_from_the_ini"]["note"]
    assert "by decade: regressed in 1990-1999" in note
    assert "not tested (under 10 queries): no focus time (2 queries)" in note
    assert rows["test_from_the_ini"]["status"] == "FAIL"
    assert rows["test_from_the_ini"]["delta"] == pytest.approx(-12 * (1 - 1 / 1.5849625007) / 38)
    assert "by boundaries 1980: regressed in 1980 and later" in rows["test_asked"]["note"]


def test_a_bad_ini_slicing_stops_the_run_before_collection(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntempoeval_by_period = 2000, 1990\n")
    pytester.makepyfile(test_never="raise RuntimeError('collected')\n")
    result = pytester.runpytest("-n", "2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    expected = (
        "*ini tempoeval_by_period: boundaries '2000, 1990' are not in ascending order; write "
        "them [[]1990, 2000]*"
    )
    result.stderr.fnmatch_lines([expected])
