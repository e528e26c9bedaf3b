"""Focus time: the set of years a query or a document is about.

``FocusTime`` is an immutable, hashable set of years. Build one from structured values with
``FocusTime.parse`` (gold files: ``2020``, ``"2019-2021"``, ``"1990s"``, ``"19th century"``, lists
of these) or extract one from prose with ``FocusTime.from_text``. Nothing here reads today's date:
relative terms ("last year") need an explicit ``reference_year``.

User documentation of every form: ``docs/focus-time.md``.

One module on purpose, though longer than most: the value grammar (``FocusTime.parse``) and the
prose scanner (``FocusTime.from_text``) share the year rules and the intern table.
"""

from __future__ import annotations

import functools
import numbers
import re
import threading
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from pytest_tempoeval.errors import FocusTimeError

__all__ = ["MAX_YEAR", "MIN_YEAR", "TEXT_YEAR_MAX", "TEXT_YEAR_MIN", "FocusTime", "FocusTimeLike"]

# Bounds for years given explicitly (structured values, centuries, relative terms).
MIN_YEAR = 1
MAX_YEAR = 9999
# Bounds for a 4-digit number found in free text to count as a year: outside them, "3000" or
# "0042" is far more likely a quantity or a code than a year.
TEXT_YEAR_MIN = 1000
TEXT_YEAR_MAX = 2199

# "the '90s" has no century. Fixed pivot so results never depend on today's date:
# '00s, '10s, '20s are 2000s-2020s; '30s .. '90s are 1930s-1990s.
_SHORT_DECADE_PIVOT = 30

_ORDINAL_WORDS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "twenty-first": 21, "twenty-second": 22,
}  # fmt: skip
_COUNT_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}  # fmt: skip

_ACCEPTED = (
    "accepted: a year (2020), a range ('2019-2021', '2019–21'), a decade ('1990s'), "
    "a century ('19th century'), a comma-separated string of these, or a list of them"
)


def _error(value: object, reason: str) -> FocusTimeError:
    return FocusTimeError(f"cannot read {value!r} as a focus time: {reason}; {_ACCEPTED}")


# --- regex building blocks, shared by parse() and from_text() --------------------------------

_DASH = "[-–—]"  # hyphen, en dash, em dash: all mean "to" between two years
_APOSTROPHE = "['‘’]"  # straight and curly; word processors often turn '90s into ‘90s
_ORDINAL = "|".join(
    word.replace("-", r"[\s-]") for word in sorted(_ORDINAL_WORDS, key=len, reverse=True)
)
# "19th century", "19th-century", "nineteenth century". Any of st/nd/rd/th is accepted after a
# number: a typo like "19st" still clearly names a century.
_CENTURY = (
    rf"(?:(?P<century_number>\d{{1,2}})(?:st|nd|rd|th)|(?P<century_word>{_ORDINAL}))[\s-]+century"
)


def _century(match: re.Match[str]) -> range:
    """Years of the century a match names: the Nth century is 100*(N-1)+1 .. 100*N."""
    if match["century_number"]:
        n = int(match["century_number"])
    else:
        n = _ORDINAL_WORDS[re.sub(r"[\s-]+", "-", match["century_word"].lower())]
    return _span(100 * (n - 1) + 1, 100 * n)


def _span(start: int, end: int, low: int = MIN_YEAR, high: int = MAX_YEAR) -> range:
    """Inclusive start..end, or an empty range when it is reversed or leaves [low, high]."""
    if low <= start <= end <= high:
        return range(start, end + 1)
    return range(0)


def _read_range(start_text: str, end_text: str) -> tuple[int, int] | None:
    """(start, end) of a written range, or None when the two numbers do not form a range.

    A 2-digit end after a 4-digit start borrows the start's century ("1990-95" is 1990..1995).
    If that end is not after the start, it means the next century only when the start ends in
    9x ("1998-03" is 1998..2003, "1999-00" is 1999..2000); otherwise it is not a range
    ("2020-03" is a year and a month). A full end before the start is not a range either.
    """
    start, end = int(start_text), int(end_text)
    if len(start_text) == 4 and len(end_text) == 2:
        end += start - start % 100
        if end <= start:
            if start % 100 < 90:
                return None
            end += 100
    return (start, end) if end >= start else None


# --- FocusTime ------------------------------------------------------------------------------


class FocusTime:
    """An immutable set of years. Iterates in ascending order; equal to a set of the same years."""

    __slots__ = ("_intern_key", "_sorted", "years")
    years: frozenset[
        int
    ]  # a slot, not a property: read in C (the metrics read it for every document)
    _sorted: tuple[int, ...]
    _intern_key: bytes  # where the intern table holds this focus time's years: see _INTERNED

    def __init__(self, years: Iterable[int] = ()) -> None:
        if isinstance(years, (str, bytes)) or not isinstance(years, Iterable):
            raise FocusTimeError(
                f"FocusTime() takes an iterable of years, got {years!r}; "
                "use FocusTime.parse() for a single year or a string like '2019-2021'"
            )
        checked = frozenset(_checked_year(year, year) for year in years)
        equal = _INTERNED.get(checked)
        if equal is None:
            object.__setattr__(self, "years", checked)
            object.__setattr__(self, "_sorted", tuple(sorted(checked)))
            _intern(self)
        else:  # share the interned years: see _INTERNED
            object.__setattr__(self, "years", equal.years)
            object.__setattr__(self, "_sorted", equal._sorted)
            object.__setattr__(self, "_intern_key", equal._intern_key)

    @classmethod
    def _trusted(cls, years: Iterable[int]) -> FocusTime:
        """Build from years already validated (skips the per-year checks; from_text is hot)."""
        frozen = frozenset(years)
        equal = _INTERNED.get(frozen)
        if equal is not None and type(equal) is cls:
            return equal
        self = object.__new__(cls)
        object.__setattr__(self, "years", frozen)
        object.__setattr__(self, "_sorted", tuple(sorted(frozen)))
        _intern(self)
        return self

    # Immutable: the only writes happen in the constructors, through object.__setattr__.
    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"FocusTime is immutable; cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"FocusTime is immutable; cannot delete {name!r}")

    def __reduce__(self) -> tuple[type[FocusTime], tuple[tuple[int, ...]]]:
        # copy/deepcopy/pickle would otherwise restore slots via the blocked __setattr__.
        return (type(self), (self._sorted,))

    # --- constructors ---

    @classmethod
    def parse(cls, value: FocusTimeLike) -> FocusTime:
        """Read a structured value (gold files, user arguments). See docs/focus-time.md."""
        if isinstance(value, FocusTime):
            return value
        return cls._trusted(_parse_value(value))

    @classmethod
    def from_years(cls, years: Iterable[int]) -> FocusTime:
        return cls(years)

    @classmethod
    def from_range(cls, start: int, end: int) -> FocusTime:
        """Years start..end, both inclusive."""
        first, last = _checked_year(start, start), _checked_year(end, end)
        if last < first:
            raise _error(f"{start}-{end}", f"range end {end} is before its start {start}")
        return cls._trusted(range(first, last + 1))

    @classmethod
    def from_text(cls, text: str, reference_year: int | None = None) -> FocusTime:
        """The years a text is about. "last year" and the like need reference_year."""
        if not isinstance(text, str):
            raise FocusTimeError(f"from_text() needs a str, got {type(text).__name__}: {text!r}")
        if reference_year is not None:
            reference_year = _checked_year(reference_year, reference_year)
        return cls._trusted(_scan_text(text, reference_year))

    # --- set behaviour ---

    @property
    def min(self) -> int | None:
        return self._sorted[0] if self._sorted else None

    @property
    def max(self) -> int | None:
        return self._sorted[-1] if self._sorted else None

    def __len__(self) -> int:
        return len(self.years)

    def __iter__(self) -> Iterator[int]:
        return iter(self._sorted)

    def __contains__(self, year: object) -> bool:
        # True == 1 in Python; a bool is never a year.
        return not isinstance(year, bool) and year in self.years

    def __bool__(self) -> bool:
        return bool(self.years)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FocusTime):
            return self.years == other.years
        if isinstance(other, (set, frozenset)):
            return self.years == other
        return NotImplemented

    def __hash__(self) -> int:
        # Same hash as the equal frozenset, so FocusTime and frozenset keys agree in a dict.
        return hash(self.years)

    def __and__(self, other: object) -> FocusTime:
        if not isinstance(other, (FocusTime, set, frozenset)):
            return NotImplemented
        return FocusTime._trusted(self.years & FocusTime.parse(other).years)

    def __or__(self, other: object) -> FocusTime:
        if not isinstance(other, (FocusTime, set, frozenset)):
            return NotImplemented
        return FocusTime._trusted(self.years | FocusTime.parse(other).years)

    __rand__ = __and__
    __ror__ = __or__

    def jaccard(self, other: FocusTimeLike) -> float:
        """|A ∩ B| / |A ∪ B|; 0.0 when both are empty (no shared time, not a perfect match)."""
        theirs = FocusTime.parse(other).years
        union = len(self.years | theirs)
        return len(self.years & theirs) / union if union else 0.0

    def overlaps(self, other: FocusTimeLike) -> bool:
        return not self.years.isdisjoint(FocusTime.parse(other).years)

    # --- text forms ---

    def _runs(self) -> list[tuple[int, int]]:
        """Consecutive years collapsed into (first, last) pairs, ascending."""
        runs: list[tuple[int, int]] = []
        for year in self._sorted:
            if runs and runs[-1][1] == year - 1:
                runs[-1] = (runs[-1][0], year)
            else:
                runs.append((year, year))
        return runs

    def __str__(self) -> str:
        return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in self._runs())

    def __repr__(self) -> str:
        return f"FocusTime({str(self)!r})" if self.years else "FocusTime()"

    def to_json(self) -> list[int | str]:
        """Compact JSON value that parse() reads back: single years as ints, runs as "a-b"."""
        return [a if a == b else f"{a}-{b}" for a, b in self._runs()]


# Equal focus times share one FocusTime (from the class's own constructors) or at least one
# frozenset of years. A gold set of 100,000 documents has a few hundred distinct focus times;
# interned, the metrics index them with dict lookups that compare pointers instead of sets. Bounded
# (entries, and years per entry), so a stream of distinct focus times cannot grow it without limit;
# past the bounds nothing is interned, which costs only speed.
_INTERNED: dict[frozenset[int], FocusTime] = {}
_INTERN_ENTRIES = 4096
_INTERN_YEARS = 128
# Each focus time's intern key: the four bytes of a little-endian int32, its place in
# _INTERNED_IN_ORDER (equal focus times have equal keys), or NOT_INTERNED. Bytes, so that the keys
# of a whole gold set are one bytes.join read as an int32 array: the focus-time index reads one
# attribute per document where a dict lookup on its years would cost several times more.
_INTERNED_IN_ORDER: list[FocusTime] = []
NOT_INTERNED = -2
_NOT_INTERNED_KEY = NOT_INTERNED.to_bytes(4, "little", signed=True)
_INTERNING = threading.Lock()


def _intern(focus_time: FocusTime) -> None:
    """Intern a new focus time if there is room, and give it its intern key (an equal interned
    focus time's, when one exists)."""
    years = focus_time.years
    with _INTERNING:  # a key names one set of years, whichever thread interns it
        equal = _INTERNED.get(years)
        if equal is not None:
            key = equal._intern_key
        elif len(_INTERNED) < _INTERN_ENTRIES and len(years) <= _INTERN_YEARS:
            key = len(_INTERNED_IN_ORDER).to_bytes(4, "little", signed=True)
            _INTERNED[years] = focus_time
            _INTERNED_IN_ORDER.append(focus_time)
        else:
            key = _NOT_INTERNED_KEY
    object.__setattr__(focus_time, "_intern_key", key)


def interned_in_order() -> list[FocusTime]:
    """The interned focus times, the one of intern key ``i`` at ``i`` (read-only: for the
    metrics' index)."""
    return _INTERNED_IN_ORDER


# What FocusTime.parse accepts: a FocusTime, a year, a string form, or a collection of these.
# (A collection's items are checked when read: list and set are invariant, so a list[int] is only
# a list[Any].)
FocusTimeLike = FocusTime | int | str | list[Any] | tuple[Any, ...] | set[Any] | frozenset[Any]


def _checked_year(value: object, shown: object) -> int:
    """value as an int year in [MIN_YEAR, MAX_YEAR]; errors name ``shown`` (the user's value)."""
    # bool is an int subclass but never a year; numbers.Integral also admits numpy integers. The
    # exact-int test first: an ABC isinstance check costs microseconds, and gold sets have 100,000s.
    if type(value) is not int and (
        isinstance(value, bool) or not isinstance(value, numbers.Integral)
    ):
        raise _error(shown, f"expected an integer year, got {type(value).__name__} {value!r}")
    year = int(value)
    if not MIN_YEAR <= year <= MAX_YEAR:
        raise _error(shown, f"year {year} is outside {MIN_YEAR}..{MAX_YEAR}")
    return year


# --- parse(): structured values --------------------------------------------------------------

_VALUE = re.compile(
    rf"""
      (?P<year>\d{{1,4}})
    | (?P<start>\d{{1,4}}) \s* {_DASH} \s* (?P<end>\d{{1,4}})
    | (?P<decade>\d{{3}}0) {_APOSTROPHE}? s
    | {_CENTURY}
    """,
    re.IGNORECASE | re.VERBOSE,
)


def _parse_value(value: object) -> set[int]:
    if isinstance(value, FocusTime):
        return set(value.years)
    if isinstance(value, (list, tuple, set, frozenset)):
        years: set[int] = set()
        for item in value:
            years |= _parse_value(item)
        return years
    if isinstance(value, str):
        return _parse_string(value)
    return {_checked_year(value, value)}


def _parse_string(text: str) -> set[int]:
    if not text.strip():
        raise _error(text, "empty string")
    years: set[int] = set()
    for part in text.split(","):  # "1990-1995, 2001" is what str(FocusTime) writes
        match = _VALUE.fullmatch(part.strip())
        if match is None:
            raise _error(text, f"{part.strip()!r} is not a year, range, decade or century")
        if match["year"]:
            years.add(_checked_year(int(match["year"]), text))
        elif match["start"]:
            span = _read_range(match["start"], match["end"])
            if span is None:
                raise _error(
                    text, f"{part.strip()!r} is not a range: its end is not after its start"
                )
            years.update(range(_checked_year(span[0], text), _checked_year(span[1], text) + 1))
        elif match["decade"]:
            start = _checked_year(int(match["decade"]), text)
            years.update(range(start, start + 10))
        else:
            century = _century(match)
            if not century:
                raise _error(text, f"{part.strip()!r} is not a century in {MIN_YEAR}..{MAX_YEAR}")
            years.update(century)
    return years


# --- from_text(): free text ------------------------------------------------------------------
#
# One regex with one named group per form, scanned left to right: the first alternative that
# matches at a position wins and consumes its span, so "2019-2021" is one range and its "2021"
# is not read again as a year. Some alternatives exist only to consume numbers that are NOT
# years (prices, page numbers, decimals, quantities). Order of alternatives matters.

# A number ends here: not glued to letters or digits, not continued by decimals or thousands
# ("2020.5", "2020,000"), not a percentage, not a year BC (there is no year 0 or below here).
_END = r"(?![\w%]|[.,]\d|\s*(?:bce?|b\.c\.(?:e\.)?)(?!\w))"
# One number, possibly with decimals, thousands separators or a dash range: "2,020", "1.5", "10-12".
# At most 20 parts: each position of a chain of thousands ("1990-1990-...") would otherwise read
# to its end, and the scan would take the square of its length.
_NUMBER = rf"\d+(?:[.,]\d+|\s*{_DASH}\s*\d+){{0,20}}"
# Units after which a number is a quantity. Case-sensitive: "2020 Ms Smith" is not milliseconds.
_UNIT = r"\s?(?:%|(?-i:km|m|kg|g|mph|kb|mb|gb|KB|MB|GB|ms|hz|Hz|kHz|MHz|GHz|px)\b)"
# Words after which a 4-digit number is a quantity, never a year: "2000 years", "1500 meters".
# (Not "dollars": "in 2015 dollars" is a year. Not "votes": see docs/focus-time.md.)
_MEASURE_WORD = (
    r"years|months|weeks|days|hours|minutes|seconds|decades|centuries|meters|metres|kilometers"
    r"|kilometres|miles|feet|pounds|tons|tonnes|words|pages|calories|steps"
)
# Hyphened after a 4-digit number, a measure too: "a 2000-year-old tree", "a 1200-page novel".
_MEASURE_COMPOUND = (
    r"years?|months?|weeks?|days?|hours?|page|word|mile|meter|metre|foot|seat|acre|ton|pound"
    r"|point|piece|member|strong|man|room|bed|student"
)
# Words after which a number is an identifier. "No" is case-sensitive ("there was no 2020 event").
_MARKER = r"(?:pages?|pp?\.|no\.|(?-i:No)|number|room|flight|route|form|rfc|sections?)"
# Markers whose first letter the scan's lookahead does not list (a, c, i, m): matched at the number
# with one fixed-width lookbehind each (a single space between), which costs nothing elsewhere.
_MARKER_BEFORE = "|".join(rf"(?<={word}\s)" for word in ("code", "iso", "chapter", "article"))
# Counting words: the number after them counts ("more than 1500 employees"), whatever it is.
_COUNTED_BEFORE = "|".join(
    rf"(?<={words}\s)"
    for words in (
        r"more\sthan",
        r"fewer\sthan",
        r"less\sthan",
        r"at\sleast",
        r"at\smost",
        "nearly",
        "almost",
    )
)
# Ranked lists: "top 1000 companies" counts, "top 2020 movies" are the year's. A round hundred
# after "top" or "bottom" is the list's size.
_RANKED_BEFORE = r"(?<=top\s)|(?<=bottom\s)"
# Events named with a 2-digit year: "World Cup 98", "Euro 96" ("Euro" capitalised: "euro 50" is
# money), "Expo 67", "Olympics 84", "class of 98". Each is one fixed-width lookbehind.
_EVENT_BEFORE = "|".join(
    rf"(?<={words}\s)"
    for words in (r"world\scup", "(?-i:Euro)", "olympics", r"olympic\sgames", "expo", r"class\sof")
)
# "the 1990's" is the decade; "2020's election" the year 2020 (a possessive). Only a 4-digit
# number ending in 0 can be either: with "the", "early", "mid" or "late" just before it, or with
# no word after it, it is the decade.
_NOT_AFTER_DECADE_WORD = "".join(
    f"(?<!{word})" for word in (r"the\s", r"early\s", r"mid\s", "mid-", r"late\s", "late-")
)
_DECADE_WORDS = {
    "thirties": 1930, "forties": 1940, "fifties": 1950, "sixties": 1960,
    "seventies": 1970, "eighties": 1980, "nineties": 1990,
}  # fmt: skip


def _by_first_letter(words: Iterable[str]) -> str:
    """An alternation of words grouped by their first letter, ``f(?:irst|ifth)|s(?:econd)``: a
    word start that no word begins with fails at one letter per group, not at every word."""
    groups: dict[str, list[str]] = {}
    for word in sorted(words, key=len, reverse=True):
        groups.setdefault(word[0], []).append(word[1:].replace("-", r"[\s-]"))
    return "|".join(f"{letter}(?:{'|'.join(rests)})" for letter, rests in groups.items())


_COUNT_WORD = _by_first_letter(_COUNT_WORDS)
_COUNT = rf"\d{{1,3}}|{_COUNT_WORD}"
# "19th", "nineteenth", "twenty-first": a century's number. Any of st/nd/rd/th after a number.
_ORDINAL_TEXT = rf"\d{{1,2}}(?:st|nd|rd|th)|{_by_first_letter(_ORDINAL_WORDS)}"

# Compiled at first use (1.5 ms): only from_text needs it, and importing the package is on every
# process's start-up path.
_SCAN_PATTERN = (
    # Speed: the alternatives are grouped by what they start with (a word, a digit, a symbol), and
    # each group is tried only where its first character is: at the many positions where no form
    # can start (inside words, spaces, most word starts) one lookahead fails. Within a group, the
    # first alternative that matches wins, as across the groups (no two start at one position).
    rf"""
    (?= [\d$€£¥\#§'‘’] | \b[bdeflnprsty] )
    (?:
    # -- forms that start with a number or a word
      (?P<ago>\b(?=[\defnost])(?P<ago_count>{_COUNT})\s+(?P<ago_unit>years?|decades?)\s+ago\b)
    | (?P<century>\b(?=[\defnst])(?P<first_century>{_ORDINAL_TEXT})
          (?:\s*(?P<joint>{_DASH}|\bto\b|\bthrough\b|\band\b|\bor\b|&)\s*
          (?P<last_century>{_ORDINAL_TEXT}))?[\s-]+centur(?:y|ies)\b{_END})
    # -- forms that start with a word
    | \b(?=[bdeflnprsty]) (?:
      (?P<past_n>(?:last|past)\s+(?P<count>\d+|{_COUNT_WORD})\s+years?\b)
    | (?P<next_n>next\s+(?P<next_count>\d+|{_COUNT_WORD})\s+years?\b)
    | (?P<past_decade>(?:last|past)\s+decade\b)
    | (?P<one_ago>(?=[yd])(?:(?<=\ba\s)|(?<=\ban\s)|(?<=\bone\s))
          (?P<one_unit>year|decade)\s+ago\b)
    | (?P<before_last>year\s+before\s+last\b)
    | (?P<relative>(?P<which>this|last|previous|next)\s+year\b)
    | (?P<since>since\s+(?P<since_year>\d{{4}}){_END}(?!\s*{_DASH}\s*\d))
    | (?P<fiscal>FY\s?{_APOSTROPHE}?(?P<fiscal_year>\d{{4}}|\d{{2}})(?-i:[EA])?
          (?:\s*(?:{_DASH}|/)\s*(?:FY\s?)?(?P<fiscal_end>\d{{4}}|\d{{2}}))?{_END})
    | (?P<identifier>{_MARKER}\s*{_NUMBER})
    | (?P<word_range>(?:from|between)\s+(?P<word_start>\d{{4}})
          (?:\s+(?:to|until|till|through|thru|and)\s+|\s*{_DASH}\s*)
          (?P<word_end>\d{{4}}|\d{{2}}){_END})
    | (?P<between_decades>between\s+(?:the\s+)?(?P<between_first>\d{{3}}0){_APOSTROPHE}?s
          \s+and\s+(?:the\s+)?(?P<between_last>\d{{3}}0){_APOSTROPHE}?s\b)
    | (?P<the_decade>the\s+{_APOSTROPHE}?(?P<the_tens>\d0){_APOSTROPHE}?s\b)
    | (?P<word_decade>the\s+(?:(?:early|late)\s+|mid[\s-]?)?
          (?P<decade_word>{"|".join(_DECADE_WORDS)})\b)
    )
    # -- forms that start with a digit
    | \b(?=\d) (?:
      (?P<named_number>(?:{_MARKER_BEFORE}){_NUMBER})
    | (?P<counted>(?:{_COUNTED_BEFORE}){_NUMBER}(?!\d|[.,]\d|{_APOSTROPHE}?s\b)
          |(?:{_RANKED_BEFORE})\d*00(?![\w%]|{_APOSTROPHE}s\b|[.,]\d))
    | (?P<dotted_date>\d{{1,2}}\.\d{{1,2}}\.(?P<dotted_year>\d{{4}}){_END})
    | (?P<separated_number>\d+(?:[.,]\d+)+)
    | (?P<quantity>{_NUMBER}{_UNIT})
    | (?P<measure>\d{{4}}(?:\s+(?:{_MEASURE_WORD})|-(?:{_MEASURE_COMPOUND}))\b)
    | (?P<thousands>(?<!the\s)\d{{1,2}}000s\s+of\b)
    | (?P<to_range>(?P<to_start>\d{{4}})
          \s+(?:to|until|till|through|thru)\s+
          (?P<to_end>\d{{4}}){_END})
    | (?P<decade_range>(?P<first_decade>\d{{3}}0){_APOSTROPHE}?s
          (?:\s*{_DASH}\s*|\s+(?:to|until|till|through|thru)\s+(?:the\s+)?)
          (?P<last_decade>\d{{3}}0){_APOSTROPHE}?s\b)
    | (?P<iso_date>(?P<iso_year>\d{{4}})-\d{{2}}-\d{{2}}(?!\d))
    | (?P<half>(?P<half_year>\d{{4}})(?-i:[QH])[1-4](?![\w%]))
    | (?P<slash_range>(?P<slash_start>\d{{4}})/(?P<slash_end>\d{{4}}|\d{{2}})(?!/\d){_END})
    | (?P<dash_range>(?P<dash_start>\d{{4}})\s*{_DASH}\s*(?P<dash_end>\d{{4}}|\d{{2}}){_END})
    | (?P<possessive>(?=\d{{3}}0{_APOSTROPHE}s){_NOT_AFTER_DECADE_WORD}
          (?P<possessive_year>\d{{3}}0){_APOSTROPHE}s
          (?=\s+(?!(?:and|or|to|through|thru|until|till|vs|versus)\b)[^\W\d_]))
    | (?P<decade>(?P<decade_start>\d{{3}}0){_APOSTROPHE}?s\b)
    | (?P<event_year>(?:{_EVENT_BEFORE})(?P<event_digits>\d{{2}})(?![\w'‘’%]|[.,]\d))
    | (?P<year>\d{{4}}{_END})
    )
    # -- forms that start with a symbol
    | (?P<marked_number>[$€£¥\#§]\s*{_NUMBER})
    | (?P<short_decade>{_APOSTROPHE}(?P<tens>\d0){_APOSTROPHE}?s\b)
    | (?P<short_year>(?<![\w'‘’]){_APOSTROPHE}(?P<short_start>\d{{2}})
          (?:\s*{_DASH}\s*{_APOSTROPHE}?(?P<short_end>\d{{2}}))?(?![\w'‘’%]|[.,]\d))
    )
    """
)

# The alternatives that read no year: consumed so that no digit of them is read as one.
_NOT_YEARS = frozenset(
    (
        "identifier",
        "named_number",
        "marked_number",
        "counted",
        "separated_number",
        "quantity",
        "measure",
        "thousands",
    )
)
# The alternatives resolved against reference_year; without one they read nothing.
RELATIVE_KINDS = frozenset(
    ("past_n", "next_n", "past_decade", "ago", "one_ago", "before_last", "relative", "since")
)


@functools.cache
def _scan() -> re.Pattern[str]:
    return re.compile(_SCAN_PATTERN, re.IGNORECASE | re.VERBOSE)


def _text_year(digits: str) -> list[int]:
    """[year] when a 4-digit number from text lies in [TEXT_YEAR_MIN, TEXT_YEAR_MAX], else []."""
    year = int(digits)
    return [year] if len(digits) == 4 and TEXT_YEAR_MIN <= year <= TEXT_YEAR_MAX else []


def _two_digit_year(digits: str) -> int:
    """'08 is 2008, '69 is 1969: the fixed pivot of the short decades, never today's date."""
    number = int(digits)
    return (2000 if number < _SHORT_DECADE_PIVOT else 1900) + number


def _text_range(start_text: str, end_text: str) -> Iterable[int]:
    span = _read_range(start_text, end_text)
    if span is not None and _span(*span, TEXT_YEAR_MIN, TEXT_YEAR_MAX):
        return range(span[0], span[1] + 1)
    # Not a range ("2020-03" year-month, reversed, out of bounds): read each end on its own.
    return _text_year(start_text) + _text_year(end_text)


def _decade_or_hundreds(digits: str) -> range:
    """The years of "1990s": its decade. A round hundred other than 2000 names its hundred years:
    "the 1800s" is 1800-1899 (no one means 1800-1809 by it); "the 2000s" is the decade 2000-2009,
    its usual sense."""
    if not _text_year(digits):
        return range(0)
    start = int(digits)
    return range(start, start + (100 if start % 100 == 0 and start != 2000 else 10))


def _count(text: str) -> int:
    return int(text) if text.isdigit() else _COUNT_WORDS[text.lower()]


def _ordinal(text: str) -> int:
    """19 for "19th" or "nineteenth"."""
    if text[0].isdigit():
        return int(text[:-2])
    return _ORDINAL_WORDS[re.sub(r"[\s-]+", "-", text.lower())]


def _match_years(match: re.Match[str], reference_year: int | None) -> Iterable[int]:
    """The years one match of the scan reads."""
    kind = match.lastgroup  # the outer group of the alternative that matched
    if kind == "year":
        return _text_year(match[kind])
    if kind in _NOT_YEARS:
        return ()
    if kind == "dash_range":
        return _text_range(match["dash_start"], match["dash_end"])
    if kind == "word_range":
        return _text_range(match["word_start"], match["word_end"])
    if kind == "to_range":
        return _text_range(match["to_start"], match["to_end"])
    if kind == "slash_range":  # a season: "2019/20" is 2019 and 2020; "1999/2005" two years
        start, end = match["slash_start"], match["slash_end"]
        span = _read_range(start, end)
        if span is not None and span[1] == span[0] + 1:
            return _text_range(start, end)
        return _text_year(start) + _text_year(end)
    if kind == "iso_date":
        return _text_year(match["iso_year"])
    if kind == "half":
        return _text_year(match["half_year"])
    if kind == "dotted_date":
        return _text_year(match["dotted_year"])
    if kind == "fiscal":
        digits = match["fiscal_year"]
        start = digits if len(digits) == 4 else str(_two_digit_year(digits))
        if match["fiscal_end"]:
            return _text_range(start, match["fiscal_end"])
        return _text_year(start)
    if kind == "possessive":
        return _text_year(match["possessive_year"])
    if kind == "decade":
        return _decade_or_hundreds(match["decade_start"])
    if kind in ("decade_range", "between_decades"):
        first = match["between_first"] or match["first_decade"]
        last = match["between_last"] or match["last_decade"]
        first_years, last_years = _decade_or_hundreds(first), _decade_or_hundreds(last)
        if first_years and last_years and last_years[-1] >= first_years[-1]:
            return range(first_years[0], last_years[-1] + 1)
        return [*first_years, *last_years]
    if kind in ("short_decade", "the_decade"):
        start = _two_digit_year(match["tens"] or match["the_tens"])
        return range(start, start + 10)
    if kind == "word_decade":
        start = _DECADE_WORDS[match["decade_word"].lower()]
        return range(start, start + 10)
    if kind == "short_year":
        start = _two_digit_year(match["short_start"])
        if match["short_end"] is None:
            return (start,)
        end = start - start % 100 + int(match["short_end"])
        return range(start, (end if end >= start else end + 100) + 1)
    if kind == "event_year":
        return (_two_digit_year(match["event_digits"]),)
    if kind == "century":
        first = _ordinal(match["first_century"])
        if match["joint"] is None:
            return _span(100 * first - 99, 100 * first)
        last = _ordinal(match["last_century"])
        if match["joint"].lower() in ("and", "or", "&"):
            return [*_span(100 * first - 99, 100 * first), *_span(100 * last - 99, 100 * last)]
        return _span(100 * first - 99, 100 * last)
    if reference_year is None:  # relative terms are never resolved against today's date
        return _text_year(match["since_year"]) if kind == "since" else ()
    return _relative_years(match, kind, reference_year)


def _relative_years(match: re.Match[str], kind: str | None, reference: int) -> Iterable[int]:
    if kind == "relative":
        offset = {"this": 0, "last": -1, "previous": -1, "next": 1}[match["which"].lower()]
        return _span(reference + offset, reference + offset)
    if kind == "past_n":
        return _span(reference - _count(match["count"]) + 1, reference)
    if kind == "next_n":
        return _span(reference + 1, reference + _count(match["next_count"]))
    if kind == "past_decade":  # the last 10 years, as "the last 10 years" reads
        return _span(reference - 9, reference)
    if kind in ("ago", "one_ago"):
        unit = (match["ago_unit"] or match["one_unit"]).lower()
        back = (_count(match["ago_count"]) if kind == "ago" else 1) * (
            10 if unit.startswith("decade") else 1
        )
        return _span(reference - back, reference - back)
    if kind == "before_last":
        return _span(reference - 2, reference - 2)
    if kind == "since":  # "since 2015": 2015 to the reference year
        year = _text_year(match["since_year"])
        if year and year[0] <= reference:
            return _span(year[0], reference)
        return year
    return ()


def _scan_text(text: str, reference_year: int | None) -> set[int]:
    years: set[int] = set()
    for match in _scan().finditer(text):
        if match.lastgroup == "year":  # the most frequent form, read here without a call
            digits = match["year"]
            if TEXT_YEAR_MIN <= int(digits) <= TEXT_YEAR_MAX:
                years.add(int(digits))
        else:
            years.update(_match_years(match, reference_year))
    return years


class TextReading(NamedTuple):
    """One form the scan found in a text: what ``from_text`` read there (``docs/focus-time.md``)."""

    kind: str  # the form: "year", "decade", "possessive", "relative", "quantity", ...
    text: str  # the words it read
    start: int  # where they start in the text
    years: frozenset[int]  # empty for a form that reads no year (or a relative one, unresolved)


def text_readings(text: str, reference_year: int | None = None) -> list[TextReading]:
    """Every form ``FocusTime.from_text`` reads in ``text``, in order, with its years: what
    ``tempoeval check --years`` shows and weighs. The union of their years is ``from_text``'s."""
    return [
        TextReading(
            str(match.lastgroup),
            match[0],
            match.start(),
            frozenset(_match_years(match, reference_year)),
        )
        for match in _scan().finditer(text)
    ]
