"""Tests of GoldSet.load (YAML, JSON) and GoldSet.from_dict: contents, line numbers and errors.

Every error must be a GoldSetError whose message starts with ``path:line:`` (the line of the
offending key or value) and names the offending value. Expected lines are counted by hand in the
file texts below (line 1 is the first line of the text).
"""

from __future__ import annotations

import json
import time
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_tempoeval import FocusTime, GoldSet
from pytest_tempoeval.errors import GoldSetError, GoldSetWarning, TempoEvalError


def years(start: int, end: int) -> set[int]:
    return set(range(start, end + 1))


def write(tmp_path: Path, text: str | bytes, name: str = "gold.yaml") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def load_error(path: Path) -> str:
    """The GoldSetError message of loading ``path`` (any other exception fails the test)."""
    with pytest.raises(GoldSetError) as info:
        GoldSet.load(path)
    return str(info.value)


FULL_YAML = """\
version: 1
name: elections
k: 5
documents:
  d1:
    text: "Biden won the 2020 election."
  d2:
    text: "Politics of the 1990s"
    focus_time: [2020, "2016-2018"]
  d3:
queries:
  - id: q1
    text: "Who won the US presidential election in 2020?"
    temporal_focus: specific_time
    relevant: {d1: 3, d7: 1, d9: 0}
  - id: q2
    text: "Elections between 2015 and 2017"
    focus_time: "1990s"
    relevant: [d2, d3]
  - id: q3
    relevant: {d1: 1}
"""

# FULL_YAML/FULL_DICT judge d7 and d9, which they do not declare: loading them warns.
FULL_DICT = {
    "version": 1,
    "name": "elections",
    "k": 5,
    "documents": {
        "d1": {"text": "Biden won the 2020 election."},
        "d2": {"text": "Politics of the 1990s", "focus_time": [2020, "2016-2018"]},
        "d3": None,
    },
    "queries": [
        {
            "id": "q1",
            "text": "Who won the US presidential election in 2020?",
            "temporal_focus": "specific_time",
            "relevant": {"d1": 3, "d7": 1, "d9": 0},
        },
        {
            "id": "q2",
            "text": "Elections between 2015 and 2017",
            "focus_time": "1990s",
            "relevant": ["d2", "d3"],
        },
        {"id": "q3", "relevant": {"d1": 1}},
    ],
}


# --- valid files ---------------------------------------------------------------------------------


def check_full_gold_set(gold: GoldSet) -> None:
    assert gold.name == "elections"
    assert gold.k == 5 and type(gold.k) is int
    assert len(gold) == 3
    assert gold.query_ids == ("q1", "q2", "q3")
    assert "q2" in gold and "q9" not in gold
    q1, q2, q3 = gold.queries["q1"], gold.queries["q2"], gold.queries["q3"]
    # q1: focus time read from its text; graded judgments, grade 0 kept (judged non-relevant).
    assert q1.focus_time == FocusTime.from_years([2020])
    assert q1.temporal_focus == "specific_time"
    assert q1.relevant == {"d1": 3, "d7": 1, "d9": 0}
    assert all(type(grade) is int for grade in q1.relevant.values())
    # q2: the explicit focus time wins over the years in the text; a list means grade 1.
    assert q2.focus_time == years(1990, 1999)
    assert q2.temporal_focus is None
    assert q2.relevant == {"d2": 1, "d3": 1}
    # q3: no text and no focus time: unknown, not empty.
    assert q3.text is None and q3.focus_time is None
    assert set(gold.documents) == {"d1", "d2", "d3"}
    assert gold.documents["d1"].focus_time == {2020}
    assert gold.documents["d2"].focus_time == {2016, 2017, 2018, 2020}
    assert gold.documents["d3"].text is None and gold.documents["d3"].focus_time is None


@pytest.mark.filterwarnings("ignore::pytest_tempoeval.GoldSetWarning")  # judges d7, d9 only
def test_yaml_gold_set_contents_and_lines(tmp_path: Path) -> None:
    gold = GoldSet.load(write(tmp_path, FULL_YAML))
    check_full_gold_set(gold)
    assert [query.line for query in gold] == [12, 16, 20]
    assert [gold.documents[d].line for d in ("d1", "d2", "d3")] == [5, 7, 10]
    assert gold.line_of("q2") == 16


@pytest.mark.filterwarnings("ignore::pytest_tempoeval.GoldSetWarning")  # judges d7, d9 only
def test_json_gold_set_has_the_same_contents_and_its_own_lines(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps(FULL_DICT, indent=2), "gold.json")
    gold = GoldSet.load(path)
    check_full_gold_set(gold)
    # json.dumps(indent=2) puts each query's "{" on its own line: 19, 29 and 38 (counted by hand).
    assert [query.line for query in gold] == [19, 29, 38]
    assert [gold.documents[d].line for d in ("d1", "d2", "d3")] == [6, 9, 16]


@pytest.mark.filterwarnings("ignore::pytest_tempoeval.GoldSetWarning")  # judges d7, d9 only
def test_from_dict_yaml_and_json_agree(tmp_path: Path) -> None:
    from_dict = GoldSet.from_dict(FULL_DICT)
    check_full_gold_set(from_dict)
    assert [query.line for query in from_dict] == [None, None, None]
    from_yaml = GoldSet.load(write(tmp_path, FULL_YAML))
    from_json = GoldSet.load(write(tmp_path, json.dumps(FULL_DICT), "gold.json"))
    assert from_dict.fingerprint == from_yaml.fingerprint == from_json.fingerprint


@pytest.mark.filterwarnings("ignore::pytest_tempoeval.GoldSetWarning")  # judges d7, d9 only
def test_yml_suffix_and_upper_case_json_suffix(tmp_path: Path) -> None:
    assert GoldSet.load(write(tmp_path, FULL_YAML, "g.yml")).query_ids == ("q1", "q2", "q3")
    upper = write(tmp_path, json.dumps(FULL_DICT), "G.JSON")
    assert GoldSet.load(upper).query_ids == ("q1", "q2", "q3")


def test_minimal_gold_set_defaults(tmp_path: Path) -> None:
    gold = GoldSet.load(write(tmp_path, "queries:\n  - id: only\n"))
    assert gold.query_ids == ("only",)
    assert gold.k is None and gold.name is None and gold.documents == {}
    assert gold.queries["only"].relevant == {}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2020", {2020}),
        ('"2019-2021"', years(2019, 2021)),
        ('"2019–21"', years(2019, 2021)),
        ('"1990s"', years(1990, 1999)),
        ('"19th century"', years(1801, 1900)),
        ('[1999, "2005-2006", "1980s"]', {1999, 2005, 2006} | years(1980, 1989)),
        ("[]", set()),
    ],
)
def test_explicit_focus_time_is_parsed_like_focus_time_parse(
    tmp_path: Path, value: str, expected: set[int]
) -> None:
    text = (
        f"documents:\n  d1: {{focus_time: {value}}}\nqueries:\n  - id: q\n    focus_time: {value}\n"
    )
    gold = GoldSet.load(write(tmp_path, text))
    assert gold.queries["q"].focus_time == expected
    assert gold.documents["d1"].focus_time == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Who won in 2020?", {2020}),
        ("between 2015 and 2017", {2015, 2016, 2017}),
        ("politics in the 1990s", years(1990, 1999)),
        ("no years in here", set()),
    ],
)
def test_focus_time_is_derived_from_text_when_absent_or_null(
    tmp_path: Path, text: str, expected: set[int]
) -> None:
    content = (
        f"documents:\n  d1: {{text: {text!r}}}\n"
        f"queries:\n  - {{id: a, text: {text!r}}}\n"
        f"  - {{id: b, text: {text!r}, focus_time: null}}\n"
    )
    gold = GoldSet.load(write(tmp_path, content))
    assert gold.queries["a"].focus_time == expected
    assert gold.queries["b"].focus_time == expected
    assert gold.documents["d1"].focus_time == expected
    # "no focus time in the text" is an empty set, not unknown (None).
    assert gold.queries["a"].focus_time is not None


def test_yaml_numbers_used_as_ids_keep_their_spelling(tmp_path: Path) -> None:
    # YAML 1.1 reads 010 as octal 8, 0x1F as 31, 1.10 as 1.1: ids are the text in the file.
    text = (
        "queries:\n  - id: 010\n    relevant: [0x1F, 7]\n"
        "  - id: 11\n    relevant: {1.10: 2, 007: 1}\n"
    )
    gold = GoldSet.load(write(tmp_path, text))
    assert gold.query_ids == ("010", "11")
    assert gold.queries["010"].relevant == {"0x1F": 1, "7": 1}
    assert gold.queries["11"].relevant == {"1.10": 2, "007": 1}


def test_utf8_byte_order_mark_is_ignored(tmp_path: Path) -> None:
    assert GoldSet.load(write(tmp_path, "\ufeffqueries: [{id: q}]\n")).query_ids == ("q",)
    bom_json = write(tmp_path, '\ufeff{"queries": [{"id": "q"}]}', "g.json")
    assert GoldSet.load(bom_json).query_ids == ("q",)


def test_crlf_line_endings_keep_line_numbers(tmp_path: Path) -> None:
    path = write(tmp_path, "queries:\r\n  - id: q1\r\n  - id: q1\r\n")
    assert load_error(path).startswith(f"{path}:3: duplicate query id 'q1' (first at line 2)")


# --- YAML errors ---------------------------------------------------------------------------------

YAML_ERRORS = [
    # (id, file text, line, fragments the message must contain)
    (
        "unclosed-flow",
        "queries:\n  - id: q1\n    relevant: [d1, d2\n  - id: q2\n",
        4,
        ["malformed YAML"],
    ),
    ("bad-indent", "queries:\n  - id: q1\n   text: x\n", 3, ["malformed YAML"]),
    ("tab-indent", "queries:\n\t- id: q1\n", 2, ["malformed YAML"]),
    ("unknown-top", "version: 1\nquerys:\n  - id: q1\n", 2, ["'querys'", "did you mean 'queries'"]),
    (
        "unknown-query-key",
        "queries:\n  - id: q1\n    text: t\n    relevent: {d1: 1}\n",
        4,
        ["query 'q1'", "'relevent'", "did you mean 'relevant'"],
    ),
    (
        "unknown-key-no-id",
        "queries:\n  - ID: q1\n",
        2,
        ["'ID'", "did you mean 'id'"],
    ),
    (
        "unknown-document-key",
        "documents:\n  d1:\n    text: t\n    focustime: 2020\nqueries: [{id: q}]\n",
        4,
        ["document 'd1'", "'focustime'", "did you mean 'focus_time'"],
    ),
    (
        "duplicate-query-id",
        "queries:\n  - id: q1\n  - text: t\n    id: q2\n  - text: u\n    id: q1\n",
        6,
        ["duplicate query id 'q1'", "first at line 2"],
    ),
    (
        "duplicate-top-key",
        "k: 3\nqueries: [{id: q}]\nk: 4\n",
        3,
        ["duplicate key 'k'", "first at line 1"],
    ),
    (
        "duplicate-relevant-key",
        "queries:\n  - id: q\n    relevant:\n      d1: 1\n      d2: 2\n      d1: 3\n",
        6,
        ["duplicate key 'd1'", "first at line 4"],
    ),
    (
        "duplicate-document",
        "documents:\n  d1: {text: a}\n  d1: {text: b}\nqueries: [{id: q}]\n",
        3,
        ["duplicate key 'd1'", "first at line 2"],
    ),
    (
        "relevant-list-duplicate",
        "queries:\n  - id: q\n    relevant:\n      - d1\n      - d2\n      - d1\n",
        6,
        ["query 'q'", "'d1' is listed twice", "first at line 4"],
    ),
    ("year-too-big", "queries:\n  - id: q\n    focus_time: 20200\n", 3, ["query 'q'", "20200"]),
    ("year-not-a-year", "queries:\n  - id: q\n    focus_time: banana\n", 3, ["'banana'"]),
    ("year-float", "queries:\n  - id: q\n    focus_time: 2020.5\n", 3, ["2020.5"]),
    ("year-bool", "queries:\n  - id: q\n    focus_time: yes\n", 3, ["True"]),
    (
        "year-list-item",
        "queries:\n  - id: q\n    focus_time:\n      - 2020\n      - 1990s-ish\n",
        5,
        ["'1990s-ish'"],
    ),
    (
        "document-year",
        "documents:\n  d1:\n    focus_time: '2021-2019'\nqueries: [{id: q}]\n",
        3,
        ["document 'd1'", "2021-2019"],
    ),
    (
        "grade-bool",
        "queries:\n  - id: q\n    relevant:\n      d1: true\n",
        4,
        ["grade True", "'d1'"],
    ),
    (
        "grade-float",
        "queries:\n  - id: q\n    relevant:\n      d1: 2.5\n",
        4,
        ["grade 2.5", "'d1'"],
    ),
    (
        "grade-negative",
        "queries:\n  - id: q\n    relevant:\n      d1: -1\n",
        4,
        ["grade -1", "'d1'"],
    ),
    ("grade-string", "queries:\n  - id: q\n    relevant:\n      d1: high\n", 4, ["grade 'high'"]),
    ("grade-null", "queries:\n  - id: q\n    relevant:\n      d1:\n", 4, ["grade None", "'d1'"]),
    (
        "relevant-scalar",
        "queries:\n  - id: q\n    relevant: d1\n",
        3,
        ["'relevant' must map doc id -> grade", "'d1'"],
    ),
    ("no-queries-key", "version: 1\nname: x\n", 1, ["no queries"]),
    ("queries-empty-list", "version: 1\nqueries: []\n", 2, ["no queries", "empty"]),
    ("queries-null", "version: 1\nqueries:\n", 2, ["no queries"]),
    ("queries-mapping", "queries:\n  q1: {text: t}\n", 1, ["'queries' must be a list"]),
    ("query-not-mapping", "queries:\n  - q1\n", 2, ["'q1'", "mapping"]),
    ("query-without-id", "queries:\n  - id: q1\n  - text: hello\n", 3, ["no 'id'"]),
    ("query-id-null", "queries:\n  - id:\n", 2, ["query id", "empty"]),
    ("query-id-bool", "queries:\n  - id: no\n", 2, ["query id", "False", "quote it"]),
    ("query-id-padded", "queries:\n  - id: ' q1'\n", 2, ["' q1'", "whitespace"]),
    ("query-id-empty", "queries:\n  - id: ''\n", 2, ["''", "empty"]),
    ("query-id-list", "queries:\n  - id: [a, b]\n", 2, ["query id", "['a', 'b']"]),
    ("bool-key", "queries:\n  - id: q\n    relevant: {on: 1}\n", 3, ["'on'", "boolean", "quote"]),
    ("null-key", "queries:\n  - id: q\n    relevant: {~: 1}\n", 3, ["None"]),
    ("text-not-string", "queries:\n  - id: q\n    text: [a]\n", 3, ["query 'q' text", "['a']"]),
    ("version-2", "version: 2\nqueries: [{id: q}]\n", 1, ["version 2", "version: 1"]),
    ("version-string", "queries: [{id: q}]\nversion: '1'\n", 2, ["version '1'"]),
    ("version-float", "queries: [{id: q}]\nversion: 1.0\n", 2, ["version 1.0"]),
    ("k-zero", "k: 0\nqueries: [{id: q}]\n", 1, ["k must be a positive integer", "got 0"]),
    ("k-negative", "queries: [{id: q}]\nk: -3\n", 2, ["got -3"]),
    ("k-float", "queries: [{id: q}]\nk: 2.5\n", 2, ["got 2.5"]),
    ("k-bool", "queries: [{id: q}]\nk: true\n", 2, ["got True"]),
    ("name-not-string", "name: [a]\nqueries: [{id: q}]\n", 1, ["name must be a string", "['a']"]),
    ("documents-list", "documents: [d1]\nqueries: [{id: q}]\n", 1, ["'documents' must map"]),
    (
        "document-string",
        "documents:\n  d1: some text\nqueries: [{id: q}]\n",
        2,
        ["'d1'", "'some text'"],
    ),
    ("top-level-list", "- id: q\n", 1, ["a gold set is a mapping"]),
    (
        "second-document",
        "queries: [{id: q}]\n---\nqueries: [{id: r}]\n",
        2,
        ["second YAML document"],
    ),
    ("custom-tag", "queries: [{id: q, text: !shout hi}]\n", 1, ["'hi'"]),
    ("collection-tag", "queries: !!set {a: null}\n", 1, ["tag:yaml.org,2002:set", "not allowed"]),
    ("nul-byte", "queries:\n  - id: q\n    text: a\x00b\n", 3, ["U+0000"]),
    ("control-char", "queries:\n  - id: q\n    text: a\x07b\n", 3, ["U+0007"]),
]


@pytest.mark.parametrize(
    ("text", "line", "fragments"),
    [case[1:] for case in YAML_ERRORS],
    ids=[case[0] for case in YAML_ERRORS],
)
def test_yaml_errors_name_line_and_value(
    tmp_path: Path, text: str, line: int, fragments: list[str]
) -> None:
    path = write(tmp_path, text)
    message = load_error(path)
    assert message.startswith(f"{path}:{line}: "), message
    for fragment in fragments:
        assert fragment in message, (fragment, message)


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n", "---\n", "~\n"])
def test_empty_yaml_file_is_an_error(tmp_path: Path, text: str) -> None:
    path = write(tmp_path, text)
    message = load_error(path)
    assert message.startswith(f"{path}:1: ")
    assert "empty" in message or "mapping" in message


def test_load_reads_a_qrels_file_and_a_yaml_named_qrels_file_points_to_from_trec_qrels(
    tmp_path: Path,
) -> None:
    qrels = GoldSet.load(write(tmp_path, "# judged\nq1 0 d1 1\n", "judgments.txt"))
    assert qrels.queries["q1"].relevant == {"d1": 1}
    path = write(tmp_path, "q1 0 d1 1\n", "judgments.yaml")  # a .yaml name is read as YAML
    message = load_error(path)
    assert message.startswith(f"{path}:1: ")
    assert "GoldSet.from_trec_qrels" in message


JUDGMENTS_3 = "".join(f"q{i} d{i} 1\n" for i in range(60))  # qrels without the iter column


@pytest.mark.parametrize(
    ("text", "line", "expected"),
    [
        (JUDGMENTS_3, 1, ("expected 4 whitespace-separated fields (TREC qrels: qid iter docid "
         "grade), found 3")),
        ("# judged\n\n" + JUDGMENTS_3, 3, "found 3"),
        ("q1 0 d1 1\nq1 0 d2\n", 2, "found 3"),
        ("query-id\tcorpus-id\tscore\n" + JUDGMENTS_3.replace(" ", "\t"), 1,
         ("the first line 'query-id corpus-id score' is a header, not a judgment: TREC qrels have "
         "no header, only lines 'qid iter docid grade'; remove it, or, for a BEIR qrels file, "
         "load its folder with GoldSet.from_beir(folder)")),
        ("qid iter docid rel\nq1 0 d1 1\n", 1, "'qid iter docid rel' is a header"),
        ("q1 Q0 d1 1 2.5 run\n", 1, "expected 4 whitespace-separated fields"),  # a run
    ],
    ids=["3-columns", "after-comments", "later-line", "beir-header", "trec-header", "a-run"],
)  # fmt: skip
def test_load_reads_near_qrels_as_qrels_and_says_what_is_wrong_with_the_line(
    tmp_path: Path, text: str, line: int, expected: str
) -> None:
    """They were read as YAML, whose error pasted the file (one long string) into the message."""
    for name in ("judgments.txt", "judgments"):
        path = write(tmp_path, text, name)
        message = load_error(path)
        assert message.startswith(f"{path}:{line}: ") and expected in message
        assert "q50" not in message and "mapping" not in message


def test_an_error_quotes_no_more_than_a_line_of_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, JUDGMENTS_3, "judgments.yaml")  # a .yaml name is read as YAML
    message = load_error(path)
    assert "'q0 d0 1 q1 d1 1" in message and "GoldSet.from_trec_qrels" in message
    assert "q50" not in message and "(581 characters)" in message


def test_non_utf8_file_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, b"queries:\n  - id: q1\n    text: caf\xe9\n")
    message = load_error(path)
    assert message.startswith(f"{path}:3: ")
    assert "UTF-8" in message and "\\xe9" in message


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "absent.yaml"
    with pytest.raises(GoldSetError, match="no such gold set file"):
        GoldSet.load(path)
    with pytest.raises(GoldSetError, match="has no corpus.jsonl, queries.jsonl or qrels/"):
        GoldSet.load(tmp_path)  # a directory is read as a BEIR folder


def test_gold_set_error_is_a_value_error_of_this_package(tmp_path: Path) -> None:
    path = write(tmp_path, "queries: []\n")
    with pytest.raises(ValueError):
        GoldSet.load(path)
    with pytest.raises(TempoEvalError):
        GoldSet.load(path)


# --- anchors, aliases and the billion laughs -----------------------------------------------------


def billion_laughs(levels: int = 9, width: int = 9) -> str:
    lines = ['l0: &l0 "lol"']
    for level in range(1, levels + 1):
        lines.append(f"l{level}: &l{level} [{', '.join([f'*l{level - 1}'] * width)}]")
    lines.append(f"queries:\n  - id: q\n    text: *l{levels}")
    return "\n".join(lines) + "\n"


def test_billion_laughs_fails_fast(tmp_path: Path) -> None:
    text = billion_laughs()
    assert text.count("*l") == 9 * 9 + 1  # 9 levels of 9 aliases: 9**9 "lol"s if expanded
    path = write(tmp_path, text)
    started = time.process_time()  # CPU time: a loaded machine does not make it fail
    message = load_error(path)
    elapsed = time.process_time() - started
    assert elapsed < 1.0, f"took {elapsed:.2f} s of CPU"  # expanded, it would take minutes
    assert message.startswith(f"{path}:1: ")
    assert "&l0" in message and "not allowed" in message


def test_billion_laughs_in_a_flow_mapping_fails_fast(tmp_path: Path) -> None:
    # The same bomb without any anchor at the top: anchors hidden inside a query's text list.
    inner = ", ".join(["*a"] * 9)
    text = f"queries:\n  - id: q\n    text: [&a [x, x], [{inner}]]\n"
    path = write(tmp_path, text)
    started = time.process_time()
    message = load_error(path)
    assert time.process_time() - started < 1.0
    assert message.startswith(f"{path}:3: ") and "&a" in message


def test_plain_alias_is_refused_naming_it(tmp_path: Path) -> None:
    # Anchor and alias on different lines: the anchor (line 2) is refused first.
    path = write(tmp_path, "queries:\n  - id: &name q1\n    text: *name\n")
    message = load_error(path)
    assert message.startswith(f"{path}:2: ")
    assert "&name" in message and "anchors and aliases" in message


def test_anchor_without_alias_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "documents:\n  d1: &doc {text: t}\nqueries: [{id: q}]\n")
    message = load_error(path)
    assert message.startswith(f"{path}:2: ") and "&doc" in message


def test_undefined_alias_is_an_error_with_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, "queries:\n  - id: q\n    text: *nowhere\n")
    message = load_error(path)
    assert message.startswith(f"{path}:3: ") and "*nowhere" in message


def test_merge_key_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "queries:\n  - id: q\n    <<: {text: t}\n")
    message = load_error(path)
    assert message.startswith(f"{path}:3: ") and "merge keys" in message


def test_deep_nesting_fails_fast_with_its_line(tmp_path: Path) -> None:
    yaml_path = write(tmp_path, "version: 1\nqueries:\n  - id: q\n    text: " + "[" * 5000 + "\n")
    started = time.process_time()
    message = load_error(yaml_path)
    assert message.startswith(f"{yaml_path}:4: ") and "nested more than 100 levels" in message
    json_path = write(tmp_path, '{"queries":\n' + "[" * 50000 + "]" * 50000 + "}", "deep.json")
    message = load_error(json_path)
    assert message.startswith(f"{json_path}:2: ") and "nested more than 100 levels" in message
    assert time.process_time() - started < 1.0


def test_what_libyaml_refuses_is_named_as_the_python_parser_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """libyaml's limits vary by release: what it refuses is read again by the Python parser."""
    import yaml

    class LimitedLoader(yaml.SafeLoader):  # a libyaml with a nesting limit of 20 read-ahead '['
        def fetch_flow_sequence_start(self) -> None:
            if self.flow_level >= 20:
                raise yaml.scanner.ScannerError(
                    None, None, "a limit of this release", self.get_mark()
                )
            super().fetch_flow_sequence_start()

    monkeypatch.setattr(yaml, "CSafeLoader", LimitedLoader, raising=False)
    deep = write(tmp_path, "version: 1\nqueries:\n  - id: q\n    text: " + "[" * 500 + "\n")
    message = load_error(deep)
    assert message == f"{deep}:4: nested more than 100 levels deep: not a gold set"


# --- JSON errors ---------------------------------------------------------------------------------

TRAILING_COMMA = "invalid JSON: trailing comma (a ',' right before ']' or '}'); remove it"
JSON_ERRORS = [
    # The comma's line, whichever json names (3.13: the comma; earlier: the bracket after it)
    ("trailing-comma", '{\n  "queries": [\n    {"id": "q"},\n  ]\n}\n', 3, [TRAILING_COMMA]),
    ("trailing-comma-object", '{"queries": [{"id": "q"}],\n\n}\n', 1, [TRAILING_COMMA]),
    ("comma-then-no-value", '{"queries": [{"id": "q"},\n\n', 3, ["invalid JSON"]),
    ("single-quotes", "{\n  'queries': []\n}\n", 2, ["invalid JSON"]),
    (
        "duplicate-key",
        '{\n  "k": 3,\n  "queries": [{"id": "q"}],\n  "k": 4\n}\n',
        4,
        ["duplicate key 'k'", "first at line 2"],
    ),
    (
        "duplicate-relevant-key",
        '{"queries": [{"id": "q", "relevant": {\n  "d1": 1,\n  "d1": 2\n}}]}\n',
        3,
        ["duplicate key 'd1'", "first at line 2"],
    ),
    (
        "unknown-key",
        '{\n  "queries": [{"id": "q"}],\n\n  "kk": 2\n}\n',
        4,
        ["'kk'", "did you mean 'k'"],
    ),
    (
        "unknown-key-key-and-value-on-two-lines",
        '{\n  "queries": [{"id": "q"}],\n  "nmae":\n    "x"\n}\n',
        3,
        ["'nmae'", "did you mean 'name'"],
    ),
    ("nan-grade", '{"queries": [\n  {"id": "q", "relevant": {"d1": NaN}}\n]}\n', 2, ["NaN"]),
    ("infinity-k", '{\n"k": Infinity,\n"queries": [{"id": "q"}]}\n', 2, ["Infinity"]),
    (
        "grade-float",
        '{"queries": [\n  {"id": "q",\n   "relevant": {"d1": 1.5}}\n]}\n',
        3,
        ["grade 1.5", "'d1'"],
    ),
    ("grade-true", '{"queries": [{"id": "q",\n"relevant": {"d1": true}}]}\n', 2, ["grade True"]),
    ("grade-string", '{"queries": [{"id": "q",\n"relevant": {"d1": "2"}}]}\n', 2, ["grade '2'"]),
    (
        "relevant-list-duplicate",
        '{"queries": [{"id": "q", "relevant": [\n  "d1",\n  "d2",\n  "d1"\n]}]}\n',
        4,
        ["'d1' is listed twice", "first at line 2"],
    ),
    (
        "duplicate-query-id",
        '{"queries": [\n  {"id": "a"},\n  {"id": "b"},\n  {"id": "a"}\n]}\n',
        4,
        ["duplicate query id 'a'", "first at line 2"],
    ),
    ("year", '{"queries": [\n{"id": "q", "focus_time": 0}]}\n', 2, ["focus_time 0"]),
    ("empty-queries", '{\n  "queries": []\n}\n', 2, ["no queries"]),
    ("top-level-list", '[{"id": "q"}]\n', 1, ["a gold set is a mapping"]),
    ("version", '{\n  "version": "1",\n  "queries": [{"id": "q"}]\n}\n', 2, ["version '1'"]),
    ("k-zero", '{\n  "queries": [{"id": "q"}],\n  "k": 0\n}\n', 3, ["got 0"]),
]


@pytest.mark.parametrize(
    ("text", "line", "fragments"),
    [case[1:] for case in JSON_ERRORS],
    ids=[case[0] for case in JSON_ERRORS],
)
def test_json_errors_name_line_and_value(
    tmp_path: Path, text: str, line: int, fragments: list[str]
) -> None:
    path = write(tmp_path, text, "gold.json")
    message = load_error(path)
    assert message.startswith(f"{path}:{line}: "), message
    for fragment in fragments:
        assert fragment in message, (fragment, message)


@pytest.mark.parametrize("text", ["", "   \n\n"])
def test_empty_json_file_is_an_error(tmp_path: Path, text: str) -> None:
    path = write(tmp_path, text, "gold.json")
    message = load_error(path)
    assert message.startswith(f"{path}:1: ") and "empty" in message


def test_non_utf8_json_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, b'{"queries": [\n{"id": "q\xff"}]}', "gold.json")
    message = load_error(path)
    assert message.startswith(f"{path}:2: ") and "UTF-8" in message


# --- from_dict -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "fragments"),
    [
        ({"queries": [{"id": "q", "relevant": {"d1": -2}}]}, ["grade -2", "'d1'"]),
        ({"queries": [{"id": "q", "relevant": {"d1": 1.0}}]}, ["grade 1.0"]),
        ({"queries": [{"id": "q", "relevant": {"d1": False}}]}, ["grade False"]),
        ({"queries": [{"id": "q", "relevant": {"d1", "d2"}}]}, ["'relevant' must map"]),
        ({"queries": [{"id": "q", "relevant": ["d1", "d1"]}]}, ["'d1' is listed twice"]),
        ({"queries": [{"id": "q", "relevant": {1: 1, "1": 2}}]}, ["'1' is judged twice"]),
        ({"queries": [{"id": "q"}, {"id": "q"}]}, ["duplicate query id 'q'"]),
        ({"queries": [{"id": 1}, {"id": "1"}]}, ["duplicate query id '1'"]),
        ({"queries": [{"id": object}]}, ["query id must be a string"]),
        ({"queries": [{"id": "q", "focus_time": 99999}]}, ["99999"]),
        ({"queries": [{"id": "q", "focus_time": {"from": 2020}}]}, ["focus_time", "from"]),
        ({"queries": [{"id": "q", "txt": "t"}]}, ["'txt'", "did you mean 'text'"]),
        ({"queries": []}, ["no queries"]),
        ({"version": 1}, ["no queries"]),
        ({}, ["no queries"]),
        ({"queries": [{"id": "q"}], "k": 0}, ["got 0"]),
        ({"queries": [{"id": "q"}], "version": 3}, ["version 3"]),
        ({"queries": [{"id": "q"}], "documents": {"d": 5}}, ["document 'd'", "5"]),
        ([{"id": "q"}], ["a gold set is a mapping"]),
        ("queries", ["a gold set is a mapping"]),
        (None, ["a gold set is a mapping"]),
    ],
)
def test_from_dict_errors_name_the_value(data: object, fragments: list[str]) -> None:
    with pytest.raises(GoldSetError) as info:
        GoldSet.from_dict(data)  # type: ignore[arg-type]
    message = str(info.value)
    # No file, so no line: the message starts with the source name.
    assert message.startswith("<dict>: "), message
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_from_dict_source_name_is_used_in_errors() -> None:
    with pytest.raises(GoldSetError, match=r"^fixtures/elections: .*'querys'"):
        GoldSet.from_dict({"querys": []}, source="fixtures/elections")


def test_from_dict_accepts_numpy_integer_grades_and_int_ids() -> None:
    import numpy as np

    gold = GoldSet.from_dict({"queries": [{"id": 7, "relevant": {"d1": np.int64(2), 3: 1}}]})
    assert gold.query_ids == ("7",)
    assert gold.queries["7"].relevant == {"d1": 2, "3": 1}
    assert all(type(grade) is int for grade in gold.queries["7"].relevant.values())


def test_from_dict_accepts_focus_time_objects_and_tuples() -> None:
    gold = GoldSet.from_dict(
        {
            "queries": [
                {"id": "a", "focus_time": FocusTime.from_years([1999])},
                {"id": "b", "focus_time": (2001, "2003")},
            ]
        }
    )
    assert gold.queries["a"].focus_time == {1999}
    assert gold.queries["b"].focus_time == {2001, 2003}


# --- fuzz: anything else is a GoldSetError -------------------------------------------------------

KEYS = st.sampled_from(
    ["version", "name", "k", "documents", "queries", "id", "text", "focus_time", "relevant", "d1"]
)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-5, 3000)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=40, deadline=None)
@given(data=st.dictionaries(KEYS, VALUES, max_size=5))
def test_fuzz_from_dict_raises_only_gold_set_errors(data: dict[str, object]) -> None:
    try:
        gold = GoldSet.from_dict(data)
    except GoldSetError as error:
        assert str(error).startswith("<dict>")
    else:
        assert len(gold) >= 1


@settings(max_examples=100, deadline=None)
@given(text=st.text(alphabet="qid:-[]{},&*'\" \n\t01abyes!#~|>", max_size=60))
def test_fuzz_yaml_text_raises_only_gold_set_errors(
    tmp_path_factory: pytest.TempPathFactory, text: str
) -> None:
    path = write(tmp_path_factory.mktemp("fuzz"), "queries:\n  - id: q\n" + text)
    try:
        GoldSet.load(path)
    except GoldSetError as error:
        assert str(error).startswith(f"{path}:")


# --- undeclared judged documents ---------------------------------------------------------------

TYPO = """\
documents:
  us-2020: {text: "The 2020 vote."}
  us-2016: {text: "The 2016 vote."}
queries:
  - id: q2020
    text: "Who won in 2020?"
    relevant: {us-2020: 3, us2016: 1}
"""


def test_a_judged_id_the_documents_lack_is_a_warning_with_line_and_closest_id(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, TYPO)
    with pytest.warns(GoldSetWarning) as caught:
        gold = GoldSet.load(path)
    assert gold.queries["q2020"].relevant == {"us-2020": 3, "us2016": 1}  # still loaded
    (warning,) = caught
    message = str(warning.message)
    assert message.startswith(f"{path}:7: query 'q2020' judges doc 'us2016'")
    assert "did you mean 'us-2016'?" in message
    assert warning.filename == __file__  # reported at the caller's line, not inside the plugin


def test_gold_sets_without_documents_do_not_warn(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        GoldSet.load(write(tmp_path, "queries:\n  - id: q\n    relevant: [a, b]\n"))


def test_many_undeclared_ids_are_summed_up(tmp_path: Path) -> None:
    relevant = ", ".join(f"x{i}: 1" for i in range(8))
    text = f"documents:\n  d: {{}}\nqueries:\n  - id: q\n    relevant: {{{relevant}}}\n"
    with pytest.warns(GoldSetWarning) as caught:
        GoldSet.load(write(tmp_path, text))
    assert len(caught) == 6 and "and 3 more judged documents not declared" in str(caught[5].message)


def test_the_warning_can_be_made_an_error(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", GoldSetWarning)
        with pytest.raises(GoldSetWarning, match="us2016"):
            GoldSet.load(write(tmp_path, TYPO))


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("g.yaml", "version: 1\nqueries:\n  - id: q\n    relevant: {d1: 9223372036854775808}\n", 4),
        ("q.trec", "q1 0 d1 1\nq1 0 d2 1000001\n", 2),
        ("n.trec", "q1 0 d1 -1000001\n", 1),
    ],
)
def test_grades_are_bounded_with_file_and_line(
    tmp_path: Path, name: str, text: str, line: int
) -> None:
    """A grade of 2**63 used to load, then overflow inside the metric."""
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(GoldSetError, match=rf"{name}:{line}: .*from .*1,000,000"):
        GoldSet.load(path)


def test_grades_at_the_bound_load(tmp_path: Path) -> None:
    """The bound is inclusive; grades shorter than its seven digits skip the range check."""
    path = tmp_path / "edge.trec"
    path.write_text("q1 0 d1 1000000\nq1 0 d2 -1000000\nq1 0 d3 999999\nq2 0 d1 7\n")
    gold = GoldSet.load(path)
    assert gold.queries["q1"].relevant == {"d1": 1000000, "d2": -1000000, "d3": 999999}
    assert gold.queries["q2"].relevant == {"d1": 7}
