"""T-YearP, T-YearR, T-Diversity and T-AnchorF1 (issue 28): TempoEval 0.1.0's
TemporalYearPrecision, TemporalYearRecall, TemporalDiversity (its focus-time forms) and
AnchorCoverage, checked against those classes on seeded random gold sets and runs, by hand, and as
properties. Each convention that differs from TempoEval's (docs/conventions.md) is asserted as a
difference, so that it cannot drift silently."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tempoeval.metrics import AnchorCoverage as TheirAnchorCoverage
from tempoeval.metrics import TemporalDiversity as TheirDiversity
from tempoeval.metrics import TemporalYearPrecision as TheirYearPrecision
from tempoeval.metrics import TemporalYearRecall as TheirYearRecall

from pytest_tempoeval import (
    FocusTime,
    GoldDocument,
    GoldQuery,
    GoldSet,
    MetricError,
    MetricResult,
    Run,
    evaluate,
    parse_measure,
    temporal_anchor_f1,
    temporal_diversity,
    temporal_year_precision,
    temporal_year_recall,
)

ROUNDING = 5e-6 + 1e-12  # TempoEval rounds every value to 5 decimals: round(value, 5)
NO_FOCUS_TIME = "no focus time (none given, none found in its text)"
NO_YEAR_IN_TOP = "no year in its top k (no document there has a focus time)"
NO_TIME_ANCHORS = "no required time anchors (key_time_anchors)"
KS = (1, 3, 10, 40)  # 40: longer than every ranking below


# -- random cases ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """A gold set and a run, with the years the generator gave every document and query: what
    TempoEval is given, independently of how the package reads them."""

    gold: GoldSet
    run: Run
    rankings: dict[str, list[str]]  # as retrieved (a query absent from the run: empty)
    doc_years: dict[str, set[int]]  # every retrievable document, in the gold set or not
    query_years: dict[str, set[int]]  # empty: no focus time
    anchors: dict[str, list[str]]  # required anchors as TempoEval's strings ([]: none)
    texts: dict[str, str]  # every document's text (the text case only)


def _year_set(rng: random.Random, low: int, high: int) -> set[int]:
    kind = rng.random()
    if kind < 0.15:
        return set()  # no focus time
    if kind < 0.5:  # a range
        start = rng.randint(low, high)
        return set(range(start, min(high, start + rng.randint(0, 7)) + 1))
    return {rng.randint(low, high) for _ in range(rng.randint(1, 4))}


def _text(years: set[int]) -> str:
    return f"Events of {'; '.join(map(str, sorted(years)))}." if years else "No dates here."


def focus_time_case(seed: int) -> Case:
    """Documents and queries with focus times given as years; documents outside the gold set
    (with run texts) about years far outside the gold set's span, so that a union must count
    years no gold focus time has."""
    rng = random.Random(seed)
    docs = {f"d{i}": _year_set(rng, 1985, 2025) for i in range(40)}
    outside = {
        f"x{i}": {rng.choice((1850, 1901, 2150, 2199)), rng.randint(1985, 2025)} for i in range(4)
    }
    queries = {f"q{i}": _year_set(rng, 1985, 2025) for i in range(30)}
    anchors = {q: [str(rng.randint(1985, 2025)) for _ in range(rng.randint(0, 4))] for q in queries}
    pool = [*docs, *outside]
    rankings = {q: rng.sample(pool, rng.randint(0, 12)) for q in queries}
    absent = rng.sample(sorted(queries), 3)  # scored as empty rankings
    gold = GoldSet.from_dict(
        {
            "version": 1,
            "documents": {d: {"focus_time": sorted(y)} if y else {} for d, y in docs.items()},
            "queries": [
                {
                    "id": q,
                    **({"focus_time": sorted(y)} if y else {}),
                    **(
                        {"key_time_anchors": anchors[q]} if anchors[q] or rng.random() < 0.5 else {}
                    ),
                }
                for q, y in queries.items()
            ],
        }
    )
    run = Run(
        {q: ranking for q, ranking in rankings.items() if q not in absent},
        texts={x: _text(y) for x, y in outside.items()},
    )
    rankings = {q: [] if q in absent else ranking for q, ranking in rankings.items()}
    doc_years = {**docs, **outside}
    texts = {d: _text(y) for d, y in doc_years.items()}
    return Case(gold, run, rankings, doc_years, queries, anchors, texts)


def text_case(seed: int) -> Case:
    """Documents known only by their text, single years in 1900-2099 (what TempoEval's rule-based
    anchor reading finds), and queries requiring single-year anchors."""
    rng = random.Random(seed)
    docs = {f"d{i}": {rng.randint(1900, 2099) for _ in range(rng.randint(0, 3))} for i in range(30)}
    docs.update({f"e{i}": {rng.randint(1990, 2000) for _ in range(2)} for i in range(10)})
    queries = [f"q{i}" for i in range(25)]
    anchors = {q: [str(rng.randint(1990, 2000)) for _ in range(rng.randint(0, 4))] for q in queries}
    rankings = {q: rng.sample(sorted(docs), rng.randint(0, 10)) for q in queries}
    texts = {d: _text(y) for d, y in docs.items()}
    gold = GoldSet.from_dict(
        {
            "version": 1,
            "documents": {d: {"text": text} for d, text in texts.items()},
            "queries": [{"id": q, "key_time_anchors": anchors[q]} for q in queries],
        }
    )
    return Case(gold, Run(rankings), rankings, docs, {q: set() for q in queries}, anchors, texts)


def union_of_top(case: Case, query: str, k: int) -> set[int]:
    return set().union(*(case.doc_years[d] for d in case.rankings[query][:k]))


def dfts(case: Case, query: str) -> list[set[int]]:
    return [case.doc_years[d] for d in case.rankings[query]]


SEEDS = range(4)


@pytest.fixture(scope="module", params=SEEDS, ids=lambda seed: f"seed{seed}")
def case(request: pytest.FixtureRequest) -> Case:
    return focus_time_case(request.param)


@pytest.fixture(scope="module", params=SEEDS, ids=lambda seed: f"seed{seed}")
def texts(request: pytest.FixtureRequest) -> Case:
    return text_case(request.param)


# -- agreement with TempoEval on random cases -----------------------------------------------------


@pytest.mark.parametrize("k", KS)
def test_year_precision_agrees_with_tempoeval(case: Case, k: int) -> None:
    result = temporal_year_precision(case.run, case.gold, k=k)
    zero = temporal_year_precision(case.run, case.gold, k=k, empty="zero")
    counted = 0
    for query, years in case.query_years.items():
        theirs = TheirYearPrecision().compute(qft=years, dfts=dfts(case, query), k=k)
        if not years:  # convention: left out and named, even with empty="zero"; TempoEval 0.0
            assert result.excluded[query] == zero.excluded[query] == NO_FOCUS_TIME
            assert theirs == 0.0
        elif not union_of_top(case, query, k):  # 0 / 0: left out, or 0 as TempoEval
            assert result.excluded[query] == NO_YEAR_IN_TOP and query not in zero.excluded
            assert zero.per_query[query] == theirs == 0.0
        else:
            counted += 1
            assert abs(result.per_query[query] - theirs) <= ROUNDING, query
            assert zero.per_query[query] == result.per_query[query]
    assert len(result.per_query) == counted > 0


@pytest.mark.parametrize("k", KS)
def test_year_recall_agrees_with_tempoeval(case: Case, k: int) -> None:
    result = temporal_year_recall(case.run, case.gold, k=k)
    for query, years in case.query_years.items():
        theirs = TheirYearRecall().compute(qft=years, dfts=dfts(case, query), k=k)
        if not years:  # convention: left out and named; TempoEval 0.0
            assert result.excluded[query] == NO_FOCUS_TIME and theirs == 0.0
        else:  # an empty top k scores 0, as TempoEval's
            assert abs(result.per_query[query] - theirs) <= ROUNDING, query
    assert set(result.per_query) == {q for q, years in case.query_years.items() if years}


@pytest.mark.parametrize("k", KS)
def test_diversity_of_the_collection_agrees_with_tempoeval_given_its_total_scope(
    case: Case, k: int
) -> None:
    """scope=collection: TempoEval's total_scope is the distinct years of the gold set's
    documents. Every query counts: its focus time is not read."""
    collection = set().union(*(y for d, y in case.doc_years.items() if d.startswith("d")))
    result = temporal_diversity(case.run, case.gold, k=k)
    assert result.excluded == {} and len(result.per_query) == len(case.query_years)
    for query in case.query_years:
        theirs = TheirDiversity(use_focus_time=True).compute(
            dfts=dfts(case, query), total_scope=len(collection), k=k
        )
        assert abs(result.per_query[query] - theirs) <= ROUNDING, query


@pytest.mark.parametrize("k", KS)
def test_diversity_of_the_retrieved_years_agrees_with_tempoeval_without_total_scope(
    case: Case, k: int
) -> None:
    result = temporal_diversity(case.run, case.gold, k=k, scope="retrieved")
    zero = temporal_diversity(case.run, case.gold, k=k, scope="retrieved", empty="zero")
    for query in case.query_years:
        theirs = TheirDiversity(use_focus_time=True).compute(dfts=dfts(case, query), k=k)
        if not union_of_top(case, query, k):  # 0 / 0: left out, or 0 as TempoEval
            assert result.excluded[query] == NO_YEAR_IN_TOP
            assert zero.per_query[query] == theirs == 0.0
        else:
            assert result.per_query[query] == theirs == 1.0


@pytest.mark.parametrize("k", KS)
def test_anchor_f1_agrees_with_tempoeval_reading_the_documents_texts(texts: Case, k: int) -> None:
    """TempoEval's rule-based AnchorCoverage reads the top k's texts; the package reads the same
    texts as focus times. Single-year anchors: its exact string match."""
    result = temporal_anchor_f1(texts.run, texts.gold, k=k)
    zero = temporal_anchor_f1(texts.run, texts.gold, k=k, empty="zero")
    for query, anchors in texts.anchors.items():
        documents = [texts.texts[d] for d in texts.rankings[query]]
        theirs = TheirAnchorCoverage().compute(
            retrieved_docs=documents, required_anchors=anchors, k=k
        )
        if not anchors:  # convention: left out and named, or 0 as TempoEval
            assert result.excluded[query] == NO_TIME_ANCHORS
            assert zero.per_query[query] == theirs == 0.0
        else:
            assert abs(result.per_query[query] - theirs) <= ROUNDING, query
    if k == 10:  # not a test of zeros and ones only
        assert any(0 < value < 1 for value in result.per_query.values())


@pytest.mark.parametrize("k", KS)
def test_anchor_f1_agrees_with_tempoeval_given_the_years_as_anchors(case: Case, k: int) -> None:
    """The focus-time case: TempoEval given the top k's years (a Python set union) as anchors."""
    result = temporal_anchor_f1(case.run, case.gold, k=k)
    for query, anchors in case.anchors.items():
        top = [str(year) for year in union_of_top(case, query, k)]
        theirs = TheirAnchorCoverage().compute(retrieved_anchors=top, required_anchors=anchors)
        if not anchors:
            assert result.excluded[query] == NO_TIME_ANCHORS and theirs == 0.0
        else:  # counted whether or not the query has a focus time: it is not read
            assert abs(result.per_query[query] - theirs) <= ROUNDING, query


# -- by hand -------------------------------------------------------------------------------------

HAND = GoldSet.from_dict(
    {
        "version": 1,
        "documents": {
            "a": {"focus_time": 2020},
            "b": {"focus_time": "2019-2021"},
            "c": {"focus_time": 2015},
            "d": {"text": "Results of 2020 and 2021."},  # focus time read from the text
            "e": {},  # no focus time
        },
        "queries": [
            {"id": "q1", "focus_time": 2020, "key_time_anchors": [2020, "1990s"]},
            {"id": "q2", "text": "What happened from 2021 to 2022?"},
            {"id": "q3", "text": "What happened?", "key_time_anchors": ["2015"]},  # no focus time
        ],
    }
)
# The gold set's documents cover 2015, 2019, 2020, 2021: 4 years.
HAND_RUN = Run({"q1": ["c", "b", "a"], "q2": ["e", "d"], "q3": ["a"]})


def test_year_precision_and_recall_by_hand() -> None:
    # q1 {2020}: top 3 years {2015, 2019, 2020, 2021}. q2 {2021, 2022}: top 2 years {2020, 2021}.
    precision = temporal_year_precision(HAND_RUN, HAND, k=3)
    assert precision.per_query == {"q1": 1 / 4, "q2": 1 / 2}
    assert precision.excluded == {"q3": NO_FOCUS_TIME}
    assert float(precision) == (1 / 4 + 1 / 2) / 2
    assert temporal_year_precision(HAND_RUN, HAND, k=1).per_query == {"q1": 0.0}
    assert temporal_year_precision(HAND_RUN, HAND, k=1).excluded == {
        "q2": NO_YEAR_IN_TOP,  # e has no focus time
        "q3": NO_FOCUS_TIME,
    }
    recall = temporal_year_recall(HAND_RUN, HAND, k=3)
    assert recall.per_query == {"q1": 1.0, "q2": 1 / 2}
    assert temporal_year_recall(HAND_RUN, HAND, k=1).per_query == {"q1": 0.0, "q2": 0.0}


def test_diversity_by_hand() -> None:
    assert temporal_diversity(HAND_RUN, HAND, k=3).per_query == {
        "q1": 1.0,
        "q2": 2 / 4,
        "q3": 1 / 4,
    }
    assert temporal_diversity(HAND_RUN, HAND, k=1).per_query == {
        "q1": 1 / 4,
        "q2": 0.0,
        "q3": 1 / 4,
    }
    retrieved = temporal_diversity(HAND_RUN, HAND, k=1, scope="retrieved")
    assert retrieved.per_query == {"q1": 1.0, "q3": 1.0}
    assert retrieved.excluded == {"q2": NO_YEAR_IN_TOP}


def test_anchor_f1_by_hand_a_wide_anchor_is_covered_by_any_of_its_years() -> None:
    # q1 anchors {2020}, {1990..1999}; top 3 years {2015, 2019, 2020, 2021}: P = 1/4, R = 1/2.
    # q3 (no focus time, read anyway) anchor {2015}; top 1 years {2020}: 0.
    result = temporal_anchor_f1(HAND_RUN, HAND, k=3)
    assert result.per_query == pytest.approx({"q1": 2 * (1 / 8) / (3 / 4), "q3": 0.0}, abs=1e-15)
    assert result.excluded == {"q2": NO_TIME_ANCHORS}
    run = Run({"q1": ["c", "x"]}, texts={"x": "Growth in the 1990s and in 2020."})
    # top 2 years {2015, 1990..1999, 2020}: P = 11/12, R = 2/2
    assert temporal_anchor_f1(run, HAND, k=2).per_query["q1"] == pytest.approx(
        2 * (11 / 12) / (11 / 12 + 1), abs=1e-15
    )


def test_years_outside_the_gold_sets_span_count_in_the_union() -> None:
    """A retrieved document outside the gold set, read from its run text, may be about years no
    gold focus time has: clipped to the gold set's span, YearP would rise (a smaller union)."""
    run = Run({"q1": ["a", "x"], "q2": ["x"]}, texts={"x": "From 1850, and 2021, to 2199."})
    # q1: {2020} | {1850, 2021, 2199} = 4 years, 1 of them the query's
    assert temporal_year_precision(run, HAND, k=2).per_query == {"q1": 1 / 4, "q2": 1 / 3}
    assert temporal_year_recall(run, HAND, k=2).per_query == {"q1": 1.0, "q2": 1 / 2}
    # 4 years over the collection's 4, and 3 over 4
    assert temporal_diversity(run, HAND, k=2).per_query == {"q1": 1.0, "q2": 3 / 4, "q3": 0.0}
    # 6 years over the collection's 4: at most 1, as TempoEval's
    assert (
        temporal_diversity(Run({"q1": ["a", "b", "c", "x"]}, texts=run.texts), HAND).per_query["q1"]
        == 1.0
        == TheirDiversity(use_focus_time=True).compute(
            dfts=[{2020}, {2019, 2020, 2021}, {2015}, {1850, 2021, 2199}], total_scope=4
        )
    )
    # a query's anchors far from every focus time: their years are on the span too
    gold = GoldSet(
        [GoldQuery("q1", focus_time=FocusTime([2020]), key_time_anchors=(FocusTime([1200]),))],
        [GoldDocument("a", focus_time=FocusTime([2020]))],
    )
    assert temporal_anchor_f1(Run({"q1": ["x"]}, texts={"x": "In 1200."}), gold).per_query == {
        "q1": 1.0
    }


def test_the_order_of_the_top_k_does_not_matter_but_what_enters_it_does() -> None:
    swapped = Run({"q1": ["a", "b", "c"], "q2": ["d", "e"], "q3": ["a"]})
    for function in FUNCTIONS:
        assert function(swapped, HAND, k=3).per_query == function(HAND_RUN, HAND, k=3).per_query
    assert temporal_year_precision(swapped, HAND, k=1).per_query["q1"] == 1.0  # a alone


def test_a_document_without_a_focus_time_is_an_error_with_strict() -> None:
    for function in FUNCTIONS:
        with pytest.raises(MetricError, match=r"doc 'e' \(query 'q2', rank 1\) has no focus time"):
            function(HAND_RUN, HAND, k=3, strict=True)


def test_collection_diversity_without_any_document_year_is_an_error() -> None:
    """Nothing to divide by: not a NaN, not TempoEval's 1.0 (its total_scope <= 0 reads as the
    top k's own years)."""
    gold = GoldSet.from_dict({"version": 1, "queries": [{"id": "q", "focus_time": 2020}]})
    run = Run({"q": ["x"]}, texts={"x": "In 2020."})
    with pytest.raises(MetricError, match=r"^T-Diversity\(scope=collection\) divides by the"):
        temporal_diversity(run, gold, k=1)
    assert temporal_diversity(run, gold, k=1, scope="retrieved").per_query == {"q": 1.0}
    assert TheirDiversity(use_focus_time=True).compute(dfts=[{2020}], total_scope=0, k=1) == 1.0


def test_a_bad_scope_is_refused_by_the_function_and_in_a_name() -> None:
    with pytest.raises(MetricError, match=r"scope"):
        temporal_diversity(HAND_RUN, HAND, scope="query")
    with pytest.raises(MetricError, match=r"^measure 'T-Diversity\(scope=query\)@5': scope"):
        parse_measure("T-Diversity(scope=query)@5")


# -- names -----------------------------------------------------------------------------------------

FUNCTIONS: tuple[Callable[..., MetricResult], ...] = (
    temporal_year_precision,
    temporal_year_recall,
    temporal_diversity,
    temporal_anchor_f1,
)


def test_the_names_score_as_the_functions_do() -> None:
    names = ["T-YearP@3", "T-YearR@3", "T-Diversity(scope=retrieved)@3", "T-AnchorF1@3"]
    scored = evaluate(HAND_RUN, HAND, names)
    calls = [
        temporal_year_precision(HAND_RUN, HAND, k=3),
        temporal_year_recall(HAND_RUN, HAND, k=3),
        temporal_diversity(HAND_RUN, HAND, k=3, scope="retrieved"),
        temporal_anchor_f1(HAND_RUN, HAND, k=3),
    ]
    for name, call in zip(names, calls, strict=True):
        assert scored[name].measure == name == str(parse_measure(name))
        assert scored[name].per_query == call.per_query and scored[name].excluded == call.excluded
    for alias, name in [("T-YearPrecision", "T-YearP"), ("T-YearRecall", "T-YearR")]:
        assert str(parse_measure(f"{alias}@5")) == f"{name}@5"
    assert str(parse_measure("T-AnchorCoverage@5")) == "T-AnchorF1@5"
    assert str(parse_measure("T-Diversity(scope=collection)@5")) == "T-Diversity@5"  # the default


# -- properties ------------------------------------------------------------------------------------

YEARS = st.sets(st.integers(1990, 2010), max_size=5)


@st.composite
def small_cases(draw: st.DrawFn) -> tuple[GoldSet, dict[str, list[str]], dict[str, set[int]]]:
    # d0 has a year: T-Diversity(scope=collection) refuses a gold set whose documents have none
    doc_years = {
        f"d{i}": draw(YEARS.filter(bool) if i == 0 else YEARS)
        for i in range(draw(st.integers(1, 8)))
    }
    n_queries = draw(st.integers(1, 4))
    queries = [
        GoldQuery(
            f"q{i}",
            focus_time=FocusTime(years) if (years := draw(YEARS)) else None,
            key_time_anchors=tuple(
                dict.fromkeys(FocusTime(a) for a in draw(st.lists(YEARS.filter(bool), max_size=3)))
            ),
        )
        for i in range(n_queries)
    ]
    documents = [
        GoldDocument(d, focus_time=FocusTime(y) if y else None) for d, y in doc_years.items()
    ]
    rankings = {q.id: draw(st.permutations(sorted(doc_years))) for q in queries}
    return GoldSet(queries, documents), rankings, doc_years


def _scores(gold: GoldSet, rankings: dict[str, list[str]], k: int) -> list[dict[str, float]]:
    run = Run(rankings)
    return [
        *(function(run, gold, k=k).per_query for function in FUNCTIONS),
        temporal_diversity(run, gold, k=k, scope="retrieved").per_query,
    ]


@settings(max_examples=40, deadline=None)
@given(small_cases(), st.integers(1, 9), st.randoms(use_true_random=False))
def test_values_lie_in_0_1_and_depend_on_the_set_of_the_top_k_not_its_order(
    drawn: tuple[GoldSet, dict[str, list[str]], dict[str, set[int]]], k: int, rng: random.Random
) -> None:
    gold, rankings, _ = drawn
    before = _scores(gold, rankings, k)
    for scores in before:
        assert all(0.0 <= value <= 1.0 for value in scores.values())
    shuffled = {}
    for query, ranking in rankings.items():
        top, rest = list(ranking[:k]), list(ranking[k:])
        rng.shuffle(top)
        rng.shuffle(rest)
        shuffled[query] = top + rest
    assert _scores(gold, shuffled, k) == before


@settings(max_examples=40, deadline=None)
@given(small_cases(), st.integers(1, 8))
def test_year_recall_and_diversity_never_fall_as_k_grows_and_p_u_equals_r_q(
    drawn: tuple[GoldSet, dict[str, list[str]], dict[str, set[int]]], k: int
) -> None:
    """The union only grows with k. And YearP |⋃ DFT| = YearR |QFT| = the shared years."""
    gold, rankings, doc_years = drawn
    run = Run(rankings)
    for function in (temporal_year_recall, temporal_diversity):
        shallow, deep = function(run, gold, k=k).per_query, function(run, gold, k=k + 1).per_query
        assert all(deep[query] >= value for query, value in shallow.items())
    precision = temporal_year_precision(run, gold, k=k).per_query
    recall = temporal_year_recall(run, gold, k=k).per_query
    for query, value in precision.items():
        union = set().union(*(doc_years[d] for d in rankings[query][:k]))
        query_years = gold.queries[query].focus_time
        assert query_years is not None
        shared = len(union & query_years.years)
        assert math.isclose(value * len(union), shared) and math.isclose(
            recall[query] * len(query_years), shared
        )


def test_every_combination_of_empty_ranking_and_missing_data_is_named_or_scored() -> None:
    """No query's value is NaN or silently dropped: each is a number or an exclusion with its
    reason, for every measure and both empty= rules."""
    gold = GoldSet(
        [
            GoldQuery(q, focus_time=ft, key_time_anchors=anchors)
            for q, (ft, anchors) in zip(
                "abcd",
                itertools.product((None, FocusTime([2000])), ((), (FocusTime([2000]),))),
                strict=True,
            )
        ],
        [GoldDocument("d", focus_time=FocusTime([2000]))],
    )
    for run in (Run({"a": []}), Run({q: ["d"] for q in "abcd"})):  # b, c, d: not in the run
        for function, empty in itertools.product(FUNCTIONS, ("exclude", "zero")):
            result = function(run, gold, k=1, empty=empty)
            assert set(result.per_query) | set(result.excluded) == set("abcd")
            assert not set(result.per_query) & set(result.excluded)
            assert all(math.isfinite(value) for value in result.per_query.values())
