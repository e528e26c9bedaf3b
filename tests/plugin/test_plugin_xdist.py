"""Under pytest-xdist, workers' checks reach the controller, which reports exactly as a serial
run."""

import pytest
from test_plugin_reports import run_suite


def test_reports_are_identical_with_and_without_xdist(pytester: pytest.Pytester) -> None:
    outputs = []
    for args in ([], ["-n", "2"]):
        run_suite(pytester, *args, "--tempoeval-report=r.json", "--tempoeval-markdown=r.md")
        outputs.append(
            ((pytester.path / "r.json").read_text(), (pytester.path / "r.md").read_text())
        )
    assert outputs[0] == outputs[1]


def test_workers_checks_are_counted_once(pytester: pytest.Pytester) -> None:
    result = run_suite(pytester, "-n", "2")
    output = result.stdout.str()
    assert output.count("3 metric checks, 1 failed") == 1
    assert output.count("test_reports.py::test_good  T-nDCG@2") == 1
