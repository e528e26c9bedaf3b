"""Readings of a text's years that a person should check: what ``tempoeval check --years`` flags.

When a gold query gives no ``focus_time``, its focus time is read from its text by
``FocusTime.from_text``. Each rule here flags a reading that may not be what the writer meant;
none changes the reading. The rules, with examples, are in ``docs/focus-time.md``
(``tempoeval check --years``).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from pytest_tempoeval.data.focus_time import (
    RELATIVE_KINDS,
    FocusTime,
    TextReading,
    text_readings,
)

__all__ = ["DOUBT_KINDS", "Doubt", "year_doubts"]

# Each kind of doubt, and the question it asks.
DOUBT_KINDS = {
    "relative": "a relative phrase (last year, since 2015, recently): a gold set has no date to "
    "resolve it against",
    "quantity": "a number read as a year that may be a count or a measure (2000 people)",
    "possessive": "a year or a decade written with 's (2020's election, the 1990's)",
    "hundreds": "a round hundred (the 1900s: the nineteen-hundreds, or the decade 1900-1909?)",
    "two_digit": "a two-digit year or decade of '20-'29, read as 2020-2029 (or the 1920s?)",
    "nothing_read": "no year read from a text with numbers or words of time",
    "several_periods": "several separate periods, which the temporal measures use as one",
}


class Doubt(NamedTuple):
    kind: str  # a key of DOUBT_KINDS
    message: str  # what was read, why it may be wrong, what to do


_GIVE = "give the query a focus_time"
# Words about time that name no year: nothing resolves them in a gold set.
_VAGUE = re.compile(
    r"\b(?:recent(?:ly)?|current(?:ly)?|today|nowadays|now|latest|upcoming|these\s+days|so\s+far)\b",
    re.IGNORECASE,
)
# A word after a number that says the number counts: a lowercase plural ("2000 people"; not a
# capitalised name: "2020 Olympics").
_PLURAL_AFTER = re.compile(r"\s+(?:[a-z]*[a-rt-z]s|people|men|women|children)\b")
# Words before a number that make it a year rather than a count ("in 2020 votes were cast").
_YEAR_BEFORE = re.compile(
    r"\b(?:the|in|on|of|since|during|by|before|after|until|till|from|to|for|around|circa|c\.)\s*$",
    re.IGNORECASE,
)
# Words before a number that make it a count: "over 1000 reviews", "top 2020 movies"?
_COUNT_BEFORE = re.compile(
    r"\b(?:over|under|about|approximately|roughly|some|up\s+to|top|bottom|only|just)\s+$",
    re.IGNORECASE,
)
_ROUND_HUNDREDS = re.compile(r"\d\d00['‘’]?s", re.IGNORECASE)
_POSSESSIVE_S = re.compile(r"['‘’]s\b", re.IGNORECASE)
# What a text must hold for "no year read" to be worth a look: a number of 2 to 4 digits, or a
# word of time.
_NUMBER = re.compile(r"(?<![\d.,])\d{2,4}(?![\d]|[.,]\d)")
_TIME_WORDS = re.compile(
    r"\b(?:years?|decades?|century|centuries|era|annual(?:ly)?|anniversary|seasons?|twenties)\b",
    re.IGNORECASE,
)
_TWO_DIGIT_KINDS = frozenset(("short_decade", "the_decade", "short_year", "event_year"))


def year_doubts(text: str) -> list[Doubt]:
    """The doubts about the years ``FocusTime.from_text(text)`` reads, in the order of the text
    (a relative phrase, a quantity, ...), then about the reading as a whole."""
    readings = text_readings(text)
    doubts: list[Doubt] = []
    for reading in readings:
        doubts.extend(_reading_doubts(text, reading))
    for vague in _VAGUE.finditer(text):
        doubts.append(Doubt("relative", f'"{vague[0]}" is relative and names no year: {_GIVE}'))
    years = FocusTime(year for reading in readings for year in reading.years)
    if not years and not any(doubt.kind == "relative" for doubt in doubts):
        clue = _NUMBER.search(text) or _TIME_WORDS.search(text)
        if clue is not None:
            doubts.append(
                Doubt(
                    "nothing_read",
                    f'no year is read, though the text has "{clue[0]}": if the query is about a '
                    f"time, {_GIVE}",
                )
            )
    periods = _periods(years)
    if periods > 1:
        doubts.append(
            Doubt(
                "several_periods",
                f"read as {periods} separate periods ({years}), which the temporal "
                f"measures use as one focus time: if the query is about one of them, {_GIVE}",
            )
        )
    return doubts


def _reading_doubts(text: str, reading: TextReading) -> list[Doubt]:
    kind, words, years = reading.kind, reading.text, FocusTime(reading.years)
    if kind in RELATIVE_KINDS:
        if years:  # "since 2015", read as 2015 alone
            return [
                Doubt(
                    "relative",
                    f'"{words}" is open-ended: read as {years} alone, as a gold set has no date '
                    f"to end it: {_GIVE}",
                )
            ]
        return [
            Doubt(
                "relative",
                f'"{words}" is relative to a date a gold set does not give: it adds no year: '
                f"{_GIVE}",
            )
        ]
    if kind == "year":
        return _quantity_doubt(text, reading)
    if kind == "possessive":
        return [
            Doubt(
                "possessive",
                f'"{words}" is read as the year {years} (a possessive); if the decade '
                f"{years}-{years.max + 9 if years.max else ''} is meant, write "
                f'"{words[:4]}s" or {_GIVE}',
            )
        ]
    doubts: list[Doubt] = []
    if kind == "decade" and _POSSESSIVE_S.search(words):
        doubts.append(
            Doubt(
                "possessive",
                f'"{words}" is read as the decade {years}; if the year {words[:4]} is meant '
                f"(a possessive), {_GIVE}",
            )
        )
    if kind in ("decade", "decade_range", "between_decades") and (
        hundreds := _ROUND_HUNDREDS.search(words)
    ):
        start = int(hundreds[0][:4])
        if start == 2000:
            told = f'"{hundreds[0]}" is read as the decade 2000-2009; if 2000-2099 is meant'
        else:
            told = (
                f'"{hundreds[0]}" is read as {start}-{start + 99} (the hundred years); if the '
                f"decade {start}-{start + 9} is meant"
            )
        doubts.append(Doubt("hundreds", f"{told}, {_GIVE}"))
    if kind in _TWO_DIGIT_KINDS and years.min is not None and 2020 <= years.min <= 2029:
        meant = f"the {years.min - 100}s are" if len(years) == 10 else f"{years.min - 100} is"
        doubts.append(
            Doubt(
                "two_digit",
                f"\"{words}\" is read as {years} (two-digit years '00-'29 are 2000-2029, "
                f"'30-'99 1930-1999); if {meant} meant, {_GIVE}",
            )
        )
    return doubts


def _quantity_doubt(text: str, reading: TextReading) -> list[Doubt]:
    before = text[max(0, reading.start - 40) : reading.start]  # the words just before
    after = _PLURAL_AFTER.match(text, reading.start + len(reading.text))
    counted = _COUNT_BEFORE.search(before)
    if counted is None and (after is None or _YEAR_BEFORE.search(before)):
        return []
    shown = f"{counted[0] if counted else ''}{reading.text}{after[0] if after else ''}".strip()
    number = int(reading.text)
    return [
        Doubt(
            "quantity",
            f'"{shown}": {number} is read as a year; if it counts, write "{number:,}" or {_GIVE}',
        )
    ]


def _periods(years: FocusTime) -> int:
    """How many runs of consecutive years ``years`` holds."""
    ordered = list(years)
    return sum(1 for before, year in zip([None, *ordered], ordered) if before != year - 1)
