"""SVG primitives of the HTML report's charts: every chart is an inline SVG scaled to its
container (a ``viewBox``, no fixed width), and every mark has a ``<title>`` (what a hover shows and
a screen reader reads)."""

from __future__ import annotations

from pytest_tempoeval.reports.html.markup import element, text


def picture(width: float, height: float, label: str, content: str, css: str = "") -> str:
    return element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "viewBox": f"0 0 {width:g} {height:g}",
            "role": "img",
            "aria-label": label,
            "class": css or None,
            "preserveAspectRatio": "xMinYMin meet",
        },
        content,
    )


def line(kind: str, x1: float, y1: float, x2: float, y2: float, title: str | None = None) -> str:
    coordinates = {"x1": f"{x1:.1f}", "y1": f"{y1:.1f}", "x2": f"{x2:.1f}", "y2": f"{y2:.1f}"}
    content = None if title is None else element("title", {}, text(title))
    return element("line", {"class": kind, **coordinates}, content)


def words(x: float, y: float, content: str, anchor: str = "start", css: str | None = None) -> str:
    place = {"x": f"{x:.1f}", "y": f"{y:.1f}", "text-anchor": anchor, "class": css}
    return element("text", place, content)


def dot(kind: str, x: float, y: float, radius: float, title: str) -> str:
    point = {"class": kind, "cx": f"{x:.1f}", "cy": f"{y:.1f}", "r": f"{radius:g}"}
    return element("circle", point, element("title", {}, text(title)))


def clamped(value: float) -> float:
    return max(0.0, min(1.0, value))
