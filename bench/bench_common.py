"""Helpers shared by the benchmark scripts."""

from __future__ import annotations

import os
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


def child_environment(data_dir: Path, bytecode_cache: bool) -> dict[str, str]:
    """Environment of timed child processes: ``pytest_tempoeval`` imported from this checkout.

    With ``bytecode_cache``, modules load from cached bytecode kept in the data dir, as after a pip
    install (this environment sets PYTHONDONTWRITEBYTECODE; nothing is written into the repo).
    """
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])))
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    if bytecode_cache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(data_dir / "pycache")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env
