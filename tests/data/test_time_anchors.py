"""A gold query's ``key_time_anchors`` (T-AnchorF1's required anchors): read from YAML, JSON and
Python data, each anchor one focus time; a bad value is a GoldSetError naming its line, the query
and the item; and the key enters the gold set's hashes only when given, so that the baselines
written before it keep matching."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pytest_tempoeval import FocusTime, GoldQuery, GoldSet, GoldSetError
from pytest_tempoeval.metrics.relevance import GOLD_READS


def anchors_of(data: dict[str, object]) -> tuple[FocusTime, ...]:
    gold = GoldSet.from_dict({"version": 1, "queries": [{"id": "q", **data}]})
    return gold.queries["q"].key_time_anchors


def test_each_item_is_one_anchor_read_as_a_focus_time_each_once() -> None:
    anchors = anchors_of(
        {"key_time_anchors": [1945, "1990s", "1939-1945", "19th century", np.int64(1945), "1990s"]}
    )
    assert anchors == (
        FocusTime([1945]),
        FocusTime(range(1990, 2000)),
        FocusTime(range(1939, 1946)),
        FocusTime(range(1801, 1901)),
    )
    assert anchors_of({}) == anchors_of({"key_time_anchors": []}) == ()
    assert anchors_of({"key_time_anchors": None}) == ()


def test_yaml_anchors_and_their_errors_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "gold.yaml"
    path.write_text(
        "queries:\n"
        "  - id: q1\n"
        "    key_time_anchors: [1945, '1990s']\n"
        "  - id: q2\n"
        "    key_time_anchors:\n"
        "      - 2001\n"
        "      - World War II\n",
        encoding="utf-8",
    )
    with pytest.raises(GoldSetError) as error:
        GoldSet.load(path)
    message = str(error.value)
    assert message.startswith(f"{path}:7: query 'q2': key_time_anchors item 'World War II' is not")
    assert "a decade ('1990s')" in message  # what to write instead
    path.write_text(path.read_text().replace("World War II", "1939-1945"), encoding="utf-8")
    gold = GoldSet.load(path)
    assert gold.queries["q1"].key_time_anchors == (FocusTime([1945]), FocusTime(range(1990, 2000)))
    assert gold.queries["q2"].key_time_anchors[1] == FocusTime(range(1939, 1946))


BAD = [
    # (value, what the message says after the query)
    ("1945", "key_time_anchors must be a list of time anchors"),
    ({"a": 1945}, "key_time_anchors must be a list of time anchors"),
    ([True], "key_time_anchors item True is not a year or a string"),
    ([2020.5], "key_time_anchors item 2020.5 is not a year or a string"),
    ([[1990, 1991]], "key_time_anchors item [1990, 1991] is not a year or a string"),
    # merged, two anchors would be one, covered by either year: an easier anchor than the query's
    (["1945, 1990s"], "key_time_anchors item '1945, 1990s' holds several anchors"),
    ([0], "key_time_anchors item 0 is not a time anchor this plugin reads"),
    (["10000"], "key_time_anchors item '10000' is not a time anchor"),
    ([""], "key_time_anchors item '' is not a time anchor"),
    (["the nineties"], "key_time_anchors item 'the nineties' is not a time anchor"),
]


@pytest.mark.parametrize(("value", "fragment"), BAD, ids=[repr(value) for value, _ in BAD])
def test_a_bad_value_is_an_error_naming_the_query_and_the_item(
    value: object, fragment: str
) -> None:
    with pytest.raises(GoldSetError) as error:
        anchors_of({"key_time_anchors": value})
    assert str(error.value).startswith(f"<dict>: query 'q': {fragment}"), str(error.value)


def test_a_misspelled_key_is_an_unknown_key_with_its_name_suggested() -> None:
    with pytest.raises(GoldSetError, match=r"'key_time_anchor'; did you mean 'key_time_anchors'"):
        anchors_of({"key_time_anchor": [1945]})


@pytest.mark.parametrize("anchors", [("1945",), [FocusTime([1945])], (FocusTime(),), "1945"])
def test_a_query_built_in_python_gives_focus_time_objects(anchors: object) -> None:
    query = GoldQuery("q", key_time_anchors=anchors)  # type: ignore[arg-type]
    with pytest.raises(GoldSetError, match=r"query 'q': key_time_anchors must be a tuple of non-e"):
        GoldSet([query])
    assert GoldSet([GoldQuery("q", key_time_anchors=(FocusTime([1945]),))])


def test_anchors_enter_the_hashes_only_when_given() -> None:
    """A baseline written before key_time_anchors stored each query's hash of what its mode reads:
    a query without anchors keeps that hash; a query whose anchors change gets a new one."""
    query_reads, document_reads = GOLD_READS["focus_time"]
    assert "key_time_anchors" in query_reads
    before = ("focus_time",)  # what focus_time mode read of a query before

    def gold(anchors: list[object]) -> GoldSet:
        queries = [
            {"id": "q1", "focus_time": 2020, **({"key_time_anchors": anchors} if anchors else {})},
            {"id": "q2", "focus_time": 2021},
        ]
        return GoldSet.from_dict({"version": 1, "queries": queries})

    plain, one, other = gold([]), gold([2020]), gold([2019])
    hashes = {
        name: g.fingerprints(query_reads, document_reads)[0]
        for name, g in [("plain", plain), ("one", one), ("other", other)]
    }
    assert hashes["plain"] == plain.fingerprints(before, document_reads)[0]
    assert hashes["one"]["q2"] == hashes["plain"]["q2"] == hashes["other"]["q2"]
    assert len({hashes["plain"]["q1"], hashes["one"]["q1"], hashes["other"]["q1"]}) == 3
    assert plain.fingerprint != one.fingerprint != other.fingerprint


def test_a_gold_set_without_anchors_keeps_the_fingerprint_its_baseline_stored() -> None:
    root = Path(__file__).parents[2]
    stored = json.loads(
        (
            root
            / "fixtures/baselines/examples/test_merge_gate/test_reranker_has_not_regressed.json"
        ).read_text(encoding="utf-8")
    )["results"]["T-nDCG@10"]["gold_fingerprint"]
    assert GoldSet.load(root / "examples/gold/temporal_corpus.yaml").fingerprint == stored
