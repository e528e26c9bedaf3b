"""The loopback fake Messages API in pytest_tempoeval.testing, driven through the real SDK."""

import datetime
import json
import time

import anthropic
import pytest

from pytest_tempoeval.metrics.llm_prompts import graded_prompt, verdict_prompt
from pytest_tempoeval.testing import FakeMessagesServer, Fault, fake_judgment

SENTINEL_KEY = "test-sentinel-key-not-a-real-key"


@pytest.fixture
def server():
    with FakeMessagesServer() as fake:
        yield fake


def ask(server: FakeMessagesServer, prompt: str, retries: int = 0) -> anthropic.types.Message:
    client = anthropic.Anthropic(
        api_key=SENTINEL_KEY, base_url=server.base_url, max_retries=retries
    )
    return client.messages.create(
        model="claude-haiku-4-5", max_tokens=200, messages=[{"role": "user", "content": prompt}]
    )


def test_graded_judgment_is_4_times_year_jaccard(server: FakeMessagesServer) -> None:
    reply = ask(
        server, graded_prompt("Who won in 2020?", "Biden won the 2020 and lost no 2021 race.")
    )
    # query {2020}, document {2020, 2021}: Jaccard 1/2 -> grade 2
    assert json.loads(reply.content[0].text)["relevance_score"] == 2
    assert reply.usage.input_tokens > 0 and reply.usage.output_tokens > 0
    assert server.requests[0]["model"] == "claude-haiku-4-5"
    # SDK 2.x sends the key as a bearer token; older ones used x-api-key. Cassettes must drop both.
    sent = server.headers[0]
    assert SENTINEL_KEY in (
        sent.get("x-api-key"),
        sent.get("authorization", "").removeprefix("Bearer "),
    )


def test_verdict_is_year_overlap(server: FakeMessagesServer) -> None:
    yes = ask(
        server,
        verdict_prompt(
            "When did X happen in 1990?", "X happened from 1989 to 1991.", "specific_time"
        ),
    )
    no = ask(server, verdict_prompt("When did X happen in 1990?", "X happened in 2005.", None))
    assert json.loads(yes.content[0].text)["verdict"] == 1
    assert json.loads(no.content[0].text)["verdict"] == 0


def test_judgments_are_deterministic() -> None:
    prompt = graded_prompt("Olympics 2016", "Rio hosted the 2016 Summer Olympics.")
    assert fake_judgment(prompt) == fake_judgment(prompt)
    assert json.loads(fake_judgment(prompt))["relevance_score"] == 4


@pytest.mark.parametrize(
    "fault",
    [Fault.rate_limit(retry_after=0), Fault.overloaded(retry_after=0), Fault.server_error()],
)
def test_retryable_statuses_are_retried_by_the_sdk(
    server: FakeMessagesServer, fault: Fault
) -> None:
    server.inject(fault)
    reply = ask(server, graded_prompt("in 2020", "in 2020"), retries=2)
    assert json.loads(reply.content[0].text)["relevance_score"] == 4
    assert len(server.requests) == 2  # the fault, then the retry


def test_rate_limit_without_retries_is_an_error_with_retry_after(
    server: FakeMessagesServer,
) -> None:
    server.inject(Fault.rate_limit(retry_after=7))
    with pytest.raises(anthropic.RateLimitError) as info:
        ask(server, graded_prompt("in 2020", "in 2020"))
    assert info.value.response.headers["retry-after"] == "7"


def test_malformed_and_out_of_range_replies(server: FakeMessagesServer) -> None:
    server.inject(Fault.malformed_reply(), Fault.out_of_range())
    with pytest.raises(json.JSONDecodeError):
        json.loads(ask(server, graded_prompt("in 2020", "in 2020")).content[0].text)
    assert (
        json.loads(ask(server, graded_prompt("in 2020", "in 2020")).content[0].text)[
            "relevance_score"
        ]
        == 7
    )


@pytest.mark.parametrize("fault", [Fault.truncated_body(), Fault.reset()])
def test_broken_connections_are_errors(server: FakeMessagesServer, fault: Fault) -> None:
    server.inject(fault)
    with pytest.raises(anthropic.APIError):
        ask(server, graded_prompt("in 2020", "in 2020"))


def test_slow_replies_and_latency() -> None:
    with FakeMessagesServer(latency=0.05) as server:
        server.inject(Fault.slow(0.1))
        start = time.perf_counter()
        ask(server, graded_prompt("in 2020", "in 2020"))
        assert time.perf_counter() - start >= 0.15


def test_response_carries_account_headers_that_cassettes_must_drop(
    server: FakeMessagesServer,
) -> None:
    client = anthropic.Anthropic(api_key=SENTINEL_KEY, base_url=server.base_url, max_retries=0)
    raw = client.messages.with_raw_response.create(
        model="m", max_tokens=10, messages=[{"role": "user", "content": "hello"}]
    )
    assert raw.headers["anthropic-organization-id"] == "org-fake"
    assert raw.headers["request-id"].startswith("req_fake_")


def test_base_url_needs_a_running_server() -> None:
    with pytest.raises(RuntimeError, match="not running"):
        _ = FakeMessagesServer().base_url


def test_python_dash_m_serves_the_fake_api() -> None:
    """``python -m pytest_tempoeval.testing``, the documented way to record by hand."""
    import subprocess
    import sys

    child = subprocess.Popen(
        [sys.executable, "-m", "pytest_tempoeval.testing"], stdout=subprocess.PIPE, text=True
    )
    try:
        line = child.stdout.readline().strip()
        assert line.startswith("ANTHROPIC_BASE_URL=http://127.0.0.1:"), line
        client = anthropic.Anthropic(api_key=SENTINEL_KEY, base_url=line.split("=", 1)[1])
        reply = client.messages.create(
            model="claude-haiku-4-5",
            max_tokens=200,
            messages=[{"role": "user", "content": graded_prompt("In 2020?", "The 2020 vote.")}],
        )
        assert json.loads(reply.content[0].text)["relevance_score"] == 4
    finally:
        child.terminate()
        child.wait(timeout=10)


def test_the_fake_batch_endpoints_create_retrieve_cancel_and_return_jsonl() -> None:
    import anthropic

    params = {"max_tokens": 10, "messages": [{"role": "user", "content": "x"}], "model": "m"}
    with FakeMessagesServer() as server:
        server.batch_polls = 1
        server.inject_batch_items("errored")
        client = anthropic.Anthropic(api_key="unused", base_url=server.base_url, max_retries=0)
        batch = client.messages.batches.create(
            requests=[{"custom_id": f"r{i}", "params": params} for i in range(3)]
        )
        assert batch.processing_status == "in_progress" and batch.results_url is None
        assert client.messages.batches.retrieve(batch.id).processing_status == "in_progress"
        ended = client.messages.batches.retrieve(batch.id)
        assert ended.processing_status == "ended"
        assert ended.request_counts.errored == 1 and ended.request_counts.succeeded == 2
        results = {
            item.custom_id: item.result.type for item in client.messages.batches.results(batch.id)
        }
        assert results == {"r0": "errored", "r1": "succeeded", "r2": "succeeded"}
        other = client.messages.batches.create(requests=[{"custom_id": "c", "params": params}])
        canceled = client.messages.batches.cancel(other.id)
        assert canceled.processing_status == "ended" and canceled.request_counts.canceled == 1
        assert [item.result.type for item in client.messages.batches.results(other.id)] == [
            "canceled"
        ]
        assert server.requests == []  # no /v1/messages request: batches only


def test_the_fake_lists_batches_newest_first_in_pages_as_the_api_does() -> None:
    params = {"max_tokens": 10, "messages": [{"role": "user", "content": "x"}], "model": "m"}
    with FakeMessagesServer() as server:
        client = anthropic.Anthropic(api_key="unused", base_url=server.base_url, max_retries=0)
        before = datetime.datetime.now(datetime.UTC)
        made = [
            client.messages.batches.create(
                requests=[{"custom_id": f"r{n}", "params": params} for n in range(size + 1)]
            ).id
            for size in range(5)
        ]
        after = datetime.datetime.now(datetime.UTC)
        page = client.messages.batches.list(limit=2)
        assert [batch.id for batch in page.data] == made[::-1][:2] and page.has_more
        listed = list(client.messages.batches.list(limit=2))  # the SDK follows after_id
        assert [batch.id for batch in listed] == made[::-1]
        assert [batch.request_counts.processing for batch in listed] == [5, 4, 3, 2, 1]
        assert all(before <= batch.created_at <= after for batch in listed)
        newer = client.messages.batches.list(before_id=made[0], limit=2)
        assert [batch.id for batch in newer.data] == [made[2], made[1]] and newer.has_more
        last = client.messages.batches.list(after_id=made[1])
        assert [batch.id for batch in last.data] == [made[0]] and not last.has_more
        with pytest.raises(anthropic.BadRequestError):
            client.messages.batches.list(limit=1001)
        with pytest.raises(anthropic.NotFoundError):
            client.messages.batches.list(after_id="msgbatch_unknown")
        assert server.batches[made[0]]["polls"] == 0  # listing is not polling
