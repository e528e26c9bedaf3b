"""A loopback fake of the Anthropic Messages API (public as :mod:`pytest_tempoeval.testing`).

The project's own tests and examples record judge cassettes against it (no network, no API key).
Its judgments are deterministic and temporal: it reads the query and the document out of the judge
prompt and grades their year overlap (Jaccard of their focus times), so recorded examples mean
something. Faults can be injected to test retries and error handling::

    with FakeMessagesServer() as server:
        server.inject(Fault.rate_limit(retry_after=0), Fault.malformed_reply())
        client = anthropic.Anthropic(api_key="test", base_url=server.base_url)

The Message Batches endpoints are faked too (create, retrieve, list, results as JSONL, cancel),
with their own faults: items that expire or error, batches that take several polls to end, and a
create that answers late (the batch exists before the client knows its id)::

    server.batch_polls = 3  # "in_progress" for the first 3 retrieves of each batch
    server.inject_batch_items("expired", "errored")  # the next batch's first two items
    server.batch_create_latency = 0.5  # a create registers its batch, then answers 0.5 s later

Standard library only (and the package's own focus times): importing it costs nothing.

One module on purpose, though longer than most: it is the public testing server
(:mod:`pytest_tempoeval.testing`) users start in their own tests; its handler, faults and batch
endpoints share the server's state.
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import string
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self, TypedDict

from pytest_tempoeval.data.focus_time import FocusTime
from pytest_tempoeval.errors import FocusTimeError
from pytest_tempoeval.metrics.llm_prompts import (
    BINARY_VERDICT_PROMPT,
    GRADED_RELEVANCE_PROMPT,
    TEMPORAL_COVERAGE_PROMPT,
)

HOST = "127.0.0.1"  # loopback only: nothing beyond this machine reaches the fake
# A request or response body: JSON, read and written as the API defines it.
JSONBody = dict[str, Any]


class Batch(TypedDict):
    """A message batch the fake holds (``FakeMessagesServer.batches``)."""

    requests: list[JSONBody]  # as created: {"custom_id": ..., "params": {...}}
    outcomes: list[str]  # each item's: succeeded, errored, expired (canceled: the batch's)
    polls: int  # retrieves so far
    canceled: datetime | None  # when cancellation was asked for
    created: datetime
    ended: datetime | None  # when a retrieve first found it ended


def _reader(template: str) -> re.Pattern[str]:
    """A regex reading ``query`` and ``document`` (and the coverage prompt's anchors) back out of
    a prompt made from ``template``."""
    pattern = ""
    for literal, field, _, _ in string.Formatter().parse(template):
        pattern += re.escape(literal)
        if field in ("query", "document", "baseline_anchor", "comparison_anchor"):
            pattern += f"(?P<{field}>.*?)"
        elif field is not None:
            pattern += ".*?"
    return re.compile(pattern, re.DOTALL)


_GRADED = _reader(GRADED_RELEVANCE_PROMPT)
_VERDICT = _reader(BINARY_VERDICT_PROMPT)
_COVERAGE = _reader(TEMPORAL_COVERAGE_PROMPT)


@dataclass(frozen=True)
class Fault:
    """What the server does to one request instead of answering it normally."""

    kind: str  # "status", "slow", "malformed_reply", "out_of_range", "truncated_body", "reset"
    status: int = 200
    retry_after: float | None = None
    delay: float = 0.0

    @classmethod
    def rate_limit(cls, retry_after: float = 0.0) -> Fault:
        return cls("status", 429, retry_after)

    @classmethod
    def overloaded(cls, retry_after: float = 0.0) -> Fault:
        return cls("status", 529, retry_after)

    @classmethod
    def server_error(cls) -> Fault:
        return cls("status", 500)

    @classmethod
    def not_found(cls) -> Fault:
        """A 404 whose error message echoes the request path, as some gateways answer."""
        return cls("status", 404)

    @classmethod
    def slow(cls, seconds: float) -> Fault:
        return cls("slow", delay=seconds)

    @classmethod
    def malformed_reply(cls) -> Fault:
        """A 200 whose text is not JSON (the judge's reply, not the HTTP body)."""
        return cls("malformed_reply")

    @classmethod
    def out_of_range(cls) -> Fault:
        """A 200 whose JSON holds a grade of 7 / a verdict of 3 / a coverage of "yes"."""
        return cls("out_of_range")

    @classmethod
    def truncated_body(cls) -> Fault:
        """The HTTP body stops halfway through (Content-Length says more)."""
        return cls("truncated_body")

    @classmethod
    def reset(cls) -> Fault:
        """The connection is closed without any response."""
        return cls("reset")


def fake_judgment(prompt: str, out_of_range: bool = False) -> str:
    """The fake judge's reply text for a judge prompt: a grade or verdict from year overlap; for
    the coverage prompt, whether the document's years overlap each anchor period."""
    coverage = _COVERAGE.fullmatch(prompt)
    if coverage is not None:
        return _fake_coverage(coverage, out_of_range)
    graded = _GRADED.fullmatch(prompt)
    match = graded or _VERDICT.fullmatch(prompt)
    if match is None:
        return json.dumps({"error": "not a tempoeval judge prompt"})
    query_time = FocusTime.from_text(match["query"])
    document_time = FocusTime.from_text(match["document"])
    similarity = query_time.jaccard(document_time)
    reason = f"query years {query_time or 'none'}, document years {document_time or 'none'}"
    if graded:
        grade = 7 if out_of_range else round(4 * similarity)
        return json.dumps({"relevance_score": grade, "reasoning": reason})
    verdict = 3 if out_of_range else int(query_time.overlaps(document_time))
    return json.dumps(
        {
            "temporal_expressions_found": sorted(str(year) for year in document_time),
            "relevance_to_query": "high" if similarity >= 0.5 else "low" if verdict else "none",
            "verdict": verdict,
            "confidence": 1.0,
            "reason": reason,
        }
    )


def _fake_coverage(match: re.Match[str], out_of_range: bool) -> str:
    """covers_baseline / covers_comparison: the document's years overlap the anchor's (an anchor
    the focus-time grammar cannot read is covered by nothing). ``out_of_range``: a string where
    the API's JSON must hold a boolean."""
    document_time = FocusTime.from_text(match["document"])
    covers = []
    for anchor in (match["baseline_anchor"], match["comparison_anchor"]):
        try:
            covers.append(document_time.overlaps(FocusTime.parse(anchor)))
        except FocusTimeError:
            covers.append(False)
    query_time = FocusTime.from_text(match["query"])
    return json.dumps(
        {
            "verdict": int(any(covers) or query_time.overlaps(document_time)),
            "reason": f"document years {document_time or 'none'}",
            "temporal_contribution": str(document_time) or "none",
            "covers_baseline": "yes" if out_of_range else covers[0],
            "covers_comparison": covers[1],
        }
    )


class _QuietServer(ThreadingHTTPServer):
    def handle_error(
        self, request: socket.socket | tuple[bytes, socket.socket], client_address: object
    ) -> None:
        """A client that hangs up (a timeout, a test's own reset fault) is normal here: no traceback
        on stderr. Anything else is still reported."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class FakeMessagesServer:
    """A Messages API on 127.0.0.1 with deterministic temporal judgments and injectable faults."""

    def __init__(self, latency: float = 0.0) -> None:
        self.latency = latency  # seconds added to every answer (for concurrency tests)
        self.requests: list[JSONBody] = []  # /v1/messages bodies received, in arrival order
        self.http_requests = 0  # every HTTP request, batch endpoints included
        self.batches: dict[str, Batch] = {}  # batch id -> its state
        self.batch_polls = 0  # retrieves that answer "in_progress" before a batch has ended
        self.batch_create_latency = 0.0  # seconds a create waits, its batch made, to answer
        self._batch_items: deque[str] = deque()  # outcomes forced on the next batch's items
        self.headers: list[dict[str, str]] = []
        self._faults: deque[Fault] = deque()
        self.in_flight = 0  # requests being answered right now
        self.max_in_flight = 0  # the most answered at once (concurrency tests)
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle --------------------------------------------------------------------------------

    def start(self) -> Self:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._server = _QuietServer((HOST, 0), handler)
        self._server.daemon_threads = True
        # a short poll: stop() waits for the serving loop to notice, 0.5 s by default, per server
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.02},
            name="fake-messages-api",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError(
                "the fake server is not running: use it as a context manager or call start()"
            )
        return f"http://{HOST}:{self._server.server_port}"

    # -- faults -----------------------------------------------------------------------------------

    def inject(self, *faults: Fault) -> None:
        """Apply these faults, in order, to the next requests (one fault per request)."""
        with self._lock:
            self._faults.extend(faults)

    def inject_batch_items(self, *outcomes: str) -> None:
        """Force the outcome of the next batch's first items, in order: "expired", "errored",
        "canceled" or "succeeded"."""
        with self._lock:
            self._batch_items.extend(outcomes)

    def _count_http(self) -> None:
        with self._lock:
            self.http_requests += 1

    def _next_fault(self) -> Fault | None:
        with self._lock:
            return self._faults.popleft() if self._faults else None

    def _remember(self, body: JSONBody, headers: dict[str, str]) -> None:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)

    def _enter(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1


class _Handler(BaseHTTPRequestHandler):
    fake: FakeMessagesServer
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; without TCP_NODELAY the body waits for the client's
    # delayed ACK on a kept-alive connection, adding ~40 ms to every answer.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: object) -> None:  # quiet: tests read their own output
        pass

    def do_POST(self) -> None:
        self.fake._enter()
        try:
            self.fake._count_http()
            path = self.path.split("?")[0]
            if "/v1/messages/batches" in path:
                return self._batches("POST", path)
            self._answer()
        finally:
            self.fake._leave()

    def do_GET(self) -> None:
        self.fake._count_http()
        path = self.path.split("?")[0]
        if "/v1/messages/batches" in path:
            return self._batches("GET", path)
        return self._not_found()

    def _not_found(self) -> None:
        return self._json(
            404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}}
        )

    def _batches(self, method: str, path: str) -> None:
        """The Message Batches endpoints: create, retrieve, list, results (JSONL), cancel."""
        fake = self.fake
        tail = path.split("/v1/messages/batches", 1)[1].strip("/")
        if method == "POST" and not tail:
            raw = self.rfile.read(int(self.headers.get("content-length", 0)))
            requests = json.loads(raw).get("requests", [])
            with fake._lock:
                batch_id = f"msgbatch_fake_{len(fake.batches) + 1:04d}"
                forced = [
                    fake._batch_items.popleft() if fake._batch_items else "succeeded"
                    for _ in requests
                ]
                fake.batches[batch_id] = {
                    "requests": requests,
                    "outcomes": forced,
                    "polls": 0,
                    "canceled": None,
                    "created": datetime.now(UTC),
                    "ended": None,
                }
            time.sleep(fake.batch_create_latency)
            return self._json(200, self._batch_object(batch_id))
        if method == "GET" and not tail:
            return self._list()
        batch_id, _, action = tail.partition("/")
        if batch_id not in fake.batches:
            return self._not_found()
        batch = fake.batches[batch_id]
        if method == "POST" and action == "cancel":
            self.rfile.read(int(self.headers.get("content-length", 0)))
            batch["canceled"] = batch["canceled"] or datetime.now(UTC)
            return self._json(200, self._batch_object(batch_id))
        if method == "GET" and not action:
            batch["polls"] += 1
            return self._json(200, self._batch_object(batch_id))
        if method == "GET" and action == "results" and self._ended(batch):
            lines = [json.dumps(self._item_result(batch, n)) for n in range(len(batch["requests"]))]
            return self._bytes(200, ("\n".join(lines) + "\n").encode(), "application/x-jsonl")
        return self._not_found()

    def _list(self) -> None:
        """``GET /v1/messages/batches``: newest first, a page of ``limit`` (1-1,000, default 20)
        after ``after_id`` (older) or before ``before_id`` (newer), as the API pages them."""
        from urllib.parse import parse_qs, urlsplit

        query = {key: values[-1] for key, values in parse_qs(urlsplit(self.path).query).items()}
        try:
            limit = int(query.get("limit", 20))
        except ValueError:
            limit = 0
        if not 1 <= limit <= 1000:
            error = {"type": "invalid_request_error", "message": "limit: 1 to 1000"}
            return self._json(400, {"type": "error", "error": error})
        with self.fake._lock:
            ids = list(reversed(self.fake.batches))
        after, before = query.get("after_id"), query.get("before_id")
        cursor = before if before is not None else after
        if cursor is not None and cursor not in ids:
            return self._not_found()
        if before is not None:
            stop = ids.index(before)
            start = max(0, stop - limit)
            page, has_more = ids[start:stop], start > 0
        else:
            start = ids.index(after) + 1 if after is not None else 0
            page, has_more = ids[start : start + limit], start + limit < len(ids)
        return self._json(
            200,
            {
                "data": [self._batch_object(batch_id) for batch_id in page],
                "has_more": has_more,
                "first_id": page[0] if page else None,
                "last_id": page[-1] if page else None,
            },
        )

    def _ended(self, batch: Batch) -> bool:
        return batch["canceled"] is not None or batch["polls"] > self.fake.batch_polls

    def _batch_object(self, batch_id: str) -> JSONBody:
        batch = self.fake.batches[batch_id]
        ended = self._ended(batch)
        if ended and batch["ended"] is None:
            batch["ended"] = datetime.now(UTC)
        ended_at = batch["ended"] if ended else None
        counts = dict.fromkeys(("processing", "succeeded", "errored", "canceled", "expired"), 0)
        for n in range(len(batch["requests"])):
            counts[self._item_result(batch, n)["result"]["type"] if ended else "processing"] += 1
        return {
            "id": batch_id,
            "type": "message_batch",
            "processing_status": "ended" if ended else "in_progress",
            "request_counts": counts,
            "created_at": _rfc3339(batch["created"]),
            "expires_at": _rfc3339(batch["created"] + timedelta(days=1)),
            "ended_at": _rfc3339(ended_at) if ended_at else None,
            "archived_at": None,
            "cancel_initiated_at": _rfc3339(batch["canceled"]) if batch["canceled"] else None,
            "results_url": (
                f"{self.fake.base_url}/v1/messages/batches/{batch_id}/results" if ended else None
            ),
        }

    def _item_result(self, batch: Batch, n: int) -> JSONBody:
        item = batch["requests"][n]
        outcome = "canceled" if batch["canceled"] is not None else batch["outcomes"][n]
        if outcome == "succeeded":
            params = item["params"]
            raw = json.dumps(params, ensure_ascii=False, separators=(",", ":"))
            result: JSONBody = {"type": "succeeded", "message": _message(raw, params)}
        elif outcome == "errored":
            error = {"type": "api_error", "message": "injected"}
            result = {"type": "errored", "error": {"type": "error", "error": error}}
        else:
            result = {"type": outcome}
        return {"custom_id": item["custom_id"], "result": result}

    def _answer(self) -> None:
        length = int(self.headers.get("content-length", 0))
        raw = self.rfile.read(length)
        if not self.path.split("?")[0].endswith(
            "/v1/messages"
        ):  # a gateway may put a prefix before it
            return self._not_found()
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            return self._json(
                400,
                {
                    "type": "error",
                    "error": {"type": "invalid_request_error", "message": "bad JSON"},
                },
            )
        self.fake._remember(body, {key.lower(): value for key, value in self.headers.items()})
        fault = self.fake._next_fault()
        if self.fake.latency:
            time.sleep(self.fake.latency)
        if fault is not None and fault.kind == "status" and fault.status == 404:
            return self._not_found()
        if fault is not None and fault.kind == "status":
            headers = (
                {"retry-after": f"{fault.retry_after:g}"} if fault.retry_after is not None else {}
            )
            kind = {429: "rate_limit_error", 529: "overloaded_error"}.get(fault.status, "api_error")
            return self._json(
                fault.status,
                {"type": "error", "error": {"type": kind, "message": "injected"}},
                headers,
            )
        if fault is not None and fault.kind == "reset":
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return None
        if fault is not None and fault.kind == "slow":
            time.sleep(fault.delay)
        kind = fault.kind if fault is not None else ""
        message = _message(raw.decode("utf-8", "replace"), body, kind)
        # Account-identifying headers, as the real API sends: cassettes must drop them.
        headers = {
            "request-id": f"req_fake_{len(self.fake.requests):06d}",
            "anthropic-organization-id": "org-fake",
        }
        return self._json(
            200, message, headers, truncate=fault is not None and fault.kind == "truncated_body"
        )

    def _bytes(self, status: int, data: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _json(
        self,
        status: int,
        payload: JSONBody,
        headers: dict[str, str] | None = None,
        truncate: bool = False,
    ) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data[: len(data) // 2] if truncate else data)
        if truncate:
            self.close_connection = True


def _message(raw: str, body: JSONBody, fault: str = "") -> JSONBody:
    """The fake's Messages API response to a request (its raw text and parsed body). Its id comes
    from the request and the reply, not the arrival order, so a recording (live or through a
    batch) is reproducible."""
    prompt = _prompt_text(body)
    if fault == "malformed_reply":
        text = "relevance_score: four (I think)"
    else:
        text = fake_judgment(prompt, out_of_range=fault == "out_of_range")
    return {
        "id": "msg_fake_" + hashlib.sha256((raw + text).encode()).hexdigest()[:16],
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "unknown"),
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": max(1, len(prompt) // 4),
            "output_tokens": max(1, len(text) // 4),
        },
    }


def _rfc3339(moment: datetime) -> str:
    """A time as the API writes it: ``2024-09-24T18:37:24.100435Z``."""
    return moment.isoformat().replace("+00:00", "Z")


def _prompt_text(body: JSONBody) -> str:
    """The text of the last user message (string content or text blocks)."""
    messages = body.get("messages") or [{}]
    content = messages[-1].get("content", "")
    if isinstance(content, list):
        return "".join(block.get("text", "") for block in content if isinstance(block, dict))
    return str(content)


def main() -> None:
    """``python -m pytest_tempoeval.testing``: serve the fake API until interrupted."""
    import argparse

    parser = argparse.ArgumentParser(description="Loopback fake of the Anthropic Messages API.")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every answer")
    args = parser.parse_args()
    with FakeMessagesServer(latency=args.latency) as server:
        print(f"ANTHROPIC_BASE_URL={server.base_url}", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
