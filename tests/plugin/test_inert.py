"""Installing the plugin must not slow down or change a suite that does not use it."""

import subprocess
import sys

import pytest

HEAVY = ("numpy", "anthropic", "vcr", "yaml", "httpx")


def imported_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(sorted(sys.modules)))"
    output = subprocess.run(
        [sys.executable, "-c", probe], check=True, capture_output=True, text=True
    ).stdout
    return set(output.split())


def test_loading_the_plugin_imports_nothing_heavy() -> None:
    modules = imported_after("import pytest_tempoeval.plugin, pytest_tempoeval")
    assert not {name for name in modules if name.split(".")[0] in HEAVY}
    # Nor the cassette machinery (its imports and a large regex cost ~3 ms at every start-up): the
    # record modes the options need live in the light judge.modes.
    assert "pytest_tempoeval.judge.cassettes" not in modules


@pytest.mark.autoload  # the plugin as installed: loaded through its entry point
def test_pytest_with_the_plugin_installed_imports_nothing_heavy(pytester) -> None:
    pytester.makepyfile(
        """
        import sys

        def test_nothing_heavy():
            heavy = {name.split('.')[0] for name in sys.modules} & {'numpy', 'anthropic', 'vcr'}
            assert not heavy, heavy
        """
    )
    result = pytester.runpytest_subprocess("-p", "tempoeval")
    result.assert_outcomes(passed=1)


def test_focus_time_needs_no_numpy() -> None:
    modules = imported_after(
        "from pytest_tempoeval import FocusTime; FocusTime.from_text('in 2020')"
    )
    assert "numpy" not in modules


def test_the_metric_api_imports_only_what_scoring_needs() -> None:
    """At 1,000 queries a whole evaluation is mostly start-up: the standard-library modules that
    only a "did you mean" hint, a fingerprint or a median needs load at their first use."""
    modules = imported_after("from pytest_tempoeval import Run, GoldSet, ndcg, precision, mrr")
    assert "numpy" in modules  # the probe does import the metric modules
    assert not {"difflib", "hashlib", "statistics"} & modules


PLAIN_SUITE = """
import sys

def test_plain(request):
    checks = sys.modules["pytest_tempoeval.metrics.checks"]
    assert checks.active_recorders == [], "the plugin recorded for a test that does not use it"
    assert not request.config.pluginmanager.has_plugin("tempoeval-checks")  # no per-test hooks
"""
BARE_COMPARISON = """
def test_forgot_assert():
    ndcg(Run({"q1": ["x", "d1"]}), GoldSet.from_dict(GOLD), k=2) >= 0.99  # nDCG@2 = 0.6309
"""
GOLD_DICT = 'GOLD = {"queries": [{"id": "q1", "relevant": {"d1": 1}}]}\n'


def test_a_test_that_uses_nothing_of_the_plugin_gets_no_recorder(pytester) -> None:
    """The per-test hooks return at once for it (decided at collection); in another process, as a
    suite that never imports the package runs."""
    pytester.makepyfile(test_plain=PLAIN_SUITE)
    pytester.runpytest_subprocess("-p", "no:randomly").assert_outcomes(passed=1)


@pytest.mark.parametrize("where", ["test module", "conftest", "module attribute"])
def test_a_test_that_compares_a_metric_without_a_fixture_is_still_the_plugins(
    pytester, where: str
) -> None:
    """Its comparison written without ``assert`` fails it, whether its module imports the
    metrics, a conftest does (the package is in use), or the module holds only the package."""
    imports = "from pytest_tempoeval import GoldSet, Run, ndcg\n"
    if where == "test module":
        pytester.makepyfile(test_bare=imports + GOLD_DICT + BARE_COMPARISON)
    elif where == "conftest":  # the test module names nothing of the package
        pytester.makeconftest(
            "import pytest\n"
            + imports
            + GOLD_DICT
            + "@pytest.fixture\ndef result():\n"
            + '    return ndcg(Run({"q1": ["x", "d1"]}), GoldSet.from_dict(GOLD), k=2)\n'
        )
        pytester.makepyfile(test_bare="def test_forgot_assert(result):\n    result >= 0.99\n")
    else:
        pytester.makepyfile(
            test_bare="import pytest_tempoeval as te\n"
            + GOLD_DICT
            + BARE_COMPARISON.replace("ndcg(Run(", "te.ndcg(te.Run(").replace(
                "GoldSet.", "te.GoldSet."
            )
        )
    result = pytester.runpytest_subprocess("-p", "no:randomly")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*this metric comparison failed, but it was not asserted*"])


@pytest.mark.parametrize("plugin", ["loaded", "disabled"])
def test_a_bare_failed_comparison_with_no_recorder_fails_at_once(pytester, plugin: str) -> None:
    """A test that imports the package only inside its body is not known to use it at collection,
    so no recorder is installed for it (nor with ``-p no:tempoeval``): its forgotten ``assert``
    fails where it is written instead of passing unnoticed."""
    pytester.makepyfile(
        test_bare="def test_forgot_assert():\n"
        "    from pytest_tempoeval import GoldSet, Run, ndcg\n\n"
        "    " + GOLD_DICT + "    "
        'ndcg(Run({"q1": ["x", "d1"]}), GoldSet.from_dict(GOLD), k=2) >= 0.99\n'
    )
    options = ["-p", "no:tempoeval"] if plugin == "disabled" else []
    result = pytester.runpytest_subprocess("-p", "no:randomly", *options)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*this metric comparison failed, but it was not asserted*"])
