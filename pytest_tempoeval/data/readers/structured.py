"""YAML and JSON read into trees that remember line numbers, so every error says ``path:line:``.

Both become :class:`Mapping`/:class:`Sequence` trees (``LineDict``/``LineList``) that know the line
of every key and item. Validating what a tree holds is the caller's business (gold sets:
:mod:`pytest_tempoeval.data.gold_schema`; JSON runs: :mod:`pytest_tempoeval.data.run`).

YAML is read as a stream of parser events (libyaml's C parser when available), never composed into
a node graph: an alias (``*name``) or an anchor (``&name``) is refused the moment the parser meets
it. Inputs are data, not templates, so a "billion laughs" file fails in milliseconds and never
expands. Plain scalars keep the text they were written as where YAML 1.1 would silently rewrite an
id (``010`` is the octal number 8, ``1.10`` the float 1.1): ids are the text in the file.

JSON is read by the standard library's pure-Python scanner, wrapped to record where every key and
item starts, so duplicate keys are caught (``json.loads`` silently keeps the last one) and every
problem names its own line.

One module on purpose, though longer than most: YAML and JSON become the same line-remembering
trees; the tree types, both readers and the strict JSON rules belong together.
"""

from __future__ import annotations

import bisect
import json
import json.decoder
import json.scanner
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from pytest_tempoeval.errors import located
from pytest_tempoeval.files import regular_file_problem


class LineDict(dict[Any, Any]):
    """A mapping that knows its own line and the line of each key."""

    line: int | None = None
    key_lines: dict[Any, int | None]


class LineList(list[Any]):
    """A sequence that knows its own line and the line of each item."""

    line: int | None = None
    item_lines: list[int | None]


class SourceInt(int):
    """A YAML integer that remembers how it was written (``010``, ``0x1F``, ``1_000``)."""

    source: str


SHOWN_CHARACTERS = 80  # an error quotes this much of a value: a whole file would bury the message


def shown(value: object) -> str:
    """A value as the user wrote it (YAML integers keep their spelling), cut to a line's length:
    a file that is not a gold set reads as one long value, and an error must not paste it."""
    text = value.source if isinstance(value, SourceInt) else repr(value)
    if len(text) <= SHOWN_CHARACTERS:
        return text
    return f"{text[: SHOWN_CHARACTERS - 3]}... ({len(text):,} characters)"


def version_problem(tree: LineDict, path: object) -> str | None:
    """The error for a file whose ``version`` is not 1 (absent means 1), located at its line; the
    gold set and the gold patch both state their format's version this way."""
    version = tree.get("version", 1)
    if version == 1 and isinstance(version, int) and not isinstance(version, bool):
        return None
    message = f"unsupported version {shown(version)}; this plugin reads 'version: 1'"
    return located(path, tree.key_lines.get("version"), message)


@dataclass(frozen=True)
class Source:
    """Where a text comes from, and the error its problems raise (GoldSetError, RunError, ...)."""

    path: object
    error: type[Exception]

    def problem(self, line: int | None, message: str) -> Exception:
        return self.error(located(self.path, line, message))


def read_text(path: Path, error: type[Exception], what: str) -> str:
    """The file as text. A UTF-8 byte-order mark is dropped; other non-UTF-8 bytes are errors.
    ``what`` names the file in the error when it is missing or not a regular file."""
    if problem := regular_file_problem(path, what):
        raise error(problem)
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as bad:
        line = data[: bad.start].count(b"\n") + 1
        byte = data[bad.start : bad.start + 1]
        raise error(
            located(path, line, f"byte {byte!r} is not valid UTF-8: save the file as UTF-8")
        ) from None
    # The same line breaks as Path.read_text (universal newlines), so lines match the editor's.
    return text.replace("\r\n", "\n").replace("\r", "\n")


# -- YAML ------------------------------------------------------------------------------------------

_EMPTY = "the file is empty; a gold set needs 'version: 1' and 'queries:'"
MAX_DEPTH = 100  # a gold set nests 5 levels; far deeper is a broken or hostile file
_MERGE_TAG = "tag:yaml.org,2002:merge"
PYTHON_REREAD_LIMIT = 1 << 20  # characters of malformed YAML read again by the Python parser
_PLAIN_COLLECTION_TAGS = (None, "!", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map")


def yaml_tree(text: str, source: Source) -> Any:
    """The single YAML document in ``text`` as a LineDict/LineList tree."""
    import yaml

    fast = getattr(yaml, "CSafeLoader", None)
    if fast is not None:
        # libyaml's limits change between releases (PyYAML 6.0.4's scanner stops at 1,000 nested
        # '[' read ahead, before the builder reaches MAX_DEPTH): what it refuses is read again by
        # the Python parser, the same on every release, so the problem named is the same too.
        # Not a large file: the Python scanner takes ~10 s of CPU over one 20 MiB line.
        reread = len(text) <= PYTHON_REREAD_LIMIT
        tree = _built_tree(text, source, fast, malformed_is_none=reread)
        if tree is not None:
            return tree
    return _built_tree(text, source, yaml.SafeLoader, malformed_is_none=False)


def _built_tree(text: str, source: Source, loader_class: Any, malformed_is_none: bool) -> Any:
    """The tree ``loader_class`` reads (None for malformed YAML if ``malformed_is_none``)."""
    import yaml

    loader = loader_class(text)
    try:
        return _YamlBuilder(loader, yaml, source).document()
    except yaml.MarkedYAMLError as error:
        if malformed_is_none:
            return None
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark else None
        problem = error.problem or error.context or str(error)
        raise source.problem(line, f"malformed YAML: {problem}") from None
    except yaml.reader.ReaderError as error:
        # Positions differ between the C reader (bytes) and the Python one (characters); the
        # reader stops at the first unacceptable character, so its first occurrence is the place.
        position = text.find(chr(error.character)) if isinstance(error.character, int) else -1
        line = text.count("\n", 0, position) + 1 if position >= 0 else None
        raise source.problem(
            line,
            f"malformed YAML: character {chr(error.character)!r} (U+{error.character:04X}) is not "
            "allowed in YAML text; remove it or write it as an escape in a double-quoted string",
        ) from None
    except yaml.YAMLError as error:
        raise source.problem(None, f"malformed YAML: {error}") from None
    except RecursionError:
        raise source.problem(None, "YAML nested too deeply to be a gold set") from None
    finally:
        loader.dispose()


class _YamlBuilder:
    """Builds the tree from parser events, refusing anchors, aliases, merge keys and custom tags."""

    def __init__(self, loader: Any, yaml: Any, source: Source) -> None:
        self.loader = loader
        self.yaml = yaml
        self.source = source
        self.depth = 0

    def document(self) -> Any:
        loader, yaml = self.loader, self.yaml
        loader.get_event()  # StreamStartEvent
        if loader.check_event(yaml.StreamEndEvent):
            raise self.source.problem(1, _EMPTY)
        loader.get_event()  # DocumentStartEvent
        root = self.node()
        loader.get_event()  # DocumentEndEvent
        if not loader.check_event(yaml.StreamEndEvent):
            second = loader.get_event()
            raise self.source.problem(
                second.start_mark.line + 1,
                "a second YAML document starts here; a gold set file holds exactly one document "
                "(remove the '---' separator or split the file)",
            )
        if root is None:
            raise self.source.problem(1, _EMPTY)
        return root

    def node(self) -> Any:
        yaml = self.yaml
        event = self.loader.get_event()
        line = event.start_mark.line + 1
        if isinstance(event, yaml.AliasEvent):
            raise self.source.problem(
                line,
                f"YAML alias *{event.anchor} is not allowed in a gold set: anchors and aliases "
                "are refused (they make 'billion laughs' files possible); write the value out",
            )
        if event.anchor is not None:
            raise self.source.problem(
                line,
                f"YAML anchor &{event.anchor} is not allowed in a gold set: anchors and aliases "
                "are refused (they make 'billion laughs' files possible); remove it",
            )
        if isinstance(event, yaml.ScalarEvent):
            return self.scalar(event, line)
        if event.tag not in _PLAIN_COLLECTION_TAGS:
            raise self.source.problem(
                line, f"YAML tag {event.tag!r} is not allowed in a gold set; remove the tag"
            )
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.source.problem(
                line, f"nested more than {MAX_DEPTH} levels deep: not a gold set"
            )
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
            raise self.source.problem(
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
            raise self.source.problem(line, f"bad YAML value {value!r}: {problem}") from None
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
                raise self.source.problem(
                    key_line, f"a mapping key must be a plain value such as an id, got {key!r}"
                )
            if isinstance(key, bool):
                raise self.source.problem(
                    key_line,
                    f"key {key_event.value!r} is read by YAML as the boolean {key}; "
                    f'quote it ("{key_event.value}") to use it as a name or id',
                )
            if not isinstance(key, str):
                key = key_event.value  # 010, 1.10, 2020-01-01: the key as written
            if key in out:
                raise self.source.problem(
                    key_line, f"duplicate key {key!r} (first at line {out.key_lines[key]})"
                )
            out[key] = self.node()
            out.key_lines[key] = key_line
        loader.get_event()
        return out


# -- JSON ------------------------------------------------------------------------------------------


class _Constant:
    """NaN, Infinity or -Infinity in the file: not JSON, refused with its line."""

    def __init__(self, name: str) -> None:
        self.name = name


def json_tree(text: str, source: Source) -> Any:
    """The JSON document in ``text`` as a LineDict/LineList tree."""
    if not text.strip():
        raise source.problem(1, "the file is empty; expected a JSON object")
    newlines = [match.start() for match in re.finditer("\n", text)]

    def line_at(offset: int) -> int:
        return bisect.bisect_left(newlines, offset) + 1

    def recording(scan_once: Callable[[str, int], Any], starts: list[int]) -> Callable[..., Any]:
        def scan(s: str, index: int) -> Any:
            value, end = scan_once(s, index)
            if isinstance(value, _Constant):
                raise source.problem(
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
            raise source.problem(line_at(start - 1), f"nested more than {MAX_DEPTH} levels deep")

    def parse_object(s_and_end: tuple[str, int], strict: bool, scan_once: Any, *rest: Any) -> Any:
        _, start = s_and_end
        enter(start)
        starts: list[int] = []
        memo = rest[2] if len(rest) > 2 and rest[2] is not None else {}
        # The pure-Python scanner's hooks: undocumented, so not in typeshed.
        pairs, end = json.decoder.JSONObject(  # type: ignore[attr-defined]
            s_and_end, strict, recording(scan_once, starts), None, list, memo
        )
        mapping = LineDict()
        mapping.line, mapping.key_lines = line_at(start - 1), {}
        for (key, value), value_start in zip(pairs, starts):
            line = key_line(value_start)
            if key in mapping:
                raise source.problem(
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
        items, end = json.decoder.JSONArray(  # type: ignore[attr-defined]
            s_and_end, recording(scan_once, starts)
        )
        out = LineList(items)
        out.line = line_at(start - 1)
        out.item_lines = [line_at(index) for index in starts]
        depth[0] -= 1
        return out, end

    decoder = json.JSONDecoder(parse_constant=_Constant)
    decoder.parse_object = parse_object  # type: ignore[attr-defined]
    decoder.parse_array = parse_array  # type: ignore[attr-defined]
    decoder.scan_once = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]
    try:
        value = decoder.decode(text)
    except json.JSONDecodeError as error:
        comma = _trailing_comma(text, error.pos)
        if comma is not None:
            raise source.problem(
                line_at(comma),
                "invalid JSON: trailing comma (a ',' right before ']' or '}'); remove it",
            ) from None
        raise source.problem(error.lineno, f"invalid JSON: {error.msg}") from None
    except source.error:  # raised by the hooks above, with its line
        raise
    except ValueError as error:  # an integer of more than 4,300 digits (Python's conversion limit)
        raise source.problem(None, f"invalid JSON: {error}") from None
    except RecursionError:
        raise source.problem(None, "JSON nested too deeply") from None
    if isinstance(value, _Constant):
        raise source.problem(1, f"{value.name} is not valid JSON; use a number or null")
    return value


def strict_json(text: str, source: Source) -> Any:
    """``text`` as JSON, refusing what ``json.loads`` lets through silently: a duplicate key (the
    last one would win) at any level, and NaN or Infinity. The C parser reads it; only when
    something is wrong is it read again with line numbers (:func:`json_tree`), which raises the
    problem at its line (and returns the tree, should it find none)."""
    try:
        return json.loads(text, object_pairs_hook=_unique_pairs, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return json_tree(text, source)


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    mapping = dict(pairs)
    if len(mapping) != len(pairs):  # json.loads would silently keep the last one
        raise ValueError("duplicate key")
    return mapping


def _no_constant(name: str) -> NoReturn:
    raise ValueError(name)


_JSON_BLANKS = " \t\n\r"


def _trailing_comma(text: str, position: int) -> int | None:
    """The offset of the comma before a closing ']' or '}' the error at ``position`` is about.

    Python 3.13's json reports a trailing comma at the comma, earlier versions at the bracket after
    it ("Expecting value"): found either way, the same line is named on every version.
    """
    if text.startswith(",", position):
        closer = text[position + 1 :].lstrip(_JSON_BLANKS)[:1]
        return position if closer in ("]", "}") else None
    if text[position : position + 1] in ("]", "}"):
        before = text[:position].rstrip(_JSON_BLANKS)
        return len(before) - 1 if before.endswith(",") else None
    return None


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
