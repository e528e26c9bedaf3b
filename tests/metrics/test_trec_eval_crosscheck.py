"""Gold-mode metrics agree with trec_eval (through pytrec_eval) per query, ties included.

A seeded random run of 1,200 queries with heavily tied scores is written to TREC files, read by both
tools with their own parsers, and every per-query value is compared.
"""

import math
from pathlib import Path

import numpy as np
import pytest

from pytest_tempoeval import (
    GoldSet,
    MetricError,
    Run,
    average_precision,
    evaluate,
    mrr,
    ndcg,
    precision,
    recall,
)

pytrec_eval = pytest.importorskip("pytrec_eval")

N_QUERIES = 1200
DOCS_PER_QUERY = 60
MEASURES = {
    "ndcg_cut_10": lambda run, gold: ndcg(run, gold, k=10),
    "P_10": lambda run, gold: precision(run, gold, k=10),
    "recall_100": lambda run, gold: recall(run, gold, k=100),
    "recip_rank": lambda run, gold: mrr(run, gold),
    "map": lambda run, gold: average_precision(run, gold),
}


def write_files(directory: Path, shuffle_lines: bool) -> tuple[Path, Path]:
    rng = np.random.default_rng(20261120)
    run_lines, qrel_lines = [], []
    for query in range(N_QUERIES):
        docs = rng.choice(5000, size=DOCS_PER_QUERY, replace=False)
        scores = np.round(
            rng.normal(5, 1.5, size=DOCS_PER_QUERY), 1
        )  # ~30 distinct values: many ties
        order = np.argsort(-scores, kind="stable")  # sorted by score, ties in random doc order
        run_lines += [
            f"q{query} Q0 D{docs[i]} {rank} {scores[i]} tag\n" for rank, i in enumerate(order, 1)
        ]
        judged = np.concatenate(
            [
                rng.choice(docs, size=8, replace=False),
                rng.choice(5000, size=4, replace=False) + 5000,
            ]
        )
        grades = rng.integers(0, 4, size=judged.size)
        if query % 97 == 0:
            grades[:] = 0  # judged, but nothing relevant
        qrel_lines += [f"q{query} 0 D{doc} {grade}\n" for doc, grade in zip(judged, grades)]
    qrel_lines += ["q_not_run 0 D1 2\n"]  # a judged query the run lacks
    if shuffle_lines:
        rng.shuffle(run_lines)
    run_path, qrels_path = directory / "run.trec", directory / "qrels.trec"
    run_path.write_text("".join(run_lines))
    qrels_path.write_text("".join(qrel_lines))
    return run_path, qrels_path


@pytest.fixture(scope="module", params=["score-sorted", "shuffled"])
def files(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path]:
    return write_files(
        tmp_path_factory.mktemp(request.param), shuffle_lines=request.param == "shuffled"
    )


@pytest.fixture(scope="module")
def reference(files: tuple[Path, Path]) -> dict[str, dict[str, float]]:
    run_path, qrels_path = files
    with qrels_path.open() as qrels_file, run_path.open() as run_file:
        qrel, run = pytrec_eval.parse_qrel(qrels_file), pytrec_eval.parse_run(run_file)
    return pytrec_eval.RelevanceEvaluator(
        qrel, {"ndcg_cut.10", "P.10", "recall.100", "recip_rank", "map"}
    ).evaluate(run)


@pytest.mark.parametrize("measure", MEASURES)
def test_every_query_agrees_with_trec_eval(
    files: tuple[Path, Path], reference: dict, measure: str
) -> None:
    run_path, qrels_path = files
    result = MEASURES[measure](Run.load(run_path), GoldSet.from_trec_qrels(qrels_path))
    nothing_relevant = {f"q{q}" for q in range(0, N_QUERIES, 97)}
    assert set(result.excluded) == nothing_relevant
    # A judged query missing from the run counts as an empty ranking (trec_eval -c); trec_eval
    # skips it.
    assert set(result.per_query) == (set(reference) - nothing_relevant) | {"q_not_run"}
    assert result.per_query["q_not_run"] == 0.0 and result.extra["missing_queries"] == 1
    worst = max(
        abs(result.per_query[q] - reference[q][measure]) for q in reference if q in result.per_query
    )
    assert worst <= 1e-12
    # trec_eval scores queries with nothing relevant 0; we leave them out of the mean instead.
    assert all(reference[q][measure] == 0 for q in nothing_relevant)


def test_ties_are_broken_by_doc_id_descending(files: tuple[Path, Path]) -> None:
    run = Run.load(files[0])
    for query in ("q0", "q1", "q500"):
        docs, scores = run[query], run.scores(query)
        expected = sorted(
            zip(scores, docs), key=lambda pair: (-pair[0], [-b for b in pair[1].encode()])
        )
        assert list(zip(scores, docs)) == expected


def test_reading_the_same_run_from_dict_gives_the_same_values(files: tuple[Path, Path]) -> None:
    run = Run.load(files[0])
    as_dict = Run({q: list(zip(run[q], run.scores(q))) for q in run})
    gold = GoldSet.from_trec_qrels(files[1])
    assert ndcg(as_dict, gold, k=10).per_query == ndcg(run, gold, k=10).per_query


@pytest.mark.parametrize("measure", MEASURES)
def test_empty_zero_scores_queries_with_nothing_relevant_as_trec_eval_does(
    files: tuple[Path, Path], reference: dict, measure: str
) -> None:
    run_path, qrels_path = files
    run, gold = Run.load(run_path), GoldSet.from_trec_qrels(qrels_path)
    name = {"ndcg_cut_10": "nDCG@10", "P_10": "P@10", "recall_100": "R@100"}.get(measure, measure)
    result = evaluate(run, gold, [name], empty="zero")[name]
    assert result.excluded == {}
    for query, values in reference.items():
        assert result.per_query[query] == pytest.approx(values[measure], abs=1e-12)
    # the mean over the queries trec_eval scores: the one judged query the run lacks is extra
    mean = math.fsum(values[measure] for values in reference.values())
    assert float(result) * len(result.per_query) == pytest.approx(mean, abs=1e-9)


def test_empty_must_be_exclude_or_zero(files: tuple[Path, Path]) -> None:
    with pytest.raises(MetricError, match="empty must be one of exclude, zero, got 'skip'"):
        precision(Run.load(files[0]), GoldSet.from_trec_qrels(files[1]), k=5, empty="skip")
