"""The HTML report's per-check charts: each check's per-query chart (its text alternative is
the table :mod:`.sections` folds under it) and a small chart per period of a check by period.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_tempoeval.constants import SCORE_TOLERANCE
from pytest_tempoeval.reports.html.markup import element, number, plural, shortened, text
from pytest_tempoeval.reports.html.svg import clamped, dot, line, picture, words

MAX_POINTS = 2000  # past this, every query that dropped is drawn but the others are sampled
LABELLED = 3  # the worst and the best queries named under a per-query chart, and the worst drops
LABEL_ROWS = 2  # rows of query names under a per-query chart; a name that fits none is left out


# -- a check's per-query chart -------------------------------------------------------------------

CHART_WIDTH = 1200
CHART_LEFT, CHART_RIGHT = 40.0, 1192.0  # the plot's x range
CHART_TOP, CHART_PLOT = 8.0, 92.0  # the plot's top and height
_NAME_ROW = 13.0  # height of a row of query names under the plot


@dataclass(frozen=True)
class QueryChart:
    """What a per-query chart drew, for its table behind the fold."""

    svg: str
    legend: str
    queries: list[str]  # drawn, left to right
    dropped: set[str]


def query_chart(check: Mapping[str, Any]) -> QueryChart:
    """Per-query scores (y: 0 to 1, with the threshold or the gate's floor; x: queries, lowest
    baseline first, or lowest score without one): scores as dots, baseline scores as grey ticks,
    queries that dropped in red joined to their baseline tick. The worst and best queries, and
    the largest drops, are named under the plot."""
    scores: Mapping[str, float] = check["per_query"]
    baseline: Mapping[str, float] = check["baseline_per_query"]
    queries = sorted(scores, key=lambda q: (baseline.get(q, scores[q]), q))
    dropped = {q for q in queries if q in baseline and scores[q] < baseline[q] - SCORE_TOLERANCE}
    if len(queries) > MAX_POINTS:
        step = len(queries) / MAX_POINTS
        kept = {queries[int(i * step)] for i in range(MAX_POINTS)} | dropped
        queries = [q for q in queries if q in kept]
    values = [*scores.values(), *baseline.values()]
    low, high = min(0.0, *values) if values else 0.0, max(1.0, *values) if values else 1.0
    bottom = CHART_TOP + CHART_PLOT

    def x(i: int) -> float:
        return CHART_LEFT + (i + 0.5) * (CHART_RIGHT - CHART_LEFT) / max(len(queries), 1)

    def y(score: float) -> float:
        return bottom - (score - low) / (high - low) * CHART_PLOT

    marks = []
    ends = (low, high)  # always labelled: 0 and 1 for a score in [0, 1]
    threshold_y = _threshold_label_y(check, y, [y(level) for level in ends])
    for level in dict.fromkeys((low, 0.0, 0.5, 1.0, high)):
        marks.append(line("grid", CHART_LEFT, y(level), CHART_RIGHT, y(level)))
        if level in ends or threshold_y is None or abs(y(level) + 4 - threshold_y) >= 10:
            marks.append(words(CHART_LEFT - 5, y(level) + 4, f"{level:g}", "end"))
    marks.append(line("axis", CHART_LEFT, CHART_TOP, CHART_LEFT, bottom))
    marks.append(line("axis", CHART_LEFT, bottom, CHART_RIGHT, bottom))
    marks.extend(_threshold_marks(check, y, threshold_y))
    radius = 3.5 if len(queries) <= 200 else 2.0
    for i, query in enumerate(queries):
        score, cx = scores[query], x(i)
        if query in baseline:
            old = baseline[query]
            tip = f"{query}: {old:.4f} → {score:.4f}"
            marks.append(line("baseline", cx - radius, y(old), cx + radius, y(old), tip))
            if query in dropped:
                marks.append(line("drop", cx, y(old), cx, y(score), tip))
        else:
            tip = f"{query}: {score:.4f}"
        kind = "regressed" if query in dropped else "current"
        marks.append(dot(kind, cx, y(score), radius, tip))
    names, rows = _query_names(check, queries, dropped, x, y, bottom)
    marks.extend(names)
    svg = picture(
        CHART_WIDTH,
        bottom + 8 + _NAME_ROW * rows,
        f"per-query scores of {check['metric']}",
        "".join(marks),
        "query-chart",
    )
    legend = _legend(check, bool(baseline), len(dropped), len(scores))
    return QueryChart(svg, legend, queries, dropped)


def _threshold_level(check: Mapping[str, Any]) -> float | None:
    """Where the threshold's line is: the threshold, or a baseline check's floor (its baseline
    mean less the drop allowed); None when there is none to draw."""
    level = check["floor"] if check["gate"] else check["threshold"]
    return level if level is not None and math.isfinite(level) else None


def threshold_words(check: Mapping[str, Any]) -> str:
    if check["gate"]:
        return (
            f"floor {number(check['floor'])} = baseline mean {number(check['baseline'])} − "
            f"{check['threshold']:g} allowed"
        )
    return f"threshold {check['op']} {check['threshold']:g}"


def _threshold_label_y(
    check: Mapping[str, Any], y: Callable[[float], float], ends: Sequence[float]
) -> float | None:
    """Where the threshold's value is written on the y axis: beside its line, or moved clear of
    the labels of the axis's ends (0 and 1) when its line is close to one."""
    level = _threshold_level(check)
    if level is None:
        return None
    place = y(level) + 4
    top_end, bottom_end = min(ends) + 4, max(ends) + 4
    if abs(place - top_end) < 10:
        place = top_end + 10
    elif abs(place - bottom_end) < 10:
        place = bottom_end - 10
    return place


def _threshold_marks(
    check: Mapping[str, Any], y: Callable[[float], float], label_y: float | None
) -> list[str]:
    """The threshold's dashed line, and its value on the y axis (with 0 and 1)."""
    level = _threshold_level(check)
    if level is None or label_y is None:
        return []
    label = threshold_words(check)
    shown = f"{level:.3f}".rstrip("0").rstrip(".") if level != int(level) else f"{level:g}"
    return [
        line("threshold", CHART_LEFT, y(level), CHART_RIGHT, y(level), label),
        words(CHART_LEFT - 5, label_y, element("title", {}, text(label)) + shown, "end", "label"),
    ]


def _query_names(
    check: Mapping[str, Any],
    queries: Sequence[str],
    dropped: set[str],
    x: Callable[[int], float],
    y: Callable[[float], float],
    bottom: float,
) -> tuple[list[str], int]:
    """The names of the worst and best queries and of the largest drops, under the plot in up to
    LABEL_ROWS rows (each where it does not overlap another), with a leader to its dot."""
    scores, baseline = check["per_query"], check["baseline_per_query"]
    by_score = sorted(queries, key=lambda q: (scores[q], q))
    by_drop = sorted(dropped, key=lambda q: (scores[q] - baseline[q], q))
    wanted = list(
        dict.fromkeys([*by_drop[:LABELLED], *by_score[:LABELLED], *by_score[::-1][:LABELLED]])
    )
    position = {query: i for i, query in enumerate(queries)}
    taken: list[list[tuple[float, float]]] = [[] for _ in range(LABEL_ROWS)]
    marks, used_rows = [], 0
    for query in wanted:
        cx = x(position[query])
        name = shortened(query, 18)
        half = 3.2 * len(name) + 4
        left = max(CHART_LEFT, min(cx - half, CHART_RIGHT - 2 * half))
        span = (left, left + 2 * half)
        row = next(
            (r for r in range(LABEL_ROWS) if all(span[1] < a or span[0] > b for a, b in taken[r])),
            None,
        )
        if row is None:
            continue
        taken[row].append(span)
        used_rows = max(used_rows, row + 1)
        label_y = bottom + 4 + _NAME_ROW * (row + 1)
        score = scores[query]
        marks.append(line("leader", cx, y(score) + 4, cx, label_y - 10))
        title = element("title", {}, text(f"{query}: {score:.4f}"))
        marks.append(words(left + half, label_y, title + text(name), "middle", "label"))
    return marks, used_rows


def _legend(check: Mapping[str, Any], baseline: bool, dropped: int, queries: int) -> str:
    def key(color: str, label: str, tick: bool = False) -> str:
        swatch = element(
            "span",
            {"class": "swatch tick" if tick else "swatch", "style": f"background:{color}"},
            "",
        )
        return element("span", {}, swatch + text(label))

    keys = [key("#1f6feb", "score")]
    if baseline:
        keys += [key("#6e7781", "baseline", tick=True), key("#d1242f", f"dropped ({dropped})")]
    if _threshold_level(check) is not None:
        keys.append(key("#1d2733", threshold_words(check), tick=True))
    order = "lowest baseline first" if baseline else "lowest score first"
    keys.append(element("span", {}, f"x: {plural(queries, 'query', 'queries')}, {order}"))
    return element("p", {"class": "legend"}, "".join(keys))


# -- a small chart per period --------------------------------------------------------------------

PERIOD_WIDTH, PERIOD_HEIGHT = 320, 92


def period_chart(check: Mapping[str, Any], period: Mapping[str, Any]) -> str:
    """One period's queries of a check by period: baseline ticks and current dots, drops in red,
    on a 0-1 axis; its figcaption says the period's means and verdict."""
    scores, baseline = check["per_query"], check["baseline_per_query"]
    ids = [q for q in period["ids"] if q in baseline]
    ids.sort(key=lambda q: (baseline[q], q))
    left, right, top, plot = 22.0, PERIOD_WIDTH - 4.0, 6.0, PERIOD_HEIGHT - 14.0

    def x(i: int) -> float:
        return left + (i + 0.5) * (right - left) / max(len(ids), 1)

    def y(value: float) -> float:
        return top + (1 - clamped(value)) * plot

    marks = []
    for level in (0.0, 1.0):
        marks.append(line("grid", left, y(level), right, y(level)))
        marks.append(words(left - 4, y(level) + 4, f"{level:g}", "end"))
    for i, query in enumerate(ids):
        old, new = baseline[query], scores.get(query, 0.0)
        tip = f"{query}: {old:.4f} → {new:.4f}"
        marks.append(line("baseline", x(i) - 3, y(old), x(i) + 3, y(old), tip))
        fell = new < old - SCORE_TOLERANCE
        if fell:
            marks.append(line("drop", x(i), y(old), x(i), y(new), tip))
        marks.append(dot("regressed" if fell else "current", x(i), y(new), 2.6, tip))
    means = (
        f"{number(period['baseline'])} → {number(period['current'])}"
        if period["baseline"] is not None and period["current"] is not None
        else ""
    )
    p = "" if period["p_value"] is None else f", p = {period['p_value']:.3g}"
    queries = plural(period["queries"], "query", "queries")
    caption = f"{period['period']}: {means} ({queries}{p}; {period['status']})"
    svg = picture(PERIOD_WIDTH, PERIOD_HEIGHT, f"queries about {period['period']}", "".join(marks))
    css = "regressed" if period["status"] == "regressed" else None
    return element("figure", {"class": css}, svg + element("figcaption", {}, text(caption)))
