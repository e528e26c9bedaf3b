"""The atomic writer behind cassettes, baselines and reports."""

import os
import stat
from pathlib import Path

import pytest

from pytest_tempoeval.files import write_atomically


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
