"""Temporal diagnostics: the years each query was read as, and where in time its top k documents
are, for every measure on a gold set that gives its queries focus times (issue 28, item 4).

Two figures per query, over the documents of its top k that have a focus time:

- **mean offset**: the mean, over those documents, of (midpoint of the document's years - midpoint
  of the query's years), in years; the midpoint of a focus time is halfway between its first and
  last year. Negative: the documents are about an older period than the query; positive: newer.
- **from the future**: the share of those documents whose earliest year is after the query's latest
  year (a document about a later period than anything the query asks about).

A result's figures are the means of its counted queries' figures (each query weighs the same, as in
the score), over the queries that have them: a query without a focus time, or whose top k holds no
document with one, has no figure and is counted apart, never taken as 0. Documents without a focus
time are counted apart too. User reference: ``docs/focus-time.md`` ("Temporal diagnostics").

Computed only when an explanation, a report or a baseline asks
(``MetricResult.temporal_diagnostics``): scoring never pays for them. The focus times are the ones
the temporal measures use: the gold set's (given, or read from the text), and the run's for the
documents the gold set lacks; of a corpus read lazily (BEIR, ir_datasets) only the retrieved
documents are read.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from pytest_tempoeval.data.goldset import GoldSet
from pytest_tempoeval.data.run import Run
from pytest_tempoeval.metrics.alignment import ranked_rows

# Imported where the figures are computed: scoring imports this module, and a gold-mode evaluation
# of a qrels file loads neither (tests/test_cli_imports.py).
if TYPE_CHECKING:
    from pytest_tempoeval.data.focus_time import FocusTime


@dataclass(frozen=True)
class QueryTemporal:
    """One query's years and where its top k documents are in time."""

    years: FocusTime | None  # the years the query was read as (None: none given or found)
    k: int  # the ranks read
    retrieved: int  # documents in its top k
    dated: int  # of them, those with a focus time
    future: int  # of those, the ones whose earliest year is after the query's latest (0: no years)
    mean_offset: float | None  # None: the query has no years, or no document of its top k has

    @property
    def undated(self) -> int:
        """Documents of its top k without a focus time."""
        return self.retrieved - self.dated

    @property
    def future_share(self) -> float | None:
        return None if self.mean_offset is None else self.future / self.dated

    def to_dict(self) -> dict[str, Any]:
        """Plain data (reports, xdist)."""
        return {
            "years": None if self.years is None else str(self.years),
            "k": self.k,
            "retrieved": self.retrieved,
            "dated": self.dated,
            "future": self.future,
            "mean_offset": self.mean_offset,
            "future_share": self.future_share,
        }


@dataclass(frozen=True)
class TemporalDiagnostics:
    """A result's temporal figures: the means over its counted queries that have them."""

    k: int  # the ranks read
    mean_offset: float | None  # years, negative = older; None: no query has the figures
    future_share: float | None  # in [0, 1]
    queries: int  # counted queries with both figures
    without_years: int  # counted queries without a focus time
    without_dated: int  # counted queries with one, but no document with one in their top k
    retrieved: int  # documents in the top k of the counted queries with a focus time
    undated: int  # of them, those without a focus time
    per_query: Mapping[str, tuple[float, float]]  # query -> (mean offset, future share)

    def to_dict(self, per_query: bool = False) -> dict[str, Any]:
        """Plain data (reports, baselines); ``per_query`` adds each query's two figures."""
        data: dict[str, Any] = {
            "k": self.k,
            "mean_offset": self.mean_offset,
            "future_share": self.future_share,
            "queries": self.queries,
            "without_years": self.without_years,
            "without_dated": self.without_dated,
            "retrieved": self.retrieved,
            "undated": self.undated,
        }
        if per_query:
            pairs = sorted(self.per_query.items())
            data["per_query"] = {query: list(pair) for query, pair in pairs}
        return data


class QueryFigures:
    """Every gold query's figures, as arrays in gold order (one computation for the result and
    every query its explanation shows)."""

    def __init__(
        self,
        query_ids: Sequence[str],
        years: list[FocusTime | None],
        k: int,
        retrieved: np.ndarray,
        dated: np.ndarray,
        future: np.ndarray,
        offset_sum: np.ndarray,
    ) -> None:
        self.query_ids, self.years, self.k = query_ids, years, k
        self.retrieved, self.dated, self.future, self.offset_sum = (
            retrieved,
            dated,
            future,
            offset_sum,
        )
        self.has_years = np.array([ft is not None for ft in years], dtype=bool)

    def query(self, position: int) -> QueryTemporal:
        dated = int(self.dated[position])
        has_figures = bool(self.has_years[position]) and dated > 0
        return QueryTemporal(
            years=self.years[position],
            k=self.k,
            retrieved=int(self.retrieved[position]),
            dated=dated,
            future=int(self.future[position]),
            mean_offset=float(self.offset_sum[position]) / dated if has_figures else None,
        )

    def summary(self, counted: np.ndarray) -> TemporalDiagnostics:
        """The figures of the counted queries (``counted``: a mask in gold order)."""
        with_years = counted & self.has_years
        figured = with_years & (self.dated > 0)
        positions = np.flatnonzero(figured).tolist()
        offsets = (self.offset_sum[figured] / self.dated[figured]).tolist()
        shares = (self.future[figured] / self.dated[figured]).tolist()
        per_query = {
            self.query_ids[position]: (offset, share)
            for position, offset, share in zip(positions, offsets, shares, strict=True)
        }
        retrieved = int(self.retrieved[with_years].sum())
        return TemporalDiagnostics(
            k=self.k,
            mean_offset=math.fsum(offsets) / len(offsets) if offsets else None,
            future_share=math.fsum(shares) / len(shares) if shares else None,
            queries=len(positions),
            without_years=int((counted & ~self.has_years).sum()),
            without_dated=int((with_years & (self.dated == 0)).sum()),
            retrieved=retrieved,
            undated=retrieved - int(self.dated[with_years].sum()),
            per_query=per_query,
        )


def query_figures(run: Run, gold: GoldSet, k: int) -> QueryFigures | None:
    """Every gold query's figures over its top ``k`` in ``run`` (the run as the gold set scores
    it), or None when the gold set gives no query a focus time. Kept on the run."""
    return run.memo(("temporal_figures", gold, k), lambda: _query_figures(run, gold, k))


def query_figures_of(run: Run, gold: GoldSet, k: int) -> Callable[[], QueryFigures | None]:
    """:func:`query_figures`, computed when first called: what a result keeps (scoring never
    computes them; an explanation, a report or a baseline asks)."""
    return lambda: query_figures(run, gold, k)


def summary_of(figures: QueryFigures | None, counted: np.ndarray) -> TemporalDiagnostics | None:
    """A result's figures, over its counted queries (a mask in gold order); None without query
    focus times."""
    return None if figures is None else figures.summary(counted)


def _query_figures(run: Run, gold: GoldSet, k: int) -> QueryFigures | None:
    years = [focus or None for focus in gold.query_focus_times()]
    if not any(years):
        return None
    query_first = np.array([-1 if ft is None else ft.min for ft in years], dtype=np.int64)
    query_last = np.array([-1 if ft is None else ft.max for ft in years], dtype=np.int64)
    # the same rows the focus-time measures read at this depth
    rows = run.memo(("ranked_rows", gold, k), lambda: ranked_rows(run, gold, k))
    first, last = _document_spans(run, gold, rows)
    retrieved = rows >= 0
    dated = retrieved & (first > 0)  # years are >= 1: 0 marks no focus time
    has_years = query_first[:, None] > 0
    # The convention (docs/focus-time.md): offset = midpoint of the document's years - midpoint of
    # the query's years, the midpoint halfway between the first and last year; negative = older.
    offset = (first + last) / 2 - ((query_first + query_last) / 2)[:, None]
    # From the future: the document's earliest year is after the query's latest year.
    future = dated & has_years & (first > query_last[:, None])
    return QueryFigures(
        gold.query_ids,
        years,
        k,
        retrieved.sum(axis=1),
        dated.sum(axis=1),
        future.sum(axis=1),
        np.where(dated & has_years, offset, 0.0).sum(axis=1),
    )


def _document_spans(run: Run, gold: GoldSet, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """[queries, k] first and last year of the focus time of each retrieved document (0: none
    known, or past the end of the ranking). A gold document has the gold set's focus time; a
    document the gold set lacks has the run's (a date in the retriever's metadata, else its text),
    as the focus-time measures read them."""
    from pytest_tempoeval.data.corpus import LazyDocuments

    if isinstance(gold.documents, LazyDocuments):
        return _spans_read_one_by_one(run, gold, rows)
    from pytest_tempoeval.metrics.focus_index import retrieved_focus_times

    retrieved = retrieved_focus_times(run, gold)
    codes = retrieved.codes(rows)
    known = [*retrieved.index.universe, *retrieved.extras]
    # one entry more, 0, for code -1 (unknown, past the end)
    first_of = np.array([*(ft.min for ft in known), 0], dtype=np.int64)
    last_of = np.array([*(ft.max for ft in known), 0], dtype=np.int64)
    return first_of[codes], last_of[codes]


def _spans_read_one_by_one(
    run: Run, gold: GoldSet, rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """A corpus read on demand: only the retrieved documents are read, not the whole corpus."""
    valid = rows >= 0
    unique_rows, inverse = np.unique(rows[valid], return_inverse=True)
    first_of = np.zeros(unique_rows.size + 1, dtype=np.int64)  # last entry: unknown
    last_of = np.zeros(unique_rows.size + 1, dtype=np.int64)
    ids = run.table.ids_of(unique_rows) if unique_rows.size else []
    for position, doc in enumerate(ids):
        focus = focus_time_of(run, gold, doc)
        if focus:  # a non-empty focus time has a first and a last year
            first_of[position], last_of[position] = focus.min or 0, focus.max or 0
    codes = np.full(rows.shape, unique_rows.size, dtype=np.int64)
    codes[valid] = inverse.ravel()
    return first_of[codes], last_of[codes]


def focus_time_of(run: Run, gold: GoldSet, doc: str) -> FocusTime | None:
    """One document's focus time as the temporal measures read it: the gold set's for a gold
    document, else the run's (a date in the retriever's metadata, else its text); None or empty
    when none is known."""
    document = gold.documents.get(doc)
    if document is not None:
        return document.focus_time
    focus = run.focus_times.get(doc)
    if focus is None and doc in run.texts:
        from pytest_tempoeval.data.focus_time import FocusTime

        focus = FocusTime.from_text(run.texts[doc])
    return focus


def document_years(run: Run, gold: GoldSet, docs: Sequence[str]) -> dict[str, FocusTime | None]:
    """The focus time of each of ``docs`` (None: none known), for the reports' rankings."""
    return {doc: focus_time_of(run, gold, doc) or None for doc in docs}
