"""A FIFO, a device or a folder given as a file is "not a regular file", never "no such file", and
is never opened: reading a FIFO would wait for a writer, or eat what another reader needed
(issue 25)."""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest

from pytest_tempoeval import GoldSet, Run
from pytest_tempoeval.errors import BaselineError, GoldSetError, JudgeCassetteError, RunError
from pytest_tempoeval.gate.baselines import BaselineStore
from pytest_tempoeval.judge.cassettes import JudgeCassette


@pytest.fixture
def stream(tmp_path: Path) -> Generator[Callable[[str], Path], None, None]:
    """Makes FIFOs. A reader left waiting on one (a regression) gets end-of-file within a second
    instead of hanging the suite: it then fails on the message, as it should."""
    made: list[Path] = []
    done = threading.Event()

    def release() -> None:
        while not done.wait(0.5):
            for path in made:
                try:  # succeeds only while someone has the FIFO open to read
                    os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
                except OSError:
                    pass

    threading.Thread(target=release, daemon=True).start()

    def make(name: str) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(path)
        made.append(path)
        return path

    yield make
    done.set()


def beir_with_fifo_queries(folder: Path, stream: Callable[[str], Path]) -> Path:
    (folder / "qrels").mkdir(parents=True)
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    (folder / "corpus.jsonl").write_text('{"_id": "d1", "text": "a"}\n')
    stream("beir/queries.jsonl")
    return folder


FIFO_CASES: list[tuple[str, str, Callable[[Path], Any], type[Exception], str]] = [
    ("run.txt", "run file", Run.load, RunError, "Run.load"),
    ("run.json", "run file", Run.from_json, RunError, "Run.from_json"),
    ("run.trec", "run file", Run.from_trec, RunError, "Run.from_trec"),
    ("gold", "gold set file", GoldSet.load, GoldSetError, "GoldSet.load (sniffed)"),
    ("gold.yaml", "gold set file", GoldSet.load, GoldSetError, "GoldSet.load (yaml)"),
    ("qrels", "qrels file", GoldSet.from_trec_qrels, GoldSetError, "GoldSet.from_trec_qrels"),
    (
        "cassette.yaml",
        "cassette",
        lambda path: JudgeCassette(path, "none"),
        JudgeCassetteError,
        "JudgeCassette",
    ),
    (
        "baseline.json",
        "baseline",
        lambda path: BaselineStore(path, update=False).read(),
        BaselineError,
        "BaselineStore.read",
    ),
]


@pytest.mark.parametrize(
    ("name", "what", "load", "error", "label"), FIFO_CASES, ids=[c[-1] for c in FIFO_CASES]
)
def test_a_fifo_is_not_a_regular_file(
    stream: Callable[[str], Path],
    name: str,
    what: str,
    load: Callable[[Path], Any],
    error: type[Exception],
    label: str,
) -> None:
    fifo = stream(name)
    with pytest.raises(error) as raised:
        load(fifo)
    assert str(raised.value) == (
        f"{fifo}: not a regular file (a FIFO, a named pipe); the {what} is read from a regular "
        "file: save the stream to a file first"
    )


def test_a_beir_file_that_is_a_fifo_is_not_a_regular_file(
    tmp_path: Path, stream: Callable[[str], Path]
) -> None:
    folder = beir_with_fifo_queries(tmp_path / "beir", stream)
    with pytest.raises(GoldSetError, match="queries.jsonl: not a regular file \\(a FIFO"):
        GoldSet.from_beir(folder)


@pytest.mark.parametrize(
    ("load", "error", "what"),
    [
        (Run.load, RunError, "run file"),
        (Run.from_trec, RunError, "run file"),
        (GoldSet.from_trec_qrels, GoldSetError, "qrels file"),
    ],
    ids=["Run.load", "Run.from_trec", "GoldSet.from_trec_qrels"],
)
def test_a_folder_is_not_a_regular_file(
    tmp_path: Path, load: Callable[[Path], Any], error: type[Exception], what: str
) -> None:
    with pytest.raises(error) as raised:
        load(tmp_path)
    assert str(raised.value) == (
        f"{tmp_path}: not a regular file (a folder); give the path of the {what}"
    )


def test_a_device_is_not_a_regular_file(tmp_path: Path) -> None:
    """What /dev/stdin is when nothing is piped in (a terminal); made in tmp_path (root only)."""
    device = tmp_path / "tty"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs root")
    with pytest.raises(RunError, match="not a regular file \\(a character device\\)"):
        Run.load(device)


def test_a_missing_file_is_still_no_such_file(tmp_path: Path) -> None:
    with pytest.raises(RunError) as raised:
        Run.load(tmp_path / "none.txt")
    assert str(raised.value) == f"{tmp_path}/none.txt: no such run file"
