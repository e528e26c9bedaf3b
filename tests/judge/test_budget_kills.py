"""The shared request budget under kill -9: never more units granted than the limit.

The driver (budget_kills.py) runs in a process of its own and forks the processes it kills. The
random stress runs once here (limit 500, about a second); ``TEMPOEVAL_STRESS_TRIALS=N`` runs it N
times for each of the limits 200 and 1000 (the issue's scenario: 6 processes, one killed every
5-30 ms).
"""

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="fork, flock and SIGKILL")

DRIVER = Path(__file__).with_name("budget_kills.py")
TRIALS = int(os.environ.get("TEMPOEVAL_STRESS_TRIALS", "0"))
STRESS_RUNS = (
    [(limit, trial) for limit in (200, 1000) for trial in range(TRIALS)] if TRIALS else [(500, 0)]
)


def drive(directory: Path, *arguments: object) -> dict[str, Any]:
    directory.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [sys.executable, str(DRIVER), arguments[0], str(directory), *map(str, arguments[1:])],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize(("operation", "change"), [("take", 1), ("give_back", -1)])
def test_a_kill_at_any_step_never_lowers_the_count(
    tmp_path: Path, operation: str, change: int
) -> None:
    """Killed at each profiler event of the call in turn: the ledger holds the count from before
    the call or the one after it, nothing else (rewriting the count in place left 0 for a kill
    between its truncate and its write: a fresh budget)."""
    result = drive(tmp_path, "steps", operation)
    before = result["before"]
    assert result["finished"] and result["after_call"] == before + change
    assert set(result["after_kill"]) == {before, before + change}  # both sides were hit


@pytest.mark.parametrize(("limit", "trial"), STRESS_RUNS)
def test_random_kills_never_grant_more_than_the_limit(
    tmp_path: Path, limit: int, trial: int
) -> None:
    result = drive(tmp_path, "stress", limit, 6, 60)
    granted, on_ledger, kills = result["granted"], result["on_ledger"], result["kills"]
    print(f"limit {limit}: granted {granted}, on the ledger {on_ledger}, {kills} kills")
    assert result["granted"] <= result["on_ledger"] <= limit  # a sent request is on the ledger
    assert result["kills"] > 0
    if result["complete"]:  # every worker found the budget spent
        assert result["on_ledger"] == limit
