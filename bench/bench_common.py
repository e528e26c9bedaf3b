"""Helpers shared by the benchmark scripts."""

from __future__ import annotations

import subprocess
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def code_version() -> str:
    """The checkout being measured: HEAD and which files differ from it (others edit the tree)."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "pytest_tempoeval"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=False,
        ).stdout.split("\n")
        changed = [line[3:] for line in dirty if line.strip()]
    except OSError:
        return "unknown (no git)"
    return f"git {head}" + (
        f" + uncommitted changes to {', '.join(changed)}" if changed else " (clean)"
    )
