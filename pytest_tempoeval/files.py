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


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it over ``path``.

    A reader (another xdist worker, a crashed run's next run) sees the old file or the new one,
    never half of one. The file gets the usual permissions (0666 less the umask), not mkstemp's
    0600: it is meant to be committed.
    """
    import tempfile  # here, not at plugin load

    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())  # the rename must not land before the data
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
