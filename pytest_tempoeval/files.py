"""Writing files so that nothing is lost: the one atomic writer behind cassettes, baselines and reports."""

from __future__ import annotations

import os
from pathlib import Path


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it over ``path``.

    A reader (another xdist worker, a crashed run's next run) sees the old file or the new one, never
    half of one. The file gets the usual permissions (0666 less the umask), not mkstemp's 0600: it
    is meant to be committed.
    """
    import tempfile  # here, not at plugin load

    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(handle, 0o666 & ~umask)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
