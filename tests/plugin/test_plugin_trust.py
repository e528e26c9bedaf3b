"""No silent pass, no wrong exit code (issue 24), through pytest as a user runs it.

Each test here passed a suite it should have failed, or said something the run did not do, before
its change: a run of ids the gold set does not know (a retriever's UUIDs) scored 0.0 and was
written as a 0.0000 baseline that passed from then on, and a threshold comparison written without
``assert`` failed in the summary while the test passed."""

from __future__ import annotations

import json

import pytest
from plugin_helpers import XDIST_MODES

GOLD = """\
version: 1
queries:
  - id: q1
    relevant: {d1: 2, d2: 1}
  - id: q2
    relevant: {d2: 1}
"""

# -- ids the gold set does not know ----------------------------------------------------------------

UNKNOWN_TESTS = """
import pytest
from pytest_tempoeval import Run, ndcg

UUIDS = Run({"q1": ["9f1c0e2a-0001", "9f1c0e2a-0002"], "q2": ["9f1c0e2a-0003"]})
PARTLY = Run({"q1": ["d1", "other"], "q2": ["d2"]})

@pytest.mark.tempoeval("gold.yaml")
def test_uuids(tempoeval_gold):
    assert ndcg(UUIDS, tempoeval_gold, k=2) >= 0.0

@pytest.mark.tempoeval("gold.yaml")
def test_uuids_baseline(tempoeval_gold, tempoeval_baseline):
    tempoeval_baseline.check(ndcg(UUIDS, tempoeval_gold, k=2))

@pytest.mark.tempoeval("gold.yaml")
def test_partly(tempoeval_gold):
    assert ndcg(PARTLY, tempoeval_gold, k=2) >= 0.5
"""


@pytest.fixture
def unknown(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makefile(".yaml", gold=GOLD)
    pytester.makepyfile(test_unknown=UNKNOWN_TESTS)
    return pytester


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_run_of_unknown_ids_fails_and_every_report_says_which(
    unknown: pytest.Pytester, xdist: list[str]
) -> None:
    result = unknown.runpytest(*xdist, "--tempoeval-report=r.json", "--tempoeval-markdown=r.md")
    result.assert_outcomes(failed=2, passed=1)
    result.stdout.fnmatch_lines(
        [
            (
                "E * nDCG@2 [[]gold[]] = 0.0000 measures nothing: none of the 3 retrieved ids is "
                "known to the gold set (e.g. '9f1c0e2a-0001', '9f1c0e2a-0002', '9f1c0e2a-0003'); "
                "the gold set's ids look like 'd1', 'd2'; give the run the gold set's document *"
            ),
        ]
    )
    rows = {
        row["test"].split("::")[1]: row
        for row in json.loads((unknown.path / "r.json").read_text())["checks"]
    }
    assert set(rows) == {"test_uuids", "test_partly"}  # the baseline check refused, unrecorded
    assert rows["test_uuids"]["status"] == "FAIL"
    assert (rows["test_uuids"]["unknown_ids"], rows["test_uuids"]["retrieved_ids"]) == (3, 3)
    assert rows["test_uuids"]["note"].startswith(
        "none of the 3 retrieved ids in the top 2 is known to the gold set (e.g. '9f1c0e2a-0001'"
    )
    partly = "1 of 3 retrieved ids in the top 2 unknown to the gold set (e.g. 'other')"
    assert rows["test_partly"]["status"] == "pass" and rows["test_partly"]["note"] == partly
    assert partly in result.stdout.str() and partly in (unknown.path / "r.md").read_text()
    assert "2 metric checks, 1 failed" in result.stdout.str()


def test_update_baseline_refuses_to_write_a_baseline_of_unknown_ids(
    unknown: pytest.Pytester,
) -> None:
    result = unknown.runpytest("-k", "baseline", "--tempoeval-update-baseline")
    result.assert_outcomes(failed=1, deselected=2)
    result.stdout.fnmatch_lines(["E * none of the 3 retrieved ids is known to the gold set*"])
    assert not list(unknown.path.rglob("*.json"))  # no 0.0000 baseline to pass from now on


def test_fail_on_unknown_ids_fails_a_result_with_some(unknown: pytest.Pytester) -> None:
    unknown.makeini("[pytest]\ntempoeval_fail_on_unknown_ids = true\n")
    result = unknown.runpytest("-k", "partly")
    result.assert_outcomes(failed=1, deselected=2)
    result.stdout.fnmatch_lines(
        [
            (
                "E * = 0.8801, needed >= 0.5; 2 queries counted, 0 excluded; 1 of 3 retrieved ids "
                "in the top 2 unknown to the gold set, which fails it (fail_on_unknown_ids)*"
            )
        ]
    )
