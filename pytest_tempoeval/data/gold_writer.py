"""Writing a gold set as YAML, deterministically: the same :class:`GoldSet` always gives the same
bytes, and loading them gives an equal gold set.

The layout (``docs/gold-set.md``) is the one people write by hand:

- the top-level keys in the schema's order, ``grade_scale`` only when declared;
- ``documents:`` sorted by id, one per line (``d1: {text: "...", focus_time: [2020]}``); a
  document's ``focus_time`` is written only when its text does not give it already;
- ``queries:`` in their order, each judgment on its own line under ``relevant:``, sorted by doc id:
  a human's as its grade (``d1: 3``), an LLM's with its provenance inline (``d9: {grade: 2,
  source: "llm:claude-haiku-5-5", reasoning: "...", prompt_hash: "..."}``), so that a review
  deletes or edits one line per judgment;
- strings double-quoted as JSON writes them (a valid YAML double-quoted scalar), with the
  characters YAML would read as line breaks or refuses escaped; ids bare where YAML reads them back
  as the same text, else quoted.

A file is written atomically (:func:`~pytest_tempoeval.files.write_atomically`) and never over an
existing one unless ``overwrite=True``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_tempoeval.errors import GoldSetError
from pytest_tempoeval.files import write_atomically

if TYPE_CHECKING:
    from pytest_tempoeval.data.focus_time import FocusTime
    from pytest_tempoeval.data.gold_schema import GoldDocument, GoldQuery
    from pytest_tempoeval.data.goldset import GoldSet
    from pytest_tempoeval.data.provenance import Provenance

# An id YAML reads back as the same string (or as an int that keeps its spelling: 010).
_BARE_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*|[0-9]+")
# Plain scalars YAML 1.1 reads as booleans or null, whatever their case.
_YAML_WORDS = {"y", "n", "yes", "no", "true", "false", "on", "off", "null"}
# What json.dumps leaves as it is but YAML reads as a line break (NEL, LS, PS), refuses (C1
# controls, DEL) or may drop (a byte-order mark): escaped.
_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff]")


def quoted(text: str) -> str:
    """``text`` as a double-quoted YAML scalar that reads back as ``text``."""
    return _YAML_UNSAFE.sub(
        lambda match: f"\\u{ord(match.group()):04x}", json.dumps(text, ensure_ascii=False)
    )


def yaml_id(value: str) -> str:
    """An id as a YAML key or value: bare when YAML reads it back as the same text."""
    if _BARE_ID.fullmatch(value) and value.lower() not in _YAML_WORDS:
        return value
    return quoted(value)


def _focus(focus_time: FocusTime) -> str:
    return "[" + ", ".join(_json_item(item) for item in focus_time.to_json()) + "]"


def _json_item(item: int | str) -> str:
    return str(item) if isinstance(item, int) else quoted(item)


def _anchor(anchor: FocusTime) -> str:
    """One time anchor: a year, or one ``"a-b"`` range (an anchor is one run of years)."""
    (item,) = anchor.to_json()
    return _json_item(item)


def _reads_from(text: str | None) -> FocusTime | None:
    from pytest_tempoeval.data.focus_time import FocusTime

    return None if text is None else FocusTime.from_text(text)


def _document_line(document: GoldDocument) -> str:
    fields = []
    if document.text is not None:
        fields.append(f"text: {quoted(document.text)}")
    if document.focus_time is not None and document.focus_time != _reads_from(document.text):
        fields.append(f"focus_time: {_focus(document.focus_time)}")
    return f"  {yaml_id(document.id)}: {{{', '.join(fields)}}}"


def judgment_value(grade: int, provenance: Provenance | None) -> str:
    """A judgment as ``relevant:`` writes it: the grade, or a mapping with its provenance."""
    if provenance is None:
        return str(grade)
    fields = [f"grade: {grade}", f"source: {quoted(provenance.source)}"]
    if provenance.reasoning is not None:
        fields.append(f"reasoning: {quoted(provenance.reasoning)}")
    if provenance.prompt_hash is not None:
        fields.append(f"prompt_hash: {quoted(provenance.prompt_hash)}")
    return "{" + ", ".join(fields) + "}"


def _query_lines(query: GoldQuery) -> list[str]:
    lines = [f"  - id: {yaml_id(query.id)}"]
    if query.text is not None:
        lines.append(f"    text: {quoted(query.text)}")
    if query.focus_time is not None and (
        query.focus_time_given or query.focus_time != _reads_from(query.text)
    ):
        lines.append(f"    focus_time: {_focus(query.focus_time)}")
    if query.temporal_focus is not None:
        lines.append(f"    temporal_focus: {quoted(query.temporal_focus)}")
    for name in ("baseline_period", "comparison_period"):
        period = getattr(query, name)
        if period is not None:
            lines.append(f"    {name}: {_focus(period)}")
    if query.key_time_anchors:
        anchors = ", ".join(_anchor(anchor) for anchor in query.key_time_anchors)
        lines.append(f"    key_time_anchors: [{anchors}]")
    if query.relevant:
        lines.append("    relevant:")
        provenance: Mapping[str, Provenance] = query.provenance
        for doc_id in sorted(query.relevant):
            value = judgment_value(query.relevant[doc_id], provenance.get(doc_id))
            lines.append(f"      {yaml_id(doc_id)}: {value}")
    return lines


def gold_yaml_text(gold: GoldSet, header: str = "") -> str:
    """The gold set as YAML text (the module's layout). ``header``: comment lines put first
    (each prefixed with ``# ``), e.g. where the judgments came from."""
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    lines.append("version: 1")
    if gold.name is not None:
        lines.append(f"name: {quoted(gold.name)}")
    if gold.k is not None:
        lines.append(f"k: {gold.k}")
    if gold.declared_grade_scale is not None:
        low, high = gold.declared_grade_scale
        lines.append(f"grade_scale: [{low}, {high}]")
    if gold.documents:
        lines.append("documents:")
        lines += [_document_line(gold.documents[doc_id]) for doc_id in sorted(gold.documents)]
    lines.append("queries:")
    for query in gold:
        if any(grade < 0 for grade in query.relevant.values()):
            problem = (
                f"query {query.id!r} has a negative grade (a qrels file's judged non-relevant), "
                "which a YAML gold set cannot hold; write it as 0"
            )
            raise GoldSetError(f"{gold.path}: {problem}")
        lines += _query_lines(query)
    return "\n".join(lines) + "\n"


def write_gold_yaml(
    gold: GoldSet, path: str | Path, *, overwrite: bool = False, header: str = ""
) -> None:
    """Write :func:`gold_yaml_text` to ``path`` atomically. An existing file is refused unless
    ``overwrite`` (a FileExistsError naming it)."""
    path = Path(path)
    if not overwrite and os.path.lexists(path):
        raise FileExistsError(f"{path} exists; it is not overwritten unless asked")
    write_atomically(path, gold_yaml_text(gold, header))
