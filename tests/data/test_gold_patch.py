"""The gold patch (``--tempoeval-propose-gold`` writes it, ``tempoeval gold merge`` reads it): one
judgment a line, written deterministically, read back equal, and every malformed line refused with
``path:line:``."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_tempoeval import GoldSetError
from pytest_tempoeval.data.gold_patch import (
    ProposedJudgment,
    patch_text,
    read_gold_patch,
    read_patch,
    write_patch,
)
from pytest_tempoeval.data.values import id_problem

D9 = ProposedJudgment(
    "q1", "d9", 2, 3, 'Covers the 2008 "race"', "claude-haiku-5-5", "3f2a9c1e0b7d4a65"
)
D4 = ProposedJudgment("q0", "yes", 1, 2, None, "claude-haiku-5-5", None)
HEAD = "version: 1\ngold: gold.yaml\njudgments:\n"


def test_the_patch_is_one_judgment_a_line_sorted_by_query_and_document() -> None:
    assert patch_text([D9, D4], "fixtures/gold/elections.yaml") == (
        "# tempoeval gold patch for fixtures/gold/elections.yaml: "
        "delete the lines you reject, then\n"
        "#   tempoeval gold merge fixtures/gold/elections.yaml THIS_FILE -o OUT\n"
        "version: 1\n"
        'gold: "fixtures/gold/elections.yaml"\n'
        "judgments:\n"
        '- {query: q0, document: "yes", grade: 1, judge_grade: 2, model: claude-haiku-5-5}\n'
        "- {query: q1, document: d9, grade: 2, judge_grade: 3, model: claude-haiku-5-5, "
        'prompt_hash: "3f2a9c1e0b7d4a65", reasoning: "Covers the 2008 \\"race\\""}\n'
    )
    assert patch_text([D4, D9], "g.yaml") == patch_text([D9, D4], "g.yaml")


def test_a_written_patch_reads_back_with_each_lines_number(tmp_path: Path) -> None:
    path = tmp_path / "patch.yaml"
    write_patch([D9, D4], path, "gold.yaml")
    read = read_gold_patch(path)
    assert read.gold == "gold.yaml"
    assert read.judgments == [D4, D9]
    assert [j.line for j in read.judgments] == [6, 7]


def test_a_reviewer_deleting_lines_leaves_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "patch.yaml"
    lines = patch_text([D9, D4], "gold.yaml").splitlines(keepends=True)
    path.write_text("".join(line for line in lines if "q0" not in line or line.startswith("#")))
    assert read_patch(path) == [D9]
    path.write_text("".join(line for line in lines if not line.startswith("- ")))
    assert read_patch(path) == []  # every line rejected: nothing to merge, not an error
    path.write_text(patch_text([], "gold.yaml"))
    assert read_patch(path) == []


ids = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=5).filter(
    lambda value: id_problem(value) is None
)
judgments = st.builds(
    ProposedJudgment,
    ids,
    ids,
    st.integers(0, 3),
    st.one_of(st.none(), st.integers(0, 4)),
    st.one_of(st.none(), st.text(st.characters(exclude_categories=("Cs",)), max_size=20)),
    st.sampled_from(["claude-haiku-5-5", "m@1", "yes"]),
    st.one_of(st.none(), st.from_regex(r"[0-9a-f]{16}", fullmatch=True)),
)


@settings(max_examples=60, deadline=None)
@given(proposed=st.lists(judgments, max_size=4, unique_by=lambda j: (j.query_id, j.doc_id)))
def test_any_patch_reads_back_equal(
    proposed: list[ProposedJudgment], tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = tmp_path_factory.mktemp("p") / "patch.yaml"
    write_patch(proposed, path, "gold.yaml")
    assert read_patch(path) == sorted(proposed, key=lambda j: (j.query_id, j.doc_id))


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("- {query: q1, document: d9, grade: high, model: m}", "grade 'high' is not an integer"),
        ("- {query: q1, document: d9, grade: -1, model: m}", "grade -1 is not an integer from 0"),
        ("- {query: q1, document: d9, grade: 2.5, model: m}", "grade 2.5 is not an integer"),
        ("- {query: q1, document: d9, grade: 2, judge_grade: 5, model: m}", "judge_grade 5 is not"),
        (
            "- {query: q1, document: d9, grade: 2, modle: m}",
            "unknown key 'modle'; did you mean 'model'?",
        ),
        ("- {query: q1, document: d9, grade: 2, model: m, source: human}", "unknown key 'source'"),
        ("- {query: q1, grade: 2, model: m}", "the judgment has no 'document'"),
        ("- {query: q1, document: d9, model: m}", "the judgment has no 'grade'"),
        ("- {query: q1, document: d9, grade: 2}", "the judgment has no 'model'"),
        ("- q1 d9 2", "a patch line must be a mapping"),
        ("- [q1, d9, 2]", "a patch line must be a mapping"),
        ("- {query: q1, document: ' d9', grade: 2, model: m}", "document id ' d9' has leading"),
        ("- {query: q1, document: d9, grade: 2, model: 'a b'}", "model 'a b' is not a model name"),
        (
            "- {query: q1, document: d9, grade: 2, model: m, reasoning: 3}",
            "reasoning must be a string",
        ),
        (
            "- {query: q1, document: d9, grade: 2, model: m, prompt_hash: 3}",
            "prompt_hash must be a",
        ),
    ],
)
def test_a_malformed_line_is_named_by_file_and_line(tmp_path: Path, line: str, words: str) -> None:
    path = tmp_path / "patch.yaml"
    path.write_text(HEAD + "- {query: q0, document: d1, grade: 1, model: m}\n" + line + "\n")
    with pytest.raises(GoldSetError) as caught:
        read_patch(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:5: "), message
    assert words in message, message


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        (
            HEAD
            + "- {query: q1, document: d9, grade: 1, model: m}\n"
            + "- {query: q1, document: d9, grade: 2, model: m}\n",
            5,
            "query 'q1', doc 'd9' is proposed twice (first at line 4)",
        ),
        ("version: 2\njudgments: []\n", 1, "unsupported version 2"),
        ("version: 1\njudgment: []\n", 2, "unknown key 'judgment'; did you mean 'judgments'?"),
        ("version: 1\ngold: gold.yaml\n", 1, "the patch has no 'judgments:' list"),
        ("version: 1\njudgments: {q1: d9}\n", 2, "'judgments' must be a list"),
        ("- {query: q1}\n", 1, "a gold patch is a mapping"),
        ("# only a comment\n", 1, "the patch file is empty"),
        ("version: 1\njudgments: [\n", 3, "malformed YAML"),
    ],
)
def test_a_malformed_patch_is_named_by_file_and_line(
    tmp_path: Path, text: str, line: int, words: str
) -> None:
    path = tmp_path / "patch.yaml"
    path.write_text(text)
    with pytest.raises(GoldSetError) as caught:
        read_patch(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:{line}: "), message
    assert words in message, message
