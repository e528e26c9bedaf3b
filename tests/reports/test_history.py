"""--tempoeval-history: one line per session, appended under a lock; a torn line (a writer killed
mid-line) is skipped with a note and never takes an earlier or a later line with it; the commit is
recorded when git is there, never an error without it; only xdist's controller writes."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_tempoeval.reports import history
from pytest_tempoeval.session import CheckRow

REPO = Path(history.__file__).resolve().parents[2]


def row(test: str, metric: str = "nDCG@10", score: float | None = 0.5, op: str = ">=") -> CheckRow:
    return CheckRow(
        test=test,
        sequence=0,
        metric=metric,
        mode="gold",
        counted=1,
        excluded=0,
        score=score,
        op=op,
        threshold=0.1,
        passed=True,
    )


def record(*rows: CheckRow, commit: str | None = None) -> dict[str, object]:
    return history.session_record(list(rows), commit, complete=True)


def test_sessions_append_and_read_back_as_trends(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    assert history.read(path).sessions == [] and not path.exists()
    for score in (0.5, 0.6):
        history.append(path, record(row("t::a", score=score), row("t::a", score=score / 2)))
    lines = path.read_text().splitlines()
    assert len(lines) == 2 and all(json.loads(line)["version"] == 1 for line in lines)
    past = history.read(path)
    assert past.notes == [] and len(past.sessions) == 2
    # the same test checking the same measure twice: two checks, told apart by their order
    now = record(row("t::a", score=0.7), row("t::a", score=None), row("t::new"))
    trends = history.trends(past, now)
    assert [[p["score"] for p in trend] for trend in trends] == [
        [0.5, 0.6, 0.7],
        [0.25, 0.3, None],
        [0.5],
    ]
    assert history.trends(past, now, sessions=2)[0][0]["score"] == 0.6


def test_a_torn_last_line_is_skipped_with_a_note_and_the_next_line_is_whole(
    tmp_path: Path,
) -> None:
    path = tmp_path / "h.jsonl"
    history.append(path, record(row("t::a", score=0.5)))
    whole = path.read_bytes()
    torn = json.dumps(record(row("t::a", score=0.9))).encode()[:37]
    path.write_bytes(whole + torn)  # a writer killed 37 bytes into its line
    past = history.read(path)
    assert [s["checks"][0]["score"] for s in past.sessions] == [0.5]
    assert past.notes == [
        (
            f"history {path}: the last line is incomplete and was skipped (a session killed "
            "while writing it?); the next session's line is written after it, whole"
        )
    ]
    history.append(path, record(row("t::a", score=0.7)))
    assert path.read_bytes().startswith(whole + torn + b"\n")  # nothing before it rewritten
    past = history.read(path)
    assert [s["checks"][0]["score"] for s in past.sessions] == [0.5, 0.7]
    assert past.notes == [
        f"history {path}: line 2 skipped: not a session record (a session killed while writing, "
        + "or an edit)"
    ]


def test_lines_that_are_not_records_are_named(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    good = json.dumps(record(row("t::a")))
    bad = [
        "{not json",
        "[1, 2]",
        (
            '{"time": "t", "commit": null, "checks": [{"test": "t", "metric": "m", "op": ">=", '
            '"score": NaN}]}'
        ),
        '{"time": "t", "commit": 3, "checks": []}',
    ]
    path.write_text("\n".join([good, *bad, "", good]) + "\n")
    past = history.read(path)
    assert len(past.sessions) == 2
    assert past.notes == [
        f"history {path}: lines 2, 3, 4, 5 skipped: not session records (a session killed "
        + "while writing, or an edit)"
    ]


def test_only_the_tail_is_read(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    for score in range(20):
        history.append(path, record(row("t::a", score=score / 100)))
    size = len(path.read_bytes().splitlines()[0]) + 1
    past = history.read(path, limit=3 * size + 5)  # starts 5 bytes before the 17th line's end
    assert [s["checks"][0]["score"] for s in past.sessions] == [0.17, 0.18, 0.19]
    assert past.notes == []


def test_a_file_that_is_not_a_regular_file_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "h.jsonl"
    folder.mkdir()
    with pytest.raises(OSError, match="history file"):
        history.append(folder, record(row("t::a")))
    assert "history not read" in history.read(folder).notes[0]


def test_no_git_costs_nothing_and_fails_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_process(*args: object, **kwargs: object) -> None:
        raise AssertionError("git was started")

    monkeypatch.setattr(subprocess, "run", no_process)
    monkeypatch.setenv("PATH", str(tmp_path))  # no git program
    assert history.git_commit(tmp_path) is None
    monkeypatch.undo()
    monkeypatch.setattr(subprocess, "run", no_process)
    outside = tmp_path / "not-a-repository"
    outside.mkdir()
    if any((folder / ".git").exists() for folder in outside.parents):
        pytest.skip("the temporary folder is inside a git repository")
    assert history.git_commit(outside) is None  # no .git above it: git is not asked


@pytest.mark.skipif(not history.shutil.which("git"), reason="git is not installed")
def test_the_commit_checked_out_is_recorded(tmp_path: Path) -> None:
    environment = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }

    def git(*arguments: str) -> None:
        subprocess.run(
            ["git", *arguments], cwd=tmp_path, env=environment, check=True, capture_output=True
        )

    git("init", "-q")
    assert history.git_commit(tmp_path) is None  # a repository with no commit yet
    (tmp_path / "f").write_text("x")
    git("add", "f")
    git("commit", "-q", "-m", "one")
    head = (tmp_path / ".git" / "HEAD").read_text().split(": ")[1].strip()
    expected = (tmp_path / ".git" / head).read_text().strip()
    (tmp_path / "sub").mkdir()
    assert history.git_commit(tmp_path / "sub") == expected


# -- writers killed at random moments -------------------------------------------------------------

WRITER = """
import os, sys, time
sys.path.insert(0, sys.argv[3])
from pathlib import Path
from pytest_tempoeval.reports import history
history.WRITE_CHUNK = 16  # a line takes many writes: a kill lands inside one, usually
write = os.write
def slow(descriptor, data):
    time.sleep(0.0003)
    return write(descriptor, data)
os.write = slow
name, n = sys.argv[2], 0
print("ready", flush=True)
while True:
    history.append(Path(sys.argv[1]), {"version": 1, "time": "t", "commit": None, "pad": "x" * 200,
        "checks": [{"test": name, "metric": "m", "op": ">=", "score": n, "status": "pass"}]})
    n += 1
"""
ROUNDS = 6  # two writers each, both killed with SIGKILL at random moments (seeded)


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="SIGKILL is POSIX")
def test_writers_killed_at_random_moments_never_lose_or_tear_an_earlier_line(
    tmp_path: Path,
) -> None:
    path = tmp_path / "h.jsonl"
    draw = random.Random(20261127)
    before = b""
    torn_seen = 0
    for round_ in range(ROUNDS):
        writers = [
            subprocess.Popen(
                [sys.executable, "-S", "-c", WRITER, str(path), f"w{round_}{side}", str(REPO)],
                stdout=subprocess.PIPE,
                text=True,
            )
            for side in "ab"
        ]
        for writer in writers:
            assert writer.stdout is not None and writer.stdout.readline() == "ready\n"
        for writer in writers:
            try:
                writer.wait(timeout=draw.uniform(0.005, 0.06))
            except subprocess.TimeoutExpired:
                writer.send_signal(signal.SIGKILL)
            writer.wait()
            assert writer.stdout is not None
            writer.stdout.close()
        now = path.read_bytes()
        # append-only: every byte written before is still there, unchanged
        assert now.startswith(before)
        before = now
        lines = now.split(b"\n")
        complete, tail = lines[:-1], lines[-1]
        torn = [line for line in complete if history._record(line) is None]
        torn_seen = len(torn) + (1 if tail else 0)
        # a writer killed mid-line tears only its own line: at most one per writer killed
        assert torn_seen <= 2 * (round_ + 1)
        # no line lost: each writer's lines are numbered 0, 1, 2, ... with no gap
        numbers: dict[str, list[int]] = {}
        for line in complete:
            parsed = history._record(line)
            if parsed is not None:
                check = parsed["checks"][0]
                numbers.setdefault(check["test"], []).append(check["score"])
        for name, written in numbers.items():
            assert written == list(range(len(written))), name
        past = history.read(path)
        assert len(past.sessions) == sum(map(len, numbers.values()))
    assert torn_seen >= 1  # the test exercised the torn path (each kill lands mid-line, mostly)


# -- through pytest: only xdist's controller writes ----------------------------------------------


def test_a_session_under_xdist_appends_one_line_and_the_reports_draw_the_trend(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makefile(
        ".yaml",
        gold="version: 1\nqueries:\n"
        + "".join(
            f"  - {{id: q{i}, text: 'In {2000 + i}?', relevant: {{d{i}: 1}}}}\n" for i in range(4)
        ),
    )
    pytester.makepyfile(
        test_scores="""
        import os
        import pytest
        from pytest_tempoeval import Run, ndcg

        @pytest.mark.tempoeval(gold="gold.yaml")
        @pytest.mark.parametrize("n", [0, 1])
        def test_ndcg(tempoeval_gold, n):
            worse = int(os.environ.get("WORSE", "0"))
            run = Run({f"q{i}": ([f"x{i}", f"d{i}"] if i < worse else [f"d{i}"]) for i in range(4)})
            assert ndcg(run, tempoeval_gold, k=2) >= 0.1
        """
    )
    monkeypatch.delenv("WORSE", raising=False)
    pytester.runpytest("--tempoeval-history=h.jsonl").assert_outcomes(passed=2)
    monkeypatch.setenv("WORSE", "2")
    reports = [
        "--tempoeval-history=h.jsonl",
        "--tempoeval-html=r.html",
        "--tempoeval-report=r.json",
    ]
    pytester.runpytest("-n", "2", *reports).assert_outcomes(passed=2)
    lines = (pytester.path / "h.jsonl").read_text().splitlines()
    assert len(lines) == 2  # one per session: no xdist worker wrote one
    sessions = [json.loads(line) for line in lines]
    assert [len(s["checks"]) for s in sessions] == [2, 2]
    worse = (2 * (1 / 1.5849625007211563) + 2) / 4  # two queries' relevant doc at rank 2
    assert [c["score"] for c in sessions[1]["checks"]] == pytest.approx([worse, worse], abs=1e-12)
    report = json.loads((pytester.path / "r.json").read_text())
    assert [p["score"] for p in report["checks"][0]["trend"]] == pytest.approx([1.0, worse])
    page = (pytester.path / "r.html").read_text()
    assert page.count('class="spark-svg"') == 2 + 2  # in the table, and in each check's summary
    assert "1.0000 → 0.8155 over 2 sessions" in page
