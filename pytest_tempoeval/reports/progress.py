"""The progress line while judgments are recorded live (slow, and billed)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    import pytest

Progress = Callable[[int, int, int], None]  # (done, total, answered from memory)
TTY_INTERVAL = 0.2  # seconds between updates of a terminal line: at most five a second
LOG_INTERVAL = 5.0  # seconds between plain lines in a log (CI)
LOG_STEP = 0.1  # ... or one line every tenth of the way


def progress_line(config: pytest.Config) -> Progress | None:
    """On a terminal, one line updated in place: ``judging 340/1000 (120 cached)``. In a log (not a
    TTY, as in CI), plain lines, at most one every 5 s or every 10%, never a carriage return. None
    under xdist workers, which have no terminal."""
    if hasattr(config, "workerinput"):
        return None
    writer = config.get_terminal_writer()
    capture = config.pluginmanager.getplugin("capturemanager")

    def write(text: str) -> None:
        if capture is None:
            writer.write(text, flush=True)
            return
        with capture.global_and_fixture_disabled():
            writer.write(text, flush=True)

    return _progress(write, _isatty(writer))


def stream_progress(stream: TextIO) -> Progress:
    """The same progress, on a stream (``tempoeval pool``: stderr)."""

    def write(text: str) -> None:
        stream.write(text)
        stream.flush()

    try:
        tty = stream.isatty()
    except (ValueError, OSError):
        tty = False
    return _progress(write, tty)


def _progress(write: Callable[[str], None], tty: bool) -> Progress:
    last_time, last_share = [0.0], [0.0]

    def show(done: int, total: int, cached: int) -> None:
        now, share = time.monotonic(), done / max(total, 1)
        text = f"judging {done}/{total} ({cached} cached)"
        if tty:
            if done < total and now - last_time[0] < TTY_INTERVAL:
                return
            text = "\r" + text + ("\n" if done == total else "")
        else:
            due = now - last_time[0] >= LOG_INTERVAL or share - last_share[0] >= LOG_STEP
            if done < total and not due:
                return
            text += "\n"
        last_time[0], last_share[0] = now, share
        write(text)

    return show


def _isatty(writer: object) -> bool:
    file = getattr(writer, "_file", None)
    try:
        return bool(file is not None and file.isatty())
    except (ValueError, OSError):  # a closed or odd stream
        return False


def status_line(config: pytest.Config) -> Callable[[str], None]:
    """Status while a Message Batch is processed (``batch msgbatch_...: waiting (120 s)``): one
    line each time, as a batch is polled at most every few seconds. Written past output capture, as
    the progress line is."""
    writer = config.get_terminal_writer()
    capture = config.pluginmanager.getplugin("capturemanager")

    def show(text: str) -> None:
        if capture is None:
            writer.write(text + "\n", flush=True)
            return
        with capture.global_and_fixture_disabled():
            writer.write(text + "\n", flush=True)

    return show
