"""pytest entry point (``pytest11: tempoeval``).

Kept thin on purpose, like pytest-recording's: options, markers, fixtures and hooks only. Nothing heavy
(numpy, anthropic, vcrpy) is imported here, so a suite that never uses the plugin pays nothing.
"""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "tempoeval(gold=PATH): golden query set used by the tempoeval_gold fixture.",
    )
