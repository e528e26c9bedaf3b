"""kill -9 while recording through batches: never a request paid twice, never a budget exceeded.

Each trial records a suite through ``--tempoeval-judge-batch`` against the fake API, kills it with
SIGKILL at random moments (a random time, just after the API made a batch, just after a cassette
or a batch state file was written), then runs it again with ``new_episodes`` until it passes.
Checked, whatever the kills did:

- the batch requests (and live requests) created over the trial never exceed the judgments needed;
- with ``--tempoeval-judge-max-requests``, no session creates more requests than its budget;
- the cassettes end whole, and no batch state file is left.

Under xdist the kill hits a worker (xdist replaces it and the session goes on, its budget file
shared with the new worker). The suite runs one trial of session kills (1 kill, with a budget:
two or three sessions, ~6 s); ``TEMPOEVAL_STRESS_TRIALS=N`` runs N trials of each kind, with 1
to 3 kills each and a budget or none, and prints the figures (100 trials: ~25 min)::

    TEMPOEVAL_STRESS_TRIALS=100 python -m pytest tests/reliability/test_batch_kills.py -s

``TEMPOEVAL_STRESS_SEED`` replays a run's kill plan (each run prints its seed).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pytest_tempoeval.judge.cassettes import JudgeCassette
from pytest_tempoeval.testing import FakeMessagesServer

pytestmark = pytest.mark.skipif(
    sys.platform != "linux", reason="finds xdist's workers through /proc"
)

LONG = "TEMPOEVAL_STRESS_TRIALS" in os.environ
TRIALS = int(os.environ.get("TEMPOEVAL_STRESS_TRIALS", "1"))
SEED = int(os.environ.get("TEMPOEVAL_STRESS_SEED", random.randrange(2**32)))
QUERIES, DOCUMENTS = 4, 15  # per test: 60 judgments each, 120 for the two tests
NEEDED = 2 * QUERIES * DOCUMENTS
BUDGET = 80  # a trial with a budget needs two sessions at least
MAX_KILLS = 3 if LONG else 1
SESSION_SECONDS = 90.0  # a session still running after this is a failure (a hang)
TRIAL_SESSIONS = MAX_KILLS + NEEDED // BUDGET + 4  # kills, sessions the budget needs, slack
TRIGGERS = ("time", "batch created", "cassette written", "state written")

# Documents name their trial: no trial's requests are another's (the fake serves them all).
GOLD = (
    "version: 1\ndocuments:\n"
    + "".join(f'  d{n}: {{text: "Report {n} of {1990 + n}, TRIAL."}}\n' for n in range(DOCUMENTS))
    + "queries:\n"
    + "".join(
        f'  - id: {test}{n}\n    text: "What happened in {2000 + 5 * n + (test == "b")}?"\n'
        for test in "ab"
        for n in range(QUERIES)
    )
)
TESTS = f"""
import pytest
from pytest_tempoeval import Run, temporal_ndcg

def judged(gold, judge, test):
    docs = [f"d{{n}}" for n in range({DOCUMENTS})]
    run = Run({{f"{{test}}{{n}}": docs for n in range({QUERIES})}})
    assert temporal_ndcg(run, gold, k=len(docs), mode="llm", judge=judge) >= 0

@pytest.mark.tempoeval("gold.yaml")
def test_a(tempoeval_gold, tempoeval_judge):
    judged(tempoeval_gold, tempoeval_judge, "a")

@pytest.mark.tempoeval("gold.yaml")
def test_b(tempoeval_gold, tempoeval_judge):
    judged(tempoeval_gold, tempoeval_judge, "b")
"""
# A recording saved every 0.2 s (the plugin's default is 2 s): a kill finds partial cassettes, as
# in issue 25 (a cassette holding 1 answer of a batch of 3,000).
CONFTEST = """
from pytest_tempoeval.judge import cassettes

_init = cassettes.JudgeCassette.__init__

def _often(self, *args, **kwargs):
    kwargs.setdefault("save_every", 0.2)
    _init(self, *args, **kwargs)

cassettes.JudgeCassette.__init__ = _often
"""


@dataclass
class Figures:
    trials: int = 0
    sessions: int = 0
    kills: Counter[str] = field(default_factory=Counter)
    batches: int = 0
    created: int = 0  # batch and live requests, over all trials
    needed: int = 0
    worst_over_needed: int = -NEEDED  # max over trials of (created - needed): never above 0
    worst_over_budget: int | None = None  # max over budgeted sessions of (created - budget)
    problems: list[str] = field(default_factory=list)


@pytest.mark.parametrize(
    "xdist",
    [
        pytest.param(False, id="kill-session"),
        # Two xdist sessions take ~15 s here: the long run's (the suite stays fast).
        pytest.param(
            True,
            id="kill-xdist-worker",
            marks=pytest.mark.skipif(
                not LONG, reason="set TEMPOEVAL_STRESS_TRIALS to kill xdist workers"
            ),
        ),
    ],
)
def test_kills_while_recording_through_batches_never_pay_twice_nor_exceed_the_budget(
    tmp_path: Path, xdist: bool
) -> None:
    rng = random.Random(f"{SEED}-{xdist}")
    figures = Figures()
    started = time.monotonic()
    with FakeMessagesServer() as server:
        server.batch_polls = 5  # a batch ends at its 6th poll: ~0.3 s at 0.05 s a poll
        server.batch_create_latency = 0.2  # the batch exists before the run learns its id
        for trial in range(TRIALS):
            _trial(tmp_path / f"trial{trial}", server, rng, xdist, figures)
    seconds = time.monotonic() - started
    print(
        f"\nbatch kill stress (seed {SEED}, {'xdist worker' if xdist else 'session'} kills): "
        f"{figures.trials} trials, {figures.sessions} sessions, "
        f"{sum(figures.kills.values())} kills ({dict(figures.kills)}), "
        f"{figures.batches} batches created, {figures.created} requests created for "
        f"{figures.needed} needed, worst trial {figures.worst_over_needed:+d} against needed, "
        f"worst budgeted session {figures.worst_over_budget} against its budget of {BUDGET}, "
        f"{seconds:.0f} s"
    )
    assert not figures.problems, f"seed {SEED}: " + "; ".join(figures.problems)


def _trial(
    root: Path, server: FakeMessagesServer, rng: random.Random, xdist: bool, figures: Figures
) -> None:
    root.mkdir()
    (root / "gold.yaml").write_text(GOLD.replace("TRIAL", root.name))
    (root / "test_judged.py").write_text(TESTS)
    (root / "conftest.py").write_text(CONFTEST)
    (root / "pytest.ini").write_text("[pytest]\ntempoeval_judge_batch_poll = 0.05\n")
    budget = rng.choice([None, BUDGET]) if LONG else BUDGET
    kills = rng.randint(1, MAX_KILLS)
    batches_before, live_before = len(server.batches), len(server.requests)
    figures.trials += 1
    figures.needed += NEEDED
    passed = False
    for _ in range(TRIAL_SESSIONS):  # bounded: a trial that never passes is reported
        trigger = rng.choice(TRIGGERS) if kills else None
        batches, live = len(server.batches), len(server.requests)
        returncode, killed = _session(root, server, rng, xdist, budget, trigger)
        figures.sessions += 1
        if killed:
            kills -= 1
            figures.kills[trigger] += 1  # type: ignore[index]
        created = _requests(server, batches) + len(server.requests) - live
        if budget is not None:
            over = created - budget
            worst = figures.worst_over_budget
            figures.worst_over_budget = over if worst is None else max(worst, over)
            if created > budget:
                figures.problems.append(f"{root.name}: a session created {created} > {budget}")
        if returncode == 0 and not killed:
            passed = True
            break
    created = _requests(server, batches_before) + len(server.requests) - live_before
    figures.batches += len(server.batches) - batches_before
    figures.created += created
    figures.worst_over_needed = max(figures.worst_over_needed, created - NEEDED)
    if created > NEEDED:
        figures.problems.append(f"{root.name}: {created} requests created for {NEEDED} needed")
    if not passed:
        figures.problems.append(f"{root.name}: not passed after {TRIAL_SESSIONS} sessions")
        return
    cassettes = sorted((root / "fixtures" / "cassettes").rglob("*.yaml"))
    held = [len(JudgeCassette(path, "none")) for path in cassettes]
    if held != [NEEDED // 2] * 2:
        figures.problems.append(f"{root.name}: the cassettes hold {held} judgments")
    if list(root.rglob("*.batch.json")):
        figures.problems.append(f"{root.name}: a batch state file was left")


def _requests(server: FakeMessagesServer, since: int) -> int:
    """The requests of the batches the server made after its first ``since``."""
    return sum(len(batch["requests"]) for batch in list(server.batches.values())[since:])


def _session(
    root: Path,
    server: FakeMessagesServer,
    rng: random.Random,
    xdist: bool,
    budget: int | None,
    trigger: str | None,
) -> tuple[int, bool]:
    """Run the suite once, killing it (or, under xdist, a worker) when ``trigger`` fires, after a
    random delay; returns its exit code and whether a kill was sent."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider"]
    command += ["--tempoeval-record-mode=new_episodes", "--tempoeval-judge-batch"]
    command += ["-n", "2"] if xdist else []
    command += [f"--tempoeval-judge-max-requests={budget}"] if budget is not None else []
    env = {
        **os.environ,
        "ANTHROPIC_API_KEY": "test-key-not-a-secret",
        "ANTHROPIC_BASE_URL": server.base_url,
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "PYTEST_PLUGINS": "pytest_tempoeval.plugin,xdist.plugin,xdist.looponfail",
    }
    watched = _Watched(root, server)
    child = subprocess.Popen(
        command, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + SESSION_SECONDS
    fire_at = time.monotonic() + rng.uniform(0.0, 3.0) if trigger == "time" else None
    killed = False
    try:
        while child.poll() is None and time.monotonic() < deadline:
            if trigger is not None and not killed:
                if fire_at is None and watched.changed(trigger):
                    fire_at = time.monotonic() + rng.uniform(0.0, 0.1)
                if fire_at is not None and time.monotonic() >= fire_at:
                    killed = _kill(child.pid, xdist, rng)
            time.sleep(0.005)
    finally:
        if child.poll() is None and time.monotonic() >= deadline:
            _kill_all(child)
            pytest.fail(f"seed {SEED}: a session ran over {SESSION_SECONDS} s")
        child.wait(timeout=SESSION_SECONDS)
    # A create the killed run sent may still be in the server's hands: let it land.
    for _ in range(400):
        if server.in_flight == 0:
            break
        time.sleep(0.01)
    return child.returncode, killed


class _Watched:
    """What a trigger waits for: a new batch on the server, a cassette or state file written."""

    def __init__(self, root: Path, server: FakeMessagesServer) -> None:
        self.root, self.server = root, server
        self.batches = len(server.batches)
        self.files = {name: self._stamps(name) for name in ("*.yaml", "*.batch.json")}

    def changed(self, trigger: str) -> bool:
        if trigger == "batch created":
            return len(self.server.batches) > self.batches
        pattern = "*.yaml" if trigger == "cassette written" else "*.batch.json"
        return self._stamps(pattern) != self.files[pattern]

    def _stamps(self, pattern: str) -> dict[Path, int]:
        stamps = {}
        for path in (self.root / "fixtures").rglob(pattern):
            try:
                stamps[path] = path.stat().st_mtime_ns
            except FileNotFoundError:  # replaced while listed
                pass
        return stamps


def _kill(pid: int, xdist: bool, rng: random.Random) -> bool:
    """SIGKILL the session, or one of its xdist workers (False while it has none)."""
    target = rng.choice(_children(pid) or [0]) if xdist else pid
    if not target:
        return False
    try:
        os.kill(target, signal.SIGKILL)
    except ProcessLookupError:
        return False
    return True


def _kill_all(child: subprocess.Popen[bytes]) -> None:
    for pid in _children(child.pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    child.kill()


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (xdist's workers)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found
