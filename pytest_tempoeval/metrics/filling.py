"""Gold mode's holes filled by the LLM judge: ``ndcg(run, gold, k=10, fill_unjudged=judge)``,
``nDCG(fill=llm)@10`` with ``evaluate(..., judge=judge)``.

A hole is a document in a ranking's top k (the ranks the measure reads: k, or the whole ranking
for a measure without a cutoff) that the gold set does not judge for its query. Gold mode counts
it non-relevant, as trec_eval does, so a retriever that finds relevant documents nobody judged
scores below one that does not. With a filler, each hole is graded 0-4 by the judge (the graded
prompt of llm mode, recorded and replayed from the test's cassette the same way), the grade is
mapped onto the gold set's scale (:func:`grade_map`), and the measure is scored on the gold set
with those judgments added (:meth:`GoldSet.with_judgments
<pytest_tempoeval.data.goldset.GoldSet.with_judgments>`): the score trec_eval gives on the qrels
with the filled lines added. The ideal ranking, the relevant counts and every measure's pool read
the human and the filled grades together.

- A judged document is never asked, a negative grade included (trec_eval: judged non-relevant).
- A hole past the ranks the measure reads is never asked.
- A hole whose document has no text (neither in the run nor in the gold set) is not guessed: it
  stays unjudged, counted and named (``3 unjudged without text``); so do the holes of a query
  without a text. ``strict=True`` refuses both.
- A judge's failure is an error naming the query and the document, never a 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from numbers import Integral
from typing import TYPE_CHECKING, Any

import numpy as np

from pytest_tempoeval.data.goldset import GoldSet
from pytest_tempoeval.data.run import Run
from pytest_tempoeval.errors import MetricError
from pytest_tempoeval.metrics.alignment import judged_rows, ranked_rows

if TYPE_CHECKING:
    from pytest_tempoeval.metrics.llm_judgments import Judge, Judgment, JudgmentRequest

JUDGE_GRADES = range(5)  # the graded prompt's scale, 0 (not relevant) to 4 (perfect)
JUDGE_TOP = JUDGE_GRADES[-1]


# -- the judge's grade on the gold set's scale -----------------------------------------------------


def grade_map(gold: GoldSet, fill_grades: Mapping[int, int] | None = None) -> tuple[int, ...]:
    """The gold grade of each judge grade 0-4 (index = the judge's grade): ``fill_grades`` when
    given (each judge grade mapped to an integer of the gold set's scale), else the judge's grade
    on the gold set's scale (``GoldSet.grade_scale``: its ``grade_scale`` key, else 0 to its
    largest grade): low + round(g x (high - low) / 4), halves rounded up, by
    ``data.provenance.judge_grade_on_scale`` (the one rule ``tempoeval pool`` maps with too)."""
    from pytest_tempoeval.data.provenance import judge_grade_on_scale

    low, high = scale = gold.grade_scale
    if fill_grades is None:
        return tuple(judge_grade_on_scale(grade, scale) for grade in JUDGE_GRADES)
    if not isinstance(fill_grades, Mapping):
        raise MetricError(
            "fill_grades maps each judge grade 0-4 to a grade of the gold set, e.g. "
            f"{{0: 0, 1: 0, 2: 1, 3: 2, 4: 3}}; got {type(fill_grades).__name__}"
        )
    keys = [key for key in fill_grades if _whole(key)]
    extra = [key for key in fill_grades if not _whole(key) or int(key) not in JUDGE_GRADES]
    missing = [grade for grade in JUDGE_GRADES if grade not in {int(key) for key in keys}]
    if extra or missing:
        problem = (
            f"judge grade {', '.join(map(str, missing))} not mapped"
            if missing
            else f"{', '.join(map(repr, extra))} is no judge grade"
        )
        raise MetricError(
            f"fill_grades must map every judge grade 0-4 and nothing else: {problem}; e.g. "
            "{0: 0, 1: 0, 2: 1, 3: 2, 4: 3}"
        )
    mapped = {int(key): value for key, value in fill_grades.items()}
    declared = gold.declared_grade_scale is not None
    for grade in JUDGE_GRADES:
        value = mapped[grade]
        if not _whole(value) or not low <= int(value) <= high:
            raise MetricError(
                f"fill_grades[{grade}] = {value!r} is not an integer of the gold set's scale "
                f"{low}..{high} ({'its grade_scale' if declared else '0 to its largest grade'}): "
                "map each judge grade to a grade on it"
                + ("" if declared else ", or declare the scale with grade_scale: [low, high]")
            )
    return tuple(int(mapped[grade]) for grade in JUDGE_GRADES)


def _whole(value: object) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)


# -- what was filled -------------------------------------------------------------------------------


@dataclass(frozen=True)
class FilledGrade:
    """One hole the judge graded."""

    doc_id: str
    grade: int  # on the gold set's scale (grade_map)
    judge_grade: int  # the judge's own, 0-4
    reasoning: str | None = None  # the judge's, when it gives one
    prompt_hash: str | None = None  # data.provenance.prompt_hash of the prompt it answered


@dataclass(frozen=True)
class QueryFill:
    """One query's holes in the top k: graded (rank order), or left unjudged."""

    filled: tuple[FilledGrade, ...] = ()
    without_text: tuple[str, ...] = ()  # documents with no text: not guessed, left unjudged
    no_query_text: tuple[str, ...] = ()  # holes left unjudged: the query has no text
    retrieved: int = 0  # documents retrieved in the top k

    @property
    def grades(self) -> dict[str, int]:
        return {grade.doc_id: grade.grade for grade in self.filled}

    @property
    def share(self) -> float:
        """The share of the retrieved top k whose grade the judge filled (0 with none)."""
        return len(self.filled) / self.retrieved if self.retrieved else 0.0

    @property
    def unjudged(self) -> int:
        return len(self.without_text) + len(self.no_query_text)

    def note(self, model: str) -> str:
        """``2 grades filled by the judge (claude-haiku-5-5): d9 2, d4 0; 1 unjudged without
        text: d7`` (empty when the query had no hole)."""
        parts = []
        if self.filled:
            grades = ", ".join(f"{grade.doc_id} {grade.grade}" for grade in self.filled)
            parts.append(
                f"{_count(len(self.filled), 'grade')} filled by the judge ({model}): {grades}"
            )
        if self.without_text:
            parts.append(
                f"{len(self.without_text)} unjudged without text: {', '.join(self.without_text)}"
            )
        if self.no_query_text:
            parts.append(f"{len(self.no_query_text)} unjudged: the query has no text for the judge")
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "filled": self.grades,
            "judge_grades": {grade.doc_id: grade.judge_grade for grade in self.filled},
            "without_text": list(self.without_text),
            "no_query_text": list(self.no_query_text),
            "share": self.share,
        }


def _count(n: int, one: str) -> str:
    return f"{n} {one}{'' if n == 1 else 's'}"


@dataclass(frozen=True)
class FilledGrades:
    """The grades a gold-mode result's judge filled (``MetricResult.filled``), per query, with
    the counts the explanation and the reports show and the share a baseline stores."""

    model: str
    k: int | None  # the ranks whose holes were filled (None: the whole ranking)
    relevance_level: int  # the measure's: proposals for the gold set are the grades >= it
    gold_path: str  # the gold set filled (--tempoeval-propose-gold's patch names it)
    queries: Mapping[str, QueryFill]  # every gold query scored, in gold order
    scale: tuple[int, int]  # the gold set's, (lowest, highest)
    mapping: tuple[int, ...]  # the gold grade of each judge grade 0-4

    @property
    def per_query(self) -> dict[str, dict[str, int]]:
        """Query id -> the filled (doc id -> gold grade) pairs, for the queries with any."""
        return {query: fill.grades for query, fill in self.queries.items() if fill.filled}

    @property
    def asked(self) -> int:
        """Holes asked of the judge (each answered: a failure is an error)."""
        return self.filled

    @property
    def filled(self) -> int:
        return sum(len(fill.filled) for fill in self.queries.values())

    @property
    def without_text(self) -> int:
        """Holes left unjudged: no document text, or no query text."""
        return sum(fill.unjudged for fill in self.queries.values())

    @property
    def shares(self) -> dict[str, float]:
        """Query id -> the share of its retrieved top k the judge filled (a baseline stores it)."""
        return {query: fill.share for query, fill in self.queries.items()}

    def only(self, queries: set[str] | frozenset[str]) -> FilledGrades:
        """These grades over ``queries`` alone (a period's result)."""
        kept = {query: fill for query, fill in self.queries.items() if query in queries}
        return FilledGrades(**{**self.__dict__, "queries": kept})

    def summary(self) -> str:
        """``5 grades filled by the judge (claude-haiku-5-5), 3 unjudged without text``."""
        text = f"{_count(self.filled, 'grade')} filled by the judge ({self.model})"
        if self.without_text:
            text += f", {self.without_text} unjudged without text (not guessed)"
        return text

    def to_dict(self) -> dict[str, Any]:
        """JSON data: the counts, then per query what was filled (queries with a hole only)."""
        return {
            "model": self.model,
            "k": self.k,
            "scale": list(self.scale),
            "mapping": list(self.mapping),
            "asked": self.asked,
            "filled": self.filled,
            "without_text": self.without_text,
            "per_query": {
                query: fill.to_dict()
                for query, fill in self.queries.items()
                if fill.filled or fill.unjudged
            },
        }

    def proposals(self) -> list[dict[str, Any]]:
        """The filled grades at or above the relevance level, as proposals for the gold set
        (plain data: they travel from xdist workers): query, document, grade, judge_grade,
        reasoning, model, prompt_hash."""
        return [
            {
                "gold": self.gold_path,
                "query": query,
                "document": grade.doc_id,
                "grade": grade.grade,
                "judge_grade": grade.judge_grade,
                "reasoning": grade.reasoning,
                "model": self.model,
                "prompt_hash": grade.prompt_hash,
            }
            for query, fill in self.queries.items()
            for grade in fill.filled
            if grade.grade >= self.relevance_level
        ]


# -- filling ---------------------------------------------------------------------------------------


def fill_holes(
    run: Run,
    gold: GoldSet,
    ranks: int,
    judge: Judge,
    mapping: tuple[int, ...],
    *,
    k: int | None,
    relevance_level: int,
    strict: bool = False,
) -> tuple[GoldSet, FilledGrades, str]:
    """The gold set with the holes of every ranking's first ``ranks`` ranks graded by ``judge``
    (mapped by ``mapping``), what was filled, and why nothing was judged ("" when it was: a dry
    run stopped the call, :func:`.llm_judgments.judged`)."""
    from pytest_tempoeval.metrics.llm_judgments import judged

    rows = ranked_rows(run, gold, ranks)
    holes = (rows >= 0) & (judged_rows(run, gold, ranks) < 0)
    retrieved = (rows >= 0).sum(axis=1).tolist()
    items: list[JudgmentRequest] = []
    without_text: dict[str, list[str]] = {}
    no_query_text: dict[str, list[str]] = {}
    queries, documents, texts = gold.queries, gold.documents, run.texts
    for position in np.flatnonzero(holes.any(axis=1)).tolist():
        query = queries[gold.query_ids[position]]
        at = np.flatnonzero(holes[position])
        for rank, doc in zip(at.tolist(), run.table.ids_of(rows[position, at])):
            text = texts.get(doc) or (documents[doc].text if doc in documents else None)
            if not (text and query.text):
                if strict:
                    raise MetricError(
                        f"doc {doc!r} (query {query.id!r}, rank {rank + 1}) is unjudged and "
                        f"{'has no text' if query.text else 'its query has no text'} for the "
                        "judge to fill its grade (strict=True)"
                    )
                (without_text if query.text else no_query_text).setdefault(query.id, []).append(doc)
                continue
            items.append((query.id, query.text, doc, text))
    model = str(getattr(judge, "model", "the judge"))
    answers, stopped = judged(lambda: judge.grade_all(items)) if items else ([], "")
    filled: dict[str, list[FilledGrade]] = {}
    if not stopped:
        if len(answers) != len(items):
            raise MetricError(
                f"the judge {judge!r} gave {len(answers)} grades for {len(items)} unjudged "
                "documents; a judge answers every item, in order"
            )
        for item, answer in zip(items, answers):
            grade = _judge_grade(judge, item, answer)
            filled.setdefault(item[0], []).append(
                FilledGrade(item[2], mapping[grade], grade, answer.reasoning, answer.prompt_hash)
            )
    fills = {
        query_id: QueryFill(
            tuple(filled.get(query_id, ())),
            tuple(without_text.get(query_id, ())),
            tuple(no_query_text.get(query_id, ())),
            count,
        )
        for query_id, count in zip(gold.query_ids, retrieved)
    }
    report = FilledGrades(
        model=model,
        k=k,
        relevance_level=relevance_level,
        gold_path=gold.path,
        queries=fills,
        scale=gold.grade_scale,
        mapping=mapping,
    )
    added = {query: {g.doc_id: g.grade for g in grades} for query, grades in filled.items()}
    return (gold.with_judgments(added) if added else gold), report, stopped


def _judge_grade(judge: Judge, item: JudgmentRequest, answer: Judgment) -> int:
    """The judge's grade of ``item``, checked: a judge of the user's may answer anything, and a
    failed answer must never become a 0."""
    value: object = answer.value
    grade = int(value) if isinstance(value, Integral) and not isinstance(value, bool) else None
    if (answer.query_id, answer.doc_id) != (item[0], item[2]) or grade not in JUDGE_GRADES:
        raise MetricError(
            f"the judge {judge!r} answered ({answer.query_id!r}, {answer.doc_id!r}, {value!r}) "
            f"for unjudged doc {item[2]!r} of query {item[0]!r}: expected that query and doc, "
            f"and a grade 0..{JUDGE_TOP}; a failed answer is an error, never a 0"
        )
    assert grade is not None  # in JUDGE_GRADES
    return grade
