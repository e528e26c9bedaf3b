"""The HTML report's overview chart (every check on one 0-1 scale) and the history's sparklines.

The overview's text alternative is the table below it; a sparkline's is its title.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pytest_tempoeval.constants import SCORE_TOLERANCE
from pytest_tempoeval.reports.html.markup import element, number, plural, shortened, text
from pytest_tempoeval.reports.html.svg import clamped, dot, line, picture, words

# -- the overview: one row per check -------------------------------------------------------------

OVERVIEW_WIDTH = 1200
_ROW = 14  # height of a row
_LABEL_END = 500  # labels end here (text-anchor end)
_PLOT = (512.0, 1000.0)  # x of 0 and of 1
_VALUES = 1012  # the score and the change are written from here
_TOP = 20  # the axis labels above the rows


def overview_chart(checks: Sequence[Mapping[str, Any]]) -> str:
    """Every check on one 0-1 scale, in the page's order (failures first): its score (a dot, red
    when it failed), its threshold (a black tick), its baseline (a grey tick) with the drop the
    gate allows (a pale band down to the floor) and the change (a red or green line). Each row
    links to the check's section."""
    low, high = _PLOT
    height = _TOP + _ROW * len(checks) + 6

    def x(value: float) -> float:
        return low + clamped(value) * (high - low)

    marks = []
    for level in (0.0, 0.25, 0.5, 0.75, 1.0):
        marks.append(line("grid", x(level), _TOP - 4, x(level), height - 4))
        marks.append(words(x(level), _TOP - 8, f"{level:g}", "middle"))
    marks.append(words(_LABEL_END, _TOP - 8, "check (failed first)", "end"))
    marks.append(words(_VALUES, _TOP - 8, "score, change"))
    for row, check in enumerate(checks):
        middle = _TOP + row * _ROW + _ROW / 2
        status = check["status"]
        label = _row_label(check)
        full = f"{check['test']} · {check['metric']} [{check['mode']}]"
        marks.append(
            element(
                "a",
                {"href": f"#{check['anchor']}"},
                words(
                    _LABEL_END,
                    middle + 4,
                    element("title", {}, text(full)) + text(label),
                    "end",
                    f"row-label {status}",
                ),
            )
        )
        marks.append(line("track", x(0), middle, x(1), middle))
        marks.extend(_overview_marks(check, middle, x))
        marks.append(words(_VALUES, middle + 4, text(_values(check)), css=f"value {status}"))
    return picture(
        OVERVIEW_WIDTH, height, f"overview of {plural(len(checks), 'check')}", "".join(marks)
    )


def _row_label(check: Mapping[str, Any], width: int = 78) -> str:
    """``T-nDCG@10 · test_merge_gate.py::test_reranker…`` within ``width`` characters."""
    metric = shortened(check["metric"], 30)
    test = check["test"].rsplit("/", 1)[-1]  # the module's folder is in the title
    return f"{metric} · {shortened(test, max(12, width - len(metric) - 3))}"


def _overview_marks(
    check: Mapping[str, Any], middle: float, x: Callable[[float], float]
) -> list[str]:
    marks = []
    score, baseline = check["score"], check["baseline"]
    verdict = "FAIL" if check["status"] == "FAIL" else str(check["status"])
    if check["gate"] and baseline is not None:
        floor = check["floor"]
        marks.append(
            element(
                "rect",
                {
                    "class": "allowed",
                    "x": f"{x(floor):.1f}",
                    "y": f"{middle - 5:.1f}",
                    "width": f"{max(x(baseline) - x(floor), 1):.1f}",
                    "height": 10,
                },
                element("title", {}, text(f"drop allowed: {check['threshold']:g}")),
            )
        )
        marks.append(
            line(
                "baseline",
                x(baseline),
                middle - 6,
                x(baseline),
                middle + 6,
                f"baseline {number(baseline)}",
            )
        )
        if score is not None and abs(score - baseline) > SCORE_TOLERANCE:
            kind = "drop" if score < baseline else "rise"
            marks.append(
                line(
                    kind,
                    x(baseline),
                    middle,
                    x(score),
                    middle,
                    f"change {number(score - baseline, True)}",
                )
            )
    elif not check["gate"]:
        marks.append(
            line(
                "tick-threshold",
                x(check["threshold"]),
                middle - 6,
                x(check["threshold"]),
                middle + 6,
                f"threshold {check['op']} {check['threshold']:g}",
            )
        )
    if score is not None:
        needed = (
            f"baseline {number(baseline)}, drop allowed {check['threshold']:g}"
            if check["gate"]
            else f"needs {check['op']} {check['threshold']:g}"
        )
        off = "" if 0 <= score <= 1 else " (off the 0-1 scale)"
        kind = "failed-dot" if verdict == "FAIL" else "passed-dot"
        marks.append(
            dot(
                kind,
                x(score),
                middle,
                4.5,
                f"{check['metric']}: {number(score)}{off}; {needed}: {verdict}",
            )
        )
    return marks


def _values(check: Mapping[str, Any]) -> str:
    score = number(check["score"])
    if check["delta"] is not None:
        return f"{score} ({number(check['delta'], True)})"
    return f"{score} ({check['op']} {check['threshold']:g})"


# -- the history's sparklines ----------------------------------------------------------------------

SPARK_WIDTH, SPARK_HEIGHT = 72, 18


def sparkline(points: Sequence[Mapping[str, Any]]) -> str:
    """A check's score over the sessions of the history, oldest first (scaled to its own range;
    the title lists every point). Empty with fewer than two sessions."""
    scored = [(i, p["score"]) for i, p in enumerate(points) if p["score"] is not None]
    if len(points) < 2 or not scored:
        return ""
    values = [score for _, score in scored]
    low, high = min(values), max(values)
    span = high - low

    def x(i: int) -> float:
        return 2 + i * (SPARK_WIDTH - 6) / max(len(points) - 1, 1)

    def y(value: float) -> float:
        return (
            SPARK_HEIGHT / 2
            if span <= SCORE_TOLERANCE
            else 2 + (high - value) / span * (SPARK_HEIGHT - 4)
        )

    path = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in scored)
    last_i, last = scored[-1]
    shown = ", ".join(
        f"{p['time'][:10]}{' ' + p['commit'][:7] if p['commit'] else ''}: {number(p['score'])}"
        for p in points
    )
    title = f"{plural(len(points), 'session')} (range {number(low)}-{number(high)}): {shown}"
    content = (
        element("title", {}, text(title))
        + element("polyline", {"class": "spark", "points": path})
        + element(
            "circle",
            {"class": "spark-end", "cx": f"{x(last_i):.1f}", "cy": f"{y(last):.1f}", "r": 2},
        )
    )
    return picture(
        SPARK_WIDTH,
        SPARK_HEIGHT,
        f"trend over {plural(len(points), 'session')}",
        content,
        "spark-svg",
    )
