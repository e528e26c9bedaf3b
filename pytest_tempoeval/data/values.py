"""The rules every input value obeys, stated once: what an id is, what a rank cutoff is."""

from __future__ import annotations

import numbers
import re

from pytest_tempoeval.errors import MetricError, closest_match

# An id as it usually is: not empty, no surrounding whitespace, no control characters. A fast
# check for the common case; anything else goes through id_problem for the exact complaint.
PLAIN_ID = re.compile(r"(?!\s)[^\x00-\x1f\x7f\ud800-\udfff]+(?<!\s)")
# The largest rank cutoff: far above any ranking evaluated, and small enough that nothing sized by
# k alone can exhaust memory.
MAX_K = 1_000_000
# The largest grade (and, in qrels, the most negative): graded scales are small, and a bound keeps
# every gain exact in int64 and float64.
MAX_GRADE = 1_000_000


def grade_rule(negative: bool) -> str:
    """What a grade must be, said after the grade: ``negative`` where grades below 0 are allowed
    (qrels: trec_eval reads -1, and ClueWeb's -2 for junk, as judged non-relevant)."""
    if negative:
        return (
            f"is not an integer from -{MAX_GRADE:,} to {MAX_GRADE:,}; use 0 (judged "
            "non-relevant), 1, 2, ... (negative grades are judged non-relevant too)"
        )
    return f"is not an integer from 0 to {MAX_GRADE:,}; use 0 (judged non-relevant), 1, 2, ..."


def grade_problem(value: object, negative: bool = True) -> str | None:
    """Why ``value`` cannot be a judgment's grade (:func:`grade_rule`), or None when it can. Every
    loader applies it when it reads a grade: past the bound, a grade would overflow the int64
    and float64 of the metrics (10**30 raised OverflowError at evaluate time)."""
    low = -MAX_GRADE if negative else 0
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Integral)
        or not low <= int(value) <= MAX_GRADE
    ):
        return grade_rule(negative)
    return None


def rel_problem(rel: object) -> str | None:
    """Why ``rel`` (P(rel=2)@5, ``precision(..., rel=2)``: the lowest grade that counts as
    relevant) cannot be one, or None when it can."""
    if isinstance(rel, bool) or not isinstance(rel, numbers.Integral):
        return f"rel must be an integer grade, got {rel!r}"
    rel = int(rel)  # a numpy integer too
    if rel < 1:
        return (
            f"rel must be at least 1, got {rel}: rel is the lowest grade that counts as "
            "relevant, and a grade of 0 or less means judged non-relevant, so rel <= 0 would "
            "count non-relevant documents as relevant (ir_measures and pytrec_eval refuse it "
            "too); use rel=1 for every relevant grade"
        )
    if rel > MAX_GRADE:
        return f"rel must be at most {MAX_GRADE:,} (the largest grade), got {rel:,}"
    return None


def id_problem(value: object) -> str | None:
    """Why ``value`` cannot be a query or document id, or None when it can.

    An id is a string (an int is read as its decimal text) that is not empty, has no leading or
    trailing whitespace and no control characters: TREC files split on whitespace, and an invisible
    character would make two ids that look the same differ.
    """
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return f"must be a string, got {_id(value)} ({type(value).__name__})"
    text = str(value)
    if not text.strip():
        return "is empty" if not text else f"{_id(text)} is only whitespace"
    if text != text.strip():
        return f"{_id(text)} has leading or trailing whitespace"
    if any(ord(char) < 32 or ord(char) == 127 for char in text):
        return f"{_id(text)} contains a control character"
    if any(0xD800 <= ord(char) <= 0xDFFF for char in text):
        return f"{_id(text)} contains a lone surrogate, which no UTF-8 file or report can hold"
    return None


SHOWN_ID = 200  # characters of an id an error quotes: enough to see what is wrong with it


def _id(value: object) -> str:
    return short_repr(value, SHOWN_ID)


def string_score_problem(value: object, doc_id: object) -> str | None:
    """Why a result's second item ``value`` cannot be read, when it is a number written as a
    string ("1.0", "0.9", "2020"); None otherwise.

    A (doc id, string) pair is (doc id, text); but a string that reads as a number is a score
    someone forgot to convert far more often than a document's text, and read as a text it would
    silently lower every score (the judge would read "1.0" as the document).
    """
    if not isinstance(value, str) or not is_number(value):
        return None
    return f"score {value!r} of doc {doc_id!r} is not a number (it is a string)"


def short_repr(value: object, limit: int = 40) -> str:
    """``repr(value)``, cut when longer than ``limit``: an error names a value, it does not print
    a megabyte."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit // 2]}...({len(text)} characters)"


def check_k(k: object, error: type[Exception] = MetricError) -> int:
    """``k`` as a positive int rank cutoff, or ``error``."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or int(k) <= 0:
        raise error(f"k must be a positive integer (the rank cutoff), got {k!r}")
    if int(k) > MAX_K:
        raise error(f"k must be at most {MAX_K:,} (the rank cutoff), got {int(k):,}")
    return int(k)


def is_number(text: str | bytes) -> bool:
    """Whether a field or a string reads as a float (``"1.0"``, ``b"2e3"``, ``"nan"``)."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def did_you_mean(key: str, allowed: tuple[str, ...]) -> str:
    """``unknown key 'querys'; did you mean 'queries'? (allowed: ...)``: the error of a key a file's
    mapping does not take. Case-insensitive, so "ID" and "Relevant" find their key too."""
    lowered = {name.lower(): name for name in allowed}
    close = closest_match(key.lower(), lowered)
    hint = f"; did you mean {lowered[close]!r}?" if close else ""
    return f"unknown key {key!r}{hint} (allowed: {', '.join(allowed)})"
