"""Kill processes that use a shared RequestBudget, and report what the ledger says afterwards.

Run as a script by tests/judge/test_budget_kills.py, in a process of its own: it forks, and a
process that forks must have no other thread (pytest's, xdist's). Prints one JSON object.

- ``steps OP``: for k = 1, 2, ...: a fresh ledger holding 5 units, a child that calls ``OP``
  (take or give_back) and SIGKILLs itself at the k-th profiler event inside the call (every
  Python call and return, every call into C: open, flock, read, truncate, write, fsync...), until a
  child finishes the call alive. Reports the count after each kill.
- ``stress``: ``processes`` workers take units until the budget is spent, giving one back now and
  then (a request not sent after all) and writing one byte to a grants file for every unit kept (a
  request sent); every 5-30 ms one of them is SIGKILLed and replaced, until every worker has found
  the budget spent or ``seconds`` ran out. Reports units granted (sent) and units on the ledger.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sys
import time
from pathlib import Path
from typing import Any

from pytest_tempoeval.judge.budget import RequestBudget

PREFILLED = 5
MAX_EVENTS = 5000  # far more than one take makes; a bound, not a guess of the count


def steps(operation: str, directory: Path) -> dict[str, Any]:
    counts, finished = [], False
    for k in range(1, MAX_EVENTS):
        path = directory / f"ledger-{operation}-{k}"
        budget = RequestBudget(100, path)
        for _ in range(PREFILLED):
            budget.take()
        child = os.fork()
        if child == 0:  # pragma: no cover - the child
            _die_at_event(k)
            getattr(RequestBudget(100, path), operation)()
            sys.setprofile(None)
            os._exit(0)
        _, status = os.waitpid(child, 0)
        counts.append(budget.used)
        path.unlink()
        if os.WIFEXITED(status):
            finished = os.WEXITSTATUS(status) == 0
            break
    return {
        "operation": operation,
        "before": PREFILLED,
        "after_kill": counts[:-1],
        "after_call": counts[-1],
        "finished": finished,
    }


def _die_at_event(k: int) -> None:
    seen = 0

    def profile(*_: object) -> None:
        nonlocal seen
        seen += 1
        if seen >= k:
            os.kill(os.getpid(), signal.SIGKILL)

    sys.setprofile(profile)


def stress(limit: int, processes: int, seconds: float, directory: Path) -> dict[str, Any]:
    ledger, grants = directory / "ledger", directory / "grants"
    ledger.touch()
    grants.touch()
    deadline = time.monotonic() + seconds
    workers = {_spawn(limit, ledger, grants) for _ in range(processes)}
    kills = 0
    while workers and time.monotonic() < deadline:
        time.sleep(random.uniform(0.005, 0.030))
        workers -= _finished(workers)
        if workers:
            victim = random.choice(sorted(workers))
            os.kill(victim, signal.SIGKILL)
            os.waitpid(victim, 0)
            workers.remove(victim)
            workers.add(_spawn(limit, ledger, grants))
            kills += 1
    complete = not workers
    for worker in workers:  # out of time: stopped where they are
        os.kill(worker, signal.SIGKILL)
        os.waitpid(worker, 0)
    return {
        "limit": limit,
        "granted": grants.stat().st_size,
        "on_ledger": RequestBudget(limit, ledger).used,
        "kills": kills,
        "complete": complete,
    }


def _spawn(limit: int, ledger: Path, grants: Path) -> int:
    child = os.fork()
    if child:
        return child
    try:  # pragma: no cover - the child
        chance = random.Random(os.getpid())
        budget = RequestBudget(limit, ledger)
        sent = os.open(grants, os.O_WRONLY | os.O_APPEND)
        while budget.take():
            if chance.random() < 0.2:
                budget.give_back()  # decided not to send it
            else:
                os.write(sent, b"g")  # sent: the request is paid for
    finally:
        os._exit(0)


def _finished(workers: set[int]) -> set[int]:
    done = set()
    for worker in workers:
        pid, _ = os.waitpid(worker, os.WNOHANG)
        if pid:
            done.add(worker)
    return done


def main(argv: list[str]) -> None:
    directory = Path(argv[1])
    if argv[0] == "steps":
        result = steps(argv[2], directory)
    else:
        limit, processes, seconds = int(argv[2]), int(argv[3]), float(argv[4])
        result = stress(limit, processes, seconds, directory)
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
