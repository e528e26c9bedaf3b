"""The gate's verdict, in one place: when a drop of a mean is a regression, the states a baseline
check ends in, and what a valid ``max_drop`` and ``alpha`` are.

The pytest gate (:mod:`.baselines`), the session's Holm correction (``session.correct_gate``) and
``tempoeval compare`` (``compare_cli.py``) all decide with :func:`regressed`, so a drop that fails
one fails them all.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from enum import StrEnum

from pytest_tempoeval.constants import SCORE_TOLERANCE

DEFAULT_ALPHA = 0.05  # the significance level of a baseline check
DEFAULT_MAX_DROP = 0.0  # the drop of a mean a check tolerates (ini tempoeval_max_drop)


class Verdict(StrEnum):
    """What a baseline check (or a measure of ``tempoeval compare``) came to. Each compares equal
    to its string, and is written as it in JSON."""

    PASS = "pass"
    IMPROVED = "improved"  # the baseline can be raised
    REGRESSED = "regressed"
    WRITTEN = "written"  # --tempoeval-update-baseline
    INCOMPLETE = "incomplete"  # queries left out, and fail_on_excluded says that fails
    UNKNOWN_IDS = "unknown ids"  # retrieved ids the gold set does not know (fail_on_unknown_ids)
    DRY_RUN = "dry run"  # nothing was judged: the test is skipped
    PENDING = "pending"  # a significant drop the session's Holm correction decides at its end
    OK = "ok"  # tempoeval compare: the measure did not regress

    @property
    def passed(self) -> bool:
        return self not in (Verdict.REGRESSED, Verdict.INCOMPLETE, Verdict.UNKNOWN_IDS)


def regressed(drop: float, max_drop: float, p_value: float | None, alpha: float) -> bool:
    """Whether a drop of the mean (baseline - current) fails the gate: larger than ``max_drop``
    (beyond float summation noise), and significant, ``p_value < alpha``. A ``p_value`` of None
    means untested (too few queries to mean anything): ``max_drop`` alone decides.

    A NaN is never a verdict: every comparison with it is false, so it would pass unnoticed."""
    if math.isnan(drop) or (p_value is not None and math.isnan(p_value)):
        raise ValueError(f"no verdict on a NaN (drop {drop!r}, p-value {p_value!r})")
    return drop > max_drop + SCORE_TOLERANCE and (p_value is None or p_value < alpha)


def valid_max_drop(value: float) -> bool:
    """A finite number >= 0: infinity would switch the gate off."""
    return math.isfinite(value) and value >= 0


def valid_alpha(value: float) -> bool:
    return 0 < value < 1


def max_drop_from(text: str) -> float:
    """``max_drop`` given as text (an ini key, a command-line option); ValueError saying "must be
    a finite number >= 0, got ..." otherwise."""
    return _number_from(text, valid_max_drop, "a finite number >= 0")


def alpha_from(text: str) -> float:
    """``alpha`` given as text; ValueError saying "must be in (0, 1), got ..." otherwise."""
    return _number_from(text, valid_alpha, "in (0, 1)")


def _number_from(text: str, valid: Callable[[float], bool], rule: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan  # valid nowhere
    if not valid(value):
        raise ValueError(f"must be {rule}, got {text!r}")
    return value
