"""A cap on the new requests a session may send to the judge (ini ``tempoeval_judge_max_requests``,
``--tempoeval-judge-max-requests``): recording costs money, and a runaway suite must not.

Each new request takes one unit before it is sent; a request that cannot take one is not sent. The
count lives in memory, or, under pytest-xdist, in a small file the controller creates and every
worker updates under an exclusive lock, so the cap holds for the whole session, never per worker.
"""

from __future__ import annotations

import fcntl
import os
import threading
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
        with self._lock:
            if self.path is None:
                if self._used >= self.limit:
                    return False
                self._used += 1
                return True
            with open(self.path, "a+", encoding="ascii") as file:
                fcntl.flock(file, fcntl.LOCK_EX)  # released when the file closes
                file.seek(0)
                used = int(file.read().strip() or 0)
                if used >= self.limit:
                    return False
                file.seek(0)
                file.truncate()
                file.write(str(used + 1))
                file.flush()
                os.fsync(file.fileno())
                return True

    def give_back(self) -> None:
        """Return one unit taken for a request that was not sent after all."""
        with self._lock:
            if self.path is None:
                self._used = max(0, self._used - 1)
                return
            with open(self.path, "a+", encoding="ascii") as file:
                fcntl.flock(file, fcntl.LOCK_EX)
                file.seek(0)
                used = int(file.read().strip() or 0)
                file.seek(0)
                file.truncate()
                file.write(str(max(0, used - 1)))

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
