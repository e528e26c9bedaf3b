"""Reading what documents and queries carry besides their text: dates that become focus times, and
the text a model sees.

BEIR corpora, ir_datasets documents, pandas records and framework retrievers all carry their own
fields; the rules for reading them are stated once, here.
"""

from __future__ import annotations

import datetime
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

    An int in 1..9999 is a year, a larger number a Unix timestamp; a ``date``/``datetime`` its
    year; a string is read like text ("2020-05-17", "May 2020", "2019-2021"); a list is the union of
    its items.
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (datetime.date, datetime.datetime)):
        return FocusTime.from_years([value.year])
    if isinstance(value, numbers.Real):
        if isinstance(value, numbers.Integral) and MIN_YEAR <= int(value) <= MAX_YEAR:
            return FocusTime.from_years([int(value)])
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
