"""Metric kernels: pure functions over relevance matrices, one row per query (ranx-style).

Inputs are ``gains[q, i]``: the relevance of the document at rank ``i + 1`` of query ``q`` (0 past
the end of a short ranking), ``ideal[q, i]``: the best achievable relevances sorted descending, and
``n_relevant[q]``: how many relevant documents the query has. Every convention is stated here once.
"""

from __future__ import annotations

import math

import numpy as np

from pytest_tempoeval.metrics import specs


def discounts(depth: int) -> np.ndarray:
    """1 / log2(rank + 1) for ranks 1..depth: the seed formula's and trec_eval's discount."""
    return 1.0 / np.log2(np.arange(2, depth + 2, dtype=np.float64))


GAINS = specs.GAINS  # the gains gain_values knows
# Exponential gains of a query are scaled so that its largest is at most 2**_EXP_CEILING: 2**rel
# overflows a float beyond 2**1023 (grades go up to 1,000,000), and a sum of a million such gains
# stays far below that.
_EXP_CEILING = 512


def gain_values(
    relevance: np.ndarray, ideal: np.ndarray, gain: str
) -> tuple[np.ndarray, np.ndarray]:
    """The gains of a ranking and of its ideal ranking: linear ``rel`` (seed formula, trec_eval)
    or exponential ``2**rel - 1`` (Burges, TempoEval's code).

    A query whose largest relevance ``top`` exceeds the ceiling has both rows multiplied by
    ``2**-(top - ceiling)``: nDCG is their ratio, so the factor cancels (exactly, a power of two),
    and no gain is inf. Below the ceiling nothing is scaled: the values are bit for bit
    ``2**rel - 1``."""
    if gain == "linear":
        return relevance, ideal
    top = np.maximum(relevance.max(axis=1, initial=0.0), ideal.max(axis=1, initial=0.0))
    shift = np.maximum(top - _EXP_CEILING, 0.0)[:, None]
    return _exponential(relevance, shift), _exponential(ideal, shift)


def _exponential(relevance: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """``(2**rel - 1) * 2**-shift``; 2**-shift is 0 past 2**-1074, below any gain it is subtracted
    from by more than a float's precision."""
    return np.exp2(relevance - shift) - np.exp2(-shift)


def dcg(gains: np.ndarray, k: int) -> np.ndarray:
    """DCG@k = sum over ranks i <= k of gain_i / log2(i + 1)."""
    top = gains[:, :k]
    return top @ discounts(top.shape[1]) if top.shape[1] else np.zeros(gains.shape[0])


def ndcg(gains: np.ndarray, ideal: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """nDCG@k = DCG@k / IDCG@k, and the mask of queries whose IDCG is 0 (excluded: seed nDCG page).

    IDCG is the DCG of ``ideal``, the best possible top k from every document whose relevance is
    known (not only the retrieved ones), so a ranking that misses a relevant document scores < 1.
    """
    ideal_dcg = dcg(ideal, k)
    counted = ideal_dcg > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = np.where(counted, dcg(gains, k) / ideal_dcg, np.nan)
    return scores, ~counted


def precision(relevant: np.ndarray, k: int) -> np.ndarray:
    """P@k = relevant documents in the top k / k. Always divides by k (seed formula, trec_eval):
    a ranking shorter than k is not rewarded for stopping early."""
    return relevant[:, :k].sum(axis=1) / k


def recall(relevant: np.ndarray, n_relevant: np.ndarray, k: int | None) -> np.ndarray:
    """R@k = relevant documents in the top k / all relevant documents of the query (trec_eval
    ``recall_k``)."""
    top = relevant if k is None else relevant[:, :k]
    with np.errstate(invalid="ignore", divide="ignore"):
        return top.sum(axis=1) / n_relevant


def reciprocal_rank(first_relevant: np.ndarray, k: int | None) -> np.ndarray:
    """1 / rank of the first relevant document (0 if none in the top k). ``k=None``: the whole
    ranking (trec_eval ``recip_rank``). ``first_relevant[q]``: its rank index (0-based), -1 when
    none (:meth:`Relevance.first_relevant_ranks`)."""
    found = (first_relevant >= 0) & (True if k is None else first_relevant < k)
    return np.where(found, 1.0 / (np.maximum(first_relevant, 0) + 1.0), 0.0)


def average_precision(relevant: np.ndarray, n_relevant: np.ndarray, k: int | None) -> np.ndarray:
    """AP = sum of P@i at the ranks i of relevant documents / all relevant documents of the query.
    ``k=None``: the whole ranking (trec_eval ``map``); otherwise ranks <= k (trec_eval
    ``map_cut``)."""
    top = (relevant if k is None else relevant[:, :k]).astype(np.float64)
    if top.shape[1] == 0:
        return np.zeros(top.shape[0])
    hits = np.cumsum(top, axis=1)
    precision_at_hits = hits / np.arange(1, top.shape[1] + 1) * top
    with np.errstate(invalid="ignore", divide="ignore"):
        return precision_at_hits.sum(axis=1) / n_relevant


def success(first_relevant: np.ndarray, k: int) -> np.ndarray:
    """Success@k = 1 if any of the top k is relevant, else 0 (trec_eval ``success``);
    ``first_relevant`` as for :func:`reciprocal_rank`."""
    return ((first_relevant >= 0) & (first_relevant < k)).astype(np.float64)


def judged_share(known: np.ndarray, retrieved: np.ndarray, k: int) -> np.ndarray:
    """Judged@k = judged documents in the top k / documents retrieved in the top k (ir_measures'
    convention: a ranking shorter than k is not penalised; 0 when nothing was retrieved). A
    judgment of any grade counts, negative and 0 included."""
    top = retrieved[:, :k].sum(axis=1)
    return known[:, :k].sum(axis=1) / np.maximum(top, 1)


def condensed(values: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Each row's kept values moved to the front in rank order, zeros after them: the ranking with
    the other documents removed (trec_eval ``-J``, ir_measures ``judged_only``)."""
    order = np.argsort(~keep, axis=1, kind="stable")
    return np.take_along_axis(np.where(keep, values, 0), order, axis=1)


GEOMETRIC_FLOOR = 1e-5  # trec_eval's MIN_GEO_MEAN: a 0 would make every geometric mean 0


def aggregate(values: np.ndarray, how: str) -> float:
    """The one value of a measure from its counted per-query values (:class:`specs.Aggregate`):
    their mean, trec_eval's geometric mean (each value floored at 1e-5), or their sum. NaN when
    there are none: a mean of nothing is no verdict."""
    if values.size == 0:
        return math.nan
    if how == specs.Aggregate.SUM:
        return math.fsum(values.tolist())
    if how == specs.Aggregate.GEOMETRIC:
        logs = np.log(np.maximum(values, GEOMETRIC_FLOOR))
        return math.exp(math.fsum(logs.tolist()) / values.size)
    return math.fsum(values.tolist()) / values.size
