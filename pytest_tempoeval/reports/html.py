"""``--tempoeval-html=PATH``: one self-contained page (no scripts, fonts or links to fetch).

Per metric check: a summary line, an inline-SVG chart of per-query scores (queries sorted by their
baseline score, or by score when there is no baseline; baseline scores as grey ticks, current ones
as dots, queries that dropped in red, joined to their baseline by a line) and a table of the worst
queries with what they retrieved. The markup is well-formed XML, so tests parse it with the stdlib.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from pytest_tempoeval.constants import SCORE_TOLERANCE
from pytest_tempoeval.metrics.explain import (
    format_offset,
    format_relevance,
    format_score,
    format_years,
    temporal_line,
)
from pytest_tempoeval.reports.text import checks_line, delta_cell, optional_number, threshold_cell
from pytest_tempoeval.session import CheckRow, CheckStatus

WIDTH, HEIGHT, MARGIN = 760, 220, 36
MAX_POINTS = 2000  # past this, every query that dropped is drawn but the others are sampled

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 62em; color: #1d2733; }
h1 { font-size: 1.6em; } h2 { font-size: 1.1em; margin-top: 2.2em; }
table { border-collapse: collapse; margin: .6em 0; }
td, th { padding: .25em .6em; text-align: left; }
th { border-bottom: 2px solid #c9d1d9; } tr + tr td { border-top: 1px solid #e6e9ed; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.nowrap { white-space: nowrap; } td.id { min-width: 20em; overflow-wrap: anywhere; }
.FAIL { color: #b42318; font-weight: 600; } .pass { color: #1a7f37; }
.note { color: #5b6673; } code { font-size: .92em; }
svg { background: #fafbfc; border: 1px solid #e6e9ed; }
svg .grid { stroke: #e6e9ed; } svg text { font-size: 11px; fill: #5b6673; }
svg .baseline { stroke: #8c959f; stroke-width: 2; } svg .current { fill: #1f6feb; }
svg .regressed { fill: #d1242f; } svg .drop { stroke: #d1242f; stroke-width: 1; opacity: .6; }
.legend span { margin-right: 1.2em; }
.swatch { display: inline-block; width: .8em; height: .8em; margin-right: .3em; }
"""


def render(
    rows: Sequence[CheckRow],
    judging: str | None = None,
    unused: Sequence[str] = (),
    crashed: Sequence[str] = (),
) -> str:
    failed = crashed or any(not row.passed for row in rows)
    verdict = CheckStatus.FAIL if failed else CheckStatus.PASS
    parts = [
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"/>',
        "<title>tempoeval report</title>",
        f"<style>{STYLE}</style></head><body>",
        "<h1>tempoeval</h1>",
        f'<p><span class="{verdict}">{escape(checks_line(rows, crashed))}</span>.'
        + (f" {escape(judging)}." if judging else "")
        + "</p>",
        _summary_table(rows),
    ]
    if unused:
        parts.append(
            f"<h2>{len(unused)} unused baselines</h2>"
            '<p class="note">No selected test checked them; they were not deleted.</p><ul>'
        )
        parts.extend(f"<li><code>{escape(name)}</code></li>" for name in unused)
        parts.append("</ul>")
    parts.extend(_section(number, row) for number, row in enumerate(rows, 1))
    parts.append("</body></html>\n")
    return "\n".join(parts)


_SUMMARY_CLASSES = ("id", "nowrap", "", "num", "nowrap", "num", "num", "num", "nowrap")


def _summary_table(rows: Sequence[CheckRow]) -> str:
    head = "".join(
        f"<th>{name}</th>"
        for name in ("test", "metric", "mode", "score", "check", "baseline", "delta", "p", "status")
    )
    body = []
    for number, row in enumerate(rows, 1):
        cells = [
            f'<a href="#check-{number}">{escape(row.test)}</a>',
            escape(row.metric),
            escape(row.mode),
            format_score(row.score),
            escape(threshold_cell(row)),
            optional_number(row.baseline),
            delta_cell(row.delta),
            optional_number(row.p_value),
            _element("span", {"class": row.status}, row.status)
            + " "
            + _element("span", {"class": "note"}, escape(row.note)),
        ]
        body.append(
            "<tr>"
            + "".join(f'<td class="{_SUMMARY_CLASSES[i]}">{c}</td>' for i, c in enumerate(cells))
            + "</tr>"
        )
    return f'<table class="summary"><tr>{head}</tr>{"".join(body)}</table>'


def _section(number: int, row: CheckRow) -> str:
    title = (
        f"{escape(row.test)} — {escape(row.metric)} [{escape(row.mode)}]: {format_score(row.score)}"
    )
    parts = [
        f'<section class="check" id="check-{number}">',
        f'<h2>{title} <span class="{row.status}">{row.status}</span></h2>',
        f"<p>{row.counted} queries counted, {row.excluded} excluded. {escape(_verdict(row))}</p>",
    ]
    if row.filled is not None:  # gold mode with fill=llm: what the judge filled, per query
        parts.append(_filled_line(row.filled))
    if row.temporal is not None:  # the temporal diagnostics: where in time the top k are
        parts.append(_element("p", {"class": "temporal"}, escape(temporal_line(row.temporal))))
    if row.per_query:
        parts.append(chart(row))
    if row.worst:
        parts.append(_worst_table(row))
    parts.append("</section>")
    return "\n".join(parts)


def _filled_line(filled: Mapping[str, Any]) -> str:
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
    text = f"Grades filled by the judge ({filled['model']}): {grades or 'none'}"
    if unjudged:
        text += f". Unjudged without text: {unjudged}"
    return _element("p", {"class": "filled"}, escape(text))


def _verdict(row: CheckRow) -> str:
    if row.baseline is None:
        return f"Needed {row.op} {row.threshold:g}." if row.op != "drop <=" else "Baseline written."
    p = "" if row.p_value is None else f", p = {row.p_value:.4g}"
    return (
        f"Baseline {row.baseline:.4f}, delta {row.delta:+.4f}{p}, "
        f"drop allowed {row.threshold:g}. {row.note}"
    ).strip()


def chart(row: CheckRow) -> str:
    """Per-query scores as an inline SVG (y: 0 to 1; x: queries, worst baseline first)."""
    baseline = row.baseline_per_query
    queries = sorted(row.per_query, key=lambda q: (baseline.get(q, row.per_query[q]), q))
    dropped = {
        q for q in queries if q in baseline and row.per_query[q] < baseline[q] - SCORE_TOLERANCE
    }
    if len(queries) > MAX_POINTS:
        step = len(queries) / MAX_POINTS
        kept = {queries[int(i * step)] for i in range(MAX_POINTS)} | dropped
        queries = [q for q in queries if q in kept]
    plot_w, plot_h = WIDTH - 2 * MARGIN, HEIGHT - 2 * MARGIN

    def x(i: int) -> float:
        return MARGIN + (i + 0.5) * plot_w / max(len(queries), 1)

    def y(score: float) -> float:
        return MARGIN + (1 - max(0.0, min(1.0, score))) * plot_h

    marks = []
    for level in (0.0, 0.25, 0.5, 0.75, 1.0):
        marks.append(_segment("grid", MARGIN, WIDTH - MARGIN, y(level), y(level)))
        label = {"x": MARGIN - 6, "y": f"{y(level) + 4:.1f}", "text-anchor": "end"}
        marks.append(_element("text", label, f"{level:g}"))
    radius = 3.5 if len(queries) <= 200 else 2.0
    for i, query in enumerate(queries):
        score, cx = row.per_query[query], x(i)
        if query in baseline:
            old = baseline[query]
            marks.append(_segment("baseline", cx - radius, cx + radius, y(old), y(old)))
            if query in dropped:
                marks.append(_segment("drop", cx, cx, y(old), y(score)))
            tip = f"{query}: {old:.4f} → {score:.4f}"
        else:
            tip = f"{query}: {score:.4f}"
        kind = "regressed" if query in dropped else "current"
        point = {"class": kind, "cx": f"{cx:.1f}", "cy": f"{y(score):.1f}", "r": radius}
        marks.append(_element("circle", point, _element("title", {}, escape(tip))))
    caption = "queries, lowest baseline first" if baseline else "queries, lowest score first"
    place = {"x": f"{WIDTH / 2:.0f}", "y": HEIGHT - 8, "text-anchor": "middle"}
    marks.append(_element("text", place, f"{caption} ({len(row.per_query)})"))
    keys = [_swatch("#1f6feb", "score")]
    if baseline:
        keys += [_swatch("#8c959f", "baseline"), _swatch("#d1242f", f"dropped ({len(dropped)})")]
    svg = {
        "xmlns": "http://www.w3.org/2000/svg",
        "width": WIDTH,
        "height": HEIGHT,
        "viewBox": f"0 0 {WIDTH} {HEIGHT}",
        "role": "img",
        "aria-label": f"per-query scores of {row.metric}",
    }
    return _element("svg", svg, "".join(marks)) + _element("p", {"class": "legend"}, "".join(keys))


def _element(tag: str, attributes: Mapping[str, object], content: str | None = None) -> str:
    """An element; attribute values are escaped here, ``content`` is markup already. No content
    makes a self-closing element (SVG shapes); HTML elements pass "" at least."""
    attrs = "".join(f' {name}="{escape(str(value))}"' for name, value in attributes.items())
    return f"<{tag}{attrs}/>" if content is None else f"<{tag}{attrs}>{content}</{tag}>"


def _segment(kind: str, x1: float, x2: float, y1: float, y2: float) -> str:
    coordinates = {"x1": x1, "x2": x2, "y1": y1, "y2": y2}
    return _element("line", {"class": kind} | {k: f"{v:.1f}" for k, v in coordinates.items()})


def _swatch(color: str, label: str) -> str:
    swatch = _element("span", {"class": "swatch", "style": f"background:{color}"}, "")
    return f"<span>{swatch}{escape(label)}</span>"


def _worst_table(row: CheckRow) -> str:
    head: tuple[str, ...] = ("query", "score", "baseline", "retrieved (relevance)", "ideal")
    temporal = row.temporal is not None
    if temporal:
        head += _TEMPORAL_COLUMNS
    lines = ['<table class="worst"><tr>' + "".join(f"<th>{name}</th>" for name in head) + "</tr>"]
    for entry in row.worst:
        query = entry["query"]
        old = row.baseline_per_query.get(query)
        lines.append(
            "<tr>"
            f'<td><code>{escape(query)}</code></td><td class="num">{entry["score"]:.4f}</td>'
            f'<td class="num">{optional_number(old)}</td>'
            f"<td>{_ranking(entry['retrieved'])}</td><td>{_ranking(entry['ideal'])}</td>"
            + (_temporal_cells(entry.get("temporal")) if temporal else "")
            + "</tr>"
        )
    lines.append("</table>")
    return "".join(lines)


_TEMPORAL_COLUMNS = ("years", "mean offset (years)", "from the future")


def _temporal_cells(figures: Mapping[str, Any] | None) -> str:
    """A worst query's years, mean offset and documents from the future (of those with a focus
    time in its top k), with those without one counted; "-" where a figure does not exist."""
    if figures is None:
        return "<td>-</td>" * len(_TEMPORAL_COLUMNS)
    offset = figures["mean_offset"]
    future = "-" if offset is None else f"{figures['future']} of {figures['dated']}"
    undated = figures["retrieved"] - figures["dated"]
    if undated:
        future += f" ({undated} without a focus time)"
    return (
        f'<td class="nowrap">{escape(format_years(figures["years"]))}</td>'
        f'<td class="num">{"-" if offset is None else format_offset(offset)}</td>'
        f"<td>{escape(future)}</td>"
    )


def _ranking(pairs: list[list[object]]) -> str:
    if not pairs:
        return '<span class="note">(nothing)</span>'
    shown = []
    for doc, relevance in pairs:
        grade = relevance if isinstance(relevance, float | int) else None
        shown.append(f"<code>{escape(str(doc))}</code>({format_relevance(grade)})")
    return " ".join(shown)
