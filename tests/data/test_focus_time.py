"""Tests of pytest_tempoeval.data.focus_time. Expected year sets are written out by hand."""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_tempoeval.data import focus_time as focus_time_module
from pytest_tempoeval.data.focus_time import (
    MAX_YEAR,
    MIN_YEAR,
    TEXT_YEAR_MAX,
    TEXT_YEAR_MIN,
    FocusTime,
    text_readings,
)
from pytest_tempoeval.errors import FocusTimeError, TempoEvalError


def span(start: int, end: int) -> set[int]:
    """Inclusive range of years, to keep the expectations readable."""
    return set(range(start, end + 1))


# --- constants and construction ---------------------------------------------------------------


def test_bounds_are_the_documented_ones() -> None:
    assert (MIN_YEAR, MAX_YEAR) == (1, 9999)
    assert (TEXT_YEAR_MIN, TEXT_YEAR_MAX) == (1000, 2199)


def test_constructor_and_from_years_keep_the_given_years() -> None:
    assert FocusTime([2021, 2019, 2021]).years == frozenset({2019, 2021})
    assert FocusTime.from_years(iter([5, 1])).years == frozenset({1, 5})
    assert FocusTime().years == frozenset()
    assert FocusTime([MIN_YEAR, MAX_YEAR]).years == frozenset({1, 9999})


def test_equal_focus_times_share_one_object_and_the_sharing_is_bounded() -> None:
    # Interning is what lets the metrics index 100,000 documents' focus times with pointer
    # compares; it must never change a value, and a stream of distinct ones must not grow it.
    assert FocusTime.from_range(1990, 1992) is FocusTime.parse("1990-1992")
    assert FocusTime([1992, 1991, 1990]).years is FocusTime.from_range(1990, 1992).years
    assert FocusTime([np.int64(1990)]).years == {1990}  # numpy integers are still years
    many = [FocusTime.from_range(1, n) for n in range(1, 300)] + [
        FocusTime.from_range(n, n) for n in range(1, MAX_YEAR + 1)
    ]
    assert [len(ft) for ft in many[:299]] == list(range(1, 300))
    assert [ft.min for ft in many[299:]] == list(range(1, MAX_YEAR + 1))
    assert len(focus_time_module._INTERNED) <= focus_time_module._INTERN_ENTRIES
    assert max(map(len, focus_time_module._INTERNED)) <= focus_time_module._INTERN_YEARS


def test_from_range_is_inclusive() -> None:
    assert FocusTime.from_range(1990, 1995) == span(1990, 1995)
    assert FocusTime.from_range(2020, 2020) == {2020}


@pytest.mark.parametrize(
    ("years", "named"),
    [
        ([2020, True], "True"),
        ([2020.0], "2020.0"),
        (["2020"], "'2020'"),
        ([None], "None"),
        ([0], "0"),
        ([10000], "10000"),
        ([-5], "-5"),
    ],
)
def test_constructor_rejects_non_years_naming_them(years: list[object], named: str) -> None:
    with pytest.raises(FocusTimeError) as info:
        FocusTime(years)  # type: ignore[arg-type]
    assert named in str(info.value)


@pytest.mark.parametrize("years", ["2020", 2020, None])
def test_constructor_needs_an_iterable_of_years(years: object) -> None:
    with pytest.raises(FocusTimeError, match=r"iterable of years.*FocusTime\.parse"):
        FocusTime(years)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("start", "end", "named"),
    [(1995, 1990, "1995-1990"), (0, 5, "0"), (2000, 10000, "10000"), (True, 5, "True")],
)
def test_from_range_rejects_bad_bounds(start: object, end: object, named: str) -> None:
    with pytest.raises(FocusTimeError) as info:
        FocusTime.from_range(start, end)  # type: ignore[arg-type]
    assert named in str(info.value)


def test_focus_time_error_is_a_value_error_of_this_package() -> None:
    with pytest.raises(ValueError):
        FocusTime.parse("abc")
    with pytest.raises(TempoEvalError):
        FocusTime.parse("abc")


# --- parse: structured values ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (2020, {2020}),
        (1, {1}),
        (9999, {9999}),
        ("2020", {2020}),
        ("  2020 ", {2020}),
        ("2019-2021", span(2019, 2021)),
        ("2019–2021", span(2019, 2021)),  # en dash
        ("2019 - 2021", span(2019, 2021)),
        ("2019 – 2021", span(2019, 2021)),
        ("2020-2020", {2020}),
        ("2019–21", span(2019, 2021)),
        ("2019-20", {2019, 2020}),
        ("1990-95", span(1990, 1995)),
        ("1998-03", span(1998, 2003)),  # start in 9x: the 2-digit end is in the next century
        ("1999-00", {1999, 2000}),
        ("5-7", {5, 6, 7}),  # only a 4-digit start makes a 2-digit end an abbreviation
        ("1990s", span(1990, 1999)),
        ("1990's", span(1990, 1999)),
        ("2000s", span(2000, 2009)),
        ("19th century", span(1801, 1900)),
        ("19th-century", span(1801, 1900)),
        ("19TH Century", span(1801, 1900)),
        ("1st century", span(1, 100)),
        ("21st century", span(2001, 2100)),
        ("nineteenth century", span(1801, 1900)),
        ("twenty-first century", span(2001, 2100)),
        ("1990-1995, 2001", span(1990, 1995) | {2001}),
        ([2020, "2016-2018"], {2016, 2017, 2018, 2020}),
        ((2020, 2021), {2020, 2021}),
        ({2020, 2021}, {2020, 2021}),
        (frozenset({1999}), {1999}),
        (["1990s", 1995, "2001"], span(1990, 1999) | {2001}),
        ([], set()),
        ([[2020], ("1990-91",)], {1990, 1991, 2020}),
        (FocusTime([7]), {7}),
    ],
)
def test_parse_reads_every_structured_form(value: object, expected: set[int]) -> None:
    assert FocusTime.parse(value).years == frozenset(expected)  # type: ignore[arg-type]


def test_parse_returns_a_focus_time_as_is() -> None:
    ft = FocusTime([2020])
    assert FocusTime.parse(ft) is ft


@pytest.mark.parametrize(
    ("value", "named"),
    [
        (True, "True"),
        (False, "False"),
        (2020.0, "2020.0"),
        (2020.5, "2020.5"),
        (None, "None"),
        (0, "0"),
        (10000, "10000"),
        (-2020, "-2020"),
        ("", "''"),
        ("   ", "'   '"),
        ("abc", "'abc'"),
        ("2021-2019", "'2021-2019'"),  # reversed range
        ("2020-20", "'2020-20'"),  # 2-digit end not after the start, start not in 9x
        ("2020-03", "'2020-03'"),  # a year-month is not a structured value
        ("1985-80", "'1985-80'"),
        ("0", "'0'"),
        ("10000", "'10000'"),
        ("0-5", "'0-5'"),
        ("9999-00", "'9999-00'"),  # would end in 10000
        ("0th century", "'0th century'"),
        ("2020,", "'2020,'"),
        ("2020, abc", "'2020, abc'"),
        ("FY2020", "'FY2020'"),  # a text form, not a structured one
        ("'90s", '"\'90s"'),
        ({"year": 2020}, "{'year': 2020}"),
        (b"2020", "b'2020'"),
        (range(2019, 2021), "range(2019, 2021)"),
        ([2020, None], "None"),
        ([2020, "abc"], "'abc'"),
        ({2020, 0}, "0"),
    ],
)
def test_parse_errors_name_the_value_and_list_accepted_forms(value: object, named: str) -> None:
    with pytest.raises(FocusTimeError) as info:
        FocusTime.parse(value)  # type: ignore[arg-type]
    message = str(info.value)
    assert named in message
    assert "accepted:" in message
    assert "'2019-2021'" in message
    assert "'1990s'" in message
    assert "'19th century'" in message


def test_parse_error_says_why_a_year_is_rejected() -> None:
    with pytest.raises(FocusTimeError, match=r"year 0 is outside 1\.\.9999"):
        FocusTime.parse(0)
    with pytest.raises(FocusTimeError, match=r"got bool True"):
        FocusTime.parse(True)
    with pytest.raises(FocusTimeError, match=r"is not a range"):
        FocusTime.parse("2021-2019")
    with pytest.raises(FocusTimeError, match=r"empty string"):
        FocusTime.parse("")


# --- set behaviour ---------------------------------------------------------------------------


def test_len_iter_contains_bool() -> None:
    ft = FocusTime([2021, 1990, 2005])
    assert len(ft) == 3
    assert list(ft) == [1990, 2005, 2021]  # ascending, whatever the input order
    assert 2005 in ft
    assert 2006 not in ft
    assert "2005" not in ft
    assert bool(ft) is True
    assert bool(FocusTime()) is False
    assert len(FocusTime()) == 0


def test_a_bool_is_never_a_member() -> None:
    assert 1 in FocusTime([1])
    assert True not in FocusTime([1])


def test_min_and_max() -> None:
    ft = FocusTime([2021, 1990, 2005])
    assert (ft.min, ft.max) == (1990, 2021)
    assert (FocusTime().min, FocusTime().max) == (None, None)


def test_equality_with_focus_times_and_plain_sets() -> None:
    ft = FocusTime([2020, 2021])
    assert ft == FocusTime([2021, 2020])
    assert ft == {2020, 2021}
    assert {2020, 2021} == ft
    assert ft == frozenset({2020, 2021})
    assert ft != {2020}
    assert ft != FocusTime([2020])
    assert ft != [2020, 2021]  # a list is not a set: order and duplicates would matter
    assert ft != "2020-2021"
    assert FocusTime() == set()


def test_hash_usable_in_dicts_and_sets() -> None:
    a, b = FocusTime([2020, 2021]), FocusTime.parse("2020-21")
    assert a is not b
    assert hash(a) == hash(b)
    assert {a: "x"}[b] == "x"
    assert len({a, b, FocusTime([2020])}) == 2
    # Equal to the frozenset, so it must hash like it too.
    assert hash(a) == hash(frozenset({2020, 2021}))
    assert {frozenset({2020, 2021}): "y"}[a] == "y"


def test_and_or_return_focus_times() -> None:
    a, b = FocusTime(span(2019, 2021)), FocusTime(span(2020, 2022))
    assert type(a & b) is FocusTime
    assert type(a | b) is FocusTime
    assert (a & b) == {2020, 2021}
    assert (a | b) == span(2019, 2022)
    assert type(a & {2021, 2030}) is FocusTime
    assert (a & {2021, 2030}) == {2021}
    assert type({2030} | a) is FocusTime
    assert ({2030} | a) == span(2019, 2021) | {2030}
    assert (frozenset({2019}) & a) == {2019}


def test_and_or_reject_non_sets() -> None:
    with pytest.raises(TypeError):
        FocusTime([2020]) | 2021  # type: ignore[operator]
    with pytest.raises(TypeError):
        FocusTime([2020]) & [2020]  # type: ignore[operator]
    with pytest.raises(FocusTimeError, match="0"):
        FocusTime([2020]) | {0}


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (span(2019, 2021), span(2020, 2022), 0.5),  # |{2020, 2021}| / |{2019..2022}|
        ({2020}, {2020}, 1.0),
        ({2020}, {2021}, 0.0),
        (span(1990, 1999), {1995}, 0.1),
        (set(), {2020}, 0.0),
        (set(), set(), 0.0),  # no shared time at all; not a perfect match
    ],
)
def test_jaccard(a: set[int], b: set[int], expected: float) -> None:
    assert FocusTime(a).jaccard(FocusTime(b)) == pytest.approx(expected, abs=1e-12)
    assert FocusTime(a).jaccard(b) == pytest.approx(expected, abs=1e-12)


def test_jaccard_and_overlaps_accept_what_parse_accepts() -> None:
    ft = FocusTime(span(2019, 2021))
    assert ft.jaccard("2020-2021") == pytest.approx(2 / 3)
    assert ft.overlaps("2021-2025") is True
    assert ft.overlaps(2022) is False
    assert ft.overlaps({2019}) is True
    assert FocusTime().overlaps(FocusTime()) is False
    with pytest.raises(FocusTimeError, match="'abc'"):
        ft.jaccard("abc")


# --- immutability ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["years", "_years", "_sorted", "min", "other"])
def test_attributes_cannot_be_set(name: str) -> None:
    ft = FocusTime([2020])
    with pytest.raises(AttributeError):
        setattr(ft, name, frozenset({1999}))
    assert ft == {2020}


@pytest.mark.parametrize("name", ["years", "_years"])
def test_attributes_cannot_be_deleted(name: str) -> None:
    ft = FocusTime([2020])
    with pytest.raises(AttributeError):
        delattr(ft, name)
    assert ft == {2020}


def test_years_is_a_frozenset() -> None:
    years = FocusTime([2020]).years
    assert isinstance(years, frozenset)
    with pytest.raises(AttributeError):
        years.add(2021)  # type: ignore[attr-defined]


def test_copy_deepcopy_and_pickle_keep_the_years() -> None:
    ft = FocusTime([1990, 1991, 2001])
    for clone in (copy.copy(ft), copy.deepcopy(ft), pickle.loads(pickle.dumps(ft))):
        assert type(clone) is FocusTime
        assert clone == ft
        assert list(clone) == [1990, 1991, 2001]


# --- text forms: str, repr, to_json ----------------------------------------------------------


def test_str_repr_and_json_collapse_ranges() -> None:
    ft = FocusTime(span(1990, 1995) | {2001})
    assert str(ft) == "1990-1995, 2001"
    assert repr(ft) == "FocusTime('1990-1995, 2001')"
    assert ft.to_json() == ["1990-1995", 2001]
    assert json.dumps(ft.to_json()) == '["1990-1995", 2001]'


def test_str_repr_and_json_of_small_cases() -> None:
    assert str(FocusTime()) == ""
    assert repr(FocusTime()) == "FocusTime()"
    assert FocusTime().to_json() == []
    assert str(FocusTime([2020])) == "2020"
    assert FocusTime([2020, 2021]).to_json() == ["2020-2021"]
    assert str(FocusTime([1, 3, 4, 9999])) == "1, 3-4, 9999"


# --- from_text -------------------------------------------------------------------------------

PRODUCT_ISSUE_EXAMPLES = [
    ("in 2020", {2020}),
    ("from 1990 to 1995", span(1990, 1995)),
    ("1990–95", span(1990, 1995)),
    ("between 2001 and 2003", span(2001, 2003)),
    ("the 1990s", span(1990, 1999)),
    ("the '90s", span(1990, 1999)),
    ("19th century", span(1801, 1900)),
    ("FY2020", {2020}),
    ("2,020 votes", set()),
    ("page 1999", set()),
]

TEXT_FORMS = [
    # explicit years and dates
    ("Who won the US presidential election in 2020?", {2020}),
    ("2020", {2020}),
    ("In 2020.", {2020}),  # a dot followed by the end is punctuation
    ("in 2020. Then", {2020}),
    ("It was 1999, then 2000.", {1999, 2000}),
    ("March 3, 2020", {2020}),
    ("2020-03-05", {2020}),  # an ISO date is a date, never a range
    ("on 2020-03-05T10:00", {2020}),
    ("2020-03", {2020}),  # year-month
    ("05.03.2020", {2020}),  # day.month.year
    ("mid-2020", {2020}),
    ("elections in 2016 and 2020", {2016, 2020}),
    ("1000 and 2199", {1000, 2199}),  # the text bounds are inclusive
    # fiscal years
    ("FY 2020", {2020}),
    ("FY20", {2020}),
    ("FY2020.5", set()),  # a decimal, not a fiscal year
    ("fy2019 results", {2019}),
    # ranges
    ("2019-2021", span(2019, 2021)),
    ("2019–2021", span(2019, 2021)),
    ("2019 - 2021", span(2019, 2021)),
    ("2019-20 season", {2019, 2020}),
    ("1998–03", span(1998, 2003)),
    ("1999-00", {1999, 2000}),
    ("2021-2019", {2019, 2021}),  # reversed: not a range, each end read on its own
    ("2199-05", {2199}),  # end 2205 is outside the text bounds: not a range
    ("1985-03", {1985}),  # start not in 9x: a 2-digit end not after it is a month
    ("1985-85", {1985}),
    ("1990-1995.5", {1990}),  # the end is a decimal, so this is no range
    ("from 1990 until 1995", span(1990, 1995)),
    ("from 1990 through 1995", span(1990, 1995)),
    ("From 1990 to 95", span(1990, 1995)),
    ("from 1990-1992", span(1990, 1992)),
    ("Between 2001 AND 2003", span(2001, 2003)),
    ("2001 to 2003", span(2001, 2003)),
    ("2001 through 2003", span(2001, 2003)),
    ("2001 until 2002", {2001, 2002}),
    ("2001 to 20 people", {2001}),  # without "from"/"between" the end must have 4 digits
    ("from 2001 to 20", span(2001, 2020)),
    ("from 1995 to 1990", {1990, 1995}),
    # decades
    ("1990s", span(1990, 1999)),
    ("1990's", span(1990, 1999)),
    ("in the 2000s", span(2000, 2009)),
    ("’90s", span(1990, 1999)),
    ("mid-'90s", span(1990, 1999)),
    ("the 90s", span(1990, 1999)),
    ("the '00s", span(2000, 2009)),
    ("the '10s", span(2010, 2019)),
    ("the '20s", span(2020, 2029)),
    ("the '30s", span(1930, 1939)),
    ("in their 20s", set()),  # a bare 2-digit decade counts only after "the"
    # centuries
    ("the 19th-century novel", span(1801, 1900)),
    ("nineteenth century", span(1801, 1900)),
    ("21st century", span(2001, 2100)),
    ("1st century", span(1, 100)),
    ("the fifth century", span(401, 500)),
    ("first century", span(1, 100)),
    ("twentieth century", span(1901, 2000)),
    ("twenty-first century", span(2001, 2100)),
    ("twenty first century", span(2001, 2100)),
    ("Twenty-Second Century", span(2101, 2200)),
    # mixtures, scanned left to right
    ("Compare the 1990s with 2005 and FY2019.", span(1990, 1999) | {2005, 2019}),
    ("from 1990 to 1995 and again in 2001", span(1990, 1995) | {2001}),
    ("pp. 1999-2005, published 2010", {2010}),
    ("no text with years", set()),
    ("", set()),
]

NOT_YEARS = [
    ("0042", set()),
    ("999", set()),
    ("3000", set()),
    ("9999 ways", set()),
    ("2200", set()),
    ("20201", set()),
    ("12020", set()),
    ("2,020 votes", set()),
    ("12,2020", set()),
    ("2020,000", set()),
    ("1999.5", set()),
    ("2020.0", set()),
    ("0.2020", set()),
    ("$2000", set()),
    ("$ 2000", set()),
    ("€1999", set()),
    ("£2020", set()),
    ("¥2020", set()),
    ("page 1999", set()),
    ("pages 1999-2001", set()),
    ("p. 1999", set()),
    ("pp. 1999", set()),
    ("no. 2020", set()),
    ("No 2020", set()),
    ("#2020", set()),
    ("number 2020", set()),
    ("room 2020", set()),
    ("Flight 2020", set()),
    ("route 2020", set()),
    ("2020%", set()),
    ("2020 %", set()),
    ("2000 km", set()),
    ("2000 m", set()),
    ("2000 kg", set()),
    ("1500 g", set()),
    ("2000 mph", set()),
    ("1024 kb", set()),
    ("2048 MB", set()),
    ("1999 ms", set()),
    ("1200 Hz", set()),
    ("1920 px", set()),
    ("2000km", set()),
    ("2020abc", set()),
    ("abc2020", set()),
    ("1200 BC", set()),
    ("the 5th century BC", set()),
    ("3rd century B.C.", set()),
]


@pytest.mark.parametrize(("text", "expected"), PRODUCT_ISSUE_EXAMPLES)
def test_from_text_product_issue_examples(text: str, expected: set[int]) -> None:
    assert FocusTime.from_text(text).years == frozenset(expected)


@pytest.mark.parametrize(("text", "expected"), TEXT_FORMS)
def test_from_text_forms(text: str, expected: set[int]) -> None:
    assert FocusTime.from_text(text).years == frozenset(expected)


@pytest.mark.parametrize(("text", "expected"), NOT_YEARS)
def test_from_text_not_years(text: str, expected: set[int]) -> None:
    assert FocusTime.from_text(text).years == frozenset(expected)


@pytest.mark.parametrize(
    "text",
    [
        "in 2020 votes were counted",  # "2020 votes" stays a year: ambiguous, documented
        "In 2020 Ms Smith won",  # units are case-sensitive: "Ms" is not milliseconds
        "In 2020 M&A slowed",
        "there was no 2020 event",  # only "No" (capital) or "no." marks a number
        "the 2020 page",
        "(2020)",
        "'2020'",
        "2020/03",  # a year and a month: no season
    ],
)
def test_from_text_year_next_to_lookalikes(text: str) -> None:
    assert FocusTime.from_text(text) == {2020}


def test_from_text_year_before_a_number_marker_on_the_next_word() -> None:
    # The marker only takes the number right after it.
    assert FocusTime.from_text("In 2019, page 12 and 2021") == {2019, 2021}


def test_from_text_consumed_spans_are_not_read_again() -> None:
    # "2021" inside the range and "1000" inside "past 1000 years" are not separate years.
    assert FocusTime.from_text("2019-2021") == span(2019, 2021)
    assert FocusTime.from_text("over the past 1000 years").years == frozenset()


@pytest.mark.parametrize(
    "text",
    [
        "this year",
        "last year",
        "previous year",
        "next year",
        "last 5 years",
        "past five years",
    ],
)
def test_relative_terms_are_ignored_without_reference_year(text: str) -> None:
    assert FocusTime.from_text(text).years == frozenset()
    assert FocusTime.from_text(text, reference_year=None).years == frozenset()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("this year", {2024}),
        ("Last year's results", {2023}),
        ("the previous year", {2023}),
        ("next year", {2025}),
        ("over the last 5 years", span(2020, 2024)),
        ("the past five years", span(2020, 2024)),
        ("the past ten years", span(2015, 2024)),
        ("the last one year", {2024}),
        ("last 0 years", set()),
        ("past 3000 years", set()),  # would start before year 1: ignored, not clipped
        ("in 2010 and last year", {2010, 2023}),
    ],
)
def test_relative_terms_with_reference_year(text: str, expected: set[int]) -> None:
    assert FocusTime.from_text(text, reference_year=2024).years == frozenset(expected)


def test_relative_term_beyond_max_year_is_ignored() -> None:
    assert FocusTime.from_text("next year", reference_year=MAX_YEAR).years == frozenset()
    assert FocusTime.from_text("this year", reference_year=MAX_YEAR) == {MAX_YEAR}


@pytest.mark.parametrize(
    ("reference_year", "named"), [(True, "True"), (2024.0, "2024.0"), (0, "0"), ("2024", "'2024'")]
)
def test_reference_year_is_validated_like_a_year(reference_year: object, named: str) -> None:
    with pytest.raises(FocusTimeError) as info:
        FocusTime.from_text("this year", reference_year=reference_year)  # type: ignore[arg-type]
    assert named in str(info.value)


def test_reference_year_does_not_change_explicit_years() -> None:
    text = "Biden won the 2020 election"
    assert FocusTime.from_text(text, reference_year=1950) == FocusTime.from_text(text) == {2020}


@pytest.mark.parametrize("text", [None, 2020, b"2020"])
def test_from_text_needs_a_string(text: object) -> None:
    with pytest.raises(FocusTimeError, match="needs a str"):
        FocusTime.from_text(text)  # type: ignore[arg-type]


# --- from_text: the forms of issue 28 (the readings found wrong by hand, and their rules) -----

ISSUE_28_EXAMPLES = [
    ("Who won 2020's election?", {2020}),  # was 2020-2029
    ("top 1000 companies in 2010", {2010}),  # was {1000, 2010}
    ("'08", {2008}),  # was nothing
    ("World Cup 98", {1998}),  # was nothing
]

READ_SINCE_ISSUE_28 = [
    # "NNN0's": the decade after the, early, mid, late, or with no word after; else a possessive
    ("2019's best films", {2019}),
    ("2010's World Cup final", {2010}),
    ("the 1990's", span(1990, 1999)),
    ("the 1960's counterculture", span(1960, 1969)),
    ("music in the early 1980's", span(1980, 1989)),
    ("mid-1970's cars", span(1970, 1979)),
    ("fashion of the 1920's.", span(1920, 1929)),
    ("1990's and 2000's", span(1990, 2009)),
    ("1990's to 2000's", span(1990, 2009)),
    ("2020's", span(2020, 2029)),
    # apostrophe years: the pivot of the short decades ('00-'29 are 2000-2029)
    ("Class of '08 reunion", {2008}),
    ("Woodstock '69", {1969}),
    ("the ’99 final", {1999}),  # a curly apostrophe
    ("the '29 crash", {2029}),  # the pivot does not guess: check --years flags it
    ("the '08-'09 season", {2008, 2009}),
    ("'08–09", {2008, 2009}),
    ("the '99-'00 season", {1999, 2000}),
    ("(’08)", {2008}),
    ("'08'", set()),  # a quoted number
    ("‘08’", set()),
    ("5'08", set()),  # feet and inches
    ("'08s", set()),  # not a decade ('00s is)
    ("'085", set()),
    ("'08.5", set()),
    # two digits after a recurring event's name
    ("World Cup '98", {1998}),
    ("Euro 96 semi-final", {1996}),
    ("euro 96", set()),  # money: the event is capitalised
    ("Expo 67", {1967}),
    ("Olympics 84", {1984}),
    ("Olympic Games 08", {2008}),
    ("class of 98", {1998}),
    ("World Cup 2014", {2014}),
    ("World Cup 985", set()),
    # numbers that count: after counting words, a round hundred after top/bottom
    ("more than 1500 employees", set()),
    ("fewer than 1100 cases in 2020", {2020}),
    ("less than 2000", set()),
    ("at least 1200 signatures", set()),
    ("at most 1999", set()),
    ("nearly 2000 people died", set()),
    ("almost 1800", set()),
    ("top 1000 universities 2021", {2021}),
    ("bottom 1500", set()),
    ("top 2020 movies", {2020}),  # not a round hundred: the year's list
    ("top 1990s hits", span(1990, 1999)),
    ("nearly 1990s levels", span(1990, 1999)),
    ("more than 1500, in 2010", {2010}),
    ("more than 1,500 in 2010", {2010}),
    # measures
    ("a 2000-year-old tree", set()),
    ("a 1200-page novel", set()),
    ("a 1000-mile journey", set()),
    ("2000 years of history", set()),
    ("1500 meters freestyle", set()),
    ("1500 words", set()),
    ("prices in 2015 dollars", {2015}),  # dollars of a year
    ("1000s of users", set()),
    ("the 2000s of my youth", span(2000, 2009)),
    # identifiers
    ("Form 1040 instructions", set()),
    ("RFC 2119 keywords", set()),
    ("Section 1983 claims", set()),
    ("§ 1983", set()),
    ("§1983", set()),
    ("error code 1603", set()),
    ("ISO 2108", set()),
    ("chapter 1999", set()),
    ("article 2020 of the code", set()),
    ("the 2020 form", {2020}),  # the marker comes before the number it marks
    # seasons and halves
    ("the 2019/20 season", {2019, 2020}),
    ("2020/21", {2020, 2021}),  # was 2020: the season's second year was lost
    ("2017/2018 budget", {2017, 2018}),
    ("1999/00", {1999, 2000}),
    ("1999/2005", {1999, 2005}),  # not a season: two years
    ("2020/03", {2020}),
    ("1999/12/31", {1999}),
    ("12/31/1999", {1999}),
    ("2020H1 revenue", {2020}),
    ("2021Q4 results", {2021}),
    ("2021q4", set()),  # Q and H are capitals
    ("2021Q5", set()),
    # hundreds: "the 1800s" is 1800-1899, "the 2000s" the decade
    ("the 1800s", span(1800, 1899)),
    ("life in the early 1900s", span(1900, 1999)),
    ("the 1000s", span(1000, 1099)),
    ("the 2100s", span(2100, 2199)),
    ("the 2000s", span(2000, 2009)),
    # decade ranges
    ("from the 1920s to the 1940s", span(1920, 1949)),
    ("the 1920s through 1940s", span(1920, 1949)),
    ("1990s-2000s hip hop", span(1990, 2009)),
    ("between the 1960s and 1990s", span(1960, 1999)),
    ("from the 1800s to the 1900s", span(1800, 1999)),
    ("the 1990s to the 1980s", span(1980, 1999)),  # reversed: each decade
    ("the 1990s to the 1960s", span(1960, 1969) | span(1990, 1999)),
    # decades in words, thirties to nineties (after "the")
    ("the sixties", span(1960, 1969)),
    ("The Nineties", span(1990, 1999)),
    ("the late seventies", span(1970, 1979)),
    ("the mid-fifties", span(1950, 1959)),
    ("in their sixties", set()),
    ("the twenties", set()),  # the 1920s or the 2020s: not read
    # centuries together
    ("the 19th and 20th centuries", span(1801, 2000)),
    ("18th-19th centuries", span(1701, 1900)),
    ("the 17th to 19th centuries", span(1601, 1900)),
    ("15th and 16th century art", span(1401, 1600)),
    ("the 17th and 19th centuries", span(1601, 1700) | span(1801, 1900)),
    ("the seventeenth or eighteenth century", span(1601, 1800)),
    ("the 19th and 20th centuries BC", set()),
    # fiscal years
    ("FY99 spending", {1999}),  # was 2099
    ("FY30", {1930}),
    ("FY29", {2029}),
    ("FY'22 guidance", {2022}),
    ("FY2019/20", {2019, 2020}),
    ("FY19-20", {2019, 2020}),
    ("FY2018-FY2020", span(2018, 2020)),
    ("FY2024E estimates", {2024}),
    ("FY2020-03", {2020}),
]

RELATIVE_SINCE_ISSUE_28 = [
    ("the last decade", span(2015, 2024)),
    ("over the past decade", span(2015, 2024)),
    ("2 years ago", {2022}),
    ("three years ago", {2021}),
    ("two decades ago", {2004}),
    ("a year ago", {2023}),
    ("an year ago", {2023}),
    ("one year ago", {2023}),
    ("a decade ago", {2014}),
    ("1500 years ago", set()),  # a count of 4 digits is a quantity
    ("the next 5 years", span(2025, 2029)),
    ("in the next three years", span(2025, 2027)),
    ("the year before last", {2022}),
    ("since 2015", span(2015, 2024)),
    ("ever since 2024", {2024}),
    ("since 2030", {2030}),  # after the reference year: the year alone
    ("since 2015-2016", span(2015, 2016)),  # a range, not "since"
]


@pytest.mark.parametrize(("text", "expected"), ISSUE_28_EXAMPLES + READ_SINCE_ISSUE_28)
def test_from_text_forms_of_issue_28(text: str, expected: set[int]) -> None:
    assert FocusTime.from_text(text).years == frozenset(expected)


@pytest.mark.parametrize(("text", "expected"), RELATIVE_SINCE_ISSUE_28)
def test_relative_forms_of_issue_28(text: str, expected: set[int]) -> None:
    assert FocusTime.from_text(text, reference_year=2024).years == frozenset(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [(text, set()) for text, _ in RELATIVE_SINCE_ISSUE_28 if "since" not in text]
    + [("since 2015", {2015}), ("since 2030", {2030})],
)
def test_relative_forms_of_issue_28_without_reference_year(text: str, expected: set[int]) -> None:
    """Without a reference year the relative forms read nothing ("since 2015": the year, as
    before)."""
    assert FocusTime.from_text(text).years == frozenset(expected)


@pytest.mark.parametrize(("word", "n"), list(focus_time_module._COUNT_WORDS.items()))
def test_every_count_word_is_read(word: str, n: int) -> None:
    plural = "s" if n > 1 else ""  # "one year ago", "two years ago"
    assert FocusTime.from_text(f"{word} year{plural} ago", reference_year=2024) == {2024 - n}
    assert FocusTime.from_text(f"{word.upper()} DECADE{plural} AGO", reference_year=2024) == {
        2024 - 10 * n
    }
    assert FocusTime.from_text(f"the next {word} year{plural}", reference_year=2024) == span(
        2025, 2024 + n
    )


@pytest.mark.parametrize(("word", "n"), list(focus_time_module._ORDINAL_WORDS.items()))
def test_every_ordinal_word_is_read(word: str, n: int) -> None:
    assert FocusTime.from_text(f"the {word} century") == span(100 * n - 99, 100 * n)
    assert FocusTime.from_text(f"{word.title()} and 23rd centuries") == span(
        100 * n - 99, 100 * n
    ) | span(2201, 2300)


def test_relative_forms_stay_in_bounds() -> None:
    assert FocusTime.from_text("the next 5 years", reference_year=MAX_YEAR - 2) == set()
    assert FocusTime.from_text("3 decades ago", reference_year=20) == set()
    assert FocusTime.from_text("the last decade", reference_year=5) == set()


def test_text_readings_name_each_form_with_its_years() -> None:
    readings = text_readings("Who won 2020's election, top 1000 firms, since 2015?")
    assert [(r.kind, r.text, r.years) for r in readings] == [
        ("possessive", "2020's", frozenset({2020})),
        ("counted", "1000", frozenset()),
        ("since", "since 2015", frozenset({2015})),
    ]
    text = "Who won 2020's election"
    assert [text[r.start : r.start + len(r.text)] for r in text_readings(text)] == ["2020's"]


# --- properties --------------------------------------------------------------------------------

years = st.integers(MIN_YEAR, MAX_YEAR)
# Runs of consecutive years as well as scattered ones, so range collapsing is exercised.
runs = st.tuples(st.integers(MIN_YEAR, MAX_YEAR - 20), st.integers(0, 20)).map(
    lambda run: set(range(run[0], run[0] + run[1] + 1))
)
year_sets = st.lists(st.one_of(years.map(lambda y: {y}), runs), max_size=8).map(
    lambda parts: FocusTime(set().union(*parts))
)


# One draw feeds every property of one focus time, and one pair every property of two: each
# property still sees the profile's number of draws, drawn once instead of three or two times.
@given(year_sets)
def test_json_and_str_round_trip_and_jaccard_with_itself_is_one_unless_empty(
    ft: FocusTime,
) -> None:
    assert FocusTime.parse(ft.to_json()) == ft
    assert FocusTime.parse(json.loads(json.dumps(ft.to_json()))) == ft
    if ft:  # str of the empty focus time is '', which parse() rejects as an empty string
        assert FocusTime.parse(str(ft)) == ft
    assert repr(ft) == (f"FocusTime({str(ft)!r})" if ft else "FocusTime()")
    assert ft.jaccard(ft) == (1.0 if ft else 0.0)


@given(year_sets, year_sets)
def test_jaccard_is_symmetric_and_bounded_and_set_operations_agree_with_frozenset(
    a: FocusTime, b: FocusTime
) -> None:
    score = a.jaccard(b)
    assert score == b.jaccard(a)
    assert 0.0 <= score <= 1.0
    assert (score > 0.0) == a.overlaps(b)
    union = a.years | b.years
    expected = len(a.years & b.years) / len(union) if union else 0.0
    assert score == expected
    assert (a & b).years == a.years & b.years
    assert (a | b).years == a.years | b.years
    assert list(a | b) == sorted(a.years | b.years)
    assert (a == b) == (a.years == b.years)


@given(st.integers(TEXT_YEAR_MIN, TEXT_YEAR_MAX))
def test_every_year_in_text_bounds_is_found_in_a_sentence(year: int) -> None:
    assert FocusTime.from_text(f"What happened in {year}?") == {year}


@given(st.integers(0, 9999).filter(lambda y: not TEXT_YEAR_MIN <= y <= TEXT_YEAR_MAX))
def test_no_four_digit_number_outside_text_bounds_is_a_year(number: int) -> None:
    assert FocusTime.from_text(f"What happened in {number:04d}?").years == frozenset()


@given(st.text(max_size=60))
def test_from_text_never_fails_and_stays_in_bounds(text: str) -> None:
    ft = FocusTime.from_text(text, reference_year=2024)
    assert all(MIN_YEAR <= year <= MAX_YEAR for year in ft)


FRAGMENTS = [
    *(text for text, _ in ISSUE_28_EXAMPLES + READ_SINCE_ISSUE_28 + RELATIVE_SINCE_ISSUE_28),
    *(text for text, _ in TEXT_FORMS + NOT_YEARS),
    "the",
    "and",
    "'",
    "-",
    "s",
    "2020",
    "98",
    "top",
]


@given(
    st.lists(st.sampled_from(FRAGMENTS), max_size=6).map(" ".join)
    | st.lists(st.sampled_from(FRAGMENTS), max_size=6).map("".join),
    st.none() | st.integers(MIN_YEAR, MAX_YEAR),
)
def test_text_readings_add_up_to_from_text(text: str, reference_year: int | None) -> None:
    readings = text_readings(text, reference_year)
    union = frozenset().union(*(reading.years for reading in readings))
    assert FocusTime.from_text(text, reference_year).years == union
    assert all(text[r.start : r.start + len(r.text)] == r.text for r in readings)
    assert [r.start for r in readings] == sorted(r.start for r in readings)
