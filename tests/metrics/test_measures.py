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
    evaluate,
    judged,
    mrr,
    ndcg,
    parse_measure,
    precision,
    recall,
    score,
    success,
    temporal_map,
    temporal_mrr,
    temporal_ndcg,
    temporal_precision,
    temporal_recall,
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
        ("P(rell=2)@5", "P has no parameter 'rell'; did you mean 'rel'? (P's parameters: rel)"),
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
    for key, default in family.params.items():
        if not draw(st.booleans()):
            continue
        if key in family.choices:
            params[key] = draw(st.sampled_from(family.choices[key]))
        elif isinstance(default, bool):
            params[key] = draw(st.booleans())
        elif isinstance(default, int):
            params[key] = draw(st.integers(1, 5))  # rel, the lowest relevant grade
        else:
            params[key] = draw(st.floats(0, 0.999, allow_nan=False))
    kept = tuple(sorted((k, v) for k, v in params.items() if v != family.params[k]))
    if family.at is not None:  # "@" gives a parameter, a number every name gives (IPrec@0.5)
        return Measure(family.name, kept, draw(st.floats(0.001, 1.0, allow_nan=False)))
    cutoffs = st.none() | st.integers(1, 10_000) if family.rank_cutoff else st.none()
    return Measure(family.name, kept, draw(cutoffs))


@given(measures())
def test_every_measure_prints_a_string_that_parses_back_to_it(measure: Measure) -> None:
    assert parse_measure(str(measure)) == measure


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
