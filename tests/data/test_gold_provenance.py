"""Judgment provenance in gold sets (``source: human`` or ``llm:<model>``, the judge's reasoning and
prompt hash) and the ``grade_scale`` key: read, checked with ``path:line:`` errors, hashed only
where given, and shown by explanations."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from pytest_tempoeval import GoldSet, GoldSetError, Run, ndcg
from pytest_tempoeval.data.gold_schema import GoldQuery
from pytest_tempoeval.data.provenance import (
    Provenance,
    judge_grade_on_scale,
    llm_source,
    prompt_hash,
)

ROOT = Path(__file__).parents[2]
MODEL = "claude-haiku-5-5"
GOLD = """\
version: 1
grade_scale: [0, 3]
queries:
  - id: q1
    relevant:
      d1: 3
      d9: {grade: 2, source: "llm:claude-haiku-5-5", reasoning: "Covers 2008", \
prompt_hash: "3f2a9c1e0b7d4a65"}
      d4: {grade: 1, source: human}
"""


def load(tmp_path: Path, text: str, name: str = "gold.yaml") -> GoldSet:
    path = tmp_path / name
    path.write_text(text)
    return GoldSet.load(path)


def test_a_judgment_mapping_gives_its_grade_and_provenance(tmp_path: Path) -> None:
    gold = load(tmp_path, GOLD)
    query = gold.queries["q1"]
    assert query.relevant == {"d1": 3, "d9": 2, "d4": 1}  # every caller still reads grades
    # A human's judgment, written as a mapping or a grade, has no provenance entry.
    assert query.provenance == {
        "d9": Provenance("llm:claude-haiku-5-5", "Covers 2008", "3f2a9c1e0b7d4a65")
    }
    assert query.provenance["d9"].model == MODEL and not query.provenance["d9"].is_human
    assert gold.grade_scale == (0, 3) == gold.declared_grade_scale
    assert gold.provenance_of("q1") is query.provenance


def test_json_reads_the_same(tmp_path: Path) -> None:
    data = {
        "grade_scale": [0, 3],
        "queries": [
            {
                "id": "q1",
                "relevant": {
                    "d1": 3,
                    "d9": {
                        "grade": 2,
                        "source": "llm:claude-haiku-5-5",
                        "reasoning": "Covers 2008",
                        "prompt_hash": "3f2a9c1e0b7d4a65",
                    },
                    "d4": {"grade": 1, "source": "human"},
                },
            }
        ],
    }
    from_json, from_yaml = load(tmp_path, json.dumps(data), "gold.json"), load(tmp_path, GOLD)
    for field in ("relevant", "provenance"):
        assert getattr(from_json.queries["q1"], field) == getattr(from_yaml.queries["q1"], field)
    assert from_json.fingerprint == load(tmp_path, GOLD).fingerprint
    assert from_json.fingerprint == GoldSet.from_dict(data).fingerprint


@pytest.mark.parametrize(
    ("judgment", "words"),
    [
        ('{grade: 2, source: "gpt"}', "source 'gpt' is neither 'human' nor 'llm:<model>'"),
        ('{grade: 2, source: "llm:"}', "neither 'human' nor 'llm:<model>'"),
        ('{grade: 2, source: "llm:a b"}', "neither 'human' nor 'llm:<model>'"),
        ('{grade: 2, sorce: "llm:m"}', "unknown key 'sorce'; did you mean 'source'?"),
        ('{source: "llm:m"}', "the judgment of doc 'd9' has no 'grade'"),
        ('{grade: 2.5, source: "llm:m"}', "grade 2.5 of doc 'd9' is not an integer"),
        ('{grade: -1, source: "llm:m"}', "grade -1 of doc 'd9' is not an integer"),
        ('{grade: 2, reasoning: 7, source: "llm:m"}', "reasoning must be a string, got 7"),
        ('{grade: 2, prompt_hash: 12, source: "llm:m"}', "prompt_hash must be a string"),
        ("[2]", "the judgment of doc 'd9' is a list"),
        ("4", "grade 4 of doc 'd9' is outside the gold set's grade_scale [0, 3] (line 2)"),
    ],
)
def test_a_bad_judgment_names_its_line_query_and_document(
    tmp_path: Path, judgment: str, words: str
) -> None:
    text = (
        "version: 1\ngrade_scale: [0, 3]\nqueries:\n  - id: q1\n    relevant:\n"
        f"      d9: {judgment}\n"
    )
    # the judgment is on line 6; every error is about that line (the grade_scale's, line 2,
    # is named in the message when it is the scale's bound that a grade breaks)
    with pytest.raises(GoldSetError) as caught:
        load(tmp_path, text)
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / 'gold.yaml'}:6:"), message
    assert "query 'q1'" in message and words in message


@pytest.mark.parametrize(
    ("scale", "words"),
    [
        ("[3, 0]", "got [3, 0]"),
        ("[1, 1]", "got [1, 1]"),
        ("[0]", "got [0]"),
        ("3", "got 3"),
        ("[0, 2.5]", "got [0, 2.5]"),
        ("[-1, 3]", "got [-1, 3]"),
        ("[true, 3]", "got [True, 3]"),
    ],
)
def test_a_bad_grade_scale_names_its_line(tmp_path: Path, scale: str, words: str) -> None:
    text = f"version: 1\nname: x\ngrade_scale: {scale}\nqueries:\n  - id: q1\n"
    with pytest.raises(GoldSetError) as caught:
        load(tmp_path, text)
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / 'gold.yaml'}:3: grade_scale must be [low, high]")
    assert words in message


def test_grade_scale_defaults_to_zero_to_the_largest_grade(tmp_path: Path) -> None:
    assert GoldSet.load(ROOT / "examples/gold/mini_elections.yaml").grade_scale == (0, 3)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 2\nq1 0 d2 -1\n")
    assert GoldSet.load(qrels).grade_scale == (0, 2)
    assert GoldSet.load(qrels).declared_grade_scale is None
    # nothing above 0: still a scale on which relevant differs from not
    nothing = GoldSet.from_dict({"queries": [{"id": "q", "relevant": {"d": 0}}]})
    assert nothing.grade_scale == (0, 1)


def test_a_grade_below_a_declared_low_bound_is_refused(tmp_path: Path) -> None:
    text = "version: 1\ngrade_scale: [1, 5]\nqueries:\n  - id: q1\n    relevant: {d1: 0}\n"
    with pytest.raises(GoldSetError, match=r"gold.yaml:5: query 'q1': grade 0 of doc 'd1' is "):
        load(tmp_path, text)


def test_gold_sets_built_in_python_are_checked_too() -> None:
    good = GoldQuery("q1", relevant={"d1": 2}, provenance={"d1": Provenance(llm_source(MODEL))})
    assert GoldSet([good]).provenance_of("q1")["d1"].model == MODEL
    orphan = GoldQuery("q1", relevant={"d1": 2}, provenance={"d2": Provenance("llm:m")})
    with pytest.raises(GoldSetError, match="provenance is given for doc 'd2', which 'relevant'"):
        GoldSet([orphan])
    bad = GoldQuery("q1", relevant={"d1": 2}, provenance={"d1": Provenance("robot")})
    with pytest.raises(GoldSetError, match="source 'robot' is neither"):
        GoldSet([bad])
    with pytest.raises(GoldSetError, match=r"grade 2 of doc 'd1' is outside .* \[0, 1\]"):
        GoldSet([good], grade_scale=(0, 1))
    with pytest.raises(GoldSetError, match="grade_scale must be"):
        GoldSet([good], grade_scale=(2, 2))


def test_existing_gold_sets_keep_their_fingerprints() -> None:
    """Baselines store gold fingerprints: the new keys change none of a hand-judged set's. The
    value is the one tests/data/test_cross_periods.py pins, computed before provenance existed."""
    gold = GoldSet.load(ROOT / "examples/gold/mini_elections.yaml")
    assert gold.fingerprint == "4fb0b584808270fb9cd484522716ea68b2e859b871a8c1f53284ff845a6aaef8"


def test_provenance_and_the_scale_change_the_fingerprint_only_where_given(tmp_path: Path) -> None:
    plain = "version: 1\nqueries:\n  - id: q1\n    relevant:\n      d1: 2\n"
    human = plain.replace("d1: 2", "d1: {grade: 2, source: human}")
    llm = plain.replace("d1: 2", 'd1: {grade: 2, source: "llm:m"}')
    other = plain.replace("d1: 2", 'd1: {grade: 2, source: "llm:n"}')
    scaled = plain.replace("queries:", "grade_scale: [0, 3]\nqueries:")
    prints = [load(tmp_path, text).fingerprint for text in (plain, human, llm, other, scaled)]
    assert prints[0] == prints[1]  # a human's judgment, however written
    assert len(set(prints)) == 4
    # What measures read (the grades) is unchanged: a baseline sees no changed query.
    reads = [load(tmp_path, text).fingerprints(("relevant",)) for text in (plain, llm)]
    assert reads[0] == reads[1]


def test_the_explanation_says_who_judged_a_shown_document(tmp_path: Path) -> None:
    gold = load(tmp_path, GOLD)
    result = ndcg(Run({"q1": ["d9", "d1", "d7"]}), gold, k=3)
    text = result.explain()
    assert "judged by an LLM: d9 grade 2 (llm:claude-haiku-5-5)" in text
    assert "d1 grade" not in text and "d4 grade" not in text  # human judgments: no note
    plain = GoldSet.from_dict({"queries": [{"id": "q1", "relevant": {"d1": 3, "d9": 2}}]})
    assert "judged by an LLM" not in ndcg(Run({"q1": ["d9", "d1"]}), plain, k=3).explain()


@pytest.mark.parametrize(
    ("scale", "expected"),
    [
        ((0, 4), [0, 1, 2, 3, 4]),
        ((0, 3), [0, 1, 2, 2, 3]),  # 0.75 -> 1, 1.5 -> 2 (half up), 2.25 -> 2
        ((0, 2), [0, 1, 1, 2, 2]),  # 0.5 -> 1, 1.5 -> 2: halves up
        ((0, 1), [0, 0, 1, 1, 1]),  # 0.25 -> 0, 0.5 -> 1
        ((1, 5), [1, 2, 3, 4, 5]),
        ((0, 10), [0, 3, 5, 8, 10]),  # 2.5 -> 3, 7.5 -> 8
    ],
)
def test_judge_grades_map_onto_the_scale_rounding_halves_up(
    scale: tuple[int, int], expected: list[int]
) -> None:
    assert [judge_grade_on_scale(g, scale) for g in range(5)] == expected


def test_a_judge_grade_outside_zero_to_four_is_refused() -> None:
    for bad in (-1, 5, 2.0, True):
        with pytest.raises(ValueError, match="a judge grade is an integer from 0 to 4"):
            judge_grade_on_scale(bad, (0, 3))  # type: ignore[arg-type]


def test_the_prompt_hash_is_the_prompts_sha256() -> None:
    prompt = "## Task\nRate ..."
    assert prompt_hash(prompt) == hashlib.sha256(prompt.encode()).hexdigest()[:16]
