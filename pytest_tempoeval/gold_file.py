"""Reading gold set files into plain containers that remember their line numbers, then validating them.

YAML and JSON both become :class:`Mapping`/:class:`Sequence` trees (``LineDict``/``LineList``) that
know the line of every key and item, so any error can say ``path:line:``.

YAML is read as a stream of parser events (libyaml's C parser when available), never composed into
a node graph: an alias (``*name``) or an anchor (``&name``) is refused the moment the parser meets
it. Gold sets are data, not templates, so a "billion laughs" file fails in milliseconds and never
expands. Plain scalars keep the text they were written as where YAML 1.1 would silently rewrite an
id (``010`` is the octal number 8, ``1.10`` the float 1.1): ids are the text in the file.

JSON is read by the standard library's pure-Python scanner, wrapped to record where every key and
item starts, so duplicate keys are caught (``json.loads`` silently keeps the last one) and every
problem names its own line.
"""

from __future__ import annotations

import bisect
import json
import json.decoder
import json.scanner
import numbers
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .errors import FocusTimeError, GoldSetError, located
from .focus_time import FocusTime
from .goldset import (
    _DOCUMENT_KEYS,
    _QUERY_KEYS,
    _TOP_KEYS,
    GoldDocument,
    GoldQuery,
    GoldSet,
    did_you_mean,
)


class LineDict(dict):
    """A mapping that knows its own line and the line of each key."""

    line: int | None = None
    key_lines: dict[Any, int | None]


class LineList(list):
    """A sequence that knows its own line and the line of each item."""

    line: int | None = None
    item_lines: list[int | None]


class SourceInt(int):
    """A YAML integer that remembers how it was written (``010``, ``0x1F``, ``1_000``)."""

    source: str


class SourceProblem(Exception):
    """A problem found while reading a file, at ``line``; callers turn it into their own error."""

    def __init__(self, line: int | None, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


def read_tree(path: Path) -> Any:
    text = read_text(path, GoldSetError)
    try:
        tree = json_tree(text) if path.suffix.lower() == ".json" else yaml_tree(text)
    except SourceProblem as problem:
        raise GoldSetError(located(path, problem.line, problem.message)) from None
    if not isinstance(tree, LineDict):
        hint = ""
        if isinstance(tree, str):
            hint = " (for a TREC qrels file use GoldSet.from_trec_qrels)"
        raise GoldSetError(
            located(
                path,
                getattr(tree, "line", None) or 1,
                "a gold set is a mapping with 'version: 1' and 'queries:', "
                f"got {_shown(tree)}{hint}",
            )
        )
    return tree


def read_text(path: Path, error: type[Exception]) -> str:
    """The file as text. A UTF-8 byte-order mark is dropped; other non-UTF-8 bytes are errors."""
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as problem:
        line = data[: problem.start].count(b"\n") + 1
        byte = data[problem.start : problem.start + 1]
        raise error(
            located(path, line, f"byte {byte!r} is not valid UTF-8: save the file as UTF-8")
        ) from None
    # The same line breaks as Path.read_text (universal newlines), so lines match the editor's.
    return text.replace("\r\n", "\n").replace("\r", "\n")


# -- YAML -------------------------------------------------------------------------------------------

_EMPTY = "the file is empty; a gold set needs 'version: 1' and 'queries:'"
MAX_DEPTH = 100  # a gold set nests 5 levels; far deeper is a broken or hostile file
_MERGE_TAG = "tag:yaml.org,2002:merge"
_PLAIN_COLLECTION_TAGS = (None, "!", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map")


def yaml_tree(text: str) -> Any:
    """The single YAML document in ``text`` as a LineDict/LineList tree. Raises SourceProblem."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    try:
        return _YamlBuilder(loader, yaml).document()
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark else None
        problem = error.problem or error.context or str(error)
        raise SourceProblem(line, f"malformed YAML: {problem}") from None
    except yaml.reader.ReaderError as error:
        # Positions differ between the C reader (bytes) and the Python one (characters); the
        # reader stops at the first unacceptable character, so its first occurrence is the place.
        position = text.find(chr(error.character)) if isinstance(error.character, int) else -1
        line = text.count("\n", 0, position) + 1 if position >= 0 else None
        raise SourceProblem(
            line,
            f"malformed YAML: character {chr(error.character)!r} (U+{error.character:04X}) is not "
            "allowed in YAML text; remove it or write it as an escape in a double-quoted string",
        ) from None
    except yaml.YAMLError as error:
        raise SourceProblem(None, f"malformed YAML: {error}") from None
    except RecursionError:
        raise SourceProblem(None, "YAML nested too deeply to be a gold set") from None
    finally:
        loader.dispose()


class _YamlBuilder:
    """Builds the tree from parser events, refusing anchors, aliases, merge keys and custom tags."""

    def __init__(self, loader: Any, yaml: Any) -> None:
        self.loader = loader
        self.yaml = yaml
        self.depth = 0

    def document(self) -> Any:
        loader, yaml = self.loader, self.yaml
        loader.get_event()  # StreamStartEvent
        if loader.check_event(yaml.StreamEndEvent):
            raise SourceProblem(1, _EMPTY)
        loader.get_event()  # DocumentStartEvent
        root = self.node()
        loader.get_event()  # DocumentEndEvent
        if not loader.check_event(yaml.StreamEndEvent):
            second = loader.get_event()
            raise SourceProblem(
                second.start_mark.line + 1,
                "a second YAML document starts here; a gold set file holds exactly one document "
                "(remove the '---' separator or split the file)",
            )
        if root is None:
            raise SourceProblem(1, _EMPTY)
        return root

    def node(self) -> Any:
        yaml = self.yaml
        event = self.loader.get_event()
        line = event.start_mark.line + 1
        if isinstance(event, yaml.AliasEvent):
            raise SourceProblem(
                line,
                f"YAML alias *{event.anchor} is not allowed in a gold set: anchors and aliases "
                "are refused (they make 'billion laughs' files possible); write the value out",
            )
        if event.anchor is not None:
            raise SourceProblem(
                line,
                f"YAML anchor &{event.anchor} is not allowed in a gold set: anchors and aliases "
                "are refused (they make 'billion laughs' files possible); remove it",
            )
        if isinstance(event, yaml.ScalarEvent):
            return self.scalar(event, line)
        if event.tag not in _PLAIN_COLLECTION_TAGS:
            raise SourceProblem(
                line, f"YAML tag {event.tag!r} is not allowed in a gold set; remove the tag"
            )
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise SourceProblem(line, f"nested more than {MAX_DEPTH} levels deep: not a gold set")
        if isinstance(event, yaml.SequenceStartEvent):
            collection: Any = self.sequence(line)
        else:
            collection = self.mapping(line)
        self.depth -= 1
        return collection

    def scalar(self, event: Any, line: int) -> Any:
        loader, yaml = self.loader, self.yaml
        tag = event.tag
        if tag is None or tag == "!":
            tag = loader.resolve(yaml.ScalarNode, event.value, event.implicit)
        if tag == _MERGE_TAG:
            raise SourceProblem(
                line, "YAML merge keys ('<<') are not allowed in a gold set; write the values out"
            )
        node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
        try:
            value = loader.construct_object(node)
        except (
            yaml.YAMLError,
            ValueError,
            OverflowError,
        ) as error:  # 2020-13-45, !!int x, 4,301 digits
            problem = getattr(error, "problem", None) or str(error)
            value = (
                event.value
                if len(event.value) <= 40
                else f"{event.value[:20]}...({len(event.value)} characters)"
            )
            raise SourceProblem(line, f"bad YAML value {value!r}: {problem}") from None
        finally:
            loader.constructed_objects.pop(node, None)
        if type(value) is int:
            value = SourceInt(value)
            value.source = event.value
        return value

    def sequence(self, line: int) -> LineList:
        loader, yaml = self.loader, self.yaml
        out = LineList()
        out.line, out.item_lines = line, []
        while not loader.check_event(yaml.SequenceEndEvent):
            out.item_lines.append(loader.peek_event().start_mark.line + 1)
            out.append(self.node())
        loader.get_event()
        return out

    def mapping(self, line: int) -> LineDict:
        loader, yaml = self.loader, self.yaml
        out = LineDict()
        out.line, out.key_lines = line, {}
        while not loader.check_event(yaml.MappingEndEvent):
            key_event = loader.peek_event()
            key_line = key_event.start_mark.line + 1
            key = self.node()
            if isinstance(key, (dict, list)) or key is None:
                raise SourceProblem(
                    key_line, f"a mapping key must be a plain value such as an id, got {key!r}"
                )
            if isinstance(key, bool):
                raise SourceProblem(
                    key_line,
                    f"key {key_event.value!r} is read by YAML as the boolean {key}; "
                    f'quote it ("{key_event.value}") to use it as a name or id',
                )
            if not isinstance(key, str):
                key = key_event.value  # 010, 1.10, 2020-01-01: the key as written
            if key in out:
                raise SourceProblem(
                    key_line, f"duplicate key {key!r} (first at line {out.key_lines[key]})"
                )
            out[key] = self.node()
            out.key_lines[key] = key_line
        loader.get_event()
        return out


# -- JSON -------------------------------------------------------------------------------------------


class _Constant:
    """NaN, Infinity or -Infinity in the file: not JSON, refused with its line."""

    def __init__(self, name: str) -> None:
        self.name = name


def json_tree(text: str) -> Any:
    """The JSON document in ``text`` as a LineDict/LineList tree. Raises SourceProblem."""
    if not text.strip():
        raise SourceProblem(1, "the file is empty; expected a JSON object")
    newlines = [match.start() for match in re.finditer("\n", text)]

    def line_at(offset: int) -> int:
        return bisect.bisect_left(newlines, offset) + 1

    def recording(scan_once: Callable[[str, int], Any], starts: list[int]) -> Callable[..., Any]:
        def scan(s: str, index: int) -> Any:
            value, end = scan_once(s, index)
            if isinstance(value, _Constant):
                raise SourceProblem(
                    line_at(index), f"{value.name} is not valid JSON; use a number or null"
                )
            starts.append(index)
            return value, end

        return scan

    def key_line(value_start: int) -> int:
        """Line of the key before a value: skip blanks back to ':', then blanks to the key's '"'."""
        position = value_start - 1
        while text[position] in " \t\n\r":
            position -= 1
        position -= 1  # the ':'
        while text[position] in " \t\n\r":
            position -= 1
        return line_at(position)

    depth = [0]

    def enter(start: int) -> None:
        depth[0] += 1
        if depth[0] > MAX_DEPTH:
            raise SourceProblem(line_at(start - 1), f"nested more than {MAX_DEPTH} levels deep")

    def parse_object(s_and_end: tuple[str, int], strict: bool, scan_once: Any, *rest: Any) -> Any:
        _, start = s_and_end
        enter(start)
        starts: list[int] = []
        memo = rest[2] if len(rest) > 2 and rest[2] is not None else {}
        pairs, end = json.decoder.JSONObject(
            s_and_end, strict, recording(scan_once, starts), None, list, memo
        )
        mapping = LineDict()
        mapping.line, mapping.key_lines = line_at(start - 1), {}
        for (key, value), value_start in zip(pairs, starts):
            line = key_line(value_start)
            if key in mapping:
                raise SourceProblem(
                    line, f"duplicate key {key!r} (first at line {mapping.key_lines[key]})"
                )
            mapping[key] = value
            mapping.key_lines[key] = line
        depth[0] -= 1
        return mapping, end

    def parse_array(s_and_end: tuple[str, int], scan_once: Any) -> Any:
        _, start = s_and_end
        enter(start)
        starts: list[int] = []
        items, end = json.decoder.JSONArray(s_and_end, recording(scan_once, starts))
        out = LineList(items)
        out.line = line_at(start - 1)
        out.item_lines = [line_at(index) for index in starts]
        depth[0] -= 1
        return out, end

    decoder = json.JSONDecoder(parse_constant=_Constant)
    decoder.parse_object = parse_object  # type: ignore[assignment]
    decoder.parse_array = parse_array  # type: ignore[assignment]
    decoder.scan_once = json.scanner.py_make_scanner(decoder)
    try:
        value = decoder.decode(text)
    except json.JSONDecodeError as error:
        raise SourceProblem(error.lineno, f"invalid JSON: {error.msg}") from None
    except ValueError as error:  # an integer of more than 4,300 digits (Python's conversion limit)
        raise SourceProblem(None, f"invalid JSON: {error}") from None
    except RecursionError:
        raise SourceProblem(None, "JSON nested too deeply") from None
    if isinstance(value, _Constant):
        raise SourceProblem(1, f"{value.name} is not valid JSON; use a number or null")
    return value


def tree_from_python(data: Any) -> Any:
    """Wrap plain Python data so validation can treat it like a file (lines unknown)."""
    if isinstance(data, Mapping):
        out = LineDict((key, tree_from_python(value)) for key, value in data.items())
        out.key_lines = {key: None for key in out}
        return out
    if isinstance(data, (list, tuple)):
        items = LineList(tree_from_python(item) for item in data)
        items.item_lines = [None] * len(items)
        return items
    return data


# -- validation -------------------------------------------------------------------------------------


def build_gold_set(cls: type[GoldSet], tree: Any, path: str) -> GoldSet:
    if not isinstance(tree, LineDict):
        raise GoldSetError(
            located(
                path,
                getattr(tree, "line", None),
                f"a gold set is a mapping with 'version: 1' and 'queries:', got {_shown(tree)}",
            )
        )
    _check_keys(tree, _TOP_KEYS, path, "the gold set")
    version = tree.get("version", 1)
    if version != 1 or not isinstance(version, int) or isinstance(version, bool):
        raise GoldSetError(
            located(
                path,
                tree.key_lines.get("version"),
                f"unsupported version {_shown(version)}; this plugin reads 'version: 1'",
            )
        )
    name = tree.get("name")
    if name is not None and not isinstance(name, str):
        raise GoldSetError(
            located(
                path,
                tree.key_lines.get("name"),
                f"name must be a string, got {_shown(name)}; quote it",
            )
        )
    k = tree.get("k")
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k <= 0):
        raise GoldSetError(
            located(
                path,
                tree.key_lines.get("k"),
                f"k must be a positive integer (the default rank cutoff), got {_shown(k)}",
            )
        )
    documents = _documents(tree.get("documents"), tree.key_lines.get("documents"), path)
    queries = _queries(tree.get("queries"), tree.key_lines.get("queries", tree.line), path)
    return cls(queries, documents, name=name, k=None if k is None else int(k), path=path)


def _shown(value: Any) -> str:
    """A value as the user wrote it: YAML integers keep their spelling."""
    if isinstance(value, SourceInt):
        return value.source
    return repr(value)


def _check_keys(mapping: LineDict, allowed: tuple[str, ...], path: str, owner: str) -> None:
    for key in mapping:
        if key not in allowed:
            raise GoldSetError(
                located(
                    path, mapping.key_lines.get(key), f"{owner}: {did_you_mean(str(key), allowed)}"
                )
            )


def _identifier(value: Any, path: str, line: int | None, what: str) -> str:
    if value is None:
        raise GoldSetError(located(path, line, f"{what} is missing: the value is empty"))
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        hint = "; quote it" if isinstance(value, (bool, float)) else ""
        raise GoldSetError(
            located(path, line, f"{what} must be a string, got {_shown(value)}{hint}")
        )
    text = value.source if isinstance(value, SourceInt) else str(value)
    if not text.strip() or text != text.strip():
        raise GoldSetError(
            located(path, line, f"{what} {text!r} is empty or has surrounding whitespace")
        )
    if any(ord(char) < 32 or ord(char) == 127 for char in text):
        raise GoldSetError(located(path, line, f"{what} {text!r} contains a control character"))
    return text


def _optional_text(value: Any, path: str, line: int | None, what: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise GoldSetError(
            located(path, line, f"{what} must be a string, got {_shown(value)}; quote it")
        )
    return value


def _documents(section: Any, line: int | None, path: str) -> list[GoldDocument]:
    if section is None:
        return []
    if not isinstance(section, LineDict):
        raise GoldSetError(located(path, line, "'documents' must map doc id -> {text, focus_time}"))
    documents = []
    for raw_id, body in section.items():
        doc_line = section.key_lines.get(raw_id)
        doc_id = _identifier(raw_id, path, doc_line, "document id")
        if body is None:  # "d1:" with nothing under it: a document known only by its id
            body = LineDict()
            body.key_lines = {}
        if not isinstance(body, LineDict):
            raise GoldSetError(
                located(
                    path,
                    doc_line,
                    f"document {doc_id!r} must be a mapping with 'text' and/or 'focus_time', "
                    f"got {_shown(body)}",
                )
            )
        owner = f"document {doc_id!r}"
        _check_keys(body, _DOCUMENT_KEYS, path, owner)
        text = _optional_text(
            body.get("text"), path, body.key_lines.get("text", doc_line), f"{owner} text"
        )
        focus_time = _focus_time(body, text, path, doc_line, owner)
        documents.append(GoldDocument(doc_id, text, focus_time, doc_line))
    return documents


def _focus_time(
    body: LineDict, text: str | None, path: str, line: int | None, owner: str
) -> FocusTime | None:
    value = body.get("focus_time")
    if value is None:
        return FocusTime.from_text(text) if text is not None else None
    value_line = body.key_lines.get("focus_time") or line
    if isinstance(value, LineList):
        # FocusTime.parse reads a list as the union of its items: parse them one by one so an
        # error names the offending item's own line.
        years: set[int] = set()
        for item, item_line in zip(value, value.item_lines):
            years |= _parse_item(item, path, item_line or value_line, owner).years
        return FocusTime(years)
    return _parse_item(value, path, value_line, owner)


def _parse_item(value: Any, path: str, line: int | None, owner: str) -> FocusTime:
    try:
        return FocusTime.parse(value)
    except FocusTimeError as error:
        raise GoldSetError(
            located(path, line, f"{owner}: bad focus_time {_shown(value)}: {error}")
        ) from None


def _queries(section: Any, line: int | None, path: str) -> list[GoldQuery]:
    if section is None:
        raise GoldSetError(
            located(path, line, "the gold set has no queries; add a 'queries:' list")
        )
    if not isinstance(section, LineList):
        raise GoldSetError(
            located(path, line, "'queries' must be a list of {id, text, focus_time, relevant}")
        )
    if not section:
        raise GoldSetError(located(path, line, "the gold set has no queries; 'queries:' is empty"))
    queries: list[GoldQuery] = []
    id_lines: dict[str, int | None] = {}
    for item, item_line in zip(section, section.item_lines):
        query, id_line = _query(item, item_line or line, path)
        if query.id in id_lines:
            first = id_lines[query.id]
            raise GoldSetError(
                located(
                    path,
                    id_line,
                    f"duplicate query id {query.id!r}"
                    + (f" (first at line {first})" if first is not None else "")
                    + "; every query needs its own id",
                )
            )
        id_lines[query.id] = id_line
        queries.append(query)
    return queries


def _query(item: Any, line: int | None, path: str) -> tuple[GoldQuery, int | None]:
    if not isinstance(item, LineDict):
        raise GoldSetError(
            located(path, line, f"a query must be a mapping with at least 'id', got {_shown(item)}")
        )
    if "id" not in item:
        _check_keys(item, _QUERY_KEYS, path, "a query")
        raise GoldSetError(located(path, line, "a query has no 'id'; add 'id: <query id>'"))
    id_line = item.key_lines.get("id") or line
    query_id = _identifier(item["id"], path, id_line, "query id")
    owner = f"query {query_id!r}"
    _check_keys(item, _QUERY_KEYS, path, owner)
    text = _optional_text(
        item.get("text"), path, item.key_lines.get("text") or line, f"{owner} text"
    )
    focus = _optional_text(
        item.get("temporal_focus"),
        path,
        item.key_lines.get("temporal_focus") or line,
        f"{owner} temporal_focus",
    )
    relevant = _relevant(item.get("relevant"), item.key_lines.get("relevant") or line, path, owner)
    query = GoldQuery(
        query_id, text, _focus_time(item, text, path, line, owner), focus, relevant, line
    )
    return query, id_line


def _relevant(section: Any, line: int | None, path: str, owner: str) -> dict[str, int]:
    if section is None:
        return {}
    grades: dict[str, int] = {}
    first_lines: dict[str, int | None] = {}
    if isinstance(section, LineList):
        for doc, doc_line in zip(section, section.item_lines):
            doc_line = doc_line or line
            doc_id = _identifier(doc, path, doc_line, f"{owner}: relevant doc id")
            if doc_id in grades:
                first = first_lines[doc_id]
                raise GoldSetError(
                    located(
                        path,
                        doc_line,
                        f"{owner}: doc {doc_id!r} is listed twice under 'relevant'"
                        + (f" (first at line {first})" if first is not None else ""),
                    )
                )
            grades[doc_id] = 1
            first_lines[doc_id] = doc_line
        return grades
    if isinstance(section, LineDict):
        for raw_doc, grade in section.items():
            doc_line = section.key_lines.get(raw_doc) or line
            doc_id = _identifier(raw_doc, path, doc_line, f"{owner}: relevant doc id")
            if doc_id in grades:  # only from_dict can get here: 1 and "1" are both "1"
                raise GoldSetError(
                    located(path, doc_line, f"{owner}: doc {doc_id!r} is judged twice")
                )
            if isinstance(grade, bool) or not isinstance(grade, numbers.Integral) or grade < 0:
                raise GoldSetError(
                    located(
                        path,
                        doc_line,
                        f"{owner}: grade {_shown(grade)} of doc {doc_id!r} is not a non-negative "
                        "integer; use 0 (judged non-relevant), 1, 2, ...",
                    )
                )
            grades[doc_id] = int(grade)
        return grades
    raise GoldSetError(
        located(
            path,
            line,
            f"{owner}: 'relevant' must map doc id -> grade, or list doc ids (grade 1), "
            f"got {_shown(section)}",
        )
    )
