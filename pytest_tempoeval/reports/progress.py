"""The progress line while judgments are recorded live (slow, and billed)."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

Progress = Callable[[int, int, int], None]  # (done, total, answered from memory)
_MIN_INTERVAL = 0.2  # seconds between updates: at most five a second


def progress_line(config: pytest.Config) -> Progress | None:
    """A terminal line updated in place: ``judging 340/1000 (120 cached)``. None under xdist
    workers, which have no terminal."""
    if hasattr(config, "workerinput"):
        return None
    writer = config.get_terminal_writer()
    capture = config.pluginmanager.getplugin("capturemanager")
    last = [0.0]

    def show(done: int, total: int, cached: int) -> None:
        now = time.monotonic()
        if done < total and now - last[0] < _MIN_INTERVAL:
            return
        last[0] = now
        text = f"\rjudging {done}/{total} ({cached} cached)" + ("\n" if done == total else "")
        if capture is None:
            writer.write(text, flush=True)
            return
        with capture.global_and_fixture_disabled():
            writer.write(text, flush=True)

    return show
