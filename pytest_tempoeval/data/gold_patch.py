"""Proposed judgments for a gold set, one per line, for a person to review: the gold patch.

``--tempoeval-propose-gold=PATH`` writes one (the LLM judge's grades of the holes a run had, at or
above the relevance level); a reviewer deletes the lines they reject; ``tempoeval gold merge GOLD
PATCH -o OUT`` adds the rest to the gold set, each with its provenance (``source: llm:<model>``,
the reasoning, the prompt hash)::

    # tempoeval gold patch for fixtures/gold/elections.yaml: delete the lines you reject, then
    #   tempoeval gold merge fixtures/gold/elections.yaml THIS_FILE -o OUT
    version: 1
    gold: fixtures/gold/elections.yaml
    judgments:
    - {query: q1, document: d9, grade: 2, judge_grade: 3, model: claude-haiku-5-5, ...}

``grade`` is on the gold set's scale (the judge's ``judge_grade``, 0-4, mapped onto it). Reading a
patch checks every line and names ``path:line:`` for anything wrong.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_tempoeval.data.gold_writer import quoted, yaml_id
from pytest_tempoeval.data.provenance import JUDGE_SCALE
from pytest_tempoeval.data.readers.structured import (
    LineDict,
    LineList,
    Source,
    SourceInt,
    read_text,
    shown,
    version_problem,
    yaml_tree,
)
from pytest_tempoeval.data.values import did_you_mean, grade_problem, id_problem
from pytest_tempoeval.errors import GoldSetError, located
from pytest_tempoeval.files import write_user_file

PATCH_KEYS = ("version", "gold", "judgments")
LINE_KEYS = ("query", "document", "grade", "judge_grade", "model", "prompt_hash", "reasoning")
REQUIRED_KEYS = ("query", "document", "grade", "model")
MAX_PATCH_BYTES = 512 * 1024 * 1024


@dataclass(frozen=True)
class ProposedJudgment:
    """One judgment the LLM judge proposes for a gold set: ``grade`` on the gold set's scale,
    ``judge_grade`` the judge's own (0-4); ``line``: where a read patch has it."""

    query_id: str
    doc_id: str
    grade: int
    judge_grade: int | None = None
    reasoning: str | None = None
    model: str = ""
    prompt_hash: str | None = None
    line: int | None = field(default=None, compare=False)


def patch_line(judgment: ProposedJudgment) -> str:
    """One judgment as its patch line (a YAML flow mapping)."""
    fields = [
        f"query: {yaml_id(judgment.query_id)}",
        f"document: {yaml_id(judgment.doc_id)}",
        f"grade: {judgment.grade}",
    ]
    if judgment.judge_grade is not None:
        fields.append(f"judge_grade: {judgment.judge_grade}")
    fields.append(f"model: {yaml_id(judgment.model)}")
    if judgment.prompt_hash is not None:
        fields.append(f"prompt_hash: {quoted(judgment.prompt_hash)}")
    if judgment.reasoning is not None:
        fields.append(f"reasoning: {quoted(judgment.reasoning)}")
    return "- {" + ", ".join(fields) + "}"


def patch_text(judgments: Iterable[ProposedJudgment], gold_path: str | Path) -> str:
    """The patch: its header, then one line per judgment, sorted by (query id, doc id) so that the
    same judgments give the same file whatever order they were found in."""
    gold = str(gold_path)
    ordered = sorted(judgments, key=lambda j: (j.query_id, j.doc_id))
    lines = [
        f"# tempoeval gold patch for {gold}: delete the lines you reject, then",
        f"#   tempoeval gold merge {gold} THIS_FILE -o OUT",
        "version: 1",
        f"gold: {quoted(gold)}",
        "judgments:" if ordered else "judgments: []",
        *(patch_line(judgment) for judgment in ordered),
    ]
    return "\n".join(lines) + "\n"


def write_patch(
    judgments: Iterable[ProposedJudgment], path: str | Path, gold_path: str | Path
) -> None:
    """Write the patch to ``path`` (a path the user gave: atomically when a regular file)."""
    write_user_file(Path(path), patch_text(judgments, gold_path))


@dataclass(frozen=True)
class GoldPatch:
    """A read patch: the gold set it was written for (as its header says) and its judgments."""

    gold: str | None
    judgments: list[ProposedJudgment]


def read_patch(path: str | Path) -> list[ProposedJudgment]:
    """The judgments of a patch file, each checked; a problem is a GoldSetError naming
    ``path:line:``."""
    return read_gold_patch(path).judgments


def read_gold_patch(path: str | Path) -> GoldPatch:
    """The patch file with its ``gold:`` (:func:`read_patch` gives the judgments alone)."""
    path = Path(path)
    text = read_text(path, GoldSetError, "patch file")
    if len(text) > MAX_PATCH_BYTES:
        raise GoldSetError(located(path, None, "patch file larger than 512 MiB: split it"))
    if all(not line.strip() or line.lstrip().startswith("#") for line in text.splitlines()):
        raise GoldSetError(
            located(
                path,
                1,
                "the patch file is empty: no 'judgments:' (a patch whose every line was rejected "
                "keeps 'judgments:' with nothing under it)",
            )
        )
    tree = yaml_tree(text, Source(path, GoldSetError))
    where = str(path)
    if not isinstance(tree, LineDict):
        raise GoldSetError(
            located(
                path,
                getattr(tree, "line", 1),
                "a gold patch is a mapping with 'version: 1', 'gold:' and 'judgments:', got "
                f"{shown(tree)}",
            )
        )
    for key in tree:
        if key not in PATCH_KEYS:
            message = f"the patch: {did_you_mean(str(key), PATCH_KEYS)}"
            raise GoldSetError(located(path, tree.key_lines.get(key), message))
    problem = version_problem(tree, path)
    if problem:
        raise GoldSetError(problem)
    gold = tree.get("gold")
    if gold is not None and not isinstance(gold, str):
        raise GoldSetError(
            located(path, tree.key_lines.get("gold"), f"gold must be a path, got {shown(gold)}")
        )
    if "judgments" not in tree:
        raise GoldSetError(
            located(path, tree.line, "the patch has no 'judgments:' list; add 'judgments: []'")
        )
    section = tree["judgments"]
    line = tree.key_lines.get("judgments")
    if section is None:  # every line deleted: "judgments:" with nothing under it
        return GoldPatch(gold, [])
    if not isinstance(section, LineList):
        raise GoldSetError(
            located(
                path,
                line,
                "'judgments' must be a list, one judgment a line ('- {query: q1, document: d9, "
                f"grade: 2, model: ...}}'), got {shown(section)}",
            )
        )
    judgments: list[ProposedJudgment] = []
    first: dict[tuple[str, str], int | None] = {}
    for item, item_line in zip(section, section.item_lines):
        judgment = _judgment(item, where, item_line or line)
        pair = (judgment.query_id, judgment.doc_id)
        if pair in first:
            raise GoldSetError(
                located(
                    path,
                    judgment.line,
                    f"query {pair[0]!r}, doc {pair[1]!r} is proposed twice (first at line "
                    f"{first[pair]}); keep one line",
                )
            )
        first[pair] = judgment.line
        judgments.append(judgment)
    return GoldPatch(gold, judgments)


def _judgment(item: Any, path: str, line: int | None) -> ProposedJudgment:
    if not isinstance(item, LineDict):
        raise GoldSetError(
            located(
                path,
                line,
                f"a patch line must be a mapping ({{query: q1, document: d9, grade: 2, model: "
                f"...}}), got {shown(item)}",
            )
        )
    for key in item:
        if key not in LINE_KEYS:
            raise GoldSetError(
                located(path, item.key_lines.get(key) or line, did_you_mean(str(key), LINE_KEYS))
            )
    missing = [key for key in REQUIRED_KEYS if item.get(key) is None]
    if missing:
        raise GoldSetError(
            located(
                path,
                line,
                f"the judgment has no {', '.join(repr(key) for key in missing)} "
                f"(a line needs {', '.join(REQUIRED_KEYS)}); fix the line or delete it",
            )
        )
    query_id = _id(item["query"], path, line, "query id")
    doc_id = _id(item["document"], path, line, "document id")
    owner = f"query {query_id!r}, doc {doc_id!r}"
    grade = item["grade"]
    problem = grade_problem(grade, negative=False)
    if problem is not None:
        raise GoldSetError(located(path, line, f"{owner}: grade {shown(grade)} {problem}"))
    judge_grade = item.get("judge_grade")
    if judge_grade is not None and (
        isinstance(judge_grade, bool)
        or not isinstance(judge_grade, int)
        or not JUDGE_SCALE[0] <= judge_grade <= JUDGE_SCALE[1]
    ):
        raise GoldSetError(
            located(
                path,
                line,
                f"{owner}: judge_grade {shown(judge_grade)} is not the judge's grade, an integer "
                "from 0 to 4",
            )
        )
    model = item["model"]
    if not isinstance(model, str) or not model.strip() or any(c.isspace() for c in model):
        raise GoldSetError(
            located(path, line, f"{owner}: model {shown(model)} is not a model name; quote it")
        )
    texts = []
    for key in ("reasoning", "prompt_hash"):
        value = item.get(key)
        if value is not None and not isinstance(value, str):
            raise GoldSetError(
                located(
                    path, line, f"{owner}: {key} must be a string, got {shown(value)}; quote it"
                )
            )
        texts.append(value)
    return ProposedJudgment(
        query_id,
        doc_id,
        int(grade),
        None if judge_grade is None else int(judge_grade),
        texts[0],
        model,
        texts[1],
        line=line,
    )


def _id(value: Any, path: str, line: int | None, what: str) -> str:
    text = value.source if isinstance(value, SourceInt) else value
    problem = id_problem(text)
    if problem is not None:
        raise GoldSetError(located(path, line, f"{what} {problem}"))
    return str(text)
