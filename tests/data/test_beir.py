"""GoldSet.from_beir: BEIR folders read as BEIR reads them, errors with file and line."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from pytest_tempoeval import GoldSet, GoldSetError, Run, ndcg, temporal_ndcg
from pytest_tempoeval.data.corpus import LazyDocuments

CORPUS = [
    {"_id": "d1", "title": "Election 2020", "text": "Biden won the vote.", "metadata": {}},
    {"_id": "d2", "title": "", "text": "Trump won.", "metadata": {"date": "2016-11-09"}},
    {"title": "Written out of order", "_id": "d3", "text": "A story of the 1990s."},
    {"_id": "q1", "title": "", "text": "A document that is also query q1 (as in ArguAna)."},
    {"_id": "d\u00e9", "title": "Caf\u00e9", "text": "Escaped id, 1999."},
]
QUERIES = [
    {"_id": "q1", "text": "Who won in 2020?", "metadata": {}},
    {"_id": "q2", "text": "Who won the election?", "metadata": {"year": 2016}},
    {"_id": "q3", "text": "A query of another split"},
]
HEADER = "query-id\tcorpus-id\tscore\n"
QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td3\t0\nq2\td2\t1\n"


def make_beir(folder: Path, corpus: list[dict] | None = None, gz: bool = False) -> Path:
    (folder / "qrels").mkdir(parents=True)
    lines = "".join(json.dumps(doc) + "\n" for doc in corpus or CORPUS)
    if gz:
        (folder / "corpus.jsonl.gz").write_bytes(gzip.compress(lines.encode()))
    else:
        (folder / "corpus.jsonl").write_text(lines)
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUERIES))
    (folder / "qrels" / "test.tsv").write_text(QRELS)
    return folder


@pytest.mark.parametrize("gz", [False, True], ids=["jsonl", "jsonl.gz"])
def test_reads_queries_of_the_split_qrels_and_documents(tmp_path: Path, gz: bool) -> None:
    gold = GoldSet.from_beir(make_beir(tmp_path / "scifact", gz=gz))
    assert gold.name == "scifact" and gold.query_ids == ("q1", "q2")  # q3 is not judged here
    assert gold.queries["q1"].relevant == {"d1": 2, "d3": 0}
    assert gold.queries["q1"].text == "Who won in 2020?"
    assert gold.queries["q1"].focus_time == {2020}
    assert gold.queries["q2"].focus_time == {2016}  # from its metadata's year
    assert isinstance(gold.documents, LazyDocuments) and len(gold.documents) == 5
    assert set(gold.documents) == {"d1", "d2", "d3", "q1", "d\u00e9"}


def test_documents_are_read_when_needed_with_title_and_focus_time(tmp_path: Path) -> None:
    gold = GoldSet.from_beir(make_beir(tmp_path / "b"))
    documents = gold.documents
    assert repr(documents) == "JsonlCorpus(5 documents, 0 read)"
    ndcg(Run({"q1": ["d1"], "q2": ["d2"]}), gold, k=1)  # gold mode reads no document
    assert repr(documents) == "JsonlCorpus(5 documents, 0 read)"
    first = documents["d1"]
    assert first.text == "Election 2020 Biden won the vote." and first.title == "Election 2020"
    assert first.focus_time == {2020} and first.line == 1
    assert documents["d2"].text == "Trump won." and documents["d2"].focus_time == {2016}
    assert documents["d3"].line == 3 and documents["d3"].focus_time == set(range(1990, 2000))
    assert documents["d\u00e9"].title == "Caf\u00e9"


def test_identical_ids_are_dropped_as_beir_does_and_the_explanation_says_so(
    tmp_path: Path,
) -> None:
    folder = make_beir(tmp_path / "arguana")
    run = Run({"q1": ["q1", "d1"], "q2": ["d2"]})
    dropped = ndcg(run, GoldSet.from_beir(folder), k=2)
    kept = ndcg(run, GoldSet.from_beir(folder, ignore_identical_ids=False), k=2)
    assert dropped.per_query["q1"] == pytest.approx(1.0)  # d1 moves up to rank 1
    # kept: q1 (unjudged) at rank 1, d1 (grade 2) at rank 2: 2 / log2(3) against the ideal 2
    assert kept.per_query["q1"] == pytest.approx(1 / 1.5849625007211562)
    assert dropped.extra["identical_ids_dropped"] == 1 and "identical_ids_dropped" not in kept.extra
    assert "1 retrieved document dropped for having their query's id" in dropped.summary()
    assert "ignore_identical_ids=False" in dropped.explain()


def test_temporal_metrics_read_the_corpus(tmp_path: Path) -> None:
    gold = GoldSet.from_beir(make_beir(tmp_path / "b"))
    result = temporal_ndcg(Run({"q1": ["d2", "d1"], "q2": ["d2"]}), gold, k=2)
    assert result.explain_query("q1").ideal == [("d1", 4.0)]
    assert result.per_query["q2"] == pytest.approx(1.0)


def test_fingerprint_follows_the_corpus_without_reading_it(tmp_path: Path) -> None:
    first = GoldSet.from_beir(make_beir(tmp_path / "a"))
    same = GoldSet.from_beir(make_beir(tmp_path / "b"))
    changed_corpus = [*CORPUS[:-1], {"_id": "d\u00e9", "title": "Caf\u00e9", "text": "Now 2001."}]
    changed = GoldSet.from_beir(make_beir(tmp_path / "c", changed_corpus))
    assert first.fingerprint == same.fingerprint != changed.fingerprint
    assert repr(first.documents) == "JsonlCorpus(5 documents, 0 read)"


def corrupt(folder: Path, name: str, text: str) -> Path:
    (folder / name).write_text(text)
    return folder


BAD_FOLDERS = [
    ("no-corpus", lambda f: (f / "corpus.jsonl").unlink(), "no corpus.jsonl or corpus.jsonl.gz"),
    ("no-queries", lambda f: (f / "queries.jsonl").unlink(), "queries.jsonl: no such file"),
    ("no-split", lambda f: (f / "qrels" / "test.tsv").rename(f / "qrels" / "dev.tsv"),
     "no qrels for split 'test' (splits found: dev)"),
    ("malformed-corpus-line",
     lambda f: corrupt(f, "corpus.jsonl", '{"_id": "d1", "text": "a"}\n{"text": oops\n'),
     "corpus.jsonl:2: not a valid JSON line"),
    ("corpus-line-without-id",
     lambda f: corrupt(f, "corpus.jsonl", '{"_id": "d1"}\n{"text": "a"}\n'),
     "corpus.jsonl:2: the line has no '_id'"),
    ("duplicate-doc", lambda f: corrupt(f, "corpus.jsonl", '{"_id": "d1"}\n{"_id": "d1"}\n'),
     "corpus.jsonl:2: document 'd1' appears twice (first at line 1)"),
    ("qrels-3-fields",
     lambda f: corrupt(f, "qrels/test.tsv", f"{HEADER}q1\td1\n"),
     "test.tsv:2: expected 3 whitespace-separated fields"),
    ("qrels-query-not-in-queries",
     lambda f: corrupt(f, "qrels/test.tsv", f"{HEADER}q1\td1\t1\nq9\td1\t1\n"),
     "test.tsv:3: query 'q9' is judged here but is not in"),
    ("malformed-query", lambda f: corrupt(f, "queries.jsonl", '{"_id": "q1", "text": 5}\n'),
     "queries.jsonl:1: query 'q1': 'text' must be a string"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "damage", "message"), BAD_FOLDERS, ids=[c[0] for c in BAD_FOLDERS]
)
def test_bad_folders_are_gold_set_errors_naming_file_and_line(
    tmp_path: Path, case: str, damage: object, message: str
) -> None:
    folder = make_beir(tmp_path / case)
    damage(folder)  # type: ignore[operator]
    with pytest.raises(GoldSetError) as error:
        GoldSet.from_beir(folder)
    assert message in str(error.value)


def test_a_year_field_out_of_range_names_file_line_and_id(tmp_path: Path) -> None:
    """year: 0 was read as a Unix timestamp (1970), silently."""
    corpus = [*CORPUS[:2], {"_id": "d3", "text": "x", "metadata": {"year": 0}}]
    gold = GoldSet.from_beir(make_beir(tmp_path / "b", corpus))
    with pytest.raises(GoldSetError) as error:
        gold.documents["d3"]
    assert str(error.value).startswith(
        f"{tmp_path / 'b' / 'corpus.jsonl'}:3: document 'd3': 'year' is 0, not a year (a whole "
        "number in 1..9999)"
    )
    folder = make_beir(tmp_path / "q")
    (folder / "queries.jsonl").write_text(
        '{"_id": "q1", "text": "t"}\n{"_id": "q2", "text": "t", "year": -5}\n'
    )
    with pytest.raises(GoldSetError, match=r"queries\.jsonl:2: query 'q2': 'year' is -5, not a"):
        GoldSet.from_beir(folder)


def test_a_damaged_line_whose_id_reads_fails_when_its_document_is_needed(tmp_path: Path) -> None:
    folder = corrupt(
        make_beir(tmp_path / "b"),
        "corpus.jsonl",
        '{"_id": "d1", "text": "ok"}\n{"_id": "d3", "text": "ok"}\n{"_id": "d2", "text": tru\n',
    )
    gold = GoldSet.from_beir(folder)  # ids load; d2's body is read on first access
    assert gold.documents["d1"].text == "ok"
    with pytest.raises(GoldSetError, match=r"corpus\.jsonl:3: not a valid JSON line"):
        gold.documents["d2"]
    with pytest.raises(GoldSetError, match=r"corpus\.jsonl:3"):
        temporal_ndcg(Run({"q1": ["d2"]}), gold, k=1)


def test_a_query_judging_its_own_id_relevant_warns_that_the_rule_does_not_fit(
    tmp_path: Path,
) -> None:
    folder = make_beir(tmp_path / "b")
    (folder / "qrels" / "test.tsv").write_text(f"{HEADER}q1\tq1\t2\nq2\td2\t1\n")
    result = ndcg(Run({"q1": ["q1"], "q2": ["d2"]}), GoldSet.from_beir(folder), k=1)
    assert result.extra["identical_ids_judged_relevant"] == ["q1"]
    assert "1 of them judged relevant (see the warning)" in result.summary()
    assert "warning: 1 query judges its own id relevant (q1)" in result.explain()
    assert "ignore_identical_ids=False" in result.explain()


# -- corpus.jsonl.gz -------------------------------------------------------------------------------

GZ_LINES = "".join(json.dumps(doc) + "\n" for doc in CORPUS).encode()
GOOD_GZ = gzip.compress(GZ_LINES)
GZ_DAMAGE = [
    (
        "corrupt",  # was a raw zlib.error: exit 1 from the CLI, which means "regressed"
        GOOD_GZ[:10] + b"\xff" * 12 + GOOD_GZ[22:],
        (
            "the gzip data is damaged (it does not decompress, or its checksum does not match); "
            "download or compress the corpus again"
        ),
    ),
    (
        "bad-checksum",
        GOOD_GZ[:-8] + bytes([GOOD_GZ[-8] ^ 1]) + GOOD_GZ[-7:],
        "the gzip data is damaged",
    ),
    (
        "truncated",
        GOOD_GZ[: len(GOOD_GZ) // 2],
        "the gzip data ends early, after ",
    ),
    ("truncated-header", GOOD_GZ[:5], "the gzip data ends early, after 0 decompressed bytes"),
    (
        "trailing-garbage",
        GOOD_GZ + b"garbage",
        f"7 bytes that are not gzip data follow the compressed data (from byte {len(GOOD_GZ):,})",
    ),
    (
        "not-gzip",
        GZ_LINES,
        (
            "not gzip data (a gzip file starts with the bytes 1f 8b); if it is plain JSONL, name "
            "it corpus.jsonl"
        ),
    ),
    ("empty", b"", "the file is empty; a corpus.jsonl.gz holds gzip-compressed JSONL lines"),
]


@pytest.mark.parametrize(("case", "data", "message"), GZ_DAMAGE, ids=[c[0] for c in GZ_DAMAGE])
def test_a_broken_gzip_corpus_is_a_gold_set_error_naming_the_file(
    tmp_path: Path, case: str, data: bytes, message: str
) -> None:
    folder = make_beir(tmp_path / case, gz=True)
    (folder / "corpus.jsonl.gz").write_bytes(data)
    with pytest.raises(GoldSetError) as error:
        GoldSet.from_beir(folder)
    assert str(error.value).startswith(f"{folder / 'corpus.jsonl.gz'}: {message}")


def test_a_broken_gzip_corpus_exits_2_from_the_cli_not_1_which_means_regressed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_tempoeval.cli import main

    folder = make_beir(tmp_path / "b", gz=True)
    (folder / "corpus.jsonl.gz").write_bytes(GZ_DAMAGE[0][1])
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d1 1 1.0 r\nq2 Q0 d2 1 1.0 r\n")
    with pytest.raises(SystemExit) as exit:
        main(["compare", str(run), str(run), str(folder)])
    assert exit.value.code == 2
    err = capsys.readouterr().err
    assert f"{folder / 'corpus.jsonl.gz'}: the gzip data is damaged" in err
    assert "Traceback" not in err


def test_gzip_members_joined_and_zero_padding_read_as_gzip_reads_them(tmp_path: Path) -> None:
    """``cat a.gz b.gz`` is one gzip file, and gzip ignores zero bytes after the last member."""
    half = len(GZ_LINES) // 2
    for case, data in (
        ("members", gzip.compress(GZ_LINES[:half]) + gzip.compress(GZ_LINES[half:])),
        ("padded", GOOD_GZ + bytes(1000)),
    ):
        folder = make_beir(tmp_path / case, gz=True)
        (folder / "corpus.jsonl.gz").write_bytes(data)
        gold = GoldSet.from_beir(folder)
        assert set(gold.documents) == {"d1", "d2", "d3", "q1", "d\u00e9"}
        assert gold.documents["d\u00e9"].text == "Caf\u00e9 Escaped id, 1999."


def test_a_gzip_bomb_is_refused_past_the_limit_without_expanding_it_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 4.3 MB gzip of 1 GB of zeros took 2 GB of memory. Decompression stops at the limit:
    MAX_GOLD_BYTES (the cap on YAML/JSON gold files), or 16 times the file's size if more. The
    floor is lowered to 1 MiB here so the test stays small."""
    from pytest_tempoeval.data.readers import beir

    monkeypatch.setattr(beir, "MAX_GOLD_BYTES", 1 << 20)
    folder = make_beir(tmp_path / "bomb", gz=True)
    lines = GZ_LINES + b"\n" * (4 << 20)  # 4 MiB of blank lines: about 4 KiB compressed
    (folder / "corpus.jsonl.gz").write_bytes(gzip.compress(lines))
    with pytest.raises(GoldSetError) as error:
        GoldSet.from_beir(folder)
    assert str(error.value).startswith(
        f"{folder / 'corpus.jsonl.gz'}: decompresses to more than 1 MiB (the limit for a .gz "
        "corpus: 1 MiB, or 16 times the file's size if more): a damaged file or a decompression "
        "bomb; if it is a real corpus, decompress it to corpus.jsonl"
    )


def test_a_gzip_corpus_past_the_floor_loads_when_it_compresses_as_text_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past MAX_GOLD_BYTES, a corpus that expands less than 16 times its size still loads (MS
    MARCO's corpus.jsonl.gz expands about 3 times)."""
    import random

    from pytest_tempoeval.data.readers import beir

    monkeypatch.setattr(beir, "MAX_GOLD_BYTES", 1024)
    rng = random.Random(0)
    extra = [{"_id": f"x{n}", "text": f"{rng.getrandbits(256):x}"} for n in range(100)]
    folder = make_beir(tmp_path / "text", CORPUS + extra, gz=True)
    path = folder / "corpus.jsonl.gz"
    assert 1024 < len(gzip.decompress(path.read_bytes())) < 16 * path.stat().st_size
    assert len(GoldSet.from_beir(folder).documents) == 105


# -- duplicate keys in a line ----------------------------------------------------------------------

TWICE = "appears twice in the line: json.loads would keep the last one; keep one"


@pytest.mark.parametrize("gz", [False, True], ids=["jsonl", "jsonl.gz"])
def test_a_corpus_line_naming_its_id_twice_is_refused_at_load(tmp_path: Path, gz: bool) -> None:
    """The id pattern read the first '_id' and json.loads (BEIR's reader) the last: two readers,
    two ids for one document. Refused when the folder loads, gold mode included."""
    folder = make_beir(tmp_path / "b", gz=gz)
    lines = [json.dumps(doc) for doc in CORPUS]
    lines[1] = '{"_id": "d2", "title": "", "text": "Trump won.", "_id": "d9"}'
    data = ("\n".join(lines) + "\n").encode()
    name = "corpus.jsonl.gz" if gz else "corpus.jsonl"
    (folder / name).write_bytes(gzip.compress(data) if gz else data)
    with pytest.raises(GoldSetError) as error:
        GoldSet.from_beir(folder)
    assert str(error.value) == f"{folder / name}:2: key '_id' {TWICE}"


def test_any_key_twice_in_a_line_is_refused_when_the_line_is_read(tmp_path: Path) -> None:
    folder = corrupt(
        make_beir(tmp_path / "b"),
        "corpus.jsonl",
        '{"_id": "d1", "text": "In 2020."}\n'
        '{"_id": "d2", "text": "In 2016.", "text": "In 1999."}\n'
        '{"_id": "d3", "text": "x", "metadata": {"year": 2020, "year": 1999}}\n',
    )
    gold = GoldSet.from_beir(folder)  # ids load; a body is read when first needed
    assert gold.documents["d1"].focus_time == {2020}
    for doc_id, line, key in (("d2", 2, "text"), ("d3", 3, "year")):
        with pytest.raises(GoldSetError) as error:
            gold.documents[doc_id]
        assert str(error.value) == f"{folder / 'corpus.jsonl'}:{line}: key {key!r} {TWICE}"
    with pytest.raises(GoldSetError, match=r"corpus\.jsonl:2: key 'text' appears twice"):
        temporal_ndcg(Run({"q1": ["d2"]}), gold, k=1)


def test_a_query_line_naming_a_key_twice_is_refused(tmp_path: Path) -> None:
    folder = corrupt(
        make_beir(tmp_path / "b"),
        "queries.jsonl",
        '{"_id": "q1", "text": "Who won in 2020?"}\n{"_id": "q2", "text": "a", "_id": "q3"}\n',
    )
    with pytest.raises(GoldSetError) as error:
        GoldSet.from_beir(folder)
    assert str(error.value) == f"{folder / 'queries.jsonl'}:2: key '_id' {TWICE}"


def test_the_text_of_a_line_may_be_the_word_id(tmp_path: Path) -> None:
    """'"_id"' also appears in a line as a value: the line is parsed, and loads."""
    corpus = [*CORPUS[:2], {"_id": "d3", "title": "_id", "text": "_id"}]
    gold = GoldSet.from_beir(make_beir(tmp_path / "b", corpus))
    assert set(gold.documents) == {"d1", "d2", "d3"}
    assert gold.documents["d3"].text == "_id _id" and gold.documents["d3"].line == 3
