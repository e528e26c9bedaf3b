"""Every fault the fake server can inject, while judging live and while recording, one request at a
time and many at once: each either succeeds after retries (and only good answers are recorded) or
fails with a JudgeError naming the query and document. Never a silent 0."""

import re
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from pytest_tempoeval import JudgeDryRun, JudgeError, NoValidAnswer
from pytest_tempoeval.judge.anthropic_judge import AnthropicJudge
from pytest_tempoeval.judge.cassettes import JudgeCassette
from pytest_tempoeval.testing import FakeMessagesServer, Fault

KEY = "test-sentinel-key"
# The judge's request timeout: 50 times a normal answer (~5 ms). It bounds every attempt, so it
# outlasts a loaded machine's pauses (a passing fault's last attempt timed out would fail the
# test); a timeout is proven by 0.25 s as well as by a minute.
TIMEOUT = 0.25
# Seconds before the SDK's first retry (it doubles): what is proven is that a fault is retried,
# not how long the SDK waits (its 0.5 s, then 1 s, were most of this file's time).
BACKOFF = 0.001

# One year each: the fake grade is 4 x Jaccard, so 4 when the years match and 0 otherwise.
ITEMS = [
    (f"q{i}", f"What happened in {2000 + i % 4}?", f"d{i}", f"A report from {2000 + i % 3}.")
    for i in range(12)
]
EXPECTED = [4 if i % 4 == i % 3 else 0 for i in range(12)]

FAULTS = {
    "rate limit 429": Fault.rate_limit(retry_after=0.01),
    "overloaded 529": Fault.overloaded(retry_after=0.01),
    "server error 500": Fault.server_error(),
    "timeout": Fault.slow(1.5),
    "connection reset": Fault.reset(),
    "truncated body": Fault.truncated_body(),
    "malformed JSON reply": Fault.malformed_reply(),
    "out-of-range grade": Fault.out_of_range(),
}


def judge_for(
    server: FakeMessagesServer, concurrency: int, cassette: JudgeCassette | None = None
) -> AnthropicJudge:
    return AnthropicJudge(
        api_key=KEY,
        base_url=server.base_url,
        max_concurrency=concurrency,
        max_retries=2,
        timeout=TIMEOUT,
        retry_backoff=BACKOFF,
        cassette=cassette,
    )


def record_through_faults(path: Path, faults: list[Fault], concurrency: int) -> None:
    """Record ITEMS into a new cassette at ``path``, the server failing as told; saved even when
    judging fails, as the fixture does."""
    cassette = JudgeCassette(path, "once")
    try:
        with FakeMessagesServer() as server:
            server.inject(*faults)
            judge_for(server, concurrency, cassette).grade_all(ITEMS)
    finally:
        cassette.save()


@pytest.mark.parametrize("concurrency", [1, 6])
@pytest.mark.parametrize("fault", FAULTS.values(), ids=FAULTS.keys())
def test_a_passing_fault_is_retried_while_judging_live(fault: Fault, concurrency: int) -> None:
    with FakeMessagesServer() as server:
        server.inject(fault, fault)
        judgments = judge_for(server, concurrency).grade_all(ITEMS)
        assert len(server.requests) >= len(ITEMS) + 1  # the faulty answers were asked again
    assert [j.value for j in judgments] == EXPECTED


@pytest.mark.parametrize("concurrency", [1, 6])
@pytest.mark.parametrize("fault", FAULTS.values(), ids=FAULTS.keys())
def test_a_passing_fault_is_retried_and_never_recorded(
    tmp_path: Path, fault: Fault, concurrency: int
) -> None:
    path = tmp_path / "faults.yaml"
    record_through_faults(path, [fault, fault], concurrency)
    interactions = yaml.safe_load(path.read_text())["interactions"]
    assert len(interactions) == len(ITEMS)
    assert {interaction["response"]["status"]["code"] for interaction in interactions} == {200}
    assert 'relevance_score\\": 7' not in path.read_text()  # the out-of-range reply was not kept
    # Replayed offline, the cassette gives the right grades: the faulty answers were replaced.
    replayed = AnthropicJudge(cassette=JudgeCassette(path)).grade_all(ITEMS)
    assert [j.value for j in replayed] == EXPECTED


@pytest.mark.parametrize("concurrency", [1, 6])
@pytest.mark.parametrize("fault", FAULTS.values(), ids=FAULTS.keys())
def test_a_lasting_fault_is_a_judge_error_naming_query_and_doc(
    tmp_path: Path, fault: Fault, concurrency: int
) -> None:
    path = tmp_path / "lasting.yaml"
    with pytest.raises(
        JudgeError, match=r"^judging doc 'd\d+' for query 'q\d+' \(model [\w.-]+\): \S"
    ):
        record_through_faults(
            path, [fault] * 3 * len(ITEMS), concurrency
        )  # more than every attempt
    assert not path.exists()  # nothing good came back, so nothing was recorded


def test_an_invalid_stored_reply_fails_replay_with_the_cassette_and_new_episodes_replaces_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "edited.yaml"
    cassette = JudgeCassette(path, "once", "RERECORD")
    with FakeMessagesServer() as server:
        judge_for(server, 4, cassette).grade_all(ITEMS)
    cassette.save()
    data = yaml.safe_load(path.read_text())
    body = data["interactions"][0]["response"]["body"]  # one reply spoiled by hand: grade 9
    body["string"] = re.sub(r'(relevance_score\\": )\d', r"\g<1>9", body["string"])
    path.write_text(yaml.safe_dump(data))

    replay = AnthropicJudge(cassette=JudgeCassette(path, "none", "RERECORD"))
    with pytest.raises(
        JudgeError,
        match=(
            r"outside 0\.\.4.*raw reply.*9.*replayed from .*edited\.yaml;"
            r" re-record with: RERECORD"
        ),
    ):
        replay.grade_all(ITEMS)

    repair = JudgeCassette(path, "new_episodes")
    with FakeMessagesServer() as server:
        assert [j.value for j in judge_for(server, 4, repair).grade_all(ITEMS)] == EXPECTED
        assert len(server.requests) == 1  # only the spoiled judgment was asked again
    repair.save()
    assert len(yaml.safe_load(path.read_text())["interactions"]) == len(
        ITEMS
    )  # replaced, not appended
    assert [
        j.value for j in AnthropicJudge(cassette=JudgeCassette(path)).grade_all(ITEMS)
    ] == EXPECTED


def test_a_dry_run_that_would_ask_an_invalid_stored_reply_again_stops_with_its_count(
    tmp_path: Path,
) -> None:
    """Recording would ask the spoiled reply again: the dry run counts that one request and stops
    with JudgeDryRun (whose constructor differs from JudgeError's), naming the query and doc."""
    path = tmp_path / "edited.yaml"
    cassette = JudgeCassette(path, "once")
    with FakeMessagesServer() as server:
        judge_for(server, 4, cassette).grade_all(ITEMS)
    cassette.save()
    data = yaml.safe_load(path.read_text())
    body = data["interactions"][0]["response"]["body"]
    body["string"] = re.sub(r'(relevance_score\\": )\d', r"\g<1>9", body["string"])
    path.write_text(yaml.safe_dump(data))

    judge = AnthropicJudge(
        api_key=KEY,
        base_url="http://127.0.0.1:9",  # nothing listens: a request would fail
        cassette=JudgeCassette(path, "new_episodes"),
        dry_run=True,
    )
    with pytest.raises(JudgeDryRun) as stop:
        judge.grade_all(ITEMS)
    assert str(stop.value).startswith("judging doc 'd0' for query 'q0' (model ")
    assert "judge dry run: 1 judgment to ask (0 held in" in str(stop.value)
    assert (stop.value.needed, stop.value.held, stop.value.where) == (1, 0, str(path))
    assert (judge.stats.to_ask, judge.stats.asked) == (1, 0)


def test_in_context_keeps_the_class_and_its_attributes() -> None:
    stop = JudgeDryRun("judge dry run: 2 judgments to ask", needed=2, held=1, where="c.yaml")
    located = stop.in_context("judging doc 'd' for query 'q'")
    assert type(located) is JudgeDryRun
    assert str(located) == "judging doc 'd' for query 'q': judge dry run: 2 judgments to ask"
    assert (located.needed, located.held, located.where) == (2, 1, "c.yaml")
    assert located.in_context("judging doc 'd' for query 'q'") is located  # said once
    secret = NoValidAnswer("reply was sk-ant-abc123").in_context("where")
    assert str(secret) == "where: reply was sk-ant-<hidden>"


def test_retry_backoff_scales_the_sdks_waits_and_obeys_the_servers() -> None:
    """The knob these tests use. The SDK has no option for its backoff (0.5 s, then 1 s, with
    jitter): ``retry_backoff`` scales that schedule in the one client method that computes it, and
    this fails if the SDK renames the method. A positive ``retry-after`` is the server's wait."""
    import anthropic

    from pytest_tempoeval.judge.anthropic_judge import _client_class

    options = SimpleNamespace(get_max_retries=lambda default: default)
    sdk = anthropic.AsyncAnthropic(api_key=KEY, max_retries=2)
    fast = _client_class(anthropic.AsyncAnthropic, 0.001)(api_key=KEY, max_retries=2)
    for retry, remaining in enumerate((2, 1)):
        assert (
            0.375 * 2**retry <= sdk._calculate_retry_timeout(remaining, options) <= 0.5 * 2**retry
        )
        wait = fast._calculate_retry_timeout(remaining, options, None)
        assert 0.00075 * 2**retry <= wait <= 0.001 * 2**retry
        assert 0 < fast._calculate_retry_timeout(remaining, options, {"retry-after": "0"}) <= 0.002
    assert fast._calculate_retry_timeout(2, options, {"retry-after": "0.25"}) == 0.25
    assert fast._calculate_retry_timeout(2, options, {"retry-after-ms": "40"}) == 0.04


@pytest.mark.parametrize("backoff", [-0.1, float("nan"), float("inf")])
def test_a_retry_backoff_that_is_no_wait_is_refused(backoff: float) -> None:
    with pytest.raises(ValueError, match="retry_backoff must be a finite number >= 0, got"):
        AnthropicJudge(api_key=KEY, retry_backoff=backoff)


def test_retry_backoff_with_a_client_of_ones_own_is_refused_not_ignored() -> None:
    with pytest.raises(ValueError, match="retry_backoff applies to the judge's own client"):
        AnthropicJudge(client=object(), retry_backoff=0.01)
