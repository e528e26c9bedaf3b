"""The session summary, JSON and markdown reports, and JUnit properties; identical under xdist."""

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from plugin_helpers import XDIST_MODES, write_gold

TESTS = """
import pytest
from pytest_tempoeval import Run, ndcg, temporal_ndcg, temporal_precision

GOOD = {"q2020": ["a2020", "a2016"], "q2016": ["a2016", "a2012"]}

@pytest.mark.tempoeval(gold="gold.yaml")
def test_good(tempoeval_gold):
    run = Run(GOOD)
    assert temporal_ndcg(run, tempoeval_gold, k=2) >= 0.9
    assert temporal_precision(run, tempoeval_gold, k=2) >= 0.5

@pytest.mark.tempoeval(gold="gold.yaml")
def test_bad(tempoeval_gold):
    assert ndcg(Run({"q2020": ["a2012"], "q2016": ["a2016"]}), tempoeval_gold, k=2) >= 0.8

def test_unrelated():
    assert 1 + 1 == 2
"""


def run_suite(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    write_gold(pytester)
    pytester.makepyfile(test_reports=TESTS)
    return pytester.runpytest(*args)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_terminal_summary_lists_every_check_once(
    pytester: pytest.Pytester, xdist: list[str]
) -> None:
    """Under -n 2 the workers' checks reach the controller, which lists each once."""
    result = run_suite(pytester, *xdist)
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.re_match_lines(
        [
            r".*=+ tempoeval =+",
            r"test\s+metric\s+mode\s+queries\s+score\s+threshold\s+baseline\s+delta\s+p\s+status\s+note",
            r"test_reports.py::test_bad\s+nDCG@2\s+gold\s+2\s+0.5000\s+>= 0.8\s+-\s+-\s+-\s+FAIL",
            (
                r"test_reports.py::test_good\s+T-nDCG@2\s+focus_time\s+2\s+1.0000\s+>= 0.9"
                r"\s+-\s+-\s+-\s+pass"
            ),
            (
                r"test_reports.py::test_good\s+T-P@2\s+focus_time\s+2\s+0.5000"
                r"\s+>= 0.5\s+-\s+-\s+-\s+pass"
            ),
            r"3 metric checks, 1 failed",
        ]
    )
    output = result.stdout.str()
    assert output.count("3 metric checks, 1 failed") == 1
    assert output.count("test_reports.py::test_good  T-nDCG@2") == 1


def test_no_section_when_no_metric_is_checked(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_plain():\n    assert True\n")
    result = pytester.runpytest()
    assert "= tempoeval =" not in result.stdout.str() and "metric checks" not in result.stdout.str()


def test_json_and_markdown_reports_and_github_step_summary_are_the_same_under_xdist(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One session per mode writes both reports (they are independent: see
    test_reports_are_independent_and_markdown_escapes_html); each is checked, then the two
    modes' files are compared: the controller reports exactly as a serial run."""
    summary = pytester.path / "step_summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    written = []
    for xdist in ([], ["-n", "2"]):
        summary.write_text("earlier step\n")
        for report in ("out/report.json", "summary.md"):  # each mode writes its own
            (pytester.path / report).unlink(missing_ok=True)
        run_suite(
            pytester,
            *xdist,
            "--tempoeval-report=out/report.json",
            "--tempoeval-markdown=summary.md",
        )
        json_text = (pytester.path / "out" / "report.json").read_text()
        document = json.loads(json_text)
        assert document["version"] == 1 and document["failed"] == 1
        assert [(c["test"], c["metric"], c["status"]) for c in document["checks"]] == [
            ("test_reports.py::test_bad", "nDCG@2", "FAIL"),
            ("test_reports.py::test_good", "T-nDCG@2", "pass"),
            ("test_reports.py::test_good", "T-P@2", "pass"),
        ]
        assert document["checks"][0]["per_query"] == {"q2020": 0.0, "q2016": 1.0}
        text = (pytester.path / "summary.md").read_text()
        assert text.startswith("## tempoeval\n\n3 metric checks, 1 failed.\n")
        assert (
            "| test_reports.py::test_bad | nDCG@2 | gold | 2 | 0.5000 | >= 0.8 | - | - | - | "
            "FAIL | ranking shorter than k=2 for 2 queries (depth 1) |" in text
        )
        assert summary.read_text() == "earlier step\n" + text  # appended, not overwritten
        written.append((json_text, text))
    assert written[0] == written[1]


@pytest.mark.parametrize("family", ["xunit2", "xunit1", "legacy"])
def test_junit_properties_are_written_with_every_family_and_no_warning(
    pytester: pytest.Pytester, family: str
) -> None:
    """The README's JUnit note, checked on the installed pytest: the properties are written with
    every junit_family (xunit2 is pytest's default), and pytest does not warn about them (it warns
    only for its record_property fixture)."""
    result = run_suite(pytester, "--junitxml=junit.xml", "-o", f"junit_family={family}", "-rw")
    assert "incompatible with junit_family" not in result.stdout.str()
    tree = ET.parse(Path(pytester.path / "junit.xml"))
    properties = {
        (case.get("name"), prop.get("name")): prop.get("value")
        for case in tree.iter("testcase")
        for prop in case.iter("property")
    }
    assert properties[("test_bad", "tempoeval:nDCG@2")] == "0.500000 >= 0.8 [gold, 2 queries] FAIL"
    assert (
        properties[("test_good", "tempoeval:T-nDCG@2")]
        == "1.000000 >= 0.9 [focus_time, 2 queries] pass"
    )


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_reports_are_independent_and_markdown_escapes_html(
    pytester: pytest.Pytester, xdist: list[str]
) -> None:
    """An HTML report that cannot be written (its path is a directory) costs one line and no other
    report; markdown shows HTML in ids as text. (A lone surrogate in an id is refused at load.)"""
    pytester.makefile(
        ".json",
        gold=json.dumps({"version": 1, "queries": [{"id": "q<b>", "relevant": {"d1": 1}}]}),
    )
    pytester.makepyfile(
        test_odd="""
        import pytest
        from pytest_tempoeval import Run, ndcg

        @pytest.mark.parametrize("name", ["<img src=x onerror=alert(1)>"])
        @pytest.mark.tempoeval(gold="gold.json")
        def test_it(tempoeval_gold, name):
            assert ndcg(Run({"q<b>": ["d2"]}), tempoeval_gold, k=1) >= 0.5
        """
    )
    (pytester.path / "blocked.html").mkdir()
    result = pytester.runpytest(
        *xdist,
        "--tempoeval-html=blocked.html",
        "--tempoeval-report=out.json",
        "--tempoeval-markdown=out.md",
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["tempoeval: the HTML report blocked.html was not written: *"])
    assert "Traceback" not in result.stdout.str() and "INTERNALERROR" not in result.stdout.str()
    assert json.loads((pytester.path / "out.json").read_text())["failed"] == 1
    text = (pytester.path / "out.md").read_text()
    assert "&lt;img src=x onerror=alert(1)>" in text and "<img" not in text


# -- issue 25: report paths that a rename would destroy, and folders outside the project -----------


def test_a_report_into_a_fifo_a_device_or_a_symlink_leaves_each_as_it_was(
    pytester: pytest.Pytester,
) -> None:
    """As root, --tempoeval-report=/dev/null renamed a regular file over the device (issue 25).
    A FIFO and a device are written in place; a symlink's target is written and the link stays.
    The device is one made in the test's folder: a test must not risk the machine's /dev/null
    (not root: the real /dev/null, whose folder a rename cannot write to)."""
    import os
    import stat
    import threading

    fifo = pytester.path / "report.fifo"
    os.mkfifo(fifo)
    read: list[bytes] = []
    reader = threading.Thread(target=lambda: read.append(fifo.read_bytes()), daemon=True)
    reader.start()
    device = pytester.path / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        device = Path("/dev/null")
    (pytester.path / "reports").mkdir()
    (pytester.path / "report.md").symlink_to(pytester.path / "reports" / "summary.md")
    result = run_suite(
        pytester,
        f"--tempoeval-report={fifo}",
        f"--tempoeval-html={device}",
        "--tempoeval-markdown=report.md",
    )
    reader.join(timeout=30)  # a daemon: had nothing written into the FIFO, it waits in vain
    result.assert_outcomes(passed=2, failed=1)
    assert "was not written" not in result.stdout.str()
    assert json.loads(read[0])["failed"] == 1 and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert stat.S_ISCHR(os.lstat(device).st_mode)
    assert (pytester.path / "report.md").is_symlink()
    assert "test_bad" in (pytester.path / "reports" / "summary.md").read_text()


def test_a_report_folder_is_created_in_the_project_never_elsewhere(
    pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("elsewhere") / "typo" / "deeper"
    result = run_suite(
        pytester, "--tempoeval-report=out/json/report.json", f"--tempoeval-markdown={outside}/r.md"
    )
    result.assert_outcomes(passed=2, failed=1)
    assert json.loads((pytester.path / "out" / "json" / "report.json").read_text())["failed"] == 1
    expected = (
        f"tempoeval: the markdown report {outside}/r.md was not written: its folder {outside} "
        f"does not exist; reports create missing folders only inside {pytester.path}: create "
        "it first"
    )
    result.stdout.fnmatch_lines([expected])
    assert not outside.parent.exists()


def test_a_report_to_the_sessions_own_output_file_is_appended_to_it(
    pytester: pytest.Pytester,
) -> None:
    """`pytest --tempoeval-report=/dev/stdout > log`: the descriptor's file is pytest's log. It
    gets the report added, never replaced (the log lost) or truncated. Asked through /proc (as
    /dev/stdout leads there): a regression fails to create a file in /proc, and leaves the
    machine's /dev alone."""
    write_gold(pytester)
    pytester.makepyfile(test_reports=TESTS)
    result = pytester.runpytest_subprocess("--tempoeval-report=/proc/self/fd/1")
    result.assert_outcomes(passed=2, failed=1)  # pytest's own lines are all there
    text = result.stdout.str()
    assert '"crashed_tests": []' in text and "was not written" not in text
    assert text.index("test_reports.py") < text.index('"crashed_tests"')  # appended, in order
