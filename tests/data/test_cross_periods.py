"""A cross-period query's two periods (``baseline_period``, ``comparison_period``): read like
focus times, both or neither, every problem named with its file, line and query."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_tempoeval import FocusTime, GoldQuery, GoldSet, GoldSetError
from pytest_tempoeval.metrics.relevance import CROSS_PERIOD_READS, GOLD_READS

ROOT = Path(__file__).parents[2]

CROSS_YAML = """\
version: 1
queries:
  - id: btc
    text: "How has Bitcoin's energy use changed since 2017?"
    baseline_period: 2017
    comparison_period: "2023-2024"
  - id: ev
    text: "Electric cars then and now"
    baseline_period: [1990s, "2001"]
    comparison_period: 21st century
  - id: plain
    text: "Who won in 2020?"
"""


def write(folder: Path, text: str, name: str = "gold.yaml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_periods_are_read_as_focus_time_parse_reads_them(tmp_path: Path) -> None:
    gold = GoldSet.load(write(tmp_path, CROSS_YAML))
    btc, ev, plain = (gold.queries[q] for q in ("btc", "ev", "plain"))
    assert btc.baseline_period == FocusTime.parse(2017)
    assert btc.comparison_period == set(range(2023, 2025))
    assert ev.baseline_period == set(range(1990, 2000)) | {2001}
    assert ev.comparison_period == set(range(2001, 2101))
    assert plain.baseline_period is None and plain.comparison_period is None
    # The same structure as Python data, and as JSON, reads the same.
    data = {
        "queries": [
            {"id": "btc", "baseline_period": 2017, "comparison_period": "2023-2024"},
            {"id": "ev", "baseline_period": ["1990s", "2001"], "comparison_period": "21st century"},
        ]
    }
    as_dict = GoldSet.from_dict(data)
    as_json = GoldSet.load(write(tmp_path, json.dumps(data), "gold.json"))
    for other in (as_dict, as_json):
        for query_id in ("btc", "ev"):
            mine, theirs = gold.queries[query_id], other.queries[query_id]
            assert (mine.baseline_period, mine.comparison_period) == (
                theirs.baseline_period,
                theirs.comparison_period,
            )


@pytest.mark.parametrize(
    ("given", "missing"),
    [("baseline_period", "comparison_period"), ("comparison_period", "baseline_period")],
)
def test_one_period_without_the_other_is_an_error_at_its_line(
    tmp_path: Path, given: str, missing: str
) -> None:
    """Half a cross-period query is a mistake, not a query T-Coverage could score: it names the
    file, the line of the period given, the query, and what to do."""
    text = f'version: 1\nqueries:\n  - id: q1\n    text: "since 2017"\n    {given}: 2017\n'
    path = write(tmp_path, text)
    message = (
        f"{path}:5: query 'q1': {given} is given without {missing}; a cross-period query "
        f"(T-Coverage) names both periods it compares: add {missing}, or remove {given}"
    )
    with pytest.raises(GoldSetError) as error:
        GoldSet.load(path)
    assert str(error.value) == message


def test_a_null_period_is_not_given(tmp_path: Path) -> None:
    text = "version: 1\nqueries:\n  - id: q1\n    baseline_period: 2017\n    comparison_period:\n"
    with pytest.raises(GoldSetError, match=r":4: query 'q1': baseline_period is given without"):
        GoldSet.load(write(tmp_path, text))
    both_null = "version: 1\nqueries:\n  - id: q1\n    baseline_period:\n    comparison_period:\n"
    query = GoldSet.load(write(tmp_path, both_null)).queries["q1"]
    assert query.baseline_period is None and query.comparison_period is None


@pytest.mark.parametrize(
    ("value", "line", "fragment"),
    [
        ("next year", 6, "query 'q1': bad comparison_period 'next year': cannot read"),
        ("\n      - 2020\n      - 2030-2020", 8, "bad comparison_period '2030-2020'"),
        ("[]", 6, "query 'q1': comparison_period names no year; give a year, a range"),
        ("20200", 6, "bad comparison_period 20200: cannot read 20200 as a focus time"),
    ],
    ids=["words", "list item", "empty list", "out of range"],
)
def test_a_bad_period_names_file_line_query_and_key(
    tmp_path: Path, value: str, line: int, fragment: str
) -> None:
    text = (
        "version: 1\nqueries:\n  - id: q1\n    text: 'x'\n    baseline_period: 2017\n"
        f"    comparison_period: {value}\n"
    )
    path = write(tmp_path, text)
    with pytest.raises(GoldSetError) as error:
        GoldSet.load(path)
    assert str(error.value).startswith(f"{path}:{line}: ")
    assert fragment in str(error.value)


def test_a_misspelt_period_key_is_refused_with_the_closest_key(tmp_path: Path) -> None:
    """A typo must not turn a cross-period query into a plain one (then excluded from T-Coverage,
    the typo never seen)."""
    text = "version: 1\nqueries:\n  - id: q1\n    baseline_perod: 2017\n"
    with pytest.raises(GoldSetError, match=r":4: query 'q1': unknown key 'baseline_perod'; did you "
                       r"mean 'baseline_period'\?"):  # fmt: skip
        GoldSet.load(write(tmp_path, text))


def test_a_gold_set_without_periods_keeps_its_fingerprint() -> None:
    """Baselines compare gold fingerprints: the new keys change no existing gold set's. The values
    were computed at the commit before the keys existed."""
    gold = GoldSet.load(ROOT / "examples/gold/mini_elections.yaml")
    assert gold.fingerprint == "4fb0b584808270fb9cd484522716ea68b2e859b871a8c1f53284ff845a6aaef8"
    per_query, _ = gold.fingerprints(*GOLD_READS["llm"])
    assert per_query["us-2020"] == "8a2d6b5b89d11cf4" and per_query["fr-2022"] == "fbbde2ec3e35bb3a"


def test_a_changed_period_changes_what_t_coverage_reads_and_only_that(tmp_path: Path) -> None:
    """A baseline of T-Coverage must see a query whose period changed as changed; the other
    llm-mode measures, which do not read the periods, must not."""
    before = GoldSet.load(write(tmp_path, CROSS_YAML))
    after = GoldSet.load(write(tmp_path, CROSS_YAML.replace("2023-2024", "2022-2024"), "b.yaml"))
    assert before.fingerprint != after.fingerprint
    cross = before.fingerprints(*CROSS_PERIOD_READS)[0], after.fingerprints(*CROSS_PERIOD_READS)[0]
    assert {q for q in cross[0] if cross[0][q] != cross[1][q]} == {"btc"}
    llm = before.fingerprints(*GOLD_READS["llm"])[0], after.fingerprints(*GOLD_READS["llm"])[0]
    assert llm[0] == llm[1]


def test_gold_query_objects_take_the_periods_by_keyword() -> None:
    query = GoldQuery(
        "q", "since 2017", baseline_period=FocusTime.parse(2017), comparison_period=None
    )
    assert query.baseline_period == {2017} and query.comparison_period is None
