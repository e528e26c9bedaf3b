"""Judge cassettes: record once against the fake server, replay offline, fail clearly on a miss."""

import json
import re
from pathlib import Path

import pytest

from pytest_tempoeval.testing import FakeMessagesServer

SENTINEL = "test-sentinel-key-SENTINEL-0123456789"
GOLD = """\
version: 1
documents:
  d2016: {text: "The 2016 election was won by Trump."}
  d2020: {text: "The 2020 election was won by Biden."}
queries:
  - id: q2016
    text: "Who won in 2016?"
"""
TEST = """
import pytest
from pytest_tempoeval import Run, temporal_ndcg

@pytest.mark.tempoeval(gold="gold.yaml")
def test_llm(tempoeval_gold, tempoeval_judge):
    result = temporal_ndcg(Run({"q2016": ["d2020", "d2016"]}), tempoeval_gold, k=2, mode="llm", judge=tempoeval_judge)
    print("SCORE", repr(float(result)), tempoeval_judge.stats)
"""
CASSETTE = Path("fixtures/cassettes/test_judged/test_llm.yaml")


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    pytester.makefile(".yaml", gold=GOLD)
    pytester.makepyfile(test_judged=TEST)
    return pytester


def record(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> str:
    with FakeMessagesServer() as server, monkeypatch.context() as env:
        env.setenv("ANTHROPIC_API_KEY", SENTINEL)
        env.setenv("ANTHROPIC_BASE_URL", server.base_url)
        result = suite.runpytest("-s", "--tempoeval-record-mode=once")
        assert len(server.requests) == 2
    result.assert_outcomes(passed=1)
    return re.search(r"SCORE (\S+)", result.stdout.str()).group(1)


def test_record_then_replay_offline_gives_identical_scores(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    recorded = record(suite, monkeypatch)
    assert (suite.path / CASSETTE).is_file()
    # The server is gone and no key is set: replay must not need either.
    replayed = suite.runpytest("-s")
    replayed.assert_outcomes(passed=1)
    assert re.search(r"SCORE (\S+)", replayed.stdout.str()).group(1) == recorded
    assert "judgments=2" in replayed.stdout.str()  # served by the cassette
    replayed.stdout.fnmatch_lines(["LLM judge: 2 judgments, 0 answered from memory, * input / * output tokens"])


def test_cassettes_hold_no_secrets_or_account_headers(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    record(suite, monkeypatch)
    text = (suite.path / CASSETTE).read_text()
    assert SENTINEL not in text and "SENTINEL" not in text
    for header in ("authorization", "x-api-key", "anthropic-organization-id", "request-id", "org-fake", "req_fake"):
        assert header not in text.lower(), header
    assert "https://api.anthropic.com/v1/messages" in text  # stored as the public API, whatever the base URL


def test_changed_document_is_a_miss_naming_cassette_query_doc_and_command(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    record(suite, monkeypatch)
    (suite.path / "gold.yaml").write_text(GOLD.replace("won by Trump", "won by Donald Trump"))
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert "JudgeCassetteError: judging doc 'd2016' for query 'q2016'" in output
    assert str(CASSETTE) in output and "--tempoeval-record-mode=once" in output


def test_missing_cassette_fails_without_retries(suite: pytest.Pytester) -> None:
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    assert "JudgeCassetteError" in result.stdout.str() and "Connection error" not in result.stdout.str()
    assert not (suite.path / CASSETTE).exists()  # nothing is written in replay mode


def test_errors_are_never_recorded(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_tempoeval.testing import Fault

    with FakeMessagesServer() as server, monkeypatch.context() as env:
        env.setenv("ANTHROPIC_API_KEY", SENTINEL)
        env.setenv("ANTHROPIC_BASE_URL", server.base_url)
        server.inject(Fault.rate_limit(retry_after=0), Fault.server_error())
        suite.runpytest("--tempoeval-record-mode=once").assert_outcomes(passed=1)
        assert len(server.requests) == 4  # two faults retried by the SDK, then two answers
    statuses = re.findall(r"code: (\d+)", (suite.path / CASSETTE).read_text())
    assert statuses == ["200", "200"]


def test_stock_vcrpy_replays_our_cassettes(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    import anthropic
    import vcr

    record(suite, monkeypatch)
    cassette = suite.path / CASSETTE
    body = _first_request_body(cassette)
    with vcr.use_cassette(str(cassette), record_mode="none", match_on=["method", "uri", "body"]):
        client = anthropic.Anthropic(api_key="unused", max_retries=0)
        message = client.messages.create(**body)
    assert json.loads(message.content[0].text)["relevance_score"] in (0, 4)


def _first_request_body(cassette: Path) -> dict:
    import yaml

    body = yaml.safe_load(cassette.read_text())["interactions"][0]["request"]["body"]
    return json.loads(body["string"] if isinstance(body, dict) else body)


def test_progress_line_while_recording_and_silence_in_replay(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeMessagesServer() as server, monkeypatch.context() as env:
        env.setenv("ANTHROPIC_API_KEY", SENTINEL)
        env.setenv("ANTHROPIC_BASE_URL", server.base_url)
        recording = suite.runpytest("--tempoeval-record-mode=once")
    assert "judging 2/2 (0 cached)" in recording.stdout.str()
    replay = suite.runpytest()
    replay.assert_outcomes(passed=1)
    assert "judging" not in replay.stdout.str()


def test_changed_model_is_a_miss(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    record(suite, monkeypatch)
    result = suite.runpytest("-o", "tempoeval_judge_model=claude-opus-4-5")
    result.assert_outcomes(failed=1)
    assert "JudgeCassetteError" in result.stdout.str()


def test_concurrent_replay_does_not_depend_on_completion_order(tmp_path: Path) -> None:
    import asyncio

    from pytest_tempoeval.cassettes import judge_cassette
    from pytest_tempoeval.judge import AnthropicJudge

    items = [(f"q{i}", f"in {1990 + i % 9}", f"d{i}", f"from {1990 + i % 5} to {1992 + i % 5}") for i in range(40)]
    path = tmp_path / "many.yaml"
    with FakeMessagesServer(latency=0.01) as server, judge_cassette(path, "once"):
        judge = AnthropicJudge(api_key=SENTINEL, base_url=server.base_url, max_concurrency=1)
        recorded = asyncio.run(judge.agrade_all(items))  # recorded in order
    with judge_cassette(path, "none"):
        judge = AnthropicJudge(api_key="replay-only", max_retries=0, max_concurrency=40, cassette=(path, "cmd"))
        replayed = asyncio.run(judge.agrade_all(list(reversed(items))))  # all at once, reversed
    assert sorted(replayed, key=lambda j: j.query_id) == sorted(recorded, key=lambda j: j.query_id)


def test_replay_reads_the_cassette_without_the_sdk(tmp_path: Path) -> None:
    import subprocess
    import sys

    from pytest_tempoeval.cassettes import judge_cassette
    from pytest_tempoeval.judge import AnthropicJudge

    items = [(f"q{i}", f"in {1990 + i % 9}", f"d{i}", f"from {1990 + i % 5} to {1992 + i % 5}") for i in range(30)]
    path = tmp_path / "many.json"  # vcrpy's JSON serializer: the fast one for big cassettes
    with FakeMessagesServer() as server, judge_cassette(path, "once"):
        recorded = AnthropicJudge(api_key=SENTINEL, base_url=server.base_url).grade_all(items)
    probe = f"""
import sys
from pathlib import Path
from pytest_tempoeval.cassettes import ReplayIndex
from pytest_tempoeval.judge import AnthropicJudge
judge = AnthropicJudge(replay=ReplayIndex(Path({str(path)!r})))
values = [j.value for j in judge.grade_all({items!r})]
print(values, "anthropic" in sys.modules, "vcr" in sys.modules, judge.stats.judgments)
"""
    output = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert output.strip() == f"{[j.value for j in recorded]} False False 30"


def test_json_serializer_from_ini(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    suite.makeini("[pytest]\ntempoeval_cassette_serializer = json\n")
    record(suite, monkeypatch)
    stored = suite.path / CASSETTE.with_suffix(".json")
    assert json.loads(stored.read_text())["interactions"]
    suite.runpytest().assert_outcomes(passed=1)
