"""Reading what documents and queries carry besides their text: dates that become focus times, and
the text a model sees.

BEIR corpora, ir_datasets documents, pandas records and framework retrievers all carry their own
fields; the rules for reading them are stated once, here.
"""

from __future__ import annotations

import datetime
import math
import numbers
from collections.abc import Mapping

from pytest_tempoeval.data.focus_time import MAX_YEAR, MIN_YEAR, FocusTime
from pytest_tempoeval.data.values import is_number, short_repr
from pytest_tempoeval.errors import FocusTimeError, TempoEvalError

# Fields read as a document's date, first found first: the names BEIR corpora, ir_datasets
# documents, LangChain/LlamaIndex metadata and common CMS exports use.
DATE_KEYS = (
    "focus_time",
    "date",
    "year",
    "published",
    "publication_date",
    "publish_date",
    "published_at",
    "pub_date",
    "created_at",
    "timestamp",
)
# Fields that hold years: read as FocusTime.parse reads them, so 0 or 20200 is an error.
YEAR_KEYS = frozenset({"focus_time", "year"})
# Fields where a number is a Unix timestamp (seconds since 1970-01-01 UTC); elsewhere a number is a
# year, so a year of 0 does not become 1970.
TIMESTAMP_KEYS = ("timestamp", "created_at", "published_at")
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


def date_focus_time(value: object, key: str = "date") -> FocusTime | None:
    """The focus time field ``key`` holding ``value`` gives, or None when it gives none.

    - a number is a year in 1..9999 (``2020``, or ``2020.0``: pandas stores a year column with an
      empty cell as floats), except under :data:`TIMESTAMP_KEYS`, where it is a Unix timestamp; a
      string that is a number (``"2020"``) is read as that number;
    - a ``date``/``datetime`` gives its year;
    - another string under ``year``/``focus_time`` is read as ``FocusTime.parse`` reads it
      ("2019-2021", "1990s"), elsewhere like text ("2020-05-17", "May 2020");
    - a list is the union of its items. NaN and NaT (pandas' empty cells) give None, and so does a
      boolean under a date field (a CMS's ``published: true``).

    A number that is not a year (``year: 0``, ``date: 20200``) or not a timestamp of one is a
    FocusTimeError saying what the field accepts; :func:`metadata_focus_time` names the record.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        if key in YEAR_KEYS or key in TIMESTAMP_KEYS:
            raise FocusTimeError(f"{key!r} is {value!r}, not a {_holds(key)}")
        return None
    if isinstance(value, (datetime.date, datetime.datetime)):
        year: object = value.year  # pandas' NaT is a datetime whose year is NaN
        return FocusTime.from_years([year]) if isinstance(year, int) else None
    if isinstance(value, str):
        if not value.strip():
            return None
        if not is_number(value):
            try:
                return FocusTime.parse(value)  # "2019-2021", "1990s"
            except FocusTimeError as error:
                if key in YEAR_KEYS:
                    raise FocusTimeError(f"{key!r}: {error}") from None
            return FocusTime.from_text(value) or None  # "2020-05-17", "May 17, 2020"
    if isinstance(value, (numbers.Real, str)):  # a string here is a number ("2020", "2020.0")
        try:
            number = float(value)
        except OverflowError:  # an int beyond float range
            number = math.inf
        return None if math.isnan(number) else _number_focus_time(value, number, key)
    if isinstance(value, (list, tuple, set, frozenset)):
        years: set[int] = set()
        for item in value:
            found = date_focus_time(item, key)
            if found:
                years |= found.years
        return FocusTime.from_years(years) if years else None
    return None


def _number_focus_time(value: object, number: float, key: str) -> FocusTime:
    """The year a number gives under ``key``: a timestamp's year, or the number itself."""
    if key in TIMESTAMP_KEYS:
        try:
            return FocusTime.from_years([(_EPOCH + datetime.timedelta(seconds=number)).year])
        except (OverflowError, ValueError):  # beyond year 9999 (or before 1), or not finite
            raise FocusTimeError(
                f"{key!r} is {_shown(value)}, not a {_holds(key)} (a timestamp in milliseconds "
                "must be divided by 1000)"
            ) from None
    if number.is_integer() and MIN_YEAR <= number <= MAX_YEAR:
        return FocusTime.from_years([int(number)])
    message = f"{key!r} is {_shown(value)}, not a {_holds(key)}"
    if key not in YEAR_KEYS:
        message += (
            f"; a number under {key!r} is read as a year: put a Unix timestamp under "
            f"{' or '.join(map(repr, TIMESTAMP_KEYS))}, or write the date as a string "
            "('2020-05-17')"
        )
    raise FocusTimeError(message)


def _holds(key: str) -> str:
    """What a number under ``key`` must be."""
    if key in TIMESTAMP_KEYS:
        return f"Unix timestamp (seconds since 1970) of a year in {MIN_YEAR}..{MAX_YEAR}"
    return f"year (a whole number in {MIN_YEAR}..{MAX_YEAR})"


def _shown(value: object) -> str:
    item = getattr(value, "item", None)  # a numpy number from a DataFrame: shown as the number
    return short_repr(item() if callable(item) and not isinstance(value, str) else value)


def metadata_focus_time(
    *sources: Mapping[str, object] | None,
    where: str = "",
    error: type[TempoEvalError] = FocusTimeError,
) -> FocusTime | None:
    """The focus time of the first date field (:data:`DATE_KEYS`) found in ``sources``.

    A field that cannot be read (``year: 0``) raises ``error`` starting with ``where`` (the file
    and line, the record, the document id)."""
    for source in sources:
        if not source:
            continue
        for key in DATE_KEYS:
            if key in source:
                try:
                    found = date_focus_time(source[key], key)
                except FocusTimeError as problem:
                    raise error(f"{where}: {problem}" if where else str(problem)) from None
                if found:
                    return found
    return None


def model_text(title: str | None, text: str | None) -> str | None:
    """The text a dense retriever embeds: title, a space, then the body (BEIR's convention)."""
    parts = [part for part in (title, text) if part]
    return " ".join(parts).strip() if parts else None
