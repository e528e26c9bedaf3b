"""A cap on the new requests a session may send to the judge (ini ``tempoeval_judge_max_requests``,
``--tempoeval-judge-max-requests``): recording costs money, and a runaway suite must not.

Each new request takes one unit before it is sent; a request that cannot take one is not sent. The
count lives in memory, or, under pytest-xdist, in a small file the controller creates and every
worker updates under an exclusive lock, so the cap holds for the whole session, never per worker.

The shared file is an append-only ledger: one byte ``+`` per unit taken, one byte ``-`` per unit
given back; the count is the ``+`` minus the ``-``. No byte is ever rewritten, so a process killed
at any instant (kill -9, a crashed xdist worker) leaves the count it had or one more, never less:
rewriting a number in place (truncate, then write) left an empty file, a count of 0 and a fresh
budget whenever a kill fell in between. A new file renamed over the old one would be torn-proof
too, but the lock could then not be on the file itself (each process would lock the inode it
opened, not the current one) and would need a second, stable lock file; the ledger needs one file,
one lock and one single-byte append, which a kill can only leave done or not done. A unit is
written before the request is sent: a process killed in between wastes that unit, the safe
direction; a request is never sent without its unit on file.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

TAKEN, GIVEN_BACK = b"+", b"-"


class RequestBudget:
    """``limit`` new judge requests for the session; ``path``: the ledger shared across
    processes."""

    def __init__(self, limit: int, path: Path | None = None) -> None:
        if limit < 0:
            raise ValueError(f"the judge request budget must be >= 0, got {limit}")
        self.limit = limit
        self.path = path
        self._used = 0  # in memory, when no file is shared
        self._lock = threading.Lock()  # the judge's requests run on threads of one event loop too

    def take(self) -> bool:
        """Take one request from the budget; False when it is spent (nothing is taken)."""
        return self._change(TAKEN)

    def give_back(self) -> None:
        """Return one unit taken for a request that was not sent after all."""
        self._change(GIVEN_BACK)

    def _change(self, mark: bytes) -> bool:
        """Take or give back one unit, atomically across threads and processes; False (nothing
        changed) when there is no unit to take, or none to give back."""
        with self._lock:
            if self.path is None:
                used = self._used
            else:
                import fcntl  # POSIX: only a shared (xdist) budget needs it

                ledger = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
                try:
                    fcntl.flock(ledger, fcntl.LOCK_EX)  # released when the file closes
                    used = _count(_read(ledger))
                    if not _allowed(mark, used, self.limit):
                        return False
                    os.write(ledger, mark)  # one byte: on file whole, or not at all
                    os.fsync(ledger)
                    return True
                finally:
                    os.close(ledger)
            if not _allowed(mark, used, self.limit):
                return False
            self._used += 1 if mark == TAKEN else -1
            return True

    @property
    def used(self) -> int:
        if self.path is None:
            return self._used
        try:
            return _count(self.path.read_bytes())
        except FileNotFoundError:
            return 0

    @property
    def remaining(self) -> int:
        return max(0, self.limit - self.used)


def _allowed(mark: bytes, used: int, limit: int) -> bool:
    return used < limit if mark == TAKEN else used > 0


def _count(ledger: bytes) -> int:
    return ledger.count(TAKEN) - ledger.count(GIVEN_BACK)


def _read(descriptor: int) -> bytes:
    """The whole ledger (pread: an O_APPEND descriptor's offset is of no use for reading)."""
    size = os.fstat(descriptor).st_size
    chunks, offset = [], 0
    while offset < size:
        chunk = os.pread(descriptor, size - offset, offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)
