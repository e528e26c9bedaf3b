"""Explanations of metric results as text: the summary line, the worst queries with what they
retrieved and what an ideal ranking holds, and why a threshold comparison failed.

pytest shows only 8 lines of an explanation outside ``-vv`` (and in CI), so a failure's first line
carries the essentials: metric, score, threshold, counted/excluded queries and the worst query ids.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from pytest_tempoeval.constants import WORST_EXPLAINED, WORST_NAMED


@dataclass(frozen=True)
class QueryExplanation:
    """What one query retrieved and what an ideal ranking would have had."""

    query_id: str
    retrieved: list[tuple[str, float | None]]  # (doc id, relevance; None = unknown) in rank order
    ideal: list[tuple[str, float]]  # the best documents known, best first
    note: str = ""


class Explained(Protocol):
    """What an explanation reads of a result (a MetricResult)."""

    label: str
    mode: str

    @property
    def per_query(self) -> Mapping[str, float]: ...
    @property
    def excluded(self) -> Mapping[str, str]: ...
    @property
    def extra(self) -> Mapping[str, Any]: ...
    @property
    def median(self) -> float: ...
    def __float__(self) -> float: ...
    def worst(self, n: int) -> list[str]: ...
    def explain_query(self, query_id: str) -> QueryExplanation | None: ...
    def exclusion_failure(self) -> str | None: ...
    def detail_lines(self, n: int) -> list[str]: ...


def format_score(value: float | None) -> str:
    """A score as every report shows it: 4 decimals, or "nan" for a result with no counted query."""
    return "nan" if value is None or math.isnan(value) else f"{value:.4f}"


def format_relevance(value: float | None) -> str:
    """A document's relevance: "?" unknown, integers plainly, else 3 significant digits."""
    if value is None:
        return "?"
    return str(int(value)) if value == int(value) else f"{value:.3g}"


def summary_line(result: Explained) -> str:
    counted, excluded = len(result.per_query), len(result.excluded)
    text = (
        f"{result.label} [{result.mode}] = {format_score(float(result))} over {counted} "
        f"quer{'y' if counted == 1 else 'ies'}"
    )
    if excluded:
        text += f" ({excluded} excluded)"
    if result.per_query:
        text += f", median {result.median:.4f}"
    unjudged = result.extra.get("unjudged")
    if unjudged:
        text += f", {unjudged} retrieved docs unjudged"
    missing = result.extra.get("missing_queries")
    if missing:
        text += f", {missing} gold queries missing from the run (scored 0)"
    ignored = result.extra.get("ignored_run_queries")
    if ignored:
        text += (
            f", {_count(len(ignored), 'run query', 'run queries')} not in the gold set (ignored)"
        )
    short = short_note(result.extra)
    if short:
        text += f", {short}"
    dropped = result.extra.get("identical_ids_dropped")
    if dropped:
        text += (
            f", {_count(dropped, 'retrieved document', 'retrieved documents')} dropped for having "
            "their query's id (BEIR's ignore_identical_ids)"
        )
        judged = result.extra.get("identical_ids_judged_relevant")
        if judged:
            text += f", {len(judged)} of them judged relevant (see the warning)"
    return text


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def short_note(extra: Mapping[str, Any]) -> str:
    """``ranking shorter than k=50 for 40 queries (depth 10)``, or empty: a retriever asked for
    fewer than k documents scores lower (P@k divides by k), and that must not look like a worse
    retriever silently."""
    short = extra.get("short_rankings")
    if not short:
        return ""
    shortest, longest = short["shortest"], short["longest"]
    depth = f"depth {shortest}" if shortest == longest else f"depth {shortest}-{longest}"
    queries = _count(short["queries"], "query", "queries")
    return f"ranking shorter than k={short['k']} for {queries} ({depth})"


def score_notes(result: Explained) -> str:
    """What every report notes beside a score: what it left out, and rankings shorter than k."""
    omitted = left_out(result.excluded, result.extra.get("ignored_run_queries") or [])
    return "; ".join(filter(None, [omitted, short_note(result.extra)]))


def explain_text(result: Explained, n: int = WORST_EXPLAINED) -> str:
    """The summary line, the excluded queries by reason, then the ``n`` worst queries explained."""
    lines = [summary_line(result)]
    reasons: dict[str, list[str]] = {}
    for query_id, reason in result.excluded.items():
        reasons.setdefault(reason, []).append(query_id)
    for reason, ids in reasons.items():
        lines.append(f"  excluded ({reason}): {_ids(ids)}")
    ignored = result.extra.get("ignored_run_queries")
    if ignored:
        lines.append(
            f"  ignored (run queries not in the gold set; strict=True refuses): {_ids(ignored)}"
        )
    if result.extra.get("identical_ids_dropped"):
        lines.append(
            "  dropped: retrieved documents whose id is their query's (BEIR's evaluator does the "
            "same; GoldSet.from_beir(..., ignore_identical_ids=False) keeps them)"
        )
    short = result.extra.get("short_rankings")
    if short:
        shown = ", ".join(f"{query} ({length})" for query, length in short["examples"])
        more = (
            f", ... ({short['queries']} in all)"
            if short["queries"] > len(short["examples"])
            else ""
        )
        lines.append(
            f"  shorter than k={short['k']} (the missing ranks count as not relevant; retrieve "
            f"k documents or lower k): {shown}{more}"
        )
    judged = result.extra.get("identical_ids_judged_relevant")
    if judged:
        who = _count(len(judged), "query judges its own id", "queries judge their own ids")
        lines.append(
            f"  warning: {who} relevant ({_ids(judged)}): these ids are not BEIR's "
            "query-is-a-document kind; load with ignore_identical_ids=False"
        )
    for query_id in result.worst(n):
        lines.extend(query_lines(result, query_id))
    return "\n".join(lines)


def _ids(ids: list[str], shown: int = 5) -> str:
    more = f", ... ({len(ids)} in all)" if len(ids) > shown else ""
    return ", ".join(ids[:shown]) + more


def query_lines(result: Explained, query_id: str) -> list[str]:
    """A query's score, what it retrieved (doc(relevance)) and what an ideal ranking holds."""
    score = result.per_query[query_id]
    detail = result.explain_query(query_id)
    if detail is None:
        return [f"  {query_id}: {score:.4f}"]
    retrieved = " ".join(f"{doc}({format_relevance(rel)})" for doc, rel in detail.retrieved)
    ideal = " ".join(f"{doc}({format_relevance(rel)})" for doc, rel in detail.ideal)
    indent = f"  {' ' * len(query_id)}          "
    lines = [
        f"  {query_id}: {score:.4f}  retrieved: {retrieved or '(nothing retrieved)'}",
        f"{indent}ideal: {ideal or '(none)'}",
    ]
    if detail.note:
        lines.append(f"{indent}{detail.note}")
    return lines


def left_out(excluded: Mapping[str, str], ignored: list[str], shown: int = 3) -> str:
    """What a score leaves out, by reason: ``1 excluded: no focus time (q7)``; empty if nothing.

    Every report shows it: an excluded query or an ignored run query is never silent."""
    reasons: dict[str, list[str]] = {}
    for query_id, reason in excluded.items():
        reasons.setdefault(reason, []).append(query_id)
    parts = [f"{reason} ({_ids(ids, shown)})" for reason, ids in reasons.items()]
    text = f"{len(excluded)} excluded: {'; '.join(parts)}" if excluded else ""
    if ignored:
        run_queries = _count(len(ignored), "run query", "run queries")
        text += (
            "; " if text else ""
        ) + f"{run_queries} not in the gold set ({_ids(ignored, shown)})"
    return text


def explain_comparison(result: Explained, op: str, threshold: float, verbose: int) -> list[str]:
    """Lines explaining why ``result op threshold`` failed; more queries with ``-vv``."""
    counted = len(result.per_query)
    omitted = left_out(result.excluded, result.extra.get("ignored_run_queries") or [])
    head = (
        f"{result.label} [{result.mode}] = {format_score(float(result))}, needed {op} "
        f"{threshold:g}; {counted} quer{'y' if counted == 1 else 'ies'} counted, "
        f"{omitted if result.excluded else '0 excluded' + ('; ' + omitted if omitted else '')}"
    )
    short = short_note(result.extra)
    if short:
        head += f"; {short}"
    if result.exclusion_failure():
        head += "; fails because nothing may be left out (fail_on_excluded)"
    worst = result.worst(WORST_NAMED)
    if worst:
        head += "; worst: " + ", ".join(f"{q} {result.per_query[q]:.3f}" for q in worst)
    n_shown = len(result.per_query) if verbose >= 2 else WORST_EXPLAINED
    lines = [head, *result.detail_lines(n_shown)]
    if verbose >= 2:
        lines.append("per query (all, worst first):")
        lines += [f"  {q}: {result.per_query[q]:.6f}" for q in result.worst(len(result.per_query))]
    return lines
