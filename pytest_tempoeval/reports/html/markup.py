"""Markup helpers of the HTML report: elements with escaped attributes, ids shortened in the middle
(the full id in a ``title``), numbers as every report writes them.

The page is HTML5 that is also well-formed XML: void HTML elements and SVG shapes close
themselves, every other element has an end tag, attribute values are quoted and escaped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from html import escape

from pytest_tempoeval.metrics.explain import format_score

ID_CHARS = 24  # an id longer than this is shown shortened in the middle, whole in its title
TEST_CHARS = 64  # a test id longer than this, likewise


def element(
    tag: str, attributes: Mapping[str, object] | None = None, content: str | None = None
) -> str:
    """An element; attribute values are escaped here (an attribute whose value is None or False is
    left out, True writes its name), ``content`` is markup already. No content makes a
    self-closing element (void HTML elements, SVG shapes); other HTML elements pass "" at least."""
    attrs = ""
    for name, value in (attributes or {}).items():
        if value is None or value is False:
            continue
        attrs += f' {name}="{escape(name if value is True else str(value))}"'
    return f"<{tag}{attrs}/>" if content is None else f"<{tag}{attrs}>{content}</{tag}>"


def text(value: object) -> str:
    return escape(str(value))


def shortened(identifier: str, limit: int = ID_CHARS) -> str:
    """``identifier`` cut in the middle to ``limit`` characters (``3f2a9c…c81e0b``), or whole."""
    if len(identifier) <= limit:
        return identifier
    head = (limit - 1) // 2 + (limit - 1) % 2
    tail = limit - 1 - head
    return f"{identifier[:head]}…{identifier[-tail:] if tail else ''}"


def short_id(identifier: str, limit: int = ID_CHARS, tag: str = "code") -> str:
    """An id as the page shows it: whole, or shortened in the middle with the full id in a
    ``title`` (hover, and read by screen readers)."""
    shown = shortened(identifier, limit)
    title = identifier if shown != identifier else None
    return element(tag, {"title": title}, text(shown))


def number(value: float | None, signed: bool = False) -> str:
    """4 decimals; "-" for none; signed deltas use a minus sign, not a hyphen."""
    if value is None:
        return "-"
    if signed:
        return f"{value:+.4f}".replace("-", "−")
    return format_score(value)


def plural(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else (many or one + 's')}"


def p_value(value: float | None) -> str:
    """``= 0.0744``, ``< 0.0001``; "" for none."""
    if value is None:
        return ""
    return "< 0.0001" if value < 0.0001 else f"= {value:.4f}"


def breakable(identifier: str) -> str:
    """``identifier`` escaped, with a line-break opportunity after each ``::``, ``/``, ``_``,
    ``.`` and ``-``: a long test id wraps between its words, not inside them."""
    return re.sub(r"(::|[/_.\-])", r"\1<wbr/>", text(identifier))
