"""What the command-line tests share: running ``tempoeval`` in-process."""

from __future__ import annotations

import pytest

from pytest_tempoeval.cli import main


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``tempoeval ARGV...`` in this process: its exit code, stdout and stderr."""
    try:
        code = main(list(argv))
    except SystemExit as exit:
        code = int(exit.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err
