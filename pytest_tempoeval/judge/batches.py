"""Recording through the Message Batches API: half the price of live requests, answers within 24 h.

The flow, per judge call that needs new judgments (``--tempoeval-judge-batch``):

1. The requests are split into batches of at most 100,000 requests and 256 MB (the API's limits).
   Each request's ``custom_id`` is a hash of its body, so results, which come back in any order,
   are matched to requests by content.
2. Before polling, the batch id is written to a state file beside the cassette
   (``<cassette>.batch.json``). An interrupted run finds it and resumes the same batch instead of
   paying twice; the file is removed once the answers are saved in the cassette.
3. The batch is polled every ``poll`` seconds, with a status line, until it has ended.
4. Each result becomes a standard ``/v1/messages`` interaction with exactly the request body live
   recording stores, so replay, stock-vcrpy replay and body matching do not change. An expired,
   errored or canceled item is returned as ``None``: the judge asks it live, and counts it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_tempoeval.errors import JudgeError
from pytest_tempoeval.files import write_atomically

MAX_BATCH_REQUESTS = 100_000
MAX_BATCH_BYTES = 256 * 1000 * 1000
_ID_PREFIX = "te-"


@dataclass
class StoredRequest:
    """What a cassette keeps of a request (the attributes of an httpx request it reads)."""

    method: str
    content: bytes
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class StoredResponse:
    """What a cassette keeps of a response."""

    status_code: int
    content: bytes
    headers: dict[str, str] = field(default_factory=dict)
    reason_phrase: str = "OK"


Answer = tuple[dict[str, Any], tuple[StoredRequest, StoredResponse]]


def custom_id(body: dict[str, Any]) -> str:
    """A request's id in a batch: a hash of its body (the API allows 64 of [a-zA-Z0-9_-])."""
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return _ID_PREFIX + hashlib.sha256(text.encode()).hexdigest()[:40]


def request_bytes(body: dict[str, Any]) -> bytes:
    """The body as the SDK sends it (httpx's JSON encoding): what live recording stores."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def chunks(bodies: Sequence[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Split requests into batches within the API's limits on count and size."""
    batches: list[list[dict[str, Any]]] = [[]]
    size = 0
    for body in bodies:
        item = len(request_bytes(body)) + 100  # custom_id and the wrapping of each item
        if batches[-1] and (
            len(batches[-1]) >= MAX_BATCH_REQUESTS or size + item > MAX_BATCH_BYTES
        ):
            batches.append([])
            size = 0
        batches[-1].append(body)
        size += item
    return [batch for batch in batches if batch]


async def ask_in_batches(
    client: Any,
    bodies: Sequence[dict[str, Any]],
    *,
    state: Path,
    poll: float,
    status: Callable[[str], None] | None = None,
) -> list[Answer | None]:
    """One answer per body, in order: (the message, the exchange to record), or None for an item
    that expired, errored or was canceled."""
    version = dict(getattr(client, "default_headers", {}) or {}).get("anthropic-version")
    headers = {"content-type": "application/json"}
    if version:
        headers["anthropic-version"] = str(version)
    results: dict[str, dict[str, Any]] = {}
    for batch in chunks(bodies):
        batch_id = await _resume_or_create(client, batch, state)
        await _wait(client, batch_id, len(batch), poll, status)
        # The raw JSONL, parsed here: each message keeps the key order the API sent.
        raw = await client.messages.batches.with_raw_response.results(batch_id)
        for line in (await raw.http_response.aread()).decode("utf-8").splitlines():
            if line.strip():
                item = json.loads(line)
                results[str(item.get("custom_id"))] = item.get("result") or {}
    answers: list[Answer | None] = []
    for body in bodies:
        result = results.get(custom_id(body), {})
        message = result.get("message") if result.get("type") == "succeeded" else None
        if not isinstance(message, dict):
            answers.append(None)
            continue
        request = StoredRequest("POST", request_bytes(body), dict(headers))
        response = StoredResponse(
            200, json.dumps(message).encode(), {"content-type": "application/json"}
        )
        answers.append((message, (request, response)))
    return answers


def forget(state: Path) -> None:
    """Remove the state file once its answers are saved in the cassette."""
    state.unlink(missing_ok=True)


async def _resume_or_create(client: Any, batch: list[dict[str, Any]], state: Path) -> str:
    """The id of a batch of these requests: the one an interrupted run left in ``state``, or a new
    one (written to ``state`` before anything else happens)."""
    ids = sorted(custom_id(body) for body in batch)
    known = _read_state(state)
    for entry in known:
        if entry.get("custom_ids") == ids:
            return str(entry["id"])
    created = await client.messages.batches.create(
        requests=[{"custom_id": custom_id(body), "params": body} for body in batch]
    )
    known.append({"id": created.id, "custom_ids": ids, "created": time.time()})
    write_atomically(state, json.dumps({"batches": known}, indent=1) + "\n")
    return str(created.id)


def _read_state(state: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(state.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as error:
        raise JudgeError(
            f"{state}: cannot read the batch state file ({error}); it names batches already paid "
            "for. Fix it, or delete it to create new batches"
        ) from None
    batches = data.get("batches") if isinstance(data, dict) else None
    return [entry for entry in batches or [] if isinstance(entry, dict) and "id" in entry]


async def _wait(
    client: Any, batch_id: str, total: int, poll: float, status: Callable[[str], None] | None
) -> None:
    started = time.monotonic()
    while True:
        batch = await client.messages.batches.retrieve(batch_id)
        if batch.processing_status == "ended":
            return
        counts = batch.request_counts
        finished = total - int(getattr(counts, "processing", 0) or 0)
        if status is not None:
            waited = time.monotonic() - started
            status(f"batch {batch_id}: {finished}/{total} done, waiting ({waited:.0f} s)")
        await asyncio.sleep(poll)
