"""The atomic writer behind cassettes, baselines and reports."""

import os
import stat
from pathlib import Path

import pytest

from pytest_tempoeval.files import write_atomically, write_user_file


def test_writes_with_the_usual_permissions_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "file.json"
    write_atomically(target, "new\n")
    umask = os.umask(0)
    os.umask(umask)
    assert target.read_text() == "new\n"
    assert (
        stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
    )  # not mkstemp's 0600: files get committed
    assert os.listdir(target.parent) == ["file.json"]


def test_a_crash_before_the_rename_keeps_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "baseline.json"
    target.write_text("old\n")

    def crash(*args: object) -> None:
        raise KeyboardInterrupt  # even an interrupt leaves the old file and no debris

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        write_atomically(target, "new\n")
    assert target.read_text() == "old\n" and os.listdir(tmp_path) == ["baseline.json"]


def test_temporaries_of_killed_writers_are_removed_at_the_next_write(tmp_path: Path) -> None:
    """kill -9 skips the cleanup: the next write of the same file removes what it left, but never
    the temporary of a writer still running."""
    import subprocess
    import sys
    import time

    target = tmp_path / "cassette.yaml"
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        text=True,
        capture_output=True,
        check=True,
    )
    killed = tmp_path / f".cassette.yaml.{dead.stdout.strip()}.abcd1234.tmp"
    running = tmp_path / f".cassette.yaml.{os.getpid()}.efgh5678.tmp"  # this process is alive
    old_style = tmp_path / ".cassette.yaml.ijkl9012.tmp"  # before pids were in the name
    young_old_style = tmp_path / ".cassette.yaml.mnop3456.tmp"
    other = tmp_path / ".other.yaml.1.qrst7890.tmp"  # another file's: not ours to judge
    for file in (killed, running, old_style, young_old_style, other):
        file.write_text("partial")
    an_hour_ago = time.time() - 3600
    os.utime(old_style, (an_hour_ago, an_hour_ago))
    write_atomically(target, "whole\n")
    assert sorted(os.listdir(tmp_path)) == sorted(
        ["cassette.yaml", running.name, young_old_style.name, other.name]
    )


ID_CLASHES = [
    "t.py::test_x[a/b]",
    "t.py::test_x[a_b]",
    "t.py::test_x[a:b]",
    "t.py::test_x[a b]",
    "t.py::test_x[a+b]",
    "t.py::test_q[in 2020?]",
    "t.py::test_q[in 2020!]",
    "t.py::test_x[a::b]",
    "t.py::test_x[a.b]",
    "pkg1/test_m.py::test_x",
    "pkg2/test_m.py::test_x",
    "t.py::TestA::test_x",
    "t.py::test_x[%41]",
    "t.py::test_x[A]",
    "../up.py::test_x",
]


def test_every_node_id_gets_its_own_file_inside_the_directory(tmp_path: Path) -> None:
    """The sweep of issue 16 mapped each group of these to one file."""
    from pytest_tempoeval.files import per_test_path

    paths = [per_test_path(tmp_path, nodeid, ".yaml") for nodeid in ID_CLASHES]
    assert len(set(paths)) == len(ID_CLASHES)
    assert all(path.resolve().is_relative_to(tmp_path) for path in paths)
    assert per_test_path(tmp_path, "test_m.py::TestA::test_x[1-2]", ".json") == (
        tmp_path / "test_m" / "TestA.test_x[1-2].json"  # the usual id keeps its usual name
    )


@pytest.mark.parametrize("length", [241, 1000])
def test_a_very_long_id_gets_a_bounded_name_that_can_be_written(
    tmp_path: Path, length: int
) -> None:
    from pytest_tempoeval.files import per_test_path

    long_id, other = f"t.py::test_x[{'é' * length}]", f"t.py::test_x[{'é' * length}é]"
    path = per_test_path(tmp_path, long_id, ".yaml")
    assert len(path.name.encode()) <= 200 and path != per_test_path(tmp_path, other, ".yaml")
    write_atomically(path, "ok\n")
    assert path.read_text() == "ok\n"


# -- issue 25: every part of a test's path is bounded, and looking a file up never raises

LONG_IDS = [
    "t.py::test_x[" + "x" * 300 + "]",  # 300 characters
    "t.py::test_x[" + "検" * 90 + "]",  # 90 CJK characters: 810 bytes once escaped
    "test_" + "検索" * 15 + ".py::test_ok",  # a module name of 98 bytes: 275 once escaped
    "d/" + "検" * 80 + "/test_m.py::test_ok",  # a folder of 240 bytes: 720 once escaped
]
LONG_ID_NAMES = ["300-characters", "90-cjk-characters", "cjk-module", "cjk-folder"]


@pytest.mark.parametrize("nodeid", LONG_IDS, ids=LONG_ID_NAMES)
def test_every_part_of_a_long_test_path_fits_a_file_system(tmp_path: Path, nodeid: str) -> None:
    from pytest_tempoeval.files import per_test_path

    path = per_test_path(tmp_path, nodeid, ".judgments.json")
    parts = path.relative_to(tmp_path).parts
    assert all(len(part.encode()) <= 200 for part in parts)  # a file system allows 255
    write_atomically(path, "ok\n")  # the folders too: each one can be created
    assert path.read_text() == "ok\n"


def test_a_shortened_name_is_never_another_tests_whole_name(tmp_path: Path) -> None:
    """A long name keeps its first 100 characters and gets a hash of the whole id. A test whose
    id is exactly that shortened name (its escaped id holds the hash) still gets its own file:
    shortened names are marked with a character escaping never leaves (~, escaped as %7E)."""
    import hashlib

    from pytest_tempoeval.files import per_test_path

    long_id = "t.py::test_x[" + "y" * 300 + "]"
    digest = hashlib.sha256(long_id.encode()).hexdigest()[:16]
    for mark in "-~":  # the old mark, and the new one
        lookalike = f"t.py::test_x[{'y' * 93}{mark}{digest}"  # "test_x[" + 93 y: 100 characters
        assert per_test_path(tmp_path, long_id, ".yaml") != per_test_path(
            tmp_path, lookalike, ".yaml"
        )
    ids = [f"t.py::test_x[{'y' * length}]" for length in range(180, 320)]
    assert len({per_test_path(tmp_path, nodeid, ".yaml") for nodeid in ids}) == len(ids)


def test_a_name_that_fits_keeps_its_place(tmp_path: Path) -> None:
    from pytest_tempoeval.files import per_test_path

    module = "x" * 255  # the longest folder name a file system takes keeps its name
    name = "test_" + "a" * 190  # with ".json": 200 bytes, the longest file name kept
    assert per_test_path(tmp_path, f"{module}.py::{name}", ".json") == (
        tmp_path / module / f"{name}.json"
    )


@pytest.mark.parametrize("nodeid", LONG_IDS, ids=LONG_ID_NAMES)
def test_looking_a_test_file_up_never_raises(tmp_path: Path, nodeid: str) -> None:
    """The old place of a long id is a name too long for the file system: once the module's folder
    exists, looking it up raised OSError (issue 25); it is a file that is not there."""
    from pytest_tempoeval.files import legacy_test_path, per_test_path, test_file

    for path in (per_test_path(tmp_path, nodeid, ".yaml"), legacy_test_path(tmp_path, nodeid, "")):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError:  # a legacy folder too long to exist
            pass
    assert test_file(tmp_path, nodeid, ".yaml") == (per_test_path(tmp_path, nodeid, ".yaml"), None)


def test_a_long_name_shortened_the_old_way_is_found_at_its_old_place(tmp_path: Path) -> None:
    import hashlib

    from pytest_tempoeval.files import per_test_path, test_file

    nodeid = "t.py::test_x[" + "é" * 120 + "]"  # escaped: 727 characters
    digest = hashlib.sha256(nodeid.encode()).hexdigest()[:16]
    escaped = "test_x[" + "%C3%A9" * 120
    old = tmp_path / "t" / f"{escaped[:100].removesuffix('%C')}-{digest}.yaml"  # no cut escape
    old.parent.mkdir()
    old.write_text("old\n")
    path = per_test_path(tmp_path, nodeid, ".yaml")
    assert path.name == f"{escaped[:100].removesuffix('%C')}~{digest}.yaml"
    assert test_file(tmp_path, nodeid, ".yaml") == (path, old)


# -- what is not a regular file ---------------------------------------------------------------


def _mknod_null(path: Path) -> Path:
    """A character device like /dev/null, in tmp_path (root only)."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, AttributeError):
        pytest.skip("making a device node needs root")
    return path


def test_a_fifo_a_device_and_a_folder_are_not_regular_files(tmp_path: Path) -> None:
    from pytest_tempoeval.files import regular_file_problem

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "file").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "file")
    assert regular_file_problem(tmp_path / "file", "run file") is None
    assert regular_file_problem(tmp_path / "link", "run file") is None  # links are followed
    assert (
        regular_file_problem(tmp_path / "none", "run file") == f"{tmp_path}/none: no such run file"
    )
    assert regular_file_problem(fifo, "run file") == (
        f"{fifo}: not a regular file (a FIFO, a named pipe); the run file is read from a regular "
        "file: save the stream to a file first"
    )
    assert regular_file_problem(tmp_path, "qrels file") == (
        f"{tmp_path}: not a regular file (a folder); give the path of the qrels file"
    )
    device = regular_file_problem(_mknod_null(tmp_path / "null"), "gold set file")
    assert device is not None and "not a regular file (a character device)" in device


# -- writing what a rename would destroy --------------------------------------------------------


def test_a_fifo_is_written_in_place_not_renamed_over(tmp_path: Path) -> None:
    import threading

    fifo = tmp_path / "report.json"
    os.mkfifo(fifo)
    read: list[bytes] = []
    reader = threading.Thread(target=lambda: read.append(fifo.read_bytes()), daemon=True)
    reader.start()
    write_user_file(fifo, "through the pipe\n")
    reader.join(timeout=30)  # a daemon: had nothing written into the FIFO, it waits in vain
    assert read == [b"through the pipe\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and os.listdir(tmp_path) == ["report.json"]


def test_a_device_is_written_in_place_not_renamed_over(tmp_path: Path) -> None:
    """As root, the rename replaced /dev/null with a regular file (issue 25). The device here is
    one made in tmp_path: a test must not risk the machine's /dev/null."""
    device = _mknod_null(tmp_path / "null")
    write_user_file(device, "into the void\n")
    assert stat.S_ISCHR(os.lstat(device).st_mode) and os.listdir(tmp_path) == ["null"]


def test_a_symlink_stays_a_link_and_its_target_gets_the_text(tmp_path: Path) -> None:
    (tmp_path / "shared").mkdir()
    target = tmp_path / "shared" / "baseline.json"
    target.write_text("old\n")
    link = tmp_path / "baseline.json"
    link.symlink_to(target)
    write_user_file(link, "new\n")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new\n" and os.listdir(tmp_path / "shared") == ["baseline.json"]
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "shared" / "made.json")  # created, as `>` would create it
    write_user_file(dangling, "made\n")
    assert dangling.is_symlink() and (tmp_path / "shared" / "made.json").read_text() == "made\n"


def test_a_folder_is_refused_in_our_words(tmp_path: Path) -> None:
    for write in (write_atomically, write_user_file):
        with pytest.raises(IsADirectoryError, match="a folder, not a file"):
            write(tmp_path, "x\n")
        assert tmp_path.is_dir()
