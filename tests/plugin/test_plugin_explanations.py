"""Failing thresholds explain themselves: which queries went wrong, and why."""

import pytest
from plugin_helpers import XDIST_MODES, write_gold

TESTS = """
import pytest
from pytest_tempoeval import Run, temporal_ndcg, assert_temporal_ndcg

@pytest.mark.tempoeval(gold="gold.yaml")
def test_plain_assert(tempoeval_gold):
    run = Run({"q2020": ["a2016", "a2020"], "q2016": ["a2016"]})
    assert temporal_ndcg(run, tempoeval_gold, k=2) >= 0.9

@pytest.mark.tempoeval(gold="gold.yaml")
def test_bare_helper(tempoeval_gold):
    run = Run({"q2020": ["a2016", "a2020"], "q2016": ["a2016"]})
    assert_temporal_ndcg(run, tempoeval_gold, k=2) >= 0.9

@pytest.mark.tempoeval(gold="gold.yaml")
def test_reversed_comparison(tempoeval_gold):
    run = Run({"q2020": ["a2016", "a2020"], "q2016": ["a2016"]})
    assert 0.9 <= temporal_ndcg(run, tempoeval_gold, k=2)

@pytest.mark.tempoeval(gold="gold.yaml")
def test_passing_helper_returns_true(tempoeval_gold):
    run = Run({"q2020": ["a2020"], "q2016": ["a2016"]})
    assert (assert_temporal_ndcg(run, tempoeval_gold, k=2) >= 0.9) is True
"""
# q2020: a2016 (0) then a2020 (4): DCG = 4/log2(3) = 2.5237, IDCG = 4 -> 0.6309;
# q2016: 1.0; mean 0.8155.
FIRST_LINE = (
    "T-nDCG@2 [focus_time] = 0.8155, needed >= 0.9; 2 queries counted, 0 excluded; "
    "ranking shorter than k=2 for 1 query (depth 1); worst: q2020 0.631, q2016 1.000"
)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_failures_show_metric_threshold_and_worst_queries(
    pytester: pytest.Pytester, xdist: list[str]
) -> None:
    write_gold(pytester)
    pytester.makepyfile(TESTS)
    result = pytester.runpytest(*xdist)
    result.assert_outcomes(passed=1, failed=3)
    output = result.stdout.str()
    # Plain assert, bare helper, reversed comparison. Only traceback lines are counted: with CI set,
    # pytest's short summary repeats the first line too.
    explained = [
        line for line in output.splitlines() if line.startswith("E ") and FIRST_LINE in line
    ]
    assert len(explained) == 3
    result.stdout.fnmatch_lines(
        ["*q2020: 0.6309  retrieved: a2016(0) a2020(4)*", "*ideal: a2020(4)*"]
    )


def test_first_line_survives_pytest_truncation(pytester: pytest.Pytester) -> None:
    write_gold(pytester)
    pytester.makepyfile(TESTS)
    output = pytester.runpytest("-k", "plain_assert").stdout.str()
    assert (
        f"assert {FIRST_LINE}" in output
    )  # pytest puts the explanation's first line after "assert"


def test_very_verbose_shows_the_full_per_query_table(pytester: pytest.Pytester) -> None:
    write_gold(pytester)
    pytester.makepyfile(TESTS)
    result = pytester.runpytest("-vv", "-k", "plain_assert")
    result.stdout.fnmatch_lines(
        ["*per query (all, worst first):*", "*q2020: 0.630930*", "*q2016: 1.000000*"]
    )


def test_comparison_of_an_all_excluded_result_is_an_error_with_the_reason(
    pytester: pytest.Pytester,
) -> None:
    write_gold(pytester, text="version: 1\nqueries:\n  - {id: q, text: no years here}\n")
    pytester.makepyfile(
        """
        import pytest
        from pytest_tempoeval import Run, temporal_ndcg

        @pytest.mark.tempoeval(gold="gold.yaml")
        def test_nothing_counted(tempoeval_gold):
            assert temporal_ndcg(Run({"q": ["x"]}), tempoeval_gold) >= 0.5
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    assert "MetricError: T-nDCG@10 [focus_time] has no counted query" in result.stdout.str()
    assert "all 1 queries were excluded (no focus time" in result.stdout.str()
