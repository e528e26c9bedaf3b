"""What judging costs, under control: dry runs ask nothing, the budget is never exceeded, and batch
recording gives the cassettes live recording gives, with its faults handled."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from plugin_helpers import XDIST_MODES

from pytest_tempoeval.errors import JudgeBudgetSpent, JudgeDryRun, JudgeError
from pytest_tempoeval.judge.anthropic_judge import MAX_TOKENS, AnthropicJudge
from pytest_tempoeval.judge.batches import chunks, custom_id
from pytest_tempoeval.judge.budget import RequestBudget
from pytest_tempoeval.judge.cassettes import MATCH_ON, JudgeCassette
from pytest_tempoeval.metrics.llm_prompts import graded_prompt
from pytest_tempoeval.testing import FakeMessagesServer

# its pytester sessions record in-process: the SDK is imported once, not per session
pytestmark = pytest.mark.usefixtures("judge_sdk_stays_loaded")
KEY = "test-key-not-a-secret"
# 8 documents from 8 different years, judged for one query: 8 requests.
GOLD = (
    "version: 1\ndocuments:\n"
    + "".join(f'  d{year}: {{text: "An event of {year}."}}\n' for year in range(2016, 2024))
    + 'queries:\n  - id: q\n    text: "What happened in 2020?"\n'
)
TESTS = """
import pytest
from pytest_tempoeval import Run, temporal_ndcg

DOCS = [f"d{year}" for year in range(2016, 2024)]

@pytest.mark.tempoeval("gold.yaml")
@pytest.mark.parametrize("part", ["first", "second"])
def test_llm(tempoeval_gold, tempoeval_judge, part):
    docs = DOCS[:4] if part == "first" else DOCS
    result = temporal_ndcg(Run({"q": docs}), tempoeval_gold, k=len(docs), mode="llm",
                           judge=tempoeval_judge)
    print("SCORE", part, float(result))
"""
ITEMS = [
    (f"q{i}", f"Events of {2000 + i % 7}", f"d{i}", f"In {2000 + i % 5} it happened")
    for i in range(30)
]


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    pytester.makefile(".yaml", gold=GOLD)
    pytester.makepyfile(test_judged=TESTS)
    return pytester


def cassettes(suite: pytest.Pytester) -> dict[str, list[dict]]:
    import yaml

    return {
        path.name: yaml.safe_load(path.read_text())["interactions"]
        for path in sorted((suite.path / "fixtures" / "cassettes").rglob("*.yaml"))
    }


# -- dry run ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_dry_run_asks_nothing_counts_what_is_held_and_skips(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, xdist: list[str]
) -> None:
    with FakeMessagesServer() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        suite.runpytest("-k", "first", "--tempoeval-record-mode=once").assert_outcomes(
            passed=1, deselected=1
        )
        before = server.http_requests
        # Not one request, whatever the record mode: a test's own judge decides it, in its own
        # process (no xdist: the dry run below asks nothing from the workers either).
        result = suite.runpytest("--tempoeval-judge-dry-run", "--tempoeval-record-mode=all")
        assert server.http_requests == before
        # Without "all": the first test's cassette holds its 4; the second needs 8, holds none.
        dry = suite.runpytest(
            *xdist, "-rs", "--tempoeval-judge-dry-run", "--tempoeval-record-mode=once"
        )
        assert server.http_requests == before
    result.assert_outcomes(skipped=2)
    dry.assert_outcomes(passed=1, skipped=1)
    output = dry.stdout.str()
    assert "judge dry run: 8 judgments to ask (0 held in" in output
    line = re.search(r"LLM judge dry run \(nothing asked\): (.*)", output)
    assert line is not None, output
    # 8 graded prompts of ~720 characters: ~180 tokens each by the 4-characters rule; 50 out each.
    match = re.match(
        r"8 judgments to ask, 0 held in cassettes; estimated (\d+) input / 400 output tokens, "
        r"about \$(\S+) at claude-haiku-5-5 prices",
        line.group(1),
    )
    assert match is not None, line.group(1)
    tokens = int(match.group(1))
    assert 1200 < tokens < 1800
    assert float(match.group(2)) == pytest.approx((tokens * 1 + 400 * 5) / 1e6, rel=0.05)
    assert "LLM judge: 4 replayed from cassettes, 0 asked live" in output


# Three judged calls in one test: nDCG@4 and nDCG@8 share 4 graded prompts, P@6 asks 6 verdicts.
# CALLS=1 makes only the first.
SEVERAL_CALLS = """
import os
import pytest
from pytest_tempoeval import Run, temporal_ndcg, temporal_precision

RUN = Run({"q": ["d2020", "d2016", "d2017", "d2018", "d2019", "d2021", "d2022", "d2023"]})

@pytest.mark.tempoeval("gold.yaml")
def test_calls(tempoeval_gold, tempoeval_judge, tempoeval_baseline):
    first = temporal_ndcg(RUN, tempoeval_gold, k=4, mode="llm", judge=tempoeval_judge)
    assert first >= 0.5
    if os.environ.get("CALLS") == "1":
        return
    assert temporal_ndcg(RUN, tempoeval_gold, k=8, mode="llm", judge=tempoeval_judge) >= 0.5
    precision = temporal_precision(RUN, tempoeval_gold, k=6, mode="llm", judge=tempoeval_judge)
    assert precision >= 0.1
    tempoeval_baseline.check(precision)
    assert precision.per_query["q"] > 0  # no score in a dry run: a KeyError, skipped all the same
"""


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_dry_run_counts_every_judged_call_of_a_test_as_recording_asks_them(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, xdist: list[str]
) -> None:
    """It used to stop at a test's first judged call: 4 counted where recording asked 14, and with
    the first call in the cassette, 4 where 10 were needed.

    The partial dry run is what runs under each xdist mode: a worker counts its test's calls and
    the controller adds up the workers' counts. The empty dry run counts the same calls with
    nothing held, in the test's own process, so it runs without xdist. The recordings, without
    xdist, are the yardstick (one test asks what it asks, on any worker); an xdist worker would
    spend 3 s of CPU importing the SDK for each (recording under -n 2:
    test_the_budget_holds_...)."""
    suite.makepyfile(test_judged=SEVERAL_CALLS)
    monkeypatch.delenv("CALLS", raising=False)
    update = ("--tempoeval-update-baseline",)
    with FakeMessagesServer() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        empty = suite.runpytest("-rs", "--tempoeval-judge-dry-run", *update)
        monkeypatch.setenv("CALLS", "1")
        suite.runpytest("--tempoeval-record-mode=once").assert_outcomes(passed=1)
        first = len(server.requests)
        monkeypatch.setenv("CALLS", "3")
        partial = suite.runpytest(*xdist, "-rs", "--tempoeval-judge-dry-run", *update)
        assert len(server.requests) == first  # a dry run asks nothing
        recorded = suite.runpytest("--tempoeval-record-mode=new_episodes", *update)
        rest = len(server.requests) - first
    empty.assert_outcomes(skipped=1)
    partial.assert_outcomes(skipped=1)
    recorded.assert_outcomes(passed=1)
    assert (first, rest) == (4, 10)  # 8 graded prompts and 6 verdicts, 14 requests in all
    assert "judge dry run: 14 judgments to ask (0 held in " in empty.stdout.str()
    assert "LLM judge dry run (nothing asked): 14 judgments to ask, 0 held" in empty.stdout.str()
    output = partial.stdout.str()
    assert re.search(
        r"judge dry run: 10 judgments to ask \(4 held in \S+\.yaml\) in 2 judged calls", output
    )
    assert "LLM judge: 4 replayed from cassettes, 0 asked live" in output
    assert "LLM judge dry run (nothing asked): 10 judgments to ask, 4 held" in output
    # only the replayed call's result was compared; the stopped calls' were compared with nothing
    assert "1 metric checks, 0 failed" in output
    assert "4 metric checks, 0 failed" in recorded.stdout.str()  # 3 thresholds, 1 baseline
    # the dry runs wrote no baseline; the recording, whose scores are real, did
    baselines = list((suite.path / "fixtures" / "baselines").rglob("*.json"))
    assert len(baselines) == 1


def test_dry_run_estimates_3000_judgments_without_a_server(tmp_path: Path) -> None:
    items = [
        (f"q{i}", f"In {1900 + i % 120}?", f"d{i}", f"Text {i} of {1950 + i % 70}.")
        for i in range(3000)
    ]
    judge = AnthropicJudge(
        api_key=KEY,
        base_url="http://127.0.0.1:9",  # nothing listens: a request would fail
        cassette=JudgeCassette(tmp_path / "c.yaml", "all"),
        dry_run=True,
    )
    with pytest.raises(JudgeDryRun) as stop:
        judge.grade_all(items)
    assert (stop.value.needed, stop.value.held) == (3000, 0)
    prompts = {graded_prompt(q, d) for _, q, _, d in items}
    assert judge.stats.estimated_input_tokens == sum(-(-len(p) // 4) for p in prompts)
    assert judge.stats.asked == 0 and judge.stats.to_ask == 3000


# -- budget ----------------------------------------------------------------------------------------


def test_the_budget_stops_recording_names_what_is_missing_and_new_episodes_continues(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeMessagesServer() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        spent = suite.runpytest(
            "-k", "second", "--tempoeval-record-mode=once", "--tempoeval-judge-max-requests=3"
        )
        assert len(server.requests) == 3  # never more than the budget
        spent.assert_outcomes(failed=1, deselected=1)
        output = spent.stdout.str()
        assert "JudgeBudgetSpent: the judge's request budget is spent: 3 new requests per" in output
        assert "5 of the 8 judgments this call needs are still missing. No score" in output
        assert "SCORE" not in output  # never a partial score
        assert [len(v) for v in cassettes(suite).values()] == [3]  # what was recorded is kept
        done = suite.runpytest(
            "-k",
            "second",
            "--tempoeval-record-mode=new_episodes",
            "-o",
            "tempoeval_judge_max_requests=5",
        )
        done.assert_outcomes(passed=1, deselected=1)
        assert len(server.requests) == 3 + 5  # only the missing ones were asked
    assert "LLM judge: 3 replayed from cassettes, 5 asked live" in done.stdout.str()


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_the_budget_holds_for_the_whole_session_under_xdist(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, xdist: list[str]
) -> None:
    """Two tests need 4 + 8 requests; a budget of 10 allows 10 in all, whichever worker asks."""
    with FakeMessagesServer() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        result = suite.runpytest(
            *xdist, "--tempoeval-record-mode=once", "-o", "tempoeval_judge_max_requests=10"
        )
        assert len(server.requests) == 10
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed") == 1 and outcomes.get("passed") == 1
    assert "judge's request budget is spent: 10 new requests per session" in result.stdout.str()


def test_a_bad_budget_is_a_usage_error(suite: pytest.Pytester) -> None:
    result = suite.runpytest("-o", "tempoeval_judge_max_requests=lots")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*judge request budget must be an integer >= 0, got 'lots'*"])


@pytest.mark.parametrize(
    ("option", "message"),
    [
        *[  # 0, -5 and nan polled without pause, inf never
            (
                f"tempoeval_judge_batch_poll={value}",
                (
                    "*ini tempoeval_judge_batch_poll must be a positive, finite number of seconds, "
                    f"got '{value}'*"
                ),
            )
            for value in ("soon", "0", "-5", "nan", "inf", "")
        ],
        ("tempoeval_judge_prompt_style=fenced", "*must be one of seed, delimited, got 'fenced'*"),
    ],
)
def test_a_bad_judge_setting_is_one_usage_error_before_any_test(
    suite: pytest.Pytester, option: str, message: str
) -> None:
    result = suite.runpytest("-o", option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "collected" not in result.stdout.str()


def test_a_shared_budget_file_is_never_exceeded_by_threads(tmp_path: Path) -> None:
    budget = RequestBudget(50, tmp_path / "budget")

    async def take_many() -> list[bool]:
        return await asyncio.gather(*(asyncio.to_thread(budget.take) for _ in range(200)))

    taken = [ok for ok in asyncio.run(take_many()) if ok]
    assert len(taken) == 50 and budget.used == 50 and budget.remaining == 0
    budget.give_back()
    assert budget.remaining == 1


# -- batches ---------------------------------------------------------------------------------------


def batch_judge(server: FakeMessagesServer, path: Path, **options: object) -> AnthropicJudge:
    cassette = JudgeCassette(path, "once")
    return AnthropicJudge(
        api_key=KEY,
        base_url=server.base_url,
        cassette=cassette,
        batch=True,
        batch_poll=0.001,
        **options,
    )


def test_batch_recording_gives_the_live_cassette_byte_for_byte(tmp_path: Path) -> None:
    with FakeMessagesServer() as server:
        judge = batch_judge(server, tmp_path / "batch.yaml")
        batched = judge.grade_all(ITEMS)
        judge.cassette.save()  # type: ignore[union-attr]
        batch_http = server.http_requests
        live = AnthropicJudge(
            api_key=KEY,
            base_url=server.base_url,
            cassette=JudgeCassette(tmp_path / "live.yaml", "once"),
        )
        assert live.grade_all(ITEMS) == batched
        live.cassette.save()  # type: ignore[union-attr]
    assert (tmp_path / "batch.yaml").read_bytes() == (tmp_path / "live.yaml").read_bytes()
    assert judge.stats.batched == 30 and judge.stats.asked == 30 and live.stats.batched == 0
    assert batch_http == 4  # create, retrieve (ended), retrieve by results(), results
    assert server.http_requests - batch_http == 30
    assert not list(tmp_path.glob("*.batch.json"))  # the state file is gone once saved


def test_a_batch_recorded_cassette_replays_with_the_plugin_and_stock_vcrpy(tmp_path: Path) -> None:
    import anthropic
    import vcr

    path = tmp_path / "batch.yaml"
    with FakeMessagesServer() as server:
        judge = batch_judge(server, path)
        recorded = judge.grade_all(ITEMS[:6])
        judge.cassette.save()  # type: ignore[union-attr]
    replay = AnthropicJudge(cassette=JudgeCassette(path, "none"))
    assert replay.grade_all(ITEMS[:6]) == recorded and replay.stats.replayed == 6
    with vcr.use_cassette(str(path), record_mode="none", match_on=list(MATCH_ON)):
        client = anthropic.Anthropic(api_key="unused", max_retries=0)
        for judgment, (_, query, _, document) in zip(recorded, ITEMS, strict=False):
            message = client.messages.create(
                max_tokens=MAX_TOKENS,
                messages=[{"role": "user", "content": graded_prompt(query, document)}],
                model=replay.model,
            )
            assert json.loads(message.content[0].text)["relevance_score"] == judgment.value


def test_expired_and_errored_items_are_asked_live_and_slow_batches_report_progress(
    tmp_path: Path,
) -> None:
    statuses: list[str] = []
    with FakeMessagesServer() as server:
        server.batch_polls = 3
        server.inject_batch_items("expired", "errored", "canceled")
        judge = batch_judge(server, tmp_path / "c.yaml", batch_status=statuses.append)
        judgments = judge.grade_all(ITEMS)
        live_asked = len(server.requests)
    assert live_asked == 3  # the three failed items, asked live; none silently dropped
    assert judge.stats.batch_retried == 3 and judge.stats.batched == 27 and judge.stats.asked == 30
    assert len(judgments) == 30
    assert len(statuses) == 3 and statuses[0].startswith("batch msgbatch_fake_0001: 0/30 done")


def test_an_interrupted_batch_is_resumed_not_paid_twice(tmp_path: Path) -> None:
    with FakeMessagesServer() as server:
        server.batch_polls = 10**9  # never ends: the run is interrupted while waiting
        interrupt(batch_judge(server, tmp_path / "c.yaml"), ITEMS)
        state = tmp_path / "c.yaml.batch.json"
        assert json.loads(state.read_text())["batches"][0]["id"] == "msgbatch_fake_0001"
        server.batch_polls = 0
        again = batch_judge(server, tmp_path / "c.yaml")
        again.grade_all(ITEMS)
        assert list(server.batches) == ["msgbatch_fake_0001"]  # resumed, not created again
        assert len(server.requests) == 0 and again.stats.batched == 30
    assert not state.exists()


def interrupt(judge: AnthropicJudge, items: list, until: Callable[[], bool] | None = None) -> None:
    """Run ``judge`` on ``items`` and stop it (a run killed mid-batch) once ``until()`` holds: by
    default, once its state file names a batch. Bounded: 30 s at most."""
    assert judge.cassette is not None
    state = judge.cassette.path.with_name(judge.cassette.path.name + ".batch.json")

    def named() -> bool:
        return state.exists() and all("id" in entry for entry in state_entries(judge.cassette.path))

    async def main() -> None:
        task = asyncio.ensure_future(judge.agrade_all(items))
        for _ in range(3000):
            if (until or named)() or task.done():
                break
            await asyncio.sleep(0.01)
        assert not task.done(), "the judge finished before it was interrupted"
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    asyncio.run(main())


def batch_sizes(server: FakeMessagesServer) -> list[int]:
    return [len(batch["requests"]) for batch in server.batches.values()]


def state_entries(path: Path) -> list[dict]:
    return json.loads(path.with_name(path.name + ".batch.json").read_text())["batches"]


def test_a_resume_takes_what_a_known_batch_holds_even_when_it_holds_more(tmp_path: Path) -> None:
    """Issue 25: the cassette's periodic save held 1 answer of a 30-request batch; the resume
    needs 29, which the known batch holds: no new batch."""
    path = tmp_path / "c.yaml"
    with FakeMessagesServer() as server:
        server.batch_polls = 10**9
        interrupt(batch_judge(server, path), ITEMS)
        server.batch_polls = 0
        again = batch_judge(server, path)
        judgments = again.grade_all(ITEMS[1:])
        assert batch_sizes(server) == [30]  # not a second batch of 29
        assert len(server.requests) == 0 and again.stats.batched == 29
    assert [j.doc_id for j in judgments] == [item[2] for item in ITEMS[1:]]


def test_a_resume_with_a_smaller_budget_takes_the_paid_batch_and_spends_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "c.yaml"
    with FakeMessagesServer() as server:
        server.batch_polls = 10**9
        interrupt(batch_judge(server, path), ITEMS)
        server.batch_polls = 0
        budget = RequestBudget(10)
        again = batch_judge(server, path, budget=budget)
        assert len(again.grade_all(ITEMS)) == 30
        assert batch_sizes(server) == [30] and len(server.requests) == 0
        assert budget.used == 0  # answers paid for by the interrupted run are not new requests


def test_a_new_batch_holds_only_what_no_known_batch_holds(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    with FakeMessagesServer() as server:
        server.batch_polls = 10**9
        interrupt(batch_judge(server, path), ITEMS[:20])
        server.batch_polls = 0
        budget = RequestBudget(10)
        again = batch_judge(server, path, budget=budget)
        assert len(again.grade_all(ITEMS)) == 30
        assert batch_sizes(server) == [20, 10] and budget.used == 10
        bodies = [request["params"] for request in server.batches["msgbatch_fake_0002"]["requests"]]
        assert [body["messages"][0]["content"] for body in bodies] == sorted(
            graded_prompt(query, document) for _, query, _, document in ITEMS[20:]
        )
        assert again.stats.batched == 30 and len(server.requests) == 0


def test_a_batch_created_just_before_a_kill_is_found_again(tmp_path: Path) -> None:
    """The API made the batch, the run died before learning its id: the intent written before the
    create leads the resume to it, through the list of batches."""
    path = tmp_path / "c.yaml"
    with FakeMessagesServer() as server:
        server.batch_create_latency = 2.0  # the batch exists; its id comes too late
        interrupt(batch_judge(server, path), ITEMS, until=lambda: len(server.batches) == 1)
        assert batch_sizes(server) == [30]
        [intent] = state_entries(path)
        assert "id" not in intent and len(intent["custom_ids"]) == 30
        server.batch_create_latency = 0.0
        again = batch_judge(server, path)
        assert len(again.grade_all(ITEMS)) == 30
        assert batch_sizes(server) == [30]  # found, not created again
        assert again.stats.batched == 30 and len(server.requests) == 0


def test_an_intent_whose_batch_was_never_made_is_created_and_another_batch_is_not_taken(
    tmp_path: Path,
) -> None:
    """An intent without a batch id: the run died before its create reached the API. A batch of
    the same size created since (another test's) is waited for; its results do not carry the
    intent's request ids, so it is not taken, and the requests go into a batch of their own."""
    import anthropic

    path = tmp_path / "c.yaml"
    with FakeMessagesServer() as server:
        judge = batch_judge(server, path)
        ids = sorted(custom_id(judge._body(graded_prompt(q, d))) for _, q, _, d in ITEMS)
        intent = {"local": "x", "custom_ids": ids, "intent": time.time()}
        path.with_name("c.yaml.batch.json").write_text(json.dumps({"batches": [intent]}))
        other = anthropic.Anthropic(api_key=KEY, base_url=server.base_url)
        params = {"max_tokens": 10, "messages": [{"role": "user", "content": "x"}], "model": "m"}
        other.messages.batches.create(
            requests=[{"custom_id": f"other-{n}", "params": params} for n in range(30)]
        )
        judgments = judge.grade_all(ITEMS)
        assert batch_sizes(server) == [30, 30] and judge.stats.batched == 30
        mine = {item["custom_id"] for item in server.batches["msgbatch_fake_0002"]["requests"]}
        assert sorted(mine) == ids and len(server.requests) == 0
        live = AnthropicJudge(api_key=KEY, base_url=server.base_url)
        assert live.grade_all(ITEMS) == judgments


def test_a_state_file_left_beside_a_whole_cassette_goes_at_the_next_recording(
    tmp_path: Path,
) -> None:
    """Killed after the cassette was saved, before the state file was removed: the next recording
    needs nothing, asks nothing, and drops the batches the cassette answers (only those)."""
    path = tmp_path / "c.yaml"
    state = path.with_name("c.yaml.batch.json")
    with FakeMessagesServer() as server:
        server.batch_polls = 10**9
        interrupt(batch_judge(server, path), ITEMS)
        [paid] = state_entries(path)
        server.batch_polls = 0
        batch_judge(server, path).grade_all(ITEMS)
        assert not state.exists()
        other = {"id": "msgbatch_other", "custom_ids": ["te-another-call"], "created": 1.0}
        state.write_text(json.dumps({"batches": [paid, other]}))  # as the kill left it
        before = server.http_requests

        def recording(**options: object) -> AnthropicJudge:
            cassette = JudgeCassette(path, "new_episodes")
            return AnthropicJudge(
                api_key=KEY, base_url=server.base_url, cassette=cassette, batch=True, **options
            )

        recording(dry_run=True).grade_all(ITEMS)
        assert state_entries(path) == [paid, other]  # a dry run writes nothing
        recording().grade_all(ITEMS)
        assert state_entries(path) == [other] and server.http_requests == before
        state.write_text(json.dumps({"batches": [paid]}))
        recording().grade_all(ITEMS)
        assert not state.exists() and server.http_requests == before


@pytest.mark.parametrize(
    "text",
    [
        '{"batches": 5}',
        '{"batches": "abc"}',
        "[]",
        "null",
        '{"batches": [5]}',
        '{"batches": [{"id": "msgbatch_1"}]}',
        '{"batches": [{"id": 7, "custom_ids": ["te-1"]}]}',
        '{"batches": [{"custom_ids": ["te-1"]}]}',
        "{not json",
    ],
)
def test_a_batch_state_file_that_is_not_one_is_an_error_and_left_as_it_is(
    tmp_path: Path, text: str
) -> None:
    path = tmp_path / "c.yaml"
    state = path.with_name("c.yaml.batch.json")
    state.write_text(text)
    with FakeMessagesServer() as server:
        judge = batch_judge(server, path)
        with pytest.raises(JudgeError) as error:
            judge.grade_all(ITEMS)
        assert server.batches == {} and server.requests == []
    message = str(error.value)
    assert message.startswith(f"{state}: not a batch state file")
    assert "left as it is: fix it, or delete it to create new batches" in message
    assert state.read_text() == text


def test_batches_respect_the_api_limits() -> None:
    bodies = [{"model": "m", "messages": [{"role": "user", "content": "x" * 10}]}] * 250_000
    sizes = [len(batch) for batch in chunks(bodies)]
    assert sizes == [100_000, 100_000, 50_000]
    big = [{"model": "m", "messages": [{"role": "user", "content": "x" * 3_000_000}]}] * 90
    sizes = [len(batch) for batch in chunks(big)]
    assert sizes == [85, 5]  # 85 x 3 MB fits in 256 MB, 86 does not


def test_a_batch_within_the_budget_fails_the_rest_naming_it(tmp_path: Path) -> None:
    with FakeMessagesServer() as server:
        judge = batch_judge(server, tmp_path / "c.yaml", budget=RequestBudget(10))
        with pytest.raises(JudgeBudgetSpent, match="20 of the 30 judgments this call needs"):
            judge.grade_all(ITEMS)
        assert sum(len(batch["requests"]) for batch in server.batches.values()) == 10
        assert len(server.requests) == 0
