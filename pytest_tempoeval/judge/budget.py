"""A cap on the new requests a session may send to the judge (ini ``tempoeval_judge_max_requests``,
``--tempoeval-judge-max-requests``): recording costs money, and a runaway suite must not.

Each new request takes one unit before it is sent; a request that cannot take one is not sent. The
count lives in memory, or, under pytest-xdist, in a small file the controller creates and every
worker updates under an exclusive lock, so the cap holds for the whole session, never per worker.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path


class RequestBudget:
    """``limit`` new judge requests for the session; ``path``: the count shared across processes."""

    def __init__(self, limit: int, path: Path | None = None) -> None:
        if limit < 0:
            raise ValueError(f"the judge request budget must be >= 0, got {limit}")
        self.limit = limit
        self.path = path
        self._used = 0  # in memory, when no file is shared
        self._lock = threading.Lock()  # the judge's requests run on threads of one event loop too

    def take(self) -> bool:
        """Take one request from the budget; False when it is spent (nothing is taken)."""
        return self._change(lambda used: used + 1 if used < self.limit else None)

    def give_back(self) -> None:
        """Return one unit taken for a request that was not sent after all."""
        self._change(lambda used: max(0, used - 1))

    def _change(self, step: Callable[[int], int | None]) -> bool:
        """Apply ``step`` to the count, atomically across threads and processes; a step giving
        None changes nothing, and the call returns False."""
        with self._lock:
            if self.path is None:
                new = step(self._used)
                if new is None:
                    return False
                self._used = new
                return True
            import fcntl  # POSIX: only a shared (xdist) budget needs it

            with open(self.path, "a+", encoding="ascii") as file:
                fcntl.flock(file, fcntl.LOCK_EX)  # released when the file closes
                file.seek(0)
                new = step(int(file.read().strip() or 0))
                if new is None:
                    return False
                file.seek(0)
                file.truncate()
                file.write(str(new))
                file.flush()
                os.fsync(file.fileno())
                return True

    @property
    def used(self) -> int:
        if self.path is None:
            return self._used
        try:
            return int(self.path.read_text(encoding="ascii").strip() or 0)
        except FileNotFoundError:
            return 0

    @property
    def remaining(self) -> int:
        return max(0, self.limit - self.used)
