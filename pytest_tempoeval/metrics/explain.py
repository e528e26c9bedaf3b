"""Explanations of metric results as text: the summary line, the worst queries with what they
retrieved and what an ideal ranking holds, and why a threshold comparison failed.

pytest shows only 8 lines of an explanation outside ``-vv`` (and in CI), so a failure's first line
carries the essentials: metric, score, threshold, counted/excluded queries and the worst query ids.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from pytest_tempoeval.constants import WORST_EXPLAINED, WORST_NAMED

if TYPE_CHECKING:
    from pytest_tempoeval.data.focus_time import FocusTime
    from pytest_tempoeval.metrics.diagnostics import QueryTemporal, TemporalDiagnostics


@dataclass(frozen=True)
class QueryExplanation:
    """What one query retrieved and what an ideal ranking would have had."""

    query_id: str
    retrieved: list[tuple[str, float | None]]  # (doc id, relevance; None = unknown) in rank order
    ideal: list[tuple[str, float]]  # the best documents known, best first
    note: str = ""
    # computes its temporal diagnostics when first read (:attr:`temporal`): the plugin explains
    # the worst queries of every check, and only a report that shows them needs them
    temporal_of: Callable[[], QueryTemporal | None] | None = field(
        default=None, repr=False, compare=False
    )
    # llm mode: the judge's reason for each retrieved document's grade (doc id -> its words)
    reasons: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)
    # the focus times of documents, looked up when a report asks (the measures' own rule:
    # the gold set's, else the run's)
    years_of: Callable[[Sequence[str]], dict[str, FocusTime | None]] | None = field(
        default=None, repr=False, compare=False
    )

    @property
    def temporal(self) -> QueryTemporal | None:
        """Its years and where its top k are in time; None when the gold set gives no query a
        focus time."""
        return None if self.temporal_of is None else self.temporal_of()

    def document_years(self, docs: Sequence[str]) -> dict[str, FocusTime | None]:
        """The focus time of each of ``docs`` (None: none known), as the temporal measures read
        them; empty when the result cannot tell."""
        return {} if self.years_of is None else self.years_of(docs)


class Explained(Protocol):
    """What an explanation reads of a result (a MetricResult)."""

    mode: str
    k: int | None

    @property
    def label(self) -> str: ...
    @property
    def per_query(self) -> Mapping[str, float]: ...
    @property
    def excluded(self) -> Mapping[str, str]: ...
    @property
    def extra(self) -> Mapping[str, Any]: ...
    @property
    def median(self) -> float: ...
    @property
    def temporal_diagnostics(self) -> TemporalDiagnostics | None: ...
    def __float__(self) -> float: ...
    def worst(self, n: int) -> list[str]: ...
    def explain_query(self, query_id: str) -> QueryExplanation | None: ...
    def exclusion_failure(self) -> str | None: ...
    def unknown_ids_failure(self) -> str | None: ...
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
    filled = filled_note(result)
    if filled:
        text += f", {filled}"
    unknown = unknown_ids_note(result, examples=False)
    if unknown:
        text += f", {unknown}"
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
    """What every report notes beside a score: what it left out, rankings shorter than k, and
    retrieved ids the gold set does not know."""
    omitted = left_out(result.excluded, result.extra.get("ignored_run_queries") or [])
    notes = [omitted, unknown_ids_note(result), short_note(result.extra), filled_note(result)]
    return "; ".join(filter(None, notes))


def filled_note(result: object) -> str:
    """``5 grades filled by the judge (claude-haiku-5-5), 3 unjudged without text (not
    guessed)``: a gold-mode result whose holes the judge graded (``fill_unjudged=``); empty
    otherwise."""
    filled = getattr(result, "filled", None)
    return "" if filled is None else str(filled.summary())


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
    unknown = result.extra.get("unknown_ids")
    if unknown:
        shown = ", ".join(map(repr, result.extra.get("unknown_examples") or []))
        what = (
            unknown_ids_hint(result)
            if unknown == result.extra.get("retrieved_ids")
            else "neither judged for a query nor declared under documents"
        )
        lines.append(f"  unknown ids (e.g. {shown}): {what}")
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
    temporal = result.temporal_diagnostics
    if temporal is not None:
        lines.append(f"  {temporal_line(temporal.to_dict())}")
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
    if detail.temporal is not None:
        lines.append(f"{indent}{query_temporal_line(detail.temporal.to_dict())}")
    return lines


def provenance_note(judged: list[tuple[str, int, str]], shown: int = 5) -> str:
    """Who judged the documents an explanation shows, when not a person (doc id, grade,
    source): ``judged by an LLM: d9 grade 2 (llm:claude-haiku-5-5)``; empty for none."""
    if not judged:
        return ""
    parts = [f"{doc} grade {grade} ({source})" for doc, grade, source in judged[:shown]]
    more = f", and {len(judged) - shown} more" if len(judged) > shown else ""
    return f"judged by an LLM: {', '.join(parts)}{more}"


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


def unknown_ids_note(result: Explained, examples: bool = True) -> str:
    """``5 of 160 retrieved ids in the top 10 unknown to the gold set (e.g. 'a1', 'b2')``: ids it
    neither judges nor declares (outside gold mode, with no text or date in the run either), in
    the ranks the score read. Empty when every one is known."""
    unknown, retrieved = result.extra.get("unknown_ids", 0), result.extra.get("retrieved_ids", 0)
    if not unknown:
        return ""
    top = f" in the top {result.k}" if result.k is not None else ""
    if unknown == retrieved:
        text = f"none of the {retrieved} retrieved ids{top} is known to the gold set"
    else:
        text = f"{unknown} of {retrieved} retrieved ids{top} unknown to the gold set"
    return text + _examples(result) if examples else text


def _examples(result: Explained) -> str:
    shown = result.extra.get("unknown_examples") or []
    return f" (e.g. {', '.join(map(repr, shown))})" if shown else ""


def unknown_ids_hint(result: Explained) -> str:
    """What to do about retrieved ids the gold set does not know."""
    gold = result.extra.get("gold_id_examples") or []
    unknown = result.extra.get("unknown_examples") or []
    hint = f"the gold set's ids look like {', '.join(map(repr, gold))}; " if gold else ""
    if unknown and all(doc.isdigit() for doc in unknown) and not all(d.isdigit() for d in gold):
        hint += "a number id is read as its decimal text (3 is '3'), so map positions to ids; "
    hint += (
        "give the run the gold set's document ids (Run.from_retriever(..., id_key='doc_id') reads "
        "them from each result's metadata)"
    )
    if result.mode != "gold":
        hint += ", or their texts"
    return hint


def unknown_ids_problem(result: Explained) -> str:
    """The error of a result whose retrieved ids the gold set knows none of, and what to do."""
    retrieved = result.extra.get("run_retrieved_ids", 0)
    return (
        f"none of the {retrieved} retrieved ids is known to the gold set{_examples(result)}; "
        f"{unknown_ids_hint(result)}"
    )


def explain_comparison(result: Explained, op: str, threshold: float, verbose: int) -> list[str]:
    """Lines explaining why ``result op threshold`` failed; more queries with ``-vv``."""
    counted = len(result.per_query)
    omitted = left_out(result.excluded, result.extra.get("ignored_run_queries") or [])
    head = (
        f"{result.label} [{result.mode}] = {format_score(float(result))}, needed {op} "
        f"{threshold:g}; {counted} quer{'y' if counted == 1 else 'ies'} counted, "
        f"{omitted if result.excluded else '0 excluded' + ('; ' + omitted if omitted else '')}"
    )
    if result.exclusion_failure():
        head += "; fails because nothing may be left out (fail_on_excluded)"
    unknown = unknown_ids_note(result, examples=False)
    if unknown:
        head += f"; {unknown}"
        if result.unknown_ids_failure():
            head += ", which fails it (fail_on_unknown_ids)"
    short = short_note(result.extra)
    if short:
        head += f"; {short}"
    worst = result.worst(WORST_NAMED)
    if worst:
        head += "; worst: " + ", ".join(f"{q} {result.per_query[q]:.3f}" for q in worst)
    n_shown = len(result.per_query) if verbose >= 2 else WORST_EXPLAINED
    lines = [head, *result.detail_lines(n_shown)]
    if verbose >= 2:
        lines.append("per query (all, worst first):")
        lines += [f"  {q}: {result.per_query[q]:.6f}" for q in result.worst(len(result.per_query))]
    return lines


# -- temporal diagnostics (issue 28): the words, from plain data (reports carry it from workers)


def format_offset(years: float) -> str:
    """A mean offset in years, signed, 1 decimal: ``-6.2`` (older), ``+1.5`` (newer), ``+0.0``."""
    shown = round(years, 1) or 0.0  # no "-0.0"
    return f"{shown:+.1f}"


def format_years(years: str | None, runs_shown: int = 4) -> str:
    """A query's years compactly: ``1990-1999``, ``2008, 2012``, ``none read``; a long list of
    ranges is cut after ``runs_shown`` with the count of the rest."""
    if not years:
        return "none read"
    runs = years.split(", ")
    if len(runs) <= runs_shown:
        return years
    return f"{', '.join(runs[:runs_shown])} and {len(runs) - runs_shown} more"


def query_temporal_line(figures: Mapping[str, Any]) -> str:
    """``years: 1990-1999; top 10: mean offset -3.5 years, 1 of 8 from the future, 2 without a
    focus time`` (:meth:`~.diagnostics.QueryTemporal.to_dict`)."""
    years, top = figures["years"], f"top {figures['k']}"
    if years is None:
        return "years: none read (no focus time given or found in its text), so no offsets"
    if not figures["retrieved"]:
        return f"years: {format_years(years)}; {top}: nothing retrieved"
    if not figures["dated"]:
        documents = _count(figures["retrieved"], "document", "documents")
        return f"years: {format_years(years)}; {top}: no focus time in its {documents}"
    text = (
        f"years: {format_years(years)}; {top}: mean offset {format_offset(figures['mean_offset'])}"
        f" years, {figures['future']} of {figures['dated']} from the future"
    )
    undated = figures["retrieved"] - figures["dated"]
    return text + (f", {undated} without a focus time" if undated else "")


def temporal_line(figures: Mapping[str, Any]) -> str:
    """``years: the top 10 are on average 3.2 years older than the query (mean offset -3.2),
    12.5% from the future, over 40 queries; ...`` with the queries and documents without a focus
    time counted (:meth:`~.diagnostics.TemporalDiagnostics.to_dict`)."""
    queries, top = figures["queries"], f"top {figures['k']}"
    if queries:
        offset = format_offset(figures["mean_offset"])
        text = (
            f"years: the {top} are on average {_offset_words(offset)} (mean offset {offset}), "
            f"{figures['future_share']:.1%} from the future, over "
            f"{_count(queries, 'query', 'queries')}"
        )
    else:
        text = f"years: no counted query has a focus time and a document with one in its {top}"
    apart = []
    if figures["without_years"]:
        apart.append(f"{_count(figures['without_years'], 'query', 'queries')} without a focus time")
    if figures["without_dated"]:
        apart.append(
            f"{_count(figures['without_dated'], 'query', 'queries')} whose {top} has no document "
            "with one"
        )
    if figures["undated"]:
        apart.append(
            f"{figures['undated']} of {figures['retrieved']} retrieved documents without a focus "
            "time"
        )
    return "; ".join([text, *apart])


def _offset_words(offset: str) -> str:
    """``3.2 years older than the query`` from a formatted offset (``-3.2``)."""
    if offset == "+0.0":
        return "0.0 years from the query"
    return f"{offset[1:]} years {'older' if offset[0] == '-' else 'newer'} than the query"
