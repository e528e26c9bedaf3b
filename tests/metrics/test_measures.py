"""Measure names: the grammar, its errors, the canonical form, and scoring by name."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_tempoeval import (
    GoldSet,
    Measure,
    MetricError,
    Run,
    assert_measure,
    average_precision,
    bpref,
    evaluate,
    gm_map,
    interpolated_precision,
    judged,
    mrr,
    ndcg,
    num_ret,
    parse_measure,
    precision,
    r_precision,
    r_precision_multiple,
    recall,
    relative_precision,
    score,
    set_f,
    success,
    temporal_map,
    temporal_mrr,
    temporal_ndcg,
    temporal_precision,
    temporal_recall,
    utility,
)
from pytest_tempoeval.metrics.measures import FAMILIES, trec_eval_name

GOLD = GoldSet.load("examples/gold/mini_elections.yaml")
RUN = Run(
    {
        "us-2020": ["us2020", "us2016", "us2012"],
        "us-2016": ["fr2017", "us2020", "us2016"],
        "uk-2019": ["uk2019", "uk2017", "fr2017"],
        "fr-2022": ["fr2017", "fr2022", "uk2017"],
    }
)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("nDCG@10", "nDCG@10"),
        ("P(rel=2)@5", "P(rel=2)@5"),
        ("P(rel=1)@5", "P@5"),  # a default is left out
        ("R@100", "R@100"),
        ("RR", "RR"),
        ("AP", "AP"),
        ("AP@100", "AP@100"),
        ("Success@5", "Success@5"),
        ("Judged@10", "Judged@10"),
        ("nDCG(dcg='exp-log2')@10", "nDCG(gain=exp)@10"),  # ir_measures' spelling of the gain
        ("nDCG(dcg=log2)@10", "nDCG@10"),
        ("nDCG(judged_only=True)@10", "nDCG(judged_only=True)@10"),
        ("MRR@10", "RR@10"),
        ("ndcg@3", "nDCG@3"),
        ("NDCG @ 3", "nDCG@3"),
        ("success(rel=2)@3", "Success(rel=2)@3"),
        ("T-nDCG@10", "T-nDCG@10"),
        ("T-nDCG(mode=focus_time)@10", "T-nDCG@10"),
        ("T-nDCG(mode=llm)@10", "T-nDCG(mode=llm)@10"),
        ("T-P(threshold=0.5, mode=llm)@5", "T-P(mode=llm,threshold=0.5)@5"),
        ("temporal_ndcg@3", "T-nDCG@3"),  # the function names are aliases
        ("average_precision", "AP"),
        ("P_5", "P@5"),  # trec_eval's names
        ("ndcg_cut_10", "nDCG@10"),
        ("map", "AP"),
        ("map_cut_100", "AP@100"),
        ("recip_rank", "RR"),
        ("ndcg", "nDCG"),
        # trec_eval's rank, count and set measures
        ("Rprec", "Rprec"),
        ("RPrec", "Rprec"),  # ir_measures' other spelling
        ("Rprec(rel=2)", "Rprec(rel=2)"),
        ("r_precision", "Rprec"),
        ("Rprec_mult@0.2", "Rprec_mult@0.2"),
        ("Rprec_mult @ 0.20", "Rprec_mult@0.2"),
        ("Rprec_mult_0.20", "Rprec_mult@0.2"),
        ("Rprec_mult.2", "Rprec_mult@2.0"),  # trec_eval's -m spelling
        ("Bpref", "Bpref"),
        ("BPref", "Bpref"),
        ("bpref", "Bpref"),
        ("Bpref(rel=2)", "Bpref(rel=2)"),
        ("gm_bpref", "gm_bpref"),
        ("gm_map", "gm_map"),
        ("GMAP", "gm_map"),
        ("IPrec@0.5", "IPrec@0.5"),
        ("IPrec@.5", "IPrec@0.5"),
        ("IPrec@1", "IPrec@1.0"),
        ("IPrec(rel=2)@0.25", "IPrec(rel=2)@0.25"),
        ("iprec_at_recall_0.50", "IPrec@0.5"),
        ("iprec_at_recall_0.00", "IPrec@0.0"),
        ("iprec_at_recall.0.25", "IPrec@0.25"),
        ("iprec_at_recall@0.1", "IPrec@0.1"),
        ("11pt_avg", "11pt_avg"),
        ("11pt_avg(rel=2)", "11pt_avg(rel=2)"),
        ("NumQ", "NumQ"),
        ("num_q", "NumQ"),
        ("NumRet", "NumRet"),
        ("num_ret", "NumRet"),
        ("NumRel(rel=2)", "NumRel(rel=2)"),
        ("num_rel_ret", "NumRelRet"),
        ("num_nonrel_judged_ret", "NumNonRelJudgedRet"),
        ("SetP", "SetP"),
        ("set_P", "SetP"),
        ("set_recall", "SetR"),
        ("set_F", "SetF"),
        ("SetF(beta=0.5)", "SetF(beta=0.5)"),
        ("SetF(beta=1)", "SetF"),
        ("set_map", "SetAP"),
        ("set_relative_P", "SetRelP"),
        ("relative_P_5", "RelP@5"),
        ("RelP(rel=2)@5", "RelP(rel=2)@5"),
        ("utility", "Utility"),
        ("Utility(nonrelevant_retrieved=-2)", "Utility(nonrelevant_retrieved=-2.0)"),
        ("success_1", "Success@1"),
        ("success_10", "Success@10"),
    ],
)
def test_measure_names_parse_to_their_canonical_form(text: str, canonical: str) -> None:
    assert str(parse_measure(text)) == canonical
    assert parse_measure(canonical) == parse_measure(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nDGC@10", "unknown measure 'nDGC' in 'nDGC@10': did you mean 'nDCG'?"),
        ("Precison@5", "did you mean 'P'?"),
        ("Foo", "unknown measure 'Foo' in 'Foo' (known measures: nDCG, P, R, AP, RR,"),
        ("P(rell=2)@5", ("P has no parameter 'rell'; did you mean 'rel'? (P's parameters: rel, "
                         "fill)")),
        ("Judged(rel=2)@5", "Judged has no parameter 'rel'"),
        ("P(rel=x)@5", "rel must be an integer, got 'x'"),
        ("P(rel=2,rel=3)@5", "parameter 'rel' is given twice"),
        ("P(rel)@5", "expected key=value, got 'rel'"),
        ("P@0", "the cutoff after @ must be a positive integer"),
        ("P@five", "the cutoff after @ must be a positive integer"),
        ("T-nDCG(mode=gld)@3", "mode must be one of focus_time, gold, llm, got 'gld'"),
        ("T-P(mode=gold)@5", "mode must be one of focus_time, llm, got 'gold'"),
        ("nDCG(judged_only=maybe)", "judged_only must be true or false"),
        ("nDCG(dcg=exp)@5", "dcg must be one of log2, exp-log2"),
        ("@10", "cannot read measure '@10'"),
        ("P@5(rel=2)", ("measure 'P@5(rel=2)': parameters go before the cutoff: did you mean "
         "'P(rel=2)@5'? (NAME(key=value,...)@k)")),
        ("nDCG@10(gain=exp)", "did you mean 'nDCG(gain=exp)@10'?"),
        ("T-nDCG @ 10 (mode=llm, gain=exp)", "did you mean 'T-nDCG(mode=llm,gain=exp)@10'?"),
        ("nDCG(gain=exp)@10(judged_only=true)",
         "did you mean 'nDCG(gain=exp,judged_only=true)@10'?"),
        ("P@5()", "did you mean 'P@5'?"),
        ("Rprek", "unknown measure 'Rprek' in 'Rprek': did you mean 'Rprec'?"),
        ("bpreff", "did you mean 'Bpref'?"),
        ("IPrc@0.5", "did you mean 'IPrec'?"),
        ("gm_mpa", "did you mean 'gm_map'?"),
        ("NumRell", "did you mean 'NumRel'?"),
        ("SetFF", "did you mean 'SetF'?"),
        ("Rprec@10", ("measure 'Rprec@10': Rprec reads the whole ranking and takes no cutoff; "
         "write Rprec without @")),
        ("set_P@10", "SetP reads the whole ranking and takes no cutoff"),
        ("IPrec", "measure 'IPrec': IPrec needs its recall after @ (the recall level"),
        ("IPrec@1.5", "measure 'IPrec@1.5': recall must be a finite number >= 0 and <= 1, got 1.5"),
        ("IPrec@nan", "recall must be a finite number >= 0 and <= 1, got nan"),
        ("IPrec@x", "measure 'IPrec@x': recall must be a number, got 'x'"),
        ("Rprec_mult@0", "measure 'Rprec_mult@0': mult must be a finite number > 0, got 0.0"),
        ("P@0.5", "the cutoff after @ must be a positive integer"),
        ("SetF(beta=-1)", "beta must be a finite number >= 0, got -1.0"),
        ("Utility(collection_size=1.5)", "collection_size must be an integer, got '1.5'"),
        ("Utility(collection_size=-1)", "collection_size must be a whole number >= 0, got -1"),
        ("NumRet(rel=2)", "NumRet has no parameter 'rel'"),
    ],
)  # fmt: skip
def test_a_bad_measure_is_a_metric_error_saying_what_was_meant(text: str, message: str) -> None:
    with pytest.raises(MetricError) as error:
        parse_measure(text)
    assert message in str(error.value)


@st.composite
def measures(draw: st.DrawFn) -> Measure:
    family = FAMILIES[draw(st.sampled_from(sorted(FAMILIES)))]
    params = {}
    for key in family.params:
        if not draw(st.booleans()):
            continue
        kind = family.param(key).type  # default None: not given (RBP's rel)
        if key in family.choices:
            params[key] = draw(st.sampled_from(family.choices[key]))
        elif kind is bool:
            params[key] = draw(st.booleans())
        elif kind is int:
            params[key] = draw(st.integers(1, 5))  # rel, the lowest relevant grade
        else:  # a threshold in [0, 1), a persistence in (0, 1)
            params[key] = draw(st.floats(0.001, 0.999, allow_nan=False))
    kept = tuple(sorted((k, v) for k, v in params.items() if v != family.params[k]))
    if family.at is not None:  # "@" gives a parameter, a number every name gives (IPrec@0.5)
        return Measure(family.name, kept, draw(st.floats(0.001, 1.0, allow_nan=False)))
    cutoffs = st.none() | st.integers(1, 10_000) if family.rank_cutoff else st.none()
    return Measure(family.name, kept, draw(cutoffs))


@given(measures())
def test_every_measure_prints_a_string_that_parses_back_to_it(measure: Measure) -> None:
    assert parse_measure(str(measure)) == measure


# trec_eval's names of the rank, count and set measures, as it prints them (its test/out.test.a)
TREC_EVAL_PRINTED = [
    "num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "gm_map", "gm_bpref",
    "Rprec", "bpref", "11pt_avg", "utility", "set_P", "set_relative_P", "set_recall", "set_map",
    "set_F", "success_1", "success_5", "success_10",
    *(f"iprec_at_recall_{level / 10:.2f}" for level in range(11)),
    *(f"Rprec_mult_{mult / 10:.2f}" for mult in range(2, 21, 2)),
    *(f"relative_P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
]  # fmt: skip


@pytest.mark.parametrize("printed", TREC_EVAL_PRINTED)
def test_trec_eval_s_printed_names_read_back_to_themselves(printed: str) -> None:
    measure = parse_measure(printed)
    assert trec_eval_name(measure) == printed
    assert parse_measure(str(measure)) == measure


def test_a_level_trec_eval_cannot_print_has_no_trec_eval_name() -> None:
    """trec_eval prints a level with 2 decimals: 0.125 would print as 0.12, another measure."""
    assert trec_eval_name(parse_measure("IPrec@0.125")) is None
    assert trec_eval_name(parse_measure("IPrec@0.25")) == "iprec_at_recall_0.25"
    assert trec_eval_name(parse_measure("Rprec_mult@5")) == "Rprec_mult_5.00"
    # trec_eval names a chosen parameter as typed (set_F_0.5 or set_F_0.50), -l not at all
    assert trec_eval_name(parse_measure("SetF(beta=0.5)")) is None
    assert trec_eval_name(parse_measure("Rprec(rel=2)")) is None


def test_a_measure_whose_at_is_a_parameter_needs_it_when_scored() -> None:
    with pytest.raises(MetricError, match=r"^measure 'IPrec': IPrec needs @recall$"):
        score(Measure("IPrec"), RUN, GOLD)
    with pytest.raises(MetricError, match="the cutoff after @ must be a whole number"):
        score(Measure("P", (), 0.5), RUN, GOLD)


def test_trec_eval_names_of_measures() -> None:
    names = {text: trec_eval_name(parse_measure(text)) for text in ["P@5", "nDCG@10", "nDCG"]}
    assert names == {"P@5": "P_5", "nDCG@10": "ndcg_cut_10", "nDCG": "ndcg"}
    assert trec_eval_name(parse_measure("P(rel=2)@5")) is None  # trec_eval's -l is global
    assert trec_eval_name(parse_measure("RR@10")) is None  # trec_eval has no cutoff on recip_rank
    assert trec_eval_name(parse_measure("Judged@10")) is None


CALLS = [
    (lambda: temporal_ndcg(RUN, GOLD, k=3), "T-nDCG@3"),
    (lambda: temporal_ndcg(RUN, GOLD, k=3, mode="gold", gain="exponential"), None),
    (lambda: temporal_precision(RUN, GOLD, k=2, threshold=0.25), "T-P(threshold=0.25)@2"),
    (lambda: temporal_recall(RUN, GOLD, k=3), "T-R@3"),
    (lambda: temporal_mrr(RUN, GOLD), "T-RR"),
    (lambda: temporal_map(RUN, GOLD, k=2), "T-AP@2"),
    (lambda: ndcg(RUN, GOLD, k=3), "nDCG@3"),
    (lambda: ndcg(RUN, GOLD, k="all"), "nDCG"),
    (lambda: ndcg(RUN, GOLD, k=2, judged_only=True), "nDCG(judged_only=True)@2"),
    (lambda: precision(RUN, GOLD, k=2, rel=2), "P(rel=2)@2"),
    (lambda: precision(RUN, GOLD, k=2, relevance_level=3), "P(rel=3)@2"),
    (lambda: recall(RUN, GOLD, k="all"), "R"),
    (lambda: mrr(RUN, GOLD, k=1), "RR@1"),
    (lambda: average_precision(RUN, GOLD), "AP"),
    (lambda: success(RUN, GOLD, k=1), "Success@1"),
    (lambda: judged(RUN, GOLD, k=3), "Judged@3"),
    (lambda: r_precision(RUN, GOLD), "Rprec"),
    (lambda: r_precision_multiple(RUN, GOLD, 0.5, rel=2), "Rprec_mult(rel=2)@0.5"),
    (lambda: interpolated_precision(RUN, GOLD, recall=0.25), "IPrec@0.25"),
    (lambda: bpref(RUN, GOLD, k="all"), "Bpref"),
    (lambda: gm_map(RUN, GOLD), "gm_map"),
    (lambda: num_ret(RUN, GOLD), "NumRet"),
    (lambda: set_f(RUN, GOLD, beta=0.25), "SetF(beta=0.25)"),
    (lambda: relative_precision(RUN, GOLD, k=2), "RelP@2"),
    (lambda: utility(RUN, GOLD, relevant_missed=-1), "Utility(relevant_missed=-1.0)"),
]


@pytest.mark.parametrize(("call", "expected"), CALLS)
def test_every_result_names_its_measure_and_scoring_that_name_gives_the_same_result(
    call: object, expected: str | None
) -> None:
    result = call()  # type: ignore[operator]
    if expected is not None:
        assert result.measure == expected
    again = score(result.measure, RUN, GOLD)
    assert again.measure == result.measure
    assert float(again) == float(result) and again.per_query == result.per_query
    assert again.excluded == result.excluded


def test_evaluate_keys_results_by_the_strings_given() -> None:
    results = evaluate(RUN, GOLD, ["nDCG@3", "MRR", "P(rel=2)@2", "T-nDCG@3"])
    assert list(results) == ["nDCG@3", "MRR", "P(rel=2)@2", "T-nDCG@3"]
    assert results["MRR"].measure == "RR"
    # By hand: us-2016 retrieves us2016 (graded 3) at rank 3, the others their one relevant
    # document at ranks 1, 1 and 2: RR = (1 + 1/3 + 1 + 1/2) / 4.
    assert float(results["MRR"]) == pytest.approx((1 + 1 / 3 + 1 + 1 / 2) / 4)
    # P(rel=2)@2: campaign (graded 1) never counts; each query has one grade-3 document.
    assert results["P(rel=2)@2"].per_query == {
        "us-2020": 0.5,
        "us-2016": 0.0,
        "uk-2019": 0.5,
        "fr-2022": 0.5,
    }
    assert float(results["T-nDCG@3"]) == pytest.approx(0.7527558800718479)


def test_evaluate_parses_every_measure_before_scoring_any() -> None:
    with pytest.raises(MetricError, match="did you mean 'nDCG'"):
        evaluate(RUN, GOLD, ["P@5", "nDGC@10"])
    with pytest.raises(MetricError, match="no measures given"):
        evaluate(RUN, GOLD, [])


def test_judged_at_k_counts_every_judgment_and_the_unjudged_documents() -> None:
    # us-2016 judges us2016 and campaign: of fr2017, us2020, us2016 one is judged.
    result = judged(RUN, GOLD, k=3)
    assert result.per_query == pytest.approx(
        {"us-2020": 1 / 3, "us-2016": 1 / 3, "uk-2019": 1 / 3, "fr-2022": 1 / 3}
    )
    assert judged(Run({"us-2016": ["campaign"]}), GOLD, k=10).per_query == {
        "us-2016": 1.0,  # one retrieved, judged (grade 1): a short ranking is not penalised
        "us-2020": 0.0,  # not in the run
        "uk-2019": 0.0,
        "fr-2022": 0.0,
    }


def test_rel_and_relevance_level_must_agree() -> None:
    assert float(precision(RUN, GOLD, k=2, rel=2, relevance_level=2)) == 0.375
    with pytest.raises(MetricError, match="rel=2 and relevance_level=3 disagree"):
        precision(RUN, GOLD, k=2, rel=2, relevance_level=3)
    with pytest.raises(MetricError, match="rel must be an integer grade"):
        precision(RUN, GOLD, k=2, rel=1.5)  # type: ignore[arg-type]


REL_BELOW_1 = (
    "rel is the lowest grade that counts as relevant, and a grade of 0 or less means judged "
    "non-relevant, so rel <= 0 would count non-relevant documents as relevant"
)


@pytest.mark.parametrize("rel", [0, -1])
def test_rel_below_1_is_refused_in_measure_names_and_in_the_functions(rel: int) -> None:
    """P(rel=0)@5 and P(rel=-1)@5 were accepted with no documented meaning (ir_measures and
    pytrec_eval refuse a relevance level below 1)."""
    with pytest.raises(MetricError) as error:
        parse_measure(f"P(rel={rel})@5")
    assert str(error.value).startswith(f"measure 'P(rel={rel})@5': rel must be at least 1, got ")
    assert REL_BELOW_1 in str(error.value)
    with pytest.raises(MetricError, match="rel must be at least 1"):
        evaluate(RUN, GOLD, [f"Success(rel={rel})@5"])
    for metric in (precision, recall, average_precision, mrr, success):
        for keyword in ("rel", "relevance_level"):
            with pytest.raises(MetricError) as error:
                metric(RUN, GOLD, k=5, **{keyword: rel})
            assert str(error.value).startswith(f"rel must be at least 1, got {rel}: ")


def test_rel_above_the_largest_grade_is_refused() -> None:
    with pytest.raises(MetricError, match="rel must be at most 1,000,000 .*, got 1,000,001"):
        parse_measure("P(rel=1000001)@5")
    with pytest.raises(MetricError, match="rel must be at most 1,000,000"):
        precision(RUN, GOLD, k=5, rel=10**30)
    assert str(parse_measure("P(rel=1000000)@5")) == "P(rel=1000000)@5"


def test_judge_agreement_refuses_rel_below_1_too() -> None:
    from pytest_tempoeval import judge_agreement

    with pytest.raises(MetricError, match="rel must be at least 1, got 0"):
        judge_agreement(GOLD, object(), "binary", rel=0)  # type: ignore[arg-type]


def test_assert_measure_raises_the_explanation() -> None:
    assert assert_measure("nDCG@3", RUN, GOLD) >= 0.5
    with pytest.raises(AssertionError, match=r"^nDCG@3 \[gold\] = 0\.\d+, needed >= 0\.99"):
        assert_measure("nDCG@3", RUN, GOLD) >= 0.99  # noqa: B015 (a bare statement by design)
