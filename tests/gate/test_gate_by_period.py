"""The gate by period: a regression confined to one period fails naming it, even when the overall
mean moved within max_drop; every period's p-value is the gate's own test on its queries, Holm
across the periods; a period too small to test, new or gone is said, never skipped silently."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from pytest_tempoeval import (
    BaselineError,
    BaselineRegression,
    BaselineStore,
    FocusTime,
    GoldDocument,
    GoldQuery,
    GoldSet,
    MetricError,
    MetricResult,
    Run,
    ndcg,
    temporal_persistence,
)
from pytest_tempoeval.gate.periods import MIN_PERIOD_QUERIES
from pytest_tempoeval.gate.randomization import Correction

TEST = "t.py::t"
DECADES = (1970, 1980, 1990, 2000)
PER_DECADE = 12
UNDATED = 3  # queries with no focus time
WORSE_NDCG2 = 1 / 1.584962500721156  # the relevant document at rank 2: 1 / log2(3)


def query_ids(decade: int) -> list[str]:
    return [f"q{decade}_{i:02d}" for i in range(PER_DECADE)]


def make_gold(decades: tuple[int, ...] = DECADES, undated: int = UNDATED) -> GoldSet:
    """Each decade's queries are about its years (q1990_03: 1993); each judges d<q> (grade 3) and
    x<q> (grade 0, about 1800). Undated queries have no focus time."""
    queries, documents = [], []
    for decade in decades:
        for i, query in enumerate(query_ids(decade)):
            year = FocusTime.parse(decade + i % 10)
            queries.append(
                GoldQuery(
                    query,
                    f"about {decade + i % 10}",
                    year,
                    relevant={f"d{query}": 3, f"x{query}": 0},
                )
            )
            documents += [
                GoldDocument(f"d{query}", "t", year),
                GoldDocument(f"x{query}", "t", FocusTime.parse(1800)),
            ]
    for i in range(undated):
        queries.append(GoldQuery(f"n{i}", "no time", None, relevant={f"dn{i}": 3}))
        documents.append(GoldDocument(f"dn{i}", "t", None))
    return GoldSet(queries, documents)


def make_run(gold: GoldSet, worse: set[str] = frozenset()) -> Run:
    """d<q> first, or second behind x<q> for the queries in ``worse``."""
    rankings = {}
    for query in gold.queries:
        good, bad = (f"d{query}", f"x{query}") if query.startswith("q") else (f"dn{query[1:]}", "z")
        rankings[query] = [bad, good] if query in worse else [good, bad]
    return Run(rankings)


def write_baseline(path: Path, result: Any, **options: Any) -> None:
    writer = BaselineStore(path, update=True, test_id=TEST)
    writer.check(result, **options)
    assert writer.finish()


def store(path: Path, **options: Any) -> BaselineStore:
    return BaselineStore(path, update=False, test_id=TEST, **options)


@pytest.fixture(scope="module")
def gold() -> GoldSet:
    return make_gold()


# -- how a user could get a pass they should not ------------------------------------------------


def test_a_regression_confined_to_one_decade_fails_naming_it_within_max_drop(
    tmp_path: Path, gold: GoldSet
) -> None:
    """The issue's done-when test. Every query about 1990-1999 drops from 1.0 to 0.631; the mean
    over 51 queries drops by 12 * 0.369 / 51 = 0.087, under max_drop 0.1: overall, it passes."""
    write_baseline(tmp_path / "b.json", ndcg(make_run(gold), gold, k=2))
    worse = ndcg(make_run(gold, set(query_ids(1990))), gold, k=2)
    drop = 12 * (1 - WORSE_NDCG2) / (len(DECADES) * PER_DECADE + UNDATED)
    assert 1 - float(worse) == pytest.approx(drop) and drop < 0.1
    assert store(tmp_path / "b.json", max_drop=0.1).check(worse).passed  # the gap this closes

    with pytest.raises(BaselineRegression) as failure:
        store(tmp_path / "b.json", max_drop=0.1).check(worse, by_period="decade")
    message = str(failure.value)
    assert "regression on queries about 1990-1999" in message
    # 12 queries each dropped by the same amount: exact p = 1/2**12, Holm over 4 tested periods
    assert (
        f"REGRESSED queries about 1990-1999: nDCG@2 1.0000 -> {WORSE_NDCG2:.4f} "
        f"({WORSE_NDCG2 - 1:+.4f}; 12 queries, p = {1 / 4096:.3g}, Holm-adjusted "
        f"{4 / 4096:.3g} over 4 periods)" in message
    )
    for decade in (1970, 1980, 2000):  # the others are listed, unmarked
        assert f"\n    queries about {decade}-{decade + 9}: nDCG@2 1.0000 -> 1.0000" in message


def test_the_ini_default_slices_every_check_and_false_turns_it_off(
    tmp_path: Path, gold: GoldSet
) -> None:
    write_baseline(tmp_path / "b.json", ndcg(make_run(gold), gold, k=2))
    worse = ndcg(make_run(gold, set(query_ids(1990))), gold, k=2)
    with pytest.raises(BaselineRegression, match="regression on queries about 1990-1999"):
        store(tmp_path / "b.json", max_drop=0.1, by_period="decade").check(worse)
    assert (
        store(tmp_path / "b.json", max_drop=0.1, by_period="decade")
        .check(worse, by_period=False)
        .passed
    )


def test_under_holm_session_correction_a_period_regression_is_not_left_pending(
    tmp_path: Path, gold: GoldSet
) -> None:
    """The session's Holm correction decides the overall p-values at its end; a period regression
    is decided in its check (Holm across its periods) and fails at once."""
    write_baseline(tmp_path / "b.json", ndcg(make_run(gold), gold, k=2))
    worse = ndcg(make_run(gold, set(query_ids(1990))), gold, k=2)
    checker = store(tmp_path / "b.json", max_drop=0.1, defer=True, correction=Correction.HOLM)
    comparison = checker.check(worse, by_period="decade")
    assert comparison.status == "regressed" and not comparison.pending
    assert "queries about 1990-1999" in checker.regression_report()


def test_a_large_drop_in_a_period_under_the_minimum_is_reported_not_tested(
    tmp_path: Path, gold: GoldSet
) -> None:
    """The 3 undated queries fall to 0.631: below the minimum, the period is not tested, and the
    note says so (no silent skip); the overall drop (3 * 0.369 / 51) is within max_drop."""
    write_baseline(tmp_path / "b.json", ndcg(make_run(gold), gold, k=2))
    comparison = store(tmp_path / "b.json", max_drop=0.05).check(
        ndcg(make_run(gold, {"n0", "n1", "n2"}), gold, k=2), by_period="decade"
    )
    assert comparison.passed
    assert UNDATED < MIN_PERIOD_QUERIES
    assert f"not tested (under {MIN_PERIOD_QUERIES} queries): no focus time (3 queries)" in (
        comparison.note
    )
    assert "by decade: 4 of 5 periods tested, none regressed" in comparison.note


def test_a_period_gone_from_the_gold_set_and_a_new_one_are_reported(tmp_path: Path) -> None:
    """The 1970s queries leave the gold set, 12 queries about 2010-2019 join it."""
    before = make_gold()
    write_baseline(tmp_path / "b.json", ndcg(make_run(before), before, k=2))
    after = make_gold(decades=(1980, 1990, 2000, 2010))
    with pytest.warns(UserWarning):  # the BaselineWarning naming the removed and added queries
        comparison = store(tmp_path / "b.json").check(
            ndcg(make_run(after), after, k=2), by_period="decade"
        )
    assert "new since the baseline, not compared: 2010-2019 (12 queries)" in comparison.note
    assert "in the baseline, none compared now: 1970-1979 (12 queries)" in comparison.note


def test_with_many_periods_the_failure_lists_the_regressed_and_counts_the_rest(
    tmp_path: Path,
) -> None:
    many = make_gold(decades=tuple(range(1870, 2000, 10)))  # 13 decades
    write_baseline(tmp_path / "b.json", ndcg(make_run(many), many, k=2))
    with pytest.raises(BaselineRegression) as failure:
        store(tmp_path / "b.json", max_drop=0.1).check(
            ndcg(make_run(many, set(query_ids(1900))), many, k=2), by_period="decade"
        )
    message = str(failure.value)
    assert "REGRESSED queries about 1900-1909: nDCG@2 1.0000 -> 0.6309" in message
    assert "Holm-adjusted 0.00317 over 13 periods" in message  # 13 / 4096
    assert "\n    and 13 more periods that did not regress" in message  # 12 decades, no focus time
    assert "queries about 1910-1919" not in message


# -- the statistics are the gate's own -------------------------------------------------------------


def exact_p(baseline: list[float], current: list[float]) -> float:
    """Every sign assignment, enumerated independently of the implementation."""
    differences = [c - b for b, c in zip(baseline, current, strict=True)]
    observed = sum(differences)
    sums = [
        sum(s * d for s, d in zip(signs, differences, strict=True))
        for signs in itertools.product((1, -1), repeat=len(differences))
    ]
    return sum(total <= observed + 1e-9 for total in sums) / len(sums)


def holm_by_hand(p_values: dict[str, float]) -> dict[str, float]:
    ordered = sorted(p_values, key=p_values.__getitem__)
    adjusted, running = {}, 0.0
    for rank, period in enumerate(ordered):
        running = max(running, min(1.0, (len(ordered) - rank) * p_values[period]))
        adjusted[period] = running
    return adjusted


def test_each_period_p_value_is_the_exact_randomization_test_then_holm(tmp_path: Path) -> None:
    """12 queries per decade (2**12 sign assignments: exact), some worse in most decades."""
    gold = make_gold(undated=0)
    write_baseline(tmp_path / "b.json", ndcg(make_run(gold), gold, k=2))
    worse_counts = {1970: 0, 1980: 3, 1990: 6, 2000: 10}
    worse = {q for decade, n in worse_counts.items() for q in query_ids(decade)[:n]}
    result = ndcg(make_run(gold, worse), gold, k=2)
    comparison = store(tmp_path / "b.json", defer=True).check(result, by_period="decade")
    raw = {}
    for decade in DECADES:
        queries = query_ids(decade)
        raw[f"{decade}-{decade + 9}"] = exact_p([1.0] * 12, [result.per_query[q] for q in queries])
    adjusted = holm_by_hand(raw)
    by_period = {period.period: period for period in comparison.periods}
    assert list(by_period) == list(raw)  # in time order
    for period, p_value in raw.items():
        assert by_period[period].p_value == pytest.approx(p_value)
        assert by_period[period].p_adjusted == pytest.approx(adjusted[period])
        expected = "regressed" if adjusted[period] < 0.05 else "pass"
        assert by_period[period].status == expected
    assert comparison.regressed_periods == ["1990-1999", "2000-2009"]


# -- the baseline file, and what cannot be sliced ------------------------------------------------


def test_the_baseline_stores_each_query_start_year_and_compares_in_it(tmp_path: Path) -> None:
    """Gold mode reads judgments only, so a query's focus time may change without voiding it: it
    is still compared in the period the baseline recorded."""
    gold = make_gold()
    write_baseline(tmp_path / "b.json", ndcg(make_run(gold), gold, k=2))
    entry = json.loads((tmp_path / "b.json").read_text())["results"]["nDCG@2"]
    assert entry["focus_start"] == {
        q: decade + i % 10 for decade in DECADES for i, q in enumerate(query_ids(decade))
    }
    moved = GoldSet(
        [
            GoldQuery(q.id, q.text, FocusTime.parse(2050), relevant=q.relevant)
            if q.id.startswith("q1990")
            else q
            for q in gold.queries.values()
        ],
        list(gold.documents.values()),
    )
    with pytest.raises(BaselineRegression, match="regression on queries about 1990-1999"):
        store(tmp_path / "b.json").check(
            ndcg(make_run(moved, set(query_ids(1990))), moved, k=2), by_period="decade"
        )


def test_an_entry_written_before_start_years_reads_the_periods_of_the_gold_set(
    tmp_path: Path, gold: GoldSet
) -> None:
    write_baseline(tmp_path / "b.json", ndcg(make_run(gold), gold, k=2))
    data = json.loads((tmp_path / "b.json").read_text())
    del data["results"]["nDCG@2"]["focus_start"]
    (tmp_path / "b.json").write_text(json.dumps(data))
    with pytest.raises(BaselineRegression, match="regression on queries about 1990-1999"):
        store(tmp_path / "b.json", max_drop=0.1).check(
            ndcg(make_run(gold, set(query_ids(1990))), gold, k=2), by_period="decade"
        )


def test_a_broken_start_year_in_the_file_is_refused(tmp_path: Path, gold: GoldSet) -> None:
    write_baseline(tmp_path / "b.json", ndcg(make_run(gold), gold, k=2))
    data = json.loads((tmp_path / "b.json").read_text())
    data["results"]["nDCG@2"]["focus_start"]["q1990_00"] = "1990"
    (tmp_path / "b.json").write_text(json.dumps(data))
    with pytest.raises(BaselineError, match=r"'focus_start' is not an object of years \(1 to 9"):
        store(tmp_path / "b.json").check(ndcg(make_run(gold), gold, k=2), by_period="decade")


def test_one_period_result_is_checked_under_its_own_key(tmp_path: Path, gold: GoldSet) -> None:
    writer = BaselineStore(tmp_path / "b.json", update=True, test_id=TEST)
    result = ndcg(make_run(gold), gold, k=2)
    writer.check(result)
    writer.check(result.by_period("decade")["1990-1999"])
    assert writer.finish()
    keys = json.loads((tmp_path / "b.json").read_text())["results"]
    assert sorted(keys) == ["nDCG@2", "nDCG@2 on queries about 1990-1999"]
    worse = ndcg(make_run(gold, set(query_ids(1990))), gold, k=2)
    checker = store(tmp_path / "b.json", max_drop=0.1, defer=True)
    assert checker.check(worse).passed
    assert not checker.check(worse.by_period("decade")["1990-1999"]).passed


def test_what_cannot_be_sliced_fails_when_asked_and_is_noted_from_the_ini(
    tmp_path: Path, gold: GoldSet
) -> None:
    by_hand = MetricResult(name="m", k=None, mode="gold", per_query={"a": 1.0, "b": 0.5})
    write_baseline(tmp_path / "b.json", by_hand)
    with pytest.raises(MetricError, match="m cannot be sliced by period"):
        store(tmp_path / "b.json").check(by_hand, by_period="decade")
    comparison = store(tmp_path / "b.json", by_period="decade").check(by_hand)
    assert comparison.passed and "not checked by decade: m cannot be sliced" in comparison.note
    with pytest.raises(MetricError, match="by_period: unknown period 'decades'"):
        store(tmp_path / "b.json").check(by_hand, by_period="decades")


def test_the_gate_refuses_a_persistence_ratio(tmp_path: Path, gold: GoldSet) -> None:
    result = ndcg(make_run(gold), gold, k=2)
    persistence = temporal_persistence(result, early="1980-1989", late="1990-1999")
    with pytest.raises(TypeError, match="gate the measure itself by period instead"):
        store(tmp_path / "b.json").check(persistence)


def test_each_period_reaches_the_reports_with_its_queries(tmp_path: Path, gold: GoldSet) -> None:
    """What the HTML report draws a small chart per period from: each period's means, verdict
    and compared queries, on the check the session records."""
    from pytest_tempoeval.metrics.checks import Check

    write_baseline(tmp_path / "b.json", ndcg(make_run(gold), gold, k=2))
    worse = ndcg(make_run(gold, set(query_ids(1990))), gold, k=2)
    comparison = store(tmp_path / "b.json", max_drop=0.1, defer=True).check(
        worse, by_period="decade"
    )
    figures = {period["period"]: period for period in comparison.period_figures}
    assert sorted(figures) == ["1970-1979", "1980-1989", "1990-1999", "2000-2009", "no focus time"]
    nineties = figures["1990-1999"]
    assert nineties["status"] == "regressed" and nineties["ids"] == query_ids(1990)
    assert (nineties["baseline"], nineties["current"]) == (1.0, pytest.approx(WORSE_NDCG2))
    assert figures["no focus time"]["ids"] == ["n0", "n1", "n2"]
    check = Check.from_comparison(worse, comparison, "")
    assert check.periods == comparison.period_figures
