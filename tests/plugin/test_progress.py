"""The live-judging progress line: in place on a terminal, plain and rate-limited in a log."""

from __future__ import annotations

import io
from types import SimpleNamespace

import pytest

from pytest_tempoeval.reports import progress


class Writer:
    def __init__(self, tty: bool) -> None:
        self._file = SimpleNamespace(isatty=lambda: tty)
        self.written = io.StringIO()

    def write(self, text: str, flush: bool = False) -> None:
        self.written.write(text)


def show_for(writer: Writer) -> progress.Progress:
    config = SimpleNamespace(
        get_terminal_writer=lambda: writer,
        pluginmanager=SimpleNamespace(getplugin=lambda name: None),
    )
    show = progress.progress_line(config)  # type: ignore[arg-type]
    assert show is not None
    return show


def test_a_log_gets_a_plain_line_every_tenth_and_no_carriage_return(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(progress.time, "monotonic", lambda: 1000.0)  # no time passes
    writer = Writer(tty=False)
    show = show_for(writer)
    for done in range(1, 1001):
        show(done, 1000, 0)
    lines = writer.written.getvalue().splitlines()
    assert "\r" not in writer.written.getvalue()
    assert lines[0] == "judging 1/1000 (0 cached)" and lines[-1] == "judging 1000/1000 (0 cached)"
    assert len(lines) == 11  # the first, then one per tenth of the way: 101, 201, ..., 1000


def test_a_log_gets_a_line_every_5_seconds_when_progress_is_slow(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = [1000.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    writer = Writer(tty=False)
    show = show_for(writer)
    for done in range(1, 61):  # 60 of 10,000, one a second: under 1% of the way
        show(done, 10_000, 0)
        clock[0] += 1.0
    lines = writer.written.getvalue().splitlines()
    assert lines == [f"judging {done}/10000 (0 cached)" for done in range(1, 61, 5)]


def test_a_terminal_line_is_updated_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1000.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    writer = Writer(tty=True)
    show = show_for(writer)
    for done in range(1, 11):
        show(done, 10, 2)
        clock[0] += 0.5
    text = writer.written.getvalue()
    assert text.count("\r") == 10 and text.endswith("\rjudging 10/10 (2 cached)\n")
    assert text.count("\n") == 1


def test_xdist_workers_show_nothing() -> None:
    assert progress.progress_line(SimpleNamespace(workerinput={})) is None  # type: ignore[arg-type]
