"""An alias kept for the import path earlier docs showed (``from pytest_tempoeval.focus_time import
FocusTime``). The module is :mod:`pytest_tempoeval.data.focus_time`; ``from pytest_tempoeval import
FocusTime`` is the preferred import."""

from pytest_tempoeval.data.focus_time import (
    MAX_YEAR,
    MIN_YEAR,
    TEXT_YEAR_MAX,
    TEXT_YEAR_MIN,
    FocusTime,
    FocusTimeLike,
)

__all__ = ["MAX_YEAR", "MIN_YEAR", "TEXT_YEAR_MAX", "TEXT_YEAR_MIN", "FocusTime", "FocusTimeLike"]
