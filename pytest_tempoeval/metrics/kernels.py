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


# -- trec_eval: ranks, counts and sets -------------------------------------------------------------
# Each kernel below is trec_eval 10's m_<name>.c for one query's ranked list (form_res_rels.c):
# ``relevant`` is grade >= rel, ``grades`` the list trec_eval builds (a grade >= 0, -1 not in the
# qrels, -2 a negative grade: "in the pool, unjudged"), ``n_relevant`` its num_rel, ``retrieved``
# the ranks the ranking reaches (num_ret); ranks past the end are neither retrieved nor relevant.
# A query with nothing relevant gets what trec_eval gives it, or NaN where trec_eval's 0 is a
# division by 0: scoring leaves such a query out (empty="exclude") or scores it 0 (empty="zero").


def _relevant_in_top(relevant: np.ndarray, cutoffs: np.ndarray) -> np.ndarray:
    """[nq] relevant documents in each query's top ``cutoffs[q]`` ranks (0 for a cutoff <= 0)."""
    if relevant.shape[1] == 0:
        return np.zeros(relevant.shape[0], dtype=np.int64)
    hits = np.cumsum(relevant, axis=1)
    last = np.minimum(cutoffs, relevant.shape[1]) - 1
    found = np.take_along_axis(hits, np.maximum(last, 0)[:, None], axis=1)[:, 0]
    return np.where(last >= 0, found, 0)


def r_precision(relevant: np.ndarray, n_relevant: np.ndarray) -> np.ndarray:
    """Rprec = relevant documents in the top R / R, where R is the query's relevant documents
    (trec_eval ``Rprec``). It is also the recall at R."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return _relevant_in_top(relevant, n_relevant) / n_relevant


def r_precision_multiple(relevant: np.ndarray, n_relevant: np.ndarray, mult: float) -> np.ndarray:
    """Rprec_mult = P@c with c = int(mult x R + 0.9), trec_eval's rounding of the cutoff
    (``Rprec_mult_0.20``: mult 0.2); 0 when c is 0."""
    cutoffs = np.floor(mult * n_relevant + 0.9).astype(np.int64)
    found = _relevant_in_top(relevant, cutoffs)
    return np.where(cutoffs > 0, found / np.maximum(cutoffs, 1), 0.0)


def bpref(
    grades: np.ndarray, relevant: np.ndarray, n_relevant: np.ndarray, levels: np.ndarray
) -> np.ndarray:
    """Bpref = (1/R) x sum over the relevant documents retrieved of 1 - min(n, R) / min(N, R),
    where n is the judged non-relevant documents ranked above it and N all the query's judged
    non-relevant documents (grade 0 to rel - 1); a term is 1 when n is 0 (trec_eval ``bpref``).
    Unjudged documents (not in the qrels, or a negative grade) are skipped."""
    nonrelevant = (grades >= 0) & ~relevant
    above = np.cumsum(nonrelevant, axis=1)  # at a relevant rank: the non-relevant ones above it
    query, rank = np.nonzero(relevant)  # row by row, in rank order
    seen = above[query, rank]
    cap = n_relevant[query]
    judged_nonrelevant = (levels.sum(axis=1) - n_relevant)[query]
    with np.errstate(invalid="ignore", divide="ignore"):
        penalty = np.minimum(seen, cap) / np.minimum(judged_nonrelevant, cap)
    terms = np.where(seen > 0, 1.0 - penalty, 1.0)
    # bincount adds each query's terms in the order given, rank order, as trec_eval adds them
    total = np.bincount(query, weights=terms, minlength=relevant.shape[0])
    with np.errstate(invalid="ignore", divide="ignore"):
        return total / n_relevant


# trec_eval's recall levels of 11pt_avg (and of iprec_at_recall's default output)
ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def _interpolation(relevant: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """[nq, depth] relevant documents in the top i + 1, and the best precision at rank i + 1 or any
    lower one (past a ranking's end the precision only falls, so the padding changes no best)."""
    hits = np.cumsum(relevant, axis=1)
    precision_at = hits / np.arange(1, relevant.shape[1] + 1)
    return hits, np.maximum.accumulate(precision_at[:, ::-1], axis=1)[:, ::-1]


def _interpolated(
    hits: np.ndarray, best_below: np.ndarray, n_relevant: np.ndarray, level: float
) -> np.ndarray:
    """[nq] the interpolated precision at one recall level: the best precision at any rank at or
    below the one where c relevant documents are retrieved, c = round(level x R) (half away from
    0, as trec_eval 10's lround); 0 when fewer than c are retrieved. c = 0 reads as c = 1."""
    if hits.shape[1] == 0:
        return np.zeros(hits.shape[0])
    exact = level * n_relevant
    whole = np.floor(exact)
    wanted = np.maximum(np.where(exact - whole >= 0.5, whole + 1, whole).astype(np.int64), 1)
    rank = np.argmax(hits >= wanted[:, None], axis=1)
    best = np.take_along_axis(best_below, rank[:, None], axis=1)[:, 0]
    return np.where(wanted <= hits[:, -1], best, 0.0)


def interpolated_precision(
    relevant: np.ndarray, n_relevant: np.ndarray, recall: float
) -> np.ndarray:
    """IPrec@r: the interpolated precision at recall level r (trec_eval ``iprec_at_recall``)."""
    return _interpolated(*_interpolation(relevant), n_relevant, recall)


def eleven_point_average(relevant: np.ndarray, n_relevant: np.ndarray) -> np.ndarray:
    """11pt_avg = the mean of IPrec at the recall levels 0, 0.1, ..., 1 (trec_eval ``11pt_avg``),
    summed from level 1 down, as trec_eval adds them."""
    hits, best_below = _interpolation(relevant)
    total = np.zeros(relevant.shape[0])
    for level in reversed(ELEVEN_POINTS):
        total = total + _interpolated(hits, best_below, n_relevant, level)
    return total / len(ELEVEN_POINTS)


def num_q(n_relevant: np.ndarray) -> np.ndarray:
    """1 for every query (trec_eval ``num_q``: its sum is the number of queries)."""
    return np.ones(n_relevant.shape[0], dtype=np.int64)


def num_ret(retrieved: np.ndarray) -> np.ndarray:
    """The documents retrieved (trec_eval ``num_ret``)."""
    return retrieved.sum(axis=1, dtype=np.int64)


def num_rel(n_relevant: np.ndarray) -> np.ndarray:
    """The relevant documents judged, grade >= rel (trec_eval ``num_rel``)."""
    return n_relevant.astype(np.int64)


def num_rel_ret(relevant: np.ndarray) -> np.ndarray:
    """The relevant documents retrieved (trec_eval ``num_rel_ret``)."""
    return relevant.sum(axis=1, dtype=np.int64)


def num_nonrel_judged_ret(grades: np.ndarray, relevant: np.ndarray) -> np.ndarray:
    """The judged non-relevant documents retrieved, grade 0 to rel - 1 (trec_eval
    ``num_nonrel_judged_ret``): neither unjudged documents nor negative grades count."""
    return ((grades >= 0) & ~relevant).sum(axis=1, dtype=np.int64)


def set_precision(relevant: np.ndarray, retrieved: np.ndarray) -> np.ndarray:
    """SetP = relevant retrieved / retrieved, 0 when nothing is retrieved (trec_eval ``set_P``).
    Unlike P@k it does not pad a short ranking."""
    found, size = relevant.sum(axis=1), retrieved.sum(axis=1)
    return np.where(size > 0, found / np.maximum(size, 1), 0.0)


def set_recall(relevant: np.ndarray, n_relevant: np.ndarray) -> np.ndarray:
    """SetR = relevant retrieved / R (trec_eval ``set_recall``)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return relevant.sum(axis=1) / n_relevant


def set_f(
    relevant: np.ndarray, retrieved: np.ndarray, n_relevant: np.ndarray, beta: float
) -> np.ndarray:
    """SetF = (beta + 1) P R / (beta P + R) of SetP and SetR, 0 when nothing relevant is
    retrieved (trec_eval ``set_F``: its parameter is beta itself, not beta squared)."""
    found = relevant.sum(axis=1)
    some = found > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        p = found / np.maximum(retrieved.sum(axis=1), 1)
        r = found / n_relevant
        return np.where(some, (beta + 1.0) * p * r / (beta * p + r), 0.0)


def set_average_precision(
    relevant: np.ndarray, retrieved: np.ndarray, n_relevant: np.ndarray
) -> np.ndarray:
    """SetAP = relevant retrieved^2 / (retrieved x R) = SetP x SetR, 0 when nothing is retrieved
    (trec_eval ``set_map``)."""
    found = relevant.sum(axis=1).astype(np.float64)
    size = retrieved.sum(axis=1).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(size > 0, found * found / (size * n_relevant), 0.0)


def set_relative_precision(
    relevant: np.ndarray, retrieved: np.ndarray, n_relevant: np.ndarray
) -> np.ndarray:
    """SetRelP = relevant retrieved / min(retrieved, R), 0 when nothing is retrieved (trec_eval
    ``set_relative_P``)."""
    found, size = relevant.sum(axis=1), retrieved.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(size > 0, found / np.minimum(size, n_relevant), 0.0)


def relative_precision(relevant: np.ndarray, n_relevant: np.ndarray, k: int) -> np.ndarray:
    """RelP@k = relevant documents in the top k / min(k, R): precision up to R, recall past it
    (trec_eval ``relative_P``)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return relevant[:, :k].sum(axis=1) / np.minimum(k, n_relevant)


def utility(
    relevant: np.ndarray,
    retrieved: np.ndarray,
    n_relevant: np.ndarray,
    relevant_retrieved: float,
    nonrelevant_retrieved: float,
    relevant_missed: float,
    nonrelevant_missed: float,
    collection_size: int,
) -> np.ndarray:
    """Utility = a x relevant retrieved + b x non-relevant retrieved + c x relevant missed +
    d x non-relevant missed, the last counted as collection_size + relevant retrieved - retrieved
    - R (trec_eval ``utility``, with -N collection_size). A query with nothing relevant counts."""
    found, size = relevant.sum(axis=1), retrieved.sum(axis=1)
    return (
        relevant_retrieved * found
        + nonrelevant_retrieved * (size - found)
        + relevant_missed * (n_relevant - found)
        + nonrelevant_missed * (collection_size + found - size - n_relevant)
    )
