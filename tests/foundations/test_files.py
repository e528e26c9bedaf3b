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
