"""Tests of the TREC file readers: qrels (GoldSet.from_trec_qrels) and runs (Run.load).

Orders are checked against ``trec_eval_order`` below, a transcription of trec_eval's own
comparator (score descending, then ``strcmp(doc2, doc1)``: doc id descending by bytes), written
independently of the package's numpy implementation.
"""

from __future__ import annotations

import functools
import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_tempoeval import GoldSet, Run
from pytest_tempoeval.errors import GoldSetError, RunError


def write(tmp_path: Path, content: str | bytes, name: str) -> Path:
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def _compare(first: tuple[str, float], second: tuple[str, float]) -> int:
    """trec_eval's comp_sim_docno: higher score first; ties: strcmp(second.docno, first.docno)."""
    if first[1] > second[1]:
        return -1
    if first[1] < second[1]:
        return 1
    a, b = first[0].encode("utf-8"), second[0].encode("utf-8")
    return (b > a) - (b < a)


def trec_eval_order(pairs: list[tuple[str, float]]) -> list[str]:
    return [doc for doc, _ in sorted(pairs, key=functools.cmp_to_key(_compare))]


def test_reference_order_by_hand() -> None:
    pairs = [("a", 1.0), ("b", 3.0), ("c", 1.0), ("B", 3.0), ("d10", 1.0), ("d1", 1.0)]
    # 3.0: "b" (0x62) > "B" (0x42); 1.0: "d10" > "d1" (longer with equal prefix), then "c", "a".
    assert trec_eval_order(pairs) == ["b", "B", "d10", "d1", "c", "a"]


# --- qrels: valid files --------------------------------------------------------------------------


def test_qrels_are_read_with_lines_grades_and_query_order(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "q2 0 d1 1\n"  # 1
        "q1 0 d3 2\n"  # 2
        "\n"  # 3: blank lines are allowed
        "q2 0 d2 0\n"  # 4: q2 again, after q1: still grouped with q2
        "q1 Q0 d1 3\n",  # 5: the iter column is ignored
        "judgments.qrels",
    )
    gold = GoldSet.from_trec_qrels(path)
    assert gold.query_ids == ("q2", "q1")  # order of first appearance
    assert len(gold) == 2
    assert gold.queries["q2"].relevant == {"d1": 1, "d2": 0}
    assert gold.queries["q1"].relevant == {"d3": 2, "d1": 3}
    assert gold.queries["q2"].line == 1 and gold.queries["q1"].line == 2
    assert gold.queries["q1"].text is None and gold.queries["q1"].focus_time is None
    assert gold.name == "judgments"
    assert gold.documents == {}


def test_qrels_name_can_be_given(tmp_path: Path) -> None:
    path = write(tmp_path, "q 0 d 1\n", "x.txt")
    assert GoldSet.from_trec_qrels(path, name="robust04").name == "robust04"


@pytest.mark.parametrize(
    "content",
    [
        "q1 0 d1 1\r\nq1 0 d2 2\r\n",  # CRLF
        "q1\t0\td1\t1\nq1\t0\td2\t2\n",  # tabs
        "q1 0 d1 1\nq1 0 d2 2",  # no final newline
        "  q1   0 d1\t 1  \n\n\nq1 0  d2 2\n\n",  # runs of blanks, blank lines
        "q1 0 d1 +1\nq1 0 d2 0002\n",  # C-style integers
    ],
    ids=["crlf", "tabs", "no-final-newline", "blanks", "signs-and-zeros"],
)
def test_qrels_layouts_that_trec_eval_reads(tmp_path: Path, content: str) -> None:
    gold = GoldSet.from_trec_qrels(write(tmp_path, content, "q.qrels"))
    assert gold.queries["q1"].relevant == {"d1": 1, "d2": 2}


# -- CR-only lines (classic Mac OS, or tr '\n' '\r'): read as lines, not as one line ------------

TREC_EVAL = Path(__file__).parent / "trec_eval"


def as_cr_only(tmp_path: Path, name: str) -> Path:
    data = (TREC_EVAL / name).read_bytes()
    assert b"\r" not in data
    return write(tmp_path, data.replace(b"\n", b"\r"), f"{name}.cr")


@pytest.mark.parametrize(
    "blocks",
    [None, "BLOCK_BYTES", "SEQUENTIAL_BLOCK_BYTES"],
    ids=["one-block", "many-blocks-on-threads", "many-blocks-in-sequence"],
)
def test_cr_only_files_read_as_their_lf_originals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, blocks: str | None
) -> None:
    """A CR-only run read as one line: its first six fields, so AP 0.0000 instead of 0.1785."""
    from pytest_tempoeval import average_precision
    from pytest_tempoeval.data.readers import trec_tokens

    if blocks:
        monkeypatch.setattr(trec_tokens.pipeline, blocks, 256)
    run, qrels = as_cr_only(tmp_path, "results.test"), as_cr_only(tmp_path, "qrels.test")
    lf_run, lf_qrels = Run.load(TREC_EVAL / "results.test"), GoldSet.load(TREC_EVAL / "qrels.test")
    cr_run, cr_qrels = Run.load(run), GoldSet.load(qrels)  # load sniffs a CR file as qrels too
    assert {q: cr_run[q] for q in cr_run} == {q: lf_run[q] for q in lf_run}
    assert {q: cr_run.scores(q) for q in cr_run} == {q: lf_run.scores(q) for q in lf_run}
    assert [(q.id, q.relevant) for q in cr_qrels] == [(q.id, q.relevant) for q in lf_qrels]
    assert f"{average_precision(cr_run, cr_qrels):.4f}" == "0.1785"  # trec_eval's out.test


def test_an_error_in_a_cr_only_file_names_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, "q1 Q0 d1 1 1.0 t\rq1 Q0 d2 2 2.0 t\rq1 Q0 d3 3 nan t\r", "r.trec")
    with pytest.raises(RunError, match=r"r\.trec:3: score 'nan' of doc 'd3': scores must be fin"):
        Run.load(path)
    path = write(tmp_path, "q1 0 d1 1\rq1 0 d2 2\rq1 d3 1\r", "q.qrels")
    with pytest.raises(GoldSetError, match=r"q\.qrels:3: expected 4 whitespace-separated fields"):
        GoldSet.from_trec_qrels(path)


def test_qrels_long_and_unicode_ids(tmp_path: Path) -> None:
    long_doc = "clueweb12-0000tw-05-12114" * 3  # 75 bytes: several 8-byte words
    path = write(tmp_path, f"café 0 {long_doc} 2\ncafé 0 文档 1\n", "q.qrels")
    gold = GoldSet.from_trec_qrels(path)
    assert gold.query_ids == ("café",)
    assert gold.queries["café"].relevant == {long_doc: 2, "文档": 1}


# --- qrels: errors -------------------------------------------------------------------------------

QRELS_ERRORS = [
    (
        "too-few-fields",
        "q1 0 d1 1\nq1 0 d2\n",
        2,
        ["expected 4", "found 3", "qid iter docid grade"],
    ),
    ("too-many-fields", "q1 0 d1 1\n\nq1 0 d2 1 extra\n", 3, ["expected 4", "found 5"]),
    ("float-grade", "q1 0 d1 1\nq1 0 d2 1.5\n", 2, ["grade '1.5'", "'d2'"]),
    ("word-grade", "q1 0 d1 high\n", 1, ["grade 'high'", "'d1'"]),
    ("exponent-grade", "q1 0 d1 1\nq1 0 d2 1e2\n", 2, ["grade '1e2'"]),
    (
        "duplicate",
        "q1 0 d1 1\nq2 0 d1 1\nq1 0 d1 2\n",
        3,
        ["'d1' is judged twice", "'q1'", "first at line 1"],
    ),
    (
        "duplicate-non-contiguous",
        "q1 0 d1 1\nq2 0 x 1\nq1 0 d2 1\nq2 0 y 1\nq1 0 d2 0\n",
        5,
        ["'d2' is judged twice", "first at line 3"],
    ),
    ("nul-byte", "q1 0 d1 1\nq1 0 d\x002 1\n", 2, ["control byte 0x00"]),
    ("escape-byte", "q1 0 d1 1\n\nq1 0 d2 1\x1b\n", 3, ["control byte 0x1b"]),
]


@pytest.mark.parametrize(
    ("content", "line", "fragments"),
    [case[1:] for case in QRELS_ERRORS],
    ids=[case[0] for case in QRELS_ERRORS],
)
def test_qrels_errors_name_line_and_value(
    tmp_path: Path, content: str, line: int, fragments: list[str]
) -> None:
    path = write(tmp_path, content, "bad.qrels")
    with pytest.raises(GoldSetError) as info:
        GoldSet.from_trec_qrels(path)
    message = str(info.value)
    assert message.startswith(f"{path}:{line}: "), message
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_empty_qrels_file(tmp_path: Path) -> None:
    path = write(tmp_path, "", "empty.qrels")
    with pytest.raises(GoldSetError) as info:
        GoldSet.from_trec_qrels(path)
    assert str(info.value) == (
        f"{path}:1: the qrels file is empty; expected lines 'qid iter docid grade'"
    )


def test_qrels_file_of_blank_lines_is_empty(tmp_path: Path) -> None:
    path = write(tmp_path, "\n  \n\t\n", "blank.qrels")
    with pytest.raises(GoldSetError, match="empty"):
        GoldSet.from_trec_qrels(path)


def test_qrels_non_utf8_ids_name_the_line(tmp_path: Path) -> None:
    doc = write(tmp_path, b"q1 0 d1 1\nq1 0 d\xff 1\n", "doc.qrels")
    with pytest.raises(GoldSetError, match=r"doc\.qrels:2: doc id b'd\\xff' is not valid UTF-8"):
        GoldSet.from_trec_qrels(doc)
    query = write(tmp_path, b"q1 0 d1 1\nq\xe9 0 d1 1\n", "query.qrels")
    with pytest.raises(GoldSetError, match=r"query\.qrels:2: query id b'q\\xe9' is not valid"):
        GoldSet.from_trec_qrels(query)


@pytest.mark.parametrize("blank", ["\u2028", "\u00a0", "\u3000", "\x85"])
def test_unicode_whitespace_ids_are_refused_like_in_every_other_loader(
    tmp_path: Path, blank: str
) -> None:
    # The tokeniser splits on ASCII blanks only, so these arrive as ids; kept, they could never be
    # typed, shown or matched, and a run or gold set built in Python refuses them.
    for name, text, line, field in [
        ("query.qrels", f"q1 0 d1 1\n{blank} 0 d1 1\n", 2, "query id"),
        ("doc.qrels", f"q1 0 d1 1\nq1 0 x{blank} 1\n", 2, "doc id"),
    ]:
        path = write(tmp_path, text.encode(), name)
        with pytest.raises(GoldSetError, match=rf"{re.escape(name)}:{line}: {field} .*whitespace"):
            GoldSet.from_trec_qrels(path)
    run = write(tmp_path, f"q1 Q0 d1 1 2 r\n{blank} Q0 d1 1 2 r\n".encode(), "blank.run")
    with pytest.raises(RunError, match=r"blank\.run:2: query id .*whitespace"):
        Run.from_trec(run)


def test_a_del_byte_in_an_id_is_a_control_character_in_runs_and_qrels(tmp_path: Path) -> None:
    # DEL (0x7f) is ASCII but a control character: found by the loader fuzz run, a qrels query id
    # '\x7f' loaded and then no Run could name it.
    for name, text, line, field in [
        ("query.qrels", "q1 0 d1 1\nq\x7f 0 d1 1\n", 2, "query id"),
        ("doc.qrels", "q1 0 d1 1\nq1 0 d\x7f2 1\n", 2, "doc id"),
    ]:
        path = write(tmp_path, text.encode(), name)
        with pytest.raises(GoldSetError, match=rf"{re.escape(name)}:{line}: {field} .*control"):
            GoldSet.from_trec_qrels(path)
    for name, text, field in [
        ("query.run", "q1 Q0 d1 1 2 r\n\x7f Q0 d1 1 2 r\n", "query id"),
        ("doc.run", "q1 Q0 d1 1 2 r\nq1 Q0 d\x7f 2 1 r\n", "doc id"),
    ]:
        path = write(tmp_path, text.encode(), name)
        with pytest.raises(RunError, match=rf"{re.escape(name)}:2: {field} .*control"):
            Run.from_trec(path)


def test_qrels_byte_order_mark_is_refused(tmp_path: Path) -> None:
    # Kept, the BOM would silently become part of the first query id (and never match a run).
    path = write(tmp_path, "\ufeffq1 0 d1 1\n", "bom.qrels")
    with pytest.raises(GoldSetError, match=r"bom\.qrels:1: .*byte-order mark"):
        GoldSet.from_trec_qrels(path)


def test_missing_qrels_file(tmp_path: Path) -> None:
    with pytest.raises(GoldSetError, match="no such qrels file"):
        GoldSet.from_trec_qrels(tmp_path / "absent.qrels")


# --- TREC runs: valid files ----------------------------------------------------------------------


def test_run_file_is_ordered_as_trec_eval_orders_it(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "q1 Q0 a 1 1.0 sys\n"  # 1
        "q1 Q0 b 2 3.0 sys\n"  # 2: the rank column is ignored, the score decides
        "q2 Q0 x 1 0.5 sys\n"  # 3
        "q1 Q0 c 3 1.0 sys\n"  # 4: q1 again, after q2: still one ranking
        "q1 Q0 B 4 3 sys\n"  # 5
        "q1 Q0 d10 5 1 sys\n",  # 6
        "run.trec",
    )
    run = Run.load(path)
    assert list(run) == ["q1", "q2"]
    # By hand: 3.0 ties b > B; 1.0 ties d10 > c > a (doc id descending, byte order).
    assert run["q1"] == ["b", "B", "d10", "c", "a"]
    assert run.scores("q1") == [3.0, 3.0, 1.0, 1.0, 1.0]
    assert run["q2"] == ["x"]
    assert run.line_of("q2") == 3


def test_unsorted_scores_are_reordered_exactly(tmp_path: Path) -> None:
    rows = [("d3", -1.5), ("d1", 2.0), ("d20", 2.0), ("d2", 10.0), ("d4", 0.0), ("d0", -0.0)]
    content = "".join(f"q Q0 {doc} {rank} {score} t\n" for rank, (doc, score) in enumerate(rows))
    run = Run.load(write(tmp_path, content, "run.txt"))
    # Hand-sorted: 10 | 2.0: d20 > d1 | 0.0 == -0.0: d4 > d0 | -1.5.
    assert run["q"] == ["d2", "d20", "d1", "d4", "d0", "d3"]
    assert run["q"] == trec_eval_order(rows)


@pytest.mark.parametrize(
    "content",
    [
        "q1 Q0 d1 1 1.0 t\r\nq1 Q0 d2 2 2.0 t\r\n",
        "q1\tQ0\td1\t1\t1.0\tt\nq1\tQ0\td2\t2\t2.0\tt\n",
        "q1 Q0 d1 1 1.0 t\nq1 Q0 d2 2 2.0 t",
        "\n\nq1  Q0 d1 1  1.0 t  \n\n \nq1 Q0 d2 2 2e0 t\n\n",
        "q1 Q0 d1 1 +1 t\nq1 Q0 d2 2 .2e1 t\n",
    ],
    ids=["crlf", "tabs", "no-final-newline", "blanks", "number-forms"],
)
def test_run_layouts_that_trec_eval_reads(tmp_path: Path, content: str) -> None:
    run = Run.load(write(tmp_path, content, "run.trec"))
    assert run["q1"] == ["d2", "d1"]
    assert run.scores("q1") == [2.0, 1.0]


def test_long_ids_are_ordered_by_all_their_bytes(tmp_path: Path) -> None:
    # Ids longer than 8 bytes that differ only after byte 8 (or 16) must still tie-break right.
    docs = ["clueweb-00a", "clueweb-00b", "clueweb-00", "clueweb-00ab", "clueweb-0000000000-x"]
    docs += ["é", "z", "Z", "文"]  # UTF-8 bytes: 文 (e6..) > é (c3..) > z > Z
    # "clueweb-00" is a prefix of "clueweb-0000000000-x", so it sorts below it; "0" < "a".
    content = "".join(f"q Q0 {doc} 1 7 t\n" for doc in docs)
    run = Run.load(write(tmp_path, content, "run.trec"))
    expected = [
        "文", "é", "z", "clueweb-00b", "clueweb-00ab", "clueweb-00a", "clueweb-0000000000-x",
        "clueweb-00", "Z",
    ]  # fmt: skip
    assert run["q"] == expected
    assert run["q"] == trec_eval_order([(doc, 7.0) for doc in docs])


# --- TREC runs: errors ---------------------------------------------------------------------------

RUN_ERRORS = [
    ("nan", "q Q0 d1 1 1 t\nq Q0 d2 2 nan t\n", 2, ["'nan'", "'d2'", "finite"]),
    ("NaN", "q Q0 d1 1 NaN t\n", 1, ["'NaN'", "finite"]),
    ("inf", "q Q0 d1 1 1 t\n\nq Q0 d2 2 inf t\n", 3, ["'inf'", "finite"]),
    ("minus-infinity", "q Q0 d1 1 -Infinity t\n", 1, ["'-Infinity'"]),
    ("overflow", "q Q0 d1 1 1e999 t\n", 1, ["'1e999'", "finite"]),
    ("word-score", "q Q0 d1 1 1 t\nq Q0 d2 2 high t\n", 2, ["'high'", "not a number"]),
    ("comma-decimal", "q Q0 d1 1 0,5 t\n", 1, ["'0,5'", "not a number"]),
    ("too-few-fields", "q Q0 d1 1 1 t\nq Q0 d2 2 1\n", 2, ["expected at least 6", "found 5"]),
    ("too-few-fields-after-a-long-line", "q Q0 d1 1 1 t x\nq Q0 d2 2 1\n", 2, ["found 5"]),
    (
        "duplicate-doc",
        "q Q0 d1 1 3 t\nr Q0 d1 1 3 t\nq Q0 d2 2 2 t\nq Q0 d1 3 1 t\n",
        4,
        ["'d1' appears twice", "'q'", "first at line 1"],
    ),
    ("nul-byte", "q Q0 d1 1 1 t\nq Q0 d\x002 2 1 t\n", 2, ["control byte 0x00"]),
]


@pytest.mark.parametrize(
    ("content", "line", "fragments"),
    [case[1:] for case in RUN_ERRORS],
    ids=[case[0] for case in RUN_ERRORS],
)
def test_run_errors_name_line_and_value(
    tmp_path: Path, content: str, line: int, fragments: list[str]
) -> None:
    path = write(tmp_path, content, "bad.run")
    with pytest.raises(RunError) as info:
        Run.load(path)
    message = str(info.value)
    assert message.startswith(f"{path}:{line}: "), message
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_empty_run_file(tmp_path: Path) -> None:
    path = write(tmp_path, "", "empty.run")
    with pytest.raises(RunError) as info:
        Run.load(path)
    message = str(info.value)
    assert message.startswith(f"{path}:1: the run file is empty")
    assert "qid Q0 docid rank score tag" in message


def test_missing_run_file(tmp_path: Path) -> None:
    with pytest.raises(RunError, match="no such run file"):
        Run.load(tmp_path / "absent.run")


def test_run_file_of_blank_lines_is_empty(tmp_path: Path) -> None:
    with pytest.raises(RunError, match="empty"):
        Run.load(write(tmp_path, "\n \n", "blank.run"))


def test_run_non_utf8_doc_id_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, b"q Q0 d1 1 2 t\nq Q0 d\xff 2 1 t\n", "latin1.run")
    with pytest.raises(RunError, match=r"latin1\.run:2: "):
        Run.load(path)


def test_run_score_with_underscore_is_not_ten(tmp_path: Path) -> None:
    path = write(tmp_path, "q Q0 a 1 1_0 t\nq Q0 b 2 2 t\n", "underscore.run")
    with pytest.raises(RunError, match=r"underscore\.run:1: score '1_0' is not a number"):
        Run.load(path)


# --- property: file order and JSON order are trec_eval's ----------------------------------------

DOC_IDS = st.text(alphabet="abAB09-é文", min_size=1, max_size=18)
TIE_HEAVY_SCORES = st.sampled_from([0.0, -0.0, 1.0, 1.5, 2.0, -3.25, 1e-9, 12345.678])


@st.composite
def scored_runs(draw: st.DrawFn) -> dict[str, list[tuple[str, float]]]:
    query_ids = draw(
        st.lists(st.text("qQ1_é", min_size=1, max_size=4), min_size=1, max_size=4, unique=True)
    )
    return {
        query: [
            (doc, draw(TIE_HEAVY_SCORES))
            for doc in draw(st.lists(DOC_IDS, min_size=1, max_size=12, unique=True))
        ]
        for query in query_ids
    }


@settings(max_examples=40, deadline=None)
@given(
    run=scored_runs(),
    seed=st.integers(0, 2**32 - 1),
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
    presorted=st.booleans(),
)
def test_property_trec_and_json_files_rank_as_trec_eval(
    tmp_path_factory: pytest.TempPathFactory,
    run: dict[str, list[tuple[str, float]]],
    seed: int,
    newline: str,
    presorted: bool,
) -> None:
    shuffler = random.Random(seed)
    rows = [(query, doc, score) for query, pairs in run.items() for doc, score in pairs]
    shuffler.shuffle(rows)  # queries interleaved, scores unsorted, ranks meaningless
    if presorted:
        # The usual system output: each query's lines together, sorted by score, but ties in
        # arbitrary order (trec_eval still breaks them by doc id).
        first = {query: index for index, query in enumerate(dict.fromkeys(q for q, _, _ in rows))}
        rows.sort(key=lambda row: (first[row[0]], -row[2]))
    separators = [" ", "\t", "  "]
    lines = [
        shuffler.choice(separators).join([query, "Q0", doc, str(rank), repr(score), "tag"])
        for rank, (query, doc, score) in enumerate(rows, start=1)
    ]
    directory = tmp_path_factory.mktemp("property")
    trec_path = write(directory, newline.join(lines) + newline, "run.trec")
    json_path = write(
        directory, json.dumps({q: dict(pairs) for q, pairs in run.items()}), "run.json"
    )
    from_trec, from_json = Run.load(trec_path), Run.load(json_path)
    first_seen = list(dict.fromkeys(query for query, _, _ in rows))
    assert list(from_trec) == first_seen
    for query, pairs in run.items():
        expected = trec_eval_order(pairs)
        assert from_trec[query] == expected
        assert from_json[query] == expected
        score_of = dict(pairs)
        assert from_trec.scores(query) == [score_of[doc] for doc in expected]
