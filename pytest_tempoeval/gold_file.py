"""Reading gold set files into plain containers that remember their line numbers, then validating them.

YAML and JSON both become :class:`Mapping`/:class:`Sequence` trees (``LineDict``/``LineList``) that
know the line of every key and item, so any error can say ``path:line:``.

YAML safety: PyYAML resolves an alias (``*name``) to the very node it names, so a "billion laughs"
file is small when composed and explodes only when expanded. Gold sets are data, not templates, so
aliases are refused at the first repeated node: loading fails in milliseconds, never hangs.
"""

from __future__ import annotations

import bisect
import json
import json.decoder
import json.scanner
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .errors import GoldSetError, located
from .focus_time import FocusTime
from .goldset import (
    _DOCUMENT_KEYS,
    _QUERY_KEYS,
    _TOP_KEYS,
    GoldDocument,
    GoldQuery,
    GoldSet,
    did_you_mean,
    parse_focus_time,
)


class LineDict(dict):
    """A mapping that knows its own line and the line of each key."""

    line: int | None = None
    key_lines: dict[str, int | None]


class LineList(list):
    """A sequence that knows its own line and the line of each item."""

    line: int | None = None
    item_lines: list[int | None]


def read_tree(path: Path) -> Any:
    text = _read_text(path)
    if path.suffix.lower() == ".json":
        return _json_tree(text, path)
    return _yaml_tree(text, path)


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        line = path.read_bytes()[: error.start].count(b"\n") + 1
        raise GoldSetError(located(path, line, "not valid UTF-8 text")) from None


# -- YAML -------------------------------------------------------------------------------------------


def _yaml_tree(text: str, path: Path) -> Any:
    import yaml

    loader_class = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        root = yaml.compose(text, Loader=loader_class)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark else None
        raise GoldSetError(located(path, line, f"malformed YAML: {error.problem or error}")) from None
    except yaml.YAMLError as error:
        raise GoldSetError(located(path, None, f"malformed YAML: {error}")) from None
    if root is None:
        raise GoldSetError(located(path, 1, "the file is empty; a gold set needs 'version: 1' and 'queries:'"))
    return _convert_yaml(root, path, yaml, set(), yaml.constructor.SafeConstructor())


def _convert_yaml(node: Any, path: Path, yaml: Any, seen: set[int], constructor: Any) -> Any:
    if id(node) in seen:
        raise GoldSetError(
            located(path, node.start_mark.line + 1, "YAML anchors and aliases (&name / *name) are not allowed in gold sets; write the value out")
        )
    line = node.start_mark.line + 1
    if isinstance(node, yaml.ScalarNode):
        try:
            return constructor.construct_object(node)
        except yaml.YAMLError as error:
            raise GoldSetError(located(path, line, f"bad YAML value {node.value!r}: {error}")) from None
    seen.add(id(node))
    if isinstance(node, yaml.SequenceNode):
        out = LineList(_convert_yaml(item, path, yaml, seen, constructor) for item in node.value)
        out.line, out.item_lines = line, [item.start_mark.line + 1 for item in node.value]
        return out
    mapping = LineDict()
    mapping.line, mapping.key_lines = line, {}
    for key_node, value_node in node.value:
        key = _convert_yaml(key_node, path, yaml, seen, constructor)
        key_line = key_node.start_mark.line + 1
        if isinstance(key, (dict, list)) or key is None:
            raise GoldSetError(located(path, key_line, f"a mapping key must be a plain value, got {key!r}"))
        key = str(key) if not isinstance(key, bool) else key
        if key in mapping:
            raise GoldSetError(located(path, key_line, f"duplicate key {key!r} (first at line {mapping.key_lines[key]})"))
        mapping[key] = _convert_yaml(value_node, path, yaml, seen, constructor)
        mapping.key_lines[key] = key_line
    return mapping


# -- JSON -------------------------------------------------------------------------------------------


def _json_tree(text: str, path: Path) -> Any:
    newlines = [index for index, char in enumerate(text) if char == "\n"]

    def line_at(offset: int) -> int:
        return bisect.bisect_right(newlines, offset) + 1

    class LineDecoder(json.JSONDecoder):
        """The pure-Python scanner, with object/array parsing wrapped to record positions."""

        def __init__(self) -> None:
            super().__init__(parse_constant=_reject_constant)
            self.parse_object = self._object
            self.parse_array = self._array
            self.scan_once = json.scanner.py_make_scanner(self)

        def _object(self, s_and_end: tuple[str, int], strict: bool, scan_once: Any, hook: Any, pairs_hook: Any, memo: Any = None) -> tuple[Any, int]:
            _, start = s_and_end
            pairs, end = json.decoder.JSONObject(s_and_end, strict, scan_once, hook, list, memo if memo is not None else {})
            mapping = LineDict()
            mapping.line, mapping.key_lines = line_at(start), {}
            for key, value in pairs:
                if key in mapping:
                    raise GoldSetError(located(path, line_at(start), f"duplicate key {key!r} in this object"))
                mapping[key] = value
                mapping.key_lines[key] = _child_line(value, mapping.line)
            return mapping, end

        def _array(self, s_and_end: tuple[str, int], scan_once: Any) -> tuple[Any, int]:
            _, start = s_and_end
            items, end = json.decoder.JSONArray(s_and_end, scan_once)
            out = LineList(items)
            out.line = line_at(start)
            out.item_lines = [_child_line(item, out.line) for item in items]
            return out, end

    try:
        return LineDecoder().decode(text)
    except json.JSONDecodeError as error:
        raise GoldSetError(located(path, error.lineno, f"invalid JSON: {error.msg}")) from None
    except ValueError as error:
        raise GoldSetError(located(path, None, str(error))) from None
    except RecursionError:
        raise GoldSetError(located(path, None, "JSON nested too deeply to be a gold set")) from None


def _child_line(value: Any, fallback: int | None) -> int | None:
    return getattr(value, "line", None) or fallback


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid in a gold set")


def tree_from_python(data: Any) -> Any:
    """Wrap plain Python data so validation can treat it like a file (lines unknown)."""
    if isinstance(data, Mapping):
        out = LineDict((key if isinstance(key, str) else key, tree_from_python(value)) for key, value in data.items())
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
        raise GoldSetError(located(path, getattr(tree, "line", 1), "a gold set is a mapping with 'version' and 'queries'"))
    _check_keys(tree, _TOP_KEYS, path)
    version = tree.get("version", 1)
    if version != 1 or isinstance(version, bool):
        raise GoldSetError(located(path, tree.key_lines.get("version"), f"unsupported version {version!r}; this plugin reads version 1"))
    name = tree.get("name")
    if name is not None and not isinstance(name, str):
        raise GoldSetError(located(path, tree.key_lines.get("name"), f"name must be a string, got {name!r}"))
    k = tree.get("k")
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k <= 0):
        raise GoldSetError(located(path, tree.key_lines.get("k"), f"k must be a positive integer, got {k!r}"))
    documents = _documents(tree.get("documents"), tree.key_lines.get("documents"), path)
    queries = _queries(tree.get("queries"), tree.key_lines.get("queries", tree.line), path)
    return cls(queries, documents, name=name, k=k, path=path)


def _check_keys(mapping: LineDict, allowed: tuple[str, ...], path: str) -> None:
    for key in mapping:
        if key not in allowed:
            raise GoldSetError(located(path, mapping.key_lines.get(key), did_you_mean(str(key), allowed)))


def _identifier(value: Any, path: str, line: int | None, what: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise GoldSetError(located(path, line, f"{what} must be a string, got {value!r}"))
    text = str(value)
    if not text.strip() or text != text.strip() or "\x00" in text:
        raise GoldSetError(located(path, line, f"{what} {value!r} is empty or has surrounding whitespace"))
    return text


def _optional_text(value: Any, path: str, line: int | None, what: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise GoldSetError(located(path, line, f"{what} must be a string, got {value!r}"))
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
        body = body if body is not None else LineDict()
        if not isinstance(body, LineDict):
            raise GoldSetError(located(path, doc_line, f"document {doc_id!r} must be a mapping with 'text' and/or 'focus_time'"))
        _check_keys(body, _DOCUMENT_KEYS, path)
        text = _optional_text(body.get("text"), path, body.key_lines.get("text", doc_line), f"document {doc_id!r} text")
        focus_time = _focus_time(body, text, path, doc_line, f"document {doc_id!r}")
        documents.append(GoldDocument(doc_id, text, focus_time, doc_line))
    return documents


def _focus_time(body: LineDict, text: str | None, path: str, line: int | None, owner: str) -> FocusTime | None:
    if "focus_time" in body and body["focus_time"] is not None:
        return parse_focus_time(body["focus_time"], path, body.key_lines.get("focus_time", line), owner)
    return FocusTime.from_text(text) if text is not None else None


def _queries(section: Any, line: int | None, path: str) -> list[GoldQuery]:
    if section is None:
        raise GoldSetError(located(path, line, "the gold set has no queries; add a 'queries:' list"))
    if not isinstance(section, LineList):
        raise GoldSetError(located(path, line, "'queries' must be a list of {id, text, focus_time, relevant}"))
    if not section:
        raise GoldSetError(located(path, line, "the gold set has no queries; 'queries:' is empty"))
    return [_query(item, item_line, path) for item, item_line in zip(section, section.item_lines)]


def _query(item: Any, line: int | None, path: str) -> GoldQuery:
    if not isinstance(item, LineDict):
        raise GoldSetError(located(path, line, f"a query must be a mapping with at least 'id', got {item!r}"))
    _check_keys(item, _QUERY_KEYS, path)
    if "id" not in item:
        raise GoldSetError(located(path, line, "a query has no 'id'"))
    query_id = _identifier(item["id"], path, item.key_lines.get("id", line), "query id")
    owner = f"query {query_id!r}"
    text = _optional_text(item.get("text"), path, item.key_lines.get("text", line), f"{owner} text")
    focus = _optional_text(item.get("temporal_focus"), path, item.key_lines.get("temporal_focus", line), f"{owner} temporal_focus")
    relevant = _relevant(item.get("relevant"), item.key_lines.get("relevant", line), path, owner)
    return GoldQuery(query_id, text, _focus_time(item, text, path, line, owner), focus, relevant, line)


def _relevant(section: Any, line: int | None, path: str, owner: str) -> dict[str, int]:
    if section is None:
        return {}
    if isinstance(section, LineList):
        grades: dict[str, int] = {}
        for doc, doc_line in zip(section, section.item_lines):
            doc_id = _identifier(doc, path, doc_line or line, f"{owner}: relevant doc id")
            if doc_id in grades:
                raise GoldSetError(located(path, doc_line or line, f"{owner}: doc {doc_id!r} is listed twice under 'relevant'"))
            grades[doc_id] = 1
        return grades
    if isinstance(section, LineDict):
        grades = {}
        for raw_doc, grade in section.items():
            doc_line = section.key_lines.get(raw_doc) or line
            doc_id = _identifier(raw_doc, path, doc_line, f"{owner}: relevant doc id")
            if isinstance(grade, bool) or not isinstance(grade, int) or grade < 0:
                raise GoldSetError(
                    located(path, doc_line, f"{owner}: grade {grade!r} of doc {doc_id!r} is not a non-negative integer")
                )
            grades[doc_id] = grade
        return grades
    raise GoldSetError(located(path, line, f"{owner}: 'relevant' must map doc id -> grade, or list doc ids (grade 1)"))
