"""trec_eval's own test data (version 10, shipped in tests/data/trec_eval/), read by the plugin and
compared with trec_eval's printed outputs, per query and for `all`, to its 4 printed decimals."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_tempoeval import (
    GoldSet,
    MetricResult,
    Run,
    average_precision,
    mrr,
    ndcg,
    parse_measure,
    precision,
    recall,
    score,
)
from pytest_tempoeval.metrics.measures import measure_of, trec_eval_name

DATA = Path(__file__).parent / "trec_eval"
# trec_eval measure -> the plugin's function of (run, gold, cutoff, relevance level).
MEASURES: dict[str, Callable[[Run, GoldSet, int | None, int], MetricResult]] = {
    "map": lambda run, gold, _, rel: average_precision(run, gold, rel=rel),
    "map_cut": lambda run, gold, k, rel: average_precision(run, gold, k=k, rel=rel),
    "P": lambda run, gold, k, rel: precision(run, gold, k=k, rel=rel),
    "recall": lambda run, gold, k, rel: recall(run, gold, k=k, rel=rel),
    "recip_rank": lambda run, gold, _, rel: mrr(run, gold, rel=rel),
    "ndcg_cut": lambda run, gold, k, _: ndcg(run, gold, k=k),  # graded: -l does not apply
}
_MEASURE = re.compile(r"(?P<name>[a-z_A-Z]+?)(?:_(?P<k>\d+))?")


def trec_eval_output(name: str) -> dict[str, dict[str, str]]:
    """measure -> {query id or 'all': value as printed}, for the measures the plugin has."""
    values: dict[str, dict[str, str]] = {}
    for line in (DATA / name).read_text().splitlines():
        measure, query, value = line.split()
        match = _MEASURE.fullmatch(measure)
        if (
            match
            and match["name"] in MEASURES
            and (match["k"] is not None) == (match["name"] not in ("map", "recip_rank"))
        ):
            values.setdefault(measure, {})[query] = value
    return values


def compute(measure: str, run: Run, gold: GoldSet, rel: int = 1) -> MetricResult:
    match = _MEASURE.fullmatch(measure)
    assert match is not None
    return MEASURES[match["name"]](run, gold, int(match["k"]) if match["k"] else None, rel)


def check_against(output: str, qrels: str, results: str, rel: int = 1) -> int:
    """Every value of ``output`` equals the plugin's to 4 decimals; returns how many it checked."""
    expected = trec_eval_output(output)
    gold = GoldSet.from_trec_qrels(DATA / qrels)
    run = Run.load(DATA / results)
    checked = 0
    for measure, by_query in expected.items():
        result = compute(measure, run, gold, rel)
        for query, value in by_query.items():
            ours = float(result) if query == "all" else result.per_query[query]
            assert f"{ours:.4f}" == value, (measure, query, ours, value)
            checked += 1
    return checked


def test_default_measures_match_out_test() -> None:
    assert trec_eval_output("out.test")["map"]["all"] == "0.1785"
    # map, recip_rank and P at 9 cutoffs, for `all` (out.test has no per-query lines)
    assert check_against("out.test", "qrels.test", "results.test") == 11


def test_all_trec_per_query_matches_out_test_aq() -> None:
    """map, map_cut, P, recall, recip_rank and ndcg_cut at every cutoff, per query and overall:
    (2 + 4 x 9 cutoffs) measures x (3 queries + all)."""
    assert check_against("out.test.aq", "qrels.test", "results.test") == 38 * 4


def test_relevance_level_2_matches_out_test_aql() -> None:
    """trec_eval -l2 (grade >= 2 is relevant) on qrels graded -1 to 4 is rel=2: every value of
    out.test.aql the plugin has a measure for (per query and overall) matches."""
    assert check_against("out.test.aql", "qrels.rel_level", "results.test", rel=2) == 38 * 4
    # The level matters: at the default level 1 these qrels give other values.
    with pytest.raises(AssertionError):
        check_against("out.test.aql", "qrels.rel_level", "results.test", rel=1)


def test_missing_run_query_scores_zero_as_with_dash_c() -> None:
    """results.trunc lacks query 302: the plugin scores it 0 and counts it, as trec_eval -c."""
    assert check_against("out.test.aqc", "qrels.test", "results.trunc") > 100
    result = average_precision(
        Run.load(DATA / "results.trunc"), GoldSet.from_trec_qrels(DATA / "qrels.test")
    )
    assert result.per_query["302"] == 0.0 and result.extra["missing_queries"] == 1


def test_comment_lines_are_skipped_as_trec_eval_10_skips_them() -> None:
    """The file holds '# comment here' and '# and comment here' (four tokens: read as data, it
    would be a query named '#', scored 0, and MAP would fall from 0.1785 to 0.1339)."""
    with_comments = GoldSet.from_trec_qrels(DATA / "qrels.test.with-comments")
    assert "#" not in with_comments and len(with_comments) == 3
    assert check_against("out.test", "qrels.test.with-comments", "results.test") == 11
    # The same judgments, except one doc id that holds a '#' (not a comment: not at a line start).
    judged = with_comments.queries["301"].relevant
    assert judged.pop("CR#93E-1860") == 0
    plain = GoldSet.from_trec_qrels(DATA / "qrels.test").queries["301"].relevant
    assert judged == {doc: grade for doc, grade in plain.items() if doc != "CR93E-1860"}


@pytest.mark.parametrize("k", [5, 10, 100, None])
def test_negative_grades_are_judged_non_relevant(k: int | None, tmp_path: Path) -> None:
    """qrels.rel_level grades -1..4. A -1 is judged non-relevant: every measure equals the one
    from the same file with each -1 written as 0."""
    text = (DATA / "qrels.rel_level").read_text()
    assert " -1\n" in text
    (tmp_path / "zeros.qrels").write_text(text.replace(" -1\n", " 0\n"))
    run = Run.load(DATA / "results.test")
    with_negatives = GoldSet.from_trec_qrels(DATA / "qrels.rel_level")
    zeros = GoldSet.from_trec_qrels(tmp_path / "zeros.qrels")
    for metric in (average_precision, precision, recall, ndcg, mrr):
        if k is None and metric in (precision, recall, ndcg):
            continue
        ours, theirs = metric(run, with_negatives, k=k), metric(run, zeros, k=k)
        assert ours.per_query == theirs.per_query


def test_negative_grades_match_pytrec_eval() -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels: dict[str, dict[str, int]] = {}
    for line in (DATA / "qrels.rel_level").read_text().splitlines():
        query, _, doc, grade = line.split()
        qrels.setdefault(query, {})[doc] = int(grade)
    run: dict[str, dict[str, float]] = {}
    for line in (DATA / "results.test").read_text().splitlines():
        query, _, doc, _, score, _ = line.split()
        run.setdefault(query, {})[doc] = float(score)
    measures = {"map", "P_10", "recall_100", "ndcg_cut_10", "recip_rank"}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    gold, ours_run = (
        GoldSet.from_trec_qrels(DATA / "qrels.rel_level"),
        Run.load(DATA / "results.test"),
    )
    ours = {
        "map": average_precision(ours_run, gold),
        "P_10": precision(ours_run, gold, k=10),
        "recall_100": recall(ours_run, gold, k=100),
        "ndcg_cut_10": ndcg(ours_run, gold, k=10),
        "recip_rank": mrr(ours_run, gold),
    }
    for measure, result in ours.items():
        for query, value in result.per_query.items():
            assert value == pytest.approx(theirs[query][measure], abs=1e-12), (measure, query)


# -- trec_eval's rank, count and set measures, by the names trec_eval prints -----------------------
# (tests/metrics/test_trec_eval_measures.py checks them per query against pytrec_eval, to 1e-12)
RANKS_COUNTS_SETS = re.compile(
    r"Rprec|Rprec_mult_[\d.]+|bpref|gm_bpref|gm_map|iprec_at_recall_[\d.]+|11pt_avg|num_q|num_ret"
    r"|num_rel|num_rel_ret|num_nonrel_judged_ret|set_P|set_recall|set_F|set_map|set_relative_P"
    r"|relative_P_\d+|utility|success_\d+"
)
# trec_eval -mutility.2,-1,0,0 prints its coefficients in the name, as typed: not a name to parse
TYPED_NAMES = {"utility_2,-1,0,0": "Utility(relevant_retrieved=2)"}


def printed(output: str) -> dict[str, dict[str, str]]:
    """name -> {query id or 'all': value as printed}, for the rank, count and set measures."""
    values: dict[str, dict[str, str]] = {}
    for line in (DATA / output).read_text().splitlines():
        name, query, value = line.split()
        if RANKS_COUNTS_SETS.fullmatch(name) or name in TYPED_NAMES:
            values.setdefault(name, {})[query] = value
    return values


def as_printed(value: float, like: str) -> str:
    """``value`` as trec_eval prints it: 4 decimals, or a count (num_*) as an integer."""
    if "." in like:
        return f"{value:.4f}"
    return str(int(value)) if float(value).is_integer() else repr(value)


def check_printed(output: str, qrels: str, results: str, rel: int = 1) -> int:
    """Every rank, count and set value of ``output`` equals the plugin's, scored by the name
    trec_eval prints (at relevance level ``rel``, trec_eval's -l) with empty="zero" (trec_eval's
    rule); returns how many it checked."""
    gold, run = GoldSet.from_trec_qrels(DATA / qrels), Run.load(DATA / results)
    checked, values = 0, printed(output)
    with_q = any(set(by_query) != {"all"} for by_query in values.values())  # trec_eval -q
    for name, by_query in values.items():
        measure = parse_measure(TYPED_NAMES.get(name, name))
        if name not in TYPED_NAMES:  # the name trec_eval prints reads back to itself
            assert trec_eval_name(measure) == name
        # trec_eval prints no per-query line for gm_map, gm_bpref and num_q
        if with_q:
            assert (set(by_query) != {"all"}) == measure.family.trec_eval_query_lines, name
        if rel != 1 and "rel" in measure.family.params:
            measure = measure_of(measure.name, measure.cutoff, **dict(measure.params), rel=rel)
        result = score(measure, run, gold, empty="zero")
        for query, value in by_query.items():
            ours = float(result) if query == "all" else result.per_query[query]
            assert as_printed(ours, value) == value, (output, name, query, ours, value)
            checked += 1
    return checked


# 49 names in trec_eval's all_trec: num_q, num_ret, num_rel, num_rel_ret, num_nonrel_judged_ret,
# gm_map, gm_bpref, Rprec, bpref, 11pt_avg, utility, the 5 set measures, iprec_at_recall at 11
# levels, Rprec_mult at 10 multiples, relative_P at 9 cutoffs, success at 3
ALL_TREC_NAMES = 49
PER_QUERY_LINES = (ALL_TREC_NAMES - 3) * 4 + 3  # 3 queries and all; gm_map, gm_bpref, num_q: all


def test_ranks_counts_and_sets_match_out_test_a() -> None:
    assert check_printed("out.test.a", "qrels.test", "results.test") == ALL_TREC_NAMES


def test_ranks_counts_and_sets_per_query_match_out_test_aq() -> None:
    assert check_printed("out.test.aq", "qrels.test", "results.test") == PER_QUERY_LINES


def test_ranks_counts_and_sets_with_a_missing_query_match_out_test_aqc() -> None:
    """results.trunc lacks query 302: trec_eval -c scores it as an empty ranking, as the plugin
    does (num_q counts it, num_rel its relevant documents, the rest 0)."""
    assert check_printed("out.test.aqc", "qrels.test", "results.trunc") == PER_QUERY_LINES


def test_ranks_counts_and_sets_at_relevance_level_2_match_out_test_aql() -> None:
    assert check_printed("out.test.aql", "qrels.rel_level", "results.test", 2) == PER_QUERY_LINES
    with pytest.raises(AssertionError):  # the level matters
        check_printed("out.test.aql", "qrels.rel_level", "results.test", 1)


def test_chosen_parameters_match_out_test_meas_params() -> None:
    """-miprec_at_recall..10,.20,.25,.75,.50 -m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0
    -msuccess.2,5,20 (its 11pt_avg over 3 levels has no measure here: docs/measures.md)."""
    assert (
        check_printed("out.test.meas_params", "qrels.test", "results.test") == (5 + 3 + 1 + 3) * 4
    )


def test_interpolated_precision_rounds_its_count_as_trec_eval_10() -> None:
    """trec_eval 10 takes lround(r x R) relevant documents for recall level r; trec_eval 9 (which
    pytrec_eval holds) int(r x R + 0.9). out.test.aq is trec_eval 10's: the plugin's values are
    its own (above), and trec_eval 9's differ from them, so the file tells the two apart."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    with (DATA / "qrels.test").open() as qrels, (DATA / "results.test").open() as results:
        evaluator = pytrec_eval.RelevanceEvaluator(
            pytrec_eval.parse_qrel(qrels), {"iprec_at_recall", "11pt_avg"}
        )
        old = evaluator.evaluate(pytrec_eval.parse_run(results))
    expected = printed("out.test.aq")
    differing = [
        (name, query)
        for query, values in old.items()
        for name, value in values.items()
        if f"{value:.4f}" != expected[name][query]
    ]
    assert ("iprec_at_recall_0.10", "301") in differing and ("11pt_avg", "302") in differing
