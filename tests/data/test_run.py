"""Tests of Run: built from Python data, JSON files and retrievers; written back to TREC files.

TREC run files themselves are covered in test_trec_files.py.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_tempoeval import GoldSet, Run
from pytest_tempoeval.errors import MetricError, RunError, RunWarning, TempoEvalError


def write(tmp_path: Path, content: str | bytes, name: str = "run.json") -> Path:
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def run_error(rankings: Any, texts: Any = None) -> str:
    with pytest.raises(RunError) as info:
        Run(rankings, texts=texts)
    return str(info.value)


# --- Run(dict) -----------------------------------------------------------------------------------


def test_ids_keep_their_order() -> None:
    run = Run({"q1": ["d3", "d1", "d2"], "q2": ["x"]})
    assert list(run) == ["q1", "q2"] and len(run) == 2
    assert run["q1"] == ["d3", "d1", "d2"]
    assert run.scores("q1") is None
    assert dict(run) == {"q1": ["d3", "d1", "d2"], "q2": ["x"]}


def test_scored_pairs_are_ranked_as_trec_eval_ranks_them() -> None:
    run = Run({"q": [("a", 1.0), ("b", 3), ("c", 1.0), ("B", 3.0), ("d10", 1), ("d1", 1.0)]})
    # By hand: 3: "b" (0x62) > "B" (0x42); 1: "d10" > "d1" > "c" > "a" (doc id descending).
    assert run["q"] == ["b", "B", "d10", "d1", "c", "a"]
    assert run.scores("q") == [3.0, 3.0, 1.0, 1.0, 1.0, 1.0]


def test_ties_use_utf8_byte_order() -> None:
    run = Run({"q": [("z", 0.5), ("é", 0.5), ("Z", 0.5), ("文", 0.5), ("zz", 0.5)]})
    # UTF-8 bytes: 文 e6.. > é c3.. > "zz" > "z" > "Z".
    assert run["q"] == ["文", "é", "zz", "z", "Z"]


def test_numpy_scores_are_numbers() -> None:
    import numpy as np

    run = Run({"q": [("a", np.float32(0.25)), ("b", np.float64(2.5)), ("c", np.int64(1))]})
    assert run["q"] == ["b", "c", "a"]
    assert run.scores("q") == [2.5, 1.0, 0.25]


def test_score_mapping_is_ranked_by_score() -> None:
    run = Run({"q": {"d1": 1.0, "d2": 5.0, "d3": 5.0}})
    assert run["q"] == ["d3", "d2", "d1"]
    assert run.scores("q") == [5.0, 5.0, 1.0]


def test_text_pairs_keep_their_order_and_texts() -> None:
    run = Run(
        {
            "q1": [("d2", "Biden won in 2020."), ("d1", "The 1990s.")],
            "q2": [("d2", "Biden won in 2020.")],
        }
    )
    assert run["q1"] == ["d2", "d1"]
    assert run.scores("q1") is None
    assert dict(run.texts) == {"d2": "Biden won in 2020.", "d1": "The 1990s."}


def test_texts_beside_the_rankings_may_be_numbers_and_go_with_scores() -> None:
    run = Run({"q": [("d1", 1.0), ("d2", 2.0)]}, texts={"d1": "2020", "d2": "Biden won."})
    assert run["q"] == ["d2", "d1"] and run.scores("q") == [2.0, 1.0]
    assert dict(run.texts) == {"d1": "2020", "d2": "Biden won."}
    # A pair's string that does not read as a number is still a text.
    assert dict(Run({"q": [("d1", "2020 election"), ("d2", "1.0.1")]}).texts) == {
        "d1": "2020 election",
        "d2": "1.0.1",
    }
    with pytest.raises(RunError, match="texts= goes with rankings given as a mapping"):
        Run(run, texts={})


def test_ids_and_text_pairs_may_mix() -> None:
    run = Run({"q": ["d1", ("d2", "text two")]})
    assert run["q"] == ["d1", "d2"] and dict(run.texts) == {"d2": "text two"}


def test_int_ids_become_strings_and_empty_rankings_are_kept() -> None:
    run = Run({1: [7, 3], "q2": []})
    assert list(run) == ["1", "q2"]
    assert run["1"] == ["7", "3"] and run["q2"] == []


def test_a_run_copies_another_run() -> None:
    original = Run({"q": [("a", 1.0), ("b", 2.0)]})
    copy = Run(original)
    assert copy["q"] == ["b", "a"] and copy.scores("q") == [2.0, 1.0]


RUN_ERRORS = [
    ("empty-run", {}, ["the run is empty"]),
    ("not-a-mapping", [["d1"]], ["a run is a mapping", "list"]),
    ("empty-query-id", {"": ["d1"]}, ["query id is empty"]),
    ("padded-query-id", {"q1 ": ["d1"]}, ["'q1 '", "whitespace"]),
    ("tab-in-query-id", {"q\t1": ["d1"]}, ["control character"]),
    ("bool-query-id", {True: ["d1"]}, ["query id must be a string", "True"]),
    ("empty-doc-id", {"q1": ["d1", ""]}, ["query 'q1', rank 2", "doc id is empty"]),
    ("none-doc-id", {"q1": [None]}, ["doc id must be a string", "None"]),
    ("nul-doc-id", {"q1": ["d\x00"]}, ["control character"]),
    ("surrogate-doc-id", {"q1": ["d\ud800"]}, ["lone surrogate", "UTF-8"]),
    (
        "duplicate-doc",
        {"q1": ["d1", "d2", "d1"]},
        ["rank 3", "'d1' appears twice", "first at rank 1"],
    ),
    ("duplicate-doc-int-and-str", {"q1": [1, "1"]}, ["'1' appears twice"]),
    ("duplicate-scored-doc", {"q1": [("d1", 2.0), ("d1", 1.0)]}, ["'d1' appears twice"]),
    ("duplicate-query", {1: ["a"], "1": ["b"]}, ["query id '1' appears twice"]),
    ("nan-score", {"q1": [("d1", math.nan)]}, ["'d1'", "nan", "finite"]),
    ("inf-score", {"q1": [("d1", 1.0), ("d2", -math.inf)]}, ["'d2'", "-inf", "finite"]),
    ("bool-score", {"q1": [("d1", True)]}, ["expected (doc id, score) or (doc id, text)"]),
    ("none-score", {"q1": [("d1", None)]}, ["expected (doc id, score)", "None"]),
    ("string-in-mapping", {"q1": {"d1": "12.5"}}, ["score '12.5' of doc 'd1' is not a number"]),
    (
        "string-score-pair",  # it was read as the document's text, "1.0"
        {"q1": [("d1", "1.0")]},
        [
            "query 'q1', rank 1: score '1.0' of doc 'd1' is not a number (it is a string)",
            "give it as a number, ('d1', 1.0)",
            "Run(..., texts={'d1': '1.0'})",
        ],
    ),
    ("number-text-pair", {"q1": [("d1", "text"), ("d2", " 2020 ")]}, ["score ' 2020 ' of doc"]),
    ("texts-not-a-mapping", {"q1": ["d1"]}, ["texts must map doc id -> text"], ["d1"]),
    ("texts-bad-id", {"q1": ["d1"]}, ["texts: doc id is empty"], {"": "t"}),
    ("texts-not-text", {"q1": ["d1"]}, ["texts: the text of doc 'd1' must be a string"], {"d1": 5}),
    (
        "texts-two-texts",
        {"q1": [("d1", "one")]},
        ["'d1' comes with two different texts"],
        {"d1": "x"},
    ),
    (
        "mixed-in-query",
        {"q1": [("d1", 1.0), "d2"]},
        ["some results", "have scores and some do not"],
    ),
    ("score-and-text", {"q1": [("d1", 1.0), ("d2", "text")]}, ["have scores and some do not"]),
    (
        "mixed-across-queries",
        {"q1": [("d1", 1.0)], "q2": ["d2"]},
        ["'q1' has scored results but query 'q2' does not"],
    ),
    ("results-string", {"q1": "d1 d2"}, ["query 'q1'", "results must be a list", "str"]),
    ("results-none", {"q1": None}, ["results must be a list", "NoneType"]),
    ("triple", {"q1": [("d1", 1.0, "x")]}, ["doc id must be a string", "('d1', 1.0, 'x')"]),
    (
        "two-texts",
        {"q1": [("d1", "one")], "q2": [("d1", "two")]},
        ["'d1' comes with two different texts"],
    ),
]


@pytest.mark.parametrize(
    ("rankings", "fragments", "texts"),
    [(*case[1:3], case[3] if len(case) > 3 else None) for case in RUN_ERRORS],
    ids=[case[0] for case in RUN_ERRORS],
)
def test_run_errors_say_what_is_wrong(rankings: Any, fragments: list[str], texts: Any) -> None:
    message = run_error(rankings, texts)
    assert message.startswith("<run>: "), message
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_run_error_is_a_value_error_of_this_package() -> None:
    with pytest.raises(ValueError):
        Run({})
    with pytest.raises(TempoEvalError):
        Run({})


def test_source_names_the_run_in_errors() -> None:
    with pytest.raises(RunError, match=r"^bm25 baseline: query 'q', rank 2: doc 'a' appears twice"):
        Run({"q": ["a", "a"]}, source="bm25 baseline")


# --- JSON runs -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        '{"q1": ["d2", "d1", "d3"], "q2": ["x"]}',
        '{"q1": {"d1": 1.5, "d2": 9, "d3": -2}, "q2": {"x": 0}}',
        '{"q1": [["d3", -2], ["d1", 1.5], ["d2", 9.0]], "q2": [["x", 0.0]]}',
    ],
    ids=["list", "score-mapping", "pairs"],
)
def test_json_run_forms(tmp_path: Path, content: str) -> None:
    run = Run.load(write(tmp_path, content))
    assert list(run) == ["q1", "q2"]
    assert run["q1"] == ["d2", "d1", "d3"] and run["q2"] == ["x"]


def test_json_scores_are_kept(tmp_path: Path) -> None:
    run = Run.load(write(tmp_path, '{"q": {"a": 1, "b": 1, "c": 2.5}}'))
    assert run["q"] == ["c", "b", "a"] and run.scores("q") == [2.5, 1.0, 1.0]
    assert run.source == str(tmp_path / "run.json")


def test_json_byte_order_mark_is_ignored(tmp_path: Path) -> None:
    assert Run.load(write(tmp_path, '\ufeff{"q": ["a"]}'))["q"] == ["a"]


JSON_ERRORS = [
    ("invalid", '{\n  "q1": ["d1",]\n}\n', 2, ["invalid JSON"]),
    ("top-level-list", '[\n  ["d1"]\n]\n', 1, ["a JSON run is an object"]),
    (
        "duplicate-doc-key",
        '{\n  "q1": {\n    "d1": 2.0,\n    "d1": 1.0\n  }\n}\n',
        4,
        ["duplicate key 'd1'", "first at line 3"],
    ),
    ("duplicate-query-key", '{\n  "q1": ["a"],\n  "q1": ["b"]\n}\n', 3, ["duplicate key 'q1'"]),
    ("nan", '{\n  "q1": [["d1", 1.0]],\n  "q2": [["d1", NaN]]\n}\n', 3, ["NaN"]),
    ("infinity", '{"q1": {\n"d1": 1,\n"d2": -Infinity}}\n', 3, ["-Infinity"]),
    (
        "string-score",
        '{\n  "q1": {"d1": 1},\n  "q2": {\n    "a": 3,\n    "b": "high"\n  }\n}\n',
        5,
        ["query 'q2'", "score 'high' of doc 'b' is not a number"],
    ),
    (
        "duplicate-doc-in-list",
        '{\n  "q2": ["x"],\n  "q1": [\n    "d1",\n    "q2",\n    "d1"\n  ]\n}\n',
        6,
        ["query 'q1', rank 3", "'d1' appears twice"],
    ),
    (
        "duplicate-doc-in-pairs",
        '{\n  "q1": [\n    ["d1", 2],\n    ["d1", 1]\n  ]\n}\n',
        4,
        ["'d1' appears twice"],
    ),
    ("empty-query-id", '{\n  "q1": ["a"],\n  "": ["d1"]\n}\n', 3, ["query id is empty"]),
    ("empty-doc-id", '{\n  "q1": ["a"],\n  "q2": ["d1", ""]\n}\n', 3, ["doc id is empty"]),
    (
        "mixed-queries",
        '{\n  "q1": {"a": 1.0},\n  "q2": ["b"]\n}\n',
        3,
        ["'q1' has scored results but query 'q2' does not"],
    ),
    ("bool-score", '{\n  "q1": [\n    ["a", true]\n  ]\n}\n', 3, ["expected (doc id, score)"]),
    (
        "string-score-in-pairs",
        '{\n  "q1": [\n    ["a", 2.0],\n    ["b", "0.9"]\n  ]\n}\n',
        4,
        ["query 'q1', rank 2: score '0.9' of doc 'b' is not a number (it is a string)"],
    ),
    ("results-number", '{\n  "q1": ["a"],\n  "q2": 5\n}\n', 3, ["results must be a list"]),
    ("empty-object", "\n{\n}\n", 2, ["the run is empty"]),
]


@pytest.mark.parametrize(
    ("content", "line", "fragments"),
    [case[1:] for case in JSON_ERRORS],
    ids=[case[0] for case in JSON_ERRORS],
)
def test_json_run_errors_name_the_line(
    tmp_path: Path, content: str, line: int | None, fragments: list[str]
) -> None:
    path = write(tmp_path, content)
    with pytest.raises(RunError) as info:
        Run.load(path)
    message = str(info.value)
    prefix = f"{path}:{line}: " if line is not None else f"{path}: "
    assert message.startswith(prefix), message
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_empty_json_run_file(tmp_path: Path) -> None:
    empty = write(tmp_path, "")
    with pytest.raises(RunError, match=rf"^{empty}:1: the run file is empty; expected TREC"):
        Run.load(empty)
    blank = write(tmp_path, "  \n", "blank.json")
    with pytest.raises(RunError, match=rf"^{blank}:1: the file is empty; expected a JSON object"):
        Run.load(blank)


def test_non_utf8_json_run_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, b'{\n"q1": ["caf\xe9"]\n}')
    with pytest.raises(RunError, match=rf"^{path}:2: byte b'\\xe9' is not valid UTF-8"):
        Run.load(path)


def test_deeply_nested_json_run_is_a_run_error(tmp_path: Path) -> None:
    path = write(tmp_path, '{\n"q1": ["a"],\n"q2": ' + "[" * 50000 + "]" * 50000 + "}")
    with pytest.raises(RunError, match=rf"^{path}:3: nested more than 100 levels deep"):
        Run.load(path)


# --- Run.from_retriever --------------------------------------------------------------------------

GOLD = GoldSet.from_dict(
    {
        "k": 2,
        "queries": [
            {"id": "q1", "text": "elections in 2020"},
            {"id": "q2", "text": "the 1990s"},
        ],
    }
)


def test_retriever_is_called_with_every_query_text_in_order() -> None:
    calls: list[str] = []

    def retrieve(text: str) -> list[str]:
        calls.append(text)
        return ["a", "b", "c"] if "2020" in text else ["z"]

    run = Run.from_retriever(retrieve, GOLD, k=3)
    assert calls == ["elections in 2020", "the 1990s"]
    assert run["q1"] == ["a", "b", "c"] and run["q2"] == ["z"]
    assert "retrieve" in run.source


def test_k_is_passed_when_the_retriever_accepts_it() -> None:
    seen: list[int] = []

    def with_k(text: str, k: int = 100) -> list[str]:
        seen.append(k)
        return [f"d{i}" for i in range(k)]

    def with_kwargs(text: str, **options: Any) -> list[str]:
        seen.append(options["k"])
        return ["d1", "d2", "d3"]

    assert Run.from_retriever(with_k, GOLD, k=3)["q1"] == ["d0", "d1", "d2"]
    assert Run.from_retriever(with_kwargs, GOLD, k=1)["q2"] == ["d1"]
    assert seen == [3, 3, 1, 1]


def test_k_defaults_to_the_gold_set_k_then_10() -> None:
    many = [f"d{i:02d}" for i in range(20)]
    assert Run.from_retriever(lambda text: many, GOLD)["q1"] == many[:2]  # GOLD has k: 2
    no_k = GoldSet.from_dict({"queries": [{"id": "q", "text": "t"}]})
    assert Run.from_retriever(lambda text: many, no_k)["q"] == many[:10]


def test_positional_only_k_is_not_passed_as_keyword() -> None:
    def retrieve(text: str, k: int = 1, /) -> list[str]:
        return ["a", "b", "c"][:k]

    with pytest.warns(RunWarning, match="let it take a k= argument"):
        assert Run.from_retriever(retrieve, GOLD, k=3)["q1"] == ["a"]


def test_retriever_dicts_with_id_score_and_text() -> None:
    def retrieve(text: str) -> list[dict[str, Any]]:
        return [
            {"id": "low", "score": 0.1, "text": "about 2020"},
            {"id": "high", "score": 0.9},
            {"id": "mid", "score": 0.5, "text": "about 1990"},
        ]

    run = Run.from_retriever(retrieve, GOLD, k=3)
    assert run["q1"] == ["high", "mid", "low"]  # the score orders, the text is kept
    assert run.scores("q1") == [0.9, 0.5, 0.1]
    assert dict(run.texts) == {"low": "about 2020", "mid": "about 1990"}


def test_retriever_dicts_with_text_only_and_id_only() -> None:
    run = Run.from_retriever(lambda text: [{"id": "a", "text": "2020"}, {"id": "b"}], GOLD)
    assert run["q1"] == ["a", "b"] and dict(run.texts) == {"a": "2020"}


def test_scored_results_are_ranked_before_the_top_k_are_kept() -> None:
    run = Run.from_retriever(
        lambda text: [("a", 1.0), ("b", 2.0), ("c", 3.0), ("d", 2.0)], GOLD, k=2
    )
    assert run["q1"] == ["c", "d"]  # not the first two returned, "a" and "b"
    texts = Run.from_retriever(
        lambda text: [{"id": "a", "score": 1, "text": "ta"}, {"id": "b", "score": 2, "text": "tb"}],
        GOLD,
        k=1,
    )
    assert texts["q1"] == ["b"] and dict(texts.texts) == {"b": "tb"}


def test_retriever_may_return_a_generator_tuple_or_score_mapping() -> None:
    assert Run.from_retriever(lambda text: (d for d in "xyz"), GOLD, k=3)["q1"] == ["x", "y", "z"]
    assert Run.from_retriever(lambda text: ("a", "b"), GOLD)["q1"] == ["a", "b"]
    assert Run.from_retriever(lambda text: {"a": 1.0, "b": 2.0, "c": 0.0}, GOLD)["q1"] == ["b", "a"]


def test_retriever_that_raises_names_the_query() -> None:
    def retrieve(text: str) -> list[str]:
        if "1990" in text:
            raise ConnectionError("index offline")
        return ["a"]

    with pytest.raises(RunError) as info:
        Run.from_retriever(retrieve, GOLD)
    message = str(info.value)
    assert "query 'q2'" in message and "'the 1990s'" in message and "index offline" in message
    assert isinstance(info.value.__cause__, ConnectionError)


def test_generator_retriever_that_raises_names_the_query() -> None:
    def retrieve(text: str) -> Any:
        yield "a"
        raise KeyError("shard 3")

    with pytest.raises(RunError, match=r"query 'q1'.*shard 3") as info:
        Run.from_retriever(retrieve, GOLD)
    assert isinstance(info.value.__cause__, KeyError)


@pytest.mark.parametrize(
    ("returned", "fragments"),
    [
        (None, ["returned NoneType None", "query 'q1'"]),
        ("d1", ["returned str 'd1'"]),
        (5, ["returned int 5"]),
        ([{"doc": "a"}], ["query 'q1', rank 1", "dict without an 'id'"]),
        (["a", "a"], ["'a' appears twice"]),
        ([("a", 1.0), "b"], ["have scores and some do not"]),
        ([("a", math.nan)], ["finite"]),
        ([""], ["doc id is empty"]),
        ([{"id": "a", "text": 5}], ["'text' of doc 'a' must be a string"]),
        (
            [("a2020", "1.0")],  # "1.0" was sent to the judge as the document's text
            [
                "query 'q1', rank 1: score '1.0' of doc 'a2020' is not a number (it is a string)",
                "return it as a number (1.0)",
                "return {'id': 'a2020', 'text': '1.0'} or a framework document",
            ],
        ),
        ({"a2020": "0.9"}, ["score '0.9' of doc 'a2020' is not a number (it is a string)"]),
        ([{"id": "a", "score": "0.5"}], ["score '0.5' of doc 'a' is not a number (it is a"]),
        ({"a": None}, ["query 'q1', rank 1: score None of doc 'a' is not a number"]),
        ([{"id": "a", "score": [1]}], ["score [1] of doc 'a' is not a number"]),
    ],
)
def test_bad_retriever_results_are_run_errors(returned: Any, fragments: list[str]) -> None:
    with pytest.raises(RunError) as info:
        Run.from_retriever(lambda text: returned, GOLD)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_query_without_text_cannot_be_retrieved(tmp_path: Path) -> None:
    path = write(tmp_path, "queries:\n  - id: q1\n    text: t\n  - id: q2\n", "gold.yaml")
    gold = GoldSet.load(path)
    with pytest.raises(RunError, match=rf"^{path}:4: query 'q2' has no text"):
        Run.from_retriever(lambda text: ["a"], gold)


@pytest.mark.parametrize("k", [0, -1, 2.5, True])
def test_bad_k(k: Any) -> None:
    with pytest.raises(MetricError, match="k must be a positive integer"):
        Run.from_retriever(lambda text: ["a"], GOLD, k=k)


# --- to_trec -------------------------------------------------------------------------------------


def test_to_trec_writes_trec_eval_lines(tmp_path: Path) -> None:
    path = tmp_path / "out.trec"
    Run({"q1": [("a", 0.5), ("b", 2.0)], "q2": [("c", 1.0)]}).to_trec(path, tag="bm25")
    assert path.read_text() == "q1 Q0 b 1 2.0 bm25\nq1 Q0 a 2 0.5 bm25\nq2 Q0 c 1 1.0 bm25\n"


def test_to_trec_of_an_unscored_run_keeps_the_order(tmp_path: Path) -> None:
    path = tmp_path / "out.trec"
    Run({"q": ["b", "c", "a"]}).to_trec(path)
    assert path.read_text() == (
        "q Q0 b 1 3.0 tempoeval\nq Q0 c 2 2.0 tempoeval\nq Q0 a 3 1.0 tempoeval\n"
    )
    assert Run.load(path)["q"] == ["b", "c", "a"]


@pytest.mark.parametrize(
    ("rankings", "tag", "named"),
    [
        ({"q 1": ["a"]}, "t", "query id 'q 1'"),
        ({"q": ["a b"]}, "t", "doc id (query 'q') 'a b'"),
        ({"q": ["a"]}, "my tag", "tag 'my tag'"),
        ({"q": ["a"]}, "", "tag ''"),
    ],
)
def test_to_trec_refuses_ids_that_would_split_the_line(
    tmp_path: Path, rankings: dict[str, list[str]], tag: str, named: str
) -> None:
    path = tmp_path / "out.trec"
    with pytest.raises(RunError, match="cannot write") as info:
        Run(rankings).to_trec(path, tag=tag)
    assert named in str(info.value)
    assert not path.exists()  # nothing half-written


TREC_SAFE_IDS = st.text(alphabet="abcAB019_-.é文", min_size=1, max_size=20)
SCORES = st.one_of(
    st.sampled_from([0.0, 1.0, 2.5, -1.0]),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
)


@st.composite
def python_runs(draw: st.DrawFn) -> dict[str, list[Any]]:
    queries = draw(st.lists(TREC_SAFE_IDS, min_size=1, max_size=4, unique=True))
    scored = draw(st.booleans())
    run: dict[str, list[Any]] = {}
    for query in queries:
        docs = draw(st.lists(TREC_SAFE_IDS, min_size=1, max_size=10, unique=True))
        run[query] = [(doc, draw(SCORES)) for doc in docs] if scored else docs
    return run


@settings(max_examples=50, deadline=None)
@given(rankings=python_runs())
def test_property_to_trec_then_load_gives_the_same_rankings(
    tmp_path_factory: pytest.TempPathFactory, rankings: dict[str, list[Any]]
) -> None:
    run = Run(rankings)
    path = tmp_path_factory.mktemp("roundtrip") / "run.trec"
    run.to_trec(path)
    loaded = Run.load(path)
    assert list(loaded) == list(run)
    for query in run:
        assert loaded[query] == run[query]
        if run.scores(query) is not None:
            assert loaded.scores(query) == run.scores(query)  # repr() round-trips floats exactly


@settings(max_examples=30, deadline=None)
@given(rankings=python_runs())
def test_property_json_dump_loads_as_the_same_run(
    tmp_path_factory: pytest.TempPathFactory, rankings: dict[str, list[Any]]
) -> None:
    path = tmp_path_factory.mktemp("json") / "run.json"
    path.write_text(json.dumps(rankings, ensure_ascii=False), encoding="utf-8")
    loaded, direct = Run.load(path), Run(rankings)
    assert dict(loaded) == dict(direct)


# --- fuzz: anything else is a RunError -----------------------------------------------------------

RESULT_ITEMS = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-2, 2)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(alphabet="ab \t\x00é", max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text("ab", max_size=2), inner),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None)
@given(
    data=st.dictionaries(st.text("qé ", max_size=3) | st.integers(0, 2), RESULT_ITEMS, max_size=3)
)
def test_fuzz_python_runs_raise_only_run_errors(data: dict[Any, Any]) -> None:
    try:
        run = Run(data)
    except RunError as error:
        assert str(error).startswith("<run>: ")
    else:
        assert list(run) == [str(query) for query in data]


@settings(max_examples=100, deadline=None)
@given(text=st.text(alphabet='{}[]:,"q1d. \nNa-e', max_size=40))
def test_fuzz_json_runs_raise_only_run_errors(
    tmp_path_factory: pytest.TempPathFactory, text: str
) -> None:
    path = write(tmp_path_factory.mktemp("fuzz"), text)
    try:
        Run.load(path)
    except RunError as error:
        assert str(error).startswith(f"{path}:")


def test_k_is_bounded_so_nothing_is_sized_by_k_alone() -> None:
    from pytest_tempoeval import GoldSet, MetricError, ndcg

    gold = GoldSet.from_dict({"version": 1, "queries": [{"id": "q", "relevant": {"d": 1}}]})
    assert ndcg(Run({"q": ["d"]}), gold, k=1_000_000) == 1.0  # the documented maximum
    with pytest.raises(MetricError, match=r"k must be at most 1,000,000 .*got 1,099,511,627,776"):
        ndcg(Run({"q": ["d"]}), gold, k=2**40)
