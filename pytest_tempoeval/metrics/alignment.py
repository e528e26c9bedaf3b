"""Aligning a run with a gold set: which run query is which gold query, where each ranking's rows
are, and which retrieved document carries which judgment.

Everything here depends only on the (run, gold set) pair, so it is computed once per pair and kept
on the run (:meth:`Run.memo <pytest_tempoeval.data.run.Run.memo>`).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from pytest_tempoeval.constants import WORST_EXPLAINED
from pytest_tempoeval.data.columns import (
    IdLookup,
    encode_ids,
    hash_words,
    id_words,
    join_within_groups,
    widen,
)
from pytest_tempoeval.data.goldset import GoldSet
from pytest_tempoeval.data.run import Run
from pytest_tempoeval.errors import RunError, located


def run_of_gold(run: Run, gold: GoldSet) -> np.ndarray:
    """[gold queries] index of each gold query in the run, -1 when the run lacks it.

    Run queries the gold set lacks are left out, as trec_eval leaves them out (a TREC DL run covers
    more queries than were judged); :func:`ignored_run_queries` names them for the reports.
    """

    def align() -> np.ndarray:
        position, query_ids = gold.query_position, run.query_ids
        gold_of = np.fromiter(  # C-level loop: a run may hold millions of queries
            map(position.get, query_ids, itertools.repeat(-1)), dtype=np.int64, count=len(query_ids)
        )
        run_of = np.full(len(position), -1, dtype=np.int64)
        in_gold = np.flatnonzero(gold_of >= 0)
        run_of[gold_of[in_gold]] = in_gold
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


def ranked_lengths(run: Run, gold: GoldSet) -> np.ndarray:
    """[gold queries] length of each ranking (0 for a query the run lacks)."""
    run_of = run_of_gold(run, gold)
    return np.where(run_of >= 0, run.table.lengths[np.maximum(run_of, 0)], 0)


def short_rankings(run: Run, gold: GoldSet, k: int) -> dict[str, Any] | None:
    """The gold queries whose ranking in the run is shorter than ``k`` (a query the run lacks is
    counted as missing, not here), for the reports: how many, the shortest and longest such
    ranking, and the first few (query id, length). None when every ranking reaches ``k``.

    P@k divides by k, as trec_eval does, so a retriever asked for fewer than k documents scores
    lower than it would with k: the score stays, and this makes it visible."""

    def find() -> dict[str, Any] | None:
        lengths = ranked_lengths(run, gold)
        short = np.flatnonzero((run_of_gold(run, gold) >= 0) & (lengths < k))
        if not short.size:
            return None
        depths = lengths[short]
        return {
            "k": k,
            "queries": int(short.size),
            "shortest": int(depths.min()),
            "longest": int(depths.max()),
            "examples": [
                [gold.query_ids[i], int(lengths[i])] for i in short[:WORST_EXPLAINED].tolist()
            ],
        }

    return run.memo(("short_rankings", gold, k), find)


def ranked_rows(
    run: Run,
    gold: GoldSet,
    depth: int,
    queries: np.ndarray | None = None,
    first_rank: int = 0,
) -> np.ndarray:
    """[gold queries, depth] run-table rows in rank order, -1 past the end of each ranking.

    ``queries`` (gold positions) and ``first_rank``: only those queries' ranks from
    ``first_rank`` to ``depth``.
    """
    run_of = run_of_gold(run, gold)
    lengths = ranked_lengths(run, gold)
    if queries is not None:
        run_of, lengths = run_of[queries], lengths[queries]
    table = run.table
    # int32 when it fits: this matrix is [queries, depth], e.g. 10 million entries at depth 100.
    dtype = np.int32 if table.n_rows < np.iinfo(np.int32).max else np.int64
    ranks = np.arange(first_rank, depth, dtype=dtype)
    rows = table.offsets[np.maximum(run_of, 0)].astype(dtype)[:, None] + ranks[None, :]
    rows[ranks[None, :] >= lengths[:, None]] = -1
    return rows


def judged_rows(run: Run, gold: GoldSet, depth: int) -> np.ndarray:
    """[gold queries, depth] row of the gold judgment table for the document at each rank (-1:
    unjudged, or past the end of the ranking).

    Only the ranks asked for are joined: nDCG@10 joins ten ranks per query, not whole rankings. The
    join is kept on the run and deepened when a later call asks for more ranks.
    """
    joined: list[np.ndarray] = run.memo(("judged_rows", gold), list)
    done = joined[0] if joined else np.zeros((len(gold.query_ids), 0), dtype=np.int64)
    if done.shape[1] < depth:
        rows = ranked_rows(run, gold, depth)[:, done.shape[1] :]
        done = np.hstack((done, judged_rows_of(run, gold, rows, np.arange(rows.shape[0]))))
        joined[:] = [done]
    return done[:, :depth]


def joined_depth(run: Run, gold: GoldSet) -> int:
    """How many ranks :func:`judged_rows` has joined and kept for this pair (0: none yet)."""
    joined: list[np.ndarray] = run.memo(("judged_rows", gold), list)
    return joined[0].shape[1] if joined else 0


def judged_rows_of(run: Run, gold: GoldSet, rows: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """Like :func:`judged_rows` for the run-table ``rows`` ([n, ranks], -1 past the end) of the
    gold queries at ``queries`` (ascending positions), not kept."""
    valid = rows >= 0
    counts = valid.sum(axis=1)
    if not counts.any():
        return np.full(rows.shape, -1, dtype=np.int64)
    judgments = gold.judgments
    hashes = gold.memo(
        "judgment_hashes", lambda: hash_words(judgments.words, judgments.group_of_rows())
    )
    left_counts = np.zeros(judgments.offsets.size - 1, dtype=np.int64)
    left_counts[queries] = counts
    every_rank = bool(counts.min() == rows.shape[1])  # no ranking ends early: no scatter needed
    # ranked_rows puts each ranking's valid ranks first, so rows[valid] is in query order
    joined = join_within_groups(
        left_counts,
        run.table.words,
        judgments.offsets,
        judgments.words,
        hashes,
        left_rows=rows.ravel() if every_rank else rows[valid],
    )
    if every_rank:
        return joined.reshape(rows.shape)
    found = np.full(rows.shape, -1, dtype=np.int64)
    found[valid] = joined
    return found


# Unknown retrieved ids an explanation names, and gold-set ids it shows beside them.
UNKNOWN_EXAMPLES, GOLD_EXAMPLES = 3, 2


def unknown_ids(run: Run, gold: GoldSet, depth: int, self_described: bool) -> dict[str, object]:
    """How many ids in the top ``depth`` of the gold queries' rankings the gold set does not know:
    it judges them for no query and does not declare them under ``documents``, and
    (``self_described``: the modes that read texts) the run gives them no text and no date.

    An id retrieved for two queries counts twice, as ``retrieved_ids`` does. Plain data (it goes
    into reports): ``unknown_ids``, ``retrieved_ids``, a few ``unknown_examples`` and
    ``gold_id_examples``.
    """

    def count() -> dict[str, object]:
        rows = ranked_rows(run, gold, depth)
        retrieved = rows[rows >= 0]
        counts: dict[str, object] = {"unknown_ids": 0, "retrieved_ids": int(retrieved.size)}
        unknown = retrieved[~_knows(run, gold, retrieved, self_described)]
        if unknown.size:
            examples = dict.fromkeys(run.table.ids_of(unknown[: 50 * UNKNOWN_EXAMPLES]))
            counts["unknown_ids"] = int(unknown.size)
            counts["unknown_examples"] = list(examples)[:UNKNOWN_EXAMPLES]
            counts["gold_id_examples"] = _gold_id_examples(gold)
        return counts

    return run.memo(("unknown_ids", gold, depth, self_described), count)


def knows_some_id(run: Run, gold: GoldSet, self_described: bool) -> bool:
    """Whether the gold set knows any id the run retrieved for its queries, at any rank."""

    def find() -> bool:
        if self_described and (run.texts or run.focus_times):
            return True  # a run keeps texts and dates of the documents it retrieved only
        lengths = run.table.lengths
        in_gold = np.zeros(lengths.size, dtype=bool)
        run_of = run_of_gold(run, gold)
        in_gold[run_of[run_of >= 0]] = True
        rows = np.flatnonzero(np.repeat(in_gold, lengths))
        return bool(_knows(run, gold, rows, self_described).any())

    return run.memo(("knows_some_id", gold, self_described), find)


def retrieved_count(run: Run, gold: GoldSet) -> int:
    """How many documents the run retrieved for the gold set's queries, at every rank."""
    return int(ranked_lengths(run, gold).sum())


def _knows(run: Run, gold: GoldSet, rows: np.ndarray, self_described: bool) -> np.ndarray:
    """[rows] whether the gold set knows the id of each run-table row (see :func:`unknown_ids`).

    Judged ids are looked up in bulk; the declared documents (a corpus may hold millions) and the
    run's texts are asked only about the ids left, one by one."""
    known = np.zeros(rows.size, dtype=bool)
    if gold.judgments.n_rows and rows.size:
        known = _judged_ids(gold).find(run.table.words_of(rows)) >= 0
    documents = gold.documents
    texts, dates = (run.texts, run.focus_times) if self_described else ({}, {})
    if (documents or texts or dates) and not known.all():
        rest = np.flatnonzero(~known)
        known[rest] = [
            doc in documents or doc in texts or doc in dates for doc in run.table.ids_of(rows[rest])
        ]
    return known


def _judged_ids(gold: GoldSet) -> IdLookup:
    """The ids the gold set judges for some query (an id judged for several queries is stored
    several times: found all the same)."""
    return gold.memo("judged_ids", lambda: IdLookup(gold.judgments.words))


def _gold_id_examples(gold: GoldSet) -> list[str]:
    judgments = gold.judgments
    if judgments.n_rows:
        return list(dict.fromkeys(judgments.ids_of(slice(0, 2 * GOLD_EXAMPLES))))[:GOLD_EXAMPLES]
    return list(itertools.islice(gold.documents, GOLD_EXAMPLES))
