"""``tempoeval gold merge`` (a reviewed patch into its gold set, with provenance; file:line errors)
and ``tempoeval agree`` (the LLM's judgments against a person's, kappa checked against
scikit-learn)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run_main

from pytest_tempoeval import GoldSet
from pytest_tempoeval.data.provenance import Provenance

GOLD = """\
# hand-judged
version: 1
grade_scale: [0, 3]
documents:
  d1: {text: "Biden won the 2020 election."}
  d2: {text: "Trump won the 2016 election."}
  d3: {text: "Polls in 2015 and 2016 were wrong."}
queries:
  - id: q1
    text: "Who won in 2016?"
    relevant: {d2: 3}
  - id: q2
    text: "Who won in 2020?"
    relevant: {d1: 3}
"""
HEAD = "version: 1\ngold: gold.yaml\njudgments:\n"
D3 = (
    "- {query: q1, document: d3, grade: 2, judge_grade: 3, model: m-1, prompt_hash: ab, "
    "reasoning: r}\n"
)
D2 = "- {query: q1, document: d2, grade: 1, judge_grade: 1, model: m-1}\n"  # q1/d2: judged by hand


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gold.yaml").write_text(GOLD)
    return tmp_path


def test_merge_adds_the_patch_lines_with_their_provenance_and_keeps_a_persons(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (files / "patch.yaml").write_text(HEAD + D3 + D2)
    code, out, err = run_main(capsys, "gold", "merge", "gold.yaml", "patch.yaml", "-o", "out.yaml")
    assert code == 0, err
    merged = GoldSet.load(files / "out.yaml")
    assert merged.queries["q1"].relevant == {"d2": 3, "d3": 2}  # d2 stays the person's 3
    assert merged.queries["q1"].provenance == {"d3": Provenance("llm:m-1", "r", "ab")}
    assert merged.queries["q2"].relevant == {"d1": 3}
    assert merged.grade_scale == (0, 3)
    assert (
        out == "out.yaml: merged 1 of 2 judgments from patch.yaml; "
        "1 already judged in gold.yaml, kept\n"
    )
    assert (
        "patch.yaml:5: query 'q1', doc 'd2' not merged: gold.yaml judges it already (human, "
        "grade 3; the patch says 1)" in err
    )
    assert "the comments of gold.yaml are not in out.yaml" in err
    assert (files / "gold.yaml").read_text() == GOLD  # GOLD untouched


@pytest.mark.parametrize(
    ("line", "words"),
    [
        (
            "- {query: q9, document: d3, grade: 2, model: m}",
            "query 'q9', doc 'd3': gold.yaml has no query 'q9'; delete the line, or add the query",
        ),
        (
            "- {query: q1, document: d7, grade: 2, model: m}",
            "gold.yaml does not declare doc 'd7' under 'documents:'; declare it",
        ),
        (
            "- {query: q1, document: d1, grade: 4, model: m}",
            "grade 4 is off the grade scale of gold.yaml, [0, 3]",
        ),
        ("- {query: q1, document: d3, grade: two, model: m}", "grade 'two' is not an integer"),
        ("- {query: q1, document: d3, grade: 2, model: m, verdict: 1}", "unknown key 'verdict'"),
        ("- q1 d3 2", "a patch line must be a mapping"),
        ("- {query: q1, document: d3, grade: 2}", "the judgment has no 'model'"),
    ],
)
def test_merge_refuses_a_bad_line_naming_the_patchs_file_and_line(
    files: Path, capsys: pytest.CaptureFixture[str], line: str, words: str
) -> None:
    (files / "patch.yaml").write_text(HEAD + D3 + line + "\n")
    code, out, err = run_main(capsys, "gold", "merge", "gold.yaml", "patch.yaml", "-o", "out.yaml")
    assert code == 2 and not out
    assert err.startswith("tempoeval: error: patch.yaml:5: "), err
    assert words in err, err
    assert not (files / "out.yaml").exists()  # nothing merged, nothing written


def test_merge_never_overwrites_without_force(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (files / "patch.yaml").write_text(HEAD + D3)
    (files / "out.yaml").write_text("kept\n")
    merge = ("gold", "merge", "gold.yaml", "patch.yaml")
    code, _, err = run_main(capsys, *merge, "-o", "out.yaml")
    assert code == 2 and "out.yaml exists: give --force to replace it" in err
    assert (files / "out.yaml").read_text() == "kept\n"
    code, _, err = run_main(capsys, *merge, "-o", "./gold.yaml")  # GOLD itself, however spelled
    assert code == 2 and "gold.yaml is GOLD: give --force to rewrite the gold set in place" in err
    assert (files / "gold.yaml").read_text() == GOLD
    code, _, err = run_main(capsys, *merge, "-o", "out.json")
    assert code == 2 and "give it a .yaml or .yml name" in err
    code, _, err = run_main(capsys, *merge, "-o", "gold.yaml", "--force")
    assert code == 0, err
    assert GoldSet.load(files / "gold.yaml").queries["q1"].relevant == {"d2": 3, "d3": 2}
    assert sorted(p.name for p in files.iterdir()) == ["gold.yaml", "out.yaml", "patch.yaml"]


def test_merge_of_an_all_rejected_patch_writes_the_gold_set_unchanged(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (files / "patch.yaml").write_text(HEAD)
    code, out, _ = run_main(capsys, "gold", "merge", "gold.yaml", "patch.yaml", "-o", "out.yaml")
    assert code == 0 and out == "out.yaml: merged 0 of 0 judgments from patch.yaml\n"
    assert (
        GoldSet.load(files / "out.yaml").fingerprint
        == GoldSet.load(files / "gold.yaml").fingerprint
    )


# -- agree ---------------------------------------------------------------------------------------

HUMAN = """\
version: 1
grade_scale: [0, 3]
queries:
  - id: q1
    relevant: {a: 3, b: 2, c: 0, d: 1, only-human: 2}
  - id: q2
    relevant: {a: 0, b: 1, c: 3, e: {grade: 1, source: "llm:m"}}
"""
LLM = """\
version: 1
grade_scale: [0, 3]
queries:
  - id: q1
    relevant:
      a: {grade: 3, source: "llm:m"}
      b: {grade: 1, source: "llm:m"}
      c: {grade: 2, source: "llm:m"}
      d: 1
      only-llm: {grade: 0, source: "llm:m"}
  - id: q2
    relevant:
      a: {grade: 0, source: "llm:m"}
      b: {grade: 1, source: "llm:m"}
      c: {grade: 3, source: "llm:m"}
      e: {grade: 2, source: "llm:m"}
"""


def test_agree_compares_only_what_each_side_judged_itself(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """q1/d is a person's grade copied into the LLM's set (pool --human) and q2/e the LLM's in the
    human set: neither is compared, or kappa would count a person agreeing with themselves."""
    (files / "human.yaml").write_text(HUMAN)
    (files / "llm.yaml").write_text(LLM)
    code, out, err = run_main(capsys, "agree", "human.yaml", "llm.yaml", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    # q1 a b c, q2 a b c: person [3, 2, 0, 0, 1, 3], LLM [3, 1, 2, 0, 1, 3]; scikit-learn's
    # cohen_kappa_score(..., weights="quadratic", labels=[0, 1, 2, 3]) gives 12/17 (not imported
    # here: 4 s of start-up)
    expected = 0.7058823529411764
    assert data["kappa"] == pytest.approx(expected, abs=1e-12)
    assert data["pairs"] == 6 and data["labels"] == [0, 1, 2, 3]
    assert data["confusion"] == [[1, 0, 1, 0], [0, 1, 0, 0], [0, 1, 0, 0], [0, 0, 0, 2]]
    assert data["disagreements"][0] == {"query": "q1", "document": "c", "human": 0, "llm": 2}
    assert data["only_human"] == [  # q1/d: the LLM's set has the person's grade only
        {"query": "q1", "document": "d"},
        {"query": "q1", "document": "only-human"},
    ]
    assert data["only_llm"] == [  # q2/e: the human set has the LLM's grade only
        {"query": "q1", "document": "only-llm"},
        {"query": "q2", "document": "e"},
    ]
    assert data["human_judgments_in_llm"] == 1
    code, text, _ = run_main(capsys, "agree", "human.yaml", "llm.yaml")
    assert code == 0
    assert (
        f"kappa {expected:.4f} (quadratic weights) over 6 (query, document) pairs, judge m" in text
    )
    assert "q1 / c: gold 0, judge 2" in text
    assert "2 pairs judged by a person in human.yaml only: q1/d, q1/only-human" in text
    assert "2 pairs judged by the LLM in llm.yaml only: q1/only-llm, q2/e" in text
    assert "1 judgment(s) of llm.yaml made by a person (source human): not compared" in text
    code, _, err = run_main(capsys, "agree", "human.yaml", "llm.yaml", "--min-kappa", "0.99")
    assert code == 1 and f"kappa {expected:.4f} is below --min-kappa 0.99" in err


def test_agree_binary_mode_thresholds_both_sides(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (files / "human.yaml").write_text(HUMAN)
    (files / "llm.yaml").write_text(LLM)
    code, out, _ = run_main(
        capsys,
        "agree",
        "human.yaml",
        "llm.yaml",
        "--mode",
        "binary",
        "--rel",
        "2",
        "--format",
        "json",
    )
    # grade >= 2: person [1, 1, 0, 0, 0, 1], LLM [1, 0, 1, 0, 0, 1]; scikit-learn's
    # cohen_kappa_score gives 1/3
    assert code == 0
    assert json.loads(out)["kappa"] == pytest.approx(1 / 3, abs=1e-12)


@pytest.mark.parametrize(
    ("llm", "words"),
    [
        (
            LLM.replace("grade_scale: [0, 3]", "grade_scale: [0, 4]"),
            "human.yaml grades on [0, 3] and llm.yaml on [0, 4]",
        ),
        (
            "version: 1\ngrade_scale: [0, 3]\nqueries:\n  - id: q1\n    relevant: {a: 3}\n",
            "llm.yaml holds no judgment made by an LLM",
        ),
        (
            (
                "version: 1\ngrade_scale: [0, 3]\nqueries:\n  - id: q9\n"
                "    relevant: {a: {grade: 1, source: 'llm:m'}}\n"
            ),
            "no (query, document) pair is judged both",
        ),
    ],
)
def test_agree_refuses_what_it_cannot_compare(
    files: Path, capsys: pytest.CaptureFixture[str], llm: str, words: str
) -> None:
    (files / "human.yaml").write_text(HUMAN)
    (files / "llm.yaml").write_text(llm)
    code, out, err = run_main(capsys, "agree", "human.yaml", "llm.yaml")
    assert code == 2 and not out
    assert words in err, err


def test_an_undefined_kappa_is_an_error_not_a_figure(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both sides said 2 for every pair: agreement beyond chance cannot be measured."""
    (files / "human.yaml").write_text(
        "version: 1\nqueries:\n  - id: q\n    relevant: {a: 2, b: 2}\n"
    )
    llm = "version: 1\nqueries:\n  - id: q\n    relevant:\n"
    llm += "".join(f"      {d}: {{grade: 2, source: 'llm:m'}}\n" for d in "ab")
    (files / "llm.yaml").write_text(llm)
    code, out, err = run_main(capsys, "agree", "human.yaml", "llm.yaml")
    assert code == 2 and not out
    assert "human.yaml and llm.yaml: judge_agreement(graded): kappa is undefined" in err
