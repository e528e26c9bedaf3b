"""Settings are read and checked once, before collection (``options.Settings.from_config``)."""

import re
from pathlib import Path

import pytest

import pytest_tempoeval

PACKAGE = Path(pytest_tempoeval.__file__).parent

# Every option and ini key that takes a value some values of which are wrong, with one wrong value
# and the message it gets (ours, naming the key and what to write).
BAD_INI = [
    ("tempoeval_cassette_serializer", "xml", "must be one of yaml, json, got 'xml'"),
    ("tempoeval_max_drop", "inf", "must be a finite number >= 0, got 'inf'"),
    (
        "tempoeval_judge_max_requests",
        "-3",
        ": the judge request budget must be an integer >= 0, got '-3'",
    ),
    ("tempoeval_judge_prompt_style", "fenced", "must be one of seed, delimited, got 'fenced'"),
    (
        "tempoeval_judge_batch_poll",
        "0",
        "must be a positive, finite number of seconds, got '0'",
    ),
    ("tempoeval_judge_prices", "m = -1/1", ", line 1 'm = -1/1': expected 'model = *"),
    (
        "tempoeval_gate_correction",
        "hlom",
        "must be one of none, holm, got 'hlom' (did you mean 'holm'?)",
    ),
    (
        "tempoeval_by_period",
        "decades",
        ": unknown period 'decades' (did you mean 'decade'?); by_period takes 'year', *",
    ),
    ("tempoeval_fail_on_excluded", "maybe", "must be true or false*"),
    ("tempoeval_fail_on_unknown_ids", "sometimes", "must be true or false*"),
    ("tempoeval_baseline_rankings", "often", "must be true or false*"),
]
BAD_OPTIONS = [
    (
        "--tempoeval-record-mode",
        "replay",
        "must be one of none, once, new_episodes, all, got 'replay'",
    ),
    (
        "--tempoeval-judge-max-requests",
        "lots",
        ": the judge request budget must be an integer >= 0, got 'lots'",
    ),
    (  # a file that exists (a patch under review?) is not replaced unless asked
        "--tempoeval-propose-gold",
        "test_never.py",
        (
            ": test_never.py exists (a patch under review?); move it, or pass "
            "--tempoeval-propose-gold-overwrite to replace it"
        ),
    ),
]
# The rest take any value: a path, a model name, or a flag.
FREE = {
    "tempoeval_gold",
    "tempoeval_cassette_dir",
    "tempoeval_baseline_dir",
    "tempoeval_judge_model",
    "--tempoeval-judge-dry-run",
    "--tempoeval-judge-batch",
    "--tempoeval-update-baseline",
    "--tempoeval-report",
    "--tempoeval-markdown",
    "--tempoeval-html",
    "--tempoeval-history",
    "--tempoeval-propose-gold-overwrite",
}
NOT_COLLECTED = "raise RuntimeError('this module was collected')\n"


def test_only_options_py_reads_options_and_ini_keys() -> None:
    readers = [
        f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "options.py" or path.parent != PACKAGE
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "getini(" in line or "getoption(" in line
    ]
    assert readers == []


def test_every_setting_is_declared_and_each_with_a_value_is_tested(
    pytester: pytest.Pytester,
) -> None:
    """The lists above cover every option and ini key ``--help`` shows, and nothing else."""
    shown = pytester.runpytest("--help").stdout.str()
    declared = set(re.findall(r"^  (tempoeval_\w+) \(", shown, re.MULTILINE))
    declared |= set(re.findall(r"^  (--tempoeval-[\w-]+)", shown, re.MULTILINE))
    tested = {key for key, _, _ in BAD_INI + BAD_OPTIONS}
    assert len(declared) == 26
    assert declared == tested | FREE


@pytest.mark.parametrize(("key", "value", "message"), BAD_INI, ids=[key for key, *_ in BAD_INI])
def test_a_bad_ini_value_is_a_usage_error_before_collection(
    pytester: pytest.Pytester, key: str, value: str, message: str
) -> None:
    pytester.makeini(f"[pytest]\n{key} = {value}\n")
    pytester.makepyfile(test_never=NOT_COLLECTED)
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*ini {key}{'' if message[0] in ':,' else ' '}{message}*"])
    assert "collected" not in result.stdout.str() + result.stderr.str()


@pytest.mark.parametrize(
    ("option", "value", "message"), BAD_OPTIONS, ids=[key for key, *_ in BAD_OPTIONS]
)
@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["no-xdist", "n2"])
def test_a_bad_option_is_a_usage_error_before_collection(
    pytester: pytest.Pytester, option: str, value: str, message: str, xdist: list[str]
) -> None:
    pytester.makepyfile(test_never=NOT_COLLECTED)
    result = pytester.runpytest(*xdist, f"{option}={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{option}{'' if message[0] == ':' else ' '}{message}*"])
    assert "collected" not in result.stdout.str() + result.stderr.str()


def test_the_option_wins_over_the_ini_budget(pytester: pytest.Pytester) -> None:
    """A bad ini budget is not read when the option gives one (the option overrides it)."""
    pytester.makeini("[pytest]\ntempoeval_judge_max_requests = lots\n")
    pytester.makepyfile(test_fine="def test_fine():\n    pass\n")
    pytester.runpytest("--tempoeval-judge-max-requests=3").assert_outcomes(passed=1)
