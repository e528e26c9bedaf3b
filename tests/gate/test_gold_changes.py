"""A changed gold set voids only the queries whose part the measure reads: per-query hashes in the
baseline, the unchanged queries compared, the others named (never a silent pass)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from pytest_tempoeval import (
    BaselineError,
    BaselineStore,
    BaselineWarning,
    GoldSet,
    Run,
    ndcg,
    temporal_ndcg,
)

QUERIES = 12
TEST = "t.py::t"
UPDATE = f"re-baseline with: pytest {TEST!r} --tempoeval-update-baseline"


def gold_data() -> dict[str, Any]:
    """q<i> is about year 2000+i and judges d<i> (grade 3); x<i> is about nothing known."""
    return {
        "version": 1,
        "documents": {
            **{f"d{i}": {"text": f"Report of {2000 + i}."} for i in range(QUERIES)},
            **{f"x{i}": {"text": "Something else."} for i in range(QUERIES)},
        },
        "queries": [
            {"id": f"q{i:02d}", "text": f"What happened in {2000 + i}?", "relevant": {f"d{i}": 3}}
            for i in range(QUERIES)
        ],
    }


def run_with(worse: set[int] = frozenset()) -> Run:
    """d<i> first, or second behind x<i> for the queries in ``worse`` (nDCG@2 1.0 -> 1/log2(3))."""
    return Run(
        {
            f"q{i:02d}": [f"x{i}", f"d{i}"] if i in worse else [f"d{i}", f"x{i}"]
            for i in range(QUERIES)
        }
    )


def baseline(path: Path, gold: GoldSet, *metrics: Any) -> None:
    writer = BaselineStore(path, update=True, test_id=TEST)
    for metric in metrics:
        writer.check(metric(run_with(), gold, k=2))
    assert writer.finish()


def checked(path: Path, result: Any) -> tuple[Any, list[str]]:
    """The comparison, and the BaselineWarnings it issued."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        comparison = BaselineStore(path, update=False, test_id=TEST).check(result)
    return comparison, [str(w.message) for w in caught if w.category is BaselineWarning]


def test_the_baseline_keeps_a_hash_per_query_of_what_its_mode_reads(tmp_path: Path) -> None:
    gold = GoldSet.from_dict(gold_data())
    baseline(tmp_path / "b.json", gold, ndcg, temporal_ndcg)
    results = json.loads((tmp_path / "b.json").read_text())["results"]
    for key in ("nDCG@2", "T-nDCG@2"):
        assert sorted(results[key]["query_fingerprints"]) == [f"q{i:02d}" for i in range(QUERIES)]
        assert isinstance(results[key]["shared_fingerprint"], str)
    # gold mode reads judgments, focus-time mode focus times: the hashes differ
    assert results["nDCG@2"]["query_fingerprints"] != results["T-nDCG@2"]["query_fingerprints"]


def test_changed_judgments_leave_the_other_queries_compared_and_are_named(tmp_path: Path) -> None:
    """q01, q07 and q09 get new judgments (d<i> grade 3 -> 2) and retrieve worse: not compared.
    The 9 others are, and they held: the check passes at 1.0 -> 1.0, naming the three."""
    path = tmp_path / "b.json"
    baseline(path, GoldSet.from_dict(gold_data()), ndcg)
    data = gold_data()
    for i in (1, 7, 9):
        data["queries"][i]["relevant"] = {f"d{i}": 2}
    comparison, warned = checked(path, ndcg(run_with({1, 7, 9}), GoldSet.from_dict(data), k=2))
    note = (
        "3 queries changed in the gold set since the baseline, not compared: q01, q07, q09; "
        + UPDATE
    )
    assert comparison.status == "pass" and comparison.queries == 9
    assert comparison.baseline == 1.0 and comparison.current == 1.0
    assert comparison.note == note and note in comparison.describe()
    assert warned == [f"{TEST}: nDCG@2: {note}"]


def test_fail_on_excluded_fails_a_check_that_left_changed_queries_out(tmp_path: Path) -> None:
    """Queries left out of the comparison are left out of a score: fail_on_excluded fails them, as
    it fails a query the score itself excluded (the regression could hide in exactly those)."""
    path = tmp_path / "b.json"
    baseline(path, GoldSet.from_dict(gold_data()), ndcg)
    data = gold_data()
    data["queries"][1]["relevant"] = {"d1": 2}
    gold = GoldSet.from_dict(data)
    store = BaselineStore(path, update=False, test_id=TEST, defer=True)
    with pytest.warns(BaselineWarning):
        comparison = store.check(ndcg(run_with({1}), gold, k=2, fail_on_excluded=True))
    assert comparison.status == "incomplete" and not comparison.passed
    assert (
        "fails because nothing may be left out (fail_on_excluded): 1 query changed in the gold set"
        in store.regressions[0]
    )
    comparison, _ = checked(path, ndcg(run_with({1}), gold, k=2))  # without it: named, passes
    assert comparison.status == "pass"


def test_a_regression_of_the_unchanged_queries_still_fails_naming_the_changed_ones(
    tmp_path: Path,
) -> None:
    """q00 changed; q01..q11 (11 queries) all dropped to 1/log2(3): p = 2**-11, regressed."""
    path = tmp_path / "b.json"
    baseline(path, GoldSet.from_dict(gold_data()), ndcg)
    data = gold_data()
    data["queries"][0]["relevant"] = {"d0": 1}
    store = BaselineStore(path, update=False, test_id=TEST, defer=True)
    with pytest.warns(BaselineWarning):
        comparison = store.check(ndcg(run_with(set(range(QUERIES))), GoldSet.from_dict(data), k=2))
    assert comparison.status == "regressed" and comparison.queries == 11
    assert comparison.p_value == pytest.approx(2**-11)
    assert (
        "1 query changed in the gold set since the baseline, not compared: q00"
        in (store.regressions[0])
    )


def test_a_focus_time_check_ignores_judgment_edits(tmp_path: Path) -> None:
    """Focus-time mode reads no judgment: a judgment edit changes the gold set's hash but nothing
    the check compares; every query is compared and nothing is named."""
    path = tmp_path / "b.json"
    baseline(path, GoldSet.from_dict(gold_data()), temporal_ndcg)
    data = gold_data()
    data["queries"][3]["relevant"] = {"d3": 1, "x3": 2}
    edited = GoldSet.from_dict(data)
    assert edited.fingerprint != GoldSet.from_dict(gold_data()).fingerprint
    comparison, warned = checked(path, temporal_ndcg(run_with(), edited, k=2))
    assert comparison.status == "pass" and comparison.queries == QUERIES
    assert comparison.note == "" and warned == []


def test_a_query_focus_time_edit_voids_that_query_only(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    baseline(path, GoldSet.from_dict(gold_data()), temporal_ndcg)
    data = gold_data()
    data["queries"][5]["focus_time"] = 1990
    comparison, warned = checked(path, temporal_ndcg(run_with(), GoldSet.from_dict(data), k=2))
    assert comparison.queries == QUERIES - 1
    assert comparison.note.startswith("1 query changed in the gold set since the baseline")
    assert warned and "not compared: q05;" in warned[0]


def test_a_document_focus_time_edit_changes_every_focus_time_query(tmp_path: Path) -> None:
    """The ideal ranking pools every document's focus time: a document's edit can change any
    query's score, so the check asks for a re-baseline instead of comparing."""
    path = tmp_path / "b.json"
    baseline(path, GoldSet.from_dict(gold_data()), temporal_ndcg)
    data = gold_data()
    data["documents"]["x4"]["focus_time"] = 2004
    with pytest.raises(
        BaselineError,
        match=(
            r"re-baseline: what every query of T-nDCG@2 reads changed in the gold set since the "
            r"baseline \(the documents' focus times, which every query's ideal ranking reads\)"
        ),
    ):
        BaselineStore(path, update=False, test_id=TEST).check(
            temporal_ndcg(run_with(), GoldSet.from_dict(data), k=2)
        )


def test_added_and_removed_queries_are_named_and_removed_ones_not_scored_zero(
    tmp_path: Path,
) -> None:
    """q11 left the gold set (before, it would have counted as a query scoring 0: a regression);
    q12 joined it."""
    path = tmp_path / "b.json"
    baseline(path, GoldSet.from_dict(gold_data()), ndcg)
    data = gold_data()
    data["queries"][11] = {"id": "q12", "text": "What happened in 2011?", "relevant": {"d11": 3}}
    gold = GoldSet.from_dict(data)
    run = Run({f"q{i:02d}": [f"d{i}", f"x{i}"] for i in range(QUERIES + 1)})
    comparison, warned = checked(path, ndcg(run, gold, k=2))
    assert comparison.status == "pass" and comparison.queries == 11 and comparison.lost == []
    assert len(warned) == 1
    assert comparison.note == (
        "1 query added to the gold set since the baseline, not compared: q12; "
        f"1 query removed from the gold set since the baseline: q11; {UPDATE}"
    )


def test_a_check_whose_every_query_changed_is_an_error_never_a_pass(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    baseline(path, GoldSet.from_dict(gold_data()), ndcg)
    data = gold_data()
    for i, query in enumerate(data["queries"]):
        query["relevant"] = {f"d{i}": 3, f"x{i}": 1}
    with pytest.raises(
        BaselineError,
        match=(
            r"re-baseline: every query the baseline of nDCG@2 scored changed in the gold set "
            r"\(12 queries changed in the gold set since the baseline, not compared: q00, q01, "
            r".*, q09 and 2 more; re-baseline with"
        ),
    ):
        BaselineStore(path, update=False, test_id=TEST).check(
            ndcg(run_with(), GoldSet.from_dict(data), k=2)
        )


def test_a_baseline_written_before_per_query_hashes_behaves_as_it_did(tmp_path: Path) -> None:
    """No per-query hashes: an unchanged gold set is compared, a changed one voids the check."""
    path = tmp_path / "b.json"
    baseline(path, GoldSet.from_dict(gold_data()), ndcg)
    document = json.loads(path.read_text())
    for entry in document["results"].values():
        del entry["query_fingerprints"], entry["shared_fingerprint"]
    path.write_text(json.dumps(document))
    comparison, _ = checked(path, ndcg(run_with(), GoldSet.from_dict(gold_data()), k=2))
    assert comparison.status == "pass" and comparison.queries == QUERIES
    data = gold_data()
    data["queries"][1]["relevant"] = {"d1": 2}
    with pytest.raises(
        BaselineError, match=r"re-baseline: the gold set changed since the baseline"
    ):
        BaselineStore(path, update=False, test_id=TEST).check(
            ndcg(run_with(), GoldSet.from_dict(data), k=2)
        )
