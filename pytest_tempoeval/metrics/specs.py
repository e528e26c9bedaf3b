"""Every measure declared once: a :class:`MeasureSpec` with its name, kernel, modes, parameters
and flags. Model: ir_measures' ``measures/base.py`` (a measure and its ``ParamInfo``) and
``measures/ndcg.py`` (one declaration per measure).

Derived from the specs, nowhere written out again:

- the measure grammar's names, aliases and trec_eval names (:mod:`.measures`);
- the public functions' table, ``FUNCTIONS``, each with its ``assert_`` form (the lazy export
  tables of :mod:`pytest_tempoeval.metrics` and :mod:`pytest_tempoeval` write the names out, so
  that installing the plugin builds no spec, and a test checks they match);
- how each function and each measure name is scored (:mod:`.scoring`);
- the tables of ``docs/measures.md`` (:mod:`.spec_docs`: ``python -m
  pytest_tempoeval.metrics.spec_docs`` rewrites them, and ``tests/metrics/test_specs.py`` fails
  when they differ from the specs).

This module sits in the metrics layer and may be imported early (by the plugin's checks),
so it imports no numpy: a spec names its kernel (a function of :mod:`.kernels`) instead of holding
it, and :mod:`.scoring` passes the kernel the relevance arrays its parameters name.

One module on purpose, though long: the table of every measure is the point of it, read top to
bottom as docs/measures.md is; split by family, a measure's name, parameters and trec_eval names
would be looked for in several places.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from numbers import Integral, Real
from typing import SupportsFloat, SupportsIndex

from pytest_tempoeval.errors import MetricError, check_choice

ParamValue = bool | int | float | str


class Mode(StrEnum):
    """How relevance is decided (:mod:`.relevance`). Compares equal to its string."""

    FOCUS_TIME = "focus_time"  # 4 x Jaccard(query focus time, document focus time)
    GOLD = "gold"  # the gold set's graded judgments
    LLM = "llm"  # an LLM judge's grade or verdict


class Aggregate(StrEnum):
    """How a measure's per-query values become its one value (trec_eval's "all" line)."""

    MEAN = "mean"  # the arithmetic mean of the counted queries
    GEOMETRIC = "geometric"  # trec_eval's gm_map: exp(mean(log(max(value, 1e-5))))
    SUM = "sum"  # counts (num_ret, num_rel): the total over the counted queries


class Empty(StrEnum):
    """What a query with nothing relevant gets (``empty=``): a score whose denominator is 0."""

    EXCLUDE = "exclude"  # left out of the mean and named (the plugin's default)
    ZERO = "zero"  # scored 0 and counted (trec_eval's rule)


GAINS = ("linear", "exponential")  # as the functions spell them; a measure name writes exp


# The specs are imported at plugin start-up: eq=False (a spec is its identity) spares the
# generated __eq__ and __hash__, a third of a dataclass's creation time.
@dataclass(frozen=True, kw_only=True, eq=False)
class Param:
    """One parameter of a measure: as a function argument (``gain="exponential"``) and in a
    measure name (``nDCG(gain=exp)``)."""

    name: str
    type: type[bool | int | float | str]
    # The function's value (a measure name leaves it out). None: not given, as ir_measures'
    # NOT_PROVIDED (RBP without rel is graded).
    default: ParamValue | None
    description: str  # one line, for docs/measures.md
    choices: tuple[str, ...] = ()  # a word parameter's values, as the functions spell them
    # A function value a measure name spells another way: {"exponential": "exp"}.
    words: Mapping[str, str] = field(default_factory=dict)
    # Another keyword of the functions for it (pytrec_eval's relevance_level for rel). Both
    # default to None in the signatures, so that a value given twice can be told apart.
    also: str | None = None
    # Another key a measure name may use, and its words: ir_measures' nDCG(dcg='exp-log2').
    foreign: tuple[str, Mapping[str, str]] | None = None
    check: Callable[[object], str | None] | None = None  # the problem with a value, or None
    # The functions' keyword for it, when they take an object, not the word: fill=llm is
    # fill_unjudged=judge (None in the signatures: not given).
    argument: str | None = None

    @property
    def measure_choices(self) -> tuple[str, ...]:
        return tuple(self.words.get(choice, choice) for choice in self.choices)

    @property
    def measure_default(self) -> ParamValue | None:
        return self.word(self.default)

    def word(self, value: ParamValue | None) -> ParamValue | None:
        """``value`` as a measure name writes it."""
        return self.words.get(value, value) if isinstance(value, str) else value

    def value(self, word: ParamValue) -> ParamValue:
        """A measure name's ``word`` as the functions take it."""
        spelled = {measure: function for function, measure in self.words.items()}
        return spelled.get(word, word) if isinstance(word, str) else word

    def checked(self, value: object) -> ParamValue | None:
        """A function argument, checked (:class:`MetricError`) and of the declared type."""
        if value is None and self.default is None:
            return None  # not given
        if self.choices:
            return check_choice(self.name, value, self.choices, MetricError)
        problem = self.check(value) if self.check is not None else None
        if problem is not None:
            raise MetricError(problem)
        return _as_type(self.type, value)


def _as_type(kind: type[ParamValue], value: object) -> ParamValue:
    """A checked value as its declared type: rel=numpy.int64(2) is 2, threshold=0 is 0.0."""
    if kind is bool:
        return bool(value)
    if kind is int and isinstance(value, SupportsIndex):
        return int(value)
    if kind is float and isinstance(value, SupportsFloat):
        return float(value)
    return str(value)


def _rel_problem(rel: object) -> str | None:
    from pytest_tempoeval.data.values import rel_problem  # at first use: not at plugin start-up

    return rel_problem(rel)


def _persistence_problem(p: object) -> str | None:
    if isinstance(p, (int, float)) and not isinstance(p, bool) and 0.0 < p < 1.0:
        return None
    return f"p is the chance of going on to the next document, in (0, 1), got {p!r}"


def _jaccard_problem(threshold: object) -> str | None:
    if isinstance(threshold, (int, float)) and 0.0 <= threshold < 1.0:
        return None
    return f"threshold is a Jaccard similarity in [0, 1), got {threshold!r}"


def _real_problem(
    name: str, value: object, low: float | None, high: float | None = None, *, above: bool = False
) -> str | None:
    """Why ``value`` is not a finite number in [low, high] (``above``: above low), or None."""
    number = None if isinstance(value, bool) or not isinstance(value, Real) else float(value)
    if number is not None and math.isfinite(number):
        low_ok = low is None or number > low or (number == low and not above)
        if low_ok and (high is None or number <= high):
            return None
    bounds = "" if low is None else f" {'>' if above else '>='} {low:g}"
    bounds += "" if high is None else f" and <= {high:g}"
    return f"{name} must be a finite number{bounds}, got {value!r}"


def _count_problem(name: str, value: object) -> str | None:
    if isinstance(value, bool) or not isinstance(value, Integral) or int(value) < 0:
        return f"{name} must be a whole number >= 0, got {value!r}"
    return None


@dataclass(frozen=True, kw_only=True, eq=False)
class MeasureSpec:
    """One measure. ``Family`` is its old name, kept as an alias."""

    name: str  # canonical: nDCG, T-P
    function: str  # its public function in metrics.functions (also an alias of the name)
    kernel: str  # its kernel in metrics.kernels
    summary: str  # one line, for docs/measures.md
    modes: tuple[Mode, ...] = (Mode.GOLD,)  # the first is the default; gold only: no mode=
    parameters: tuple[Param, ...] = ()  # besides mode, k, strict and fail_on_excluded
    aliases: tuple[str, ...] = ()  # other spellings users write (MRR for RR)
    trec_eval: str | None = None  # trec_eval's name with a cutoff: P for P_5 (also P.5)
    trec_eval_whole: str | None = None  # trec_eval's name without one: map
    # The parameters trec_eval's names stand for, where its defaults are not ours: rbp is
    # RBP(p=0.9).
    trec_eval_params: Mapping[str, ParamValue] = field(default_factory=dict)
    whole_ranking: bool = False  # a name without @k scores the whole ranking, not the default k
    function_default_k: bool = True  # the function's k=None reads the default k, else all ranks
    ideal_from_all_judgments: bool = False  # k="all": the ideal ranking from every judgment
    needs_ideal: bool = False  # relevance of every known document (ideal ranking, pool), too
    first_relevant_only: bool = False  # gold mode reads each ranking down to its first relevant
    binary: bool = True  # relevant or not (explanations show 1/0; llm mode asks for a verdict)
    needs_relevant: bool = False  # a query with nothing relevant is left out of the mean
    counts_every_query: bool = False  # no query is left out, not even one with nothing relevant
    # Why a query the kernel cannot score (its denominator is 0) is left out, when not the mode's
    # "nothing relevant" (T-YearP: no year in its top k); empty="zero" scores such a query 0.
    empty_reason: str | None = None
    aggregate: Aggregate = Aggregate.MEAN  # how the per-query values become one
    # False: the measure reads the whole ranking and takes no cutoff: no @k in a name, and the
    # function's k must be None or "all" (Rprec, Bpref, the counts, the set measures).
    rank_cutoff: bool = True
    # What "@" sets when it is not a rank cutoff: this parameter, which every name and call gives
    # (IPrec@0.5: the recall level). trec_eval's name prints it with 2 decimals: the ``trec_eval``
    # name, "_", then the value (iprec_at_recall_0.50).
    at: Param | None = None
    trec_eval_query_lines: bool = True  # trec_eval -q prints a line per query (not gm_map, num_q)
    # llm mode asks which of a cross-period query's two periods each document covers (T-Coverage)
    cross_period: bool = False
    # Gold mode reads the judgments (False: the counts of queries and of retrieved documents):
    # its holes can be filled by the judge (fill=llm).
    reads_judgments: bool = True

    @property
    def temporal(self) -> bool:
        return self.modes != (Mode.GOLD,)

    @property
    def fillable(self) -> bool:
        """Whether gold mode's unjudged documents can be graded by the judge (``fill=llm``,
        ``fill_unjudged=judge``): every measure with a gold mode that reads the judgments."""
        return Mode.GOLD in self.modes and self.reads_judgments

    @property
    def all_params(self) -> tuple[Param, ...]:
        """The parameters a measure name takes: ``mode`` first for the temporal measures, then
        the spec's, then ``fill`` for the measures whose holes the judge can fill."""
        fill = (FILL,) if self.fillable else ()
        if not self.temporal:
            return (*self.parameters, *fill)
        mode = Param(
            name="mode",
            type=str,
            default=str(self.modes[0]),
            choices=tuple(str(mode) for mode in self.modes),
            description="how relevance is decided: focus_time (4·Jaccard of the query's and the "
            "document's focus times), gold (the judgments), llm (the judge's; needs judge=)",
        )
        return (mode, *self.parameters, *fill)

    @property
    def params(self) -> dict[str, ParamValue | None]:
        """Parameter -> its default, as a measure name writes it."""
        return {param.name: param.measure_default for param in self.all_params}

    @property
    def choices(self) -> dict[str, tuple[str, ...]]:
        """Word parameter -> the words a measure name may give it."""
        return {param.name: param.measure_choices for param in self.all_params if param.choices}

    def param(self, name: str) -> Param:
        return next(param for param in self.all_params if param.name == name)

    def arguments(self, given: Mapping[str, object]) -> dict[str, ParamValue | None]:
        """The function's arguments by parameter name, checked, with ``also`` keywords merged.
        A name the spec does not declare is a TypeError: a function and its spec disagree."""
        declared = {
            name
            for param in self.all_params
            for name in (param.name, param.also)
            if not param.argument
        }
        if self.at is not None:
            declared.add(self.at.name)
        unknown = sorted(set(given) - declared)
        if unknown:
            raise TypeError(f"{self.function}() got arguments its spec lacks: {unknown}")
        values = {}
        if self.at is not None:
            if self.at.name not in given:
                raise TypeError(f"{self.function}() needs its {self.at.name}")
            values[self.at.name] = self.at.checked(given[self.at.name])
        for param in self.all_params:
            if param.argument:  # an object (the judge), which the scoring reads: fill=llm
                values[param.name] = param.default
                continue
            value = given.get(param.name, param.default)
            if param.also is not None:
                value = _merged(param, value, given.get(param.also))
            values[param.name] = param.checked(value)
        return values

    def measure_params(
        self, values: Mapping[str, ParamValue | None]
    ) -> dict[str, ParamValue | None]:
        """The parameters of the measure a call computed, as its name writes them."""
        return {param.name: param.word(values[param.name]) for param in self.all_params}


Family = MeasureSpec


def _merged(param: Param, value: object, other: object) -> object:
    if value is not None and other is not None and value != other:
        raise MetricError(f"{param.name}={value!r} and {param.also}={other!r} disagree; give one")
    return value if value is not None else other if other is not None else param.default


# -- the parameters --------------------------------------------------------------------------------

GAIN = Param(
    name="gain",
    type=str,
    default="linear",
    choices=GAINS,
    words={"exponential": "exp"},
    description="the gain of a grade: linear (rel), or exponential (2^rel − 1; exp in a name)",
)
REL = Param(
    name="rel",
    type=int,
    default=1,
    also="relevance_level",
    check=_rel_problem,
    description="the lowest grade that counts as relevant (trec_eval's -l); the functions also "
    "take it as relevance_level=",
)
THRESHOLD = Param(
    name="threshold",
    type=float,
    default=0.0,
    check=_jaccard_problem,
    description="the Jaccard overlap above which a document counts as temporally relevant",
)
JUDGED_ONLY = Param(
    name="judged_only",
    type=bool,
    default=False,
    description="unjudged documents (and negative grades) are removed from the ranking first "
    "(trec_eval's -J)",
)

# Gold mode's holes (a retrieved document of the top k the gold set does not judge) graded by the
# judge, mapped onto the gold set's scale (metrics/filling.py). The functions take the judge itself,
# fill_unjudged=judge; a measure name says fill=llm, and evaluate(..., judge=) gives the judge.
FILL_CHOICES = ("none", "llm")
FILL = Param(
    name="fill",
    type=str,
    default="none",
    choices=FILL_CHOICES,
    argument="fill_unjudged",
    description="gold mode; llm: the unjudged documents of the top k are graded by the judge "
    "(evaluate's judge=; the functions take fill_unjudged=judge) and put on the gold set's scale, "
    "human and filled grades scored together; a document without a text stays unjudged "
    "(docs/judge.md)",
)

# RBP's: the user goes on to the next document with probability p (ir_measures' default 0.8;
# trec_eval's rbp takes 0.9).
PERSISTENCE = Param(
    name="p",
    type=float,
    default=0.8,
    check=_persistence_problem,
    description="the persistence: the chance that the user goes on to the next document",
)

# -- the measures ----------------------------------------------------------------------------------

SPECS: tuple[MeasureSpec, ...] = (
    MeasureSpec(
        name="nDCG",
        function="ndcg",
        kernel="ndcg",
        summary="normalised discounted cumulative gain of the graded judgments",
        parameters=(
            replace(GAIN, foreign=("dcg", {"log2": "linear", "exp-log2": "exp"})),
            JUDGED_ONLY,
        ),
        aliases=("NDCG", "ndcg"),
        trec_eval="ndcg_cut",
        trec_eval_whole="ndcg",
        whole_ranking=True,
        ideal_from_all_judgments=True,
        needs_ideal=True,
        binary=False,
    ),
    MeasureSpec(
        name="P",
        function="precision",
        kernel="precision",
        summary="share of the top k that is relevant",
        parameters=(REL,),
        aliases=("Precision",),
        trec_eval="P",
        needs_relevant=True,
    ),
    MeasureSpec(
        name="R",
        function="recall",
        kernel="recall",
        summary="share of the query's relevant documents in the top k",
        parameters=(REL,),
        aliases=("Recall",),
        trec_eval="recall",
        whole_ranking=True,
        needs_relevant=True,
    ),
    MeasureSpec(
        name="AP",
        function="average_precision",
        kernel="average_precision",
        summary="mean of the precisions at the ranks of the relevant documents",
        parameters=(REL,),
        aliases=("MAP", "map"),
        trec_eval="map_cut",
        trec_eval_whole="map",
        whole_ranking=True,
        function_default_k=False,
        needs_relevant=True,
    ),
    MeasureSpec(
        name="RR",
        function="mrr",
        kernel="reciprocal_rank",
        summary="1 / the rank of the first relevant document",
        parameters=(REL,),
        aliases=("MRR", "recip_rank"),
        trec_eval_whole="recip_rank",
        whole_ranking=True,
        function_default_k=False,
        first_relevant_only=True,
        needs_relevant=True,
    ),
    MeasureSpec(
        name="Success",
        function="success",
        kernel="success",
        summary="1 if a relevant document is in the top k, else 0",
        parameters=(REL,),
        trec_eval="success",
        first_relevant_only=True,
        needs_relevant=True,
    ),
    MeasureSpec(
        name="Judged",
        function="judged",
        kernel="judged_share",
        summary="share of the retrieved top k that carries a judgment",
        # Without a cutoff, the whole ranking, as ir_measures' Judged (it meant the default k);
        # judged() with k=None still reads the default k.
        whole_ranking=True,
        binary=False,
        counts_every_query=True,
    ),
    MeasureSpec(
        name="T-nDCG",
        function="temporal_ndcg",
        kernel="ndcg",
        summary="nDCG of the temporal relevance",
        modes=(Mode.FOCUS_TIME, Mode.GOLD, Mode.LLM),
        parameters=(GAIN,),
        aliases=("T-NDCG",),
        needs_ideal=True,
        binary=False,
    ),
    MeasureSpec(
        name="T-P",
        function="temporal_precision",
        kernel="precision",
        summary="share of the top k that is temporally relevant",
        modes=(Mode.FOCUS_TIME, Mode.LLM),
        parameters=(THRESHOLD,),
    ),
    MeasureSpec(
        name="T-R",
        function="temporal_recall",
        kernel="recall",
        summary="share of the known temporally relevant documents in the top k",
        modes=(Mode.FOCUS_TIME,),
        parameters=(THRESHOLD,),
        needs_ideal=True,
        needs_relevant=True,
    ),
    MeasureSpec(
        name="T-RR",
        function="temporal_mrr",
        kernel="reciprocal_rank",
        summary="1 / the rank of the first temporally relevant document",
        modes=(Mode.FOCUS_TIME,),
        parameters=(THRESHOLD,),
        aliases=("T-MRR",),
        whole_ranking=True,
        function_default_k=False,
        needs_ideal=True,
        needs_relevant=True,
    ),
    MeasureSpec(
        name="T-AP",
        function="temporal_map",
        kernel="average_precision",
        summary="average precision over the temporally relevant documents",
        modes=(Mode.FOCUS_TIME,),
        parameters=(THRESHOLD,),
        aliases=("T-MAP",),
        whole_ranking=True,
        function_default_k=False,
        needs_ideal=True,
        needs_relevant=True,
    ),
    # -- trec_eval: graded, sampled and user-model measures
    MeasureSpec(
        name="infAP",
        function="inferred_average_precision",
        kernel="inferred_average_precision",
        summary="average precision estimated from a judged sample of the pool: a negative grade "
        "is a pooled document left unjudged (Yilmaz & Aslam)",
        parameters=(REL,),
        trec_eval_whole="infAP",
        whole_ranking=True,
        function_default_k=False,
        needs_relevant=True,
    ),
    MeasureSpec(
        name="ERR",
        function="expected_reciprocal_rank",
        kernel="expected_reciprocal_rank",
        summary="expected reciprocal rank of the document where a cascade user stops: grade g "
        "stops them with chance (2^g − 1) / 16, grades 0-4",
        whole_ranking=True,
        function_default_k=False,
        binary=False,
        needs_relevant=True,
    ),
    MeasureSpec(
        name="RBP",
        function="rank_biased_precision",
        kernel="rank_biased_precision",
        summary="rank-biased precision: the gain a user collects going on to each next document "
        "with chance p",
        parameters=(
            PERSISTENCE,
            Param(
                name="rel",
                type=int,
                default=None,
                check=_rel_problem,
                description="RBP: the lowest grade that gains 1, the others 0; not given, graded "
                "(a grade's gain is grade / the query's highest grade, as trec_eval's rbp)",
            ),
        ),
        trec_eval_whole="rbp",
        trec_eval_params={"p": 0.9},
        whole_ranking=True,
        function_default_k=False,
        binary=False,
        needs_relevant=True,
    ),
    MeasureSpec(
        name="RBPResidual",
        function="rbp_residual",
        kernel="rbp_residual",
        summary="how much RBP could still rise if every unjudged document retrieved were "
        "relevant, plus the weight past the end of the ranking",
        parameters=(PERSISTENCE,),
        trec_eval_whole="rbp_resid",
        trec_eval_params={"p": 0.9},
        whole_ranking=True,
        function_default_k=False,
        binary=False,
        counts_every_query=True,
    ),
    MeasureSpec(
        name="ndcg_rel",
        function="ndcg_rel",
        kernel="ndcg_rel",
        summary="nDCG averaged over the ranks of the documents with a grade >= 1 (trec_eval's, "
        "experimental)",
        trec_eval_whole="ndcg_rel",
        whole_ranking=True,
        function_default_k=False,
        binary=False,
    ),
    MeasureSpec(
        name="Rndcg",
        function="rndcg",
        kernel="rndcg",
        summary="nDCG averaged over the ranks where the ideal gain changes (trec_eval's, "
        "experimental)",
        parameters=(REL,),
        trec_eval_whole="Rndcg",
        whole_ranking=True,
        function_default_k=False,
        binary=False,
        needs_relevant=True,
    ),
    MeasureSpec(
        name="binG",
        function="binary_normalized_gain",
        kernel="binary_normalized_gain",
        summary="mean over the relevant documents of 1 / log2(2 + non-relevant documents above "
        "it) (trec_eval's, experimental)",
        parameters=(REL,),
        trec_eval_whole="binG",
        whole_ranking=True,
        function_default_k=False,
        needs_relevant=True,
    ),
    MeasureSpec(
        name="G",
        function="normalized_gain",
        kernel="normalized_gain",
        summary="each document's gain discounted by how far the gain so far trails the ideal's, "
        "over the total gain (trec_eval's, experimental)",
        trec_eval_whole="G",
        whole_ranking=True,
        function_default_k=False,
        binary=False,
    ),
    MeasureSpec(
        name="Unjudged",
        function="unjudged",
        kernel="unjudged_share",
        summary="share of the top k that carries no judgment (a negative grade counts as none) / k",
        trec_eval="unj",
        whole_ranking=True,
        binary=False,
        counts_every_query=True,
    ),
    MeasureSpec(
        name="DCG",
        function="dcg",
        kernel="discounted_cumulative_gain",
        summary="discounted cumulative gain: each document's grade / log2(rank + 1), summed "
        "(not normalised)",
        trec_eval_whole="dcg",
        whole_ranking=True,
        function_default_k=False,
        binary=False,
    ),
    MeasureSpec(
        name="IDCG",
        function="ideal_dcg",
        kernel="ideal_discounted_cumulative_gain",
        summary="the DCG of the ideal ranking: every document judged >= 1, highest grade first "
        "(nDCG's denominator)",
        trec_eval_whole="ideal_dcg",
        whole_ranking=True,
        function_default_k=False,
        ideal_from_all_judgments=True,
        binary=False,
    ),
)
# -- trec_eval: ranks, counts and sets ------------------------------------------------------------
# trec_eval 10's measures of one ranked list (its m_*.c), each scored as trec_eval scores it.

RECALL_LEVEL = Param(
    name="recall",
    type=float,
    default=0.0,  # never used: every name and call gives it
    check=lambda value: _real_problem("recall", value, 0.0, 1.0),
    description="the recall level, a number in [0, 1], after @ (IPrec@0.5)",
)
R_MULTIPLE = Param(
    name="mult",
    type=float,
    default=1.0,  # never used: every name and call gives it
    check=lambda value: _real_problem("mult", value, 0.0, above=True),
    description="the cutoff as a multiple of R, the query's relevant documents, after @ "
    "(Rprec_mult@0.2: precision at 0.2 R)",
)
BETA = Param(
    name="beta",
    type=float,
    default=1.0,
    check=lambda value: _real_problem("beta", value, 0.0),
    description="the weight of recall against precision: (beta + 1) P R / (beta P + R), "
    "trec_eval's set_F parameter (not squared)",
)


def _coefficient(name: str, default: float, counts: str) -> Param:
    return Param(
        name=name,
        type=float,
        default=default,
        check=lambda value: _real_problem(name, value, None),
        description=f"utility's worth of each {counts} (trec_eval's default {default:g})",
    )


UTILITY = (
    _coefficient("relevant_retrieved", 1.0, "relevant document retrieved"),
    _coefficient("nonrelevant_retrieved", -1.0, "non-relevant document retrieved"),
    _coefficient("relevant_missed", 0.0, "relevant document not retrieved"),
    _coefficient("nonrelevant_missed", 0.0, "non-relevant document not retrieved"),
    Param(
        name="collection_size",
        type=int,
        default=0,
        check=lambda value: _count_problem("collection_size", value),
        description="the documents in the collection, for the non-relevant ones not retrieved "
        "(trec_eval's -N; default 0)",
    ),
)

SPECS += (
    MeasureSpec(
        name="Rprec",
        function="r_precision",
        kernel="r_precision",
        summary="precision at R, the query's relevant documents (= recall at R)",
        parameters=(REL,),
        aliases=("RPrec", "R-prec"),
        trec_eval_whole="Rprec",
        whole_ranking=True,
        function_default_k=False,
        needs_relevant=True,
        rank_cutoff=False,
    ),
    MeasureSpec(
        name="Rprec_mult",
        function="r_precision_multiple",
        kernel="r_precision_multiple",
        summary="precision at mult x R (the cutoff rounded as trec_eval: int(mult R + 0.9))",
        parameters=(REL,),
        trec_eval="Rprec_mult",
        whole_ranking=True,
        function_default_k=False,
        needs_relevant=True,
        rank_cutoff=False,
        at=R_MULTIPLE,
    ),
    MeasureSpec(
        name="Bpref",
        function="bpref",
        kernel="bpref",
        summary="binary preference: how few judged non-relevant documents rank above each "
        "relevant one; unjudged documents are skipped",
        parameters=(REL,),
        aliases=("BPref",),
        trec_eval_whole="bpref",
        whole_ranking=True,
        function_default_k=False,
        needs_relevant=True,
        rank_cutoff=False,
    ),
    MeasureSpec(
        name="gm_bpref",
        function="gm_bpref",
        kernel="bpref",
        summary="Bpref per query; its one value is their geometric mean (each floored at 1e-5)",
        parameters=(REL,),
        trec_eval_whole="gm_bpref",
        whole_ranking=True,
        function_default_k=False,
        needs_relevant=True,
        rank_cutoff=False,
        aggregate=Aggregate.GEOMETRIC,
        trec_eval_query_lines=False,
    ),
    MeasureSpec(
        name="gm_map",
        function="gm_map",
        kernel="average_precision",
        summary="AP per query; its one value is their geometric mean (each floored at 1e-5)",
        parameters=(REL,),
        aliases=("GMAP",),
        trec_eval_whole="gm_map",
        whole_ranking=True,
        function_default_k=False,
        needs_relevant=True,
        rank_cutoff=False,
        aggregate=Aggregate.GEOMETRIC,
        trec_eval_query_lines=False,
    ),
    MeasureSpec(
        name="IPrec",
        function="interpolated_precision",
        kernel="interpolated_precision",
        summary="interpolated precision at a recall level: the best precision at any rank "
        "reaching it",
        parameters=(REL,),
        aliases=("iprec_at_recall",),
        trec_eval="iprec_at_recall",
        whole_ranking=True,
        function_default_k=False,
        needs_relevant=True,
        rank_cutoff=False,
        at=RECALL_LEVEL,
    ),
    MeasureSpec(
        name="11pt_avg",
        function="eleven_point_average",
        kernel="eleven_point_average",
        summary="mean interpolated precision at the recall levels 0, 0.1, ..., 1",
        parameters=(REL,),
        trec_eval_whole="11pt_avg",
        whole_ranking=True,
        function_default_k=False,
        needs_relevant=True,
        rank_cutoff=False,
    ),
    MeasureSpec(
        name="NumQ",
        function="num_q",
        kernel="num_q",
        summary="1 per query: its one value is the number of queries scored",
        trec_eval_whole="num_q",
        whole_ranking=True,
        function_default_k=False,
        counts_every_query=True,
        rank_cutoff=False,
        aggregate=Aggregate.SUM,
        trec_eval_query_lines=False,
        reads_judgments=False,
    ),
    MeasureSpec(
        name="NumRet",
        function="num_ret",
        kernel="num_ret",
        summary="documents retrieved; its one value is their sum",
        trec_eval_whole="num_ret",
        whole_ranking=True,
        function_default_k=False,
        counts_every_query=True,
        rank_cutoff=False,
        aggregate=Aggregate.SUM,
        reads_judgments=False,
    ),
    MeasureSpec(
        name="NumRel",
        function="num_rel",
        kernel="num_rel",
        summary="relevant documents judged; its one value is their sum",
        parameters=(REL,),
        trec_eval_whole="num_rel",
        whole_ranking=True,
        function_default_k=False,
        counts_every_query=True,
        rank_cutoff=False,
        aggregate=Aggregate.SUM,
    ),
    MeasureSpec(
        name="NumRelRet",
        function="num_rel_ret",
        kernel="num_rel_ret",
        summary="relevant documents retrieved; its one value is their sum",
        parameters=(REL,),
        trec_eval_whole="num_rel_ret",
        whole_ranking=True,
        function_default_k=False,
        counts_every_query=True,
        rank_cutoff=False,
        aggregate=Aggregate.SUM,
    ),
    MeasureSpec(
        name="NumNonRelJudgedRet",
        function="num_nonrel_judged_ret",
        kernel="num_nonrel_judged_ret",
        summary="judged non-relevant documents retrieved (grade 0 to rel - 1); its one value "
        "is their sum",
        parameters=(REL,),
        trec_eval_whole="num_nonrel_judged_ret",
        whole_ranking=True,
        function_default_k=False,
        counts_every_query=True,
        rank_cutoff=False,
        aggregate=Aggregate.SUM,
    ),
    MeasureSpec(
        name="SetP",
        function="set_precision",
        kernel="set_precision",
        summary="share of the retrieved documents that is relevant (0 when none is retrieved)",
        parameters=(REL,),
        aliases=("set_P",),
        trec_eval_whole="set_P",
        whole_ranking=True,
        function_default_k=False,
        needs_relevant=True,
        rank_cutoff=False,
    ),
    MeasureSpec(
        name="SetR",
        function="set_recall",
        kernel="set_recall",
        summary="share of the query's relevant documents that is retrieved",
        parameters=(REL,),
        trec_eval_whole="set_recall",
        whole_ranking=True,
        function_default_k=False,
        needs_relevant=True,
        rank_cutoff=False,
    ),
    MeasureSpec(
        name="SetF",
        function="set_f",
        kernel="set_f",
        summary="weighted harmonic mean of SetP and SetR",
        parameters=(REL, BETA),
        aliases=("set_F",),
        trec_eval_whole="set_F",
        whole_ranking=True,
        function_default_k=False,
        needs_relevant=True,
        rank_cutoff=False,
    ),
    MeasureSpec(
        name="SetAP",
        function="set_average_precision",
        kernel="set_average_precision",
        summary="unranked AP: SetP x SetR",
        parameters=(REL,),
        aliases=("set_map",),
        trec_eval_whole="set_map",
        whole_ranking=True,
        function_default_k=False,
        needs_relevant=True,
        rank_cutoff=False,
    ),
    MeasureSpec(
        name="SetRelP",
        function="set_relative_precision",
        kernel="set_relative_precision",
        summary="relevant documents retrieved / the most a set of that size could hold",
        parameters=(REL,),
        aliases=("set_relative_P",),
        trec_eval_whole="set_relative_P",
        whole_ranking=True,
        function_default_k=False,
        needs_relevant=True,
        rank_cutoff=False,
    ),
    MeasureSpec(
        name="RelP",
        function="relative_precision",
        kernel="relative_precision",
        summary="relevant documents in the top k / the most the top k could hold, min(k, R)",
        parameters=(REL,),
        aliases=("relative_P",),
        trec_eval="relative_P",
        needs_relevant=True,
    ),
    MeasureSpec(
        name="Utility",
        function="utility",
        kernel="utility",
        summary="a weighted count of the relevant and non-relevant documents retrieved and missed",
        parameters=(REL, *UTILITY),
        trec_eval_whole="utility",
        whole_ranking=True,
        function_default_k=False,
        counts_every_query=True,
        rank_cutoff=False,
    ),
    MeasureSpec(
        name="YAAP",
        function="yaap",
        kernel="yet_another_average_precision",
        summary="Robertson's smoothed AP: log((1 + S) / (1 + R − S)), S = AP x R (from "
        "log(1 / (1 + R)) to log(1 + R))",
        parameters=(REL,),
        trec_eval_whole="yaap",
        whole_ranking=True,
        function_default_k=False,
        needs_relevant=True,
    ),
)
# -- TempoEval's cross-period coverage (llm mode) --------------------------------------------------

SPECS += (
    MeasureSpec(
        name="T-Coverage",
        function="temporal_coverage",
        kernel="temporal_coverage",
        summary="of a cross-period query's baseline and comparison periods, the share the top k "
        "covers, as the judge reads each document (TempoEval's TemporalCoverage)",
        modes=(Mode.LLM,),
        binary=False,
        cross_period=True,
    ),
)

# -- TempoEval's focus-time set measures (issue 28) ----------------------------------------------
# TempoEval 0.1.0's TemporalYearPrecision, TemporalYearRecall, TemporalDiversity (focus-time forms)
# and AnchorCoverage, on the years of the top k's focus times (kernels.year_precision, ...).

NO_YEAR_IN_TOP = "no year in its top k (no document there has a focus time)"
NO_TIME_ANCHORS = "no required time anchors (key_time_anchors)"
DIVERSITY_SCOPES = ("collection", "retrieved")
SCOPE = Param(
    name="scope",
    type=str,
    default="collection",
    choices=DIVERSITY_SCOPES,
    description="T-Diversity's span of years to cover (TempoEval's total_scope): collection (the "
    "distinct years of the gold set's documents), or retrieved (the top k's own years: 1 "
    "whenever they have one, TempoEval without total_scope)",
)

SPECS += (
    MeasureSpec(
        name="T-YearP",
        function="temporal_year_precision",
        kernel="year_precision",
        summary="share of the years the top k are about (the union of their focus times) that "
        "the query is about too",
        modes=(Mode.FOCUS_TIME,),
        aliases=("T-YearPrecision",),
        empty_reason=NO_YEAR_IN_TOP,
    ),
    MeasureSpec(
        name="T-YearR",
        function="temporal_year_recall",
        kernel="year_recall",
        summary="share of the query's years that the top k are about (the union of their focus "
        "times)",
        modes=(Mode.FOCUS_TIME,),
        aliases=("T-YearRecall",),
    ),
    MeasureSpec(
        name="T-Diversity",
        function="temporal_diversity",
        kernel="year_diversity",
        summary="distinct years the top k are about over the span of years to cover (scope), at "
        "most 1",
        modes=(Mode.FOCUS_TIME,),
        parameters=(SCOPE,),
        counts_every_query=True,  # it reads no query focus time
        empty_reason=NO_YEAR_IN_TOP,
    ),
    MeasureSpec(
        name="T-AnchorF1",
        function="temporal_anchor_f1",
        kernel="anchor_f1",
        summary="F1 of the top k's years against the query's required time anchors: P = their "
        "years inside an anchor, R = the anchors they touch",
        modes=(Mode.FOCUS_TIME,),
        aliases=("T-AnchorCoverage",),
        counts_every_query=True,  # it reads the anchors, not the query's focus time
        empty_reason=NO_TIME_ANCHORS,
    ),
)
SPEC = {spec.name: spec for spec in SPECS}
# The public metric functions, in the order of the specs; each also has an ``assert_`` form.
FUNCTIONS = tuple(spec.function for spec in sorted(SPECS, key=lambda spec: not spec.temporal))
