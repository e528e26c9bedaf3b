"""Writing files so that nothing is lost: the one atomic writer behind cassettes, baselines and
reports, and the one mapping from a test to its files."""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path


def per_test_path(directory: Path, nodeid: str, suffix: str) -> Path:
    """``<directory>/<test module>/<Class.>test name<suffix>``: pytest-recording's layout, with the
    class in the name so ``TestA::test_x`` and ``TestB::test_x`` get their own files."""
    module, *names = nodeid.split("::")
    # Parametrized ids may hold path separators.
    name = re.sub(r"[^\w.\-\[\]]+", "_", ".".join(names))
    return directory / Path(module).stem / f"{name}{suffix}"


@cache
def _umask() -> int:
    mask = os.umask(0o022)  # read once: flipping it later would race with other threads
    os.umask(mask)
    return mask


def write_atomically(path: Path, text: str, errors: str = "strict") -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it over ``path``.

    A reader (another xdist worker, a crashed run's next run) sees the old file or the new one,
    never half of one. The file gets the usual permissions (0666 less the umask), not mkstemp's
    0600: it is meant to be committed. ``errors``: how text UTF-8 cannot encode is written (reports
    escape it; cassettes and baselines refuse it).
    """
    import tempfile  # here, not at plugin load

    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_temporaries(path)
    handle, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp"
    )
    try:
        with os.fdopen(handle, "w", encoding="utf-8", errors=errors) as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())  # the rename must not land before the data
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


# A temporary file of a write is ``.<name>.<pid>.<random>.tmp`` (before the pid was in the name,
# ``.<name>.<random>.tmp``).
_OLD_TEMPORARY_AGE = 600.0  # seconds: an unnamed writer's file older than this is not in flight


def _remove_stale_temporaries(path: Path) -> None:
    """Remove the temporaries a killed writer left beside ``path`` (kill -9 skips the cleanup):
    those whose process is gone, and pid-less ones older than ten minutes."""
    import time

    prefix = f".{path.name}."
    try:
        candidates = [entry for entry in path.parent.iterdir() if entry.name.startswith(prefix)]
    except OSError:
        return
    for entry in candidates:
        middle = entry.name[len(prefix) :]
        if not middle.endswith(".tmp"):
            continue
        pid, _, rest = middle.partition(".")
        try:
            if rest and pid.isdigit():
                if _process_alive(int(pid)):
                    continue
            elif time.time() - entry.stat().st_mtime < _OLD_TEMPORARY_AGE:
                continue
            entry.unlink()
        except OSError:
            continue


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
