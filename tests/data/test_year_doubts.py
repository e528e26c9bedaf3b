"""Tests of pytest_tempoeval.data.year_doubts: which readings of a text's years are flagged."""

from __future__ import annotations

import pytest

from pytest_tempoeval.data.year_doubts import DOUBT_KINDS, year_doubts


def kinds(text: str) -> list[str]:
    return [doubt.kind for doubt in year_doubts(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # relative phrases: a gold set has no reference year
        ("Who won last year's election?", ["relative"]),
        ("the past five years", ["relative"]),
        ("the last decade", ["relative"]),
        ("two years ago", ["relative"]),
        ("a year ago", ["relative"]),
        ("the next 3 years", ["relative"]),
        ("since 2015", ["relative"]),
        ("recently released films", ["relative"]),
        ("the current president", ["relative"]),
        ("who is the president now", ["relative"]),
        ("Today's weather", ["relative"]),
        # numbers read as years that may count
        ("2000 people attended", ["quantity"]),
        ("over 1000 reviews", ["quantity"]),
        ("about 1900 men", ["quantity"]),
        ("top 2020 movies", ["quantity"]),
        ("1500 essays", ["quantity"]),
        # possessives, either reading
        ("Who won 2020's election?", ["possessive"]),
        ("the 1990's", ["possessive"]),
        ("1990's and 2000's", ["possessive", "possessive", "hundreds"]),
        # round hundreds
        ("the 1900s", ["hundreds"]),
        ("the 2000s", ["hundreds"]),
        ("from the 1800s to the 1900s", ["hundreds"]),
        # two-digit years at the pivot
        ("the '20s", ["two_digit"]),
        ("the crash of '29", ["two_digit"]),
        ("World Cup 22", ["two_digit"]),
        # nothing read from a text with numbers or words of time
        ("top 10 movies", ["nothing_read"]),
        ("Apollo 11 crew", ["nothing_read"]),
        ("3000 BC pyramids", ["nothing_read"]),
        ("what year did the war end", ["nothing_read"]),
        ("the roaring twenties", ["nothing_read"]),
        # several periods
        ("elections in 2016 and 2020", ["several_periods"]),
        ("the 1990s and 2010", ["several_periods"]),
    ],
)
def test_doubtful_readings_are_flagged(text: str, expected: list[str]) -> None:
    assert kinds(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Who won the US presidential election in 2020?",
        "best pizza in town",
        "in 2020 votes were counted",  # "in": a year
        "the 2016 elections",  # "the": a year
        "2020 Olympics",  # a capitalised name
        "2020 class of students",  # "class" ends in ss: not a plural
        "top 1000 companies in 2010",  # "top 1000" counts: no year read from it
        "from 1990 to 1995",  # one period
        "the 1990s",
        "the '90s",
        "the '30s",  # the pivot is far
        "Class of '08",
        "2019's best films",  # only a round decade's possessive is either
        "the 19th century",
        "2019-20 season",
        "FY2020 budget",
    ],
)
def test_plain_readings_are_not_flagged(text: str) -> None:
    assert year_doubts(text) == []


def test_every_kind_is_declared_and_explained() -> None:
    seen = {
        kind
        for text in (
            "last year",
            "2000 people",
            "2020's election",
            "the 1900s",
            "the '20s",
            "top 10",
            "1990 and 2010",
        )
        for kind in kinds(text)
    }
    assert seen == set(DOUBT_KINDS)


def test_messages_say_what_was_read_and_what_to_do() -> None:
    (possessive,) = year_doubts("Who won 2020's election?")
    assert possessive.message == (
        '"2020\'s" is read as the year 2020 (a possessive); if the decade 2020-2029 is meant, '
        'write "2020s" or give the query a focus_time'
    )
    (relative,) = year_doubts("since 2015")
    assert '"since 2015" is open-ended: read as 2015 alone' in relative.message
    (quantity,) = year_doubts("2000 people attended")
    assert quantity.message.startswith('"2000 people": 2000 is read as a year')
    assert 'write "2,000"' in quantity.message
    (two_digit,) = year_doubts("the crash of '29")
    assert "if 1929 is meant" in two_digit.message
    (decade,) = year_doubts("the '20s")
    assert "if the 1920s are meant" in decade.message
    (hundreds,) = year_doubts("the 1900s")
    assert '"1900s" is read as 1900-1999' in hundreds.message
    (several,) = year_doubts("1990 and 2010")
    assert "read as 2 separate periods (1990, 2010)" in several.message
    (nothing,) = year_doubts("Apollo 11 crew")
    assert 'the text has "11"' in nothing.message
