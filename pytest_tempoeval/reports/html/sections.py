"""The HTML report's section for one check: a ``<details>`` (open when the check failed) with its
verdict, its per-query chart and that chart's table behind a fold, a small chart per period, what
changed for the queries that dropped (old and new top k side by side), and its worst queries.

Rankings show their top ``RANKED_SHOWN`` documents and fold the rest; each document has its
relevance, its years and, in llm mode, the judge's reason for its grade.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_tempoeval.metrics.explain import (
    format_offset,
    format_relevance,
    format_years,
    temporal_line,
)
from pytest_tempoeval.reports.html.charts import QueryChart, period_chart, query_chart
from pytest_tempoeval.reports.html.markup import (
    TEST_CHARS,
    element,
    number,
    p_value,
    plural,
    short_id,
    shortened,
    text,
)
from pytest_tempoeval.reports.html.overview import sparkline

RANKED_SHOWN = 5  # documents of a ranking shown; the rest of its top k is behind a fold


def check_section(check: Mapping[str, Any], classes: str) -> str:
    """One check's ``<details>``: ``classes`` are the filter's (status, test, measure)."""
    facts = [element("p", {"class": "verdict"}, text(_verdict(check)))]
    if check["filled"] is not None:  # gold mode with fill=llm: what the judge filled, per query
        facts.append(element("p", {"class": "filled"}, text(filled_words(check["filled"]))))
    if check["temporal"] is not None:  # the temporal diagnostics: where in time the top k are
        facts.append(element("p", {"class": "temporal"}, text(temporal_line(check["temporal"]))))
    if len(check["trend"]) > 1:  # its sparkline is in the summary
        facts.append(
            element("p", {"class": "trend"}, f"History: {text(_trend_words(check['trend']))}.")
        )
    parts = [element("div", {"class": "facts"}, " ".join(facts))]
    chart = query_chart(check) if check["per_query"] else None
    if chart is not None:
        parts.append(element("figure", {"class": "chart"}, chart.svg + chart.legend))
    if check["periods"]:
        parts.append(_periods_block(check))
    # the rest folded, side by side while closed: the check's chart and the next check stay close
    folds = []
    if chart is not None:
        folds.append(_chart_table(check, chart))
    if check["changes"]:
        folds.append(_changes_block(check))
    if check["worst"]:
        folds.append(_worst_block(check))
    if folds:
        parts.append(element("div", {"class": "folds"}, "".join(folds)))
    attributes = {
        "class": f"check row {classes}",
        "id": check["anchor"],
        "open": check["status"] != "pass",
    }
    body = element("div", {"class": "body"}, "\n".join(parts))
    return element("details", attributes, element("summary", {}, _summary(check)) + body)


def _summary(check: Mapping[str, Any]) -> str:
    """``FAIL T-nDCG@10 [focus_time] 0.4433: baseline 0.7666, −0.3233 · test``, as a heading."""
    status = check["status"]
    if check["baseline"] is not None:
        compared = f"baseline {number(check['baseline'])}, {number(check['delta'], True)}" + (
            "" if check["p_value"] is None else f", p {p_value(check['p_value'])}"
        )
    elif check["gate"]:
        compared = "baseline written"
    else:
        compared = f"needs {check['op']} {check['threshold']:g}"
    heading = (
        element("span", {"class": f"badge {status}"}, text(status))
        + f" {text(check['metric'])} "
        + element("span", {"class": "muted"}, f"[{text(check['mode'])}]")
        + f" {number(check['score'])} "
        + element("span", {"class": "muted"}, f"({text(compared)})")
        + " · "
        + short_id(check["test"], TEST_CHARS, "span")
        + (" " + spark if (spark := sparkline(check["trend"])) else "")
    )
    return element("h2", {}, heading)


def _verdict(check: Mapping[str, Any]) -> str:
    counted = f"{check['counted']} queries counted, {check['excluded']} excluded. " + _compared(
        check
    )
    return counted.strip()


def _compared(check: Mapping[str, Any]) -> str:
    if check["baseline"] is None:
        return (
            f"Needed {check['op']} {check['threshold']:g}. {check['note']}"
            if not check["gate"]
            else f"Baseline written. {check['note']}"
        )
    p = "" if check["p_value"] is None else f", p {p_value(check['p_value'])}"
    return (
        f"Baseline {check['baseline']:.4f}, delta {check['delta']:+.4f}{p}, "
        f"drop allowed {check['threshold']:g}. {check['note']}"
    )


def filled_words(filled: Mapping[str, Any]) -> str:
    """``Grades filled by the judge (model): q1 2 (d9 2, d4 0), q2 1 (d3 1); unjudged without
    text: q1 d7``: one small line per check."""
    per_query = filled["per_query"]
    grades = "; ".join(
        f"{query} {len(fill['filled'])} ("
        + ", ".join(f"{doc} {grade}" for doc, grade in fill["filled"].items())
        + ")"
        for query, fill in per_query.items()
        if fill["filled"]
    )
    unjudged = "; ".join(
        f"{query} {', '.join([*fill['without_text'], *fill['no_query_text']])}"
        for query, fill in per_query.items()
        if fill["without_text"] or fill["no_query_text"]
    )
    words = f"Grades filled by the judge ({filled['model']}): {grades or 'none'}"
    if unjudged:
        words += f". Unjudged without text: {unjudged}"
    return words + "."


def _trend_words(trend: Sequence[Mapping[str, Any]]) -> str:
    first, last = trend[0]["score"], trend[-1]["score"]
    return f"{number(first)} → {number(last)} over {plural(len(trend), 'session')}"


# -- the per-query chart and its table -----------------------------------------------------------


def _chart_table(check: Mapping[str, Any], chart: QueryChart) -> str:
    """The per-query chart's text alternative: its queries and scores as a table, folded."""
    scores, baseline = check["per_query"], check["baseline_per_query"]
    head = [
        "query",
        *(["baseline"] if baseline else []),
        "score",
        *(["change"] if baseline else []),
    ]
    rows = []
    for query in chart.queries:
        cells = [element("td", {}, short_id(query))]
        if baseline:
            cells.append(element("td", {"class": "num"}, number(baseline.get(query))))
        cells.append(element("td", {"class": "num"}, number(scores[query])))
        if baseline:
            old = baseline.get(query)
            change = None if old is None else scores[query] - old
            css = "num FAIL" if query in chart.dropped else "num"
            cells.append(element("td", {"class": css}, number(change, True)))
        rows.append(element("tr", {}, "".join(cells)))
    drawn = len(chart.queries)
    table = _table("chart-data", head, rows, numeric=set(head) - {"query"})
    return _fold(f"The chart as a table ({plural(drawn, 'query', 'queries')})", table)


def _fold(summary: str, content: str, css: str = "") -> str:
    return element(
        "details",
        {"class": f"fold {css}".strip()},
        element("summary", {}, summary) + content,
    )


def _periods_block(check: Mapping[str, Any]) -> str:
    charts = "".join(period_chart(check, period) for period in check["periods"])
    return element("h3", {}, "By period") + element("div", {"class": "periods"}, charts)


# -- what changed ----------------------------------------------------------------------------------


def _changes_block(check: Mapping[str, Any]) -> str:
    changes = check["changes"]
    stored = any(change["rankings_stored"] for change in changes)
    shown = f"{plural(check['dropped'], 'query', 'queries')} dropped"
    if check["dropped"] > len(changes):
        shown += f", the {len(changes)} largest shown"
    largest = ", ".join(
        f"{shortened(change['query'], 20)} {number(change['baseline'])} → {number(change['score'])}"
        for change in changes[:2]
    )
    parts = []
    if not stored:
        parts.append(
            element(
                "p",
                {"class": "note"},
                "The baseline stores no rankings: set ini "
                "<code>tempoeval_baseline_rankings = true</code> and re-baseline to see each "
                "query's old top k beside the new one.",
            )
        )
    head = ["query", "years", "baseline", "now", "change"]
    head += ["top k in the baseline", "top k now"] if stored else ["top k now"]
    rows = []
    for change in changes:
        years = change.get("doc_years", {})
        reasons = change.get("reasons", {})
        new_ids = [doc for doc, _ in change["retrieved"]]
        old_ids = change["baseline_top"]
        cells = [
            element("td", {}, short_id(change["query"])),
            element("td", {"class": "years"}, text(_query_years(change))),
            element("td", {"class": "num"}, number(change["baseline"])),
            element("td", {"class": "num"}, number(change["score"])),
            element(
                "td", {"class": "num FAIL"}, number(change["score"] - change["baseline"], True)
            ),
        ]
        if stored:
            if old_ids is None:
                old_cell = element("span", {"class": "note"}, "not stored for this query")
            else:
                old_cell = ranking(
                    [[doc, None] for doc in old_ids],
                    years,
                    {},
                    left=set(old_ids) - set(new_ids),
                    graded=False,
                )
            cells.append(element("td", {}, old_cell))
        entered = set(new_ids) - set(old_ids) if old_ids is not None else set()
        new_cell = ranking(change["retrieved"], years, reasons, entered=entered)
        if not change["counted"]:
            new_cell += element("p", {"class": "note"}, "no longer counted: scored 0")
        cells.append(element("td", {}, new_cell))
        rows.append(element("tr", {}, "".join(cells)))
    parts.append(_table("changes", head, rows, numeric={"baseline", "now", "change"}))
    summary = f"What changed: {shown} ({text(largest)}{', …' if len(changes) > 2 else ''})"
    return _fold(summary, "".join(parts), "changes")


def _query_years(entry: Mapping[str, Any]) -> str:
    temporal = entry.get("temporal")
    return "-" if temporal is None else format_years(temporal["years"])


# -- the worst queries -----------------------------------------------------------------------------

_TEMPORAL_HEAD = ("years", "mean offset (years)", "from the future")


def _worst_block(check: Mapping[str, Any]) -> str:
    temporal = check["temporal"] is not None
    head = ["query", "score", "baseline", "retrieved (relevance)", "ideal"]
    if temporal:
        head += _TEMPORAL_HEAD
    rows = []
    for entry in check["worst"]:
        years = entry.get("doc_years", {})
        reasons = entry.get("reasons", {})
        cells = [
            element("td", {}, short_id(entry["query"])),
            element("td", {"class": "num"}, f"{entry['score']:.4f}"),
            element(
                "td", {"class": "num"}, number(check["baseline_per_query"].get(entry["query"]))
            ),
            element("td", {}, ranking(entry["retrieved"], years, reasons)),
            element("td", {}, ranking(entry["ideal"], years, reasons)),
        ]
        if temporal:
            cells.extend(_temporal_cells(entry.get("temporal")))
        rows.append(element("tr", {}, "".join(cells)))
    title = f"The worst {plural(len(check['worst']), 'query', 'queries')}, what they retrieved"
    numeric = {"score", "baseline", "mean offset (years)"}
    return _fold(title, _table("worst", head, rows, numeric=numeric), "worst")


def _temporal_cells(figures: Mapping[str, Any] | None) -> list[str]:
    """A worst query's years, mean offset and documents from the future (of those with a focus
    time in its top k), with those without one counted; "-" where a figure does not exist."""
    if figures is None:
        return [element("td", {}, "-")] * len(_TEMPORAL_HEAD)
    offset = figures["mean_offset"]
    future = "-" if offset is None else f"{figures['future']} of {figures['dated']}"
    undated = figures["retrieved"] - figures["dated"]
    if undated:
        future += f" ({undated} without a focus time)"
    return [
        element("td", {"class": "years"}, text(format_years(figures["years"]))),
        element("td", {"class": "num"}, "-" if offset is None else format_offset(offset)),
        element("td", {}, text(future)),
    ]


# -- rankings --------------------------------------------------------------------------------------


def ranking(
    pairs: Sequence[Sequence[Any]],
    years: Mapping[str, str | None],
    reasons: Mapping[str, str],
    entered: set[str] | None = None,
    left: set[str] | None = None,
    graded: bool = True,
) -> str:
    """A ranking as an ordered list: each document's id (shortened in the middle, whole in its
    title), its relevance (``?``: unknown; none shown for a ranking that is not ``graded``), its
    years, the judge's reason, and whether it entered or left the top k; the top RANKED_SHOWN, the
    rest folded."""
    if not pairs:
        return element("span", {"class": "note"}, "(nothing)")
    items = []
    for doc, relevance in pairs:
        doc = str(doc)
        css, mark = None, ""
        if entered and doc in entered:
            css, mark = "entered", element("span", {"class": "mark entered"}, "new")
        elif left and doc in left:
            css, mark = "left", element("span", {"class": "mark left"}, "out")
        grade = ""
        if graded:
            value = relevance if isinstance(relevance, float | int) else None
            grade = element("span", {"class": "grade"}, f"({format_relevance(value)})")
        shown_years = years.get(doc)
        year = (
            " " + element("span", {"class": "years"}, text(format_years(shown_years, 2)))
            if shown_years
            else ""
        )
        reason = reasons.get(doc)
        why = element("span", {"class": "reason"}, text(reason)) if reason else ""
        items.append(
            element("li", {"class": css}, f"{short_id(doc)}{grade}{year} {mark}{why}".rstrip())
        )
    shown = element("ol", {"class": "ranking"}, "".join(items[:RANKED_SHOWN]))
    if len(items) <= RANKED_SHOWN:
        return shown
    rest = element(
        "ol", {"class": "ranking", "start": RANKED_SHOWN + 1}, "".join(items[RANKED_SHOWN:])
    )
    more = element("summary", {}, f"{len(items) - RANKED_SHOWN} more")
    return shown + element("details", {"class": "fold"}, more + rest)


def _table(css: str, head: Sequence[str], rows: Sequence[str], numeric: set[str]) -> str:
    header = "".join(
        element("th", {"class": "num" if name in numeric else None}, text(name)) for name in head
    )
    return element("table", {"class": css}, element("tr", {}, header) + "".join(rows))
