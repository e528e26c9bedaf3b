"""Which file holds a test's baseline or cassette: one per node id, and files at their old
(pre-injective) places still found, then moved by the next write."""

import pytest
from plugin_helpers import BASELINE_TESTS, XDIST_MODES, make_baseline_suite


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_same_module_name_in_two_packages_gets_two_baselines_and_none_is_unused(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, xdist: list[str]
) -> None:
    make_baseline_suite(pytester, monkeypatch)
    for package in ("pkg1", "pkg2"):
        (pytester.path / package).mkdir()
        (pytester.path / package / "__init__.py").write_text("")  # two modules named test_m
        (pytester.path / package / "test_m.py").write_text(BASELINE_TESTS)
    (pytester.path / "test_module.py").unlink()
    # A file's place is computed from the node id alone, the same in a worker: the baselines are
    # written without xdist, and read back under each mode below.
    pytester.runpytest("--tempoeval-update-baseline").assert_outcomes(passed=4)
    written = sorted(p.relative_to(pytester.path).as_posix() for p in pytester.path.rglob("*.json"))
    assert written == [
        "base/pkg1/test_m/test_gate.json",
        "base/pkg1/test_m/test_other.json",
        "base/pkg2/test_m/test_gate.json",
        "base/pkg2/test_m/test_other.json",
    ]
    only_one = pytester.runpytest(*xdist, "pkg1")
    only_one.assert_outcomes(passed=2)
    assert "unused baseline" not in only_one.stdout.str()  # pkg2's files are not pkg1's leftovers


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_parametrize_ids_that_used_to_collapse_get_their_own_baselines(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, xdist: list[str]
) -> None:
    make_baseline_suite(pytester, monkeypatch)
    pytester.makepyfile(
        test_module="""
        import pytest
        from pytest_tempoeval import Run, ndcg

        @pytest.mark.parametrize("name", ["a/b", "a_b", "a b", "a:b"])
        @pytest.mark.tempoeval(gold="gold.yaml")
        def test_p(tempoeval_gold, tempoeval_baseline, name):
            run = Run({q: ([f"d{i}"] if name == "a_b" else [f"x{i}"])
                       for i, q in enumerate(sorted(tempoeval_gold.queries))})
            tempoeval_baseline.check(ndcg(run, tempoeval_gold, k=2))
        """
    )
    pytester.runpytest(*xdist, "--tempoeval-update-baseline").assert_outcomes(passed=4)
    assert len(list((pytester.path / "base" / "test_module").glob("*.json"))) == 4
    # Each finds its own scores in the files written under this mode (a file's place is computed
    # from the node id alone, the same in a worker).
    pytester.runpytest().assert_outcomes(passed=4)


def test_a_baseline_at_its_old_place_is_read_with_a_warning_and_moved_by_the_update(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_baseline_suite(pytester, monkeypatch)
    (pytester.path / "pkg").mkdir()
    (pytester.path / "test_module.py").rename(pytester.path / "pkg" / "test_module.py")
    pytester.runpytest("--tempoeval-update-baseline").assert_outcomes(passed=2)
    new = pytester.path / "base" / "pkg" / "test_module" / "test_gate.json"
    old = pytester.path / "base" / "test_module" / "test_gate.json"  # before: the basename only
    old.parent.mkdir()
    new.rename(old)
    checked = pytester.runpytest("-W", "always::DeprecationWarning")
    checked.assert_outcomes(passed=2)
    checked.stdout.fnmatch_lines(["*test_gate.json: read from its old place; its place is now *"])
    assert old.exists() and not new.exists()  # a check never moves or writes
    pytester.runpytest("--tempoeval-update-baseline").assert_outcomes(passed=2)
    assert new.exists() and not old.exists()


def test_a_stray_file_whose_name_is_not_utf8_is_listed_and_every_report_written(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    make_baseline_suite(pytester, monkeypatch)
    pytester.runpytest("--tempoeval-update-baseline").assert_outcomes(passed=2)
    with open(os.fsencode(pytester.path / "base" / "test_module") + b"/\xff.json", "w") as file:
        file.write("{}")
    result = pytester.runpytest("--tempoeval-markdown=out.md", "--tempoeval-html=out.html")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*1 unused baseline*", "*base/test_module/*.json"])
    assert "\\udcff" in (pytester.path / "out.md").read_text()  # escaped, not a crash
    assert (pytester.path / "out.html").is_file()


# -- issue 25: long names --------------------------------------------------------------------------

LONG_NAMES_TESTS = """
import pytest
from pytest_tempoeval import Run, ndcg

IDS = ["x" * 300, "\u691c" * 90]  # 300 characters; 90 CJK characters, 810 bytes once escaped

class Provider:
    model = "my-model"

@pytest.mark.parametrize("name", IDS, ids=IDS)  # explicit: pytest may shorten long ids
@pytest.mark.tempoeval(gold="gold.yaml")
def test_gate(tempoeval_gold, tempoeval_baseline, name):
    run = Run({q: [f"d{i}", f"x{i}"] for i, q in enumerate(sorted(tempoeval_gold.queries))})
    tempoeval_baseline.check(ndcg(run, tempoeval_gold, k=2))

@pytest.mark.parametrize("name", IDS, ids=IDS)  # explicit: pytest may shorten long ids
def test_judges(tempoeval_judge, tempoeval_judge_for, name):
    tempoeval_judge_for(Provider())
"""
LONG_MODULE = "test_" + "検索" * 15  # 98 bytes; escaped, 275: more than a file system takes


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["no-xdist", "n2"])
def test_long_ids_and_module_names_get_their_files_once_the_folders_exist(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, xdist: list[str]
) -> None:
    """Issue 25: once the module's folder existed, setting up tempoeval_baseline or
    tempoeval_judge for a long id looked its old place up, a name too long (OSError, Errno 36),
    and --tempoeval-update-baseline could not create the baseline either; a long module name
    broke the three fixtures and the unused-baselines report.

    One session holds both modules, the short one (whose folders exist) and the long one: each
    module's files are counted apart, so each case is checked as when it ran alone."""
    make_baseline_suite(pytester, monkeypatch)
    (pytester.path / "test_module.py").unlink()
    for module in ("test_module", LONG_MODULE):
        (pytester.path / f"{module}.py").write_text(LONG_NAMES_TESTS)
    (pytester.path / "base" / "test_module").mkdir(parents=True)  # the folders exist
    (pytester.path / "fixtures" / "cassettes" / "test_module").mkdir(parents=True)
    # The update's files are named from the node id alone, in any process: without xdist. The
    # check below sets the three fixtures up for every long id under each mode.
    pytester.runpytest("--tempoeval-update-baseline").assert_outcomes(passed=8)
    written = [path for path in (pytester.path / "base").rglob("*.json")]
    short = [path for path in written if path.parent.name == "test_module"]
    assert len(written) == 4 and len(short) == 2  # one baseline per id, in each module
    assert all(len(part.encode()) <= 255 for path in written for part in path.parts)
    checked = pytester.runpytest(*xdist)
    checked.assert_outcomes(passed=8)
    assert "unused baseline" not in checked.stdout.str()
    assert "4 metric checks, 0 failed" in checked.stdout.str()  # each checked its own baseline


def test_a_suite_that_uses_no_fixture_or_marker_of_the_plugin_reads_no_baseline(
    pytester: pytest.Pytester,
) -> None:
    """A session in which no test uses the plugin does not look into the baseline folder: a stray
    file there is not reported (it was, as an unused baseline of the module), and no file or
    folder under it is opened or listed (audit events, Python 3.8+)."""
    pytester.makeini("[pytest]\ntempoeval_baseline_dir = base\n")
    (pytester.path / "base" / "test_plain").mkdir(parents=True)
    (pytester.path / "base" / "test_plain" / "test_gone.json").write_text("{}")
    pytester.makeconftest(
        """
        import os, sys

        SEEN = []
        BASE = os.path.join(os.getcwd(), "base")

        def _audit(event, args):
            if event in ("open", "os.listdir", "os.scandir") and args and args[0] is not None:
                path = os.fsdecode(args[0]) if isinstance(args[0], (str, bytes)) else ""
                if path.startswith(BASE):
                    SEEN.append((event, path))

        sys.addaudithook(_audit)

        def pytest_sessionfinish(session):
            print(f"\\nbaseline folder reads: {SEEN}")
        """
    )
    pytester.makepyfile(test_plain="def test_ok():\n    pass\n")
    result = pytester.runpytest_subprocess("-s", "test_plain.py")  # pytest walks no folder
    result.assert_outcomes(passed=1)
    assert "unused baseline" not in result.stdout.str()
    result.stdout.fnmatch_lines(["baseline folder reads: []"])
