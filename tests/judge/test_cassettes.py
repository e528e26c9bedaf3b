"""Judge cassettes: record once against the fake server, replay offline, fail clearly on a miss."""

import json
import re
from pathlib import Path

import pytest

from pytest_tempoeval.errors import JudgeCassetteError, JudgeError
from pytest_tempoeval.judge.anthropic_judge import DEFAULT_MODEL, MAX_TOKENS, AnthropicJudge
from pytest_tempoeval.judge.cassettes import JudgeCassette
from pytest_tempoeval.metrics.llm_judgments import Judgment
from pytest_tempoeval.metrics.llm_prompts import graded_prompt
from pytest_tempoeval.testing import FakeMessagesServer

# its pytester sessions record in-process: the SDK is imported once, not per session
pytestmark = pytest.mark.usefixtures("judge_sdk_stays_loaded")
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
    result = temporal_ndcg(Run({"q2016": ["d2020", "d2016"]}), tempoeval_gold, k=2, mode="llm", \
judge=tempoeval_judge)
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


def test_record_then_replay_offline_gives_identical_scores(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded = record(suite, monkeypatch)
    assert (suite.path / CASSETTE).is_file()
    # The server is gone and no key is set: replay must not need either.
    replayed = suite.runpytest("-s")
    replayed.assert_outcomes(passed=1)
    assert re.search(r"SCORE (\S+)", replayed.stdout.str()).group(1) == recorded
    assert "replayed=2, asked=0" in replayed.stdout.str()  # served by the cassette
    replayed.stdout.fnmatch_lines(["LLM judge: 2 replayed from cassettes, 0 asked live (0 tokens)"])


def test_cassettes_hold_no_secrets_or_account_headers(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    record(suite, monkeypatch)
    text = (suite.path / CASSETTE).read_text()
    assert SENTINEL not in text and "SENTINEL" not in text
    for header in (
        "authorization",
        "x-api-key",
        "anthropic-organization-id",
        "request-id",
        "org-fake",
        "req_fake",
    ):
        assert header not in text.lower(), header
    assert (
        "https://api.anthropic.com/v1/messages" in text
    )  # stored as the public API, whatever the base URL
    assert "127.0.0.1" not in text  # no trace of the machine it was recorded on (host header, port)
    import yaml

    for interaction in yaml.safe_load(text)["interactions"]:
        assert set(interaction["request"]["headers"]) == {"content-type", "anthropic-version"}
        assert set(interaction["response"]["headers"]) == {"content-type"}


def test_changed_document_is_a_miss_naming_cassette_query_doc_and_command(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    record(suite, monkeypatch)
    (suite.path / "gold.yaml").write_text(GOLD.replace("won by Trump", "won by Donald Trump"))
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert "JudgeCassetteError: judging doc 'd2016' for query 'q2016'" in output
    assert (
        str(CASSETTE) in output and "--tempoeval-record-mode=new_episodes" in output
    )  # completes it


def test_missing_cassette_fails_without_retries(suite: pytest.Pytester) -> None:
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    assert (
        "JudgeCassetteError" in result.stdout.str()
        and "Connection error" not in result.stdout.str()
    )
    assert not (suite.path / CASSETTE).exists()  # nothing is written in replay mode


def test_errors_are_never_recorded(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_tempoeval.testing import Fault

    with FakeMessagesServer() as server, monkeypatch.context() as env:
        env.setenv("ANTHROPIC_API_KEY", SENTINEL)
        env.setenv("ANTHROPIC_BASE_URL", server.base_url)
        server.inject(Fault.rate_limit(retry_after=0.01), Fault.server_error())
        suite.runpytest("--tempoeval-record-mode=once").assert_outcomes(passed=1)
        assert len(server.requests) == 4  # two faults retried by the SDK, then two answers
    statuses = re.findall(r"code: (\d+)", (suite.path / CASSETTE).read_text())
    assert statuses == ["200", "200"]


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_stock_vcrpy_replays_our_cassettes(tmp_path: Path, suffix: str) -> None:
    import anthropic
    import vcr

    from pytest_tempoeval.judge.cassettes import MATCH_ON

    path = tmp_path / f"stock{suffix}"
    recorded = record_directly(path, ITEMS[:6])
    serializer = "json" if suffix == ".json" else "yaml"
    with vcr.use_cassette(
        str(path), record_mode="none", match_on=list(MATCH_ON), serializer=serializer
    ):
        client = anthropic.Anthropic(api_key="unused", max_retries=0)
        for judgment, (_, query, _, document) in zip(recorded, ITEMS, strict=False):
            body = {
                "max_tokens": MAX_TOKENS,
                "messages": [{"role": "user", "content": graded_prompt(query, document)}],
                "model": DEFAULT_MODEL,
            }
            message = client.messages.create(**body)
            assert json.loads(message.content[0].text)["relevance_score"] == judgment.value


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


def record_directly(
    path: Path, items: list[tuple[str, str, str, str]], **options: object
) -> list[Judgment]:
    """Judge items live against a fresh fake server, recording into the cassette at ``path``."""
    cassette = JudgeCassette(path, "once")
    with FakeMessagesServer(latency=0.01) as server:
        judgments = AnthropicJudge(
            api_key=SENTINEL, base_url=server.base_url, cassette=cassette, **options
        ).grade_all(items)
    cassette.save()
    return judgments


ITEMS = [
    (f"q{i}", f"in {1990 + i % 9}", f"d{i}", f"from {1990 + i % 5} to {1992 + i % 5}")
    for i in range(40)
]


def test_concurrent_replay_does_not_depend_on_completion_order(tmp_path: Path) -> None:
    import asyncio

    path = tmp_path / "many.yaml"
    recorded = record_directly(path, ITEMS, max_concurrency=1)  # recorded in order
    judge = AnthropicJudge(max_concurrency=40, cassette=JudgeCassette(path))
    replayed = asyncio.run(judge.agrade_all(list(reversed(ITEMS))))  # all at once, reversed
    assert sorted(replayed, key=lambda j: j.query_id) == sorted(recorded, key=lambda j: j.query_id)


def test_replay_reads_the_cassette_without_the_sdk(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "many.json"  # vcrpy's JSON serializer: the fast one for big cassettes
    recorded = record_directly(path, ITEMS)
    probe = f"""
import sys
from pathlib import Path
from pytest_tempoeval.judge.cassettes import JudgeCassette
from pytest_tempoeval.judge.anthropic_judge import AnthropicJudge
judge = AnthropicJudge(cassette=JudgeCassette(Path({str(path)!r})))
values = [j.value for j in judge.grade_all({ITEMS!r})]
print(values, "anthropic" in sys.modules, "vcr" in sys.modules, judge.stats.judgments)
"""
    output = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert output.strip() == f"{[j.value for j in recorded]} False False {len(ITEMS)}"


def test_json_serializer_from_ini(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    suite.makeini("[pytest]\ntempoeval_cassette_serializer = json\n")
    record(suite, monkeypatch)
    stored = suite.path / CASSETTE.with_suffix(".json")
    assert json.loads(stored.read_text())["interactions"]
    suite.runpytest().assert_outcomes(passed=1)


def test_missing_cassette_fails_at_once_without_sdk_or_network(tmp_path: Path) -> None:
    """Why a miss is fast (the bench judge_replay scenario measures it: ~0.2 s for the whole
    process): nothing but a file check stands between the judge and the error."""
    import subprocess
    import sys

    missing = tmp_path / "fixtures" / "never.yaml"
    probe = f"""
import socket, sys
from pathlib import Path
connects = []
socket.socket.connect = lambda self, *args: connects.append(args)
from pytest_tempoeval.errors import JudgeCassetteError, JudgeError
from pytest_tempoeval.judge.cassettes import JudgeCassette
from pytest_tempoeval.judge.anthropic_judge import AnthropicJudge
judge = AnthropicJudge(cassette=JudgeCassette(Path({str(missing)!r}), "none", "RERECORD"))
try:
    judge.grade_all({ITEMS!r})
except JudgeCassetteError as error:
    print(error)
print("anthropic" in sys.modules, connects, judge.stats.judgments)
"""
    output = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    error, facts = output.strip().splitlines()
    assert error.startswith("judging doc 'd") and "for query 'q" in error
    assert str(missing) in error and "RERECORD" in error
    assert facts == "False [] 0"
    assert not missing.parent.exists()  # replay never writes


@pytest.mark.parametrize(
    ("content", "line"),
    [
        ("interactions:\n- request: {method: POST\n", 3),  # truncated flow mapping
        ("interactions: 7\n", None),
        ("interactions:\n- just a string\n", None),
        ("\x00\x01 binary", 1),
    ],
)
@pytest.mark.parametrize("mode", ["none", "once", "new_episodes"])
def test_broken_cassette_is_a_clear_error_and_never_overwritten(
    suite: pytest.Pytester, content: str, line: int | None, mode: str
) -> None:
    cassette = suite.path / CASSETTE
    cassette.parent.mkdir(parents=True)
    cassette.write_text(content)
    result = suite.runpytest(f"--tempoeval-record-mode={mode}")
    result.assert_outcomes(errors=1)
    output = result.stdout.str()
    where = f"{CASSETTE}:{line}" if line else str(CASSETTE)
    assert f"{where}: not a readable cassette" in output, output
    assert (
        "re-record it whole with: pytest 'test_judged.py::test_llm' --tempoeval-record-mode=all"
        in output
    )
    assert "Traceback" not in output and "During handling" not in output
    assert cassette.read_text() == content


def test_new_episodes_keeps_what_is_there_and_records_only_what_is_missing(tmp_path: Path) -> None:
    path = tmp_path / "grow.yaml"
    first = record_directly(path, ITEMS[:5])
    before = path.read_text()
    with FakeMessagesServer() as server:
        cassette = JudgeCassette(path, "new_episodes")
        judge = AnthropicJudge(api_key=SENTINEL, base_url=server.base_url, cassette=cassette)
        grown = judge.grade_all(ITEMS[:8])
        cassette.save()
        assert len(server.requests) == 3  # only the three new judgments reached the API
    assert grown[:5] == first
    import yaml

    kept, grown_file = (
        yaml.safe_load(before)["interactions"],
        yaml.safe_load(path.read_text())["interactions"],
    )
    assert all(
        interaction in grown_file for interaction in kept
    )  # the old interactions are kept as they were
    assert len(JudgeCassette(path)) == 8


def test_record_mode_once_does_not_add_to_an_existing_cassette(tmp_path: Path) -> None:
    path = tmp_path / "once.yaml"
    record_directly(path, ITEMS[:2])
    before = path.read_text()
    with FakeMessagesServer() as server:
        judge = AnthropicJudge(
            api_key=SENTINEL, base_url=server.base_url, cassette=JudgeCassette(path, "once", "CMD")
        )
        with pytest.raises(
            JudgeCassetteError, match="does not record into an existing cassette.*CMD"
        ):
            judge.grade_all(ITEMS[:3])
        assert server.requests == []
    assert path.read_text() == before


def test_a_failed_save_leaves_the_old_cassette_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "keep.yaml"
    record_directly(path, ITEMS[:2])
    before = path.read_text()
    cassette = JudgeCassette(path, "all")
    with FakeMessagesServer() as server:
        AnthropicJudge(api_key=SENTINEL, base_url=server.base_url, cassette=cassette).grade_all(
            ITEMS[2:4]
        )

    def crash(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("os.replace", crash)
    with pytest.raises(OSError, match="disk full"):
        cassette.save()
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["keep.yaml"]  # no temporary file left behind


def test_a_recording_killed_midway_keeps_what_it_recorded_and_new_episodes_completes_it(
    tmp_path: Path,
) -> None:
    import signal
    import subprocess
    import sys
    import time

    items = [
        (f"q{i}", f"in {1990 + i % 9}", f"d{i}", f"report {i} from {1990 + i % 5}")
        for i in range(60)
    ]  # 60 prompts
    path = tmp_path / "crashed.yaml"
    with FakeMessagesServer(latency=0.1) as server:
        child = subprocess.Popen(
            [
                sys.executable,
                "-c",
                f"""
from pathlib import Path
from pytest_tempoeval.judge.cassettes import JudgeCassette
from pytest_tempoeval.judge.anthropic_judge import AnthropicJudge
cassette = JudgeCassette(Path({str(path)!r}), "once", save_every=0.3)
AnthropicJudge(api_key={SENTINEL!r}, base_url={server.base_url!r}, max_concurrency=2, \
cassette=cassette).grade_all({items!r})
cassette.save()
""",
            ]
        )
        deadline = time.monotonic() + 60
        while len(server.requests) < 20 and time.monotonic() < deadline:  # ~1 s in: some saves done
            time.sleep(0.05)
        child.send_signal(signal.SIGKILL)  # no teardown, no final save
        child.wait()
        asked_before_kill = len(server.requests)
    assert 20 <= asked_before_kill < len(items)

    # The file is a whole cassette (saves are atomic) holding part of the judgments.
    kept = JudgeCassette(path, "none", "CMD")
    bodies = [
        {
            "max_tokens": MAX_TOKENS,
            "messages": [{"role": "user", "content": graded_prompt(q, d)}],
            "model": DEFAULT_MODEL,
        }
        for _, q, _, d in items
    ]
    held = [item for item, body in zip(items, bodies, strict=True) if kept.answer(body) is not None]
    assert 0 < len(held) == len(kept) < len(items)
    # Replay answers what it holds, and names the cassette for the rest.
    replayed = AnthropicJudge(cassette=kept).grade_all(held)
    assert [j.value for j in replayed] == [4 if q[-4:] == d[-4:] else 0 for _, q, _, d in held]
    with pytest.raises(JudgeCassetteError, match="crashed.yaml"):
        AnthropicJudge(cassette=JudgeCassette(path, "none", "CMD")).grade_all(items)

    # new_episodes asks only for what is missing and completes the cassette.
    with FakeMessagesServer() as server:
        completing = JudgeCassette(path, "new_episodes")
        AnthropicJudge(api_key=SENTINEL, base_url=server.base_url, cassette=completing).grade_all(
            items
        )
        completing.save()
        assert len(server.requests) == len(items) - len(held)
    assert len(JudgeCassette(path)) == len(items)


def test_a_key_sent_in_both_x_api_key_and_authorization_never_reaches_the_cassette(
    tmp_path: Path,
) -> None:
    import anthropic

    bearer, header_key = "sentinel-bearer-7f3a9c", "sentinel-xapikey-2b8e1d"
    path = tmp_path / "secret.yaml"
    # Both headers set by hand: anthropic 1.x sends api_key as x-api-key, 2.x as a bearer token
    headers = {"x-api-key": header_key, "authorization": f"Bearer {bearer}"}
    with FakeMessagesServer() as server:
        client = anthropic.AsyncAnthropic(
            api_key=bearer, base_url=server.base_url, default_headers=headers
        )
        cassette = JudgeCassette(path, "once")
        AnthropicJudge(client=client, cassette=cassette).grade_all(ITEMS[:3])
        cassette.save()
        sent = server.headers[0]
    assert (
        sent["x-api-key"] == header_key and bearer in sent["authorization"]
    )  # both really went out
    text = path.read_text()
    for secret in (bearer, header_key, "sentinel", "x-api-key", "authorization"):
        assert secret not in text.lower(), secret


def test_a_gateway_path_and_query_are_never_stored(tmp_path: Path) -> None:
    """Base URLs of gateways carry account ids in the path and keys in the query."""
    import anthropic

    path = tmp_path / "gateway.yaml"
    with FakeMessagesServer() as server:
        cassette = JudgeCassette(path, "once")
        base_url = f"{server.base_url}/gw/ACCOUNT-ID-1234/anthropic"
        client = anthropic.AsyncAnthropic(
            api_key=SENTINEL, base_url=base_url, default_query={"api_key": "SECRETKEY123"}
        )
        AnthropicJudge(client=client, cassette=cassette).grade_all(ITEMS[:2])
        cassette.save()
        assert {body["model"] for body in server.requests} and len(server.requests) == 2
    text = path.read_text()
    assert "ACCOUNT-ID" not in text and "SECRETKEY" not in text and "/gw/" not in text
    import yaml

    assert {i["request"]["uri"] for i in yaml.safe_load(text)["interactions"]} == {
        "https://api.anthropic.com/v1/messages"
    }


def test_a_damaged_stored_response_is_an_error_in_replay_and_re_asked_by_new_episodes(
    tmp_path: Path,
) -> None:
    import yaml

    path = tmp_path / "damaged.yaml"
    record_directly(path, ITEMS[:4])
    data = yaml.safe_load(path.read_text())
    data["interactions"][0]["response"]["body"]["string"] = "<html>502 Bad Gateway</html>"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(
        JudgeCassetteError,
        match="damaged.yaml: the stored response to this judgment is not a JSON message",
    ):
        AnthropicJudge(cassette=JudgeCassette(path, "none", "CMD")).grade_all(ITEMS[:4])
    with FakeMessagesServer() as server:
        repair = JudgeCassette(path, "new_episodes")
        AnthropicJudge(api_key=SENTINEL, base_url=server.base_url, cassette=repair).grade_all(
            ITEMS[:4]
        )
        repair.save()
        assert len(server.requests) == 1  # only the damaged one was asked again
    assert "Bad Gateway" not in path.read_text() and len(JudgeCassette(path)) == 4


def test_a_stored_failure_is_never_replayed_as_an_answer(tmp_path: Path) -> None:
    """Recording keeps only successes; a hand-edited status 500 with a valid body is refused."""
    path = tmp_path / "edited.yaml"
    record_directly(path, ITEMS[:2], max_concurrency=1)
    path.write_text(path.read_text().replace("code: 200", "code: 500", 1))
    with pytest.raises(JudgeCassetteError, match=r"HTTP status 500: a failed request is never an"):
        AnthropicJudge(cassette=JudgeCassette(path)).grade_all(ITEMS[:2])


def test_comments_are_kept_from_a_regular_file_only(tmp_path: Path) -> None:
    def rerecord(path: Path) -> None:
        cassette = JudgeCassette(path, "all")
        with FakeMessagesServer() as server:
            AnthropicJudge(api_key=SENTINEL, base_url=server.base_url, cassette=cassette).grade_all(
                ITEMS[:1]
            )
        cassette.save()

    secret = tmp_path / "elsewhere.txt"
    secret.write_text("# token: do-not-copy\n")
    link = tmp_path / "linked.yaml"
    link.symlink_to(secret)
    rerecord(link)
    assert not link.is_symlink() and "do-not-copy" not in link.read_text()
    assert secret.read_text() == "# token: do-not-copy\n"  # the target is left as it was
    kept = tmp_path / "commented.yaml"
    kept.write_text("# recorded against the fake server\n")
    rerecord(kept)
    assert kept.read_text().startswith("# recorded against the fake server\n")


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:9/?token=s3cret", "http://user:s3cret@127.0.0.1:9/", "http://h/#s3cret"],
)
def test_a_base_url_carrying_secrets_is_refused_without_repeating_them(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(JudgeError, match="query string, fragment or credentials") as refused:
        AnthropicJudge(api_key="k", base_url=url)
    assert "s3cret" not in str(refused.value)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    with pytest.raises(JudgeError) as refused:
        AnthropicJudge(api_key="k")
    assert "s3cret" not in str(refused.value)


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (lambda m: m.update(usage="lots"), "'usage' that is not a mapping"),
        (lambda m: m["usage"].update(input_tokens="12"), "'usage.input_tokens' that is not an"),
        (lambda m: m["content"][0].update(text=4), "'text' is not a string"),
        (lambda m: m.update(content="4"), "no 'content' list"),
    ],
)
def test_a_stored_response_with_fields_of_the_wrong_type_names_the_cassette(
    tmp_path: Path, edit: object, problem: str
) -> None:
    path = tmp_path / "edited.json"
    record_directly(path, ITEMS[:1], max_concurrency=1)
    data = json.loads(path.read_text())
    response = data["interactions"][0]["response"]
    message = json.loads(response["body"]["string"])
    edit(message)  # type: ignore[operator]
    response["body"]["string"] = json.dumps(message)
    path.write_text(json.dumps(data))
    with pytest.raises(JudgeCassetteError, match=re.escape(str(path)) + ".*" + re.escape(problem)):
        AnthropicJudge(cassette=JudgeCassette(path)).grade_all(ITEMS[:1])


def test_a_whole_rerecording_that_fails_partway_keeps_the_old_answers(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`all` mode used to replace a complete cassette with the few answers it got before failing."""
    from pytest_tempoeval.testing import Fault

    record(suite, monkeypatch)
    before = (suite.path / CASSETTE).read_text()
    assert before.count("uri:") == 2
    with FakeMessagesServer() as server, monkeypatch.context() as env:
        env.setenv("ANTHROPIC_API_KEY", SENTINEL)
        env.setenv("ANTHROPIC_BASE_URL", server.base_url)
        # the first request is answered, every later one is malformed: the second judgment fails
        server.inject(Fault.slow(0), *[Fault.malformed_reply()] * 6)
        failed = suite.runpytest("--tempoeval-record-mode=all")
        failed.assert_outcomes(failed=1)
        assert "NoValidAnswer" in failed.stdout.str() or "no valid" in failed.stdout.str()
        kept = (suite.path / CASSETTE).read_text()
        assert kept.count("uri:") == 2  # one answer re-recorded, the other kept from before
        assert suite.runpytest("--tempoeval-record-mode=none").ret == 0  # replays whole
    with FakeMessagesServer() as server, monkeypatch.context() as env:
        env.setenv("ANTHROPIC_API_KEY", SENTINEL)
        env.setenv("ANTHROPIC_BASE_URL", server.base_url)
        # a complete re-recording of a test that now asks less drops what it no longer asks
        suite.makepyfile(test_judged=TEST.replace('["d2020", "d2016"]', '["d2016"]'))
        suite.runpytest("--tempoeval-record-mode=all").assert_outcomes(passed=1)
    assert (suite.path / CASSETTE).read_text().count("uri:") == 1


def test_a_cassette_at_its_old_place_is_read_with_a_warning_and_copied_by_the_next_recording(
    tmp_path: Path,
) -> None:
    from pytest_tempoeval.judge.cassettes import cassette_file

    test = "pkg/test_m.py::test_x[a b]"
    old = tmp_path / "test_m" / "test_x[a_b].yaml"  # the old mapping: basename, "_" for " "
    record_directly(old, ITEMS[:2], max_concurrency=1)
    with pytest.warns(DeprecationWarning, match="read from its old place"):
        path, legacy = cassette_file(tmp_path, test)
    assert legacy == old and path == tmp_path / "pkg" / "test_m" / "test_x[a%20b].yaml"
    replayed = AnthropicJudge(cassette=JudgeCassette(path, "none", source=legacy))
    assert len(replayed.grade_all(ITEMS[:2])) == 2 and replayed.stats.replayed == 2
    cassette = JudgeCassette(path, "new_episodes", source=legacy)
    with FakeMessagesServer() as server:
        AnthropicJudge(api_key=SENTINEL, base_url=server.base_url, cassette=cassette).grade_all(
            ITEMS[:3]
        )
        assert len(server.requests) == 1  # the two held answers came from the old place
    cassette.save()
    assert path.read_text().count("uri:") == 3
    assert old.exists()  # another test's, perhaps: the old mapping collapsed ids; never removed
