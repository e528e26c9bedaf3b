"""ini tempoeval_baseline_rankings: a baseline also stores each query's top k ids (bounded), which
the HTML report shows beside the new top k of a query that dropped. They are shown, never compared:
the file keeps its format version and every other key, old files without them gate as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_tempoeval import BaselineError, BaselineStore, GoldSet, Run, ndcg
from pytest_tempoeval.gate import baselines

TEST = "tests/test_x.py::test_gate"
QUERIES = 12


@pytest.fixture(scope="module")
def gold() -> GoldSet:
    return GoldSet.from_dict(
        {
            "version": 1,
            "documents": {
                **{f"d{i}": {"text": f"Report of {2000 + i}."} for i in range(QUERIES)},
                **{f"x{i}": {"text": "Something else."} for i in range(QUERIES)},
            },
            "queries": [
                {"id": f"q{i:02d}", "text": f"In {2000 + i}?", "relevant": {f"d{i}": 3}}
                for i in range(QUERIES)
            ],
        }
    )


def rankings(worse: int, depth: int = 14) -> dict[str, list[str]]:
    """Each query's ranking: d<i> first, or for the first ``worse`` queries pushed to rank 2
    behind x<i>; then filler ids, to a depth past the bound."""
    return {
        f"q{i:02d}": ([f"x{i}", f"d{i}"] if i < worse else [f"d{i}", f"x{i}"])
        + [f"f{i}-{n}" for n in range(depth - 2)]
        for i in range(QUERIES)
    }


def write(path: Path, gold: GoldSet, k: int, stored: bool) -> dict[str, Any]:
    writer = BaselineStore(path, update=True, test_id=TEST, rankings=stored)
    writer.check(ndcg(Run(rankings(0)), gold, k=k))
    assert writer.finish()
    data: dict[str, Any] = json.loads(path.read_text())
    return data


@pytest.mark.parametrize("k", [3, 20])
def test_the_baseline_stores_each_query_top_k_up_to_the_bound(
    tmp_path: Path, gold: GoldSet, k: int
) -> None:
    with_top = write(tmp_path / "with.json", gold, k, stored=True)
    without = write(tmp_path / "without.json", gold, k, stored=False)
    entry = with_top["results"][f"nDCG@{k}"]
    depth = min(k, 10)  # RANKING_DEPTH
    assert entry["top"] == {query: ids[:depth] for query, ids in rankings(0).items()}
    # the same file otherwise: format version, scores, fingerprints
    assert with_top["version"] == without["version"] == 1
    del entry["top"]
    assert with_top == without


def test_the_queries_stored_are_bounded(
    tmp_path: Path, gold: GoldSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(baselines, "RANKED_QUERIES", 2)
    entry = write(tmp_path / "b.json", gold, 2, stored=True)["results"]["nDCG@2"]
    assert sorted(entry["top"]) == ["q00", "q01"]  # the first by id
    assert len(entry["per_query"]) == QUERIES  # the scores are all kept


def test_a_drop_carries_the_stored_top_k_of_the_queries_that_dropped(
    tmp_path: Path, gold: GoldSet
) -> None:
    path = tmp_path / "b.json"
    write(path, gold, 2, stored=True)
    result = ndcg(Run(rankings(6)), gold, k=2)
    comparison = BaselineStore(path, update=False, test_id=TEST, defer=True).check(result)
    assert not comparison.passed
    assert comparison.baseline_top == {f"q{i:02d}": [f"d{i}", f"x{i}"] for i in range(6)}
    # the verdict is the one a baseline without rankings gives
    plain = tmp_path / "plain.json"
    write(plain, gold, 2, stored=False)
    same = BaselineStore(plain, update=False, test_id=TEST, defer=True).check(result)
    assert (same.status, same.p_value, same.regressed) == (
        comparison.status,
        comparison.p_value,
        comparison.regressed,
    )
    assert same.baseline_top is None  # an older file: nothing stored, and it still gates


def test_checking_never_computes_rankings(
    tmp_path: Path, gold: GoldSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "b.json"
    write(path, gold, 2, stored=True)

    def refused(result: Any) -> None:
        raise AssertionError("rankings computed in a check")

    monkeypatch.setattr(baselines, "ranking_entry", refused)
    store = BaselineStore(path, update=False, test_id=TEST, rankings=True)
    assert store.check(ndcg(Run(rankings(0)), gold, k=2)).passed


@pytest.mark.parametrize(
    "top",
    [["d0"], {"q00": "d0"}, {"q00": ["d0", 3]}],
    ids=["a list", "a string", "a number"],
)
def test_broken_rankings_are_an_error_naming_the_result(
    tmp_path: Path, gold: GoldSet, top: Any
) -> None:
    path = tmp_path / "b.json"
    data = write(path, gold, 2, stored=True)
    data["results"]["nDCG@2"]["top"] = top
    path.write_text(json.dumps(data))
    with pytest.raises(BaselineError, match="not a tempoeval baseline: result 'nDCG@2'") as error:
        BaselineStore(path, update=False, test_id=TEST).check(ndcg(Run(rankings(0)), gold, k=2))
    assert "'top' is not an object of lists of document ids" in str(error.value)
