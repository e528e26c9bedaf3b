"""Command-line options and ini keys."""

import pytest


def test_options_and_ini_keys_are_documented_in_help(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines_random(
        [
            "*--tempoeval-record-mode=*none*once*new_episodes*all*",
            "*--tempoeval-update-baseline*",
            "*--tempoeval-report=PATH*",
            "*--tempoeval-markdown=PATH*",
            "*tempoeval_gold (string)*",
            "*tempoeval_cassette_dir (string)*",
            "*tempoeval_baseline_dir (string)*",
            "*tempoeval_judge_model (string)*",
            "*tempoeval_max_drop (string)*",
        ]
    )


def test_record_mode_is_checked(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--tempoeval-record-mode=new-episodes")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    expected = (
        "*--tempoeval-record-mode must be one of none, once, new_episodes, all, "
        "got 'new-episodes' (did you mean 'new_episodes'?)*"
    )
    result.stderr.fnmatch_lines([expected])


def test_defaults(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        def test_defaults(pytestconfig):
            assert pytestconfig.getoption("tempoeval_record_mode") == "none"
            assert pytestconfig.getoption("tempoeval_update_baseline") is False
            assert pytestconfig.getini("tempoeval_cassette_dir") == "fixtures/cassettes"
            assert pytestconfig.getini("tempoeval_baseline_dir") == "fixtures/baselines"
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_marker_is_registered(pytester: pytest.Pytester) -> None:
    pytester.runpytest("--markers").stdout.fnmatch_lines(
        ["@pytest.mark.tempoeval(PATH) or tempoeval(gold=PATH)*"]
    )
