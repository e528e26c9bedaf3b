"""No silent pass, no wrong exit code (issue 24), through pytest as a user runs it.

Each test here passed a suite it should have failed, or said something the run did not do, before
its change: a run of ids the gold set does not know (a retriever's UUIDs) scored 0.0 and was
written as a 0.0000 baseline that passed from then on, and a threshold comparison written without
``assert`` failed in the summary while the test passed."""

from __future__ import annotations

import json
import re

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
    assert rows["test_partly"]["status"] == "pass"
    assert (
        rows["test_partly"]["note"] == f"{partly}; ranking shorter than k=2 for 1 query (depth 1)"
    )
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


# -- comparisons written without assert ------------------------------------------------------------

ASSERT_TESTS = """
import pytest
from pytest_tempoeval import Run, assert_ndcg, ndcg

RUN = Run({"q1": ["d2", "d1"], "q2": ["d2"]})  # nDCG@2 = (0.8597 + 1) / 2 = 0.9299

@pytest.mark.tempoeval("gold.yaml")
def test_forgotten(tempoeval_gold):
    ndcg(RUN, tempoeval_gold, k=2) >= 0.99
    print("the test went on")

@pytest.mark.tempoeval("gold.yaml")
def test_asserted(tempoeval_gold):
    assert ndcg(RUN, tempoeval_gold, k=2) >= 0.99

@pytest.mark.tempoeval("gold.yaml")
def test_expects_it_to_fail(tempoeval_gold):
    result = ndcg(RUN, tempoeval_gold, k=2)
    assert not (result >= 0.99)
    with pytest.raises(AssertionError):
        assert result >= 0.99
    with pytest.raises(AssertionError):
        assert_ndcg(RUN, tempoeval_gold, k=2) >= 0.99
    if 0.99 <= result:
        pytest.fail("it passed")
    held = result >= 0.99
    assert held is False
    result >= 0.5  # passed: nothing to say

@pytest.mark.tempoeval("gold.yaml")
def test_forgotten_in_a_helper(tempoeval_gold):
    at_least(ndcg(RUN, tempoeval_gold, k=2), 0.99)

def at_least(result, threshold):
    threshold <= result
"""


@pytest.fixture
def asserts(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makefile(".yaml", gold=GOLD)
    pytester.makepyfile(test_asserts=ASSERT_TESTS)
    return pytester


def failure_text(output: str, test: str) -> str:
    match = re.search(rf"_+ {test} _+\n(.*?)(?=\n_{{3,}} |\n=+ )", output, re.DOTALL)
    assert match is not None, output
    return re.sub(r"^\[gw\d+\] .*\n", "", match.group(1))  # xdist names the worker first


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_comparison_that_failed_without_assert_fails_its_test_once(
    asserts: pytest.Pytester, xdist: list[str]
) -> None:
    result = asserts.runpytest(*xdist, "--tempoeval-report=r.json")
    result.assert_outcomes(failed=3, passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    output = result.stdout.str()
    forgotten = failure_text(output, "test_forgotten")
    assert forgotten.startswith(
        "test_asserts.py:8: this metric comparison failed, but it was not asserted (its value "
        "was thrown away): write `assert` before it\n"
        "nDCG@2 [gold] = 0.9299, needed >= 0.99; 2 queries counted, 0 excluded; ranking shorter "
        "than k=2 for 1 query (depth 1); worst: q1 0.860, q2 1.000\n"
        "  shorter than k=2 (the missing ranks count as not relevant; retrieve k documents or "
        "lower k): q2 (1)\n"
        "  q1: 0.8597  retrieved: d2(1) d1(2)\n"  # the explanation an assert shows
    ), forgotten
    assert "the test went on" in forgotten  # the body ran to its end
    helper = failure_text(output, "test_forgotten_in_a_helper")
    assert helper.startswith("test_asserts.py:34: this metric comparison failed, but it was not")
    asserted = failure_text(output, "test_asserted")
    assert "not asserted" not in asserted and asserted.count("needed >= 0.99") == 1
    rows = json.loads((asserts.path / "r.json").read_text())["checks"]
    unasserted = [row["test"].split("::")[1] for row in rows if row["unasserted"]]
    assert unasserted == ["test_forgotten", "test_forgotten_in_a_helper"]
    notes = {row["test"].split("::")[1]: row["note"] for row in rows if row["unasserted"]}
    short = "ranking shorter than k=2 for 1 query (depth 1)"
    assert set(notes.values()) == {f"not asserted: the test fails; {short}"}
    # the expecting test's 5 failed comparisons and its passed one stay in the summary as they are
    assert "9 metric checks, 8 failed" in output
