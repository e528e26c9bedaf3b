"""``--tempoeval-html=PATH``: one self-contained page (no script, font or link to fetch), made for
a merge-gate review.

From the top: the verdict with the pass/fail counts and the judge's line; the filter (all,
failed, by test, by measure: CSS only, so it works with JavaScript off); the overview: one chart
of every check on a 0-1 scale (score, threshold, baseline, the drop), failures first, then the
table of every check; then one ``<details>`` per check, in the same order, open when it failed
(:mod:`.sections`). The page is HTML5 that is also well-formed XML, so tests parse it with the
standard library.

Modules: :mod:`.style` (the style sheet and the filter's rules), :mod:`.charts` (the SVG charts),
:mod:`.sections` (a check's section), :mod:`.markup` (elements, shortened ids). What a check
shows comes from :func:`~pytest_tempoeval.reports.check_data.check_data`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_tempoeval.reports.check_data import check_data, shown_order
from pytest_tempoeval.reports.html.markup import (
    breakable,
    element,
    number,
    plural,
    text,
)
from pytest_tempoeval.reports.html.overview import overview_chart, sparkline
from pytest_tempoeval.reports.html.sections import check_section
from pytest_tempoeval.reports.html.style import STYLE, filter_rules
from pytest_tempoeval.reports.text import checks_line
from pytest_tempoeval.session import CheckRow, CheckStatus


def render(
    rows: Sequence[CheckRow],
    judging: str | None = None,
    unused: Sequence[str] = (),
    crashed: Sequence[str] = (),
    trends: Sequence[Sequence[Mapping[str, Any]]] | None = None,
    notes: Sequence[str] = (),
) -> str:
    """The page. ``trends``: each row's points in the history (``--tempoeval-history``), in the
    rows' order; ``notes``: what reading the history skipped."""
    order = shown_order(rows)
    checks = [
        check_data(rows[i], number, trends[i] if trends else ())
        for number, i in enumerate(order, 1)
    ]
    tests = list(dict.fromkeys(check["test"] for check in checks))
    measures = list(dict.fromkeys(check["metric"] for check in checks))
    test_class = {test: f"t-{i}" for i, test in enumerate(tests, 1)}
    measure_class = {measure: f"m-{i}" for i, measure in enumerate(measures, 1)}

    def classes(check: Mapping[str, Any]) -> str:
        return f"st-{check['status']} {test_class[check['test']]} {measure_class[check['metric']]}"

    failed = bool(crashed) or any(not row.passed for row in rows)
    verdict = CheckStatus.FAIL if failed else CheckStatus.PASS
    choices = [("show-all", ""), ("show-failed", "st-FAIL")]
    choices += [(f"show-{name}", name) for name in test_class.values()]
    choices += [(f"show-{name}", name) for name in measure_class.values()]
    style = STYLE + filter_rules(choices)
    parts = [
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"/>',
        '<meta name="viewport" content="width=device-width, initial-scale=1"/>',
        f"<title>tempoeval report: {text(checks_line(rows))}</title>",
        f"<style>{style}</style></head><body><main>",
        _header(rows, verdict, judging, crashed, notes),
    ]
    parts.extend(
        element(
            "input",
            {
                "type": "radio",
                "name": "show",
                "id": radio,
                "class": "filter-state",
                "checked": radio == "show-all",
                "aria-label": _choice_label(radio, test_class, measure_class),
            },
        )
        for radio, _ in choices
    )
    if checks:
        parts.append(_filter(checks, test_class, measure_class))
        parts.append(
            element(
                "section",
                {"class": "overview"},
                element("div", {"class": "heading"}, element("h2", {}, "Overview") + _legend())
                + overview_chart(checks)
                + _summary_tables(checks, classes),
            )
        )
        sections = "\n".join(check_section(check, classes(check)) for check in checks)
        parts.append(
            element("section", {"class": "checks"}, element("h2", {}, "Checks") + sections)
        )
    if unused:
        listed = "".join(element("li", {}, element("code", {}, text(name))) for name in unused)
        parts.append(
            element(
                "section",
                {"class": "unused"},
                element("h2", {}, f"{len(unused)} unused baselines")
                + element(
                    "p", {"class": "note"}, "No selected test checked them; they were not deleted."
                )
                + element("ul", {}, listed),
            )
        )
    parts.append("</main></body></html>\n")
    return "\n".join(parts)


def _header(
    rows: Sequence[CheckRow],
    verdict: CheckStatus,
    judging: str | None,
    crashed: Sequence[str],
    notes: Sequence[str],
) -> str:
    failed = sum(not row.passed for row in rows)
    tests = len({row.test for row in rows})
    badge = element("span", {"class": f"badge {verdict}"}, text(verdict))
    line = (
        f"{badge} "
        + element("span", {"class": str(verdict)}, text(checks_line(rows, crashed)))
        + (f", {len(rows) - failed} passed, in {plural(tests, 'test')}" if rows else "")
        + "."
        + (f" {text(judging)}." if judging else "")
    )
    parts = [element("h1", {}, "tempoeval report"), element("p", {"class": "verdict-line"}, line)]
    parts.extend(element("p", {"class": "notes"}, text(note)) for note in notes)
    return element("header", {"class": "top"}, "".join(parts))


def _choice_label(
    radio: str, test_class: Mapping[str, str], measure_class: Mapping[str, str]
) -> str:
    name = radio.removeprefix("show-")
    for test, css in test_class.items():
        if css == name:
            return f"show the checks of {test}"
    for measure, css in measure_class.items():
        if css == name:
            return f"show the checks of {measure}"
    return f"show {name} checks"


def _filter(
    checks: Sequence[Mapping[str, Any]],
    test_class: Mapping[str, str],
    measure_class: Mapping[str, str],
) -> str:
    failed = sum(check["status"] == "FAIL" for check in checks)

    def chip(radio: str, label: str, title: str | None = None) -> str:
        return element("label", {"for": radio, "title": title}, label)

    def group(summary: str, chips: list[str]) -> str:
        return element(
            "details", {}, element("summary", {}, summary) + element("div", {}, "".join(chips))
        )

    by_test = [
        chip(f"show-{css}", text(test.rsplit("/", 1)[-1]), test) for test, css in test_class.items()
    ]
    by_measure = [chip(f"show-{css}", text(measure)) for measure, css in measure_class.items()]
    return element(
        "nav",
        {"class": "filter", "aria-label": "filter the checks"},
        element("span", {}, "Show:")
        + chip("show-all", f"all ({len(checks)})")
        + chip("show-failed", f"failed ({failed})")
        + group(f"by test ({len(test_class)})", by_test)
        + group(f"by measure ({len(measure_class)})", by_measure),
    )


def _legend() -> str:
    def key(css: str, label: str, style: str) -> str:
        swatch = element("span", {"class": css, "style": style}, "")
        return element("span", {}, swatch + text(label))

    return element(
        "p",
        {"class": "legend"},
        key("swatch", "score (red: failed)", "background:#1f6feb")
        + key("swatch tick", "threshold", "background:#1d2733")
        + key("swatch tick", "baseline", "background:#6e7781")
        + key("swatch tick", "drop allowed", "background:#f5d98b")
        + key("swatch tick", "drop", "background:#d1242f"),
    )


# (column, its share of the table's width, its cells' class): a fixed layout, so a long note
# wraps in its column instead of widening the table
_COLUMNS = (
    ("status", 4.5, "nowrap"),
    ("test", 22.0, "test"),
    ("measure", 11.5, "nowrap"),
    ("queries", 5.0, "num"),
    ("score", 5.5, "num"),
    ("check", 8.5, "nowrap"),
    ("baseline", 5.5, "num"),
    ("delta", 6.0, "num"),
    ("p", 5.5, "num"),
    ("trend", 6.0, "nowrap"),
    ("note", 20.0, "note"),
)


def _summary_tables(checks: Sequence[Mapping[str, Any]], classes: Any) -> str:
    """The table of every check, failures first. When some check failed, the checks that passed
    with nothing to note are folded below it: the failed checks' sections stay near the top.
    A check with a note (a query left out, a drift in time) is never folded."""
    if all(check["status"] == "pass" for check in checks):
        return _summary_table(checks, classes)
    shown = [check for check in checks if check["status"] != "pass" or check["note"]]
    quiet = [check for check in checks if check["status"] == "pass" and not check["note"]]
    table = _summary_table(shown, classes)
    if not quiet:
        return table
    summary = element(
        "summary", {}, f"{plural(len(quiet), 'more check')} passed with nothing to note"
    )
    return table + element(
        "details", {"class": "fold quiet"}, summary + _summary_table(quiet, classes)
    )


def _summary_table(checks: Sequence[Mapping[str, Any]], classes: Any) -> str:
    head = "".join(
        element(
            "th",
            {"class": "num" if css == "num" else None, "style": f"width:{share:g}%"},
            name,
        )
        for name, share, css in _COLUMNS
    )
    body = []
    for check in checks:
        queries = text(check["counted"]) + (
            element("span", {"class": "mode"}, f"+{check['excluded']} excl.")
            if check["excluded"]
            else ""
        )
        p_value = check["p_value"]
        test = check["test"]
        cells = [
            element("span", {"class": f"badge {check['status']}"}, text(check["status"])),
            element(
                "a",
                {"href": f"#{check['anchor']}", "title": test},
                breakable(test.rsplit("/", 1)[-1]),  # the folder is in the title
            ),
            text(check["metric"]) + element("span", {"class": "mode"}, text(check["mode"])),
            queries,
            number(check["score"]),
            text(threshold_cell_of(check)),
            number(check["baseline"]),
            number(check["delta"], True),
            "-" if p_value is None else f"{p_value:.4f}",
            sparkline(check["trend"]),
            text(check["note"]),
        ]
        body.append(
            element(
                "tr",
                {"class": f"row {classes(check)}"},
                "".join(
                    element("td", {"class": _cell_class(name, css, check)}, cell)
                    for (name, _, css), cell in zip(_COLUMNS, cells)
                ),
            )
        )
    return element("table", {"class": "summary"}, element("tr", {}, head) + "".join(body))


def _cell_class(name: str, css: str, check: Mapping[str, Any]) -> str:
    if name == "delta" and check["status"] == "FAIL":
        return "num FAIL"
    return css


def threshold_cell_of(check: Mapping[str, Any]) -> str:
    """``>= 0.85`` or ``drop <= 0.01``, as the terminal summary writes it."""
    return f"{check['op']} {check['threshold']:g}"
