"""BEIR folders: ``corpus.jsonl`` (or ``.jsonl.gz``), ``queries.jsonl`` and ``qrels/<split>.tsv``.

This is the format of retrieval evaluation in RAG, the one ranx, ir_datasets and MTEB users load.
A corpus can hold millions of passages, so it is kept as the file's bytes and an index of where each
document's line starts; a document is parsed when something first needs it (llm mode, focus-time
mode, an explanation). Gold-mode metrics need only the qrels.

The document id is read by a pattern from the start of each line (``{"_id": "...``, how BEIR writes
them); a line it does not fit is parsed whole at once, so an id is never missed. The rest of a line
is parsed on first access, and a problem there is a GoldSetError with the file and line then.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pytest_tempoeval.data.columns import Ragged
from pytest_tempoeval.data.corpus import LazyDocuments
from pytest_tempoeval.data.focus_time import FocusTime
from pytest_tempoeval.data.gold_schema import GoldDocument
from pytest_tempoeval.data.metadata import metadata_focus_time, model_text
from pytest_tempoeval.data.readers.trec import read_trec_qrels
from pytest_tempoeval.data.values import id_problem
from pytest_tempoeval.errors import GoldSetError, located

CORPUS_NAMES = ("corpus.jsonl", "corpus.jsonl.gz")
QUERIES_NAME = "queries.jsonl"
_LEADING_ID = re.compile(rb'^\{\s*"_id"\s*:\s*"((?:[^"\\\n]|\\.)*)"', re.MULTILINE)
_NON_BLANK_LINE = re.compile(rb"^[ \t\r]*[^ \t\r\n]", re.MULTILINE)


@dataclass(frozen=True)
class BeirFolder:
    """What a BEIR folder holds for one split."""

    qrels: Ragged
    qrels_lines: np.ndarray
    qrels_path: Path
    queries: dict[str, tuple[str, FocusTime | None, int]]  # id -> (text, focus time, line)
    queries_path: Path
    corpus: JsonlCorpus


def read_beir(folder: Path, split: str) -> BeirFolder:
    if not folder.is_dir():
        raise GoldSetError(
            f"{folder}: no such BEIR folder (expected corpus.jsonl, queries.jsonl, qrels/)"
        )
    if not any((folder / name).exists() for name in (*CORPUS_NAMES, QUERIES_NAME, "qrels")):
        raise GoldSetError(
            f"{folder}: a folder is read as a BEIR folder, and this one has no corpus.jsonl, "
            "queries.jsonl or qrels/; give the path of a gold set file, or of a BEIR folder"
        )
    qrels_path = folder / "qrels" / f"{split}.tsv"
    if not qrels_path.is_file():
        found = sorted(path.stem for path in (folder / "qrels").glob("*.tsv"))
        splits = ", ".join(found) or "none: there is no qrels/ folder of .tsv files"
        raise GoldSetError(f"{qrels_path}: no qrels for split {split!r} (splits found: {splits})")
    corpus_path = next((folder / name for name in CORPUS_NAMES if (folder / name).is_file()), None)
    if corpus_path is None:
        raise GoldSetError(f"{folder}: no corpus.jsonl or corpus.jsonl.gz in this BEIR folder")
    queries_path = folder / QUERIES_NAME
    if not queries_path.is_file():
        raise GoldSetError(f"{queries_path}: no such file (a BEIR folder has queries.jsonl)")
    qrels, lines = read_trec_qrels(qrels_path, beir=True)
    queries = _read_queries(queries_path)
    for index, query_id in enumerate(qrels.keys):
        if query_id not in queries:
            line = int(lines[qrels.offsets[index]])
            raise GoldSetError(
                located(
                    qrels_path,
                    line,
                    f"query {query_id!r} is judged here but is not in {queries_path}",
                )
            )
    return BeirFolder(
        qrels, lines, qrels_path, queries, queries_path, JsonlCorpus.open(corpus_path)
    )


def _read_queries(path: Path) -> dict[str, tuple[str, FocusTime | None, int]]:
    queries: dict[str, tuple[str, FocusTime | None, int]] = {}
    with path.open("rb") as file:
        for number, raw in enumerate(file, start=1):
            if not raw.strip():
                continue
            record = _json_object(raw, path, number)
            query_id = _record_id(record, path, number)
            if query_id in queries:
                first = queries[query_id][2]
                raise GoldSetError(
                    located(
                        path, number, f"query {query_id!r} appears twice (first at line {first})"
                    )
                )
            text = record.get("text")
            if not isinstance(text, str):
                raise GoldSetError(
                    located(
                        path, number, f"query {query_id!r}: 'text' must be a string, got {text!r}"
                    )
                )
            focus = metadata_focus_time(record.get("metadata"), record) or FocusTime.from_text(text)
            queries[query_id] = (text, focus or None, number)
    return queries


def _utf8(raw: bytes, path: Path, line: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        byte = raw[error.start : error.start + 1]
        raise GoldSetError(
            located(path, line, f"byte {byte!r} is not valid UTF-8: save the file as UTF-8")
        ) from None


def _json_object(raw: bytes, path: Path, line: int) -> dict[str, Any]:
    text = _utf8(raw, path, line)  # json.loads would guess UTF-16 or UTF-32 from bytes
    try:
        record = json.loads(text)
    except (ValueError, RecursionError) as error:
        shown = getattr(error, "msg", type(error).__name__)
        raise GoldSetError(located(path, line, f"not a valid JSON line ({shown})")) from None
    if not isinstance(record, dict):
        raise GoldSetError(
            located(path, line, f"a JSONL line must be an object, got {type(record).__name__}")
        )
    return record


def _record_id(record: dict[str, Any], path: Path, line: int) -> str:
    if "_id" not in record:
        keys = ", ".join(map(repr, record)) or "none"
        raise GoldSetError(located(path, line, f"the line has no '_id' (keys: {keys})"))
    value = record["_id"]
    problem = id_problem(value)
    if problem is not None:
        raise GoldSetError(located(path, line, f"'_id' {problem}"))
    return str(value)


class JsonlCorpus(LazyDocuments):
    """``corpus.jsonl`` kept as bytes; each document parsed on first access."""

    def __init__(self, path: Path, data: bytes, ids: dict[str, int]) -> None:
        super().__init__(ids)  # doc id -> byte offset of its line
        self.path = path
        self._data = data

    @classmethod
    def open(cls, path: Path) -> JsonlCorpus:
        data = path.read_bytes()
        if path.suffix == ".gz":
            try:
                data = gzip.decompress(data)
            except (OSError, EOFError) as error:
                raise GoldSetError(f"{path}: not a readable gzip file ({error})") from None
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        ids: dict[str, int] = {}
        matched = 0
        for match in _LEADING_ID.finditer(data):
            doc_id = _leading_id(match, path, data)
            _add(ids, doc_id, match.start(), path, data)
            matched += 1
        if matched != _data_lines(data):  # some line did not start as BEIR writes them
            for start in _unmatched_line_starts(data, ids):
                line = data.count(b"\n", 0, start) + 1
                end = data.find(b"\n", start)
                record = _json_object(data[start : end if end >= 0 else len(data)], path, line)
                _add(ids, _record_id(record, path, line), start, path, data)
        if not ids:
            raise GoldSetError(located(path, 1, "the corpus has no documents"))
        return cls(path, data, ids)

    def load(self, doc_id: str, position: int) -> GoldDocument:
        end = self._data.find(b"\n", position)
        line = self._data.count(b"\n", 0, position) + 1
        record = _json_object(
            self._data[position : end if end >= 0 else len(self._data)], self.path, line
        )
        title, text = record.get("title"), record.get("text")
        for name, value in (("title", title), ("text", text)):
            if value is not None and not isinstance(value, str):
                raise GoldSetError(
                    located(self.path, line, f"document {doc_id!r}: {name!r} must be a string")
                )
        body = model_text(title, text)
        focus = metadata_focus_time(record.get("metadata"), record)
        if focus is None and body:
            focus = FocusTime.from_text(body) or None
        return GoldDocument(doc_id, body, focus, line, title or None)

    def digest(self) -> str:
        return hashlib.sha256(self._data).hexdigest()


def _leading_id(match: re.Match[bytes], path: Path, data: bytes) -> str:
    """The id a line starts with; only an escaped one (``\\u00e9``) needs the JSON decoder."""
    raw = match.group(1)
    try:
        text = raw.decode("utf-8")
        return json.loads(f'"{text}"') if "\\" in text else text
    except ValueError:  # bad UTF-8, a bad escape: the line's own problem, found with its number
        line = data.count(b"\n", 0, match.start()) + 1
        end = data.find(b"\n", match.start())
        record = _json_object(data[match.start() : end if end >= 0 else len(data)], path, line)
        return _record_id(record, path, line)


def _add(ids: dict[str, int], doc_id: str, start: int, path: Path, data: bytes) -> None:
    problem = id_problem(doc_id)
    line = None
    if problem is not None or doc_id in ids:
        line = data.count(b"\n", 0, start) + 1
    if problem is not None:
        raise GoldSetError(located(path, line, f"document id {problem}"))
    if doc_id in ids:
        first = data.count(b"\n", 0, ids[doc_id]) + 1
        raise GoldSetError(
            located(path, line, f"document {doc_id!r} appears twice (first at line {first})")
        )
    ids[doc_id] = start


def _data_lines(data: bytes) -> int:
    """How many lines hold something other than blanks."""
    return sum(1 for _ in _NON_BLANK_LINE.finditer(data))


def _unmatched_line_starts(data: bytes, ids: dict[str, int]) -> list[int]:
    """Starts of the non-blank lines no id was read from (rare: the slow path)."""
    known = set(ids.values())
    return [match.start() for match in _NON_BLANK_LINE.finditer(data) if match.start() not in known]
