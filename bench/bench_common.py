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
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])),
    )
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    if bytecode_cache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(data_dir / "pycache")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run_json_child(
    python: str, script: Path, args: list[str], env: dict[str, str], cwd: Path
) -> tuple[float, float, dict]:
    """Spawn ``python script args``, timed from spawn to reap, and return (wall seconds, peak RSS in
    MiB from wait4, the JSON object on the child's last stdout line). Raises with its stderr if it
    fails."""
    import json
    import os
    import subprocess
    import tempfile
    import time

    with tempfile.TemporaryFile() as stderr:
        start = time.perf_counter()
        process = subprocess.Popen(
            [python, str(script), *args], stdout=subprocess.PIPE, stderr=stderr, env=env, cwd=cwd
        )
        stdout = process.stdout.read()  # type: ignore[union-attr]
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.stdout.close()  # type: ignore[union-attr]
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            stderr.seek(0)
            raise RuntimeError(
                f"{script.name} {args} failed (exit {process.returncode}):\n"
                f"{stderr.read().decode(errors='replace')}"
            )
    return wall, usage.ru_maxrss / 1024, json.loads(stdout.decode().strip().splitlines()[-1])
