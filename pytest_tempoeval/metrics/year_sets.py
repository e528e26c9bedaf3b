"""The years themselves, for TempoEval's focus-time set measures (T-YearP, T-YearR, T-Diversity,
T-AnchorF1): every focus time they read as year bitsets on one span, built from the gold set's
focus index and kept on the run for a (run, gold set) pair.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from pytest_tempoeval.data.focus_time import FocusTime
from pytest_tempoeval.data.goldset import GoldSet
from pytest_tempoeval.data.run import Run
from pytest_tempoeval.metrics.focus_index import focus_index, retrieved_focus_times
from pytest_tempoeval.metrics.jaccard import year_bitsets


class YearSets(NamedTuple):
    """Every focus time the set measures read, as year bitsets on one span: a union of bitsets
    counts its years exactly only if no year was clipped (``bits_and_sizes`` clips a retrieved
    document's years to the gold set's span, which Jaccard's counts allow and a union's do not)."""

    year_codes: np.ndarray  # [queries, depth] each rank's focus time: a row of year_bits (-1: none)
    query_codes: np.ndarray  # [queries] each query's focus time: a row of year_bits (-1: none)
    year_bits: np.ndarray  # [codes + 1, words] each code's years; the last row, none, is code -1
    anchor_years: np.ndarray  # [anchors, words] the queries' key_time_anchors, query after query
    anchor_offsets: np.ndarray  # [queries + 1] query q's anchors: rows offsets[q]:offsets[q + 1]
    collection_years: int  # distinct years of the gold set's documents


def year_sets(run: Run, gold: GoldSet, rows: np.ndarray) -> YearSets:
    """The years of the documents at ``rows`` (run-table rows, -1 past the end), of the gold
    set's queries and of their required anchors, on one span."""
    retrieved = retrieved_focus_times(run, gold)
    codes = retrieved.codes(rows)  # first: a document outside the gold set gets its code
    extras = retrieved.extras
    index = focus_index(gold)
    years = run.memo(("year_sets", gold, len(extras)), lambda: _year_sets(gold, list(extras)))
    return YearSets(codes, index.query_code, *years)


def _year_sets(
    gold: GoldSet, extras: list[FocusTime]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    index = focus_index(gold)
    per_query = [query.key_time_anchors for query in gold.queries.values()]
    anchors = [anchor for anchors in per_query for anchor in anchors]
    offsets = np.zeros(len(per_query) + 1, dtype=np.int64)
    np.cumsum([len(anchors) for anchors in per_query], out=offsets[1:])
    years = [year for ft in (*extras, *anchors) for year in (ft.min, ft.max) if year is not None]
    first, words = index.first_year, index.bits.shape[1]
    if index.universe:  # the gold set's span, widened to the others' years
        years += [first, first + 64 * words - 1]
    low, high = min(years, default=0), max(years, default=0)
    if low < first or high >= first + 64 * words or not index.universe:
        first, words = low, max(1, -(-(high - low + 1) // 64))
        universe, _ = year_bitsets(index.universe, first, words)
    else:  # nothing outside the gold set's span: its bitsets as they are
        universe = index.bits
    rows = [universe, year_bitsets(extras, first, words)[0], np.zeros((1, words), np.uint64)]
    documents = np.unique(index.doc_code[index.doc_code >= 0])
    collection = np.bitwise_or.reduce(universe[documents], axis=0) if documents.size else None
    return (
        np.concatenate(rows),
        year_bitsets(anchors, first, words)[0],
        offsets,
        0 if collection is None else int(np.bitwise_count(collection).sum()),
    )
