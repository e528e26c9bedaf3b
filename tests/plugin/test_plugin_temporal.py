"""Temporal diagnostics through the plugin: the gate's note names a retriever that drifted to older
documents, and the JSON and HTML reports show the figures, the same without and with xdist."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

QUERIES = 12
GOLD = (
    "version: 1\ndocuments:\n"
    + "".join(
        f'  d{i}: {{text: "Report of {2000 + i}."}}\n'
        f'  x{i}: {{text: "Review of {2000 + i}."}}\n'
        f'  o{i}: {{text: "Report of {2000 + i - 10}."}}\n'
        for i in range(QUERIES)
    )
    + "queries:\n"
    + "".join(
        f'  - id: q{i:02d}\n    text: "What happened in {2000 + i}?"\n    relevant: {{d{i}: 3}}\n'
        for i in range(QUERIES)
    )
)
# The relevant document first, so nDCG@2 is 1.0 whatever follows it: x<i> (the query's year) in the
# baseline, o<i> (10 years earlier) when SECOND=o. Each query's mean offset goes 0 -> (0 - 10) / 2.
TESTS = """
import os
import pytest
from pytest_tempoeval import Run, ndcg

@pytest.mark.tempoeval(gold="gold.yaml")
def test_gate(tempoeval_gold, tempoeval_baseline):
    second = os.environ.get("SECOND", "x")
    run = Run({q: [f"d{i}", f"{second}{i}"] for i, q in enumerate(sorted(tempoeval_gold.queries))})
    tempoeval_baseline.check(ndcg(run, tempoeval_gold, k=2))
"""
MOVED = (
    "retrieved documents moved 5.0 years older on average (mean offset +0.0 -> -5.0 years over "
    "12 queries)"
)


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.delenv("SECOND", raising=False)
    pytester.makeini("[pytest]\ntempoeval_baseline_dir = base\n")
    pytester.makefile(".yaml", gold=GOLD)
    pytester.makepyfile(test_module=TESTS)
    pytester.runpytest("--tempoeval-update-baseline").assert_outcomes(passed=1)
    return pytester


def parse(path: Path) -> ET.Element:
    return ET.fromstring(path.read_text(encoding="utf-8").split("\n", 1)[1])


def by_class(root: ET.Element, tag: str, name: str) -> list[ET.Element]:
    return [element for element in root.iter(tag) if name in (element.get("class") or "").split()]


def test_a_drift_to_older_documents_is_named_in_the_note_and_the_reports(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECOND", "o")
    reports: dict[str, Any] = {}
    for name, xdist in (("serial", []), ("n2", ["-n", "2"])):
        done = suite.runpytest(
            *xdist, f"--tempoeval-report={name}.json", f"--tempoeval-html={name}.html"
        )
        done.assert_outcomes(passed=1)  # the score did not move: the note tells what did
        assert MOVED in done.stdout.str()
        reports[name] = (
            (suite.path / f"{name}.json").read_text(),
            (suite.path / f"{name}.html").read_text(),
        )
    assert reports["serial"] == reports["n2"]

    (check,) = json.loads(reports["serial"][0])["checks"]
    assert check["status"] == "pass" and MOVED in check["note"]
    assert check["temporal"] == {
        "k": 2,
        "mean_offset": -5.0,
        "future_share": 0.0,
        "queries": QUERIES,
        "without_years": 0,
        "without_dated": 0,
        "retrieved": 2 * QUERIES,
        "undated": 0,
    }
    worst = check["worst"][0]  # every query scores 1.0: the first by id
    assert worst["query"] == "q00"
    assert worst["temporal"] == {
        "years": "2000",
        "k": 2,
        "retrieved": 2,
        "dated": 2,
        "future": 0,
        "mean_offset": -5.0,
        "future_share": 0.0,
    }

    root = parse(suite.path / "serial.html")
    (section,) = by_class(root, "details", "check")
    (line,) = by_class(section, "p", "temporal")
    assert line.text == (
        "years: the top 2 are on average 5.0 years older than the query (mean offset -5.0), "
        "0.0% from the future, over 12 queries"
    )
    assert MOVED in "".join(section.itertext())
    table = by_class(section, "table", "worst")[0]
    head = ["".join(cell.itertext()) for cell in table.findall("tr")[0].findall("th")]
    assert head[-3:] == ["years", "mean offset (years)", "from the future"]
    cells = ["".join(cell.itertext()) for cell in table.findall("tr")[1].findall("td")]
    assert cells[0] == "q00" and cells[-3:] == ["2000", "-5.0", "0 of 2"]


def test_a_baseline_written_before_the_figures_still_gates_and_says_so(
    suite: pytest.Pytester,
) -> None:
    (path,) = (suite.path / "base").rglob("*.json")
    data = json.loads(path.read_text())
    del data["results"]["nDCG@2"]["temporal"]
    path.write_text(json.dumps(data))
    done = suite.runpytest("--tempoeval-report=r.json")
    done.assert_outcomes(passed=1)
    (check,) = json.loads((suite.path / "r.json").read_text())["checks"]
    assert check["note"] == "temporal figures not in the baseline: re-baseline to record them"


def test_a_check_row_computes_them_only_for_a_report_that_shows_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pytest_tempoeval import GoldSet, Run, ndcg
    from pytest_tempoeval.metrics import diagnostics
    from pytest_tempoeval.metrics.checks import Check
    from pytest_tempoeval.session import CheckRow

    calls = []
    compute = diagnostics._query_figures

    def counted(*args: Any) -> Any:
        calls.append(args)
        return compute(*args)

    monkeypatch.setattr(diagnostics, "_query_figures", counted)
    gold = GoldSet.from_dict(
        {
            "version": 1,
            "documents": {"a": {"text": "In 1990."}, "b": {"text": "In 2000."}},
            "queries": [{"id": "q", "text": "In 2000", "relevant": {"b": 1}}],
        }
    )
    result = ndcg(Run({"q": ["a", "b"]}), gold, k=2)
    check = Check(result=result, op=">=", threshold=0.5, passed=True)
    plain = CheckRow.from_check("t.py::t", 0, check)
    assert plain.temporal is None and "temporal" not in plain.worst[0] and calls == []
    shown = CheckRow.from_check("t.py::t", 1, check, temporal=True)
    assert len(calls) == 1
    # a (1990) is 10 years older than the query, b (2000) on it: (-10 + 0) / 2
    assert shown.temporal is not None and shown.temporal["mean_offset"] == -5.0
    assert shown.worst[0]["temporal"]["years"] == "2000"
