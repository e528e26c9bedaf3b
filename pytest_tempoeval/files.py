"""Files: the one atomic writer behind cassettes, baselines and reports (a report's path may also
be a device or a FIFO, written in place), the one mapping from a test to its files, and the one
check that a file to read is a regular file."""

from __future__ import annotations

import errno
import os
import re
import stat
from functools import cache
from pathlib import Path


def per_test_path(directory: Path, nodeid: str, suffix: str) -> Path:
    """``<directory>/<test module path>/<Class.>test name<suffix>``: pytest-recording's layout,
    made injective: two node ids never share a file.

    The module keeps its path from the rootdir (``pkg1/test_m.py`` and ``pkg2/test_m.py`` differ),
    and every character outside ``[A-Za-z0-9_.-[]]`` is percent-escaped, not collapsed (``a/b``,
    ``a_b`` and ``a b`` differ). Each part is bounded in bytes (:func:`_bounded`): a file's name
    to 200, a folder's to 255, so every name the file system took for a test gives files it takes.
    """
    module_dir = directory.joinpath(*_module_parts(nodeid.partition("::")[0]))
    return module_dir / f"{_test_name(nodeid, suffix)}{suffix}"


def _test_name(nodeid: str, suffix: str, mark: str = "~") -> str:
    rest = nodeid.partition("::")[2]
    base, bracket, parameters = rest.partition("[")
    name = ".".join(_escaped(part) for part in base.split("::")) if base else ""
    name += _escaped(bracket + parameters)
    return _bounded(name, _MAX_NAME_BYTES - len(suffix), nodeid, mark)


def legacy_test_path(directory: Path, nodeid: str, suffix: str) -> Path:
    """Where files were before :func:`per_test_path` was injective (the module's file name only,
    other characters collapsed to ``_``): read from there, with a warning, until rewritten."""
    module, *names = nodeid.split("::")
    name = re.sub(r"[^\w.\-\[\]]+", "_", ".".join(names))
    return directory / Path(module).stem / f"{name}{suffix}"


def _old_places(directory: Path, nodeid: str, suffix: str) -> list[Path]:
    """Where this test's file may still be, newest mapping first: a long name shortened with a
    ``-`` before its hash (before shortened names were marked with ``~``), then
    :func:`legacy_test_path`."""
    places = []
    dashed = _test_name(nodeid, suffix, mark="-")
    if dashed != _test_name(nodeid, suffix):
        places.append(per_test_path(directory, nodeid, suffix).with_name(dashed + suffix))
    return [*places, legacy_test_path(directory, nodeid, suffix)]


def test_file(directory: Path, nodeid: str, suffix: str) -> tuple[Path, Path | None]:
    """The test's file, and an old place of it (:func:`_old_places`) when only that exists: a
    candidate to read, which the caller confirms belongs to this test, then :func:`warn_legacy`.
    A name the file system cannot hold (too long) is a file that is not there."""
    path = per_test_path(directory, nodeid, suffix)
    if os.path.exists(path):  # never raises, as is_file
        return path, None
    return path, next((old for old in _old_places(directory, nodeid, suffix) if is_file(old)), None)


def is_file(path: Path | str) -> bool:
    """Whether ``path`` is a regular file (symlinks followed); never raises: a name too long, a
    folder that cannot be read or a loop of links is a file that is not there."""
    return os.path.isfile(path)  # catches every OSError, unlike Path.is_file on Python < 3.14


def regular_file_problem(path: Path | str, what: str) -> str | None:
    """None when ``path`` is a regular file (symlinks followed), else why it cannot be read as
    ``what`` ("run file"), in one line naming it. A FIFO, a device (``/dev/stdin``) or a folder is
    "not a regular file", never "no such file": reading a FIFO would wait for a writer, or eat
    what another reader needed, and the readers read a file more than once."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return f"{path}: no such {what}"
    except OSError as error:  # a name too long, a loop of links, a folder it may not search
        return f"{path}: cannot read the {what} ({error.strerror or error})"
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return f"{path}: not a regular file (a folder); give the path of the {what}"
    kind = next((name for test, name in _KINDS if test(mode)), "not a file")
    return (
        f"{path}: not a regular file ({kind}); the {what} is read from a regular file: save "
        "the stream to a file first"
    )


_KINDS = (
    (stat.S_ISFIFO, "a FIFO, a named pipe"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def warn_legacy(legacy: Path, path: Path, what: str) -> None:
    import warnings

    warnings.warn(
        f"{legacy}: read from its old place; its place is now {path} (test files keep their "
        f"module's path and every character of the test id, a long name shortened with ~ and a "
        f"hash). Move it there (git mv); {what}",
        DeprecationWarning,
        stacklevel=3,
    )


def module_key(nodeid: str) -> str:
    """The folder of a test module's files, relative to the cassette or baseline directory."""
    return "/".join(_module_parts(nodeid.partition("::")[0]))


_MAX_NAME_BYTES = 200  # file systems allow 255 bytes per name; room for temporaries' affixes
_MAX_FOLDER_BYTES = 255  # a folder gets no temporary beside its name
_KEPT_OF_LONG = 100  # characters a shortened name keeps
_KEPT = re.compile(r"[A-Za-z0-9_.\-\[\]]")


def _escaped(text: str) -> str:
    return "".join(
        char
        if _KEPT.fullmatch(char)
        else "".join(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))
        for char in text
    )


def _bounded(name: str, limit: int, whole: str, mark: str = "~") -> str:
    """``name`` (escaped: ASCII, so characters are bytes) when it fits in ``limit`` bytes, else its
    first 100 characters, ``~`` and a hash of ``whole``. An escaped name never holds ``~`` (it is
    escaped as ``%7E``), so a shortened name is never another test's whole name: the mapping stays
    injective, and every name that fits keeps its place."""
    if len(name) <= limit:
        return name
    import hashlib

    digest = hashlib.sha256(whole.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return re.sub(r"%[0-9A-F]?$", "", name[:_KEPT_OF_LONG]) + mark + digest


def _module_parts(module: str) -> list[str]:
    stem = module.removesuffix(".py")
    parts = [part for part in stem.split("/") if part]
    # "." and ".." would leave the directory: escaped whole
    return [
        _bounded(_escaped(part), _MAX_FOLDER_BYTES, part)
        if part not in (".", "..")
        else part.replace(".", "%2E")
        for part in parts
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
    escape it; cassettes and baselines refuse it). A symlink at ``path`` is replaced, its target
    never written: a file in a repository may link anywhere. A folder is refused.
    """
    import tempfile  # here, not at plugin load

    if os.path.isdir(path) and not os.path.islink(path):  # never raises
        raise IsADirectoryError(errno.EISDIR, "a folder, not a file", str(path))
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


def write_user_file(path: Path, text: str, errors: str = "strict") -> None:
    """Write a file whose path the user gave (a report's) as a shell redirection would, and
    atomically when it is a regular file.

    What a rename would destroy is written in place: a path that is not a regular file
    (``/dev/null``, a terminal, a FIFO, the pipe of a process substitution's ``/dev/fd/63``), and
    a process's descriptor (``/dev/stdout``, ``/dev/fd/N``, ``/proc/...``) even when it is a regular
    file, appended to then: the process writes that file too (``pytest ... > log``). Any other
    symlink is followed: its target is written atomically (created when missing), and the link
    stays a link.
    """
    mode = _in_place_mode(path)
    if mode is not None:
        with open(path, mode, encoding="utf-8", errors=errors) as out:
            out.write(text)
        return
    write_atomically(Path(os.path.realpath(path)), text, errors)


_STREAMS = ("/dev/stdout", "/dev/stderr")
_DESCRIPTOR_FOLDERS = ("/dev/fd/", "/proc/")  # a process's open files


def _in_place_mode(path: Path) -> str | None:
    """How :func:`write_user_file` opens ``path`` to write it in place, or None: atomically."""
    try:
        mode = os.stat(path).st_mode  # symlinks followed: /dev/stdout is a link to a pipe
    except OSError:
        return None  # not there yet (or unreadable: the atomic write says why)
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        return "w"
    absolute = os.path.abspath(path)  # the path as given: its links lead to the process's file
    descriptor = absolute in _STREAMS or absolute.startswith(_DESCRIPTOR_FOLDERS)
    return "a" if descriptor and os.name == "posix" and stat.S_ISREG(mode) else None


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
