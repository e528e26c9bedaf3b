"""Aligning a run with a gold set: which run query is which gold query, where each ranking's rows
are, and which retrieved document carries which judgment.

Everything here depends only on the (run, gold set) pair, so it is computed once per pair and kept
on the run (:meth:`Run.memo <pytest_tempoeval.data.run.Run.memo>`).
"""

from __future__ import annotations

import numpy as np

from pytest_tempoeval.data.columns import (
    HashIndex,
    encode_ids,
    id_words,
    match_within_groups,
    widen,
)
from pytest_tempoeval.data.goldset import GoldSet
from pytest_tempoeval.data.run import Run
from pytest_tempoeval.errors import RunError, located

# Up to this many id comparisons per retrieved row, judgments are matched by comparing ids within
# each query; beyond, through a hash index of all judgments.
_COMPARISONS_PER_ROW = 64


def run_of_gold(run: Run, gold: GoldSet) -> np.ndarray:
    """[gold queries] index of each gold query in the run, -1 when the run lacks it.

    Run queries the gold set lacks are left out, as trec_eval leaves them out (a TREC DL run covers
    more queries than were judged); :func:`ignored_run_queries` names them for the reports.
    """

    def align() -> np.ndarray:
        position = gold.query_position
        run_of = np.full(len(position), -1, dtype=np.int64)
        for run_index, query_id in enumerate(run.query_ids):
            gold_index = position.get(query_id)
            if gold_index is not None:
                run_of[gold_index] = run_index
        return run_of

    return run.memo(("run_of_gold", gold), align)


def ignored_run_queries(run: Run, gold: GoldSet) -> list[str]:
    """The run's queries that the gold set lacks, in run order."""

    def find() -> list[str]:
        position = gold.query_position
        return [query_id for query_id in run.query_ids if query_id not in position]

    return run.memo(("ignored_run_queries", gold), find)


def scored_run(run: Run, gold: GoldSet) -> tuple[Run, list[tuple[str, bool]]]:
    """The run as ``gold`` scores it, and the results dropped for that: (query id, whether the
    gold set judges the dropped document relevant to it, a sign the rule does not fit the data).

    A gold set read with BEIR's rule (``ignore_identical_ids``) drops every retrieved document
    whose id is its query's id, as BEIR's evaluator does: on ArguAna and Quora the query is itself
    a corpus document, and retrieving it says nothing about the retriever.
    """
    if not gold.ignore_identical_ids:
        return run, []

    def without_identical_ids() -> tuple[Run, list[tuple[str, bool]]]:
        table = run.table
        query_words = id_words(encode_ids(table.keys))
        width = max(query_words.shape[1], table.words.shape[1])
        groups = table.group_of_rows()
        identical = np.all(widen(table.words, width) == widen(query_words, width)[groups], axis=1)
        dropped = []
        for row in np.flatnonzero(identical).tolist():
            query_id = table.keys[groups[row]]
            grade = gold.queries[query_id].relevant.get(query_id, 0) if query_id in gold else 0
            dropped.append((query_id, grade > 0))
        return (run.without_rows(identical) if dropped else run), dropped

    return run.memo(("scored_run", gold), without_identical_ids)


def check_no_ignored_queries(run: Run, gold: GoldSet) -> None:
    """``strict=True``: a run query the gold set lacks is an error, not a silent omission."""
    ignored = ignored_run_queries(run, gold)
    if ignored:
        query_id = ignored[0]
        more = f" (and {len(ignored) - 1} more)" if len(ignored) > 1 else ""
        raise RunError(
            located(
                run.source,
                run.line_of(query_id),
                f"query {query_id!r}{more} is not in the gold set {gold.path} "
                f"({len(gold)} queries; strict=True); remove it from the run or add it to the gold "
                "set",
            )
        )


def ranked_rows(run: Run, gold: GoldSet, depth: int) -> np.ndarray:
    """[gold queries, depth] run-table rows in rank order, -1 past the end of each ranking."""
    run_of = run_of_gold(run, gold)
    table = run.table
    present = run_of >= 0
    groups = np.maximum(run_of, 0)
    lengths = np.where(present, table.lengths[groups], 0)
    # int32 when it fits: this matrix is [queries, depth], e.g. 10 million entries at depth 100.
    dtype = np.int32 if table.doc_ids.size < np.iinfo(np.int32).max else np.int64
    ranks = np.arange(depth, dtype=dtype)
    rows = table.offsets[groups].astype(dtype)[:, None] + ranks[None, :]
    rows[ranks[None, :] >= lengths[:, None]] = -1
    return rows


def judgment_of_rows(run: Run, gold: GoldSet) -> np.ndarray:
    """Row of the gold judgment table for every run row (-1: unjudged).

    Short judgment lists (the usual case) are matched by comparing ids within each query; long ones
    (hundreds of judgments per query) through a hash index of the gold set's judgments.
    """

    def join() -> np.ndarray:
        table, judgments = run.table, gold.judgments
        run_of = run_of_gold(run, gold)
        gold_of_run = np.full(len(table.keys), -1, dtype=np.int64)
        present = run_of >= 0
        gold_of_run[run_of[present]] = np.flatnonzero(present)
        judged_lengths = np.where(
            gold_of_run >= 0, judgments.lengths[np.maximum(gold_of_run, 0)], 0
        )
        comparisons = int((table.lengths * judged_lengths).sum())
        if comparisons <= _COMPARISONS_PER_ROW * max(1, table.doc_ids.size):
            starts = judgments.offsets[np.maximum(gold_of_run, 0)]
            return _match_ragged(
                table.offsets, table.words, starts, judged_lengths, judgments.words
            )
        index = gold.memo(
            "judgment_index",
            lambda: HashIndex(id_words(judgments.doc_ids), judgments.group_of_rows()),
        )
        return index.find(table.words, np.repeat(gold_of_run, table.lengths))

    return run.memo(("judgment_of_rows", gold), join)


def _match_ragged(
    left_offsets: np.ndarray,
    left_words: np.ndarray,
    starts: np.ndarray,
    lengths: np.ndarray,
    right_words: np.ndarray,
) -> np.ndarray:
    """:func:`match_within_groups` where right group ``i`` is ``right[starts[i]:starts[i] +
    lengths[i]]`` of one table."""
    # Gather each group's judgments into group order so offsets are contiguous.
    ends = np.cumsum(lengths)
    order = np.repeat(starts, lengths) + (
        np.arange(int(lengths.sum())) - np.repeat(ends - lengths, lengths)
    )
    if order.size == 0:
        return np.full(left_words.shape[0], -1, dtype=np.int64)
    offsets = np.concatenate(([0], ends))
    matched = match_within_groups(left_offsets, left_words, offsets, right_words[order])
    return np.where(matched >= 0, order[np.maximum(matched, 0)], -1)
