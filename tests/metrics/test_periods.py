"""Slices by period: each period's result equals the per-query scores grouped by hand (hypothesis),
every query in exactly one period (an undated one in "no focus time", visible), excluded queries
stay excluded in theirs, and a period's result checks, explains and records as any result."""

from __future__ import annotations

import contextlib
import io
import math
import pickle
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_tempoeval import (
    FocusTime,
    GoldDocument,
    GoldQuery,
    GoldSet,
    MetricError,
    MetricResult,
    Run,
    assert_temporal_ndcg,
    evaluate,
    gm_map,
    ndcg,
    num_rel_ret,
    temporal_ndcg,
)
from pytest_tempoeval.metrics import checks
from pytest_tempoeval.metrics.periods import NO_FOCUS_TIME, as_slicing

# -- grouping by hand, independent of the implementation -------------------------------------------


def label_by_hand(by: Any, start: int | None) -> str:
    if start is None:
        return "no focus time"
    if by == "year":
        return str(start)
    if by in ("decade", "century"):
        span = 10 if by == "decade" else 100
        first = start // span * span
        return f"{max(first, 1)}-{first + span - 1}"
    bounds = list(by)
    if start < bounds[0]:
        return f"before {bounds[0]}"
    if start >= bounds[-1]:
        return f"{bounds[-1]} and later"
    lower = max(b for b in bounds if b <= start)
    upper = min(b for b in bounds if b > start)
    return str(lower) if upper - 1 == lower else f"{lower}-{upper - 1}"


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else math.nan


# -- random gold sets ------------------------------------------------------------------------------

YEARS = st.integers(1890, 2030)
FOCUS = st.one_of(
    st.none(),
    st.just(()),  # an empty focus time: no year to start from
    st.lists(YEARS, min_size=1, max_size=3),
    st.tuples(YEARS, st.integers(0, 30)).map(lambda span: range(span[0], span[0] + span[1] + 1)),
)


@st.composite
def gold_and_run(draw: st.DrawFn) -> tuple[GoldSet, Run]:
    n_queries = draw(st.integers(1, 14))
    n_docs = draw(st.integers(1, 12))
    docs = [
        GoldDocument(f"d{i}", "t", FocusTime(draw(st.lists(YEARS, min_size=1, max_size=2))))
        for i in range(n_docs)
    ]
    queries = []
    for i in range(n_queries):
        focus = draw(FOCUS)
        judged = draw(st.dictionaries(st.integers(0, n_docs - 1), st.integers(0, 3), max_size=4))
        queries.append(
            GoldQuery(
                f"q{i}",
                f"query {i}",
                None if focus is None else FocusTime(focus),
                relevant={f"d{doc}": grade for doc, grade in judged.items()},
            )
        )
    ranked = st.lists(st.integers(0, n_docs - 1), max_size=4, unique=True)
    rankings = {f"q{i}": [f"d{doc}" for doc in draw(ranked)] for i in range(n_queries)}
    return GoldSet(queries, docs), Run(rankings)


SLICINGS = st.sampled_from(["year", "decade", "century", (1950, 2000), [1900, 1990, 1991, 2010]])


@settings(max_examples=30, deadline=None)
@given(gold_and_run(), SLICINGS, st.sampled_from([temporal_ndcg, ndcg]))
def test_each_period_is_the_per_query_scores_grouped_by_hand(
    case: tuple[GoldSet, Run], by: Any, metric: Any
) -> None:
    gold, run = case
    result = metric(run, gold, k=3)
    periods = result.by_period(by)
    expected: dict[str, dict[str, list[str]]] = {}
    for query in gold.queries.values():
        focus = query.focus_time
        label = label_by_hand(by, focus.min if focus else None)
        side = "counted" if query.id in result.per_query else "excluded"
        expected.setdefault(label, {"counted": [], "excluded": []})[side].append(query.id)
    assert set(periods) == set(expected)  # every query in one period; none dropped
    for label, part in periods.items():
        counted, excluded = expected[label]["counted"], expected[label]["excluded"]
        assert sorted(part.per_query) == sorted(counted)
        assert part.excluded == {q: result.excluded[q] for q in excluded}  # with their reasons
        by_hand = mean([result.per_query[q] for q in counted])
        assert float(part) == pytest.approx(by_hand, nan_ok=True)
        assert part.period == label
    if NO_FOCUS_TIME in periods:
        assert list(periods)[-1] == NO_FOCUS_TIME
    dated = [label for label in periods if label != NO_FOCUS_TIME]
    firsts = [
        min(gold.queries[q].focus_time.min for q in [*periods[p].per_query, *periods[p].excluded])
        for p in dated
    ]
    assert firsts == sorted(firsts)  # in time order


@settings(max_examples=15, deadline=None)
@given(gold_and_run())
def test_a_function_labels_the_queries_and_is_called_with_each_gold_query(
    case: tuple[GoldSet, Run],
) -> None:
    gold, run = case
    result = ndcg(run, gold, k=3)
    seen: list[str] = []

    def half(query: GoldQuery) -> str:
        seen.append(query.id)
        return "even" if int(query.id[1:]) % 2 == 0 else "odd"

    periods = result.by_period(half)
    assert sorted(seen) == sorted(gold.queries)
    for label, part in periods.items():
        ids = [q for q in gold.queries if half(gold.queries[q]) == label]
        assert sorted([*part.per_query, *part.excluded]) == sorted(ids)
        assert float(part) == pytest.approx(
            mean([result.per_query[q] for q in ids if q in result.per_query]), nan_ok=True
        )


@settings(max_examples=15, deadline=None)
@given(gold_and_run())
def test_geometric_and_summed_measures_aggregate_each_period_as_they_aggregate(
    case: tuple[GoldSet, Run],
) -> None:
    gold, run = case
    for metric, by_hand in (
        (gm_map, lambda v: math.exp(sum(math.log(max(x, 1e-5)) for x in v) / len(v))),
        (num_rel_ret, sum),
    ):
        result = metric(run, gold)
        for part in result.by_period("decade").values():
            values = list(part.per_query.values())
            assert float(part) == pytest.approx(
                by_hand(values) if values else math.nan, nan_ok=True
            )


def test_evaluate_by_period_is_every_measure_sliced() -> None:
    gold, run = example()
    sliced = evaluate(run, gold, ["T-nDCG@3", "nDCG@3"], by_period="decade")
    plain = evaluate(run, gold, ["T-nDCG@3", "nDCG@3"])
    assert list(sliced) == list(plain)
    for measure, periods in sliced.items():
        assert isinstance(plain[measure], MetricResult)  # unchanged without by_period
        assert periods.overall == plain[measure] and periods.by == "decade"
        direct = plain[measure].by_period("decade")
        assert {p: float(r) for p, r in periods.items()} == pytest.approx(
            {p: float(r) for p, r in direct.items()}, nan_ok=True
        )


def test_evaluate_refuses_a_bad_slicing_before_reading_anything() -> None:
    with pytest.raises(
        MetricError, match="by_period: unknown period 'decad'.*did you mean 'decade'"
    ):
        evaluate("no/such/run.trec", "no/such/gold.yaml", ["nDCG@10"], by_period="decad")


# -- a worked example ------------------------------------------------------------------------------


def example() -> tuple[GoldSet, Run]:
    """q0 1991, q1 1995, q2 2003, q3 1999-2005, q4 no focus time, q5 1850, q6 the 20th century
    (1901-2000); each judges d<i> (grade 2); the documents are about 1990 + i."""
    focus = [1991, 1995, 2003, "1999-2005", None, 1850, "20th century"]
    queries = [
        GoldQuery(
            f"q{i}", f"q{i}", None if f is None else FocusTime.parse(f), relevant={f"d{i}": 2}
        )
        for i, f in enumerate(focus)
    ]
    docs = [GoldDocument(f"d{i}", "t", FocusTime.parse(1990 + i)) for i in range(7)]
    run = Run({f"q{i}": [f"d{(i + j) % 7}" for j in range(3)] for i in range(7)})
    return GoldSet(queries, docs), run


def members(periods: Any) -> dict[str, list[str]]:
    return {label: sorted([*r.per_query, *r.excluded]) for label, r in periods.items()}


def test_labels_of_every_slicing_and_a_span_goes_to_its_start_year() -> None:
    gold, run = example()
    result = ndcg(run, gold, k=3)
    assert members(result.by_period("decade")) == {
        "1850-1859": ["q5"],
        "1900-1909": ["q6"],  # the 20th century starts in 1901
        "1990-1999": ["q0", "q1", "q3"],  # 1999-2005 starts in the 1990s
        "2000-2009": ["q2"],
        "no focus time": ["q4"],
    }
    assert members(result.by_period("century")) == {
        "1800-1899": ["q5"],
        "1900-1999": ["q0", "q1", "q3", "q6"],  # the 1900s: what people call them
        "2000-2099": ["q2"],
        "no focus time": ["q4"],
    }
    assert members(result.by_period([1900, 1995, 2000])) == {
        "before 1900": ["q5"],
        "1900-1994": ["q0", "q6"],
        "1995-1999": ["q1", "q3"],
        "2000 and later": ["q2"],
        "no focus time": ["q4"],
    }
    assert list(result.by_period("year")) == [
        "1850",
        "1901",
        "1991",
        "1995",
        "1999",
        "2003",
        NO_FOCUS_TIME,
    ]
    assert as_slicing("1900, 1995 2000") == as_slicing([1900, 1995, 2000])
    assert as_slicing((1999, 2000)).period_of_year(1999) == "1999"  # a one-year period
    assert as_slicing("decade").period_of_year(5) == "1-9"  # there is no year 0
    assert as_slicing("century").period_of_year(99) == "1-99"


@pytest.mark.parametrize(
    ("by", "words"),
    [
        ("decades", "unknown period 'decades' (did you mean 'decade'?)"),
        ("", "unknown period ''"),
        ([], "no boundary years"),
        ([2000, 1990], "are not in ascending order; write them [1990, 2000]"),
        ([1990, 2000, 1990], "boundary 1990 is given twice"),
        ([1990, True], "boundary True"),
        ([1990.0], "boundary 1990.0"),
        ([0, 1990], "boundary 0"),
        ([1990, 10000], "boundary 10000"),
        (1990, "cannot slice by 1990 (int)"),
    ],
)
def test_bad_slicings_say_what_to_pass(by: Any, words: str) -> None:
    gold, run = example()
    with pytest.raises(MetricError) as error:
        ndcg(run, gold, k=3).by_period(by)
    assert words in str(error.value)
    if "order" not in words and "twice" not in words:  # those two say how to write them
        assert "by_period takes 'year', 'decade', 'century'" in str(error.value)


@pytest.mark.parametrize(
    ("function", "words"),
    [
        (lambda query: 1 / 0, "ZeroDivisionError: division by zero for query 'q0'"),
        (
            lambda query: None if query.focus_time is None else "dated",
            "returned None, not a non-empty string for query 'q4'",
        ),
        (lambda query: 1990, "returned 1990, not a non-empty string for query 'q0'"),
        (lambda query: " ", "returned ' ', not a non-empty string"),
    ],
)
def test_a_labelling_function_that_fails_is_named_with_its_query(function: Any, words: str) -> None:
    gold, run = example()
    with pytest.raises(MetricError) as error:
        ndcg(run, gold, k=3).by_period(function)
    assert words in str(error.value)
    assert "must return a label (a non-empty string) for every gold query" in str(error.value)


def test_what_has_no_gold_queries_cannot_be_sliced() -> None:
    by_hand = MetricResult(name="m", k=None, mode="gold", per_query={"a": 1.0})
    with pytest.raises(MetricError, match="m cannot be sliced by period: it was not computed"):
        by_hand.by_period("decade")
    gold, run = example()
    pairs = MetricResult(name="k", k=None, mode="graded", per_query={"q0 / d0": 1.0}, gold=gold)
    with pytest.raises(MetricError, match="1 of its query ids are not queries of its gold set"):
        pairs.by_period("decade")
    rebuilt = pickle.loads(pickle.dumps(ndcg(run, gold, k=3)))  # crossed a process: no gold set
    with pytest.raises(MetricError, match="not computed from a gold set"):
        rebuilt.by_period("decade")


# -- a period's result is a result -----------------------------------------------------------------


def test_an_excluded_query_stays_excluded_and_an_empty_period_never_passes() -> None:
    gold, run = example()
    periods = temporal_ndcg(run, gold, k=3).by_period("decade")
    undated = periods[NO_FOCUS_TIME]
    assert undated.per_query == {} and list(undated.excluded) == ["q4"]
    assert "no focus time" in undated.excluded["q4"]
    with pytest.raises(MetricError, match="has no counted query"):
        assert undated >= 0.0


def test_a_period_checks_explains_and_records_with_its_name() -> None:
    gold, run = example()
    part = assert_temporal_ndcg(run, gold, k=3).by_period("decade")["1990-1999"]
    assert part.label == "T-nDCG@3 on queries about 1990-1999"
    recorded: list[Any] = []
    checks.active_recorders.append(recorded.append)
    try:
        with pytest.raises(AssertionError) as failure:
            part >= 0.99  # noqa: B015 - the assert_ form raises on a bare comparison
    finally:
        checks.active_recorders.pop()
    assert str(failure.value).startswith(
        f"T-nDCG@3 on queries about 1990-1999 [focus_time] = {float(part):.4f}, needed >= 0.99; "
        f"{len(part.per_query)} queries counted"
    )
    assert [(c.result.label, c.passed) for c in recorded] == [(part.label, False)]
    assert part.explain().startswith("T-nDCG@3 on queries about 1990-1999 [focus_time] = ")
    rebuilt = pickle.loads(pickle.dumps(part))  # as a report row travels
    assert rebuilt.label == part.label and rebuilt.per_query == part.per_query


def test_a_period_keeps_the_whole_results_unknown_ids_and_ignored_run_queries() -> None:
    """Ids the gold set does not know, and run queries it lacks, belong to no period: slicing must
    not make them disappear from what fails a check."""
    gold, run = example()
    foreign = Run({f"q{i}": ["zz1", "zz2"] for i in range(7)} | {"q99": ["d0"]})
    part = ndcg(foreign, gold, k=3).by_period("decade")["1990-1999"]
    assert part.extra["ignored_run_queries"] == ["q99"]
    with pytest.raises(MetricError, match="none of the .* retrieved ids is known to the gold set"):
        assert part >= 0.0
    periods = str(ndcg(run, gold, k=3).by_period("decade"))
    assert periods.splitlines()[0] == (
        "nDCG@3 by decade (each query in the period of its focus time's start year)"
    )


def test_the_docs_example_prints_what_the_page_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    root = Path(__file__).resolve().parents[2]
    section = (root / "docs" / "focus-time.md").read_text(encoding="utf-8")
    section = section.split("## Slices by period", 1)[1]
    code, output = re.findall(r"```(?:python|)\n(.*?)```", section, re.DOTALL)[:2]
    monkeypatch.chdir(root)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "docs/focus-time.md", "exec"), {})  # noqa: S102 (the page's own code)
    assert printed.getvalue() == output
