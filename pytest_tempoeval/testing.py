"""Testing helpers for your own suites: a loopback fake of the Anthropic Messages API.

Record judge cassettes against it with no network and no API key; inject faults to test how a
suite handles them. ``python -m pytest_tempoeval.testing`` serves it until interrupted. The
implementation is :mod:`pytest_tempoeval.judge.fake_api`.
"""

from __future__ import annotations

from pytest_tempoeval.judge.fake_api import FakeMessagesServer, Fault, fake_judgment, main

__all__ = ["FakeMessagesServer", "Fault", "fake_judgment", "main"]

if __name__ == "__main__":
    main()
