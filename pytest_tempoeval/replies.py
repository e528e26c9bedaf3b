"""Strict parsing of judge replies: a reply is valid JSON with an in-range value, or it is an error.

TempoEval scores an unparsable reply as 0, which silently turns a broken judge into a bad retriever.
Here an invalid reply is asked once more, then raises :class:`JudgeError` carrying the raw reply.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Awaitable, Callable
from typing import Any

from .errors import JudgeError

_FENCED = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


class InvalidReply(ValueError):
    """One reply could not be read; the caller may ask again."""


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


def read_grade(reply: str | dict[str, Any]) -> int:
    """``relevance_score``: an integer 0..4 (4.0 is accepted, 3.5 is not)."""
    return _read_int(read_json_object(reply), "relevance_score", 0, 4)


def read_verdict(reply: str | dict[str, Any]) -> int:
    """``verdict``: 0 or 1."""
    return _read_int(read_json_object(reply), "verdict", 0, 1)


def _read_int(data: dict[str, Any], key: str, low: int, high: int) -> int:
    if key not in data:
        raise InvalidReply(f"no {key!r} field")
    value = data[key]
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value != int(value)
    ):
        raise InvalidReply(
            f"{key} {value!r} is not an integer"
        )  # NaN and Infinity too (json reads them)
    if not low <= value <= high:
        raise InvalidReply(f"{key} {value!r} is outside {low}..{high}")
    return int(value)


class NoValidAnswer(JudgeError):
    """Every try gave a reply that is not a valid judgment (the message carries the last one)."""


async def ask_strictly(
    ask: Callable[[], Awaitable[Any]], read: Callable[[Any], int], where: str, attempts: int = 2
) -> int:
    """Ask, read; on an invalid reply ask once more; then raise JudgeError with the raw reply."""
    problem, reply = "", None
    for _ in range(attempts):
        reply = await ask()
        try:
            return read(reply)
        except InvalidReply as error:
            problem = str(error)
    raise NoValidAnswer(
        f"{where}: the judge gave no valid answer in {attempts} tries ({problem}); raw reply: {reply!r}"
    )
