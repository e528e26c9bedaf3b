"""The error types users catch. Every one says where (file:line, query id, doc id) and what to do."""

from __future__ import annotations


class TempoEvalError(Exception):
    """Base class of every error this package raises on purpose."""


class FocusTimeError(TempoEvalError, ValueError):
    """A value could not be read as a focus time (bad year, unknown form, year out of bounds)."""


class GoldSetError(TempoEvalError, ValueError):
    """A golden query set is malformed. The message starts with ``path:line:``."""


class RunError(TempoEvalError, ValueError):
    """A run (ranked results) is malformed or does not fit the gold set."""


class MetricError(TempoEvalError, ValueError):
    """A metric was called with arguments it cannot honour (k <= 0, unknown mode, ...)."""


class JudgeError(TempoEvalError, RuntimeError):
    """An LLM judge failed to give a valid judgment. Never scored as 0."""


def located(path: object, line: int | None, message: str) -> str:
    """Format ``path:line: message`` the way compilers and pytest do, so editors can jump there."""
    where = f"{path}:{line}" if line is not None else f"{path}"
    return f"{where}: {message}"
