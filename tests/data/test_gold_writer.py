"""The deterministic gold-set writer: ``load(write(g))`` equals ``g`` (hypothesis, over ids and
texts YAML reads specially), the same gold set always gives the same bytes, and files are written
atomically, never over an existing one unless asked."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_tempoeval import GoldSet, GoldSetError
from pytest_tempoeval.data.gold_writer import gold_yaml_text, write_gold_yaml
from pytest_tempoeval.data.values import id_problem

ROOT = Path(__file__).parents[2]

# Ids YAML would read as something else, or that need quoting; and plain ones.
TRICKY_IDS = ["yes", "No", "on", "null", "~", "010", "1.10", "1e3", "0x1F", "2020-01-01", "a: b"]
TRICKY_IDS += ["#x", "-", "- d", "[d]", "{d}", "*a", "&a", "!t", "'q'", '"q"', "é", "d 1", "<<"]
ids = st.one_of(
    st.sampled_from(TRICKY_IDS),
    st.from_regex(r"[a-z][a-z0-9_\-]{0,6}", fullmatch=True),
    st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=6),
).filter(lambda value: id_problem(value) is None)
# Texts with what YAML reads as line breaks (NEL, LS, PS), controls, quotes, a byte-order mark,
# years (focus times are read from them) and characters beyond the BMP.
texts = st.one_of(
    st.text(st.characters(exclude_categories=("Cs",)), max_size=30),
    st.sampled_from(
        [
            "Biden won in 2020",
            "\x85 \u2028 \u2029 \ufeff\x7f\x9f",
            'q "x" \\ y',
            "\t\r\n",
            "🙂 1990s",
        ]
    ),
)
years = st.integers(1900, 2030)
focus_times = st.one_of(
    years, st.tuples(years, years).map(lambda p: f"{min(p)}-{max(p)}"), st.lists(years, max_size=3)
)
provenances = st.fixed_dictionaries(
    {"source": st.sampled_from(["human", "llm:claude-haiku-5-5", "llm:m.1"])},
    optional={"reasoning": texts, "prompt_hash": st.from_regex(r"[0-9a-f]{16}", fullmatch=True)},
)


@st.composite
def gold_data(draw: st.DrawFn) -> dict[str, Any]:
    high = draw(st.integers(1, 4))
    grades = st.integers(0, high)
    judgment = st.one_of(grades, st.builds(lambda g, p: {"grade": g, **p}, grades, provenances))
    query_ids = draw(st.lists(ids, min_size=1, max_size=4, unique=True))
    doc_ids = draw(st.lists(ids, max_size=5, unique=True))
    queries = []
    for query_id in query_ids:
        query: dict[str, Any] = {"id": query_id}
        for key, values in (
            ("text", texts),
            ("focus_time", focus_times),
            ("temporal_focus", texts),
        ):
            if draw(st.booleans()):
                query[key] = draw(values)
        if draw(st.booleans()):
            query["baseline_period"], query["comparison_period"] = draw(years), draw(years)
        if draw(st.booleans()):
            query["key_time_anchors"] = draw(
                st.lists(st.sampled_from([1945, "1990s", "1939-1945"]), min_size=1, max_size=2)
            )
        if doc_ids and draw(st.booleans()):
            judged = draw(st.lists(st.sampled_from(doc_ids), unique=True, min_size=1))
            query["relevant"] = {doc_id: draw(judgment) for doc_id in judged}
        queries.append(query)
    data: dict[str, Any] = {"version": 1, "queries": queries}
    if draw(st.booleans()):
        data["documents"] = {
            doc_id: draw(
                st.fixed_dictionaries({}, optional={"text": texts, "focus_time": focus_times})
            )
            for doc_id in doc_ids
        }
    if draw(st.booleans()):
        data["name"] = draw(texts)
    if draw(st.booleans()):
        data["k"] = draw(st.integers(1, 100))
    if draw(st.booleans()):
        data["grade_scale"] = [0, high + draw(st.integers(0, 2))]
    return data


def content(gold: GoldSet) -> tuple[object, ...]:
    """What a gold set holds, without where it was read from (lines, path)."""
    queries = [dataclasses.replace(q, line=None, id_line=None) for q in gold]
    documents = {d: dataclasses.replace(doc, line=None) for d, doc in gold.documents.items()}
    return queries, documents, gold.name, gold.k, gold.declared_grade_scale


@settings(max_examples=100, deadline=None)
@given(data=gold_data())
def test_loading_what_was_written_gives_an_equal_gold_set(
    data: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> None:
    gold = GoldSet.from_dict(data)
    text = gold_yaml_text(gold)
    path = tmp_path_factory.mktemp("w") / "gold.yaml"
    write_gold_yaml(gold, path)
    assert path.read_bytes() == text.encode("utf-8")
    again = GoldSet.load(path)
    assert content(again) == content(gold)
    assert again.fingerprint == gold.fingerprint
    assert gold_yaml_text(again) == text  # byte-stable: a fixed point


@pytest.mark.parametrize(
    "name",
    ["mini_elections.yaml", "temporal_corpus.yaml", "assessor_grades.yaml", "cross_period.yaml"],
)
def test_the_shipped_gold_sets_round_trip(name: str, tmp_path: Path) -> None:
    gold = GoldSet.load(ROOT / "examples" / "gold" / name)
    path = tmp_path / name
    write_gold_yaml(gold, path)
    again = GoldSet.load(path)
    assert content(again)[:2] == content(gold)[:2]
    assert again.fingerprint == gold.fingerprint


def test_the_layout_is_one_judgment_a_line_provenance_inline() -> None:
    gold = GoldSet.from_dict(
        {
            "name": "x",
            "grade_scale": [0, 3],
            "documents": {"d2": {"text": "In 2020"}, "d1": {"text": "No year", "focus_time": 2019}},
            "queries": [
                {
                    "id": "q2",
                    "text": "Who won in 2020?",
                    "relevant": {
                        "d2": {
                            "grade": 2,
                            "source": "llm:m",
                            "reasoning": "r",
                            "prompt_hash": "ab",
                        },
                        "d1": 0,
                    },
                },
                {"id": "yes", "focus_time": "2019-2021"},
            ],
        }
    )
    assert gold_yaml_text(gold, header="pooled\nby tempoeval") == (
        "# pooled\n"
        "# by tempoeval\n"
        "version: 1\n"
        'name: "x"\n'
        "grade_scale: [0, 3]\n"
        "documents:\n"
        '  d1: {text: "No year", focus_time: [2019]}\n'  # sorted by id; its year is not in its text
        '  d2: {text: "In 2020"}\n'
        "queries:\n"
        "  - id: q2\n"
        '    text: "Who won in 2020?"\n'
        "    relevant:\n"
        "      d1: 0\n"
        '      d2: {grade: 2, source: "llm:m", reasoning: "r", prompt_hash: "ab"}\n'
        '  - id: "yes"\n'
        '    focus_time: ["2019-2021"]\n'
    )


def test_an_existing_file_is_kept_unless_asked(tmp_path: Path) -> None:
    gold = GoldSet.from_dict({"queries": [{"id": "q1", "relevant": {"d1": 1}}]})
    path = tmp_path / "gold.yaml"
    path.write_text("precious\n")
    with pytest.raises(FileExistsError, match="gold.yaml exists"):
        write_gold_yaml(gold, path)
    assert path.read_text() == "precious\n"
    write_gold_yaml(gold, path, overwrite=True)
    assert GoldSet.load(path).queries["q1"].relevant == {"d1": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["gold.yaml"]  # no temporary left


def test_a_negative_qrels_grade_is_not_written_as_something_else(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 2\nq1 0 d2 -1\n")
    with pytest.raises(GoldSetError, match="query 'q1' has a negative grade"):
        gold_yaml_text(GoldSet.load(qrels))
