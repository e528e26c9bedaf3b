"""How llm mode gets its judgments: the judge protocol metrics call, and strict reading of replies.

A reply is valid JSON with an in-range value, or it is an error. TempoEval scores an unparsable
reply as 0, which silently turns a broken judge into a bad retriever; here an invalid reply is asked
once more, then raises :class:`~pytest_tempoeval.errors.NoValidAnswer` carrying the raw reply.

The metrics only need an object with :class:`Judge`'s methods; :class:`AnthropicJudge
<pytest_tempoeval.judge.anthropic_judge.AnthropicJudge>` is the shipped one.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pytest_tempoeval.errors import InvalidReply, JudgeDryRun, NoValidAnswer
from pytest_tempoeval.metrics.checks import keep_dry_run_stop

# (query id, query text, doc id, document text): one judgment to make.
JudgmentRequest = tuple[str, str, str, str]


@dataclass(frozen=True)
class Judgment:
    """One document judged for one query."""

    query_id: str
    doc_id: str
    value: int  # grade 0-4, verdict 0/1, or coverage flags (COVERS_BASELINE | COVERS_COMPARISON)
    # What a judge that reads replies knows beside the value (provenance, for a gold set): the
    # reply's reasoning and the hash of the prompt asked (data.provenance.prompt_hash). Not
    # compared: two judgments of the same pair with the same value are equal.
    reasoning: str | None = field(default=None, compare=False)
    prompt_hash: str | None = field(default=None, compare=False)


# A coverage judgment's value: which of a cross-period query's periods the document covers.
COVERS_BASELINE = 1
COVERS_COMPARISON = 2


@dataclass(frozen=True)
class CrossPeriod:
    """What the T-Coverage prompt asks about one query: its two periods as the prompt writes them
    (``str(FocusTime)``: ``"1990-1999"``) and its temporal focus (None: the prompt's default,
    ``change_over_time``)."""

    baseline: str
    comparison: str
    temporal_focus: str | None = None


class Judge(Protocol):
    """What llm-mode metrics ask of a judge."""

    model: str

    def grade_all(self, items: Sequence[JudgmentRequest]) -> list[Judgment]:
        """Grade every item 0-4 (the seed nDCG prompt), in order."""
        ...

    def verdict_all(
        self, items: Sequence[JudgmentRequest], temporal_focus: dict[str, str | None] | None = None
    ) -> list[Judgment]:
        """A 0/1 verdict for every item (the seed precision prompt), in order."""
        ...


class CoverageJudge(Protocol):
    """What T-Coverage asks of a judge (the shipped judges have it beside :class:`Judge`'s)."""

    model: str

    def coverage_all(
        self, items: Sequence[JudgmentRequest], periods: Mapping[str, CrossPeriod]
    ) -> list[Judgment]:
        """For every item, which periods of its query (``periods[query id]``) the document
        covers (TempoEval's TemporalCoverage prompt), as COVERS_* flags, in order."""
        ...


def judged(ask: Callable[[], list[Judgment]]) -> tuple[list[Judgment], str]:
    """The judge's answers to ``ask()``, and an empty string; or, when a dry run stopped the call
    and the running test collects such stops (:data:`.checks.dry_run_stops`), no answers and why.
    A call's stop is raised otherwise."""
    try:
        return ask(), ""
    except JudgeDryRun as stop:
        if not keep_dry_run_stop(stop):
            raise
        return [], str(stop)


_FENCED = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


def read_json_object(reply: str | dict[str, Any]) -> dict[str, Any]:
    if isinstance(reply, dict):
        return reply
    if not isinstance(reply, str):
        raise InvalidReply(f"expected text or a JSON object, got {type(reply).__name__}")
    fenced = _FENCED.match(reply)
    text = fenced.group(1) if fenced else reply.strip()
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise InvalidReply(f"not valid JSON ({error.msg} at line {error.lineno})") from None
    if not isinstance(value, dict):
        raise InvalidReply("the JSON is not an object")
    return value


def reply_reasoning(reply: str | dict[str, Any] | None) -> str | None:
    """The reasoning a valid reply gives (the graded prompt's ``reasoning``, the others'
    ``reason``), or None."""
    if reply is None:
        return None
    try:
        data = read_json_object(reply)
    except InvalidReply:
        return None
    for key in ("reasoning", "reason"):
        if isinstance(data.get(key), str):
            text: str = data[key]
            return text
    return None


def read_grade(reply: str | dict[str, Any]) -> int:
    """``relevance_score``: an integer 0..4 (4.0 is accepted, 3.5 is not)."""
    return _read_int(read_json_object(reply), "relevance_score", 0, 4)


def read_verdict(reply: str | dict[str, Any]) -> int:
    """``verdict``: 0 or 1."""
    return _read_int(read_json_object(reply), "verdict", 0, 1)


_COVERAGE_FIELDS = (("covers_baseline", COVERS_BASELINE), ("covers_comparison", COVERS_COMPARISON))


def read_coverage(reply: str | dict[str, Any]) -> int:
    """``covers_baseline`` and ``covers_comparison``: each a JSON ``true`` or ``false`` (TempoEval
    takes any truthy value, so its reading of ``"false"`` is covered), as COVERS_* flags."""
    data = read_json_object(reply)
    flags = 0
    for key, flag in _COVERAGE_FIELDS:
        if key not in data:
            raise InvalidReply(f"no {key!r} field")
        if not isinstance(data[key], bool):
            raise InvalidReply(f"{key} {data[key]!r} is not true or false")
        flags |= flag if data[key] else 0
    return flags


def _read_int(data: dict[str, Any], key: str, low: int, high: int) -> int:
    if key not in data:
        raise InvalidReply(f"no {key!r} field")
    value = data[key]
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)  # json reads NaN and Infinity
        or value != int(value)
    ):
        raise InvalidReply(f"{key} {value!r} is not an integer")
    if not low <= value <= high:
        raise InvalidReply(f"{key} {value!r} is outside {low}..{high}")
    return int(value)


async def ask_strictly(
    ask: Callable[[], Awaitable[Any]], read: Callable[[Any], int], where: str, attempts: int = 2
) -> int:
    """Ask, read; on an invalid reply ask once more; then raise NoValidAnswer with the raw reply."""
    problem, reply = "", None
    for _ in range(attempts):
        reply = await ask()
        try:
            return read(reply)
        except InvalidReply as error:
            problem = str(error)
    raise NoValidAnswer(
        f"{where}: the judge gave no valid answer in {attempts} tries ({problem}); "
        f"raw reply: {reply!r}"
    )
