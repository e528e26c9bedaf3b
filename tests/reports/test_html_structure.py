"""The HTML report's structure, parsed with the standard library's html.parser from a page rendered
from plain data (no pytest session): failures first, a <details> per check open only when it
failed, labelled charts with a title per mark and a table behind a fold, rankings cut to their top
5, ids shortened with the full id in a title, no fixed width that could overflow; and the page is
valid HTML5 (html5lib, strict)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser

import pytest
from report_rows import LONG_DOC, LONG_QUERY, session_rows, trends_for

from pytest_tempoeval.reports.html import render

VOID = {"meta", "input", "wbr", "br", "img", "link", "hr"}


@dataclass
class Node:
    tag: str
    attrs: dict[str, str | None]
    children: list[Node | str] = field(default_factory=list)

    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def iter(self, tag: str | None = None, css: str | None = None) -> Iterator[Node]:
        for child in self.children:
            if isinstance(child, Node):
                if (tag is None or child.tag == tag) and (css is None or css in child.classes()):
                    yield child
                yield from child.iter(tag, css)

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def shown(self) -> str:
        """The text drawn, without the titles (what a hover shows)."""
        return "".join(
            c if isinstance(c, str) else c.shown()
            for c in self.children
            if getattr(c, "tag", "") != "title"
        )

    def kids(self, tag: str) -> list[Node]:
        return [c for c in self.children if isinstance(c, Node) and c.tag == tag]


class TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, dict(attrs))
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        assert self.stack[-1].tag == tag, f"</{tag}> closes <{self.stack[-1].tag}>"
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(page: str) -> Node:
    builder = TreeBuilder()
    builder.feed(page)
    builder.close()
    assert [node.tag for node in builder.stack] == ["#document"], "an element is not closed"
    return builder.root


@pytest.fixture(scope="module")
def page() -> str:
    rows = session_rows()
    return render(rows, "LLM judge: 4 replayed from cassettes", trends=trends_for(rows))


@pytest.fixture(scope="module")
def root(page: str) -> Node:
    return parse(page)


def checks(root: Node) -> list[Node]:
    return list(root.iter("details", "check"))


def test_failures_come_first_everywhere(root: Node) -> None:
    sections = checks(root)
    status = [next(s.iter("span", "badge")).text() for s in sections]
    assert status == ["FAIL", "FAIL", "pass", "pass"]
    tests = [next(s.iter("summary")).text() for s in sections]
    assert "test_gate" in tests[0] and "test_judged" in tests[1]  # in test order within a status
    (table, *_) = root.iter("table", "summary")
    first_rows = [row.text() for row in table.kids("tr")[1:3]]
    assert all("FAIL" in text for text in first_rows)
    overview = next(next(root.iter("section", "overview")).iter("svg"))
    labels = [t.shown() for t in overview.iter("text", "row-label")]
    assert "test_gate" in labels[0] and "test_judged" in labels[1] and "test_quiet" in labels[-1]
    # the header counts them
    assert "4 metric checks, 2 failed, 2 passed, in 4 tests" in next(root.iter("header")).text()


def test_each_check_is_a_details_open_only_when_it_failed(root: Node) -> None:
    sections = checks(root)
    assert [s.attrs.get("id") for s in sections] == [f"check-{n}" for n in range(1, 5)]
    assert ["open" in s.attrs for s in sections] == [True, True, False, False]
    for section in sections:
        assert section.kids("summary"), "a check folds under its summary"
    # the table's rows link to them
    links = [a.attrs["href"] for a in next(root.iter("table", "summary")).iter("a")]
    assert links == ["#check-1", "#check-2", "#check-3"]  # the fourth passed quietly: folded
    (quiet,) = root.iter("details", "quiet")
    assert [a.attrs["href"] for a in quiet.iter("a")] == ["#check-4"]


def test_the_per_query_chart_is_labelled_and_has_a_table_behind_a_fold(root: Node) -> None:
    gate = checks(root)[0]
    (figure,) = gate.iter("figure", "chart")
    (svg,) = figure.kids("svg")
    assert svg.attrs.get("role") == "img" and "nDCG@10" in (svg.attrs.get("aria-label") or "")
    texts = [t.shown() for t in svg.iter("text")]
    # the axis: 0, 1 and the threshold (the gate's floor: baseline mean 0.9083 less 0.01)
    assert {"0", "1"} <= set(texts) and "0.898" in texts
    # the worst and the best queries are named; a long id is shortened, whole in its title
    names = {
        t.shown(): t for t in svg.iter("text", "label") if t.attrs.get("text-anchor") == "middle"
    }
    assert {"q00", "q01"} <= set(names)
    (long_name,) = [name for name in names if "…" in name]
    assert names[long_name].kids("title")[0].text() == f"{LONG_QUERY}: 0.1000"
    # a title on every mark
    marks = [
        *svg.iter("circle"),
        *(line for line in svg.iter("line") if line.classes() - {"grid", "axis", "leader"}),
    ]
    assert marks and all(mark.kids("title") for mark in marks)
    assert len(list(svg.iter("circle"))) == 12
    # the chart's text alternative
    (fold,) = [
        d for d in gate.iter("details", "fold") if "as a table" in d.kids("summary")[0].text()
    ]
    (table,) = fold.iter("table", "chart-data")
    assert len(table.kids("tr")) == 1 + 12
    # no chart has a fixed size: a viewBox, scaled by the style sheet
    for chart in root.iter("svg"):
        assert "viewBox" in {k for k in chart.attrs} or "viewbox" in chart.attrs
        assert "width" not in chart.attrs and "height" not in chart.attrs


def test_what_changed_shows_old_and_new_top_k_with_years(root: Node) -> None:
    gate = checks(root)[0]
    (changes,) = gate.iter("details", "changes")
    summary = changes.kids("summary")[0].text()
    assert "3 queries dropped" in summary and "0.1000" in summary
    (table,) = changes.iter("table", "changes")
    head = [cell.text() for cell in table.kids("tr")[0].kids("th")]
    assert head == [
        "query",
        "years",
        "baseline",
        "now",
        "change",
        "top k in the baseline",
        "top k now",
    ]
    first = table.kids("tr")[1].kids("td")
    assert first[0].iter("code").__next__().attrs["title"] == LONG_QUERY
    assert [c.text() for c in first[1:5]] == ["1998", "1.0000", "0.1000", "−0.9000"]
    old, new = first[5], first[6]
    # the top 5 shown, the rest folded (start at 6)
    assert len(next(old.iter("ol")).kids("li")) == 5
    (rest,) = old.iter("details", "fold")
    assert next(rest.iter("ol")).attrs["start"] == "6"
    left = [li for li in old.iter("li", "left")]
    assert [li.iter("code").__next__().text() for li in left] == [f"old{i}" for i in range(8)]
    entered = [li.iter("code").__next__() for li in new.iter("li", "entered")]
    assert entered[0].attrs["title"] == LONG_DOC and "…" in entered[0].text()
    assert [code.text() for code in entered[1:]] == [f"new{i}" for i in range(7)]
    assert "kept1" not in {code.text() for code in entered}
    # each document's years beside it
    assert all(li.iter("span", "years").__next__().text() == "1998" for li in new.iter("li"))
    # a query whose old ranking is past the baseline's bound says so
    second = table.kids("tr")[2].kids("td")
    assert second[5].text() == "not stored for this query"


def test_periods_get_a_small_chart_each(root: Node) -> None:
    gate = checks(root)[0]
    (periods,) = gate.iter("div", "periods")
    figures = periods.kids("figure")
    assert [f.kids("figcaption")[0].text().split(":")[0] for f in figures] == [
        "1990-1999",
        "2000-2009",
    ]
    assert ["regressed" in f.classes() for f in figures] == [True, False]
    assert len(list(figures[0].iter("circle"))) == 6


def test_the_judge_reasons_and_the_years_are_beside_the_rankings(root: Node) -> None:
    judged = checks(root)[1]
    (worst,) = judged.iter("table", "worst")
    retrieved, ideal = worst.kids("tr")[1].kids("td")[3:5]
    reasons = [span.text() for span in retrieved.iter("span", "reason")]
    assert reasons == ["about 2016, not 2022", "names the 2022 result"]
    assert [span.text() for span in ideal.iter("span", "reason")] == ["names the 2022 result"]
    threshold = checks(root)[2]
    (table,) = threshold.iter("table", "worst")
    cells = table.kids("tr")[1].kids("td")
    assert [li.text().strip() for li in cells[3].iter("li")] == ["d1(3) 2000", "x1(?)"]


def test_history_sparklines_and_the_filter(root: Node, page: str) -> None:
    table = next(root.iter("table", "summary"))
    sparks = list(table.iter("svg", "spark-svg"))
    assert len(sparks) == 3  # the quiet row's is in the fold
    title = sparks[0].kids("title")[0].text()
    assert title.startswith("3 sessions") and "aaaaaaa" in title and "0.9000 → " not in title
    assert title.endswith("2026-11-26: 0.9000, 2026-11-27 bbbbbbb: 0.7250")
    # the filter: one radio per choice, before the sections it filters, a chip for each
    radios = [i.attrs["id"] for i in root.iter("input") if i.attrs.get("type") == "radio"]
    assert radios[:2] == ["show-all", "show-failed"] and len(radios) == 2 + 4 + 4
    chips = {label.attrs["for"] for label in root.iter("label")}
    assert chips == set(radios)
    assert "#show-failed:checked ~ section .row:not(.st-FAIL) { display: none; }" in page
    for radio in radios[2:]:
        assert f"#{radio}:checked ~ section .row:not(.{radio.removeprefix('show-')})" in page
    rows = [*table.kids("tr")[1:], *checks(root)]
    assert all({"row", "st-FAIL"} <= r.classes() or "st-pass" in r.classes() for r in rows)


def test_nothing_can_overflow_and_nothing_runs(page: str, root: Node) -> None:
    style = next(root.iter("style")).text()
    # no fixed width wider than a phone, in the style sheet or an attribute
    assert not re.search(r"(?<![-\w])(min-)?width:\s*\d{3,}px", style)
    for node in root.iter():
        assert not re.search(r"width:\s*\d+px", node.attrs.get("style") or "")
    assert "overflow-wrap: anywhere" in style and "table-layout: fixed" in style
    assert "@media print" in style and "size: A4" in style
    assert not re.search(r"<(script|link|img|iframe)\b|\bsrc=|url\(", page)


def test_the_page_is_valid_html5(page: str) -> None:
    import html5lib  # the dev extras'

    parser = html5lib.HTMLParser(strict=True)
    parser.parse(page)  # raises on the first parse error
    assert parser.errors == []


def test_a_page_with_nothing_failed_keeps_its_table_open() -> None:
    from report_rows import quiet_row, threshold_row

    root = parse(render([threshold_row(), quiet_row()]))
    assert not list(root.iter("details", "quiet"))
    assert len(next(root.iter("table", "summary")).kids("tr")) == 3
    assert ["open" in s.attrs for s in checks(root)] == [False, False]
