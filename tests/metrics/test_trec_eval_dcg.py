"""DCG, IDCG and YAAP (trec_eval's ``dcg``, ``ideal_dcg`` and ``yaap``, which pytrec_eval does not
expose) agree with the trec_eval 10 binary's printed values on small seeded files shipped in
``tests/data/trec_eval/generated/`` (per query and for ``all``, to its 4 decimals; the files and
commands in the data README), with plain loops written from ``m_ndcg.c`` and ``m_yaap.c``
(``trec_eval_loops.py``) to 1e-12 on seeded random collections, and with nDCG and by hand.

The collections have score ties, grades -1 to 6 (no 5: an empty level the ideal ranking skips),
retrieved documents the qrels lack, queries judged only 0 and a run query the qrels lack; the
random ones also a judged query the run lacks and a query judged only negative. The shipped files
have neither: trec_eval 10 exits on the first without -c and keeps the previous query's grade
levels for the second (its -c output on trec_eval's results.trunc has a query the run lacks).
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest
import trec_eval_loops as loops
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_tempoeval import (
    GoldQuery,
    GoldSet,
    MetricError,
    Run,
    assert_yaap,
    dcg,
    evaluate,
    ideal_dcg,
    parse_measure,
    yaap,
)
from pytest_tempoeval.metrics.measures import trec_eval_name

GENERATED = Path(__file__).parents[1] / "data" / "trec_eval" / "generated"
MISSING_FROM_RUN = "3"  # judged, not in the run: an empty ranking (trec_eval -c)
NOT_IN_QRELS = "999"  # in the run only: ignored
GRADES = (-1, 0, 0, 1, 1, 2, 3, 4, 6)


def all_zero(query: int) -> bool:
    return query % 5 == 1  # judged, nothing at grade >= 1


def write_collection(
    directory: Path, seed: int, n_queries: int, *, odd_queries: bool
) -> tuple[Path, Path]:
    """A TREC run and qrels. Only ``random()`` is drawn: its sequence for a seed is the one Python
    promises to keep. ``odd_queries``: query 4 is judged only -1, and query 3 is not in the run
    (trec_eval 10 exits on that without -c)."""
    rng = random.Random(seed)

    def below(n: int) -> int:
        return int(rng.random() * n)

    qrels, run = [], []
    for query in range(n_queries):
        pool = list(dict.fromkeys(f"d{below(200):03d}" for _ in range(40)))  # distinct
        start = below(4)
        judged, retrieved = pool[: 4 + below(18)], pool[start : start + 1 + below(24)]
        grades = [GRADES[below(len(GRADES))] for _ in judged]
        grades[0] = max(grades[0], 0)
        if all_zero(query):
            grades = [0] * len(judged)
        if odd_queries and query == 4:
            grades = [-1] * len(judged)
        qrels += [f"{query} 0 {doc} {grade}" for doc, grade in zip(judged, grades)]
        if not (odd_queries and str(query) == MISSING_FROM_RUN):
            for rank, doc in enumerate(retrieved, start=1):
                run.append(f"{query} Q0 {doc} {rank} {below(6) / 2} seeded")  # 6 scores: ties
    run.append(f"{NOT_IN_QRELS} Q0 d001 1 1.0 seeded")
    (directory / "qrels").write_text("\n".join(qrels) + "\n")
    (directory / "run").write_text("\n".join(run) + "\n")
    return directory / "run", directory / "qrels"


# -- the trec_eval binary's printed values ---------------------------------------------------------

SHIPPED_SEED, SHIPPED_QUERIES = 27, 12  # generated/qrels.dcg, generated/results.dcg


def test_the_shipped_files_are_the_seeded_writer_s_and_have_what_they_should(
    tmp_path: Path,
) -> None:
    run_path, qrels_path = write_collection(
        tmp_path, SHIPPED_SEED, SHIPPED_QUERIES, odd_queries=False
    )
    assert run_path.read_bytes() == (GENERATED / "results.dcg").read_bytes()
    assert qrels_path.read_bytes() == (GENERATED / "qrels.dcg").read_bytes()
    qrels = loops.read_qrels(qrels_path)
    assert {grade for judged in qrels.values() for grade in judged.values()} == set(GRADES)
    rankings = loops.ranked_grades(run_path, qrels)
    flat = [grade for ranking in rankings.values() for grade in ranking]
    assert loops.NOT_IN_QRELS in flat and loops.POOLED in flat and 6 in flat
    scores = [line.split()[4] for line in run_path.read_text().splitlines()]
    assert len(set(scores)) == 6 < len(scores)  # ties, broken by doc id as trec_eval breaks them
    assert {q for q in qrels if max(qrels[q].values()) == 0} == {"1", "6", "11"}


def printed_values(name: str) -> dict[str, dict[str, str]]:
    """trec_eval name -> query -> the value it printed."""
    printed: dict[str, dict[str, str]] = {}
    for line in (GENERATED / name).read_text().splitlines():
        measure, query, value = line.split()
        printed.setdefault(measure, {})[query] = value
    return printed


@pytest.mark.parametrize(
    ("output", "qrels", "results", "level"),
    [
        ("out.dcg", "generated/qrels.dcg", "generated/results.dcg", 1),
        ("out.dcg_l2", "generated/qrels.dcg", "generated/results.dcg", 2),
        # -c: query 302 is not in results.trunc, scored as an empty ranking
        ("out.test.qcl2_dcg_rel_level", "qrels.rel_level", "results.trunc", 2),
    ],
)
def test_every_value_trec_eval_printed(output: str, qrels: str, results: str, level: int) -> None:
    """Per query and for all, to the 4 decimals trec_eval prints; its -l is YAAP's rel, and does
    not reach dcg and ideal_dcg (gains are the grades)."""
    data = GENERATED.parent
    gold, run = GoldSet.from_trec_qrels(data / qrels), Run.load(data / results)
    printed = printed_values(output)
    assert set(printed) == {"dcg", "ideal_dcg", "yaap"}
    checked = 0
    for name, values in printed.items():
        measure = parse_measure(name)
        assert trec_eval_name(measure) == name
        if level != 1 and "rel" in measure.family.params:
            measure = parse_measure(f"{measure.name}(rel={level})")
        result = evaluate(run, gold, [measure], empty="zero")[str(measure)]
        assert set(values) == {*result.per_query, "all"}
        for query, value in values.items():
            ours = float(result) if query == "all" else result.per_query[query]
            assert f"{ours:.4f}" == value, (output, name, query, ours)
            checked += 1
    assert checked == 3 * (len(gold.query_ids) + 1)
    if output == "out.dcg_l2":  # -l2 changed yaap only
        unleveled = printed_values("out.dcg")
        assert printed["dcg"] == unleveled["dcg"] and printed["ideal_dcg"] == unleveled["ideal_dcg"]
        assert printed["yaap"] != unleveled["yaap"]


# -- plain loops from m_ndcg.c and m_yaap.c, on random collections ---------------------------------

N_QUERIES = 80


@pytest.fixture(scope="module", params=[31, 32])
def collection(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Run, GoldSet, dict[str, list[int]], dict[str, dict[str, int]]]:
    directory = tmp_path_factory.mktemp(f"dcg{request.param}")
    run_path, qrels_path = write_collection(directory, request.param, N_QUERIES, odd_queries=True)
    qrels = loops.read_qrels(qrels_path)
    rankings = loops.ranked_grades(run_path, qrels)
    return Run.load(run_path), GoldSet.from_trec_qrels(qrels_path), rankings, qrels


def n_relevant(judged: list[int], rel: int) -> int:
    return sum(grade >= rel for grade in judged)


LOOPS = {
    "dcg": lambda ranking, judged: loops.dcg(ranking),
    "DCG@5": lambda ranking, judged: loops.dcg(ranking[:5]),
    "ideal_dcg": lambda ranking, judged: loops.ideal_dcg(judged),
    "IDCG@3": lambda ranking, judged: loops.ideal_dcg(judged, 3),
    "IDCG@30": lambda ranking, judged: loops.ideal_dcg(judged, 30),
    "yaap": lambda ranking, judged: loops.yaap(ranking, n_relevant(judged, 1), 1),
    "YAAP(rel=3)": lambda ranking, judged: loops.yaap(ranking, n_relevant(judged, 3), 3),
    "YAAP@10": lambda ranking, judged: loops.yaap(ranking[:10], n_relevant(judged, 1), 1),
}


@pytest.mark.parametrize("measure", list(LOOPS))
def test_every_query_equals_the_plain_loop(collection: tuple, measure: str) -> None:
    """Every judged query, the one the run lacks (an empty ranking) and the one judged only
    negative included; a cutoff k cuts the ranking (trec_eval -M k), and IDCG's ideal ranking."""
    run, gold, rankings, qrels = collection
    result = evaluate(run, gold, [measure], empty="zero")[measure]
    assert result.excluded == {} and set(result.per_query) == set(qrels)
    for query, judgments in qrels.items():
        judged = [grade for grade in judgments.values() if grade >= 0]
        expected = LOOPS[measure](rankings.get(query, []), judged)
        assert loops.close(result.per_query[query], expected), (query, expected)
    assert MISSING_FROM_RUN not in rankings and NOT_IN_QRELS not in result.per_query
    assert len({round(value, 9) for value in result.per_query.values()}) > 10  # not vacuous


def test_the_ideal_ranking_is_cut_neither_by_the_ranking_nor_by_the_longest_one(
    collection: tuple,
) -> None:
    """IDCG reads every judgment: with one document retrieved per query (trec_eval -M1), by name
    and by function, it is the loop's over every judged grade."""
    _, gold, _, qrels = collection
    one_each = Run({query: ["not-judged"] for query in qrels})
    by_name = evaluate(one_each, gold, ["ideal_dcg"], empty="zero")["ideal_dcg"].per_query
    by_function = ideal_dcg(one_each, gold, empty="zero").per_query
    for query, judgments in qrels.items():
        expected = loops.ideal_dcg([grade for grade in judgments.values() if grade >= 0])
        assert loops.close(by_name[query], expected) and loops.close(by_function[query], expected)
    assert max(by_name.values()) > 20  # more than one rank's worth


def test_queries_with_nothing_to_gain_are_left_out_by_default_and_score_0_with_zero(
    collection: tuple,
) -> None:
    """DCG and IDCG: no grade >= 1 (judged only 0, or only negative); YAAP: nothing at grade >=
    rel (its value would be log(1) = 0 whatever the ranking, as trec_eval gives)."""
    run, gold, _, qrels = collection
    nothing = {q for q, judged in qrels.items() if max(judged.values()) < 1}
    below_3 = {q for q, judged in qrels.items() if max(judged.values()) < 3}
    assert {"1", "4", "6"} <= nothing < below_3
    expected = {"DCG": nothing, "IDCG@3": nothing, "YAAP": nothing, "YAAP(rel=3)": below_3}
    excluded = evaluate(run, gold, list(expected))
    zeroed = evaluate(run, gold, list(expected), empty="zero")
    for measure, queries in expected.items():
        assert set(excluded[measure].excluded) == queries, measure
        kept = [v for q, v in zeroed[measure].per_query.items() if q not in queries]
        assert float(excluded[measure]) == pytest.approx(math.fsum(kept) / len(kept), abs=1e-12)
        assert all(zeroed[measure].per_query[q] == 0.0 for q in queries)
        assert float(zeroed[measure]) == pytest.approx(
            math.fsum(zeroed[measure].per_query.values()) / len(qrels), abs=1e-12
        )


@pytest.mark.parametrize("k", [5, 10, None])
def test_ndcg_is_dcg_over_idcg(collection: tuple, k: int | None) -> None:
    """nDCG@k = DCG@k / IDCG@k per query; without a cutoff, the whole ranking over every
    judgment (trec_eval's ndcg = dcg / ideal_dcg)."""
    run, gold, _, _ = collection
    at = "" if k is None else f"@{k}"
    results = evaluate(run, gold, [f"nDCG{at}", f"DCG{at}", f"IDCG{at}"])
    ndcg, gain, ideal = (results[f"{name}{at}"].per_query for name in ("nDCG", "DCG", "IDCG"))
    assert set(ndcg) == set(gain) == set(ideal)
    assert all(loops.close(ndcg[q], gain[q] / ideal[q]) for q in ndcg)
    assert sum(0 < value < 1 for value in ndcg.values()) > N_QUERIES // 2


# -- by hand, the functions and the names ----------------------------------------------------------


def _hand_case(tmp_path: Path) -> tuple[Run, GoldSet]:
    """q1 ranks a (2), b (-1: pooled, unjudged), c (0), d (1), e (not in the qrels), f (1); g (3)
    is judged and not retrieved."""
    (tmp_path / "qrels").write_text("q1 0 a 2\nq1 0 b -1\nq1 0 c 0\nq1 0 d 1\nq1 0 f 1\nq1 0 g 3\n")
    run = Run({"q1": ["a", "b", "c", "d", "e", "f"]})
    return run, GoldSet.from_trec_qrels(tmp_path / "qrels")


def test_dcg_idcg_and_yaap_by_hand(tmp_path: Path) -> None:
    """DCG: a at rank 1, d at 4, f at 6. The ideal ranking: g, a, d, f. YAAP: relevant a (rank 1,
    1 found), d (4, 2), f (6, 3) and g: S = 1 + 2/4 + 3/6 = 2, R = 4, log(3 / 3) = 0 (AP 0.5);
    in the top 3 only a: S = 1, log(2 / 4)."""
    run, gold = _hand_case(tmp_path)
    assert dcg(run, gold).per_query["q1"] == pytest.approx(
        2 + 1 / math.log2(5) + 1 / math.log2(7), abs=1e-15
    )
    idcg = 3 + 2 / math.log2(3) + 1 / 2 + 1 / math.log2(5)
    assert ideal_dcg(run, gold).per_query["q1"] == pytest.approx(idcg, abs=1e-15)
    assert ideal_dcg(run, gold, k=2).per_query["q1"] == pytest.approx(3 + 2 / math.log2(3))
    assert yaap(run, gold).per_query["q1"] == pytest.approx(0.0, abs=1e-15)
    assert yaap(run, gold, k=3).per_query["q1"] == pytest.approx(math.log(0.5), abs=1e-15)
    # rel=2: a and g relevant; a at rank 1: S = 1, R = 2
    assert yaap(run, gold, relevance_level=2).per_query["q1"] == pytest.approx(0.0, abs=1e-15)
    assert yaap(run, gold, rel=2, k=3).measure == "YAAP(rel=2)@3"
    # the ideal ranking does not depend on the run: an empty ranking has the same IDCG
    empty = Run({"q1": ["zz"]})
    assert ideal_dcg(empty, gold).per_query == ideal_dcg(run, gold).per_query
    assert dcg(empty, gold).per_query["q1"] == 0.0


def test_the_assert_form_raises_with_the_value(tmp_path: Path) -> None:
    run, gold = _hand_case(tmp_path)
    assert assert_yaap(run, gold, k=3) < 0
    with pytest.raises(AssertionError, match=r"^YAAP \[gold\] = 0\.0000, needed >= 0\.5"):
        assert_yaap(run, gold) >= 0.5  # noqa: B015 (a bare statement by design)


@pytest.mark.parametrize(
    ("name", "canonical", "trec_eval"),
    [
        ("dcg", "DCG", "dcg"),
        ("DCG", "DCG", "dcg"),
        ("DCG@10", "DCG@10", None),
        ("ideal_dcg", "IDCG", "ideal_dcg"),
        ("IDCG@5", "IDCG@5", None),
        ("idcg", "IDCG", "ideal_dcg"),
        ("yaap", "YAAP", "yaap"),
        ("YAAP(rel=1)", "YAAP", "yaap"),
        ("YAAP(rel=2)", "YAAP(rel=2)", None),
        ("yaap@20", "YAAP@20", None),
    ],
)
def test_names(name: str, canonical: str, trec_eval: str | None) -> None:
    measure = parse_measure(name)
    assert str(measure) == canonical and trec_eval_name(measure) == trec_eval


def test_dcg_takes_no_gain_parameter() -> None:
    """Its gain is the grade, trec_eval's default gains; nDCG(gain=exp) is the normalised one."""
    with pytest.raises(MetricError, match=r"^measure 'DCG\(gain=exp\)'.*'gain'"):
        parse_measure("DCG(gain=exp)")


# -- any input: finite, DCG <= IDCG, YAAP within its bounds ----------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    judgments=st.lists(
        st.lists(st.tuples(st.integers(0, 7), st.integers(-1, 5)), max_size=6),
        min_size=1,
        max_size=4,
    ),
    rankings=st.lists(st.lists(st.integers(0, 9), min_size=1, max_size=8, unique=True), max_size=4),
    k=st.integers(1, 6),
)
def test_any_collection_gives_finite_values_within_their_bounds(
    judgments: list[list[tuple[int, int]]], rankings: list[list[int]], k: int
) -> None:
    """Queries judged only negative or only 0, rankings empty or missing: DCG@k <= IDCG@k, and
    log(1 / (1 + R)) <= YAAP <= log(1 + R)."""
    queries = [
        GoldQuery(id=f"q{q}", relevant={f"d{doc}": grade for doc, grade in judged})
        for q, judged in enumerate(judgments)
    ]
    gold = GoldSet(queries)
    ranked = {f"q{q}": [f"d{doc}" for doc in docs] for q, docs in enumerate(rankings)}
    run = Run(ranked or {"not-judged": ["d0"]})
    names = ["DCG", "IDCG", f"DCG@{k}", f"IDCG@{k}", "YAAP", f"YAAP(rel=2)@{k}"]
    results = evaluate(run, gold, names, empty="zero")
    for measure, result in results.items():
        assert all(math.isfinite(value) for value in result.per_query.values()), measure
    for at in ("", f"@{k}"):
        gains, ideal = results[f"DCG{at}"].per_query, results[f"IDCG{at}"].per_query
        assert all(0.0 <= gains[q] <= ideal[q] + 1e-12 for q in gains)
    for query in queries:
        relevant = sum(grade >= 1 for grade in query.relevant.values())
        value = results["YAAP"].per_query[query.id]
        assert math.log(1 / (1 + relevant)) - 1e-12 <= value <= math.log(1 + relevant) + 1e-12
