"""Every standard measure by name equals the ir_measures package's value, per query, on random runs
with tied scores, negative grades, unjudged documents, queries missing from the run and run queries
the gold set lacks; pytrec_eval agrees where it has the measure.

Two conventions differ, both documented in docs/measures.md:
- ir_measures' own providers for ``RR@k`` (msmarco) and ``Judged@k`` (judged) break score ties by
  doc id ascending; the plugin uses trec_eval's order everywhere (ties by doc id descending). Those
  two are compared on tie-free runs, and shown to differ only through ties.
- A query with nothing relevant at the measure's level is left out of the plugin's mean (and named
  in ``excluded``); ir_measures scores it 0.
"""

from __future__ import annotations

import random
from pathlib import Path

import ir_measures
import pytest
import pytrec_eval

from pytest_tempoeval import GoldSet, Run, evaluate

TIE_SAFE = [
    "nDCG@5",
    "nDCG@10",
    "nDCG",
    "nDCG(judged_only=True)@10",
    "nDCG(judged_only=True)",
    "P@5",
    "P(rel=2)@5",
    "P(rel=3)@10",
    "R@10",
    "R(rel=2)@10",
    "R@1000",
    "AP",
    "AP@10",
    "AP(rel=2)",
    "RR",
    "RR(rel=2)",
    "Success@1",
    "Success@3",
    "Success(rel=2)@3",
    "Judged@50",  # deeper than any ranking: no tie can change it
    "Judged",  # the whole ranking, as ir_measures (it meant Judged@10 here)
]
TIE_ORDERED = ["RR@10", "RR(rel=2)@5", "Judged@5", "Judged@10"]


def write_collection(directory: Path, seed: int, ties: bool) -> tuple[Path, Path]:
    """Random qrels (grades -1..3) and a TREC run: 80 queries over 60 documents, some queries
    missing from the run, one run query the qrels lack."""
    rng = random.Random(seed)
    docs = [f"d{i:02d}" for i in range(60)]
    qrels, run = [], []
    for q in range(80):
        for doc in rng.sample(docs, rng.randint(1, 20)):
            qrels.append(f"q{q} 0 {doc} {rng.choice([-1, 0, 0, 1, 1, 2, 3])}")
        if q % 9 == 0:
            continue  # not in the run: scored as an empty ranking
        retrieved = rng.sample(docs, rng.randint(1, 40))
        for rank, doc in enumerate(retrieved, start=1):
            score = float(rng.randint(0, 4)) if ties else float(1000 - rank)
            run.append(f"q{q} Q0 {doc} {rank} {score} random")
    run.append("not-judged Q0 d01 1 1.0 random")
    (directory / "qrels").write_text("\n".join(qrels) + "\n")
    (directory / "run").write_text("\n".join(run) + "\n")
    return directory / "run", directory / "qrels"


def ir_measures_values(measure: str, run: Path, qrels: Path) -> dict[str, float]:
    parsed = ir_measures.parse_measure(measure)
    qrel_rows = list(ir_measures.read_trec_qrels(str(qrels)))
    run_rows = list(ir_measures.read_trec_run(str(run)))
    return {m.query_id: m.value for m in ir_measures.iter_calc([parsed], qrel_rows, run_rows)}


def assert_same(measure: str, ours: object, theirs: dict[str, float], gold: GoldSet) -> None:
    per_query, excluded = ours.per_query, ours.excluded  # type: ignore[attr-defined]
    assert per_query, measure
    for query, value in per_query.items():
        assert value == pytest.approx(theirs[query], abs=1e-12), (measure, query)
    for query in excluded:  # nothing relevant at the measure's level: ir_measures says 0
        assert theirs.get(query, 0.0) == 0.0, (measure, query)
    assert set(per_query) | set(excluded) == set(gold.query_ids), measure


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_tie_heavy_runs_equal_ir_measures(tmp_path: Path, seed: int) -> None:
    run_path, qrels_path = write_collection(tmp_path, seed, ties=True)
    gold, run = GoldSet.load(qrels_path), Run.load(run_path)
    results = evaluate(run, gold, TIE_SAFE)
    for measure in TIE_SAFE:
        assert_same(
            measure, results[measure], ir_measures_values(measure, run_path, qrels_path), gold
        )


@pytest.mark.parametrize("seed", [4, 5])
def test_tie_free_runs_equal_ir_measures_for_every_measure(tmp_path: Path, seed: int) -> None:
    run_path, qrels_path = write_collection(tmp_path, seed, ties=False)
    gold, run = GoldSet.load(qrels_path), Run.load(run_path)
    measures = TIE_SAFE + TIE_ORDERED
    results = evaluate(run, gold, measures)
    for measure in measures:
        assert_same(
            measure, results[measure], ir_measures_values(measure, run_path, qrels_path), gold
        )


# trec_eval's rank and set measures by ir_measures' names (ours -> ir_measures'). IPrec at 0, 0.5
# and 1 only: at other levels ir_measures (through pytrec_eval, trec_eval 9) rounds the count of
# relevant documents a level needs otherwise than trec_eval 10 (test_trec_eval_measures.py).
TREC_EVAL_MEASURES = {
    "Rprec": "Rprec",
    "Rprec(rel=2)": "Rprec(rel=2)",
    "Bpref": "Bpref",
    "Bpref(rel=2)": "Bpref(rel=2)",
    "IPrec@0.0": "IPrec@0.0",
    "IPrec@0.5": "IPrec@0.5",
    "IPrec@1.0": "IPrec@1.0",
    "IPrec(rel=2)@0.5": "IPrec(rel=2)@0.5",
    "SetP": "SetP",
    "SetP(rel=2)": "SetP(rel=2)",
    "SetR": "SetR",
    "SetR(rel=3)": "SetR(rel=3)",
    "SetF": "SetF",
    "SetF(beta=0.5,rel=2)": "SetF(beta=0.5,rel=2)",
    "SetAP": "SetAP",
    "SetRelP": "SetP(relative=True)",
}
# The counts by ir_measures' names. ir_measures gives a query the run lacks 0 for each; the plugin
# counts it as trec_eval -c does: NumQ 1, NumRel its relevant documents, the rest 0.
COUNTS = {
    "NumQ": "NumQ",
    "NumRet": "NumRet",
    "NumRel": "NumRel",
    "NumRelRet": "NumRelRet",
    "NumRelRet(rel=2)": "NumRet(rel=2)",
}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_trec_eval_measures_equal_ir_measures(tmp_path: Path, seed: int) -> None:
    run_path, qrels_path = write_collection(tmp_path, seed, ties=True)
    gold, run = GoldSet.load(qrels_path), Run.load(run_path)
    results = evaluate(run, gold, [*TREC_EVAL_MEASURES, *COUNTS])
    for ours, theirs in TREC_EVAL_MEASURES.items():
        assert_same(ours, results[ours], ir_measures_values(theirs, run_path, qrels_path), gold)
    run_queries = {line.split()[0] for line in run_path.read_text().splitlines()}
    missing = set(gold.query_ids) - run_queries
    assert missing
    for ours, theirs in COUNTS.items():
        result, values = results[ours], ir_measures_values(theirs, run_path, qrels_path)
        assert result.excluded == {} and set(result.per_query) == set(gold.query_ids), ours
        for query, value in result.per_query.items():
            assert isinstance(value, int), (ours, query)
            if query in missing:
                relevant = sum(grade >= 1 for grade in gold.queries[query].relevant.values())
                assert value == {"NumQ": 1, "NumRel": relevant}.get(ours, 0), (ours, query)
            else:
                assert value == values[query], (ours, query)
        assert float(result) == sum(result.per_query.values())  # a count's one value is its sum


def test_ir_measures_rr_at_k_and_judged_differ_only_through_tie_order(tmp_path: Path) -> None:
    """On a tied run, re-ordering ties as ir_measures' msmarco and judged providers do (doc id
    ascending) and scoring that with the plugin gives ir_measures' values."""
    run_path, qrels_path = write_collection(tmp_path, 6, ties=True)
    lines = [line.split() for line in run_path.read_text().splitlines()]
    by_query: dict[str, list[list[str]]] = {}
    for line in lines:
        by_query.setdefault(line[0], []).append(line)
    reordered = []
    for query, rows in by_query.items():
        ranked = sorted(rows, key=lambda row: (-float(row[4]), row[2]))
        n = len(ranked)
        reordered += [f"{query} Q0 {row[2]} {i + 1} {n - i} r" for i, row in enumerate(ranked)]
    (tmp_path / "reordered").write_text("\n".join(reordered) + "\n")
    gold = GoldSet.load(qrels_path)
    results = evaluate(Run.load(tmp_path / "reordered"), gold, TIE_ORDERED)
    differing = 0
    for measure in TIE_ORDERED:
        theirs = ir_measures_values(measure, run_path, qrels_path)
        assert_same(measure, results[measure], theirs, gold)
        ours_ties = evaluate(Run.load(run_path), gold, [measure])[measure]
        differing += sum(
            abs(value - theirs[query]) > 1e-12 for query, value in ours_ties.per_query.items()
        )
    assert differing > 0  # the data has ties that matter: the test above is not vacuous


def test_relevance_levels_equal_pytrec_eval(tmp_path: Path) -> None:
    run_path, qrels_path = write_collection(tmp_path, 7, ties=True)
    gold, run = GoldSet.load(qrels_path), Run.load(run_path)
    qrels: dict[str, dict[str, int]] = {}
    for line in qrels_path.read_text().splitlines():
        query, _, doc, grade = line.split()
        qrels.setdefault(query, {})[doc] = int(grade)
    runs: dict[str, dict[str, float]] = {}
    for line in run_path.read_text().splitlines():
        query, _, doc, _, score, _ = line.split()
        runs.setdefault(query, {})[doc] = float(score)
    for level in (1, 2, 3):
        evaluator = pytrec_eval.RelevanceEvaluator(
            qrels, {"P_5", "recall_10", "map", "recip_rank", "success_3"}, relevance_level=level
        )
        expected = evaluator.evaluate(runs)
        names = {
            f"P(rel={level})@5": "P_5",
            f"R(rel={level})@10": "recall_10",
            f"AP(rel={level})": "map",
            f"RR(rel={level})": "recip_rank",
            f"Success(rel={level})@3": "success_3",
        }
        results = evaluate(run, gold, list(names))
        for measure, trec_name in names.items():
            for query, value in results[measure].per_query.items():
                if query in expected:  # pytrec_eval leaves out queries the run lacks
                    assert value == pytest.approx(expected[query][trec_name], abs=1e-12)
