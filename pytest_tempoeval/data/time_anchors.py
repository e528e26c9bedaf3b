"""A gold query's required time anchors, ``key_time_anchors`` (TempoEval's field of that name):
read from a gold set file and checked on :class:`~.gold_schema.GoldQuery` objects. T-AnchorF1
scores the top k's years against them; ``docs/gold-set.md`` documents the key.

Each anchor is one focus time (a year, a range, a decade, a century). An anchor is a unit: a query
covers the anchor ``1990s`` with any one of its years, so anchors written together in one string
("1945, 1990s") would be one easier anchor; such an item is refused, not merged.
"""

from __future__ import annotations

from collections.abc import Iterable
from numbers import Integral
from typing import Any

from pytest_tempoeval.data.focus_time import FocusTime
from pytest_tempoeval.data.readers.structured import LineList, shown
from pytest_tempoeval.errors import FocusTimeError, GoldSetError, located

ANCHOR_FORMS = (
    "a year (1945), a range ('1939-1945'), a decade ('1990s') or a century ('19th century')"
)


def read_time_anchors(value: Any, line: int | None, path: str, owner: str) -> tuple[FocusTime, ...]:
    """The anchors of a file's ``key_time_anchors`` list, each once, in order; ``()`` when the key
    is absent. A bad value is a :class:`GoldSetError` naming its line and the query (``owner``)."""
    if value is None:
        return ()
    if not isinstance(value, LineList):
        raise GoldSetError(
            located(
                path,
                line,
                f"{owner}: key_time_anchors must be a list of time anchors, each {ANCHOR_FORMS}; "
                f"got {shown(value)} (one anchor is a list of one: [{shown(value)}])",
            )
        )
    anchors: dict[FocusTime, None] = {}  # each once: TempoEval compares them as a set
    for item, item_line in zip(value, value.item_lines):
        problem = None
        if isinstance(item, bool) or not isinstance(item, (Integral, str)):
            problem = "is not a year or a string"
        elif isinstance(item, str) and "," in item:
            problem = "holds several anchors: write each as its own item"
        else:
            try:
                anchors[FocusTime.parse(item if isinstance(item, str) else int(item))] = None
                continue
            except FocusTimeError:
                problem = "is not a time anchor this plugin reads (years run from 1 to 9999)"
        raise GoldSetError(
            located(
                path,
                item_line or line,
                f"{owner}: key_time_anchors item {shown(item)} {problem}; each item is "
                f"{ANCHOR_FORMS}",
            )
        )
    return tuple(anchors)


def check_time_anchors(queries: Iterable[tuple[str, int | None, object]], path: str) -> None:
    """Each (query id, line, key_time_anchors) of queries built in Python: the anchors are a tuple
    of non-empty FocusTime objects (a file's loader reads them from years and strings)."""
    for query_id, line, anchors in queries:
        if anchors and not (
            isinstance(anchors, tuple)
            and all(isinstance(anchor, FocusTime) and anchor for anchor in anchors)
        ):
            message = (
                f"query {query_id!r}: key_time_anchors must be a tuple of non-empty FocusTime "
                f"objects, one per anchor (FocusTime.parse('1990s')), got {anchors!r}"
            )
            raise GoldSetError(located(path, line, message))
