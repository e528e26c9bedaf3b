"""infAP, ERR, RBP and its residual, ndcg_rel, Rndcg, binG, G and unj agree per query with their
references on seeded random TREC collections: pytrec_eval (trec_eval's code) for infAP, binG, G,
ndcg_rel and Rndcg; ir_measures for ERR (gdeval) and RBP(rel=...) (cwl_eval); plain loops over
one ranking (``trec_eval_loops.py``) for every one of them, ERR, rbp, rbp_resid and unj
included; and trec_eval 10's own printed outputs (``tests/data/trec_eval/``) to their 4 decimals,
per query and for ``all``.

The collections have heavy score ties, grades -1 to 4 (a -1 is a pooled document left unjudged,
as infAP's qrels mark them), retrieved documents the qrels lack, queries whose judgments are all
grade 0, a judged query missing from the run and a run query the qrels lack.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from pathlib import Path

import pytest
import trec_eval_loops as loops
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_tempoeval import (
    GoldSet,
    MetricError,
    Run,
    evaluate,
    expected_reciprocal_rank,
    inferred_average_precision,
    parse_measure,
    rank_biased_precision,
    rbp_residual,
    unjudged,
)
from pytest_tempoeval.metrics.measures import trec_eval_name

pytrec_eval = pytest.importorskip("pytrec_eval")

DATA = Path(__file__).parents[1] / "data" / "trec_eval"
N_QUERIES = 150
MISSING_FROM_RUN = "7"  # judged, not in the run: scored as an empty ranking
ALL_GRADE_ZERO = {str(q) for q in range(N_QUERIES) if q % 23 == 5}  # nothing relevant


def write_collection(directory: Path, seed: int) -> tuple[Path, Path]:
    """Numeric query ids (gdeval reads no others). Only ``random()`` is drawn: its sequence for a
    seed is the one Python promises to keep."""
    rng = random.Random(seed)

    def below(n: int) -> int:
        return int(rng.random() * n)

    qrels, run = [], []
    for query in range(N_QUERIES):
        pool = [f"D{below(400):03d}" for _ in range(60)]
        pool = list(dict.fromkeys(pool))  # distinct, in draw order
        judged, retrieved = pool[: 5 + below(30)], pool[below(10) : 10 + below(50)]
        grades = [(-1, 0, 0, 0, 1, 1, 2, 3, 4)[below(9)] for _ in judged]
        grades[0] = max(grades[0], 0)  # every query judges a document at a grade >= 0
        if str(query) in ALL_GRADE_ZERO:
            grades = [0] * len(judged)
        qrels += [f"{query} 0 {doc} {grade}" for doc, grade in zip(judged, grades)]
        if str(query) == MISSING_FROM_RUN:
            continue
        for rank, doc in enumerate(retrieved, start=1):
            run.append(f"{query} Q0 {doc} {rank} {below(6) / 2} seeded")  # 6 scores: ties
    run.append("9999 Q0 D001 1 1.0 seeded")  # a run query the qrels lack
    (directory / "qrels").write_text("\n".join(qrels) + "\n")
    (directory / "run").write_text("\n".join(run) + "\n")
    return directory / "run", directory / "qrels"


@pytest.fixture(scope="module", params=[11, 12])
def collection(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path]:
    return write_collection(tmp_path_factory.mktemp(f"seed{request.param}"), request.param)


@pytest.fixture(scope="module")
def loaded(collection: tuple[Path, Path]) -> tuple[Run, GoldSet]:
    run_path, qrels_path = collection
    return Run.load(run_path), GoldSet.from_trec_qrels(qrels_path)


@pytest.fixture(scope="module")
def rankings(collection: tuple[Path, Path]) -> tuple[dict[str, list[int]], dict]:
    run_path, qrels_path = collection
    qrels = loops.read_qrels(qrels_path)
    return loops.ranked_grades(run_path, qrels), qrels


def test_the_collections_have_what_they_should(tmp_path: Path) -> None:
    """Ties, every grade, unjudged and pooled-unjudged documents retrieved."""
    run_path, qrels_path = write_collection(tmp_path, 11)
    grades = {line.split()[3] for line in qrels_path.read_text().splitlines()}
    assert grades == {"-1", "0", "1", "2", "3", "4"}
    rankings = loops.ranked_grades(run_path, loops.read_qrels(qrels_path))
    flat = [grade for ranking in rankings.values() for grade in ranking]
    assert flat.count(loops.NOT_IN_QRELS) > 500 and flat.count(loops.POOLED) > 50
    scores = [line.split()[4] for line in run_path.read_text().splitlines()]
    assert len(set(scores)) == 6 < len(scores)
    assert MISSING_FROM_RUN not in rankings and "9999" in rankings


# -- pytrec_eval: trec_eval's own code -------------------------------------------------------------

# trec_eval name -> the measure it is, at relevance level 1 and 2 (trec_eval -l2: rel=2)
BY_PYTREC_EVAL = {
    "infAP": ("infAP", "infAP(rel=2)"),
    "binG": ("binG", "binG(rel=2)"),
    "Rndcg": ("Rndcg", "Rndcg(rel=2)"),
    "G": ("G", "G"),  # graded: -l does not apply
    "ndcg_rel": ("ndcg_rel", "ndcg_rel"),
}


@pytest.mark.parametrize("level", [1, 2])
def test_every_query_equals_pytrec_eval(
    collection: tuple[Path, Path], loaded: tuple[Run, GoldSet], level: int
) -> None:
    run_path, qrels_path = collection
    with qrels_path.open() as qrels_file, run_path.open() as run_file:
        qrels, runs = pytrec_eval.parse_qrel(qrels_file), pytrec_eval.parse_run(run_file)
    expected = pytrec_eval.RelevanceEvaluator(
        qrels, set(BY_PYTREC_EVAL), relevance_level=level
    ).evaluate(runs)
    names = {name: forms[level - 1] for name, forms in BY_PYTREC_EVAL.items()}
    results = evaluate(*loaded, list(names.values()), empty="zero")
    worst = 0.0
    for trec_name, measure in names.items():
        result = results[measure]
        assert result.excluded == {}  # trec_eval's rule: nothing left out
        assert result.per_query[MISSING_FROM_RUN] == 0.0  # as trec_eval -c
        assert "9999" not in result.per_query
        for query, values in expected.items():
            worst = max(worst, abs(result.per_query[query] - values[trec_name]))
        assert float(result) == pytest.approx(
            math.fsum(result.per_query.values()) / N_QUERIES, abs=1e-15
        )
    assert worst <= 1e-12
    # not vacuous: the graded queries give every measure values other than 0 and 1
    for trec_name in names:
        assert len({round(values[trec_name], 6) for values in expected.values()}) > 50


def test_queries_with_nothing_relevant_are_left_out_by_default(
    loaded: tuple[Run, GoldSet], rankings: tuple[dict, dict]
) -> None:
    """empty="exclude" (the plugin's default) names them; "zero" scores them 0 as trec_eval."""
    measures = ["infAP", "binG", "Rndcg", "G", "ndcg_rel", "ERR", "RBP", "RBP(rel=2)"]
    for measure, result in evaluate(*loaded, measures).items():
        if measure != "RBP(rel=2)":
            assert set(result.excluded) == ALL_GRADE_ZERO, measure
    _, qrels = rankings
    below_2 = {query for query, judged in qrels.items() if max(judged.values()) < 2}
    assert below_2 > ALL_GRADE_ZERO
    assert set(evaluate(*loaded, ["RBP(rel=2)"])["RBP(rel=2)"].excluded) == below_2
    zeroed = evaluate(*loaded, measures, empty="zero")
    for measure, result in zeroed.items():
        assert all(result.per_query[query] == 0.0 for query in ALL_GRADE_ZERO), measure
    # the residual and unj count every query, as Judged does
    for measure in ("RBPResidual", "Unjudged@10", "rbp_resid", "unj_10"):
        assert evaluate(*loaded, [measure])[measure].excluded == {}


# -- plain loops: trec_eval's rbp, rbp_resid and unj, gdeval's ERR, and infAP -------------------


def _loop_cases() -> dict[str, Callable[[list[int], list[int], int], float]]:
    return {
        "rbp": lambda ranking, judged, _: loops.rbp(ranking, judged, 0.9, None),
        "RBP": lambda ranking, judged, _: loops.rbp(ranking, judged, 0.8, None),
        "RBP(p=0.5,rel=2)": lambda ranking, judged, _: loops.rbp(ranking, judged, 0.5, 2),
        "rbp_resid": lambda ranking, judged, _: loops.rbp_resid(ranking, 0.9),
        "RBPResidual(p=0.95)": lambda ranking, judged, _: loops.rbp_resid(ranking, 0.95),
        "unj_5": lambda ranking, judged, _: loops.unj(ranking, 5),
        "unj_20": lambda ranking, judged, _: loops.unj(ranking, 20),
        "Unjudged@100": lambda ranking, judged, _: loops.unj(ranking, 100),
        "ERR@10": lambda ranking, judged, _: loops.err(ranking, 10),
        "ERR": lambda ranking, judged, _: loops.err(ranking, len(ranking)),
        "infAP(rel=3)": lambda ranking, judged, n: loops.inf_ap(ranking, n, 3),
    }


@pytest.mark.parametrize("measure", list(_loop_cases()))
def test_every_query_equals_the_plain_loop(
    loaded: tuple[Run, GoldSet], rankings: tuple[dict, dict], measure: str
) -> None:
    by_query, qrels = rankings
    result = evaluate(*loaded, [measure], empty="zero")[measure]
    reference = _loop_cases()[measure]
    compared = 0
    for query, judgments in qrels.items():
        judged = [grade for grade in judgments.values() if grade >= 0]
        n_relevant = sum(grade >= 3 for grade in judged)
        expected = reference(by_query.get(query, []), judged, n_relevant)
        assert loops.close(result.per_query[query], expected), (query, expected)
        compared += 1
    assert compared == N_QUERIES
    assert len({round(value, 9) for value in result.per_query.values()}) >= 6  # not vacuous


def test_unjudged_without_a_cutoff_is_the_share_of_the_ranking(
    loaded: tuple[Run, GoldSet], rankings: tuple[dict, dict]
) -> None:
    run, gold = loaded
    by_query, _ = rankings
    result = evaluate(run, gold, ["Unjudged"])["Unjudged"]
    for query, ranking in by_query.items():
        if query in result.per_query:
            expected = sum(grade < 0 for grade in ranking) / len(ranking)
            assert loops.close(result.per_query[query], expected)
    assert result.per_query[MISSING_FROM_RUN] == 0.0
    # the function keeps judged()'s default: k=None reads the default k (10)
    assert unjudged(run, gold).measure == "Unjudged@10"
    assert unjudged(run, gold).per_query == evaluate(run, gold, ["unj_10"])["unj_10"].per_query


# -- ir_measures -----------------------------------------------------------------------------------


def _ir_measures(measure: str, collection: tuple[Path, Path]) -> dict[str, float]:
    ir_measures = pytest.importorskip("ir_measures")
    run_path, qrels_path = collection
    # ir_measures keeps a run's order among equal scores: give it trec_eval's order
    rows = [line.split() for line in run_path.read_text().splitlines()]
    rows.sort(key=lambda row: (row[0], -float(row[4]), [-byte for byte in row[2].encode()]))
    run = [ir_measures.ScoredDoc(row[0], row[2], float(row[4])) for row in rows]
    qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    parsed = ir_measures.parse_measure(measure)
    return {m.query_id: float(m.value) for m in ir_measures.iter_calc([parsed], qrels, run)}


@pytest.mark.parametrize("measure", ["ERR@10", "ERR@20", "ERR@5"])
def test_err_equals_ir_measures(
    collection: tuple[Path, Path], loaded: tuple[Run, GoldSet], measure: str
) -> None:
    """ir_measures computes ERR with gdeval, which prints 5 decimals: ours, printed so, are the
    same text."""
    theirs = _ir_measures(measure, collection)
    ours = evaluate(*loaded, [measure], empty="zero")[measure].per_query
    assert set(theirs) == set(ours)
    assert all(f"{ours[query]:.5f}" == f"{value:.5f}" for query, value in theirs.items())
    assert sum(value > 0.01 for value in theirs.values()) > 60  # not vacuous


@pytest.mark.parametrize("measure", ["RBP(rel=1)", "RBP(rel=2)", "RBP(p=0.9,rel=3)"])
def test_binary_rbp_equals_ir_measures(
    collection: tuple[Path, Path], loaded: tuple[Run, GoldSet], measure: str
) -> None:
    pytest.importorskip("cwl")  # ir_measures' provider of RBP(rel=...): cwl_eval
    theirs = _ir_measures(measure, collection)
    ours = evaluate(*loaded, [measure], empty="zero")[measure].per_query
    assert set(theirs) == set(ours)
    assert all(loops.close(ours[query], value) for query, value in theirs.items())
    assert sum(value > 0.01 for value in theirs.values()) > 50


def test_inf_ap_equals_ir_measures(collection: tuple[Path, Path], loaded: tuple[Run, GoldSet]):
    theirs = _ir_measures("infAP", collection)
    ours = evaluate(*loaded, ["infAP"], empty="zero")["infAP"].per_query
    assert theirs and all(loops.close(ours[query], value) for query, value in theirs.items())


# -- trec_eval's printed outputs -------------------------------------------------------------------

PRINTED = ["infAP", "binG", "G", "ndcg_rel", "Rndcg", "rbp", "rbp_resid", "unj_5", "unj_10"]
PRINTED += ["unj_20"]


@pytest.mark.parametrize(
    ("output", "qrels", "results", "level"),
    [
        ("out.test.a", "qrels.test", "results.test", 1),
        ("out.test.aq", "qrels.test", "results.test", 1),
        ("out.test.aqc", "qrels.test", "results.trunc", 1),
        ("out.test.aql", "qrels.rel_level", "results.test", 2),
    ],
)
def test_trec_eval_printed_values(output: str, qrels: str, results: str, level: int) -> None:
    """Every value trec_eval 10 printed for these measures, per query and for all, to 4
    decimals; trec_eval's -l is rel= on the measures it applies to (not rbp: trec_eval's is
    graded)."""
    printed: dict[str, dict[str, str]] = {}
    for line in (DATA / output).read_text().splitlines():
        name, query, value = line.split()
        if name in PRINTED:
            printed.setdefault(name, {})[query] = value
    assert set(printed) == set(PRINTED)
    gold, run = GoldSet.from_trec_qrels(DATA / qrels), Run.load(DATA / results)
    checked = 0
    for name, values in printed.items():
        measure = parse_measure(name)
        assert trec_eval_name(measure) == name
        if level != 1 and "rel" in measure.family.params and name != "rbp":
            measure = parse_measure(f"{measure.name}(rel={level})")
        result = evaluate(run, gold, [measure], empty="zero")[str(measure)]
        for query, value in values.items():
            ours = float(result) if query == "all" else result.per_query[query]
            assert f"{ours:.4f}" == value, (output, name, query, ours)
            checked += 1
    assert checked == len(PRINTED) * (1 if output == "out.test.a" else 4)


# -- by hand -----------------------------------------------------------------------------------


def _hand_case(tmp_path: Path) -> tuple[Run, GoldSet]:
    """q1 ranks a (2), b (-1: pooled, unjudged), c (0), d (1), e (not in the qrels), f (1); g (3)
    is judged and not retrieved."""
    (tmp_path / "qrels").write_text("q1 0 a 2\nq1 0 b -1\nq1 0 c 0\nq1 0 d 1\nq1 0 f 1\nq1 0 g 3\n")
    run = Run({"q1": ["a", "b", "c", "d", "e", "f"]})
    return run, GoldSet.from_trec_qrels(tmp_path / "qrels")


def test_inf_ap_by_hand(tmp_path: Path) -> None:
    """Relevant a, d, f (and g, not retrieved): 4 relevant. At a (rank 1): 1. At d (rank 4, j=3):
    1/4 + 3/4 * (1 + 1 + 1)/3 * (1 + e)/(1 + 1 + 2e). At f (rank 6, j=5; e above it is not in the
    qrels, skipped): 1/6 + 5/6 * (2 + 1 + 1)/5 * (2 + e)/(2 + 1 + 2e)."""
    e = 1e-5
    at_d = 1 / 4 + 3 / 4 * (3 / 3) * ((1 + e) / (2 + 2 * e))
    at_f = 1 / 6 + 5 / 6 * (4 / 5) * ((2 + e) / (3 + 2 * e))
    result = inferred_average_precision(*_hand_case(tmp_path))
    assert result.per_query["q1"] == pytest.approx((1 + at_d + at_f) / 4, abs=1e-15)
    assert float(result) == pytest.approx(0.559028, abs=1e-6)  # (1 + 0.625 + 0.611114) / 4


def test_rbp_and_its_residual_by_hand(tmp_path: Path) -> None:
    """Graded: gains 2/3, 0, 0, 1/3, 0, 1/3 (the top grade is 3). Binary at rel=2: a only.
    Residual: b and e unjudged, plus p^6 past the end."""
    run, gold = _hand_case(tmp_path)
    p = 0.5
    graded = (1 - p) * (2 / 3 + p**3 / 3 + p**5 / 3)
    assert rank_biased_precision(run, gold, p=p).per_query["q1"] == pytest.approx(graded)
    assert rank_biased_precision(run, gold, p=p, rel=2).per_query["q1"] == pytest.approx(0.5)
    residual = p**6 + (1 - p) * (p + p**4)
    assert rbp_residual(run, gold, p=p).per_query["q1"] == pytest.approx(residual)


def test_err_by_hand(tmp_path: Path) -> None:
    """R = (2^g - 1)/16: a 3/16; d and f 1/16.
    ERR = 3/16 + (13/16)(1/16)/4 + (13/16)(15/16)(1/16)/6."""
    expected = 3 / 16 + (13 / 16) * (1 / 16) / 4 + (13 / 16) * (15 / 16) * (1 / 16) / 6
    result = expected_reciprocal_rank(*_hand_case(tmp_path))
    assert result.per_query["q1"] == pytest.approx(expected, abs=1e-15)
    assert result.measure == "ERR"


def test_err_refuses_a_grade_above_4_naming_the_query(tmp_path: Path) -> None:
    (tmp_path / "qrels").write_text("q1 0 a 1\nq2 0 b 7\n")
    gold = GoldSet.from_trec_qrels(tmp_path / "qrels")
    with pytest.raises(MetricError, match=r"query 'q2' has a document graded 7; map the grades"):
        expected_reciprocal_rank(Run({"q1": ["a"], "q2": ["b"]}), gold, k=10)


def test_a_persistence_outside_0_1_is_refused(tmp_path: Path) -> None:
    run, gold = _hand_case(tmp_path)
    with pytest.raises(MetricError, match=r"^p is the chance of going on .* in \(0, 1\), got 1"):
        rank_biased_precision(run, gold, p=1)
    with pytest.raises(MetricError, match=r"^measure 'RBP\(p=0\)': p is the chance"):
        parse_measure("RBP(p=0)")


# -- any input: a value in [0, 1], never NaN -------------------------------------------------------

ALL_NEW = ["infAP", "ERR", "ERR@3", "RBP", "RBP(rel=2)", "rbp", "rbp_resid", "RBPResidual"]
ALL_NEW += ["ndcg_rel", "Rndcg", "binG", "G", "G@2", "Unjudged", "unj_5", "Rndcg(rel=3)"]


@settings(max_examples=40, deadline=None)
@given(
    judgments=st.lists(
        st.lists(st.tuples(st.integers(0, 7), st.integers(-1, 4)), max_size=6),
        min_size=1,
        max_size=4,
    ),
    rankings=st.lists(st.lists(st.integers(0, 9), min_size=1, max_size=8, unique=True), max_size=4),
)
def test_any_collection_scores_in_0_1_and_never_nan(
    judgments: list[list[tuple[int, int]]], rankings: list[list[int]]
) -> None:
    """Queries judged only negative, or not at all past grade 0, rankings empty or missing."""
    from pytest_tempoeval import GoldQuery

    queries = [
        GoldQuery(id=f"q{q}", relevant={f"d{doc}": grade for doc, grade in judged})
        for q, judged in enumerate(judgments)
    ]
    gold = GoldSet(queries)
    ranked = {f"q{q}": [f"d{doc}" for doc in docs] for q, docs in enumerate(rankings)}
    run = Run(ranked or {"not-judged": ["d0"]})  # a run has at least one ranking
    for measure, result in evaluate(run, gold, ALL_NEW, empty="zero").items():
        values = list(result.per_query.values())
        # within rounding: every unjudged, RBP's residual sums to 1 as trec_eval sums it, 1 + 2e-16
        assert all(0.0 <= value <= 1.0 + 1e-12 for value in values), (measure, values)
        assert 0.0 <= float(result) <= 1.0 + 1e-12
