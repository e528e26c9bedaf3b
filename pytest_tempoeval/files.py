"""Writing files so that nothing is lost: the one atomic writer behind cassettes, baselines and
reports, and the one mapping from a test to its files."""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path


def per_test_path(directory: Path, nodeid: str, suffix: str) -> Path:
    """``<directory>/<test module path>/<Class.>test name<suffix>``: pytest-recording's layout,
    made injective: two node ids never share a file.

    The module keeps its path from the rootdir (``pkg1/test_m.py`` and ``pkg2/test_m.py`` differ),
    and every character outside ``[A-Za-z0-9_.-[]]`` is percent-escaped, not collapsed (``a/b``,
    ``a_b`` and ``a b`` differ). A name too long for a file system keeps its first 100 characters
    and gets a hash of the whole node id.
    """
    module, _, rest = nodeid.partition("::")
    module_dir = directory.joinpath(*_module_parts(module))
    base, bracket, parameters = rest.partition("[")
    name = ".".join(_escaped(part) for part in base.split("::")) if base else ""
    name += _escaped(bracket + parameters)
    if len((name + suffix).encode()) > _MAX_NAME_BYTES:
        import hashlib

        digest = hashlib.sha256(nodeid.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        name = re.sub(r"%[0-9A-F]?$", "", name[:100]) + "-" + digest
    return module_dir / f"{name}{suffix}"


def legacy_test_path(directory: Path, nodeid: str, suffix: str) -> Path:
    """Where files were before :func:`per_test_path` was injective (the module's file name only,
    other characters collapsed to ``_``): read from there, with a warning, until rewritten."""
    module, *names = nodeid.split("::")
    name = re.sub(r"[^\w.\-\[\]]+", "_", ".".join(names))
    return directory / Path(module).stem / f"{name}{suffix}"


def test_file(directory: Path, nodeid: str, suffix: str) -> tuple[Path, Path | None]:
    """The test's file, and its legacy place (:func:`legacy_test_path`) when only that exists: a
    candidate to read, which the caller confirms belongs to this test, then :func:`warn_legacy`."""
    path = per_test_path(directory, nodeid, suffix)
    legacy = legacy_test_path(directory, nodeid, suffix)
    if legacy == path or path.exists() or not legacy.is_file():
        return path, None
    return path, legacy


def warn_legacy(legacy: Path, path: Path, what: str) -> None:
    import warnings

    warnings.warn(
        f"{legacy}: read from its old place; its place is now {path} (test files keep their "
        f"module's path and every character of the test id). Move it there (git mv); {what}",
        DeprecationWarning,
        stacklevel=3,
    )


def module_key(nodeid: str) -> str:
    """The folder of a test module's files, relative to the cassette or baseline directory."""
    return "/".join(_module_parts(nodeid.partition("::")[0]))


_MAX_NAME_BYTES = 200  # file systems allow 255 bytes per name; room for temporaries' affixes
_KEPT = re.compile(r"[A-Za-z0-9_.\-\[\]]")


def _escaped(text: str) -> str:
    return "".join(
        char
        if _KEPT.fullmatch(char)
        else "".join(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))
        for char in text
    )


def _module_parts(module: str) -> list[str]:
    stem = module.removesuffix(".py")
    parts = [part for part in stem.split("/") if part]
    # "." and ".." would leave the directory: escaped whole
    return [
        _escaped(part) if part not in (".", "..") else part.replace(".", "%2E") for part in parts
    ]


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
