"""An installed plugin that a suite does not use changes nothing (issue 25): the suite's exit code
is the same with and without the plugin, for every file name the file system accepts."""

import os
from pathlib import Path

import pytest

# Linux reserves only "/" and NUL; the rest are names other systems reserve or that need escaping.
MODULE_NAMES = [
    "test_" + "検" * 82 + ".py",  # 254 bytes: the longest a file system takes
    "test_" + "a" * 246 + ".py",  # 254 bytes of ASCII
    "test_" + "検索" * 15 + ".py",  # 98 bytes, 275 once escaped: the name issue 25 found
    "con.py",  # reserved on Windows, as the next four
    "nul.py",
    "aux.py",
    "com1.py",
    "lpt1.py",
    "test_100%.py",
    "test_%41%2F.py",  # looks escaped already
    "test with spaces.py",
    "test_~tilde.py",
    "test_[x].py",
    "test_#hash.py",
    "test_é.py",
    "test_'quote.py",
]
PASSING = "def test_ok():\n    pass\n"


def make_unrelated_suite(root: Path, neighbour: bool) -> int:
    """Plain passing tests in oddly named modules, one of them in folders nested near PATH_MAX
    (4096 bytes), and the plugin's default baseline folder. ``neighbour``: another module carries
    the plugin's marker, so the session uses the plugin and looks for unused baselines; the
    marker alone runs without the plugin too. Returns the number of tests."""
    (root / "pytest.ini").write_text("[pytest]\npython_files = *.py\n")
    (root / "fixtures" / "baselines").mkdir(parents=True)
    for name in MODULE_NAMES:
        (root / name).write_text(PASSING)
    deep, level = root, 0
    while len(os.fsencode(deep)) < 3800:
        deep, level = deep / f"{level}{'検' * 80}", level + 1  # 241 bytes, 721 once escaped
    deep.mkdir(parents=True)
    (deep / "test_deep.py").write_text(PASSING)
    if neighbour:
        (root / "test_neighbour.py").write_text(
            "import pytest\n\n@pytest.mark.tempoeval('gold.yaml')\ndef test_marked():\n    pass\n"
        )
    return len(MODULE_NAMES) + 1 + neighbour


# The suite's conftest loads the plugin by its module's name (PYTEST_PLUGINS), not through its entry
# point (autoloading every installed plugin costs seconds a session): -p no:<that name> unloads it,
# as -p no:tempoeval does in a project.
WITHOUT_THE_PLUGIN = ["-p", "no:pytest_tempoeval.plugin"]


@pytest.mark.parametrize("neighbour", [False, True], ids=["alone", "plugin-used-elsewhere"])
def test_an_unrelated_suite_exits_as_it_does_without_the_plugin(
    pytester: pytest.Pytester, neighbour: bool
) -> None:
    """The run without the plugin is the yardstick, once: every test passes. With the plugin, the
    suite runs without xdist and with -n 2 and must end the same. (An -n 2 yardstick would only
    check that xdist runs these plain tests; with the plugin they must pass all the same.)"""
    tests = make_unrelated_suite(pytester.path, neighbour)
    without = pytester.runpytest_inprocess(*WITHOUT_THE_PLUGIN)
    without.assert_outcomes(passed=tests)
    assert without.ret == pytest.ExitCode.OK
    for xdist in ([], ["-n", "2"]):
        with_plugin = pytester.runpytest_inprocess(*xdist)
        with_plugin.assert_outcomes(passed=tests)
        assert with_plugin.ret == without.ret
        assert "unused baseline" not in with_plugin.stdout.str()
