"""Every fault the fake server can inject, while judging live and while recording, one request at a
time and many at once: each either succeeds after retries (and only good answers are recorded) or
fails with a JudgeError naming the query and document. Never a silent 0."""

import re
from pathlib import Path

import pytest
import yaml

from pytest_tempoeval import JudgeError
from pytest_tempoeval.judge.anthropic_judge import AnthropicJudge
from pytest_tempoeval.judge.cassettes import JudgeCassette
from pytest_tempoeval.testing import FakeMessagesServer, Fault

KEY = "test-sentinel-key"
# the judge's request timeout: 100 times a normal answer (~5 ms), safe on a loaded machine
TIMEOUT = 0.5

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
