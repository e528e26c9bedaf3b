"""Slices by period: which period each query is about, and a result's score per period.

``result.by_period("decade")`` groups a result's queries by the start year of their focus time (the
one the gold set gives, or the one read from the query's text when it gives none: the
``GoldQuery.focus_time`` the temporal measures read) and returns one result per period
(:class:`Periods`). A query about several periods ("1995-2005") belongs to the period of its
start year, so each query is counted once. A query with no focus time goes to the period
``"no focus time"``, shown like the others, never dropped.

How to slice (:func:`as_slicing`): ``"year"``, ``"decade"`` (``1990-1999``), ``"century"``
(``1900-1999``: the hundred years sharing their first two digits, as decades share three; the
ordinal 20th century, 1901-2000, starts in 1901 and so falls in it),
boundary years such as ``[1990, 2000, 2010]`` (``before 1990``, ``1990-1999``, ``2000-2009``,
``2010 and later``), or a function from a gold query to its period's label.

Light on purpose (no numpy): ``options.py`` reads the ini key ``tempoeval_by_period`` with
:func:`as_slicing` at start-up. It does not import :mod:`.results` (which imports it): it builds
each period's result with the result's own ``only`` method.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, Self, TypeVar

from pytest_tempoeval.errors import MetricError, closest_match

if TYPE_CHECKING:
    from pytest_tempoeval.data.gold_schema import GoldQuery

NO_FOCUS_TIME = "no focus time"  # the period of a query with no focus time
NAMED = ("year", "decade", "century")
_SPAN = {"decade": 10, "century": 100}
_FIRST_YEAR, _LAST_YEAR = 1, 9999  # FocusTime's bounds (data.focus_time MIN_YEAR, MAX_YEAR)
_HOW = (
    "by_period takes 'year', 'decade', 'century', boundary years in ascending order such as "
    "[1990, 2000, 2010] (or the string '1990, 2000, 2010'), or a function from a gold query to "
    "its period's label"
)

PeriodLabeller = Callable[["GoldQuery"], str]
PeriodSlicing = str | Sequence[int] | PeriodLabeller


@dataclass(frozen=True)
class Slicing:
    """How queries are grouped into periods, checked (:func:`as_slicing`)."""

    kind: str  # "year", "decade", "century", "boundaries" or "function"
    boundaries: tuple[int, ...] = ()
    function: PeriodLabeller | None = None

    @property
    def description(self) -> str:
        """``decade``, ``boundaries 1990, 2000, 2010``, ``era_of()``: what the reports say."""
        if self.kind == "boundaries":
            return "boundaries " + ", ".join(map(str, self.boundaries))
        if self.function is not None:
            return f"{getattr(self.function, '__name__', 'a function')}()"
        return self.kind

    @property
    def by_year(self) -> bool:
        """Whether a period follows from the start year alone (not from a function)."""
        return self.function is None

    def period_of_year(self, start: int | None) -> str:
        """The label of the period a focus time starting in ``start`` belongs to."""
        if start is None:
            return NO_FOCUS_TIME
        if self.kind == "year":
            return str(start)
        if self.kind in _SPAN:
            span = _SPAN[self.kind]
            first = start - start % span
            return _span_label(max(first, _FIRST_YEAR), first + span - 1)
        bounds = self.boundaries
        if start < bounds[0]:
            return f"before {bounds[0]}"
        if start >= bounds[-1]:
            return f"{bounds[-1]} and later"
        upper = next(bound for bound in bounds if bound > start)
        lower = max(bound for bound in bounds if bound <= start)
        return _span_label(lower, upper - 1)

    def period_of(self, query: GoldQuery) -> str:
        """The label of the period ``query`` is about; a function's errors are worded here."""
        if self.function is None:
            return self.period_of_year(start_year(query))
        try:
            label: object = self.function(query)
        except Exception as error:  # noqa: BLE001 - the user's function: named with its query
            problem = f"{type(error).__name__}: {error}"
        else:
            if isinstance(label, str) and label.strip():
                return label
            problem = f"returned {label!r}, not a non-empty string"
        raise MetricError(
            f"by_period: {self.description} {problem} for query {query.id!r}; the function must "
            f"return a label (a non-empty string) for every gold query, e.g. {NO_FOCUS_TIME!r} "
            "for a query whose focus_time is None"
        )


def _span_label(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}-{last}"


def start_year(query: GoldQuery | None) -> int | None:
    """The first year of the query's focus time (None: no focus time, or an empty one)."""
    focus = None if query is None else query.focus_time
    return None if focus is None else focus.min


def as_slicing(by: object) -> Slicing:
    """``by`` checked: a :class:`Slicing`, or a :class:`MetricError` saying what to pass."""
    if isinstance(by, Slicing):
        return by
    if isinstance(by, str):
        word = by.strip().lower()
        if word in NAMED:
            return Slicing(word)
        if re.fullmatch(r"[\d\s,]+", word) and re.search(r"\d", word):
            return _boundaries([int(year) for year in re.findall(r"\d+", word)], by)
        close = closest_match(word, NAMED)
        hint = f" (did you mean {close!r}?)" if close else ""
        raise MetricError(f"by_period: unknown period {by!r}{hint}; {_HOW}")
    if isinstance(by, (list, tuple)):
        return _boundaries(list(by), by)
    if callable(by):
        return Slicing("function", function=by)
    raise MetricError(f"by_period: cannot slice by {by!r} ({type(by).__name__}); {_HOW}")


def _boundaries(years: list[object], given: object) -> Slicing:
    if not years:
        raise MetricError(f"by_period: no boundary years in {given!r}; {_HOW}")
    for year in years:
        if (
            isinstance(year, bool)
            or not isinstance(year, numbers.Integral)
            or not _FIRST_YEAR <= int(year) <= _LAST_YEAR
        ):
            raise MetricError(
                f"by_period: boundary {year!r} in {given!r} is not a year from {_FIRST_YEAR} to "
                f"{_LAST_YEAR}; {_HOW}"
            )
    bounds = [int(year) for year in years]  # type: ignore[call-overload]
    repeated = sorted({year for year in bounds if bounds.count(year) > 1})
    if repeated:
        raise MetricError(
            f"by_period: boundary {repeated[0]} is given twice in {given!r}; give each boundary "
            f"year once, in ascending order: {sorted(set(bounds))}"
        )
    if bounds != sorted(bounds):
        raise MetricError(
            f"by_period: boundaries {given!r} are not in ascending order; write them "
            f"{sorted(bounds)}"
        )
    return Slicing("boundaries", boundaries=tuple(bounds))


def period_phrase(label: str) -> str:
    """How a period is named in sentences: ``queries about 1990-1999``, ``queries with no focus
    time``, ``queries about years before 1990``."""
    if label == NO_FOCUS_TIME:
        return "queries with no focus time"
    if label.startswith("before ") and label[7:].isdigit():
        return f"queries about years {label}"
    return f"queries about {label}"


# -- grouping --------------------------------------------------------------------------------------


def group_queries(
    periods: Mapping[str, str], starts: Mapping[str, int | None]
) -> dict[str, list[str]]:
    """Query ids by period label (``periods``: query -> label), the periods in time order: by
    the earliest start year of their queries (``starts``), ties by label; periods whose queries
    have no start year after the others, and ``no focus time`` last."""
    groups: dict[str, list[str]] = {}
    earliest: dict[str, int | None] = {}
    for query, label in periods.items():
        groups.setdefault(label, []).append(query)
        start = starts.get(query)
        if start is not None:
            known = earliest.get(label)
            earliest[label] = start if known is None else min(known, start)

    def order(label: str) -> tuple[bool, bool, int, str]:
        first = earliest.get(label)  # periods by year are disjoint: their queries' order is theirs
        return (label == NO_FOCUS_TIME, first is None, first or 0, label)

    return {label: groups[label] for label in sorted(groups, key=order)}


def query_periods(
    slicing: Slicing, queries: Mapping[str, GoldQuery], query_ids: Collection[str], what: str
) -> tuple[dict[str, str], dict[str, int | None]]:
    """Each query's period and start year, read from the gold set's ``queries``; a
    :class:`MetricError` naming ``what`` (the result) when one is not a query of the gold set."""
    missing = [query for query in query_ids if query not in queries]
    if missing:
        shown = ", ".join(map(repr, missing[:3]))
        raise MetricError(
            f"{what} cannot be sliced by period: {len(missing)} of its query ids are not queries "
            f"of its gold set ({shown}); by_period reads each gold query's focus time"
        )
    starts = {query: start_year(queries[query]) for query in query_ids}
    return {query: slicing.period_of(queries[query]) for query in query_ids}, starts


class Sliceable(Protocol):
    """What slicing reads of a result (a MetricResult: not imported, it imports this module)."""

    @property
    def label(self) -> str: ...
    @property
    def per_query(self) -> Mapping[str, float]: ...
    @property
    def excluded(self) -> Mapping[str, str]: ...
    @property
    def gold_set(self) -> Any: ...
    def only(self, queries: Collection[str], period: str) -> Self: ...
    def __float__(self) -> float: ...


R = TypeVar("R", bound=Sliceable)


def slice_by_period(result: R, by: PeriodSlicing | Slicing) -> Periods[R]:
    """``result.by_period(by)``: one result per period, in time order."""
    slicing = as_slicing(by)
    gold = result.gold_set
    if gold is None:
        raise MetricError(
            f"{result.label} cannot be sliced by period: it was not computed from a gold set "
            "(a result built by hand, or one that crossed a process); slice the result a metric "
            "function returns"
        )
    scored = result.per_query
    ids = [*scored, *(query for query in result.excluded if query not in scored)]
    periods, starts = query_periods(slicing, gold.queries, ids, result.label)
    groups = group_queries(periods, starts)
    return Periods(
        result,
        slicing,
        {label: result.only(queries, label) for label, queries in groups.items()},
    )


class Periods(Mapping[str, R], Generic[R]):
    """A result sliced by period: period label -> that period's result (a ``MetricResult`` over
    its queries: its mean, count and excluded queries), in time order, ``no focus time`` last.

    ``periods["1990-1999"] >= 0.6`` checks one period as any result is checked; ``.overall`` is
    the result sliced; ``str(periods)`` is a table of every period."""

    def __init__(self, overall: R, slicing: Slicing, results: dict[str, R]) -> None:
        self.overall, self.slicing, self._results = overall, slicing, results

    @property
    def by(self) -> str:
        """How the queries were sliced: ``decade``, ``boundaries 1990, 2000``, ``era_of()``."""
        return self.slicing.description

    def __getitem__(self, period: str) -> R:
        try:
            return self._results[period]
        except KeyError:
            raise KeyError(
                f"no period {period!r} in {self.overall.label} by {self.by}; its periods: "
                f"{', '.join(map(repr, self._results)) or 'none'}"
            ) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._results)

    def __len__(self) -> int:
        return len(self._results)

    def table(self) -> str:
        """One line per period: its mean, queries counted and excluded."""
        width = max([len(label) for label in self._results] + [len("period")])
        lines = [
            (
                f"{self.overall.label} by {self.by} (each query in the period of its focus "
                "time's start year)"
            ),
            f"  {'period':<{width}}  {'score':>6}  queries  excluded",
        ]
        for label, result in self._results.items():
            value = float(result)
            shown = "nan" if math.isnan(value) else f"{value:.4f}"
            lines.append(
                f"  {label:<{width}}  {shown:>6}  {len(result.per_query):>7}  "
                f"{len(result.excluded):>8}"
            )
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        inner = ", ".join(
            f"{label!r}: {float(result):.4f} ({len(result.per_query)} queries)"
            for label, result in self._results.items()
        )
        return f"Periods({self.overall.label} by {self.by}: {{{inner}}})"
