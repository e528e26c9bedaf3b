"""trec_eval's rank, count and set measures (Rprec, bpref, gm_map, iprec_at_recall, num_*,
set_*, relative_P, utility, ...) agree with trec_eval (through pytrec_eval) per query, by the
names trec_eval prints, within 1e-12.

The collection is random and seeded, written to TREC files and read by both tools with their own
parsers: tied scores, grades -2 to 3 (a negative grade is trec_eval's "in the pool, unjudged"),
unjudged documents, queries whose judgments are all 0, a judged query the run lacks and a run query
the qrels lack. The names are the ones pytrec_eval reports, parsed with ``parse_measure`` and scored
with ``empty="zero"`` (trec_eval's rule), at relevance levels 1 and 2 (trec_eval's -l).

pytrec_eval 0.5 holds trec_eval 9's iprec_at_recall and 11pt_avg: the count of relevant documents
a recall level r needs is int(r x R + 0.9) there, lround(r x R) in trec_eval 10, which the plugin
follows. The two agree unless r x R ends in .1 to .5; the other levels are compared where
pytrec_eval has a level of the same count, and tests/data/test_trec_eval_outputs.py checks
trec_eval 10's rule against its own expected outputs.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from pytest_tempoeval import (
    GoldSet,
    MetricError,
    MetricResult,
    Run,
    evaluate,
    interpolated_precision,
    parse_measure,
    r_precision,
    score,
    set_f,
    utility,
)
from pytest_tempoeval.metrics.measures import Measure, measure_of

pytrec_eval = pytest.importorskip("pytrec_eval")

N_QUERIES = 300
MISSING, UNJUDGED = "q_not_run", "q_not_judged"
# pytrec_eval's measures with trec_eval's default parameters, and with some of our own: several
# Rprec multiples (0.7 x R + 0.9 rounds differently from 0.7 x R), recall levels whose lround
# falls on a half (0.25 x 2 = 0.5 rounds to 1, as trec_eval's lround does), relative_P cutoffs
# and success cutoffs past the ends of the rankings.
DEFAULTS = {
    "Rprec",
    "Rprec_mult",
    "bpref",
    "gm_bpref",
    "gm_map",
    "iprec_at_recall",
    "11pt_avg",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "num_nonrel_judged_ret",
    "set_P",
    "set_recall",
    "set_F",
    "set_map",
    "set_relative_P",
    "relative_P",
    "utility",
    "success",
}
CHOSEN = {
    "Rprec_mult.0.05,0.33,0.7,1.5,3.25",
    "iprec_at_recall.0.05,0.25,0.35,0.75,0.95",
    "relative_P.1,3,7,25,80",
    "success.2,50",
}
GEOMETRIC = {"gm_map", "gm_bpref"}  # pytrec_eval gives each query's log(max(value, 1e-5))
COUNTS = {"num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}


def write_files(directory: Path) -> tuple[Path, Path]:
    rng = random.Random(20261127)
    run_lines, qrel_lines = [], []
    for query in range(N_QUERIES):
        pool = [f"D{doc}" for doc in rng.sample(range(400), 90)]
        retrieved = pool[: rng.choice([1, 2, rng.randint(3, 60), rng.randint(3, 60)])]
        scores = [round(rng.gauss(5, 1.5), 1) for _ in retrieved]  # ~30 values: many ties
        rows = list(zip(retrieved, scores))
        rng.shuffle(rows)  # lines in no order: trec_eval sorts by score, ties by doc id
        run_lines += [f"q{query} Q0 {doc} 0 {value} tag\n" for doc, value in rows]
        # judged: some retrieved documents and some others, graded -2..3
        judged = (
            rng.sample(retrieved, rng.randint(0, len(retrieved)))
            + pool[60 : 60 + rng.randint(0, 25)]
        )
        grades = [rng.choice([-2, -1, 0, 0, 0, 1, 1, 2, 3]) for _ in judged]
        if query % 23 == 0:
            grades = [0] * len(grades)  # judged, nothing relevant
        if not judged:
            judged, grades = [pool[0]], [rng.choice([0, 1])]  # a query of the qrels has a line
        qrel_lines += [f"q{query} 0 {doc} {grade}\n" for doc, grade in zip(judged, grades)]
    qrel_lines += [f"{MISSING} 0 D1 2\n", f"{MISSING} 0 D2 1\n", f"{MISSING} 0 D3 0\n"]
    run_lines.append(f"{UNJUDGED} Q0 D1 1 3.0 tag\n")
    run_path, qrels_path = directory / "run.trec", directory / "qrels.trec"
    run_path.write_text("".join(run_lines))
    qrels_path.write_text("".join(qrel_lines))
    return run_path, qrels_path


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return write_files(tmp_path_factory.mktemp("trec_eval_measures"))


@pytest.fixture(scope="module")
def loaded(files: tuple[Path, Path]) -> tuple[Run, GoldSet]:
    return Run.load(files[0]), GoldSet.from_trec_qrels(files[1])


def reference(files: tuple[Path, Path], measures: set[str], rel: int) -> dict[str, dict]:
    run_path, qrels_path = files
    with qrels_path.open() as qrels_file, run_path.open() as run_file:
        qrel, run = pytrec_eval.parse_qrel(qrels_file), pytrec_eval.parse_run(run_file)
    return pytrec_eval.RelevanceEvaluator(qrel, measures, relevance_level=rel).evaluate(run)


@pytest.fixture(scope="module", params=[1, 2], ids=["rel1", "rel2"])
def level(request: pytest.FixtureRequest, files: tuple[Path, Path]) -> tuple[int, dict[str, dict]]:
    rel: int = request.param
    theirs = reference(files, DEFAULTS, rel)
    for chosen in CHOSEN:  # one evaluator each: pytrec_eval keeps one parameter list a measure
        for query, values in reference(files, {chosen}, rel).items():
            theirs[query].update(values)
    return rel, theirs


def at_level(name: str, rel: int) -> Measure:
    """trec_eval's printed ``name`` at relevance level ``rel`` (trec_eval's -l)."""
    measure = parse_measure(name)
    params = dict(measure.params)
    if any(param.name == "rel" for param in measure.family.parameters):
        params["rel"] = rel
    return measure_of(measure.name, measure.cutoff, **params)


def needed(level: float, relevant: int, trec_eval_9: bool = False) -> int:
    """The relevant documents recall ``level`` needs: trec_eval 10 rounds half away from 0 (lround),
    trec_eval 9 (pytrec_eval) added 0.9 and truncated."""
    exact = level * relevant
    return int(exact + 0.9) if trec_eval_9 else math.floor(exact + 0.5)


def level_of(name: str) -> float | None:
    """The recall level of an iprec_at_recall name."""
    return float(name.rsplit("_", 1)[1]) if name.startswith("iprec_at_recall_") else None


def comparable(
    name: str, query_relevant: int, theirs: dict[str, float], levels: dict[str, float]
) -> float | None:
    """pytrec_eval's value that trec_eval 10 gives for ``name``: the value itself, but for a
    recall level whose count the two versions round differently, the value of a level (of
    ``levels``: name -> recall level) with the same count under trec_eval 9's rule (None when
    pytrec_eval has none)."""
    if name == "11pt_avg":  # the mean of 11 levels: all must round alike
        points = [round(0.1 * i, 1) for i in range(11)]
        same = all(needed(p, query_relevant) == needed(p, query_relevant, True) for p in points)
        return theirs[name] if same else None
    level = level_of(name)
    if level is None or needed(level, query_relevant) == needed(level, query_relevant, True):
        return theirs[name]
    wanted = needed(level, query_relevant)
    for other, other_level in levels.items():
        if needed(other_level, query_relevant, True) == wanted:
            return theirs[other]
    return None


def relevant_counts(qrels: Path, rel: int) -> dict[str, int]:
    counts: dict[str, int] = {}
    for line in qrels.read_text().splitlines():
        query, _, _, grade = line.split()
        counts[query] = counts.get(query, 0) + (int(grade) >= rel)
    return counts


def test_the_data_has_what_the_measures_must_get_right(
    files: tuple[Path, Path], level: tuple[int, dict[str, dict]]
) -> None:
    """Not vacuous: negative grades and grade 0 are retrieved, some queries have nothing relevant,
    and some recall level's lround falls on a half."""
    rel, theirs = level
    counts = relevant_counts(files[1], rel)
    assert sum(count == 0 for count in counts.values()) > 10
    assert any(count % 4 == 2 for count in counts.values())  # 0.25 x R ends in .5
    assert any(values["num_nonrel_judged_ret"] > 0 for values in theirs.values())
    assert any(  # some query retrieved a pool sample left unjudged (a negative grade)
        values["num_ret"] > values["num_rel_ret"] + values["num_nonrel_judged_ret"]
        and values["bpref"] > 0
        for values in theirs.values()
    )


def test_every_query_agrees_with_trec_eval_by_its_printed_name(
    loaded: tuple[Run, GoldSet], files: tuple[Path, Path], level: tuple[int, dict[str, dict]]
) -> None:
    rel, theirs = level
    run, gold = loaded
    names = sorted(next(iter(theirs.values())))
    # 16 single values, Rprec_mult x 10, iprec_at_recall x 11, relative_P x 9, success x 3, and
    # the chosen parameters: 5 + 5 + 5 + 2
    assert len(names) == 16 + 10 + 11 + 9 + 3 + 17
    measures = [at_level(name, rel) for name in names]
    results = evaluate(run, gold, measures, empty="zero")
    counts = relevant_counts(files[1], rel)
    nothing_relevant = {q for q, count in counts.items() if count == 0}
    levels = {name: level for name in names if (level := level_of(name)) is not None}
    worst, compared, rounded_apart, wrong = 0.0, 0, 0, []
    for name, measure in zip(names, measures):
        result = results[str(measure)]
        assert result.excluded == {}, name
        # every query trec_eval scores, and the judged one the run lacks (as trec_eval -c)
        assert set(result.per_query) == set(theirs) | {MISSING}, name
        for query, values in theirs.items():
            expected = comparable(name, counts[query], values, levels)
            if expected is None:
                rounded_apart += 1
                continue
            compared += 1
            ours = result.per_query[query]
            if name in GEOMETRIC:
                ours = math.log(max(ours, 1e-5))
            if name in COUNTS and not (isinstance(ours, int) and ours == expected):
                wrong.append((name, query, ours, expected))  # an integer, exactly
            worst = max(worst, abs(ours - expected))
            if not abs(ours - expected) <= 1e-12:  # (a NaN is wrong too)
                wrong.append((name, query, ours, expected))
        # trec_eval scores a query with nothing relevant 0 for every ratio (utility and the
        # counts are no ratio)
        if name not in COUNTS | {"utility"}:
            zero = math.log(1e-5) if name in GEOMETRIC else 0.0
            nonzero = [q for q in nothing_relevant if q in theirs and theirs[q][name] != zero]
            assert not nonzero, (name, nonzero)
    assert not wrong and worst <= 1e-12, wrong[:10]
    assert rounded_apart < compared / 25  # nearly every value is compared


def test_the_query_the_run_lacks_scores_as_trec_eval_minus_c_scores_it(
    loaded: tuple[Run, GoldSet], level: tuple[int, dict[str, dict]]
) -> None:
    """trec_eval -c scores it as an empty ranking: every measure 0, but num_q (1) and num_rel (its
    relevant documents: grades 2 and 1, and a 0)."""
    rel, theirs = level
    run, gold = loaded
    names = sorted(next(iter(theirs.values())))
    results = evaluate(run, gold, [at_level(name, rel) for name in names], empty="zero")
    for name, result in zip(names, results.values()):
        expected = {"num_q": 1, "num_rel": 2 if rel == 1 else 1}.get(name, 0)
        assert result.per_query[MISSING] == expected, name
        assert UNJUDGED not in result.per_query


def test_the_one_value_is_trec_eval_s_all_line(
    loaded: tuple[Run, GoldSet], level: tuple[int, dict[str, dict]]
) -> None:
    """The mean, trec_eval's geometric mean (gm_*: exp of the mean log, each value floored at
    1e-5) or the sum (num_*), over trec_eval's queries and the one the run lacks (-c)."""
    rel, theirs = level
    run, gold = loaded
    names = sorted(next(iter(theirs.values())))
    results = evaluate(run, gold, [at_level(name, rel) for name in names], empty="zero")
    for name, result in zip(names, results.values()):
        if name == "11pt_avg" or name.startswith("iprec_at_recall"):
            continue  # pytrec_eval rounds their counts as trec_eval 9 (see the module's docstring)
        values = [values[name] for values in theirs.values()]
        missing = result.per_query[MISSING]
        if name in GEOMETRIC:
            expected = math.exp(math.fsum([*values, math.log(1e-5)]) / (len(values) + 1))
        elif name in COUNTS:
            expected = math.fsum([*values, missing])
        else:
            expected = math.fsum([*values, missing]) / (len(values) + 1)
        assert float(result) == pytest.approx(expected, rel=1e-12, abs=1e-12), name


def test_by_default_a_query_with_nothing_relevant_is_left_out_of_the_ratios_only(
    loaded: tuple[Run, GoldSet], files: tuple[Path, Path], level: tuple[int, dict[str, dict]]
) -> None:
    """The plugin's default (empty="exclude") leaves such a query out of a ratio and names it; the
    counts and utility count every query. The others score as with empty="zero"."""
    rel, theirs = level
    run, gold = loaded
    names = sorted(next(iter(theirs.values())))
    measures = [at_level(name, rel) for name in names]
    excluded = evaluate(run, gold, measures)
    zero = evaluate(run, gold, measures, empty="zero")
    nothing_relevant = {q for q, count in relevant_counts(files[1], rel).items() if count == 0}
    assert nothing_relevant
    for name, measure in zip(names, measures):
        ours, zeroed = excluded[str(measure)], zero[str(measure)]
        if name in COUNTS | {"utility"}:
            assert ours.excluded == {} and ours.per_query == zeroed.per_query, name
            continue
        assert set(ours.excluded) == nothing_relevant, name
        assert set(ours.per_query) == set(zeroed.per_query) - nothing_relevant, name
        assert all(ours.per_query[q] == zeroed.per_query[q] for q in ours.per_query), name


def test_set_f_beta_is_trec_eval_s_parameter(
    loaded: tuple[Run, GoldSet], files: tuple[Path, Path]
) -> None:
    run, gold = loaded
    for rel in (1, 2):
        theirs = reference(files, {"set_F.0.5"}, rel)
        for measure in (f"SetF(beta=0.5,rel={rel})",):
            result = score(measure, run, gold, empty="zero")
            for query, values in theirs.items():
                assert result.per_query[query] == pytest.approx(values["set_F"], abs=1e-12)
        function = set_f(run, gold, beta=0.5, rel=rel, empty="zero")
        assert function.per_query == result.per_query


def test_utility_coefficients_weigh_trec_eval_s_counts(
    loaded: tuple[Run, GoldSet], files: tuple[Path, Path]
) -> None:
    """pytrec_eval refuses utility's coefficients (it reads one number a parameter), so they are
    checked against trec_eval's contingency counts: a x relevant retrieved + b x non-relevant
    retrieved + c x relevant missed + d x (N + relevant retrieved - retrieved - relevant)."""
    run, gold = loaded
    counts = reference(files, {"num_ret", "num_rel", "num_rel_ret"}, 2)
    a, b, c, d, n = 2.0, -3.0, -0.5, 0.25, 400
    result = utility(
        run,
        gold,
        rel=2,
        relevant_retrieved=a,
        nonrelevant_retrieved=b,
        relevant_missed=c,
        nonrelevant_missed=d,
        collection_size=n,
    )
    assert result.measure == (
        "Utility(collection_size=400,nonrelevant_missed=0.25,nonrelevant_retrieved=-3.0,"
        "rel=2,relevant_missed=-0.5,relevant_retrieved=2.0)"
    )
    assert score(result.measure, run, gold).per_query == result.per_query
    for query, values in counts.items():
        found, size, relevant = values["num_rel_ret"], values["num_ret"], values["num_rel"]
        expected = a * found + b * (size - found) + c * (relevant - found)
        expected += d * (n + found - size - relevant)
        assert result.per_query[query] == pytest.approx(expected, abs=1e-9), query


BAD_ARGUMENTS = [
    (
        lambda run, gold: r_precision(run, gold, k=10),
        "Rprec reads the whole ranking and takes no cutoff: k must be None or 'all', got 10",
    ),
    (
        lambda run, gold: interpolated_precision(run, gold, 1.5),
        "recall must be a finite number >= 0 and <= 1, got 1.5",
    ),
    (
        lambda run, gold: interpolated_precision(run, gold, math.nan),
        "recall must be a finite number >= 0 and <= 1, got nan",
    ),
    (lambda run, gold: set_f(run, gold, beta=-1.0), "beta must be a finite number >= 0, got -1.0"),
    (
        lambda run, gold: utility(run, gold, collection_size=-1),
        "collection_size must be a whole number >= 0, got -1",
    ),
    (
        lambda run, gold: utility(run, gold, relevant_missed=math.inf),
        "relevant_missed must be a finite number, got inf",
    ),
]


@pytest.mark.parametrize(("call", "message"), BAD_ARGUMENTS)
def test_bad_arguments_are_metric_errors(
    loaded: tuple[Run, GoldSet], call: object, message: str
) -> None:
    with pytest.raises(MetricError) as error:
        call(*loaded)  # type: ignore[operator]
    assert str(error.value).startswith(message)


def test_k_all_is_the_whole_ranking_for_a_measure_without_cutoff(
    loaded: tuple[Run, GoldSet],
) -> None:
    run, gold = loaded
    whole: MetricResult = r_precision(run, gold, k="all")
    assert whole.measure == "Rprec" and whole.per_query == r_precision(run, gold).per_query


def test_one_ranking_by_hand(tmp_path: Path) -> None:
    """d1..d6 retrieved, graded 2, (not judged), 0, -1, 1, 0; d7 (1) and d8 (0) judged, not
    retrieved: R = 3 (d1, d5, d7), judged non-relevant N = 3 (d3, d6, d8)."""
    (tmp_path / "qrels").write_text(
        "".join(
            f"q 0 {doc} {grade}\n"
            for doc, grade in [("d1", 2), ("d3", 0), ("d4", -1), ("d5", 1), ("d6", 0), ("d7", 1)]
            + [("d8", 0)]
        )
        + "nothing 0 d1 0\n"
    )
    gold = GoldSet.from_trec_qrels(tmp_path / "qrels")
    run = Run({"q": [f"d{i}" for i in range(1, 7)], "nothing": ["d1"]})
    expected = {
        "Rprec": 1 / 3,  # d1 in the top 3
        # d1: no judged non-relevant above it (d2 not judged, d4 a pool sample: skipped): 1;
        # d5: d3 above it: 1 - 1/3
        "Bpref": (1 + 2 / 3) / 3,
        "Rprec_mult@0.2": 1.0,  # int(0.6 + 0.9) = 1: P@1
        "Rprec_mult@0.5": 0.5,  # int(1.5 + 0.9) = 2: P@2
        "IPrec@0.5": 0.4,  # lround(1.5) = 2 relevant: rank 5, the best precision from there 2/5
        "IPrec@0.4": 1.0,  # lround(1.2) = 1: rank 1 (trec_eval 9's int(2.1) = 2 would give 0.4)
        "IPrec@1.0": 0.0,  # 3 relevant never retrieved
        "NumRet": 6,
        "NumRel": 3,
        "NumRelRet": 2,
        "NumNonRelJudgedRet": 2,  # d3, d6: not d2 (unjudged) nor d4 (negative)
        "SetP": 2 / 6,
        "SetR": 2 / 3,
        "SetF": 2 * (1 / 3) * (2 / 3) / (1 / 3 + 2 / 3),
        "SetAP": 4 / 18,
        "SetRelP": 2 / 3,
        "RelP@2": 1 / 2,
        "RelP@5": 2 / 3,  # past R: recall
        "Utility": 2 - 4,
        "Utility(collection_size=100,nonrelevant_missed=0.5)": -2 + 0.5 * (100 + 2 - 6 - 3),
    }
    results = evaluate(run, gold, list(expected))
    for measure, value in expected.items():
        result = results[measure]
        assert result.per_query["q"] == pytest.approx(value, abs=1e-15), measure
        if measure.startswith(("Num", "Utility")):
            assert "nothing" in result.per_query and result.excluded == {}, measure
        else:
            assert set(result.excluded) == {"nothing"}, measure
