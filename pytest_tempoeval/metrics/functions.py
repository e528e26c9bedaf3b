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

from collections.abc import Callable, Mapping
from typing import Any

from pytest_tempoeval.metrics.llm_judgments import CoverageJudge, Judge
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
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
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


# -- TempoEval's focus-time set measures (issue 28) ------------------------------------------------


def temporal_year_precision(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    mode: str = "focus_time",
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    empty: str = "exclude",
) -> MetricResult:
    """T-YearP@k, TempoEval's TemporalYearPrecision: of the years the top k documents are about
    (the union of their focus times), the share the query is about. A query whose top k have no
    year is left out and named (``empty="zero"``: scored 0, as TempoEval does)."""
    return compute(SPEC["T-YearP"], **locals())


def temporal_year_recall(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    mode: str = "focus_time",
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    empty: str = "exclude",
) -> MetricResult:
    """T-YearR@k, TempoEval's TemporalYearRecall: of the years the query is about, the share the
    top k documents are about (the union of their focus times)."""
    return compute(SPEC["T-YearR"], **locals())


def temporal_diversity(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    mode: str = "focus_time",
    scope: str = "collection",
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    empty: str = "exclude",
) -> MetricResult:
    """T-Diversity@k, TempoEval's TemporalDiversity (focus-time forms): distinct years the top k
    documents are about over the span to cover, at most 1. ``scope="collection"``: the distinct
    years of the gold set's documents; ``scope="retrieved"``: the top k's own (1 whenever they
    have a year). Every query counts: its own focus time is not read."""
    return compute(SPEC["T-Diversity"], **locals())


def temporal_anchor_f1(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    mode: str = "focus_time",
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    empty: str = "exclude",
) -> MetricResult:
    """T-AnchorF1@k, TempoEval's AnchorCoverage: F1 of the years the top k documents are about
    against the query's required time anchors (its ``key_time_anchors``). Precision: the share of
    those years inside an anchor; recall: the share of the anchors holding one of them. A query
    without anchors is left out and named (``empty="zero"``: scored 0, as TempoEval does)."""
    return compute(SPEC["T-AnchorF1"], **locals())


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
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
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
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
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
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
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
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
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
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
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
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
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
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
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
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
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
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
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
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
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
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
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
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
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
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
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
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
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
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
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
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
) -> MetricResult:
    """trec_eval's ``unj.k``: the unjudged documents of the top k (not in the gold set, or graded
    negative) / k. ``k=None`` reads the default k, as ``judged`` does."""
    return compute(SPEC["Unjudged"], **locals())


def dcg(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    empty: str = "exclude",
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
) -> MetricResult:
    """DCG@k: the sum over the top k of each document's grade / log2(rank + 1) (unjudged and
    negative grades gain 0); ``k=None``: the whole ranking, trec_eval's ``dcg``. Not normalised:
    its scale is the grades'."""
    return compute(SPEC["DCG"], **locals())


def ideal_dcg(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    empty: str = "exclude",
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
) -> MetricResult:
    """IDCG@k: the DCG@k of the ideal ranking (every document judged >= 1, highest grade first),
    so that nDCG@k = DCG@k / IDCG@k; ``k=None``: all of them, trec_eval's ``ideal_dcg``. The run
    only chooses the queries."""
    return compute(SPEC["IDCG"], **locals())


# -- bare-statement assertions ---------------------------------------------------------------------
# ``assert_temporal_ndcg(run, gold, k=10) >= 0.8`` needs no ``assert``: the comparison raises
# AssertionError with the explanation when it does not hold, and returns True otherwise.


# -- trec_eval: ranks, counts and sets -------------------------------------------------------------


def r_precision(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    empty: str = "exclude",
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
) -> MetricResult:
    """R-precision: relevant documents in the top R / R, R the query's relevant documents (grade >=
    ``rel``); trec_eval's ``Rprec``. It reads the whole ranking: ``k`` must be None or ``"all"``."""
    return compute(SPEC["Rprec"], **locals())


def r_precision_multiple(
    run: RunLike,
    gold: GoldLike,
    mult: float,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    empty: str = "exclude",
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
) -> MetricResult:
    """Precision at ``mult`` x R, the cutoff int(mult x R + 0.9); trec_eval's ``Rprec_mult``
    (``Rprec_mult_0.20``: mult=0.2). It reads the whole ranking: ``k`` must be None or ``"all"``."""
    return compute(SPEC["Rprec_mult"], **locals())


def bpref(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    empty: str = "exclude",
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
) -> MetricResult:
    """Bpref: for each relevant document retrieved, 1 - (judged non-relevant documents above it, at
    most R) / min(judged non-relevant, R), summed and divided by R; unjudged documents are skipped.
    trec_eval's ``bpref``. It reads the whole ranking: ``k`` must be None or ``"all"``."""
    return compute(SPEC["Bpref"], **locals())


def gm_bpref(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    empty: str = "exclude",
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
) -> MetricResult:
    """Bpref per query; the result is their geometric mean, each floored at 1e-5 (trec_eval's
    ``gm_bpref``). It reads the whole ranking: ``k`` must be None or ``"all"``."""
    return compute(SPEC["gm_bpref"], **locals())


def gm_map(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    empty: str = "exclude",
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
) -> MetricResult:
    """AP per query; the result is their geometric mean, each floored at 1e-5 (trec_eval's
    ``gm_map``). It reads the whole ranking: ``k`` must be None or ``"all"``."""
    return compute(SPEC["gm_map"], **locals())


def interpolated_precision(
    run: RunLike,
    gold: GoldLike,
    recall: float,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    empty: str = "exclude",
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
) -> MetricResult:
    """Interpolated precision at the recall level ``recall`` (in [0, 1]): the best precision at any
    rank at or below the one where round(recall x R) relevant documents are retrieved; trec_eval's
    ``iprec_at_recall`` (``iprec_at_recall_0.50``: recall=0.5). It reads the whole ranking: ``k``
    must be None or ``"all"``."""
    return compute(SPEC["IPrec"], **locals())


def eleven_point_average(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    empty: str = "exclude",
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
) -> MetricResult:
    """The mean interpolated precision at the recall levels 0, 0.1, ..., 1; trec_eval's
    ``11pt_avg``. It reads the whole ranking: ``k`` must be None or ``"all"``."""
    return compute(SPEC["11pt_avg"], **locals())


def num_q(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    empty: str = "exclude",
) -> MetricResult:
    """1 for every query scored: the result is their sum, the number of queries (trec_eval's
    ``num_q``). Every query counts. It reads the whole ranking: ``k`` must be None or ``"all"``."""
    return compute(SPEC["NumQ"], **locals())


def num_ret(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    empty: str = "exclude",
) -> MetricResult:
    """The documents each query retrieved; the result is their sum (trec_eval's ``num_ret``). Every
    query counts. It reads the whole ranking: ``k`` must be None or ``"all"``."""
    return compute(SPEC["NumRet"], **locals())


def num_rel(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    empty: str = "exclude",
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
) -> MetricResult:
    """The relevant documents (grade >= ``rel``) each query has; the result is their sum
    (trec_eval's ``num_rel``). Every query counts. It reads the whole ranking: ``k`` must be None or
    ``"all"``."""
    return compute(SPEC["NumRel"], **locals())


def num_rel_ret(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    empty: str = "exclude",
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
) -> MetricResult:
    """The relevant documents (grade >= ``rel``) each query retrieved; the result is their sum
    (trec_eval's ``num_rel_ret``). Every query counts. It reads the whole ranking: ``k`` must be
    None or ``"all"``."""
    return compute(SPEC["NumRelRet"], **locals())


def num_nonrel_judged_ret(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    empty: str = "exclude",
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
) -> MetricResult:
    """The judged non-relevant documents (grade 0 to ``rel`` - 1) each query retrieved; the result
    is their sum (trec_eval's ``num_nonrel_judged_ret``). Every query counts. It reads the whole
    ranking: ``k`` must be None or ``"all"``."""
    return compute(SPEC["NumNonRelJudgedRet"], **locals())


def set_precision(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    empty: str = "exclude",
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
) -> MetricResult:
    """Relevant documents retrieved / documents retrieved, 0 when none is retrieved (trec_eval's
    ``set_P``). It reads the whole ranking: ``k`` must be None or ``"all"``."""
    return compute(SPEC["SetP"], **locals())


def set_recall(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    empty: str = "exclude",
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
) -> MetricResult:
    """Relevant documents retrieved / the query's relevant documents (trec_eval's ``set_recall``).
    It reads the whole ranking: ``k`` must be None or ``"all"``."""
    return compute(SPEC["SetR"], **locals())


def set_f(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    beta: float = 1.0,
    empty: str = "exclude",
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
) -> MetricResult:
    """(beta + 1) P R / (beta P + R) of SetP and SetR, 0 when nothing relevant is retrieved
    (trec_eval's ``set_F``; its parameter is ``beta`` itself, not squared). It reads the whole
    ranking: ``k`` must be None or ``"all"``."""
    return compute(SPEC["SetF"], **locals())


def set_average_precision(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    empty: str = "exclude",
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
) -> MetricResult:
    """SetP x SetR, the unranked AP (trec_eval's ``set_map``). It reads the whole ranking: ``k``
    must be None or ``"all"``."""
    return compute(SPEC["SetAP"], **locals())


def set_relative_precision(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    empty: str = "exclude",
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
) -> MetricResult:
    """Relevant documents retrieved / min(documents retrieved, R) (trec_eval's ``set_relative_P``).
    It reads the whole ranking: ``k`` must be None or ``"all"``."""
    return compute(SPEC["SetRelP"], **locals())


def relative_precision(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    empty: str = "exclude",
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
) -> MetricResult:
    """Relevant documents in the top k / min(k, R): P@k up to R, R@k past it (trec_eval's
    ``relative_P.k``)."""
    return compute(SPEC["RelP"], **locals())


def utility(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    relevant_retrieved: float = 1.0,
    nonrelevant_retrieved: float = -1.0,
    relevant_missed: float = 0.0,
    nonrelevant_missed: float = 0.0,
    collection_size: int = 0,
    empty: str = "exclude",
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
) -> MetricResult:
    """relevant_retrieved x (relevant retrieved) + nonrelevant_retrieved x (non-relevant retrieved)
    + relevant_missed x (relevant not retrieved) + nonrelevant_missed x (collection_size - retrieved
    - relevant not retrieved), trec_eval's ``utility`` (its -N is ``collection_size``). Every query
    counts. It reads the whole ranking: ``k`` must be None or ``"all"``."""
    return compute(SPEC["Utility"], **locals())


def yaap(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    rel: int | None = None,
    relevance_level: int | None = None,
    empty: str = "exclude",
    fill_unjudged: Judge | None = None,
    fill_grades: Mapping[int, int] | None = None,
) -> MetricResult:
    """YAAP, Robertson's "yet another average precision": log((1 + S) / (1 + R - S)), S = AP x R
    (R: the query's relevant documents), trec_eval's ``yaap``. On one query it rises with AP,
    from log(1 / (1 + R)) to log(1 + R), and is negative exactly when AP < 0.5. ``k=None``: the
    whole ranking; with k, S reads the top k."""
    return compute(SPEC["YAAP"], **locals())


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
assert_temporal_year_precision = _checked(temporal_year_precision)
assert_temporal_year_recall = _checked(temporal_year_recall)
assert_temporal_diversity = _checked(temporal_diversity)
assert_temporal_anchor_f1 = _checked(temporal_anchor_f1)
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
assert_dcg = _checked(dcg)
assert_ideal_dcg = _checked(ideal_dcg)
assert_r_precision = _checked(r_precision)
assert_r_precision_multiple = _checked(r_precision_multiple)
assert_bpref = _checked(bpref)
assert_gm_bpref = _checked(gm_bpref)
assert_gm_map = _checked(gm_map)
assert_interpolated_precision = _checked(interpolated_precision)
assert_eleven_point_average = _checked(eleven_point_average)
assert_num_q = _checked(num_q)
assert_num_ret = _checked(num_ret)
assert_num_rel = _checked(num_rel)
assert_num_rel_ret = _checked(num_rel_ret)
assert_num_nonrel_judged_ret = _checked(num_nonrel_judged_ret)
assert_set_precision = _checked(set_precision)
assert_set_recall = _checked(set_recall)
assert_set_f = _checked(set_f)
assert_set_average_precision = _checked(set_average_precision)
assert_set_relative_precision = _checked(set_relative_precision)
assert_relative_precision = _checked(relative_precision)
assert_utility = _checked(utility)
assert_yaap = _checked(yaap)


# -- TempoEval's cross-period coverage (llm mode) --------------------------------------------------


def temporal_coverage(
    run: RunLike,
    gold: GoldLike,
    k: Cutoff = None,
    mode: str = "llm",
    judge: CoverageJudge | None = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    *,
    empty: str = "exclude",
) -> MetricResult:
    """T-Coverage@k: of a cross-period query's two periods (its gold ``baseline_period`` and
    ``comparison_period``), the share the top k covers: 0, 0.5 or 1. The judge reads each
    document with TempoEval's TemporalCoverage prompt. A query without the periods is excluded
    and named; ``empty`` changes nothing here (no query is left out for having nothing
    relevant)."""
    return compute(SPEC["T-Coverage"], **locals())


assert_temporal_coverage = _checked(temporal_coverage)
