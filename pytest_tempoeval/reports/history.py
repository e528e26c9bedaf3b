"""``--tempoeval-history=PATH``: one JSON line per session, appended; each check's trend read back.

A line is one session::

    {"version": 1, "time": "2026-11-27T07:02:11Z", "commit": "4f4b5cc..." or null,
     "complete": true, "checks": [{"test": "...", "metric": "nDCG@10", "op": ">=",
     "score": 0.9005 or null, "status": "pass"}, ...]}

**Writing.** Only the session's controller writes (``pytest_sessionfinish`` returns early in an
xdist worker), once, at the session's end. The file is opened for appending and locked
(``fcntl.flock``: one writer at a time across processes; where there is no ``fcntl`` the line
is still written with one append). When its last byte is not a newline, a writer killed in the
middle of its line left that line torn: a newline is written first, so the torn line stays alone
and the new one is whole. Then the line is written (looping over short writes) and the file is
fsynced before the lock is let go. A writer killed at any moment can leave only its own line
torn; no line before it is ever rewritten (tests/plugin/test_history.py kills writers at random
moments).

**Reading.** The last ``MAX_READ_BYTES`` of the file (the latest sessions). A line that is not a
session record (a torn line, a hand edit) is skipped, and a note names it. A check's trend is its
score in the last ``TREND_SESSIONS`` sessions, this one included; a check is the same check across
sessions when its test, measure and comparison are (the n-th such check of a test, for repeats).

**The commit** is ``git rev-parse HEAD`` in the rootdir, asked only when a ``git`` program is on
the PATH and a ``.git`` is in the rootdir or above it; anything else (no git, not a repository,
no commit yet, git failing or slow) records ``null``, never an error.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_tempoeval.files import regular_file_problem

if TYPE_CHECKING:  # the rows' shape only: a writer needs no more than the files module
    from pytest_tempoeval.session import CheckRow

HISTORY_VERSION = 1
MAX_READ_BYTES = 8 << 20  # the tail read back: thousands of sessions of a few hundred checks
TREND_SESSIONS = 20  # the points of a trend, this session's included
LOCK_SECONDS = 10.0  # a writer waits this long for another's lock, then gives up (a note says so)
GIT_SECONDS = 5.0  # git rev-parse is given this long
WRITE_CHUNK: int | None = None  # bytes per write() call; None: the whole line (tests set it)


@dataclass
class History:
    """The sessions read back from a history file, oldest first, and what was skipped."""

    sessions: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def check_keys(rows: Sequence[CheckRow] | Sequence[Mapping[str, Any]]) -> list[str]:
    """Each check's key across sessions: its test, measure and comparison, and which repeat of
    them it is within its test (``#0`` for the first)."""
    seen: dict[str, int] = {}
    keys = []
    for row in rows:
        test, metric, op = (
            (row["test"], row["metric"], row["op"])
            if isinstance(row, Mapping)
            else (row.test, row.metric, row.op)
        )
        base = f"{test} | {metric} | {op}"
        count = seen.get(base, 0)
        seen[base] = count + 1
        keys.append(f"{base} #{count}")
    return keys


def session_record(
    rows: Sequence[CheckRow], commit: str | None, complete: bool, now: datetime | None = None
) -> dict[str, Any]:
    """This session's line: when, at which commit, and every check's score and status."""
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    return {
        "version": HISTORY_VERSION,
        "time": moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": commit,
        "complete": complete,
        "checks": [
            {
                "test": row.test,
                "metric": row.metric,
                "op": row.op,
                "score": row.score,
                "status": str(row.status),
            }
            for row in rows
        ],
    }


def trends(
    history: History, record: Mapping[str, Any], sessions: int = TREND_SESSIONS
) -> list[list[dict[str, Any]]]:
    """For each check of ``record`` (this session), its points in the last ``sessions`` sessions
    that have it, oldest first, this session's last: ``{"time", "commit", "score"}``."""
    current = record["checks"]
    keys = check_keys(current)
    earlier: dict[str, list[dict[str, Any]]] = {key: [] for key in keys}
    for session in history.sessions:
        for key, check in zip(check_keys(session["checks"]), session["checks"]):
            if key in earlier:
                earlier[key].append(_point(session, check["score"]))
    return [
        [*earlier[key][-(sessions - 1) :], _point(record, check["score"])]
        if sessions > 1
        else [_point(record, check["score"])]
        for key, check in zip(keys, current)
    ]


def _point(session: Mapping[str, Any], score: float | None) -> dict[str, Any]:
    return {"time": session["time"], "commit": session["commit"], "score": score}


# -- the file --------------------------------------------------------------------------------------


def append(path: Path, record: Mapping[str, Any]) -> None:
    """Append ``record`` as one line (locked, torn-line safe, fsynced; see the module's doc).
    Raises OSError (a file that is not a regular file, a lock not had in LOCK_SECONDS)."""
    if path.exists() and (problem := regular_file_problem(path, "history file")):
        raise OSError(problem)
    line = json.dumps(record, sort_keys=True, separators=(",", ":"), allow_nan=False) + "\n"
    data = line.encode("utf-8", "backslashreplace")
    descriptor = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        with _locked(descriptor, path):
            size = os.fstat(descriptor).st_size
            if size and os.pread(descriptor, 1, size - 1) != b"\n":
                data = b"\n" + data  # a torn line before ours: it stays alone, ours whole
            _write_all(descriptor, data)
            os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(descriptor, view[: WRITE_CHUNK or len(view)])
        view = view[written:]


@contextmanager
def _locked(descriptor: int, path: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # Windows: one append, no lock
        yield
        return
    deadline = time.monotonic() + LOCK_SECONDS
    while True:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise OSError(
                    f"another process has held the lock of {path} for {LOCK_SECONDS:g} s"
                ) from None
            time.sleep(0.01)
    try:
        yield
    finally:
        fcntl.flock(descriptor, fcntl.LOCK_UN)


def read(path: Path, limit: int = MAX_READ_BYTES) -> History:
    """The sessions of the file's last ``limit`` bytes, oldest first (none when there is no file);
    every line that is not a session record is skipped and named in ``notes``."""
    history = History()
    if not path.exists():
        return history
    if problem := regular_file_problem(path, "history file"):
        history.notes.append(f"history not read: {problem}")
        return history
    try:
        with path.open("rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            start = max(0, size - limit)
            handle.seek(start)
            data = handle.read()
    except OSError as error:
        history.notes.append(f"history not read: {path}: {error}")
        return history
    lines = data.split(b"\n")
    # numbered from 1; reading a tail, the first line read is most likely the end of an older
    # one (not a record) and the numbers are the tail's
    offset = 1
    if start:
        lines, offset = lines[1:], 2
    torn = lines.pop() if lines else b""  # what follows the last newline: a torn line, or b""
    broken = []
    for number, raw in enumerate(lines, offset):
        record = _record(raw)
        if record is not None:
            history.sessions.append(record)
        elif raw.strip():
            broken.append(number)
    where = "" if not start else f" (of the last {limit:,} bytes)"
    if broken:
        plural = "s" if len(broken) > 1 else ""
        what = "not session records" if plural else "not a session record"
        history.notes.append(
            f"history {path}: line{plural} {', '.join(map(str, broken))}{where} skipped: {what} "
            "(a session killed while writing, or an edit)"
        )
    if torn.strip():
        history.notes.append(
            f"history {path}: the last line{where} is incomplete and was skipped (a session "
            "killed while writing it?); the next session's line is written after it, whole"
        )
    return history


def _record(raw: bytes) -> dict[str, Any] | None:
    """A line as a session record, or None when it is not one."""
    try:
        record = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(record, dict) or not isinstance(record.get("checks"), list):
        return None
    if not isinstance(record.get("time"), str) or not isinstance(record.get("commit"), str | None):
        return None
    for check in record["checks"]:
        if not (
            isinstance(check, dict)
            and all(isinstance(check.get(key), str) for key in ("test", "metric", "op"))
            and _score(check.get("score"))
        ):
            return None
    return record


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a score")


def _score(value: object) -> bool:
    if value is None:
        return True
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


# -- the commit ------------------------------------------------------------------------------------

_SHA = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")


def git_commit(root: Path) -> str | None:
    """The commit checked out at ``root``, or None: no git program, no repository (both checked
    without starting a process), no commit yet, or git failing or slower than GIT_SECONDS."""
    program = shutil.which("git")
    if program is None:
        return None
    folder = root.resolve()
    if not any((place / ".git").exists() for place in (folder, *folder.parents)):
        return None
    try:
        done = subprocess.run(
            [program, "rev-parse", "--verify", "--quiet", "HEAD"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=GIT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    sha = done.stdout.strip()
    return sha if done.returncode == 0 and _SHA.fullmatch(sha) else None
