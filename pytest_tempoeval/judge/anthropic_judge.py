"""AnthropicJudge: temporal relevance judgments from Claude through the official ``anthropic`` SDK.

- Prompts are the seed prompts (graded 0-4 for nDCG, a binary verdict for precision) and
  TempoEval's TemporalCoverage prompt (which periods a document covers, for T-Coverage).
- Replies are parsed strictly: an invalid one is asked again once, then :class:`JudgeError` carries
  the raw reply. A failure is never scored 0.
- Identical (model, prompt) pairs are judged once per judge (the ``tempoeval_judge`` fixture gives
  each test its own judge and cassette, so a test's cassette holds everything it needs).
- Many judgments run concurrently on asyncio, at most ``max_concurrency`` at a time.

The SDK is imported on first use, so the plugin stays light for suites that never judge.

One module on purpose, though longer than most: one class whose asking, retrying, reply checking and
batch routing share its per-judge caches and counters.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, Unpack

from pytest_tempoeval.data.provenance import prompt_hash
from pytest_tempoeval.errors import (
    JudgeBudgetSpent,
    JudgeError,
    NoValidAnswer,
    check_choice,
    hide_base_url,
)
from pytest_tempoeval.judge.accounting import JudgeStats, budget_spent, count_dry_run
from pytest_tempoeval.judge.batches import ask_in_batches, custom_id, forget, settle
from pytest_tempoeval.judge.recording import (
    Progress,
    Recording,
    RecordingField,
    RecordingKeywords,
    StatusLine,
    recording_from,
)
from pytest_tempoeval.metrics.llm_judgments import (
    CrossPeriod,
    Judgment,
    JudgmentRequest,
    ask_strictly,
    read_coverage,
    read_grade,
    read_verdict,
    reply_reasoning,
)
from pytest_tempoeval.metrics.llm_prompts import (
    PROMPT_STYLES,
    coverage_prompt,
    graded_prompt,
    verdict_prompt,
)

if TYPE_CHECKING:
    from pytest_tempoeval.judge.budget import RequestBudget
    from pytest_tempoeval.judge.cassettes import JudgeCassette

# The newest Haiku in the anthropic SDK's model list (2.11): the cheapest and fastest tier, which is
# what thousands of short grading calls want. Recorded judgments replay from cassettes whatever the
# model costs. Override with AnthropicJudge(model=...) or the tempoeval_judge_model ini key.
DEFAULT_MODEL = "claude-haiku-5-5"
MAX_TOKENS = 300  # the seed replies are a few lines of JSON
# How each kind of judgment's reply is read (metrics.llm_judgments: strictly, never a 0).
_READERS: dict[str, Callable[[Any], int]] = {
    "grade": read_grade,
    "verdict": read_verdict,
    "coverage": read_coverage,
}

T = TypeVar("T")


class AnthropicJudge:
    """An LLM judge on the Messages API. Pass ``client`` to use your own
    ``anthropic.AsyncAnthropic`` (custom HTTP options, a proxy); ``max_retries`` and ``timeout``
    (seconds) go to the SDK, which retries timeouts, resets, 429, 5xx; ``retry_backoff``: seconds
    before its first retry (later ones double it; a server's ``retry-after`` is obeyed), the SDK's
    own 0.5 s by default; ``recording`` for where answers are kept and how new ones may be asked (a
    :class:`~pytest_tempoeval.judge.cassettes.JudgeCassette` to answer from and record into, a dry
    run, a budget, batches: what the ``tempoeval_judge`` fixture gives). The recording's settings
    are also taken as keywords (``cassette=``, ``dry_run=``, ...), as before the Recording."""

    # The judge's recording settings, read (and written) as its attributes.
    cassette: RecordingField[JudgeCassette | None] = RecordingField()
    progress: RecordingField[Progress | None] = RecordingField()
    dry_run: RecordingField[bool] = RecordingField()
    budget: RecordingField[RequestBudget | None] = RecordingField()
    batch: RecordingField[bool] = RecordingField()
    batch_poll: RecordingField[float] = RecordingField()
    batch_status: RecordingField[StatusLine | None] = RecordingField()

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        max_concurrency: int = 8,
        *,
        client: Any = None,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int = 2,
        timeout: float = 60.0,
        retry_backoff: float | None = None,
        prompt_style: str = "seed",
        recording: Recording | None = None,
        **keywords: Unpack[RecordingKeywords],
    ) -> None:
        self._recording = recording_from(
            "AnthropicJudge", recording, keywords, RecordingKeywords.__optional_keys__
        )
        check_choice("prompt_style", prompt_style, PROMPT_STYLES)
        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be at least 1, got {max_concurrency}")
        if retry_backoff is not None and not 0 <= retry_backoff < float("inf"):
            raise ValueError(f"retry_backoff must be a finite number >= 0, got {retry_backoff}")
        if retry_backoff is not None and client is not None:
            raise ValueError("retry_backoff applies to the judge's own client, not to client=")
        _refuse_secrets_in_url(base_url or os.environ.get("ANTHROPIC_BASE_URL"))
        for url in (base_url, os.environ.get("ANTHROPIC_BASE_URL"), getattr(client, "base_url", 0)):
            if url:  # its path can carry an account or a token: never shown in an error
                hide_base_url(str(url))
        self.model = model
        # "seed": the metric pages' prompts word for word; "delimited": query and document fenced
        self.prompt_style = prompt_style
        self.max_concurrency = max_concurrency
        self.stats = JudgeStats()
        self._prefetched: dict[tuple[str, str], str] = {}  # batch answers not yet read
        self._client = client
        self._client_options = {
            "api_key": api_key,
            "base_url": base_url,
            "max_retries": max_retries,
            "timeout": timeout,
        }
        # None: the SDK's own backoff. Not a client option: the SDK takes none (see _client_class).
        self._retry_backoff = retry_backoff
        self._replies: dict[tuple[str, str], str] = {}  # (model, prompt) -> reply text
        self._in_flight: dict[tuple[str, str], asyncio.Future[str]] = {}
        self._clients: dict[int, Any] = {}  # id(event loop) -> async client bound to it
        self._unrecorded: dict[
            str, tuple[Any, Any]
        ] = {}  # prompt -> (HTTP request, response) not yet kept
        self._dry_run_counted: set[str] = set()  # prompts a dry run has counted, asked or held

    @property
    def _where(self) -> str:
        """Where this judge's answers are kept, for a dry run's counts."""
        return str(self.cassette.path) if self.cassette is not None else "this judge's memory"

    def __repr__(self) -> str:
        return f"AnthropicJudge(model={self.model!r}, max_concurrency={self.max_concurrency})"

    # -- the seed classes' provider interface (``metric.llm = judge``) ----------------------------

    async def agenerate(self, prompt: str) -> str:
        """The raw reply text for a prompt (de-duplicated). The caller parses it, so it is recorded
        as it is."""
        reply = await self._ask(prompt)
        self._record(prompt)
        return reply

    def generate(self, prompt: str) -> str:
        return self._run(self.agenerate(prompt))

    # -- graded, binary and coverage judgments ----------------------------------------------------

    async def agrade_all(self, items: Sequence[JudgmentRequest]) -> list[Judgment]:
        """Grade (query id, query, doc id, document) items 0-4, concurrently."""
        style = self.prompt_style
        return await self._judge_all(
            items, "grade", lambda q, query, d, doc: graded_prompt(query, doc, style)
        )

    async def averdict_all(
        self,
        items: Sequence[JudgmentRequest],
        temporal_focus: dict[str, str | None] | None = None,
    ) -> list[Judgment]:
        """Binary verdicts for (query id, query, doc id, document) items, concurrently."""
        focus, style = temporal_focus or {}, self.prompt_style
        return await self._judge_all(
            items,
            "verdict",
            lambda q, query, d, doc: verdict_prompt(query, doc, focus.get(q), style),
        )

    async def acoverage_all(
        self, items: Sequence[JudgmentRequest], periods: Mapping[str, CrossPeriod]
    ) -> list[Judgment]:
        """Which periods of its query (``periods[query id]``) each (query id, query, doc id,
        document) item covers: COVERS_* flags (T-Coverage), concurrently."""
        style = self.prompt_style

        def prompt(query_id: str, query: str, doc_id: str, document: str) -> str:
            period = periods.get(query_id)
            if period is None:
                raise JudgeError(
                    f"judging doc {doc_id!r} for query {query_id!r}: no baseline and comparison "
                    "period given for this query (T-Coverage needs both)"
                )
            return coverage_prompt(
                query, document, period.temporal_focus, period.baseline, period.comparison, style
            )

        return await self._judge_all(items, "coverage", prompt)

    def grade_all(self, items: Sequence[JudgmentRequest]) -> list[Judgment]:
        return self._run(self.agrade_all(items))

    def verdict_all(
        self,
        items: Sequence[JudgmentRequest],
        temporal_focus: dict[str, str | None] | None = None,
    ) -> list[Judgment]:
        return self._run(self.averdict_all(items, temporal_focus))

    def coverage_all(
        self, items: Sequence[JudgmentRequest], periods: Mapping[str, CrossPeriod]
    ) -> list[Judgment]:
        return self._run(self.acoverage_all(items, periods))

    async def _judge_all(
        self,
        items: Iterable[JudgmentRequest],
        kind: str,
        prompt_of: Callable[[str, str, str, str], str],
    ) -> list[Judgment]:
        """Judge every item with its prompt (``prompt_of(*item)``), reading each reply as ``kind``
        asks (a key of _READERS)."""
        limit = asyncio.Semaphore(self.max_concurrency)
        read = _READERS[kind]
        items = list(items)
        done, cached_before = 0, self.stats.cache_hits
        prompts = {prompt_of(*item) for item in items}
        missing = sorted(prompt for prompt in prompts if not self._answerable(prompt))
        if self.dry_run:
            stop = count_dry_run(
                self.stats, self._dry_run_counted, prompts, missing, kind, self._where
            )
            if stop is not None:
                raise stop
        batch_state = None
        if self.batch and self.cassette is not None and self.cassette.recording:
            if missing:
                batch_state = await self._ask_in_batches(missing)
            elif not self.dry_run and self._batch_state().exists():
                # A run killed after saving the answers, before forgetting the file, left it.
                self.cassette.save()  # what its batches answered is on disk before it goes
                settle(self._batch_state(), {custom_id(self._body(p)) for p in prompts})

        async def judge(query_id: str, query: str, doc_id: str, document: str) -> Judgment:
            prompt = prompt_of(query_id, query, doc_id, document)
            where = f"judging doc {doc_id!r} for query {query_id!r} (model {self.model})"
            attempts = 0

            async def ask() -> str:
                nonlocal attempts
                attempts += 1
                async with limit:  # the second try must reach the API, not the remembered reply
                    return await self._ask(prompt, fresh=attempts > 1, kind=kind)

            nonlocal done
            try:
                value = await ask_strictly(ask, read, where)
            except JudgeError as error:
                self._unrecorded.pop(prompt, None)  # an invalid reply is never recorded
                if (
                    self.cassette is not None
                    and not self.cassette.recording
                    and isinstance(error, NoValidAnswer)
                ):
                    error = type(error)(
                        f"{error} (replayed from {self.cassette.path}; "
                        f"re-record with: {self.cassette.command})"
                    )
                if str(error).startswith(where):
                    raise error from None
                raise error.in_context(where) from error
            reasoning = reply_reasoning(self._replies.get((self.model, prompt)))
            judgment = Judgment(query_id, doc_id, value, reasoning, prompt_hash(prompt))
            self._record(prompt)  # only a reply that was read as a valid judgment is kept
            done += 1
            if self.progress is not None:
                self.progress(done, len(items), self.stats.cache_hits - cached_before)
            return judgment

        tasks = [asyncio.ensure_future(judge(*item)) for item in items]
        try:
            judgments = list(await asyncio.gather(*tasks))
        except BaseException as error:
            if isinstance(error, JudgeBudgetSpent) and self.budget is not None:
                # Requests already sent are paid for: let them finish, and keep their answers.
                await asyncio.gather(*tasks, return_exceptions=True)
                still = sum(1 for prompt in prompts if (self.model, prompt) not in self._replies)
                raise budget_spent(self.budget, still, len(prompts)) from None
            # The first failure is the answer: stop the other requests cleanly rather than leave
            # them to die with the event loop.
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        if batch_state is not None and self.cassette is not None:
            self.cassette.save()  # the paid answers are on disk: the batch need not be resumed
            forget(batch_state)
        return judgments

    def _body(self, prompt: str) -> dict[str, Any]:
        """The Messages request for a prompt: what is sent, recorded and matched on replay."""
        return {
            "max_tokens": MAX_TOKENS,
            "messages": [{"role": "user", "content": prompt}],
            "model": self.model,
        }

    def _answerable(self, prompt: str) -> bool:
        """Whether a prompt is answered without a new request (this judge's memory, the
        cassette)."""
        key = (self.model, prompt)
        if key in self._replies or key in self._prefetched:
            return True
        return self.cassette is not None and self.cassette.answer(self._body(prompt)) is not None

    async def _ask_in_batches(self, prompts: list[str]) -> Path:
        """Ask ``prompts`` through the Message Batches API; keep each valid answer for the normal
        flow to read and record. An item that expired or errored, or that the budget did not
        allow, is left to the normal flow (asked live, or failing on the budget). Returns the batch
        state file, removed once the answers are saved."""
        state = self._batch_state()
        bodies = [self._body(prompt) for prompt in prompts]
        try:
            got = await ask_in_batches(
                self._async_client(),
                bodies,
                state=state,
                poll=self.batch_poll,
                status=self.batch_status,
                grant=self._grant,
            )
        except JudgeError:
            raise
        except Exception as error:  # noqa: BLE001 - the SDK's, as a live request's: not chained
            raise JudgeError(f"the judge's message batch ({self.model}) failed: {error}") from None
        for prompt, body in zip(prompts, bodies, strict=True):
            cid = custom_id(body)
            if cid in got.failed:  # expired or errored: the normal flow asks it live
                self.stats.batch_retried += 1
                if cid in got.created and self.budget is not None:
                    self.budget.give_back()  # the live request takes its unit
            if cid not in got.answers:
                continue
            message, exchange = got.answers[cid]
            self._prefetched[(self.model, prompt)] = self._reply_text(message)
            self._unrecorded[prompt] = exchange
            self._count_usage(message, batched=True)
            self.stats.asked += 1
            self.stats.batched += 1
        return state

    def _batch_state(self) -> Path:
        """The file naming the batches of this judge's cassette (beside it)."""
        assert self.cassette is not None
        return self.cassette.path.with_name(self.cassette.path.name + ".batch.json")

    def _grant(self, count: int) -> int:
        """How many of ``count`` new batch requests the budget allows (each takes its unit); a
        batch an earlier run paid for takes none."""
        if self.budget is None:
            return count
        granted = 0
        while granted < count and self.budget.take():
            granted += 1
        return granted

    # -- the API ----------------------------------------------------------------------------------

    async def _ask(self, prompt: str, fresh: bool = False, kind: str = "grade") -> str:
        """Reply text for a prompt; identical prompts share one request unless ``fresh``.
        ``kind``: what the prompt asks (a dry run estimates its reply's tokens).

        Finished replies are kept as text, requests in flight as futures of the running loop (each
        synchronous call runs its own loop).
        """
        key = (self.model, prompt)
        if not fresh and key in self._prefetched:  # answered by a batch: counted there
            reply = self._prefetched.pop(key)
            self._replies[key] = reply
            return reply
        if not fresh:
            if key in self._replies:
                self.stats.cache_hits += 1
                return self._replies[key]
            pending = self._in_flight.get(key)
            if pending is not None and pending.get_loop() is asyncio.get_running_loop():
                self.stats.cache_hits += 1
                return await asyncio.shield(pending)
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._in_flight[key] = future
        try:
            reply = await self._request(prompt, fresh, kind)
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved: waiters re-raise it, nobody logs it as unhandled
            raise
        finally:
            if self._in_flight.get(key) is future:
                del self._in_flight[key]
        future.set_result(reply)
        self._replies[key] = reply
        return reply

    async def _request(self, prompt: str, fresh: bool = False, kind: str = "grade") -> str:
        body = self._body(prompt)
        if self.cassette is not None and not (fresh and self.cassette.recording):
            stored = self.cassette.answer(body)
            if stored is not None:
                self.stats.replayed += 1
                return self._reply_text(stored)
            if not self.cassette.recording:
                raise self.cassette.miss()
        if self.dry_run:  # a second try of an invalid replayed reply: counted, never asked
            stop = count_dry_run(self.stats, set(), [prompt], [prompt], kind, self._where)
            assert stop is not None
            raise stop
        if self.budget is not None and not self.budget.take():
            raise JudgeBudgetSpent("the judge's request budget is spent")
        client = self._async_client()
        try:
            # The raw response: the cassette stores exactly what was sent and received, and the
            # reply is read from JSON, not built into SDK models (a third of the SDK's CPU).
            raw = await client.messages.with_raw_response.create(**body)
            message = json.loads(raw.http_response.content)
        except Exception as error:  # noqa: BLE001 - quoted in ours, which is the one shown
            # Quoted, scrubbed, and not chained: the SDK's exception repeats the server's text
            # unscrubbed (a 404 echoing the base URL's path) in every traceback that shows it.
            raise JudgeError(f"the judge ({self.model}) failed: {error}") from None
        if self.cassette is not None:  # kept once the reply is read as valid (see _record)
            self._unrecorded[prompt] = (raw.http_request, raw.http_response)
        self.stats.asked += 1
        self._count_usage(message)
        return self._reply_text(message)

    def _count_usage(self, message: Any, batched: bool = False) -> None:
        usage = message.get("usage") if isinstance(message, dict) else None
        usage = usage if isinstance(usage, dict) else {}
        tokens = _count(usage.get("input_tokens")), _count(usage.get("output_tokens"))
        self.stats.input_tokens += tokens[0]
        self.stats.output_tokens += tokens[1]
        if batched:  # billed at half price
            self.stats.batch_input_tokens += tokens[0]
            self.stats.batch_output_tokens += tokens[1]

    def _record(self, prompt: str) -> None:
        exchange = self._unrecorded.pop(prompt, None)
        if exchange is not None and self.cassette is not None:
            self.cassette.record(*exchange)

    def _reply_text(self, message: dict[str, Any]) -> str:
        """The text of a Messages API response (parsed JSON)."""
        content = message.get("content")
        return (
            "".join(block.get("text", "") for block in content if isinstance(block, dict))
            if isinstance(content, list)
            else ""
        )

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine from synchronous code, closing the client made for its event loop (an
        httpx client left to the garbage collector would try to close on a dead loop)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            coroutine.close()
            raise JudgeError(
                "a synchronous judge call was made inside a running event loop; "
                "use the async method"
            )

        async def main() -> T:
            try:
                return await coroutine
            finally:
                client = self._clients.pop(id(asyncio.get_running_loop()), None)
                if client is not None:
                    await client.close()

        return asyncio.run(main())

    def _async_client(self) -> Any:
        """The caller's client, or an ``AsyncAnthropic`` for the running event loop."""
        if self._client is not None:
            return self._client
        loop = id(asyncio.get_running_loop())
        if loop not in self._clients:
            import anthropic

            # Any: the client's keyword types differ between the anthropic versions we support
            options: dict[str, Any] = {
                key: value for key, value in self._client_options.items() if value is not None
            }
            if "api_key" not in options and not os.environ.get("ANTHROPIC_API_KEY"):
                raise JudgeError(
                    "the LLM judge needs ANTHROPIC_API_KEY (or AnthropicJudge(api_key=...)) to "
                    "record judgments"
                )
            client_class = (
                anthropic.AsyncAnthropic
                if self._retry_backoff is None
                else _client_class(anthropic.AsyncAnthropic, self._retry_backoff)
            )
            self._clients[loop] = client_class(**options)
        return self._clients[loop]


# The SDK's first wait before a retry without retry-after (anthropic's INITIAL_RETRY_DELAY); later
# waits double it, with jitter, up to a cap.
SDK_FIRST_RETRY_WAIT = 0.5


def _client_class(base: type[Any], first_wait: float) -> type[Any]:
    """``base`` (``AsyncAnthropic``) with its backoff scaled so that the first retry waits about
    ``first_wait`` seconds. A wait the server asked for (``retry-after``) is obeyed as the SDK obeys
    it. The SDK has no option for its backoff: its schedule is one method of the client."""

    class BackoffClient(base):  # type: ignore[misc]
        def _calculate_retry_timeout(self, *args: Any, **kwargs: Any) -> float:
            wait = float(super()._calculate_retry_timeout(*args, **kwargs))
            headers = kwargs.get("response_headers", args[2] if len(args) > 2 else None)
            if headers is not None and _asks_to_wait(headers):
                return wait
            return wait * first_wait / SDK_FIRST_RETRY_WAIT

    return BackoffClient


def _asks_to_wait(headers: Any) -> bool:
    """Whether a response's ``retry-after-ms`` or ``retry-after`` asks for a wait: a positive
    number, or a date (0 leaves the wait to the backoff, in the SDK too)."""
    for name in ("retry-after-ms", "retry-after"):
        value = headers.get(name)
        if value is not None:
            try:
                return float(value) > 0
            except ValueError:
                return True
    return False


def _count(value: Any) -> int:
    """A token count from a response's usage; anything else (a damaged reply) counts 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _refuse_secrets_in_url(base_url: str | None) -> None:
    """A base URL with a query string or credentials would carry them into error messages, the
    terminal and the JUnit XML when a server echoes the path: refused, without repeating them."""
    if not base_url:
        return
    from urllib.parse import urlsplit

    parts = urlsplit(base_url)
    if parts.query or parts.fragment or parts.username or parts.password:
        shown = f"{parts.scheme}://{parts.hostname or ''}" + ("/<path>" if parts.path else "")
        raise JudgeError(
            f"the judge's base URL {shown}?<hidden> has a query string, fragment or credentials; "
            "give the API key through ANTHROPIC_API_KEY (or api_key=) and a base URL without them"
        )
