"""Metric kernels: pure functions over relevance matrices, one row per query (ranx-style).

Inputs are ``gains[q, i]``: the relevance of the document at rank ``i + 1`` of query ``q`` (0 past
the end of a short ranking), ``ideal[q, i]``: the best achievable relevances sorted descending, and
``n_relevant[q]``: how many relevant documents the query has. Every convention is stated here once.

One module on purpose, though long: the kernels are the table of the measures' conventions, each
next to its code, and specs name a kernel of this one module (``spec.kernel``); its sections
(classic, trec_eval's graded and sampled, trec_eval's ranks, counts and sets) read top to bottom.
"""

from __future__ import annotations

import math

import numpy as np

from pytest_tempoeval.errors import MetricError
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
    with np.errstate(invalid="ignore", divide="ignore"):
        return _precision_sum(relevant, k) / n_relevant


def _precision_sum(relevant: np.ndarray, k: int | None) -> np.ndarray:
    """[nq] the sum of P@i over the ranks i <= k of the relevant documents (AP's numerator)."""
    top = (relevant if k is None else relevant[:, :k]).astype(np.float64)
    if top.shape[1] == 0:
        return np.zeros(top.shape[0])
    hits = np.cumsum(top, axis=1)
    return (hits / np.arange(1, top.shape[1] + 1) * top).sum(axis=1)


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


# -- trec_eval: graded, sampled and user-model measures -------------------------------------------
# These kernels read trec_eval's ranked list, ``grades[q, i]``: the grade (>= 0) of the document at
# rank i + 1, NOT_JUDGED where the qrels lack it (or past the end of the ranking), POOLED_UNJUDGED
# where the qrels give it a negative grade (a pool sample left unjudged, as infAP's qrels mark it),
# and ``levels[q, g]``: how many documents query q judged at grade g >= 0 (trec_eval's
# rel_levels). A grade's gain is the grade (trec_eval's default gains). A cutoff k cuts the ranking
# at k, as trec_eval -M k does; the ideal ranking still comes from every judgment.

# trec_eval's RELVALUE_NONPOOL and RELVALUE_UNJUDGED (form_res_rels.c).
NOT_JUDGED, POOLED_UNJUDGED = -1, -2
INFAP_EPSILON = 1e-5  # trec_eval's: keeps infAP's estimate defined with nothing judged above
ERR_TOP_GRADE = 4  # ERR's gain is (2^grade - 1) / 2^4: ir_measures' (gdeval's) 0-4 scale


def _ideal_grades(levels: np.ndarray, depth: int) -> np.ndarray:
    """[nq, depth] each query's positive grades sorted descending, zeros after them: the ideal
    ranking's gains. Counted, not sorted: the ideal gain at rank r is the highest grade g that
    more than r documents reach (added as the steps between the grades judged anywhere)."""
    at_least = np.cumsum(levels[:, ::-1], axis=1)[:, ::-1]  # judged at grade >= g
    ranks = np.arange(depth)
    ideal = np.zeros((levels.shape[0], depth))
    below = 0
    for grade in (np.flatnonzero(levels[:, 1:].any(axis=0)) + 1).tolist():
        ideal += (grade - below) * (at_least[:, grade, None] > ranks)
        below = grade
    return ideal


def _positive_judged(levels: np.ndarray) -> np.ndarray:
    """[nq] how many documents each query judged at a grade >= 1."""
    return levels[:, 1:].sum(axis=1)


def _log2_ranks(depth: int) -> np.ndarray:
    """log2(rank + 1) for ranks 1..depth: trec_eval divides each gain by it."""
    return np.log2(np.arange(2, depth + 2, dtype=np.float64))


def _powers(p: float, count: int) -> np.ndarray:
    """1, p, p^2, ..., p^(count - 1), each the product of the one before and p, as trec_eval's
    ``cur_p *= p`` computes them."""
    return np.cumprod(np.concatenate(([1.0], np.full(max(count - 1, 0), p))))[:count]


def inferred_average_precision(
    grades: np.ndarray, relevant: np.ndarray, n_relevant: np.ndarray, k: int
) -> np.ndarray:
    """infAP (Yilmaz & Aslam; trec_eval ``infAP``): at each relevant document at rank j + 1, the
    precision estimated from the documents above it, averaged over the query's relevant
    documents. A document the qrels lack is non-relevant; one with a negative grade (in the
    pool, unjudged) is assumed relevant in the proportion of the judged ones above it:

        1 / (j + 1) + j / (j + 1) * (r + n + u) / j * (r + e) / (r + n + 2e)

    with r relevant, n judged non-relevant and u pooled-but-unjudged documents above it, e =
    1e-5; 1 at rank 1. 0 for a query with nothing relevant."""
    top, hit = grades[:, :k], relevant[:, :k]
    rows, cols = np.nonzero(hit)  # the estimate is needed at the relevant ranks only
    above_relevant = np.cumsum(hit, axis=1)[rows, cols] - 1.0
    above_nonrelevant = np.cumsum((top >= 0) & ~hit, axis=1)[rows, cols].astype(np.float64)
    above_pooled = np.cumsum(top == POOLED_UNJUDGED, axis=1)[rows, cols].astype(np.float64)
    j = cols.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = 1.0 / (j + 1.0) + (j / (j + 1.0)) * (
            (above_relevant + above_nonrelevant + above_pooled) / j
        ) * (
            (above_relevant + INFAP_EPSILON)
            / (above_relevant + above_nonrelevant + 2 * INFAP_EPSILON)
        )
    estimate[cols == 0] = 1.0
    total = np.bincount(rows, weights=estimate, minlength=top.shape[0])
    return np.where(n_relevant > 0, total / np.maximum(n_relevant, 1), 0.0)


def expected_reciprocal_rank(
    gains: np.ndarray, levels: np.ndarray, query_ids: tuple[str, ...], k: int
) -> np.ndarray:
    """ERR@k (Chapelle et al.; ir_measures' ``ERR``, computed by gdeval): sum over ranks i <= k of
    R_i / i times the chance the user went on past every document above, prod (1 - R_j), with
    R = (2^grade - 1) / 2^4: ir_measures' gain, on its 0-4 scale. A grade above 4 would make R
    greater than 1, so it is an error; a negative grade gains what 0 does."""
    if levels.shape[1] > ERR_TOP_GRADE + 1:
        above = levels[:, ERR_TOP_GRADE + 1 :]
        query = int(np.flatnonzero(above.any(axis=1))[0])
        grade = ERR_TOP_GRADE + 1 + int(np.flatnonzero(above[query])[-1])
        raise MetricError(
            f"ERR's gain is (2^grade - 1) / 2^{ERR_TOP_GRADE} (ir_measures' and gdeval's), for "
            f"grades 0 to {ERR_TOP_GRADE}: query {query_ids[query]!r} has a document graded "
            f"{grade}; map the grades onto 0-{ERR_TOP_GRADE} first"
        )
    stop = (np.exp2(gains[:, :k]) - 1.0) / 2.0**ERR_TOP_GRADE
    went_on = np.cumprod(1.0 - stop, axis=1)
    reached = np.concatenate((np.ones((stop.shape[0], 1)), went_on[:, :-1]), axis=1)
    ranks = np.arange(1, stop.shape[1] + 1, dtype=np.float64)
    return (stop * reached / ranks).sum(axis=1)


def rank_biased_precision(
    grades: np.ndarray, levels: np.ndarray, k: int, p: float, rel: int | None
) -> np.ndarray:
    """RBP (Moffat & Zobel): (1 - p) * sum over ranks i of gain_i * p^(i - 1), a user who goes on
    to the next document with probability p. With ``rel``, the gain is 1 for a grade >= rel, else
    0 (ir_measures' ``RBP(rel=...)``). Without it, graded as trec_eval's ``rbp``: the gain is the
    grade divided by the query's highest judged grade when that is above 1 (trec_eval scales the
    gains into [0, 1]; its m_rbp.c reads that scale's min and max uninitialised, and its printed
    values are this scale's). Unjudged documents gain 0."""
    top = grades[:, :k]
    if rel is not None:
        gain = (top >= rel).astype(np.float64)
    else:
        highest = np.where(levels > 0, np.arange(levels.shape[1]), 0).max(axis=1, initial=0)
        gain = np.maximum(top, 0) / np.maximum(highest, 1)[:, None]
    return (1.0 - p) * (gain @ _powers(p, top.shape[1]))


def rbp_residual(grades: np.ndarray, retrieved: np.ndarray, k: int, p: float) -> np.ndarray:
    """RBP's residual (trec_eval ``rbp_resid``): how much RBP could still rise if every unjudged
    retrieved document (not in the qrels, or graded negative) had gain 1, plus the weight past
    the end of the ranking: (1 - p) * sum over unjudged ranks i of p^(i - 1) + p^(retrieved).
    As trec_eval, 0 when no retrieved document is unjudged (its tail weight is left out then)."""
    top, shown = grades[:, :k], retrieved[:, :k]
    unjudged = shown & (top < 0)
    powers = _powers(p, top.shape[1] + 1)
    tail = powers[shown.sum(axis=1)]
    residual = tail + (1.0 - p) * (unjudged @ powers[:-1])
    return np.where(unjudged.any(axis=1), residual, 0.0)


def unjudged_share(grades: np.ndarray, retrieved: np.ndarray, cutoff: int | None) -> np.ndarray:
    """unj@k (trec_eval ``unj``): the documents of the top k that are not judged (not in the
    qrels, or graded negative) / k. Always divides by k: past the end of a shorter ranking the
    missing documents count as judged. Without a cutoff: unjudged / retrieved (0 when nothing
    was retrieved)."""
    top, shown = (
        (grades, retrieved) if cutoff is None else (grades[:, :cutoff], retrieved[:, :cutoff])
    )
    unjudged = (shown & (top < 0)).sum(axis=1)
    if cutoff is None:
        return unjudged / np.maximum(shown.sum(axis=1), 1)
    return unjudged / cutoff


def binary_normalized_gain(relevant: np.ndarray, n_relevant: np.ndarray, k: int) -> np.ndarray:
    """binG (trec_eval ``binG``): over the query's relevant documents, the mean of 1 / log2(2 +
    the non-relevant documents retrieved above it) (0 for one not retrieved)."""
    hit = relevant[:, :k]
    nonrelevant_above = np.arange(hit.shape[1]) + 1 - np.cumsum(hit, axis=1)
    terms = np.where(hit, 1.0 / np.log2(2.0 + nonrelevant_above), 0.0)
    return np.where(n_relevant > 0, terms.sum(axis=1) / np.maximum(n_relevant, 1), 0.0)


def normalized_gain(
    grades: np.ndarray, levels: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """G (trec_eval ``G``): each retrieved document's gain / log2(2 + cost_i - gained_i), summed
    and divided by the query's total gain; gained_i is the gain of the ranks up to i, cost_i the
    ideal ranking's, each of its ranks costing at least 1. The mask: queries with nothing to gain
    (no grade >= 1)."""
    gain = np.maximum(grades[:, :k], 0).astype(np.float64)
    cost = np.cumsum(np.maximum(_ideal_grades(levels, gain.shape[1]), 1.0), axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        terms = gain / np.log2(2.0 + cost - np.cumsum(gain, axis=1))
    total = levels @ np.arange(levels.shape[1], dtype=np.float64)
    gained = np.where(gain != 0, terms, 0.0).sum(axis=1)
    counted = total > 0
    return np.where(counted, gained / np.where(counted, total, 1.0), 0.0), ~counted


def _dcg_curves(
    grades: np.ndarray, levels: np.ndarray, k: int, extra: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Gains of the ranking, ideal gains, and DCG@b and IDCG@b for b = 0..width (width: the
    ranking's or the ideal ranking's length, whichever is longer, plus ``extra``)."""
    gain = np.maximum(grades[:, :k], 0).astype(np.float64)
    width = max(gain.shape[1], int(_positive_judged(levels).max(initial=0))) + extra
    gain = np.pad(gain, ((0, 0), (0, width - gain.shape[1])))
    ideal = _ideal_grades(levels, width)
    logs = _log2_ranks(width)
    zero = np.zeros((gain.shape[0], 1))
    dcg = np.concatenate((zero, np.cumsum(gain / logs, axis=1)), axis=1)
    idcg = np.concatenate((zero, np.cumsum(ideal / logs, axis=1)), axis=1)
    return gain, ideal, dcg, idcg


def ndcg_rel(grades: np.ndarray, levels: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """ndcg_rel (trec_eval ``ndcg_rel``): nDCG averaged over the query's documents with a grade
    >= 1: at the rank of each one retrieved, nDCG at that rank (its IDCG from every judgment); for
    each one not retrieved, nDCG of the whole ranking. The mask: queries with no grade >= 1."""
    gain, _, dcg, idcg = _dcg_curves(grades, levels, k)
    positive = _positive_judged(levels)
    with np.errstate(invalid="ignore", divide="ignore"):
        at_relevant = np.where(gain > 0, dcg[:, 1:] / idcg[:, 1:], 0.0).sum(axis=1)
        missed = (positive - (gain > 0).sum(axis=1)) * dcg[:, -1] / idcg[:, -1]
        total = at_relevant + missed
        scores = np.where(total > 0, total / positive, 0.0)  # a NaN total (IDCG 0) is 0
    return scores, positive == 0


def rndcg(
    grades: np.ndarray,
    retrieved: np.ndarray,
    levels: np.ndarray,
    n_relevant: np.ndarray,
    k: int,
) -> np.ndarray:
    """Rndcg (trec_eval ``Rndcg``): nDCG averaged over the ranks b where the ideal gain changes
    (the R levels: after the documents of each grade, highest first), DCG@b / IDCG@b, and, when
    the ranking is 2 or more longer than the query's positive judgments P, DCG of the whole ranking
    / IDCG@P as well (trec_eval's rule, one longer does not add it). 0 for a query with nothing
    at grade >= rel."""
    _, ideal, dcg, idcg = _dcg_curves(grades, levels, k, extra=1)
    changes = (ideal[:, 1:] != ideal[:, :-1]) & (ideal[:, :-1] > 0)  # at b = 1..width-1
    with np.errstate(invalid="ignore", divide="ignore"):
        at_changes = np.where(changes, dcg[:, 1:-1] / idcg[:, 1:-1], 0.0).sum(axis=1)
        whole = dcg[:, -1] / idcg[:, -1]
    length = retrieved[:, :k].sum(axis=1)
    longer = length >= _positive_judged(levels) + 2
    points = changes.sum(axis=1) + longer
    total = at_changes + np.where(longer, whole, 0.0)
    counted = (n_relevant > 0) & (points > 0)
    return np.where(counted, total / np.maximum(points, 1), 0.0)


def discounted_cumulative_gain(
    grades: np.ndarray, levels: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """DCG@k of trec_eval's default gains (trec_eval ``dcg``, in ``m_ndcg.c``): the sum over ranks
    i <= k of grade_i / log2(i + 1), a document unjudged or graded negative gaining 0. The mask:
    queries with no grade >= 1 (nothing to gain: 0 whatever the ranking)."""
    _, _, dcg, _ = _dcg_curves(grades, levels, k)
    return dcg[:, -1], _positive_judged(levels) == 0


def ideal_discounted_cumulative_gain(
    grades: np.ndarray, levels: np.ndarray, cutoff: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """IDCG@k: the DCG@k of the ideal ranking, every document judged >= 1 highest grade first, so
    that nDCG@k = DCG@k / IDCG@k. Without a cutoff, all of them (trec_eval ``ideal_dcg``: the
    ideal ranking is cut neither at the ranking's length nor by -M). The mask as for DCG."""
    _, _, _, idcg = _dcg_curves(grades, levels, grades.shape[1])
    last = idcg.shape[1] - 1  # the curve reaches past every positive judgment
    return idcg[:, last if cutoff is None else min(cutoff, last)], _positive_judged(levels) == 0


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


def yet_another_average_precision(
    relevant: np.ndarray, n_relevant: np.ndarray, k: int
) -> np.ndarray:
    """YAAP (Robertson, "On Smoothing Average Precision", ECIR 2012; trec_eval ``yaap``): log((1 +
    S) / (1 + R - S)), S the sum of P@i at the ranks i <= k of the relevant documents (AP x R).
    From log(1 / (1 + R)) to log(1 + R); 0 for a query with nothing relevant, as trec_eval gives
    (S = R = 0), which scoring leaves out by default (``needs_relevant``)."""
    found = _precision_sum(relevant, k)
    return np.log((1.0 + found) / (1.0 + n_relevant - found))


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


# -- TempoEval's cross-period coverage -------------------------------------------------------------


def temporal_coverage(coverage: np.ndarray, k: int) -> np.ndarray:
    """T-Coverage@k = (baseline covered + comparison covered) / 2: 0, 0.5 or 1 (TempoEval's
    TemporalCoverage). A period is covered when some document of the top k covers it
    (``coverage[q, i]``: the judge's covers_baseline, covers_comparison for rank i + 1); a rank
    past the end, or a document the judge could not read, covers nothing."""
    return coverage[:, :k].any(axis=1).sum(axis=1) / 2


# -- TempoEval's focus-time set measures (issue 28) -----------------------------------------------
# These kernels read years, not relevance. ``year_codes[q, i]`` is the focus time of the document at
# rank i + 1 as a row of ``year_bits`` (uint64 year bitsets, all on one span); -1 (no focus time,
# or past the end of the ranking) reads the last row, which has no year. The top k's years are the
# union of their rows, TempoEval's ⋃ DFT_i over dfts[:k]: a set, so the order of the top k does not
# matter, and a ranking shorter than k is the set it has (there is nothing to pad). A document
# without a focus time adds no year. ``query_codes[q]``: the query's focus time, a row of
# ``year_bits`` (-1: none; such a query is left out before these kernels, as in every focus-time
# measure). Each returns a ratio, never rounded (TempoEval rounds to 5 decimals).

# What these kernels read besides k (year_sets.YearSets, passed by scoring under these names).
YEAR_INPUTS = (
    "year_codes",
    "query_codes",
    "year_bits",
    "anchor_years",
    "anchor_offsets",
    "collection_years",
)
_UNION_CELLS = 1 << 22  # year words gathered at once when uniting the top k (32 MiB of uint64)


def _top_years(year_codes: np.ndarray, year_bits: np.ndarray, k: int) -> np.ndarray:
    """[nq, words] the years of each query's top k documents, united."""
    top = year_codes[:, :k]
    words = year_bits.shape[1]
    united = np.zeros((top.shape[0], words), dtype=np.uint64)
    chunk = max(1, _UNION_CELLS // max(1, top.shape[1] * words))
    for start in range(0, top.shape[0], chunk):
        rows = year_bits[top[start : start + chunk]]  # [chunk, k, words]
        united[start : start + chunk] = np.bitwise_or.reduce(rows, axis=1)
    return united


def _year_count(bits: np.ndarray) -> np.ndarray:
    """How many years each bitset row holds."""
    return np.bitwise_count(bits).sum(axis=-1, dtype=np.int64)


def year_precision(
    year_codes: np.ndarray, query_codes: np.ndarray, year_bits: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """T-YearP@k = |⋃ DFT ∩ QFT| / |⋃ DFT| over the top k (TempoEval ``TemporalYearPrecision``):
    the share of the years the top k are about that the query is about. The mask: queries whose
    top k have no year at all (0 / 0: TempoEval's 0.0; left out, or 0 with empty="zero")."""
    top = _top_years(year_codes, year_bits, k)
    size = _year_count(top)
    inside = _year_count(top & year_bits[query_codes])
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(size > 0, inside / size, np.nan), size == 0


def year_recall(
    year_codes: np.ndarray, query_codes: np.ndarray, year_bits: np.ndarray, k: int
) -> np.ndarray:
    """T-YearR@k = |⋃ DFT ∩ QFT| / |QFT| over the top k (TempoEval ``TemporalYearRecall``): the
    share of the query's years that the top k are about; 0 when the top k have no year."""
    query = year_bits[query_codes]
    covered = _year_count(_top_years(year_codes, year_bits, k) & query)
    with np.errstate(invalid="ignore", divide="ignore"):
        return covered / _year_count(query)  # NaN only for a query without focus time (left out)


def year_diversity(
    year_codes: np.ndarray, year_bits: np.ndarray, collection_years: int, scope: str, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """T-Diversity@k = min(1, |⋃ DFT| / S) over the top k (TempoEval ``TemporalDiversity`` with
    ``use_focus_time=True``): distinct years the top k are about, over the span S to cover, its
    ``total_scope``. ``scope="collection"``: S is the distinct years of the gold set's documents
    (``collection_years``); the cap at 1 is reached only by the years of documents outside the
    gold set. ``scope="retrieved"``: S is the top k's own years (TempoEval without total_scope),
    so the value is 1 whenever the top k have a year. The query's focus time is not read. The
    mask: with ``retrieved``, queries whose top k have no year (0 / 0: TempoEval's 0.0)."""
    size = _year_count(_top_years(year_codes, year_bits, k))
    if scope == specs.DIVERSITY_SCOPES[1]:  # retrieved
        span = size
    elif collection_years > 0:
        span = np.full(size.shape, collection_years, dtype=np.int64)
    else:
        raise MetricError(
            "T-Diversity(scope=collection) divides by the distinct years of the gold set's "
            "documents, and none of them has a focus time: give the documents a focus_time (or a "
            "text to read one from), or use scope=retrieved"
        )
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(span > 0, np.minimum(size / span, 1.0), np.nan), span == 0


def anchor_f1(
    year_codes: np.ndarray,
    year_bits: np.ndarray,
    anchor_years: np.ndarray,
    anchor_offsets: np.ndarray,
    k: int,
) -> tuple[np.ndarray, np.ndarray]:
    """T-AnchorF1@k = 2 P R / (P + R) (TempoEval ``AnchorCoverage``) between the anchors of the top
    k, their years (each year one anchor, as TempoEval's rule-based reading finds each year once),
    and the query's required anchors (``anchor_years[anchor_offsets[q]:anchor_offsets[q + 1]]``,
    its key_time_anchors, each a set of years): P = the top k's years that lie in a required
    anchor / the top k's years; R = the required anchors that hold one of the top k's years / the
    required anchors. With single-year anchors, TempoEval's exact string match; a wider anchor
    (1990s) is covered by any of its years. 0 when the top k have no year, or none in an anchor.
    The mask: queries without required anchors (TempoEval's 0.0)."""
    top = _top_years(year_codes, year_bits, k)
    n_anchors = np.diff(anchor_offsets)
    owner = np.repeat(np.arange(top.shape[0]), n_anchors)
    touched = _year_count(anchor_years & top[owner]) > 0
    covered = np.bincount(owner, weights=touched, minlength=top.shape[0])
    required = np.zeros_like(top)  # each query's anchors, united
    np.bitwise_or.at(required, owner, anchor_years)
    size = _year_count(top)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(size > 0, _year_count(top & required) / size, 0.0)
        recall = covered / n_anchors
        f1 = np.where(precision + recall > 0, 2 * (precision * recall) / (precision + recall), 0.0)
    return np.where(n_anchors > 0, f1, np.nan), n_anchors == 0
