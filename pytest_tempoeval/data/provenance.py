"""Who judged a (query, document) pair, and the grade scale judgments are written on.

A gold set's judgment is an integer grade (a human's, the default) or a mapping that says where it
came from (``docs/gold-set.md``)::

    relevant:
      d1: 3
      d9: {grade: 2, source: "llm:claude-haiku-5-5", reasoning: "...", prompt_hash: "3f2a..."}

:class:`Provenance` holds the mapping's ``source``, ``reasoning`` and ``prompt_hash``;
:func:`read_judgment` reads one such value of a file, with the usual ``path:line:`` errors. The
grade scale (``grade_scale: [low, high]``, default 0 to the set's largest grade) is what the LLM
judge's 0-4 grades are mapped onto (:func:`judge_grade_on_scale`): by ``tempoeval pool``, by
``fill_unjudged`` and by the patches of ``--tempoeval-propose-gold``.
"""

from __future__ import annotations

import hashlib
import numbers
from dataclasses import dataclass
from typing import Any

from pytest_tempoeval.data.readers.structured import LineDict, LineList, shown
from pytest_tempoeval.data.values import MAX_GRADE, did_you_mean, grade_problem
from pytest_tempoeval.errors import GoldSetError, located

HUMAN = "human"  # the source of a plain grade
LLM_PREFIX = "llm:"  # "llm:<model>": the source of a judgment an LLM judge made
JUDGMENT_KEYS = ("grade", "source", "reasoning", "prompt_hash")
JUDGE_SCALE = (0, 4)  # the LLM judge's grades (the seed prompt's 0-4)
PROMPT_HASH_DIGITS = 16  # hex digits of sha256: names a prompt, guards against no adversary


@dataclass(frozen=True)
class Provenance:
    """Where a judgment came from: ``source`` is ``human`` or ``llm:<model>``; an LLM's judgment
    keeps the judge's ``reasoning`` and the hash of the prompt it answered (:func:`prompt_hash`)."""

    source: str = HUMAN
    reasoning: str | None = None
    prompt_hash: str | None = None

    @property
    def is_human(self) -> bool:
        return self.source == HUMAN

    @property
    def model(self) -> str | None:
        """The LLM's model for an ``llm:<model>`` source, else None."""
        return self.source[len(LLM_PREFIX) :] if self.source.startswith(LLM_PREFIX) else None


def llm_source(model: str) -> str:
    """The ``source`` of a judgment ``model`` made: ``llm:<model>``."""
    return f"{LLM_PREFIX}{model}"


def prompt_hash(prompt: str) -> str:
    """The first 16 hex digits of the prompt's sha256: which prompt (and so which prompt style,
    query and document text) a recorded judgment answered."""
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()[:PROMPT_HASH_DIGITS]


def source_problem(source: object) -> str | None:
    """Why ``source`` cannot be a judgment's source, or None when it can."""
    if isinstance(source, str):
        if source == HUMAN:
            return None
        model = source[len(LLM_PREFIX) :] if source.startswith(LLM_PREFIX) else None
        if model and model == model.strip() and not any(c.isspace() for c in model):
            return None
    return (
        f"source {shown(source)} is neither 'human' nor 'llm:<model>' "
        "(e.g. 'llm:claude-haiku-5-5'); write one of those, or leave source out (human)"
    )


def provenance_problem(provenance: object) -> str | None:
    """Why ``provenance`` (built in Python) cannot be a judgment's, or None when it can."""
    if not isinstance(provenance, Provenance):
        return f"provenance must be a Provenance, got {shown(provenance)}"
    problem = source_problem(provenance.source)
    if problem is not None:
        return problem
    for name in ("reasoning", "prompt_hash"):
        value = getattr(provenance, name)
        if value is not None and not isinstance(value, str):
            return f"{name} must be a string, got {shown(value)}"
    return None


def read_judgment(
    value: Any, path: str, line: int | None, owner: str, doc_id: str
) -> tuple[Any, Provenance | None]:
    """A judgment's value in a file: a grade, returned as it is (the caller checks it), or a
    mapping, returned as its grade and its :class:`Provenance` (None for a human's: a plain grade
    and ``{grade: 3, source: human}`` are the same judgment)."""
    if not isinstance(value, LineDict):
        if isinstance(value, LineList):
            raise GoldSetError(
                located(
                    path,
                    line,
                    f"{owner}: the judgment of doc {doc_id!r} is a list; write a grade (3) or a "
                    "mapping ({grade: 3, source: 'llm:<model>'})",
                )
            )
        return value, None
    where = f"{owner}: the judgment of doc {doc_id!r}"
    for key in value:
        if key not in JUDGMENT_KEYS:
            message = f"{where}: {did_you_mean(str(key), JUDGMENT_KEYS)}"
            raise GoldSetError(located(path, value.key_lines.get(key) or line, message))
    if "grade" not in value:
        raise GoldSetError(located(path, line, f"{where} has no 'grade'; add 'grade: <0, 1, ...>'"))
    source = value.get("source", HUMAN)
    problem = source_problem(source)
    if problem is not None:
        raise GoldSetError(
            located(path, value.key_lines.get("source") or line, f"{where}: {problem}")
        )
    texts = {}
    for key in ("reasoning", "prompt_hash"):
        text = value.get(key)
        if text is not None and not isinstance(text, str):
            raise GoldSetError(
                located(
                    path,
                    value.key_lines.get(key) or line,
                    f"{where}: {key} must be a string, got {shown(text)}; quote it",
                )
            )
        texts[key] = text
    if source == HUMAN and not any(texts.values()):
        return value["grade"], None
    return value["grade"], Provenance(source, texts["reasoning"], texts["prompt_hash"])


# -- the grade scale --------------------------------------------------------------------------


def read_grade_scale(value: Any, path: str, line: int | None) -> tuple[int, int] | None:
    """A file's ``grade_scale: [low, high]`` (None when absent)."""
    if value is None:
        return None
    low_high = list(value) if isinstance(value, LineList) else None
    problem = grade_scale_problem(low_high if low_high is not None else value)
    if problem is not None:
        raise GoldSetError(located(path, line, problem))
    assert low_high is not None
    return int(low_high[0]), int(low_high[1])


def grade_scale_problem(scale: object) -> str | None:
    """Why ``scale`` cannot be a grade scale ``[low, high]``, or None when it can."""
    rule = (
        f"grade_scale must be [low, high]: two integers from 0 to {MAX_GRADE:,}, low < high "
        "(e.g. [0, 3])"
    )
    if not isinstance(scale, (list, tuple)) or len(scale) != 2:
        return f"{rule}, got {shown(scale)}"
    if any(grade_problem(bound, negative=False) is not None for bound in scale):
        return f"{rule}, got {shown(list(scale))}"
    low, high = (int(bound) for bound in scale)
    if not low < high:
        return f"{rule}, got [{low}, {high}]"
    return None


def judge_grade_on_scale(judge_grade: int, scale: tuple[int, int]) -> int:
    """The LLM judge's grade ``judge_grade`` (0-4) on the gold set's ``scale`` ``(low, high)``:
    ``low + round((high - low) * g / 4)``, halves rounded up; for the usual ``low = 0`` that is
    ``round(g * high / 4)``: on [0, 3], 0 1 2 3 4 become 0 1 2 2 3; on [0, 1], 0 0 1 1 1."""
    if (
        isinstance(judge_grade, bool)
        or not isinstance(judge_grade, numbers.Integral)
        or not JUDGE_SCALE[0] <= judge_grade <= JUDGE_SCALE[1]
    ):
        raise ValueError(f"a judge grade is an integer from 0 to 4, got {judge_grade!r}")
    low, high = scale
    span = JUDGE_SCALE[1] - JUDGE_SCALE[0]
    # round half up, in integers: floor(x + 1/2) with x = (high - low) * g / span
    return low + (2 * (high - low) * int(judge_grade) + span) // (2 * span)
