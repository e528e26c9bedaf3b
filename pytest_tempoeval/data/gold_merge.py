"""Merging a reviewed gold patch into its gold set (``tempoeval gold merge GOLD PATCH -o OUT``).

Each line left in the patch becomes a judgment with its provenance (``source: llm:<model>``, the
judge's reasoning and prompt hash). The rules, stated once:

- A pair the gold set already judges keeps the gold set's judgment, whoever made it: a person's
  judgment is never replaced by an LLM's, and an LLM's already in the set was reviewed when it was
  merged. The patch's line is reported as not merged, never dropped silently. To change a judgment,
  edit the gold set.
- A query the gold set lacks, a document its ``documents:`` do not declare (when it declares any),
  or a grade off the gold set's scale is an error naming the patch's file and line, and what to
  do; nothing is merged then.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_tempoeval.data.gold_patch import ProposedJudgment
from pytest_tempoeval.data.goldset import GoldSet
from pytest_tempoeval.data.provenance import HUMAN, Provenance, llm_source
from pytest_tempoeval.errors import GoldSetError, located


@dataclass(frozen=True)
class NotMerged:
    """A patch line for a pair the gold set already judges: the gold set's grade and source stay."""

    proposed: ProposedJudgment
    grade: int
    source: str


@dataclass(frozen=True)
class MergeOutcome:
    gold: GoldSet  # the gold set with the merged judgments
    merged: list[ProposedJudgment]
    not_merged: list[NotMerged]


def merge_patch(
    gold: GoldSet, judgments: Sequence[ProposedJudgment], patch_path: str
) -> MergeOutcome:
    """``gold`` with ``judgments`` (read from ``patch_path``) added: see the module's rules."""
    queries = gold.queries
    low, high = gold.grade_scale
    scale_words = (
        f"[{low}, {high}]"
        if gold.declared_grade_scale is not None
        else f"[{low}, {high}] (it declares none: 0 to its largest grade)"
    )
    added: dict[str, dict[str, ProposedJudgment]] = {}
    merged, not_merged = [], []
    for judgment in judgments:
        where = f"query {judgment.query_id!r}, doc {judgment.doc_id!r}"
        query = queries.get(judgment.query_id)
        if query is None:
            raise GoldSetError(
                located(
                    patch_path,
                    judgment.line,
                    f"{where}: {gold.path} has no query {judgment.query_id!r}; delete the line, "
                    "or add the query to the gold set first (was the patch written for another "
                    "gold set?)",
                )
            )
        if gold.documents and judgment.doc_id not in gold.documents:
            raise GoldSetError(
                located(
                    patch_path,
                    judgment.line,
                    f"{where}: {gold.path} does not declare doc {judgment.doc_id!r} under "
                    "'documents:'; declare it (with its text), or delete the line",
                )
            )
        if not low <= judgment.grade <= high:
            raise GoldSetError(
                located(
                    patch_path,
                    judgment.line,
                    f"{where}: grade {judgment.grade} is off the grade scale of {gold.path}, "
                    f"{scale_words}; fix the grade, or declare a wider grade_scale in the gold "
                    "set",
                )
            )
        if judgment.doc_id in query.relevant:
            judged_by = query.provenance.get(judgment.doc_id)
            source = HUMAN if judged_by is None else judged_by.source
            not_merged.append(NotMerged(judgment, query.relevant[judgment.doc_id], source))
            continue
        added.setdefault(query.id, {})[judgment.doc_id] = judgment
        merged.append(judgment)
    new_queries = []
    for query in queries.values():
        more = added.get(query.id)
        if more:
            relevant = {**query.relevant, **{doc: j.grade for doc, j in more.items()}}
            provenance = {
                **query.provenance,
                **{
                    doc: Provenance(llm_source(j.model), j.reasoning, j.prompt_hash)
                    for doc, j in more.items()
                },
            }
            query = dataclasses.replace(query, relevant=relevant, provenance=provenance)
        new_queries.append(query)
    result = GoldSet(
        new_queries,
        gold.documents,
        name=gold.name,
        k=gold.k,
        path=gold.path,
        ignore_identical_ids=gold.ignore_identical_ids,
        grade_scale=gold.declared_grade_scale,
    )
    return MergeOutcome(result, merged, not_merged)
