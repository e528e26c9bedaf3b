"""The judges' recording plumbing as one Recording, and the keywords it replaced still working."""

from __future__ import annotations

import asyncio
import dataclasses
import math
from pathlib import Path
from typing import Any

import pytest

from pytest_tempoeval.data.focus_time import FocusTime
from pytest_tempoeval.errors import JudgeBudgetSpent, JudgeDryRun, JudgeError
from pytest_tempoeval.judge.anthropic_judge import AnthropicJudge
from pytest_tempoeval.judge.budget import RequestBudget
from pytest_tempoeval.judge.cassettes import JudgeCassette
from pytest_tempoeval.judge.custom import CachedJudge
from pytest_tempoeval.judge.recording import Recording
from pytest_tempoeval.testing import FakeMessagesServer

KEY = "test-key-not-a-secret"
ITEMS = [(f"q{i}", f"in {2000 + i}", f"d{i}", f"from {1998 + i} to {2001 + i}") for i in range(10)]
# What each scenario gives the judge: a budget of requests, and whether it is a dry run.
SCENARIOS = {"record": (100, False), "dry run": (100, True), "budget spent": (3, False)}


def observe(spelling: str, scenario: str, folder: Path) -> dict[str, Any]:
    """Everything a judge given ``spelling`` shows in ``scenario``: its judgments or error, the
    cassette it wrote, its progress and status lines, its counters and the HTTP requests sent."""
    path = folder / spelling / "c.yaml"
    calls: list[tuple[int, int, int]] = []
    statuses: list[str] = []
    limit, dry_run = SCENARIOS[scenario]
    with FakeMessagesServer() as server:
        server.batch_polls = 2  # two status lines while the batch is processed
        server.inject_batch_items("expired")  # asked live afterwards: the budget counts it
        settings: dict[str, Any] = {
            "cassette": JudgeCassette(path, "once"),
            "progress": lambda *call: calls.append(call),
            "dry_run": dry_run,
            "budget": RequestBudget(limit),
            "batch": True,
            "batch_poll": 0.001,
            "batch_status": statuses.append,
        }
        client: dict[str, Any] = {"api_key": KEY, "base_url": server.base_url, "max_concurrency": 1}
        if spelling == "keywords":
            judge = AnthropicJudge(**client, **settings)
        else:
            judge = AnthropicJudge(**client, recording=Recording(**settings))
        try:
            outcome: object = judge.grade_all(ITEMS)
        except JudgeError as error:
            outcome = (type(error), str(error).replace(str(path), "<cassette>"))
        settings["cassette"].save()
        http = server.http_requests
    return {
        "outcome": outcome,
        "cassette": path.read_bytes() if path.exists() else None,
        "progress": sorted(calls),
        "status": [line.split(", waiting")[0] for line in statuses],  # without the seconds
        "stats": judge.stats,
        "http": http,
    }


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_old_keywords_and_a_recording_give_the_same_judge(
    tmp_path: Path, scenario: str
) -> None:
    by_keywords = observe("keywords", scenario, tmp_path)
    by_recording = observe("recording", scenario, tmp_path)
    assert by_keywords == by_recording
    # Each scenario exercised the plumbing it names (the comparison is not of two empty runs).
    outcome, stats = by_recording["outcome"], by_recording["stats"]
    if scenario == "record":
        assert isinstance(outcome, list) and len(outcome) == len(ITEMS)
        assert (stats.batched, stats.batch_retried, stats.asked) == (9, 1, 10)
        assert by_recording["status"] == ["batch msgbatch_fake_0001: 0/10 done"] * 2
        assert by_recording["progress"][-1][:2] == (10, 10) and by_recording["cassette"]
    elif scenario == "dry run":
        assert outcome[0] is JudgeDryRun and by_recording["http"] == 0
        assert "10 judgments to ask (0 held in <cassette>)" in outcome[1]
    else:
        assert outcome[0] is JudgeBudgetSpent
        assert "3 new requests per session" in outcome[1]


def test_a_recording_is_frozen_and_built_by_keyword(tmp_path: Path) -> None:
    with pytest.raises(TypeError):
        Recording(JudgeCassette(tmp_path / "c.yaml"))  # type: ignore[call-arg]
    recording = Recording(dry_run=True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        recording.dry_run = False  # type: ignore[misc]
    assert recording == Recording(dry_run=True) and recording != Recording()


@pytest.mark.parametrize("poll", [0, -1.0, math.nan, math.inf, True, "30"])
def test_a_batch_poll_that_is_not_a_positive_finite_number_is_refused(poll: object) -> None:
    message = f"batch_poll must be a positive, finite number of seconds, got {poll!r}"
    with pytest.raises(ValueError, match=f"^{message}$".replace("(", r"\(").replace(")", r"\)")):
        Recording(batch_poll=poll)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="batch_poll must be a positive, finite number"):
        AnthropicJudge(batch_poll=poll)  # type: ignore[arg-type]  # the old keyword too


def test_a_recording_and_its_old_keywords_at_once_are_refused(tmp_path: Path) -> None:
    with pytest.raises(
        TypeError,
        match=r"^AnthropicJudge\(\) takes the recording settings either as "
        r"recording=Recording\(\.\.\.\) or as keywords, not both: put dry_run, batch in the "
        r"Recording$",
    ):
        AnthropicJudge(recording=Recording(), dry_run=True, batch=True)
    with pytest.raises(TypeError, match=r"CachedJudge\(\) takes the recording settings either"):
        CachedJudge(Years(), tmp_path / "c.json", recording=Recording(), budget=None)
    with pytest.raises(TypeError, match=r"must be a Recording, got True"):
        AnthropicJudge(recording=True)  # type: ignore[arg-type]


def test_a_misspelt_keyword_is_named_with_the_closest_one(tmp_path: Path) -> None:
    with pytest.raises(
        TypeError,
        match=r"^AnthropicJudge\(\) got an unexpected keyword argument 'dryrun' "
        r"\(did you mean 'dry_run'\?\)$",
    ):
        AnthropicJudge(dryrun=True)  # type: ignore[call-arg]
    # A cassette is AnthropicJudge's: CachedJudge keeps its answers in its own file.
    with pytest.raises(TypeError, match=r"^CachedJudge\(\) got an unexpected keyword argument"):
        CachedJudge(Years(), tmp_path / "c.json", cassette=None)  # type: ignore[call-arg]


def test_a_judge_reads_and_writes_its_recording_as_attributes(tmp_path: Path) -> None:
    cassette = JudgeCassette(tmp_path / "c.yaml", "once")
    judge = AnthropicJudge(api_key=KEY, base_url="http://127.0.0.1:9", cassette=cassette)
    assert judge.cassette is cassette and judge.dry_run is False and judge.batch_poll == 30.0
    judge.dry_run = True  # as before the Recording: the judge now counts, and asks nothing
    with pytest.raises(JudgeDryRun, match="1 judgment to ask"):
        judge.grade_all(ITEMS[:1])
    assert judge.dry_run is True and judge.cassette is cassette
    with pytest.raises(ValueError, match="batch_poll must be"):
        judge.batch_poll = 0  # checked as the Recording checks it


# -- CachedJudge: the same Recording, of which it uses the dry run and the budget ------------------


class Years:
    """A provider grading by year overlap, counting its calls."""

    model = "years-1"

    def __init__(self) -> None:
        self.calls = 0

    async def grade(self, query: str, document: str) -> int:
        self.calls += 1
        await asyncio.sleep(0)
        return round(4 * FocusTime.from_text(query).jaccard(FocusTime.from_text(document)))

    async def verdict(self, query: str, document: str, temporal_focus: str | None = None) -> bool:
        self.calls += 1
        return FocusTime.from_text(query).overlaps(FocusTime.from_text(document))


def cached_outcome(spelling: str, folder: Path, **settings: Any) -> tuple[object, int, bytes]:
    """What a CachedJudge given ``spelling`` does: its judgments or error, the provider's calls,
    and the cache it saved."""
    path = folder / spelling / "c.json"
    provider = Years()
    if spelling == "keywords":
        judge = CachedJudge(provider, path, "once", 1, **settings)
    else:
        judge = CachedJudge(provider, path, "once", 1, recording=Recording(**settings))
    try:
        outcome: object = judge.grade_all(ITEMS)
    except JudgeError as error:
        outcome = (type(error), str(error).replace(str(path), "<cache>"))
    judge.save()
    return outcome, provider.calls, path.read_bytes() if path.exists() else b""


@pytest.mark.parametrize("settings", [{"dry_run": True}, {"budget": 4}, {}], ids=repr)
def test_a_cached_judge_takes_the_same_recording_as_its_old_keywords(
    tmp_path: Path, settings: dict[str, Any]
) -> None:
    def given() -> dict[str, Any]:  # a budget per judge: each spends its own
        return {k: RequestBudget(v) if k == "budget" else v for k, v in settings.items()}

    by_keywords = cached_outcome("keywords", tmp_path, **given())
    by_recording = cached_outcome("recording", tmp_path, **given())
    assert by_keywords == by_recording
    outcome, calls, _ = by_recording
    if "dry_run" in settings:
        assert outcome[0] is JudgeDryRun and calls == 0  # type: ignore[index]
    elif "budget" in settings:
        assert outcome[0] is JudgeBudgetSpent and calls == 4  # type: ignore[index]
    else:
        assert isinstance(outcome, list) and calls == len(ITEMS)


def test_a_cached_judge_refuses_the_recording_it_cannot_honour(tmp_path: Path) -> None:
    recording = Recording(cassette=JudgeCassette(tmp_path / "c.yaml"), batch=True)
    with pytest.raises(
        ValueError,
        match=r"^CachedJudge does not use Recording\(cassette, batch\): it takes budget, "
        r"dry_run only$",
    ):
        CachedJudge(Years(), tmp_path / "c.json", recording=recording)


# -- the closed sets, in the one wording of errors.check_choice -----------------------------------


def test_a_misspelt_prompt_style_or_record_mode_gets_the_closest_one(tmp_path: Path) -> None:
    with pytest.raises(
        ValueError,
        match=r"^prompt_style must be one of seed, delimited, got 'seeds' "
        r"\(did you mean 'seed'\?\)$",
    ):
        AnthropicJudge(prompt_style="seeds")
    with pytest.raises(
        ValueError,
        match=r"^record mode must be one of none, once, new_episodes, all, got 'onse' "
        r"\(did you mean 'once'\?\)$",
    ):
        CachedJudge(Years(), tmp_path / "c.json", record_mode="onse")
