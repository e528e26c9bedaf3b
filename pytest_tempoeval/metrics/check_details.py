"""A check's explanations as plain data, for the reports: the worst queries, the queries that
dropped in a baseline check, each with what it retrieved, the judge's reasons and the years of its
documents. Plain data because it travels from xdist workers to the controller (``CheckRow``)."""

from __future__ import annotations

from typing import Any

from pytest_tempoeval.constants import REGRESSED_LISTED, SCORE_TOLERANCE, WORST_EXPLAINED
from pytest_tempoeval.metrics.checks import Check

MAX_REASON_CHARS = (
    600  # a judge's reason longer than this is cut in reports (the cassette keeps it)
)


def shown_reason(words: str) -> str:
    """A judge's reason as the reports show it: on one line, cut at MAX_REASON_CHARS."""
    text = " ".join(words.split())
    return text if len(text) <= MAX_REASON_CHARS else text[: MAX_REASON_CHARS - 1] + "…"


def worst_explained(result: Any, temporal: bool = False) -> list[dict[str, Any]]:
    """The worst queries with what was retrieved and what an ideal ranking holds (plain data: it
    travels from xdist workers); with ``temporal``, their years, figures and each document's
    years too."""
    worst = []
    for query_id in result.worst(WORST_EXPLAINED):
        detail = result.explain_query(query_id)
        entry = {
            "query": query_id,
            "score": result.per_query[query_id],
            "retrieved": [list(pair) for pair in detail.retrieved] if detail else [],
            "ideal": [list(pair) for pair in detail.ideal] if detail else [],
            "note": detail.note if detail else "",
        }
        worst.append(entry | ranking_details(detail, temporal))
    return worst


def ranking_details(detail: Any, temporal: bool, also: list[str] | None = None) -> dict[str, Any]:
    """What the reports show beside a query's rankings: the judge's reason for each grade (llm
    mode), and with ``temporal`` the query's figures and each document's years (of the retrieved
    and ideal documents, and of ``also``: a baseline's old top k)."""
    if detail is None:
        return {}
    shown: dict[str, Any] = {}
    if detail.reasons:
        shown["reasons"] = {doc: shown_reason(words) for doc, words in detail.reasons.items()}
    if temporal:
        figures = detail.temporal
        if figures is not None:
            shown["temporal"] = figures.to_dict()
            docs = [doc for doc, _ in [*detail.retrieved, *detail.ideal]] + (also or [])
            years = detail.document_years(list(dict.fromkeys(docs)))
            shown["doc_years"] = {doc: None if ft is None else str(ft) for doc, ft in years.items()}
    return shown


def dropped_explained(result: Any, check: Check, temporal: bool) -> list[dict[str, Any]]:
    """A baseline check's queries that dropped, worst first (REGRESSED_LISTED at most), each with
    its baseline and new score, what it retrieved now, and the baseline's top k when stored. A
    query the result no longer counts scores 0, as in the gate."""
    baseline = check.baseline_scores or {}
    if check.baseline is None or not baseline:
        return []
    current = result.per_query
    dropped = sorted(
        (
            (query, old, current.get(query, 0.0))
            for query, old in baseline.items()
            if current.get(query, 0.0) < old - SCORE_TOLERANCE
        ),
        key=lambda item: (item[2] - item[1], item[0]),
    )[:REGRESSED_LISTED]
    stored = check.baseline_top
    changes = []
    for query, old, new in dropped:
        try:
            detail = result.explain_query(query)
        except KeyError:  # no longer in the gold set
            detail = None
        old_top = None if stored is None else stored.get(query)
        entry: dict[str, Any] = {
            "query": query,
            "baseline": old,
            "score": new,
            "counted": query in current,
            "retrieved": [list(pair) for pair in detail.retrieved] if detail else [],
            # None: the baseline stores no rankings (or not this query's: past its bound)
            "baseline_top": old_top,
            "rankings_stored": stored is not None,
        }
        changes.append(entry | ranking_details(detail, temporal, old_top))
    return changes


def temporal_figures(result: Any) -> dict[str, Any] | None:
    """A result's temporal diagnostics as plain data (None: its gold set gives no query a focus
    time, or it was not computed from one)."""
    diagnostics = getattr(result, "temporal_diagnostics", None)
    return None if diagnostics is None else diagnostics.to_dict()
