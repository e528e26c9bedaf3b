"""Keeping a test's metric checks to itself."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from pytest_tempoeval.metrics import checks


@contextmanager
def recorded() -> Iterator[list[checks.Check]]:
    """The checks made inside, kept from the plugin's recorder: a test about failing checks
    neither fills the session's summary with them nor fails for a bare comparison it makes on
    purpose."""
    seen: list[checks.Check] = []
    checks.active_recorders.append(seen.append)
    try:
        yield seen
    finally:
        checks.active_recorders.pop()
