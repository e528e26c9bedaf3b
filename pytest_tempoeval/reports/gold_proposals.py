"""``--tempoeval-propose-gold=PATH``: the grades the LLM judge filled in gold mode
(``fill_unjudged=``, ``fill=llm``), at or above each call's relevance level, written once at the
session's end (by xdist's controller, with every worker's) as a gold patch for review
(:mod:`pytest_tempoeval.data.gold_patch`; ``tempoeval gold merge`` reads it).

- One line per (query, document): the same hole filled by several calls or tests is proposed once.
  Two different answers for one pair (two judge models, two prompt styles) keep the first by
  (model, prompt hash, grade) and are counted in the summary line.
- An existing file is never replaced unless ``--tempoeval-propose-gold-overwrite`` says so (checked
  before collection, and again here: the session may have run for hours).
- Grades filled for several gold sets: one patch each, ``PATH``'s name with the gold set's before
  its suffix (``proposals.elections.yaml``), since a patch names one gold set.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any


def write_proposals(
    proposals: Iterable[Mapping[str, Any]], path: str, *, overwrite: bool, root: Path
) -> list[str]:
    """Write the patch (or patches) and return what the terminal summary says of them, one line
    each."""
    from pytest_tempoeval.data.gold_patch import ProposedJudgment, write_patch

    by_gold: dict[str, dict[tuple[str, str], list[Mapping[str, Any]]]] = {}
    for proposal in proposals:
        pairs = by_gold.setdefault(_shown(proposal["gold"], root), {})
        pairs.setdefault((proposal["query"], proposal["document"]), []).append(proposal)
    if not by_gold:
        nothing = (
            "tempoeval: no grade the judge filled (fill_unjudged=, fill=llm) is at or above its "
            f"relevance level: nothing to propose, {path} not written"
        )
        return [nothing]
    lines = []
    targets = _targets(Path(path), sorted(by_gold))
    for gold, pairs in sorted(by_gold.items()):
        target = targets[gold]
        chosen, conflicts = [], 0
        for answers in pairs.values():
            ordered = sorted(answers, key=_answer_key)
            conflicts += len({_answer_key(answer) for answer in ordered}) > 1
            chosen.append(ordered[0])
        if not overwrite and os.path.lexists(target):
            lines.append(
                f"tempoeval: {target} exists, not replaced: {len(chosen)} proposed judgments for "
                f"{gold} not written (move it, or pass --tempoeval-propose-gold-overwrite)"
            )
            continue
        judgments = [
            ProposedJudgment(
                query_id=answer["query"],
                doc_id=answer["document"],
                grade=answer["grade"],
                judge_grade=answer["judge_grade"],
                reasoning=answer["reasoning"],
                model=answer["model"],
                prompt_hash=answer["prompt_hash"],
            )
            for answer in chosen
        ]
        try:
            write_patch(judgments, target, gold)
        except OSError as error:
            lines.append(f"tempoeval: the gold patch {target} was not written: {error}")
            continue
        line = (
            f"tempoeval: {len(judgments)} proposed judgments for {gold} written to {target}; "
            f"review them (delete the lines you reject), then: tempoeval gold merge {gold} "
            f"{target} -o OUT"
        )
        if conflicts:
            line += (
                f" ({conflicts} pairs were filled with different answers (judge model or prompt): "
                "the first kept)"
            )
        lines.append(line)
    return lines


def _answer_key(answer: Mapping[str, Any]) -> tuple[str, str, int]:
    return (answer["model"], answer["prompt_hash"] or "", answer["grade"])


def _shown(gold: str, root: Path) -> str:
    """The gold set's path as its patch names it: from the rootdir when inside it."""
    path = Path(gold)
    if path.is_absolute() and path.is_relative_to(root):
        return path.relative_to(root).as_posix()
    return gold


def _targets(path: Path, golds: list[str]) -> dict[str, Path]:
    """``path`` for one gold set; for several, ``path``'s name with each one's (its file's stem,
    numbered when two stems are alike) before the suffix."""
    if len(golds) == 1:
        return {golds[0]: path}
    targets: dict[str, Path] = {}
    for gold in golds:
        stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in Path(gold).stem) or "gold"
        name, number = f"{path.stem}.{stem}{path.suffix}", 2
        while path.with_name(name) in targets.values():
            name, number = f"{path.stem}.{stem}-{number}{path.suffix}", number + 1
        targets[gold] = path.with_name(name)
    return targets
