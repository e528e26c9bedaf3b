"""What a gold set file holds, and the rules for reading one from a tree of values.

The user documentation of every key is ``docs/gold-set.md``. In short::

    version: 1
    name: elections              # optional
    k: 10                        # optional default cutoff
    documents:                   # optional corpus annotations
      d1:
        text: "Biden won the 2020 election ..."
        focus_time: [2020, "2016-2018"]      # derived from text when absent
    queries:
      - id: q1
        text: "Who won the US presidential election in 2020?"
        focus_time: 2020                     # derived from text when absent
        temporal_focus: specific_time
        relevant: {d1: 3, d7: 1}             # a list means grade 1
          # an LLM's judgment says so: {grade: 2, source: "llm:<model>", reasoning, prompt_hash}
      - id: q2
        text: "How has turnout changed since 2016?"
        baseline_period: 2016                # T-Coverage: both or neither
        comparison_period: 2020-2024
        key_time_anchors: [2020, "2016-2018"]  # optional: T-AnchorF1's required anchors

The tree comes from :mod:`~pytest_tempoeval.data.readers.structured` (YAML/JSON with line numbers)
or from plain Python data (no line numbers). Every problem raises :class:`GoldSetError` starting
with ``path:line:`` and naming the value. The invariants of a whole gold set (at least one query,
unique ids) are :class:`~pytest_tempoeval.data.goldset.GoldSet`'s to check, for every way of
building one.

One module on purpose, though longer than most: every key of a gold-set file is read and checked
here, each with its errors, in the order ``docs/gold-set.md`` lists them; split, a key's rule and
its message would be looked for in several places.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_tempoeval.data.focus_time import FocusTime
from pytest_tempoeval.data.provenance import Provenance, read_grade_scale, read_judgment
from pytest_tempoeval.data.readers.structured import (
    LineDict,
    LineList,
    Source,
    SourceInt,
    json_tree,
    read_text,
    shown,
    version_problem,
    yaml_tree,
)
from pytest_tempoeval.data.time_anchors import read_time_anchors
from pytest_tempoeval.data.values import did_you_mean, grade_problem, id_problem
from pytest_tempoeval.errors import (
    FocusTimeError,
    GoldSetError,
    GoldSetWarning,
    closest_match,
    located,
    warn,
)
from pytest_tempoeval.files import regular_file_problem

TOP_KEYS = ("version", "name", "k", "grade_scale", "documents", "queries")
QUERY_KEYS = (
    "id",
    "text",
    "focus_time",
    "temporal_focus",
    "relevant",
    "baseline_period",
    "comparison_period",
    "key_time_anchors",
)
# A cross-period query's two periods (T-Coverage): given together, or not at all.
CROSS_PERIOD_KEYS = ("baseline_period", "comparison_period")
DOCUMENT_KEYS = ("text", "focus_time")
MAX_GOLD_BYTES = 512 * 1024 * 1024  # a YAML/JSON gold set is read whole; qrels files stream


@dataclass(frozen=True)
class GoldQuery:
    id: str
    text: str | None = None
    focus_time: FocusTime | None = None  # None: unknown (none given and no text to read it from)
    temporal_focus: str | None = None
    relevant: Mapping[str, int] = field(default_factory=dict)
    line: int | None = None  # where the query starts in its file
    id_line: int | None = None  # where its id is written, when that is another line
    # A cross-period query's periods (T-Coverage asks whether the top k cover each): both or none.
    baseline_period: FocusTime | None = None
    comparison_period: FocusTime | None = None
    # The time anchors the query requires (T-AnchorF1), each its years: TempoEval's
    # key_time_anchors. Empty: none given.
    key_time_anchors: tuple[FocusTime, ...] = ()
    focus_time_given: bool = False  # written in the gold set (not read from its text)
    # Who judged: doc id -> Provenance, for the judgments in ``relevant`` that are not a human's
    # (an LLM's: ``llm:<model>``, with its reasoning and prompt hash). Empty for a hand-judged set.
    provenance: Mapping[str, Provenance] = field(default_factory=dict)


@dataclass(frozen=True)
class GoldDocument:
    id: str
    text: str | None = None  # what the LLM judge reads: a BEIR title and body, joined
    focus_time: FocusTime | None = None
    line: int | None = None
    title: str | None = None  # kept apart too, where the source has one


@dataclass(frozen=True)
class GoldContent:
    """Everything a gold set file says, validated value by value."""

    queries: list[GoldQuery]
    documents: list[GoldDocument]
    name: str | None
    k: int | None
    grade_scale: tuple[int, int] | None = None  # as written (None: the default, 0 to the largest)


def read_gold_file(path: Path) -> GoldContent:
    """Read and validate a YAML (``.yaml``/``.yml``) or JSON (``.json``) gold set file."""
    if problem := regular_file_problem(path, "gold set file"):
        raise GoldSetError(problem)
    if path.stat().st_size > MAX_GOLD_BYTES:
        raise GoldSetError(
            located(path, None, "file larger than 512 MiB: split it or use from_trec_qrels")
        )
    source = Source(path, GoldSetError)
    text = read_text(path, GoldSetError, "gold set file")
    tree = json_tree(text, source) if path.suffix.lower() == ".json" else yaml_tree(text, source)
    if isinstance(tree, str):
        hint = " (for a TREC qrels file use GoldSet.from_trec_qrels)"
        raise GoldSetError(
            located(
                path,
                1,
                f"a gold set is a mapping with 'version: 1' and 'queries:', "
                f"got {shown(tree)}{hint}",
            )
        )
    return content_from_tree(tree, str(path))


def content_from_tree(tree: Any, path: str) -> GoldContent:
    if not isinstance(tree, LineDict):
        raise GoldSetError(
            located(
                path,
                getattr(tree, "line", None),
                f"a gold set is a mapping with 'version: 1' and 'queries:', got {shown(tree)}",
            )
        )
    _check_keys(tree, TOP_KEYS, path, "the gold set")
    problem = version_problem(tree, path)
    if problem:
        raise GoldSetError(problem)
    name = tree.get("name")
    if name is not None and not isinstance(name, str):
        raise GoldSetError(
            located(
                path,
                tree.key_lines.get("name"),
                f"name must be a string, got {shown(name)}; quote it",
            )
        )
    k = tree.get("k")
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k <= 0):
        raise GoldSetError(
            located(
                path,
                tree.key_lines.get("k"),
                f"k must be a positive integer (the default rank cutoff), got {shown(k)}",
            )
        )
    grade_scale = read_grade_scale(tree.get("grade_scale"), path, tree.key_lines.get("grade_scale"))
    documents = _documents(tree.get("documents"), tree.key_lines.get("documents"), path)
    queries = _queries(tree.get("queries"), tree.key_lines.get("queries", tree.line), path)
    if grade_scale is not None:
        _check_scale(queries, grade_scale, path, tree.key_lines.get("grade_scale"))
    if documents:
        declared = {document.id for document in documents}
        undeclared = [
            (query.id, doc_id, line)
            for query, lines in queries
            for doc_id, line in lines.items()
            if doc_id not in declared
        ]
        warn_undeclared(undeclared, declared, path, "under 'documents:'")
    return GoldContent(
        [query for query, _ in queries],
        documents,
        name,
        None if k is None else int(k),
        grade_scale,
    )


def _check_scale(
    queries: list[tuple[GoldQuery, dict[str, int | None]]],
    scale: tuple[int, int],
    path: str,
    scale_line: int | None,
) -> None:
    """Every grade on the declared scale: a grade above it would weigh more than the scale's best,
    and an LLM judge's grades mapped onto the scale could never reach it."""
    low, high = scale
    declared = f" (line {scale_line})" if scale_line else ""
    for query, lines in queries:
        for doc_id, grade in query.relevant.items():
            if not low <= grade <= high:
                message = (
                    f"query {query.id!r}: grade {grade} of doc {doc_id!r} is outside the gold "
                    f"set's grade_scale [{low}, {high}]{declared}; fix the grade, or "
                    "widen grade_scale"
                )
                raise GoldSetError(located(path, lines.get(doc_id), message))


UNDECLARED_SHOWN = 5  # undeclared ids warned about one by one; the rest in one warning


def warn_undeclared(
    undeclared: Sequence[tuple[str, str, int | None]],
    declared: Collection[str],
    path: str,
    where: str,
) -> None:
    """A GoldSetWarning per judged document the declared ones lack: (query id, doc id, line)."""
    for query_id, doc_id, line in undeclared[:UNDECLARED_SHOWN]:
        close = closest_match(doc_id, declared) if len(declared) <= 100_000 else None
        hint = f"; did you mean {close!r}?" if close else ""
        message = (
            f"query {query_id!r} judges doc {doc_id!r}, which is not declared {where}{hint} "
            "(a judged document that the run can never match lowers every score)"
        )
        warn(GoldSetWarning(located(path, line, message)))
    more = len(undeclared) - UNDECLARED_SHOWN
    if more > 0:
        message = f"and {more} more judged documents not declared {where}"
        warn(GoldSetWarning(located(path, None, message)))


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
    text = value.source if isinstance(value, SourceInt) else value
    problem = id_problem(text)
    if problem is not None:
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            hint = "; quote it" if isinstance(value, (bool, float)) else ""
            problem = f"must be a string, got {shown(value)}{hint}"
        elif not text:
            problem = "is empty ('')"
        raise GoldSetError(located(path, line, f"{what} {problem}"))
    return str(text)


def _optional_text(value: Any, path: str, line: int | None, what: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise GoldSetError(
            located(path, line, f"{what} must be a string, got {shown(value)}; quote it")
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
                    f"got {shown(body)}",
                )
            )
        owner = f"document {doc_id!r}"
        _check_keys(body, DOCUMENT_KEYS, path, owner)
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
    return _focus_value(body, "focus_time", path, line, owner)


def _focus_value(body: LineDict, key: str, path: str, line: int | None, owner: str) -> FocusTime:
    """The focus-time value under ``key`` (present, not null)."""
    value = body[key]
    value_line = body.key_lines.get(key) or line
    if isinstance(value, LineList):
        # FocusTime.parse reads a list as the union of its items: parse them one by one so an
        # error names the offending item's own line.
        years: set[int] = set()
        for item, item_line in zip(value, value.item_lines):
            years |= _parse_item(item, path, item_line or value_line, owner, key).years
        return FocusTime(years)
    return _parse_item(value, path, value_line, owner, key)


def _parse_item(
    value: Any, path: str, line: int | None, owner: str, key: str = "focus_time"
) -> FocusTime:
    try:
        return FocusTime.parse(value)
    except FocusTimeError as error:
        raise GoldSetError(
            located(path, line, f"{owner}: bad {key} {shown(value)}: {error}")
        ) from None


def _cross_periods(
    item: LineDict, path: str, line: int | None, owner: str
) -> tuple[FocusTime | None, FocusTime | None]:
    """A query's baseline and comparison periods (T-Coverage): both, or neither. Each is a focus
    time with at least one year."""
    given = [key for key in CROSS_PERIOD_KEYS if item.get(key) is not None]
    if len(given) == 1:
        (key,) = given
        (other,) = (name for name in CROSS_PERIOD_KEYS if name != key)
        raise GoldSetError(
            located(
                path,
                item.key_lines.get(key) or line,
                f"{owner}: {key} is given without {other}; a cross-period query (T-Coverage) "
                f"names both periods it compares: add {other}, or remove {key}",
            )
        )
    periods = []
    for key in given:
        period = _focus_value(item, key, path, line, owner)
        if not period:
            raise GoldSetError(
                located(
                    path,
                    item.key_lines.get(key) or line,
                    f"{owner}: {key} names no year; give a year, a range, a decade or a century",
                )
            )
        periods.append(period)
    return (periods[0], periods[1]) if periods else (None, None)


def _queries(
    section: Any, line: int | None, path: str
) -> list[tuple[GoldQuery, dict[str, int | None]]]:
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
    return [
        _query(item, item_line or line, path)
        for item, item_line in zip(section, section.item_lines)
    ]


def _query(item: Any, line: int | None, path: str) -> tuple[GoldQuery, dict[str, int | None]]:
    """The query, and the line of each judged document id."""
    if not isinstance(item, LineDict):
        raise GoldSetError(
            located(path, line, f"a query must be a mapping with at least 'id', got {shown(item)}")
        )
    if "id" not in item:
        _check_keys(item, QUERY_KEYS, path, "a query")
        raise GoldSetError(located(path, line, "a query has no 'id'; add 'id: <query id>'"))
    id_line = item.key_lines.get("id") or line
    query_id = _identifier(item["id"], path, id_line, "query id")
    owner = f"query {query_id!r}"
    _check_keys(item, QUERY_KEYS, path, owner)
    text = _optional_text(
        item.get("text"), path, item.key_lines.get("text") or line, f"{owner} text"
    )
    focus = _optional_text(
        item.get("temporal_focus"),
        path,
        item.key_lines.get("temporal_focus") or line,
        f"{owner} temporal_focus",
    )
    relevant_line = item.key_lines.get("relevant") or line
    relevant, lines, provenance = _relevant(item.get("relevant"), relevant_line, path, owner)
    focus_time = _focus_time(item, text, path, line, owner)
    baseline, comparison = _cross_periods(item, path, line, owner)
    anchors = read_time_anchors(
        item.get("key_time_anchors"), item.key_lines.get("key_time_anchors") or line, path, owner
    )
    query = GoldQuery(
        query_id,
        text,
        focus_time,
        focus,
        relevant,
        line,
        id_line,
        baseline_period=baseline,
        comparison_period=comparison,
        key_time_anchors=anchors,
        focus_time_given=item.get("focus_time") is not None,
        provenance=provenance,
    )
    return query, lines


def _relevant(
    section: Any, line: int | None, path: str, owner: str
) -> tuple[dict[str, int], dict[str, int | None], dict[str, Provenance]]:
    """Doc id -> grade, doc id -> the line it is written on, and doc id -> the provenance of the
    judgments that are not a human's."""
    if section is None:
        return {}, {}, {}
    if isinstance(section, LineList):
        pairs: list[tuple[Any, Any, int | None]] = [
            (doc, 1, doc_line or line) for doc, doc_line in zip(section, section.item_lines)
        ]
    elif isinstance(section, LineDict):
        pairs = [(doc, grade, section.key_lines.get(doc) or line) for doc, grade in section.items()]
    else:
        raise GoldSetError(
            located(
                path,
                line,
                f"{owner}: 'relevant' must map doc id -> grade, or list doc ids (grade 1), "
                f"got {shown(section)}",
            )
        )
    verb = "listed" if isinstance(section, LineList) else "judged"
    grades: dict[str, int] = {}
    first_lines: dict[str, int | None] = {}
    provenance: dict[str, Provenance] = {}
    for raw_doc, value, doc_line in pairs:
        doc_id = _identifier(raw_doc, path, doc_line, f"{owner}: relevant doc id")
        grade, judged_by = read_judgment(value, path, doc_line, owner, doc_id)
        if doc_id in grades:  # a list repeats an id; a dict from Python can hold 1 and "1"
            first = first_lines[doc_id]
            raise GoldSetError(
                located(
                    path,
                    doc_line,
                    f"{owner}: doc {doc_id!r} is {verb} twice under 'relevant'"
                    + (f" (first at line {first})" if first is not None else ""),
                )
            )
        problem = grade_problem(grade, negative=False)
        if problem is not None:
            message = f"{owner}: grade {shown(grade)} of doc {doc_id!r} {problem}"
            grade_line = value.key_lines.get("grade") if isinstance(value, LineDict) else None
            raise GoldSetError(located(path, grade_line or doc_line, message))
        grades[doc_id] = int(grade)
        first_lines[doc_id] = doc_line
        if judged_by is not None:
            provenance[doc_id] = judged_by
    return grades, first_lines, provenance
