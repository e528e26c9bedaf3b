"""The names of infAP, ERR, RBP and its residual, ndcg_rel, Rndcg, binG, G, unj and Judged: the
grammar's canonical forms, trec_eval's names as trec_eval prints them (``test/out.test.a``), and
the contract with ``tempoeval trec_eval``: each printed name parses, and prints back the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_tempoeval import (
    GoldSet,
    MetricError,
    Run,
    binary_normalized_gain,
    evaluate,
    expected_reciprocal_rank,
    inferred_average_precision,
    judged,
    ndcg_rel,
    normalized_gain,
    parse_measure,
    rank_biased_precision,
    rbp_residual,
    rndcg,
    score,
    unjudged,
)
from pytest_tempoeval.metrics.measures import trec_eval_name

GOLD = GoldSet.load("examples/gold/mini_elections.yaml")
RUN = Run({"us-2020": ["us2020", "us2016", "us2012"], "uk-2019": ["uk2019", "fr2017"]})


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("infAP", "infAP"),
        ("infap", "infAP"),  # case does not matter when the name stays unambiguous
        ("infAP(rel=2)", "infAP(rel=2)"),
        ("ERR@10", "ERR@10"),
        ("err@20", "ERR@20"),
        ("ERR", "ERR"),
        ("RBP", "RBP"),
        ("RBP(p=0.8)", "RBP"),  # ir_measures' default p is left out
        ("RBP(rel=1)", "RBP(rel=1)"),  # given, rel makes RBP binary: it is kept
        ("RBP(rel=2, p=0.95)", "RBP(p=0.95,rel=2)"),
        ("RBP(p=0.9)@100", "RBP(p=0.9)@100"),
        ("RBPResidual(p=0.9)", "RBPResidual(p=0.9)"),
        ("ndcg_rel", "ndcg_rel"),
        ("Rndcg", "Rndcg"),
        ("Rndcg(rel=2)", "Rndcg(rel=2)"),
        ("binG", "binG"),
        ("G", "G"),
        ("Unjudged@5", "Unjudged@5"),
        ("Unjudged", "Unjudged"),
        ("Judged", "Judged"),  # the whole ranking, as in ir_measures
        # the function names are aliases
        ("inferred_average_precision", "infAP"),
        ("expected_reciprocal_rank@5", "ERR@5"),
        ("rank_biased_precision", "RBP"),
        ("rbp_residual", "RBPResidual"),
        ("rndcg", "Rndcg"),
        ("binary_normalized_gain", "binG"),
        ("normalized_gain", "G"),
        ("unjudged@10", "Unjudged@10"),
        # trec_eval's names, and the parameters they stand for
        ("rbp", "RBP(p=0.9)"),
        ("rbp_resid", "RBPResidual(p=0.9)"),
        ("unj_5", "Unjudged@5"),
        ("unj.20", "Unjudged@20"),
    ],
)
def test_canonical_forms(text: str, canonical: str) -> None:
    assert str(parse_measure(text)) == canonical
    assert parse_measure(canonical) == parse_measure(text)


# Every name trec_eval 10 prints for these measures (test/out.test.a).
PRINTED = [
    "infAP",
    "binG",
    "G",
    "ndcg_rel",
    "Rndcg",
    "rbp",
    "rbp_resid",
    "unj_5",
    "unj_10",
    "unj_20",
]


@pytest.mark.parametrize("printed", PRINTED)
def test_each_name_trec_eval_prints_parses_and_prints_back(printed: str) -> None:
    assert trec_eval_name(parse_measure(printed)) == printed


def test_the_printed_names_are_the_ones_in_trec_eval_output() -> None:
    text = (Path(__file__).parents[1] / "data/trec_eval/out.test.a").read_text()
    names = {line.split()[0] for line in text.splitlines()}
    assert set(PRINTED) <= names


def test_measures_trec_eval_cannot_name() -> None:
    """trec_eval's rbp is RBP(p=0.9), graded: ir_measures' default p and a binary RBP have no
    trec_eval name; neither has ERR, nor a cutoff on the whole-ranking measures."""
    for text in ["RBP", "RBP(p=0.9,rel=1)", "ERR@10", "infAP@10", "infAP(rel=2)", "Judged"]:
        assert trec_eval_name(parse_measure(text)) is None, text
    assert trec_eval_name(parse_measure("Unjudged@7")) == "unj_7"
    assert trec_eval_name(parse_measure("RBPResidual(p=0.9)")) == "rbp_resid"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("RBP(p=1)", "p is the chance of going on to the next document, in (0, 1), got 1.0"),
        ("RBP(p=x)", "p must be a number, got 'x'"),
        ("RBP(rel=0)", "measure 'RBP(rel=0)': rel"),
        ("RBP(gain=exp)", "RBP has no parameter 'gain'"),
        ("ERR(rel=2)@10", "ERR has no parameter 'rel'"),
        ("G(rel=2)", "G has no parameter 'rel'"),  # graded: trec_eval's -l does not reach it
        ("Unjudged(rel=2)@5", "Unjudged has no parameter 'rel'"),
        # trec_eval's names stand for their own parameters: with others, the defaults of which?
        ("rbp(p=0.5)", "rbp is trec_eval's name for RBP(p=0.9) and takes no parameters or cutoff"),
        ("rbp(rel=1)", "write RBP(key=value,...)@k"),
        ("rbp_resid@10", "rbp_resid is trec_eval's name for RBPResidual(p=0.9)"),
    ],
)
def test_bad_names_are_metric_errors_in_our_words(text: str, message: str) -> None:
    with pytest.raises(MetricError) as error:
        parse_measure(text)
    assert message in str(error.value)


CALLS = [
    (lambda: inferred_average_precision(RUN, GOLD), "infAP"),
    (lambda: inferred_average_precision(RUN, GOLD, relevance_level=2), "infAP(rel=2)"),
    (lambda: expected_reciprocal_rank(RUN, GOLD, k=2), "ERR@2"),
    (lambda: expected_reciprocal_rank(RUN, GOLD), "ERR"),
    (lambda: rank_biased_precision(RUN, GOLD), "RBP"),
    (lambda: rank_biased_precision(RUN, GOLD, p=0.9), "RBP(p=0.9)"),
    (lambda: rank_biased_precision(RUN, GOLD, rel=2, k=2), "RBP(rel=2)@2"),
    (lambda: rbp_residual(RUN, GOLD, p=0.9), "RBPResidual(p=0.9)"),
    (lambda: ndcg_rel(RUN, GOLD), "ndcg_rel"),
    (lambda: rndcg(RUN, GOLD, rel=2), "Rndcg(rel=2)"),
    (lambda: binary_normalized_gain(RUN, GOLD), "binG"),
    (lambda: normalized_gain(RUN, GOLD, k=3), "G@3"),
    (lambda: unjudged(RUN, GOLD, k=5), "Unjudged@5"),
    (lambda: unjudged(RUN, GOLD, k="all"), "Unjudged"),
]


@pytest.mark.parametrize(("call", "expected"), CALLS, ids=[name for _, name in CALLS])
def test_a_result_names_its_measure_and_that_name_scores_the_same(
    call: object, expected: str
) -> None:
    result = call()  # type: ignore[operator]
    assert result.measure == expected
    again = score(result.measure, RUN, GOLD)
    assert again.per_query == result.per_query and again.excluded == result.excluded


def test_judged_without_a_cutoff_is_the_whole_ranking_and_the_function_keeps_its_default(
    tmp_path,
) -> None:
    """The issue's case: one judged document in the top 10 of a 20-document ranking. Judged@10
    is 0.1; Judged, as in ir_measures, the whole ranking: 0.05. judged() with no k still reads
    the default k (10)."""
    (tmp_path / "qrels").write_text("q 0 d00 1\nq 0 x 0\n")
    gold = GoldSet.from_trec_qrels(tmp_path / "qrels")
    run = Run({"q": [f"d{i:02d}" for i in range(20)]})
    results = evaluate(run, gold, ["Judged", "Judged@10"])
    assert float(results["Judged"]) == 0.05 and results["Judged"].measure == "Judged"
    assert float(results["Judged@10"]) == 0.1
    assert float(judged(run, gold)) == 0.1 and judged(run, gold).measure == "Judged@10"
    assert float(judged(run, gold, k="all")) == 0.05
