"""The JSON and markdown reports carry what the HTML report shows (years, periods, what changed
for a drop, the history's trend), from the one function that turns a check into the reports' data:
rendered from plain data, no pytest session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from report_rows import LONG_QUERY, gate_row, session_rows, trends_for

from pytest_tempoeval.reports import json_report
from pytest_tempoeval.reports.check_data import check_data, shown_order
from pytest_tempoeval.reports.text import markdown, spark_text


def test_check_data_orders_failures_first_and_derives_the_gate_floor() -> None:
    rows = session_rows()
    assert [rows[i].status for i in shown_order(rows)] == ["FAIL", "FAIL", "pass", "pass"]
    data = check_data(gate_row(), 1, [{"time": "t", "commit": None, "score": 0.5}])
    baseline = (11 * 0.9 + 1.0) / 12
    assert (
        data["floor"] == pytest.approx(baseline - 0.01, abs=1e-12)
        and data["gate"]
        and data["anchor"] == "check-1"
    )
    assert data["dropped"] == 3  # q00, q01 and the long query fell; the others did not move
    assert data["trend"] == [{"time": "t", "commit": None, "score": 0.5}]


def test_the_json_report_has_years_periods_changes_and_the_trend(tmp_path: Path) -> None:
    rows = session_rows()
    trends = trends_for(rows)
    path = tmp_path / "r.json"
    json_report.write(path, rows, {}, {}, [], trends=trends, history_notes=["a note"])
    document = json.loads(path.read_text())
    assert document["history_notes"] == ["a note"]
    checks = {check["test"]: check for check in document["checks"]}
    assert [check["test"] for check in document["checks"]] == [row.test for row in rows]
    gate = checks["tests/test_b.py::test_gate"]
    assert gate["number"] == 1 and gate["trend"] == trends[2]
    assert [period["period"] for period in gate["periods"]] == ["1990-1999", "2000-2009"]
    (first, second) = gate["changes"]
    assert first["query"] == LONG_QUERY and first["doc_years"]["kept1"] == "1998"
    assert first["baseline_top"][:2] == ["old0", "old1"] and second["baseline_top"] is None
    threshold = checks["tests/test_a.py::test_threshold"]
    assert threshold["worst"][0]["doc_years"] == {"d1": "2000", "x1": None}
    assert threshold["temporal"]["mean_offset"] == -1.5
    judged = checks["tests/test_c.py::test_judged"]
    assert judged["worst"][0]["reasons"]["fr2022"] == "names the 2022 result"


def test_the_json_report_without_history_has_no_history_notes(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    json_report.write(path, [gate_row()], {}, {}, [])
    document = json.loads(path.read_text())
    assert "history_notes" not in document and document["checks"][0]["trend"] == []


def test_markdown_gets_a_trend_column_and_the_failed_checks_in_words() -> None:
    rows = session_rows()
    text = markdown(rows, trends=trends_for(rows))
    header = next(line for line in text.splitlines() if line.startswith("| test"))
    assert header.endswith("| note | trend |")
    gate_line = next(line for line in text.splitlines() if "test_gate |" in line)
    assert gate_line.endswith("| ██▁ 0.9000 → 0.7250 |")
    failed = text.split("### Failed checks", 1)[1]
    assert "**tests/test_b.py::test_gate** `nDCG@10` [gold]: 0.9083 → 0.7250" in failed
    assert "- 1990-1999: 0.9500 → 0.6000 (6 queries; regressed)" in failed
    assert f"- 3 queries dropped, the largest: `{LONG_QUERY}` (1998) 1.0000 → 0.1000" in failed
    assert "- history: ██▁ 0.9000 → 0.7250 over 3 sessions" in failed
    assert (
        "**tests/test_c.py::test_judged** `T-nDCG(mode=llm)@3` [llm]: 0.5000, needs >= 0.9"
        in failed
    )
    # without a history: the table as before, no trend column
    plain = markdown(rows)
    assert "| note |\n" in plain and "trend" not in plain.split("### Failed checks")[0]


def test_a_sparkline_in_text_needs_two_sessions() -> None:
    assert spark_text([{"time": "t", "commit": None, "score": 0.5}]) == "-"
    points = [{"time": "t", "commit": None, "score": s} for s in (0.2, None, 0.8)]
    assert spark_text(points) == "▁ █ 0.2000 → 0.8000"
