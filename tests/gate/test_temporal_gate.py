"""The baseline stores the temporal diagnostics, and the gate's note names their change: documents
that moved older or newer, and the share from the future. Baselines written before them still
load and say so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_tempoeval import BaselineError, BaselineStore, GoldSet, Run, ndcg
from pytest_tempoeval.gate.baselines import (
    FUTURE_CHANGE_NOTED,
    OFFSET_CHANGE_NOTED,
    TEMPORAL_NOT_RECORDED,
    temporal_note,
)

QUERIES = 12
TEST = "t.py::t"


def figures(per_query: dict[str, list[float]], k: int = 2) -> dict[str, Any]:
    return {"k": k, "per_query": per_query}


def same(offset: float, future: float = 0.0, n: int = QUERIES) -> dict[str, list[float]]:
    return {f"q{i:02d}": [offset, future] for i in range(n)}


QUERY_IDS = [f"q{i:02d}" for i in range(QUERIES)]


# -- the note, on stored figures -------------------------------------------------------------------


def test_documents_that_moved_older_are_named_with_the_years() -> None:
    note = temporal_note(figures(same(0.0)), figures(same(-5.0)), QUERY_IDS)
    assert note == (
        "retrieved documents moved 5.0 years older on average (mean offset +0.0 -> -5.0 years "
        "over 12 queries)"
    )


def test_newer_and_the_share_from_the_future() -> None:
    note = temporal_note(figures(same(1.0, 0.0)), figures(same(3.5, 0.25)), QUERY_IDS)
    assert note == (
        "retrieved documents moved 2.5 years newer on average (mean offset +1.0 -> +3.5 years "
        "over 12 queries); documents from the future 0.0% -> 25.0%"
    )


@pytest.mark.parametrize(
    ("after", "noted"),
    [
        ((-OFFSET_CHANGE_NOTED, 0.0), True),  # the threshold itself is noted
        ((-0.9, 0.0), False),
        ((0.0, FUTURE_CHANGE_NOTED), True),
        ((0.0, 0.04), False),
        ((0.0, 0.0), False),
    ],
)
def test_only_a_notable_change_is_noted(after: tuple[float, float], noted: bool) -> None:
    note = temporal_note(figures(same(0.0)), figures(same(*after)), QUERY_IDS)
    assert bool(note) == noted


def test_the_change_is_over_the_compared_queries_that_have_the_figures_in_both() -> None:
    before = {"a": [0.0, 0.0], "b": [0.0, 0.0], "c": [0.0, 0.0]}
    # b moved 30 years but is not compared (changed in the gold set); d is new; c lost its figures
    after = {"a": [-3.0, 0.0], "b": [-30.0, 0.0], "d": [-30.0, 0.0]}
    note = temporal_note(figures(before), figures(after), ["a", "c"])
    assert note == (
        "retrieved documents moved 3.0 years older on average (mean offset +0.0 -> -3.0 years "
        "over 1 query)"
    )
    assert temporal_note(figures(before), figures({"d": [-9.0, 0.0]}), ["a", "b", "c"]) == ""


def test_a_baseline_without_figures_says_they_were_not_recorded() -> None:
    assert temporal_note(None, figures(same(0.0)), QUERY_IDS) == TEMPORAL_NOT_RECORDED
    assert temporal_note(figures(same(0.0)), None, QUERY_IDS) == ""  # nothing to compare now
    assert temporal_note(None, None, QUERY_IDS) == ""


# -- through a baseline file -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def gold() -> GoldSet:
    """q<i> is about 2000+i and judges d<i>; x<i> is about 2000+i too, o<i> 10 years earlier."""
    return GoldSet.from_dict(
        {
            "version": 1,
            "documents": {
                **{f"d{i}": {"text": f"Report of {2000 + i}."} for i in range(QUERIES)},
                **{f"x{i}": {"text": f"Review of {2000 + i}."} for i in range(QUERIES)},
                **{f"o{i}": {"text": f"Report of {1990 + i}."} for i in range(QUERIES)},
            },
            "queries": [
                {"id": f"q{i:02d}", "text": f"In {2000 + i}?", "relevant": {f"d{i}": 3}}
                for i in range(QUERIES)
            ],
        }
    )


def run(second: str) -> Run:
    """The relevant document first (nDCG@2 is 1.0 whatever follows), then ``second``<i>."""
    return Run({f"q{i:02d}": [f"d{i}", f"{second}{i}"] for i in range(QUERIES)})


def write_baseline(path: Path, gold: GoldSet) -> dict[str, Any]:
    writer = BaselineStore(path, update=True, test_id=TEST)
    writer.check(ndcg(run("x"), gold, k=2))
    assert writer.finish()
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_the_baseline_stores_the_figures_and_the_gate_names_the_drift(
    tmp_path: Path, gold: GoldSet
) -> None:
    path = tmp_path / "b.json"
    stored = write_baseline(path, gold)["results"]["nDCG@2"]["temporal"]
    # every query: d<i> and x<i> are about its year: offset 0, nothing from the future
    assert stored == {
        "k": 2,
        "mean_offset": 0.0,
        "future_share": 0.0,
        "queries": QUERIES,
        "without_years": 0,
        "without_dated": 0,
        "retrieved": 2 * QUERIES,
        "undated": 0,
        "per_query": {f"q{i:02d}": [0.0, 0.0] for i in range(QUERIES)},
    }
    # o<i> is 10 years older than the query: each query's offset is (0 - 10) / 2 = -5
    comparison = BaselineStore(path, update=False, test_id=TEST).check(ndcg(run("o"), gold, k=2))
    assert comparison.passed and comparison.delta == 0.0  # the score did not move
    moved = (
        "retrieved documents moved 5.0 years older on average (mean offset +0.0 -> -5.0 years "
        "over 12 queries)"
    )
    assert moved in comparison.note and moved in comparison.describe()
    unchanged = BaselineStore(path, update=False, test_id=TEST).check(ndcg(run("x"), gold, k=2))
    assert "moved" not in unchanged.note


def test_a_baseline_written_before_the_figures_loads_and_says_so(
    tmp_path: Path, gold: GoldSet
) -> None:
    path = tmp_path / "b.json"
    data = write_baseline(path, gold)
    del data["results"]["nDCG@2"]["temporal"]
    path.write_text(json.dumps(data))
    comparison = BaselineStore(path, update=False, test_id=TEST).check(ndcg(run("o"), gold, k=2))
    assert comparison.passed and comparison.note == TEMPORAL_NOT_RECORDED
    assert (
        TEMPORAL_NOT_RECORDED == "temporal figures not in the baseline: re-baseline to record them"
    )


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        (lambda t: t.update(per_query=[]), "'temporal' is not an object with a 'per_query' object"),
        (lambda t: t.update(k=0), "'temporal' k 0 is not a positive integer"),
        (lambda t: t["per_query"].update(q00=["-5", 0.0]), "query 'q00': temporal figures"),
        (lambda t: t["per_query"].update(q00=[1e5, 0.0]), "query 'q00': temporal figures"),
        (lambda t: t["per_query"].update(q00=[0.0, 1.5]), "query 'q00': temporal figures"),
        (lambda t: t["per_query"].update(q00=[0.0]), "query 'q00': temporal figures"),
        (lambda t: t["per_query"].update(q00=[True, 0.0]), "query 'q00': temporal figures"),
    ],
)
def test_broken_figures_are_an_error_naming_the_result(
    tmp_path: Path, gold: GoldSet, damage: Any, problem: str
) -> None:
    path = tmp_path / "b.json"
    data = write_baseline(path, gold)
    damage(data["results"]["nDCG@2"]["temporal"])
    path.write_text(json.dumps(data))
    with pytest.raises(BaselineError, match="not a tempoeval baseline: result 'nDCG@2'") as error:
        BaselineStore(path, update=False, test_id=TEST).check(ndcg(run("x"), gold, k=2))
    assert problem in str(error.value)
