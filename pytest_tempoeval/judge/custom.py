"""Any LLM provider as the judge: a small protocol, and its answers cached by request.

A provider implements :class:`JudgeProvider`: a ``model`` name and two async methods that answer
one judgment each (and, for T-Coverage, a third: :class:`CoverageProvider`). :class:`CachedJudge`
turns it into a judge llm-mode metrics accept (``judge=...``): it runs the judgments concurrently,
reads the answers strictly (a grade is an integer 0..4, a verdict a bool, a coverage a pair of
bools; anything else is asked once more, then a JudgeError, never a 0),
and keeps them in a file keyed by (model, prompt), the seed prompt the inputs make. A replay
answers from the file without calling the provider; a changed query, document or model is a miss.

The file takes the cassettes' record modes (``none`` replays only, ``once``, ``new_episodes``,
``all``), is written atomically, and holds no secret: only the model, the ids, the key and the
answer. As a cassette, it is also saved every ``save_every`` seconds while answers come in: a run
killed midway keeps what it paid for, and ``new_episodes`` asks only for the rest.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, Unpack

from pytest_tempoeval.data.provenance import prompt_hash
from pytest_tempoeval.data.readers.structured import LineList, Source, json_tree, strict_json
from pytest_tempoeval.errors import (
    JudgeBudgetSpent,
    JudgeCassetteError,
    JudgeError,
    NoValidAnswer,
    check_choice,
    located,
)
from pytest_tempoeval.files import write_atomically
from pytest_tempoeval.judge.accounting import JudgeStats, budget_spent, count_dry_run
from pytest_tempoeval.judge.cassettes import SAVE_EVERY_SECONDS, SaveClock
from pytest_tempoeval.judge.modes import RecordMode
from pytest_tempoeval.judge.recording import (
    CommonKeywords,
    Recording,
    RecordingField,
    recording_from,
)
from pytest_tempoeval.metrics.llm_judgments import (
    COVERS_BASELINE,
    COVERS_COMPARISON,
    CrossPeriod,
    Judgment,
    JudgmentRequest,
)
from pytest_tempoeval.metrics.llm_prompts import coverage_prompt, graded_prompt, verdict_prompt

if TYPE_CHECKING:
    from pytest_tempoeval.judge.budget import RequestBudget

CACHE_VERSION = 1


class JudgeProvider(Protocol):
    """What a judge provider implements. ``model`` names it in cache keys, baselines and the
    summary; change it when the model changes, or old answers would be replayed for the new one."""

    model: str

    async def grade(self, query: str, document: str) -> int:
        """The temporal relevance of ``document`` to ``query``, an integer 0..4."""
        ...

    async def verdict(self, query: str, document: str, temporal_focus: str | None = None) -> bool:
        """Whether ``document`` is temporally relevant to ``query``."""
        ...


class CoverageProvider(JudgeProvider, Protocol):
    """A provider that can also judge T-Coverage: a :class:`JudgeProvider` with ``coverage``."""

    async def coverage(
        self,
        query: str,
        document: str,
        baseline: str,
        comparison: str,
        temporal_focus: str | None = None,
    ) -> tuple[bool, bool]:
        """Whether ``document`` holds evidence about the ``baseline`` period and about the
        ``comparison`` period of the cross-period ``query`` (periods as ``"1990-1999"``)."""
        ...


class CachedJudge:
    """A :class:`JudgeProvider` as an llm-mode judge, its answers cached in ``cache``.

    ``recording`` takes the session's dry run and request budget (also taken as the keywords
    ``dry_run=`` and ``budget=``); the cache file is this judge's cassette, so a Recording's
    cassette and batch settings are refused."""

    dry_run: RecordingField[bool] = RecordingField()
    budget: RecordingField[RequestBudget | None] = RecordingField()

    def __init__(
        self,
        provider: JudgeProvider,
        cache: str | Path,
        record_mode: str = "once",
        max_concurrency: int = 8,
        *,
        recording: Recording | None = None,
        save_every: float | None = None,
        **keywords: Unpack[CommonKeywords],
    ) -> None:
        used = CommonKeywords.__optional_keys__
        self._recording = recording_from("CachedJudge", recording, keywords, used)
        self._recording.refuse_unused("CachedJudge", sorted(used))
        check_choice("record mode", record_mode, RecordMode)
        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be at least 1, got {max_concurrency}")
        self.provider = provider
        self.model = str(provider.model)
        self.path = Path(cache)
        self.record_mode = record_mode
        self.max_concurrency = max_concurrency
        self.stats = JudgeStats()
        exists = self.path.is_file()
        self.recording = record_mode in ("new_episodes", "all") or (
            record_mode == "once" and not exists
        )
        self._answers: dict[str, dict[str, Any]] = {}
        # A whole re-recording (``all``) keeps the old answers it has not asked again until the
        # test's judging finished, as the cassettes do: a failure partway never shrinks the file.
        self._previous: dict[str, dict[str, Any]] = {}
        if exists:
            if record_mode == "all":
                try:
                    self._previous = _read_cache(self.path)
                except JudgeCassetteError:
                    pass  # an unreadable cache is what a whole re-recording replaces
            else:
                self._answers = _read_cache(self.path)
        # What the file held when this judge read it: on saving, anything else the file holds was
        # written since by another judge of the same cache (two providers in one test) and is kept.
        self._loaded = dict(self._previous or self._answers)
        self._changed = False
        self._dry_run_counted: set[str] = set()  # prompts a dry run has counted, asked or held
        # read here, not bound as a default: a test may shorten the module's interval
        self._clock = SaveClock(SAVE_EVERY_SECONDS if save_every is None else save_every)

    def __repr__(self) -> str:
        return f"CachedJudge({self.provider!r}, cache={str(self.path)!r})"

    # -- the judge protocol the metrics call ------------------------------------------------------

    def grade_all(self, items: Sequence[JudgmentRequest]) -> list[Judgment]:
        provider = self.provider
        return asyncio.run(
            self._judge_all(
                items,
                "grade",
                lambda q, query, d, doc: graded_prompt(query, doc),
                lambda q, query, d, doc: provider.grade(query, doc),
            )
        )

    def verdict_all(
        self, items: Sequence[JudgmentRequest], temporal_focus: dict[str, str | None] | None = None
    ) -> list[Judgment]:
        focus, provider = temporal_focus or {}, self.provider
        return asyncio.run(
            self._judge_all(
                items,
                "verdict",
                lambda q, query, d, doc: verdict_prompt(query, doc, focus.get(q)),
                lambda q, query, d, doc: provider.verdict(query, doc, focus.get(q)),
            )
        )

    def coverage_all(
        self, items: Sequence[JudgmentRequest], periods: Mapping[str, CrossPeriod]
    ) -> list[Judgment]:
        """T-Coverage's judgments, from the provider's ``coverage`` (see
        :class:`CoverageProvider`)."""
        coverage = getattr(self.provider, "coverage", None)
        if not callable(coverage):
            raise JudgeError(
                f"the judge provider {self.provider!r} has no coverage() method: T-Coverage asks "
                "which periods a document covers (see CoverageProvider in "
                "pytest_tempoeval.judge.custom)"
            )

        def period(query_id: str, doc_id: str) -> CrossPeriod:
            found = periods.get(query_id)
            if found is None:
                raise JudgeError(
                    f"judging doc {doc_id!r} for query {query_id!r}: no baseline and comparison "
                    "period given for this query (T-Coverage needs both)"
                )
            return found

        def prompt(query_id: str, query: str, doc_id: str, document: str) -> str:
            cross = period(query_id, doc_id)
            return coverage_prompt(
                query, document, cross.temporal_focus, cross.baseline, cross.comparison
            )

        def ask(query_id: str, query: str, doc_id: str, document: str) -> Awaitable[Any]:
            cross = period(query_id, doc_id)
            asked: Awaitable[Any] = coverage(
                query, document, cross.baseline, cross.comparison, cross.temporal_focus
            )
            return asked

        return asyncio.run(self._judge_all(items, "coverage", prompt, ask))

    def save(self, complete: bool = False) -> None:
        """Write the cache if anything new was answered (atomic replace, sorted for clean diffs).

        ``complete``: the test's judging finished; only then does ``all`` drop old answers it did
        not ask again."""
        if not self._changed:
            return
        started = time.monotonic()
        kept = {} if complete else self._previous
        merged = self._written_by_others() | kept | self._answers
        answers = [merged[key] for key in sorted(merged)]
        text = json.dumps({"version": CACHE_VERSION, "answers": answers}, indent=1)
        write_atomically(self.path, text + "\n")
        self._changed = False
        self._clock.saved(started)

    def _written_by_others(self) -> dict[str, dict[str, Any]]:
        """The answers another judge of this cache saved since this one read it: paid for, so
        never replaced. A file that cannot be read now holds nothing to keep."""
        try:
            current = _read_cache(self.path) if self.path.is_file() else {}
        except JudgeCassetteError:
            return {}
        return {key: entry for key, entry in current.items() if self._loaded.get(key) != entry}

    # -- judging ----------------------------------------------------------------------------------

    async def _judge_all(
        self,
        items: Sequence[JudgmentRequest],
        kind: str,
        prompt_of: Callable[[str, str, str, str], str],
        ask_of: Callable[[str, str, str, str], Awaitable[Any]],
    ) -> list[Judgment]:
        """Every item's answer: from the cache by (model, kind, ``prompt_of(*item)``), else asked
        of the provider (``ask_of(*item)``) and read as ``kind`` asks."""
        keyed = []
        for item in items:
            prompt = prompt_of(*item)
            keyed.append((self._key(kind, prompt), prompt, item))
        unique = {key: prompt for key, prompt, _ in keyed}
        missing = sorted(prompt for key, prompt in unique.items() if key not in self._answers)
        if self.dry_run:
            stop = count_dry_run(
                self.stats, self._dry_run_counted, unique.values(), missing, kind, str(self.path)
            )
            if stop is not None:
                raise stop
        if missing and not self.recording:
            raise JudgeCassetteError(
                f"{len(missing)} judgments are not in {self.path} (record mode "
                f"{self.record_mode!r}); record them with --tempoeval-record-mode=new_episodes"
            )
        limit = asyncio.Semaphore(self.max_concurrency)
        pending: dict[str, asyncio.Future[int]] = {}

        async def answer(key: str, item: JudgmentRequest) -> int:
            if key in self._answers:
                self.stats.replayed += 1
                return int(self._answers[key]["value"])
            if key not in pending:
                pending[key] = asyncio.ensure_future(self._ask(limit, key, kind, item, ask_of))
            else:
                self.stats.cache_hits += 1
            return await pending[key]

        try:
            values = await asyncio.gather(*(answer(key, item) for key, _, item in keyed))
        except JudgeError as error:
            if isinstance(error, JudgeBudgetSpent) and self.budget is not None:
                # Requests already sent are paid for: let them finish, and keep their answers.
                await asyncio.gather(*pending.values(), return_exceptions=True)
                still = sum(1 for key in unique if key not in self._answers)
                raise budget_spent(self.budget, still, len(unique)) from None
            for future in pending.values():
                future.cancel()
            await asyncio.gather(*pending.values(), return_exceptions=True)
            raise
        return [
            Judgment(item[0], item[2], value, prompt_hash=prompt_hash(prompt))
            for (_, prompt, item), value in zip(keyed, values, strict=True)
        ]

    async def _ask(
        self,
        limit: asyncio.Semaphore,
        key: str,
        kind: str,
        item: JudgmentRequest,
        ask_of: Callable[[str, str, str, str], Awaitable[Any]],
    ) -> int:
        query_id, _, doc_id, _ = item
        where = f"judging doc {doc_id!r} for query {query_id!r} (model {self.model})"
        problem = ""
        for _ in range(2):  # an invalid answer is asked once more
            if self.budget is not None and not self.budget.take():
                raise budget_spent(self.budget, 1, 1)
            async with limit:
                try:
                    raw: Any = await ask_of(*item)
                except Exception as error:  # the provider's failure, named; never a 0
                    raise JudgeError(f"{where}: the provider failed: {error!r}") from error
            self.stats.asked += 1
            value = _answered(raw, kind)
            if value is not None:
                self._answers[key] = {
                    "key": key,
                    "model": self.model,
                    "kind": kind,
                    "query_id": query_id,
                    "doc_id": doc_id,
                    "value": value,
                }
                self._changed = True
                if self._clock.due():
                    self.save()  # what is paid for is on disk before the run can be killed
                return value
            problem = f"{kind} {raw!r} is {_EXPECTED_ANSWER[kind]}"
        raise NoValidAnswer(f"{where}: the provider gave no valid answer in 2 tries ({problem})")

    def _key(self, kind: str, prompt: str) -> str:
        """(model, prompt): the seed prompt the inputs make, so any change to them is a miss."""
        return hashlib.sha256(f"{self.model}\n{kind}\n{prompt}".encode()).hexdigest()


def _valid(value: Any, kind: str) -> int | None:
    """A stored answer's value, or None when it is not one ``kind`` can hold (coverage: the
    COVERS_* flags, 0..3)."""
    if kind == "verdict":
        return int(value) if isinstance(value, bool) or value in (0, 1) else None
    top = COVERS_BASELINE | COVERS_COMPARISON if kind == "coverage" else 4
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= top:
        return None
    return value


def _answered(raw: Any, kind: str) -> int | None:
    """A provider's answer as the value stored, or None when it is not a valid one: coverage is a
    pair of bools (covers the baseline, covers the comparison period), kept as COVERS_* flags."""
    if kind != "coverage":
        return _valid(raw, kind)
    if not isinstance(raw, (tuple, list)) or len(raw) != 2:
        return None
    baseline, comparison = raw
    if not (isinstance(baseline, bool) and isinstance(comparison, bool)):
        return None
    return (COVERS_BASELINE if baseline else 0) | (COVERS_COMPARISON if comparison else 0)


def _read_cache(path: Path) -> dict[str, dict[str, Any]]:
    """The cache's answers by key. A duplicate (a JSON key, or two answers under one key: which
    one is right?), an unknown kind or an invalid value is refused with its line; never the last
    one silently winning."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise JudgeCassetteError(f"{path}: cannot read the judgment cache ({error})") from None
    source = Source(path, JudgeCassetteError)
    problem = None
    data: object = None
    try:
        data = strict_json(text, source)
    except JudgeCassetteError as error:
        problem = str(error)
    if problem is not None:  # raised outside the handler: no "during handling..." chain
        raise JudgeCassetteError(f"{problem}. {_LEFT_AS_IT_IS}")
    answers = data.get("answers") if isinstance(data, dict) else None
    version = data.get("version") if isinstance(data, dict) else None
    if not isinstance(answers, list) or version != CACHE_VERSION:
        raise JudgeCassetteError(
            f"{path}: not a judgment cache: expected version {CACHE_VERSION} and an 'answers' list"
        )
    cache: dict[str, dict[str, Any]] = {}
    numbers: dict[str, int] = {}  # key -> its answer's index
    for number, entry in enumerate(answers):
        key = entry.get("key") if isinstance(entry, dict) else None
        if not isinstance(key, str):
            problem = f"answer {number + 1} has no 'key' string"
        elif (kind := entry.get("kind")) not in KINDS:
            problem = f"answer {key!r} has kind {kind!r}, expected 'grade', 'verdict' or 'coverage'"
        elif _valid(entry.get("value"), kind) is None:
            problem = f"answer {key!r} has {kind} {entry.get('value')!r}: {_EXPECTED[kind]}"
        elif key in numbers:
            first = _answer_line(text, source, numbers[key])
            problem = f"answer {key!r} appears twice (first at line {first}): which one is right?"
        else:
            cache[key], numbers[key] = entry, number
            continue
        line = _answer_line(text, source, number)
        raise JudgeCassetteError(located(path, line, f"{problem}. {_LEFT_AS_IT_IS}"))
    return cache


KINDS = ("grade", "verdict", "coverage")
_EXPECTED = {
    "grade": "not an integer 0..4",
    "verdict": "not a bool",
    "coverage": "not coverage flags 0..3",
}
# What a provider's answer must be, as its errors say it.
_EXPECTED_ANSWER = {
    **_EXPECTED,
    "coverage": "not a pair of bools (covers the baseline, covers the comparison period)",
}
_LEFT_AS_IT_IS = (
    "The file was left as it is: fix it (see its git history), or record it anew with "
    "--tempoeval-record-mode=all"
)


def _answer_line(text: str, source: Source, number: int) -> int | None:
    """The line of answer ``number``: read again with lines, only when an answer is refused."""
    answers = json_tree(text, source).get("answers")
    return answers.item_lines[number] if isinstance(answers, LineList) else None
