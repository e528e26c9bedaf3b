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

import hashlib
import json
import re
import zlib
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from pytest_tempoeval.data.columns import Ragged
from pytest_tempoeval.data.corpus import LazyDocuments
from pytest_tempoeval.data.focus_time import FocusTime
from pytest_tempoeval.data.gold_schema import MAX_GOLD_BYTES, GoldDocument, warn_undeclared
from pytest_tempoeval.data.metadata import metadata_focus_time, model_text
from pytest_tempoeval.data.readers.trec import read_trec_qrels
from pytest_tempoeval.data.values import PLAIN_ID, id_problem
from pytest_tempoeval.errors import GoldSetError, located
from pytest_tempoeval.files import regular_file_problem

CORPUS_NAMES = ("corpus.jsonl", "corpus.jsonl.gz")
QUERIES_NAME = "queries.jsonl"
# A line as BEIR writes it (json.dumps): the id first, no escapes in it.
_BEIR_LINE = re.compile(rb'\n\{"_id": "([^"\\\n]*)"')
_BEIR_FIRST_LINE = re.compile(rb'\{"_id": "([^"\\\n]*)"')
_ID_KEY = b'"_id"'  # a second one in a line is a second '_id' key (or a value "_id"): parsed
# A .gz corpus is decompressed up to this many times its size (JSONL compresses 3 to 5 times), or
# MAX_GOLD_BYTES if more: past that it is a decompression bomb or a damaged file.
GZIP_MAX_RATIO = 16
_GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1 << 20


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
        what = "not a folder" if folder.exists() else "no such BEIR folder"
        raise GoldSetError(f"{folder}: {what} (expected corpus.jsonl, queries.jsonl, qrels/)")
    if not any((folder / name).exists() for name in (*CORPUS_NAMES, QUERIES_NAME, "qrels")):
        raise GoldSetError(
            f"{folder}: a folder is read as a BEIR folder, and this one has no corpus.jsonl, "
            "queries.jsonl or qrels/; give the path of a gold set file, or of a BEIR folder"
        )
    qrels_path = folder / "qrels" / f"{split}.tsv"
    if qrels_path.exists() and (problem := regular_file_problem(qrels_path, "qrels file")):
        raise GoldSetError(problem)
    if not qrels_path.is_file():
        found = sorted(path.stem for path in (folder / "qrels").glob("*.tsv"))
        splits = ", ".join(found) or "none: there is no qrels/ folder of .tsv files"
        raise GoldSetError(f"{qrels_path}: no qrels for split {split!r} (splits found: {splits})")
    corpus_path = next((folder / name for name in CORPUS_NAMES if (folder / name).exists()), None)
    if corpus_path is None:
        raise GoldSetError(f"{folder}: no corpus.jsonl or corpus.jsonl.gz in this BEIR folder")
    queries_path = folder / QUERIES_NAME
    for path in (corpus_path, queries_path):
        if problem := regular_file_problem(path, "file"):
            raise GoldSetError(problem)
    qrels, lines = read_trec_qrels(qrels_path, beir=True)
    queries = read_queries(queries_path)
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
    corpus = JsonlCorpus.open(corpus_path)
    groups = qrels.group_of_rows()
    undeclared = [
        (qrels.keys[groups[row]], doc_id, int(lines[row]))
        for row, doc_id in enumerate(qrels.docs_of_all())
        if doc_id not in corpus
    ]
    warn_undeclared(undeclared, corpus, str(qrels_path), f"in {corpus_path.name}")
    return BeirFolder(qrels, lines, qrels_path, queries, queries_path, corpus)


def read_queries(path: Path) -> dict[str, tuple[str, FocusTime | None, int]]:
    """``queries.jsonl``: query id -> (text, focus time, line)."""
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
            focus = metadata_focus_time(
                record.get("metadata"),
                record,
                where=located(path, number, f"query {query_id!r}"),
                error=GoldSetError,
            ) or FocusTime.from_text(text)
            queries[query_id] = (text, focus or None, number)
    return queries


def _utf8(raw: bytes | bytearray, path: Path, line: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        byte = bytes(raw[error.start : error.start + 1])
        raise GoldSetError(
            located(path, line, f"byte {byte!r} is not valid UTF-8: save the file as UTF-8")
        ) from None


def _json_object(raw: bytes | bytearray, path: Path, line: int) -> dict[str, Any]:
    text = _utf8(raw, path, line)  # json.loads would guess UTF-16 or UTF-32 from bytes
    repeated: list[str | None] = []

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        mapping = dict(pairs)
        if len(mapping) != len(pairs):  # json.loads would silently keep the last one
            repeated.append(repeated_key(pairs))
        return mapping

    try:
        record = json.loads(text, object_pairs_hook=unique)
    except (ValueError, RecursionError) as error:
        shown = getattr(error, "msg", type(error).__name__)
        raise GoldSetError(located(path, line, f"not a valid JSON line ({shown})")) from None
    if repeated:
        message = f"key {repeated[0]!r} appears twice in the line: json.loads would keep the last"
        raise GoldSetError(located(path, line, f"{message} one; keep one"))
    if not isinstance(record, dict):
        raise GoldSetError(
            located(path, line, f"a JSONL line must be an object, got {type(record).__name__}")
        )
    return record


def repeated_key(pairs: list[tuple[str, Any]]) -> str | None:
    """The first key that ``pairs`` (a JSON object's, in order) holds twice, or None."""
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            return key
        seen.add(key)
    return None


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

    def __init__(
        self, path: Path, data: bytes | bytearray, ids: dict[str, int], index: _LineIndex
    ) -> None:
        super().__init__(ids)  # doc id -> its position in ``index``
        self.path = path
        self._data = data
        self._index = index

    @classmethod
    def open(cls, path: Path) -> JsonlCorpus:
        data: bytes | bytearray
        if path.suffix == ".gz":
            data = gunzip(path)
            if data.startswith(b"\xef\xbb\xbf"):
                del data[:3]
        else:
            data = path.read_bytes()
            if data.startswith(b"\xef\xbb\xbf"):
                data = data[3:]
        # The fast path: lines as BEIR writes them, found by their literal start (a search that
        # skips ahead, where a pattern of blanks would step through every byte).
        ids: dict[str | None, int] = {}
        starts = array("q")  # 8 bytes a document, where a list of ints takes 36
        first = _BEIR_FIRST_LINE.match(data)
        if first is not None:
            ids[_plain(first.group(1))] = 0
            starts.append(0)
        for match in _BEIR_LINE.finditer(data):
            ids[_plain(match.group(1))] = len(starts)
            starts.append(match.start() + 1)
        lines = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
        one_id_each = data.count(_ID_KEY) == len(starts)  # else a line may name '_id' twice
        if len(ids) == len(starts) == lines and None not in ids and one_id_each:
            return cls(path, data, ids, _LineIndex(starts, dense=True))  # type: ignore[arg-type]
        return cls._open_slowly(path, data)

    @classmethod
    def _open_slowly(cls, path: Path, data: bytes | bytearray) -> JsonlCorpus:
        """Any line: blank ones, keys in another order, escaped ids, and every error."""
        index = _LineIndex.of(data)
        fast = {match.start() + 1: match.group(1) for match in _BEIR_LINE.finditer(data)}
        if first := _BEIR_FIRST_LINE.match(data):
            fast[0] = first.group(1)
        ids: dict[str, int] = {}
        starts: list[int] = []
        for start in index.starts.tolist():
            end = data.find(b"\n", start)
            raw_line = data[start : end if end >= 0 else len(data)]
            if not raw_line.strip():
                continue
            line = index.line_of(start)
            raw = fast.get(start)
            if raw_line.count(_ID_KEY) > 1:
                raw = None  # a second '_id' key, which json.loads would read: parsed, refused
            doc_id = _plain(raw) if raw is not None else None
            if doc_id is None:
                doc_id = _record_id(_json_object(raw_line, path, line), path, line)
            problem = id_problem(doc_id)
            if problem is not None:
                raise GoldSetError(located(path, line, f"document id {problem}"))
            if doc_id in ids:
                first_line = index.line_of(starts[ids[doc_id]])
                message = f"document {doc_id!r} appears twice (first at line {first_line})"
                raise GoldSetError(located(path, line, message))
            ids[doc_id] = len(starts)
            starts.append(start)
        if not ids:
            raise GoldSetError(located(path, 1, "the corpus has no documents"))
        return cls(path, data, ids, _LineIndex(starts, dense=False, all_starts=index.starts))

    def load(self, doc_id: str, position: int) -> GoldDocument:
        start = self._index.start(position)
        end = self._data.find(b"\n", start)
        line = self._index.line(position)
        raw = self._data[start : end if end >= 0 else len(self._data)]
        record = _json_object(raw, self.path, line)
        title, text = record.get("title"), record.get("text")
        for name, value in (("title", title), ("text", text)):
            if value is not None and not isinstance(value, str):
                raise GoldSetError(
                    located(self.path, line, f"document {doc_id!r}: {name!r} must be a string")
                )
        body = model_text(title, text)
        focus = metadata_focus_time(
            record.get("metadata"),
            record,
            where=located(self.path, line, f"document {doc_id!r}"),
            error=GoldSetError,
        )
        if focus is None and body:
            focus = FocusTime.from_text(body) or None
        return GoldDocument(doc_id, body, focus, line, title or None)

    def digest(self) -> str:
        return hashlib.sha256(self._data).hexdigest()


def gunzip(path: Path) -> bytearray:
    """A ``.gz`` file's content, decompressed a piece at a time up to a limit (``gzip.decompress``
    would expand a bomb whole, and then copy it): MAX_GOLD_BYTES, or GZIP_MAX_RATIO times the
    file's size if more. Every way the file can be broken is a GoldSetError naming it."""
    limit = max(MAX_GOLD_BYTES, GZIP_MAX_RATIO * path.stat().st_size)
    with path.open("rb") as file:
        head = file.read(2)
        if head != _GZIP_MAGIC:
            problem = (
                "the file is empty; a corpus.jsonl.gz holds gzip-compressed JSONL lines"
                if not head
                else "not gzip data (a gzip file starts with the bytes 1f 8b); if it is plain "
                "JSONL, name it corpus.jsonl"
            )
            raise GoldSetError(f"{path}: {problem}")
        file.seek(0)
        return _inflate(file, path, limit)


def _inflate(file: BinaryIO, path: Path, limit: int) -> bytearray:
    """Every gzip member of ``file`` (``cat a.gz b.gz`` is a gzip file too), then zero bytes at
    most (padding, which gzip ignores)."""
    out = bytearray()  # grown in place: no second copy of the whole corpus
    inflater = zlib.decompressobj(zlib.MAX_WBITS | 16)  # gzip's header and trailer, checked
    data = b""
    while True:
        at_end = False
        if not data:
            data = file.read(_CHUNK)
            at_end = not data
        try:
            piece = inflater.decompress(data, _CHUNK)
        except zlib.error:
            raise GoldSetError(
                f"{path}: the gzip data is damaged (it does not decompress, or its checksum does "
                "not match); download or compress the corpus again"
            ) from None
        out += piece
        if len(out) > limit:
            raise GoldSetError(
                f"{path}: decompresses to more than {limit >> 20:,} MiB (the limit for a .gz "
                f"corpus: {MAX_GOLD_BYTES >> 20} MiB, or {GZIP_MAX_RATIO} times the file's size "
                "if more): a damaged file or a decompression bomb; if it is a real corpus, "
                "decompress it to corpus.jsonl, which is read without this limit"
            )
        data = inflater.unconsumed_tail
        if inflater.eof:
            following = _next_member(file, inflater.unused_data, path)
            if following is None:
                return out
            data = following
            inflater = zlib.decompressobj(zlib.MAX_WBITS | 16)
        elif at_end and not piece:
            raise GoldSetError(
                f"{path}: the gzip data ends early, after {len(out):,} decompressed bytes: the "
                "file is truncated (an interrupted download or copy?); get it whole again"
            )


def _next_member(file: BinaryIO, rest: bytes, path: Path) -> bytes | None:
    """What follows a gzip member: the start of the next one, or None at the end of the file
    (zero bytes may pad it); anything else is a GoldSetError."""
    while len(rest) < 2 and (more := file.read(_CHUNK)):
        rest += more
    if rest[:2] == _GZIP_MAGIC:
        return rest
    start = file.tell() - len(rest)
    while rest:
        if rest.strip(b"\0"):
            size = path.stat().st_size
            raise GoldSetError(
                f"{path}: {size - start:,} bytes that are not gzip data follow the compressed "
                f"data (from byte {start:,}): the file is damaged or was appended to; download or "
                "compress the corpus again"
            )
        rest = file.read(_CHUNK)
    return None


class _LineIndex:
    """Where each document's line starts, and its line number.

    In a file of document lines only (the usual case), document ``i`` is line ``i + 1``; otherwise
    line numbers come from every line's start, found once."""

    def __init__(
        self, starts: Sequence[int], dense: bool, all_starts: np.ndarray | None = None
    ) -> None:
        self.starts = np.asarray(starts, dtype=np.int64)
        self.dense = dense
        self._all_starts = all_starts

    @classmethod
    def of(cls, data: bytes | bytearray) -> _LineIndex:
        """Every line's start (chunked: no file-sized temporary)."""
        view = np.frombuffer(data, dtype=np.uint8)
        chunk = 1 << 24
        newlines = [
            np.flatnonzero(view[offset : offset + chunk] == 10) + offset
            for offset in range(0, view.size, chunk)
        ]
        ends = np.concatenate(newlines) if newlines else np.zeros(0, dtype=np.int64)
        starts = np.concatenate((np.zeros(1, dtype=np.int64), ends + 1)).astype(np.int64)
        line_starts = starts[starts < max(len(data), 1)]
        index = cls([], dense=False, all_starts=line_starts)
        index.starts = line_starts
        return index

    def start(self, position: int) -> int:
        return int(self.starts[position])

    def line(self, position: int) -> int:
        return position + 1 if self.dense else self.line_of(self.start(position))

    def line_of(self, start: int) -> int:
        assert self._all_starts is not None
        return int(np.searchsorted(self._all_starts, start, side="right"))


def _plain(raw: bytes) -> str | None:
    """An id as the fast path read it; None when it needs the slow path (not UTF-8, escapes,
    blanks or control characters)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text if PLAIN_ID.fullmatch(text) else None
