"""kill -9 during ``tempoeval pool --batch``: the resumed pool takes the answers of the batch the
killed one paid for, and creates none (one bounded trial; the batch machinery's own stress test is
tests/reliability/test_batch_kills.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pytest_tempoeval import GoldSet
from pytest_tempoeval.cli import main
from pytest_tempoeval.testing import FakeMessagesServer

DOCS = 6
CORPUS = (
    "version: 1\ndocuments:\n"
    + "".join(f'  d{n}: {{text: "Report of {2010 + n}."}}\n' for n in range(DOCS))
    + 'queries:\n  - id: q1\n    text: "What happened in 2012?"\n'
)
RUN = "".join(f"q1 Q0 d{n} {n + 1} {DOCS - n}.0 r\n" for n in range(DOCS))
WAIT = 60.0  # seconds: a bound on each wait, never reached unless something hangs


ARGV = ["corpus.yaml", "corpus.yaml", "run.trec", "-o", "gold.yaml", "--cassette", "c.yaml"]
ARGV += ["--record-mode", "new_episodes", "--batch", "--batch-poll", "0.05"]


def _pool(root: Path, server: FakeMessagesServer) -> subprocess.Popen[str]:
    env = {**os.environ, "ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "test"}
    return subprocess.Popen(
        [sys.executable, "-m", "pytest_tempoeval", "pool", *ARGV],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_a_pool_killed_while_its_batch_runs_never_pays_twice(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    judge_sdk_stays_loaded: None,
) -> None:
    (tmp_path / "corpus.yaml").write_text(CORPUS)
    (tmp_path / "run.trec").write_text(RUN)
    state = tmp_path / "c.yaml.batch.json"
    with FakeMessagesServer() as server:
        server.batch_polls = 1_000_000  # the batch does not end while the first pool runs
        first = _pool(tmp_path, server)
        deadline = time.monotonic() + WAIT
        # killed once the batch is created and named in the state file: paid, not yet answered
        while not (state.exists() and '"id"' in state.read_text()):
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline, "the batch was never created"
            time.sleep(0.02)
        first.send_signal(signal.SIGKILL)
        first.communicate()
        assert len(server.batches) == 1 and not (tmp_path / "gold.yaml").exists()
        server.batch_polls = 0  # the batch ends at its next poll
        # resumed in this process (the SDK is loaded here already: 5 s less on a busy machine)
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test")
        assert main(["pool", *ARGV]) == 0
        out = capsys.readouterr().out
        assert len(server.batches) == 1  # the resumed pool created no batch
        (batch,) = server.batches.values()
        assert len(batch["requests"]) == DOCS  # each pair paid for once
        assert server.requests == []  # and nothing asked live
    gold = GoldSet.load(tmp_path / "gold.yaml")
    assert len(gold.queries["q1"].relevant) == DOCS
    assert not state.exists()
    assert out.startswith("pool: 6 pairs from 1 run at depth 10")
