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
