"""The public metric functions and their ``assert_*`` forms.

Every function takes a :class:`~pytest_tempoeval.data.run.Run` (or anything ``Run`` accepts, or a
path) and a :class:`~pytest_tempoeval.data.goldset.GoldSet` (or a path), and returns a
:class:`~pytest_tempoeval.metrics.results.MetricResult`. Each keeps its explicit signature and
docstring, and its body is one call into its measure's spec (:mod:`.specs`), scored by
:mod:`.scoring`. The call passes the arguments by name (``**locals()``: nothing runs before it),
and :func:`.scoring.compute` refuses a name the spec does not declare;
``tests/metrics/test_specs.py`` checks that the signatures' defaults are the specs'.

One module on purpose, though long: one short function per measure, each a signature, a docstring
and one line; the public names are looked up here, and the exports name this one module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_tempoeval.metrics.llm_judgments import Judge
from pytest_tempoeval.metrics.results import MetricResult
from pytest_tempoeval.metrics.scoring import (  # noqa: F401 (importable from here, as before)
    ALL_RANKS,
    Cutoff,
    GoldLike,
    RunLike,
    as_gold_set,
    as_run,
    compute,
)
from pytest_tempoeval.metrics.specs import GAIN, SPEC, Mode

TEMPORAL_MODES = tuple(str(mode) for mode in Mode)
MEASURE_GAIN = {value: str(GAIN.word(value)) for value in GAIN.choices}  # gain= -> gain= in names


# -- temporal metrics ------------------------------------------------------------------------------


def temporal_ndcg(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    mode: str = "focus_time",
    judge: Judge | None = None,
    gain: str = "linear",
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    empty: str = "exclude",
) -> MetricResult:
    """Temporal nDCG@k. Relevance, by mode: focus_time 4·Jaccard(QFT, DFT); gold the graded
    judgments; llm the judge's grade."""
    return compute(SPEC["T-nDCG"], **locals())


def temporal_precision(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    mode: str = "focus_time",
    judge: Judge | None = None,
    threshold: float = 0.0,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    empty: str = "exclude",
) -> MetricResult:
    """Temporal P@k: share of the top k whose focus time overlaps the query's (Jaccard >
    threshold when threshold > 0)."""
    return compute(SPEC["T-P"], **locals())


def temporal_recall(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    mode: str = "focus_time",
    threshold: float = 0.0,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    empty: str = "exclude",
) -> MetricResult:
    """Temporal R@k: temporally relevant documents in the top k / all known temporally relevant
    documents."""
    return compute(SPEC["T-R"], **locals())


def temporal_mrr(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    mode: str = "focus_time",
    threshold: float = 0.0,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    empty: str = "exclude",
) -> MetricResult:
    """Reciprocal rank of the first temporally relevant document (whole ranking unless k is
    given)."""
    return compute(SPEC["T-RR"], **locals())


def temporal_map(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    mode: str = "focus_time",
    threshold: float = 0.0,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    empty: str = "exclude",
) -> MetricResult:
    """Average precision over temporally relevant documents (whole ranking unless k is given)."""
    return compute(SPEC["T-AP"], **locals())


def ndcg(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    gain: str = "linear",
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    judged_only: bool = False,
    *,
    empty: str = "exclude",
) -> MetricResult:
    """nDCG@k over graded judgments; equals trec_eval's ``ndcg_cut.k``. ``judged_only``: unjudged
    documents are removed from the ranking first (trec_eval ``-J``, ir_measures ``judged_only``)."""
    return compute(SPEC["nDCG"], **locals())


def precision(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    empty: str = "exclude",
) -> MetricResult:
    """P@k (grade >= ``rel``, default 1, is relevant); equals trec_eval's ``P.k`` (``-l rel``)."""
    return compute(SPEC["P"], **locals())


def recall(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    empty: str = "exclude",
) -> MetricResult:
    """R@k; equals trec_eval's ``recall.k``."""
    return compute(SPEC["R"], **locals())


def mrr(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    empty: str = "exclude",
) -> MetricResult:
    """Reciprocal rank; with ``k=None`` equals trec_eval's ``recip_rank`` (whole ranking)."""
    return compute(SPEC["RR"], **locals())


def average_precision(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    empty: str = "exclude",
) -> MetricResult:
    """AP; with ``k=None`` equals trec_eval's ``map`` per query, with k its ``map_cut.k``."""
    return compute(SPEC["AP"], **locals())


def success(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    empty: str = "exclude",
) -> MetricResult:
    """Success@k: 1 when a relevant document (grade >= ``rel``) is in the top k; trec_eval's
    ``success.k``."""
    return compute(SPEC["Success"], **locals())


def judged(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    empty: str = "exclude",
) -> MetricResult:
    """Judged@k: the share of the retrieved top k that the gold set judges (any grade, negative
    included). Every gold query counts, those with nothing relevant too; one the run lacks scores
    0."""
    return compute(SPEC["Judged"], **locals())


# -- trec_eval: graded, sampled and user-model measures --------------------------------------------


def inferred_average_precision(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    empty: str = "exclude",
) -> MetricResult:
    """infAP: average precision estimated from a judged sample of the pool, where a negative
    grade marks a pooled document left unjudged; equals trec_eval's ``infAP`` (``k=None``: the
    whole ranking)."""
    return compute(SPEC["infAP"], **locals())


def expected_reciprocal_rank(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    empty: str = "exclude",
) -> MetricResult:
    """ERR@k: grade g (0-4) stops a cascade user with chance (2^g - 1) / 16; equals ir_measures'
    ``ERR@k`` (``k=None``: the whole ranking)."""
    return compute(SPEC["ERR"], **locals())


def rank_biased_precision(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    p: float = 0.8,
    rel: int | None = None,
    empty: str = "exclude",
) -> MetricResult:
    """RBP: (1 - p) * sum of gain_i * p^(i - 1). ``rel`` given: a grade >= rel gains 1
    (ir_measures' ``RBP(rel=...)``); not given: graded, grade / the query's highest grade, and
    with ``p=0.9`` trec_eval's ``rbp`` (``k=None``: the whole ranking)."""
    return compute(SPEC["RBP"], **locals())


def rbp_residual(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    p: float = 0.8,
    empty: str = "exclude",
) -> MetricResult:
    """RBP's residual: how much RBP could still rise if the unjudged documents retrieved were
    relevant, plus the weight past the end; with ``p=0.9`` trec_eval's ``rbp_resid``."""
    return compute(SPEC["RBPResidual"], **locals())


def ndcg_rel(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    empty: str = "exclude",
) -> MetricResult:
    """trec_eval's ``ndcg_rel``: nDCG averaged over the ranks of the documents graded >= 1."""
    return compute(SPEC["ndcg_rel"], **locals())


def rndcg(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    empty: str = "exclude",
) -> MetricResult:
    """trec_eval's ``Rndcg``: nDCG averaged over the ranks where the ideal gain changes."""
    return compute(SPEC["Rndcg"], **locals())


def binary_normalized_gain(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    empty: str = "exclude",
) -> MetricResult:
    """trec_eval's ``binG``: mean over the relevant documents of 1 / log2(2 + the non-relevant
    documents above it)."""
    return compute(SPEC["binG"], **locals())


def normalized_gain(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    empty: str = "exclude",
) -> MetricResult:
    """trec_eval's ``G``: each document's gain discounted by how far the gain so far trails the
    ideal ranking's, over the query's total gain."""
    return compute(SPEC["G"], **locals())


def unjudged(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    empty: str = "exclude",
) -> MetricResult:
    """trec_eval's ``unj.k``: the unjudged documents of the top k (not in the gold set, or graded
    negative) / k. ``k=None`` reads the default k, as ``judged`` does."""
    return compute(SPEC["Unjudged"], **locals())


# -- bare-statement assertions ---------------------------------------------------------------------
# ``assert_temporal_ndcg(run, gold, k=10) >= 0.8`` needs no ``assert``: the comparison raises
# AssertionError with the explanation when it does not hold, and returns True otherwise.


def _checked(metric: Callable[..., MetricResult]) -> Callable[..., MetricResult]:
    def checked(*args: Any, **kwargs: Any) -> MetricResult:
        return metric(*args, **kwargs).checked()

    checked.__name__ = f"assert_{metric.__name__}"
    checked.__doc__ = (
        f"``{metric.__name__}`` whose comparisons raise AssertionError when they fail."
    )
    return checked


assert_temporal_ndcg = _checked(temporal_ndcg)
assert_temporal_precision = _checked(temporal_precision)
assert_temporal_recall = _checked(temporal_recall)
assert_temporal_mrr = _checked(temporal_mrr)
assert_temporal_map = _checked(temporal_map)
assert_ndcg = _checked(ndcg)
assert_precision = _checked(precision)
assert_recall = _checked(recall)
assert_mrr = _checked(mrr)
assert_average_precision = _checked(average_precision)
assert_success = _checked(success)
assert_judged = _checked(judged)
assert_inferred_average_precision = _checked(inferred_average_precision)
assert_expected_reciprocal_rank = _checked(expected_reciprocal_rank)
assert_rank_biased_precision = _checked(rank_biased_precision)
assert_rbp_residual = _checked(rbp_residual)
assert_ndcg_rel = _checked(ndcg_rel)
assert_rndcg = _checked(rndcg)
assert_binary_normalized_gain = _checked(binary_normalized_gain)
assert_normalized_gain = _checked(normalized_gain)
assert_unjudged = _checked(unjudged)
