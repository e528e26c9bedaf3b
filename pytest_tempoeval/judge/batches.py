"""Recording through the Message Batches API: half the price of live requests, answers within 24 h.

The flow, per judge call that needs new judgments (``--tempoeval-judge-batch``):

1. The requests are split into batches of at most 100,000 requests and 256 MB (the API's limits).
   Each request's ``custom_id`` is a hash of its body, so results, which come back in any order,
   are matched to requests by content.
2. Never paying twice: each batch is named in a state file beside the cassette
   (``<cassette>.batch.json``), removed once the answers are saved in the cassette. Its request
   ids (its intent) are written before the batch is created, and its id once it is. A run after
   an interrupted one takes from the batches the file names every answer they hold of what it
   needs, whatever else they hold, and creates batches only for requests none of them holds. An
   intent without an id (the run was killed during the create) is looked for among the batches
   the API lists (:func:`_find_lost_batches`).
3. The batch is polled every ``poll`` seconds, with a status line, until it has ended.
4. Each result becomes a standard ``/v1/messages`` interaction with exactly the request body live
   recording stores, so replay, stock-vcrpy replay and body matching do not change. An expired,
   errored or canceled item is reported failed: the judge asks it live, and counts it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_tempoeval.errors import JudgeError
from pytest_tempoeval.files import write_atomically

MAX_BATCH_REQUESTS = 100_000
MAX_BATCH_BYTES = 256 * 1000 * 1000
_ID_PREFIX = "te-"
# Finding the batch a killed run created without learning its id: the listed batches created up to
# this many seconds before its intent was written (this machine's clock against the API's) ...
CLOCK_SKEW = 600.0
MAX_LISTED = 1000  # ... among the newest this many
_COUNTS = ("processing", "succeeded", "errored", "canceled", "expired")


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


@dataclass
class BatchAnswers:
    """What the Message Batches API gave for a judge call's requests, by ``custom_id``."""

    answers: dict[str, Answer] = field(default_factory=dict)
    failed: set[str] = field(default_factory=set)  # expired, errored or canceled: ask live
    created: set[str] = field(default_factory=set)  # sent in a batch this call created


async def ask_in_batches(
    client: Any,
    bodies: Sequence[dict[str, Any]],
    *,
    state: Path,
    poll: float,
    status: Callable[[str], None] | None = None,
    grant: Callable[[int], int] | None = None,
) -> BatchAnswers:
    """Answers for ``bodies``, by custom id. A batch an earlier run created (named in ``state``)
    gives what it holds of them; only the rest go into new batches, as many as ``grant(count)``
    allows (all without it). A body neither answered nor failed was not asked (not granted)."""
    wanted = {custom_id(body): body for body in bodies}
    entries = _read_state(state)
    await _find_lost_batches(client, entries, set(wanted), state, poll, status)
    held = {cid for entry in entries for cid in entry["custom_ids"]}
    new = [body for cid, body in wanted.items() if cid not in held]
    new = new[: grant(len(new)) if grant is not None else len(new)]
    for batch in chunks(new):
        await _create(client, batch, entries, state)
    got = BatchAnswers(created={custom_id(body) for body in new})
    headers = _stored_headers(client)
    for entry in entries:
        if all(cid in got.answers for cid in wanted.keys() & entry["custom_ids"]):
            continue  # another call's batch (left for it), or nothing more to take from it
        await _wait(client, entry["id"], len(entry["custom_ids"]), poll, status)
        _take(await _results(client, entry["id"]), wanted, headers, got)
    # A request a batch should hold but whose results lack it is not lost silently: asked live.
    unanswered = wanted.keys() - got.answers.keys()
    got.failed |= unanswered & (held | got.created)
    return got


def _take(
    results: dict[str, dict[str, Any]],
    wanted: dict[str, dict[str, Any]],
    headers: dict[str, str],
    got: BatchAnswers,
) -> None:
    """Keep a batch's results for the wanted requests: each success as the exchange live
    recording would store; anything else as failed, unless another batch's succeeded."""
    for cid, result in results.items():
        if cid not in wanted or cid in got.answers:
            continue
        message = result.get("message") if result.get("type") == "succeeded" else None
        if not isinstance(message, dict):
            got.failed.add(cid)
            continue
        got.failed.discard(cid)
        request = StoredRequest("POST", request_bytes(wanted[cid]), dict(headers))
        response = StoredResponse(
            200, json.dumps(message).encode(), {"content-type": "application/json"}
        )
        got.answers[cid] = (message, (request, response))


def forget(state: Path) -> None:
    """Remove the state file once its answers are saved in the cassette."""
    state.unlink(missing_ok=True)


def settle(state: Path, held: set[str]) -> None:
    """Drop from ``state`` the batches all of whose requests the saved cassette holds (``held``:
    their custom ids), and the file once it names none: a run killed between saving the answers
    and forgetting the file left it. A file that cannot be read is left for the call that needs
    it (which fails, naming it)."""
    try:
        entries = _read_state(state)
    except JudgeError:
        return
    kept = [entry for entry in entries if not held.issuperset(entry["custom_ids"])]
    if not kept:
        forget(state)
    elif len(kept) < len(entries):
        _write_state(state, kept)


def _stored_headers(client: Any) -> dict[str, str]:
    """The request headers a live recording stores (the SDK's API version)."""
    version = dict(getattr(client, "default_headers", {}) or {}).get("anthropic-version")
    headers = {"content-type": "application/json"}
    if version:
        headers["anthropic-version"] = str(version)
    return headers


async def _create(
    client: Any, batch: list[dict[str, Any]], entries: list[dict[str, Any]], state: Path
) -> None:
    """Create a batch of these requests. Its intent (the request ids) is written to ``state``
    first: a run killed after the API made the batch, before it learned the id, leaves the intent,
    and the next run finds that batch (:func:`_find_lost_batches`) instead of paying again."""
    entry: dict[str, Any] = {
        "local": uuid.uuid4().hex,
        "custom_ids": sorted(custom_id(body) for body in batch),
        "intent": time.time(),
    }
    entries.append(entry)
    _write_state(state, entries)
    created = await client.messages.batches.create(
        requests=[{"custom_id": custom_id(body), "params": body} for body in batch]
    )
    entry["id"] = str(created.id)
    entry["created"] = time.time()
    _write_state(state, entries)


async def _find_lost_batches(
    client: Any,
    entries: list[dict[str, Any]],
    wanted: set[str],
    state: Path,
    poll: float,
    status: Callable[[str], None] | None,
) -> None:
    """Give each intent without a batch id (a run was killed during its create) the batch that
    create made, or drop it when there is none.

    The API keeps no metadata on a batch, so the candidates are the batches listed as created
    since the intent (less the clock skew allowed), with as many requests, and not already known;
    each is waited for, and is the one when its results carry exactly the intent's request ids.
    """
    known = {entry["id"] for entry in entries if "id" in entry}
    for entry in [entry for entry in entries if "id" not in entry]:
        if wanted.isdisjoint(entry["custom_ids"]):
            continue  # another call's intent: left for it
        ids = set(entry["custom_ids"])
        listed = await _listed_since(client, entry["intent"] - CLOCK_SKEW, len(ids), known)
        for batch_id in reversed(listed):  # the oldest first: the create followed the intent
            await _wait(client, batch_id, len(ids), poll, status)
            if set(await _results(client, batch_id)) == ids:
                entry["id"] = batch_id
                known.add(batch_id)
                break
        else:
            entries.remove(entry)  # never created: its requests go into a new batch
        _write_state(state, entries)


async def _listed_since(client: Any, since: float, size: int, known: set[str]) -> list[str]:
    """The batches of ``size`` requests created at ``since`` or later, not in ``known``: the
    newest first, among at most :data:`MAX_LISTED` batches."""
    found: list[str] = []
    listed = 0
    async for batch in client.messages.batches.list(limit=100):
        listed += 1
        if listed > MAX_LISTED or batch.created_at.timestamp() < since:
            break
        counts = batch.request_counts
        total = sum(int(getattr(counts, name, 0) or 0) for name in _COUNTS)
        if total == size and batch.id not in known:
            found.append(str(batch.id))
    return found


async def _results(client: Any, batch_id: str) -> dict[str, dict[str, Any]]:
    """An ended batch's results by custom id, read from the raw JSONL: each message keeps the key
    order the API sent."""
    raw = await client.messages.batches.with_raw_response.results(batch_id)
    results: dict[str, dict[str, Any]] = {}
    for line in (await raw.http_response.aread()).decode("utf-8").splitlines():
        if line.strip():
            item = json.loads(line)
            results[str(item.get("custom_id"))] = item.get("result") or {}
    return results


def _write_state(state: Path, entries: list[dict[str, Any]]) -> None:
    write_atomically(state, json.dumps({"batches": entries}, indent=1) + "\n")


def _read_state(state: Path) -> list[dict[str, Any]]:
    """The batches (and intents) an earlier run left; a file that is not one is an error, and is
    left as it is: it names batches already paid for."""
    try:
        data = json.loads(state.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as error:
        raise _broken(state, f"cannot read it ({error})") from None
    batches = data.get("batches") if isinstance(data, dict) else None
    if not isinstance(batches, list):
        raise _broken(state, 'expected {"batches": [...]}')
    for number, entry in enumerate(batches, 1):
        problem = _entry_problem(entry)
        if problem:
            raise _broken(state, f"batch {number} {problem}")
    return batches


def _entry_problem(entry: Any) -> str:
    """What is wrong with a state file's entry ("" when nothing)."""
    if not isinstance(entry, dict):
        return "is not a mapping"
    ids = entry.get("custom_ids")
    if not isinstance(ids, list) or not ids or not all(isinstance(cid, str) for cid in ids):
        return "has no 'custom_ids' list of request ids"
    if "id" in entry:
        valid = isinstance(entry["id"], str) and entry["id"]
        return "" if valid else "has an 'id' that is not a batch id"
    intent = entry.get("intent")
    if isinstance(intent, bool) or not isinstance(intent, int | float):
        return "has neither a batch 'id' nor an 'intent' time"
    return ""


def _broken(state: Path, problem: str) -> JudgeError:
    return JudgeError(
        f"{state}: not a batch state file: {problem}. It names batches already paid for, so it was "
        "left as it is: fix it, or delete it to create new batches (paying again for their "
        "requests)"
    )


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
