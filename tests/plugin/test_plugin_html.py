"""--tempoeval-html: a self-contained page, its structure checked by parsing it."""

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from plugin_helpers import QUERIES, XDIST_MODES, make_baseline_suite, write_gold

SVG = "{http://www.w3.org/2000/svg}"
UPDATE = "--tempoeval-update-baseline"


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    return make_baseline_suite(pytester, monkeypatch)


def parse(path: Path) -> ET.Element:
    text = path.read_text(encoding="utf-8")
    doctype, markup = text.split("\n", 1)
    assert doctype == "<!DOCTYPE html>"
    return ET.fromstring(markup)  # well-formed: it parses as XML


def by_class(root: ET.Element, tag: str, name: str) -> list[ET.Element]:
    return [element for element in root.iter(tag) if name in (element.get("class") or "").split()]


def test_html_report_has_a_chart_per_check_with_the_dropped_queries_highlighted(
    suite: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    suite.runpytest(UPDATE).assert_outcomes(passed=2)
    monkeypatch.setenv("WORSE", "6")
    pages = {}
    for name, xdist in (("serial", []), ("n2", ["-n", "2"])):
        suite.runpytest(*xdist, f"--tempoeval-html={name}.html").assert_outcomes(failed=2)
        pages[name] = (suite.path / f"{name}.html").read_text(encoding="utf-8")
    assert pages["serial"] == pages["n2"]  # same page whatever the number of workers

    text = pages["serial"]
    import html5lib  # valid HTML5 (the structure test checks a page rendered from data too)

    html5lib.HTMLParser(strict=True).parse(text)
    # Self-contained: nothing to fetch, nothing to run.
    assert not re.search(r"<(script|link|img|iframe)\b|\bsrc=|url\(", text)
    assert set(re.findall(r"https?://[^\s\"'<>]+", text)) == {"http://www.w3.org/2000/svg"}

    root = parse(suite.path / "serial.html")
    summary = by_class(root, "table", "summary")[0]
    assert [cell.text for cell in by_class(summary, "span", "FAIL")] == ["FAIL", "FAIL"]
    sections = by_class(root, "details", "check")  # each check folds; a failed one is open
    assert [section.get("id") for section in sections] == ["check-1", "check-2"]
    assert all(section.get("open") for section in sections)

    gate = sections[0]
    assert "test_module.py::test_gate" in "".join(gate.find("summary/h2").itertext())
    (figure,) = by_class(gate, "figure", "chart")
    svg = figure.find(f"{SVG}svg")
    circles = list(svg.iter(f"{SVG}circle"))
    assert len(circles) == QUERIES
    dropped = [c for c in circles if c.get("class") == "regressed"]
    assert (
        len(dropped) == 6 and len(list(svg.iter(f"{SVG}line"))) >= QUERIES + 6
    )  # baseline ticks + drop lines
    assert sorted(c.find(f"{SVG}title").text for c in dropped) == [
        f"q{i:02d}: 1.0000 → 0.6309" for i in range(6)
    ]
    # the chart's plot: score s is drawn at top + (1 - s) * height
    from pytest_tempoeval.reports.html.charts import CHART_PLOT, CHART_TOP

    top, height = CHART_TOP, CHART_PLOT
    assert {c.get("cy") for c in dropped} == {f"{top + (1 - 0.6309297535714575) * height:.1f}"}

    worst = by_class(gate, "table", "worst")[0]
    first = worst.findall("tr")[1]
    cells = first.findall("td")
    texts = ["".join(cell.itertext()) for cell in cells]
    # then the temporal diagnostics: q00 is about 2000; x0 has no focus time, d0 is about 2000
    assert texts[:3] + texts[5:] == [
        "q00",
        "0.6309",
        "1.0000",
        "2000",
        "+0.0",
        "0 of 1 (1 without a focus time)",
    ]
    rankings = [
        ["".join(item.itertext()).strip() for item in cell.iter("li")] for cell in cells[3:5]
    ]
    assert rankings == [["x0(?)", "d0(3) 2000"], ["d0(3) 2000"]]  # each document with its years


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_html_report_without_baselines(pytester: pytest.Pytester, xdist: list[str]) -> None:
    write_gold(pytester)
    pytester.makepyfile(
        test_plain="""
        import pytest
        from pytest_tempoeval import Run, ndcg

        @pytest.mark.tempoeval(gold="gold.yaml")
        def test_threshold(tempoeval_gold):
            assert ndcg(Run({"q2020": ["a2016", "a2020"], "q2016": ["a2016"]}), \
tempoeval_gold, k=2) >= 0.5
        """
    )
    pytester.runpytest(*xdist, "--tempoeval-html=out/report.html").assert_outcomes(passed=1)
    root = parse(pytester.path / "out" / "report.html")
    (section,) = by_class(root, "details", "check")
    assert section.get("open") is None  # it passed: folded
    circles = list(section.iter(f"{SVG}circle"))
    assert len(circles) == 2 and {c.get("class") for c in circles} == {"current"}
    assert "Needed >= 0.5." in "".join(section.itertext())


def test_with_baseline_rankings_a_drop_shows_the_old_and_new_top_k(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    rankings = ("-o", "tempoeval_baseline_rankings=true")
    suite.runpytest(UPDATE, *rankings).assert_outcomes(passed=2)
    stored = [path.read_text() for path in sorted((suite.path / "base").rglob("*.json"))]
    assert all('"top": {' in text for text in stored)
    monkeypatch.setenv("WORSE", "6")
    suite.runpytest("--tempoeval-html=r.html", *rankings).assert_outcomes(failed=2)
    root = parse(suite.path / "r.html")
    gate = by_class(root, "details", "check")[0]
    (changes,) = by_class(gate, "details", "changes")
    summary = "".join(changes.find("summary").itertext())
    assert summary.startswith("What changed: 6 queries dropped (q00 1.0000 → 0.6309")
    table = by_class(changes, "table", "changes")[0]
    head = ["".join(cell.itertext()) for cell in table.findall("tr")[0]]
    assert head[-2:] == ["top k in the baseline", "top k now"]
    first = table.findall("tr")[1].findall("td")
    old, new = (["".join(li.itertext()).strip() for li in cell.iter("li")] for cell in first[-2:])
    # the same two documents, in the other order: nothing entered or left the top 2
    assert old == ["d0 2000", "x0"] and new == ["x0(?)", "d0(3) 2000"]
    assert not by_class(changes, "li", "entered") and not by_class(changes, "li", "left")
