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
from typing import Any

from pytest_tempoeval.data.focus_time import MAX_YEAR, MIN_YEAR, FocusTime
from pytest_tempoeval.errors import FocusTimeError

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


def date_focus_time(value: Any) -> FocusTime | None:
    """The focus time a date field gives, or None when it gives none.

    A whole number in 1..9999 (``2020`` or ``2020.0``) is a year, another number a Unix timestamp;
    a ``date``/``datetime`` gives its year; a string is read like text ("2020-05-17", "May 2020",
    "2019-2021"); a list is the union of its items. NaN and NaT (pandas' empty cells) give None.
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (datetime.date, datetime.datetime)):
        year = value.year  # pandas' NaT is a datetime whose year is NaN
        return FocusTime.from_years([year]) if isinstance(year, int) else None
    if isinstance(value, numbers.Real):
        number = float(value)
        if math.isnan(number):  # pandas' empty cell
            return None
        # 2020.0 is a year too: pandas stores a year column with an empty cell as floats.
        if number.is_integer() and MIN_YEAR <= number <= MAX_YEAR:
            return FocusTime.from_years([int(number)])
        try:
            year = datetime.datetime.fromtimestamp(float(value), tz=datetime.UTC).year
        except (OverflowError, OSError, ValueError):
            return None
        return FocusTime.from_years([year])
    if isinstance(value, str):
        try:
            return FocusTime.parse(value)  # "2020", "2019-2021", "1990s"
        except FocusTimeError:
            found = FocusTime.from_text(value)  # "2020-05-17", "May 17, 2020"
            return found or None
    if isinstance(value, (list, tuple, set, frozenset)):
        years: set[int] = set()
        for item in value:
            found = date_focus_time(item)
            if found:
                years |= found.years
        return FocusTime.from_years(years) if years else None
    return None


def metadata_focus_time(*sources: Mapping[str, Any] | None) -> FocusTime | None:
    """The focus time of the first date field (:data:`DATE_KEYS`) found in ``sources``."""
    for source in sources:
        if not source:
            continue
        for key in DATE_KEYS:
            if key in source:
                found = date_focus_time(source[key])
                if found:
                    return found
    return None


def model_text(title: str | None, text: str | None) -> str | None:
    """The text a dense retriever embeds: title, a space, then the body (BEIR's convention)."""
    parts = [part for part in (title, text) if part]
    return " ".join(parts).strip() if parts else None
