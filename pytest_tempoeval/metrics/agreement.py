"""How far the LLM judge agrees with the gold set's human grades: Cohen's kappa.

``judge_agreement(gold, judge)`` asks the judge about every (query, judged document) pair that has
a gold grade and texts for both, and compares the two raters:

- **graded** (default): the judge's 0-4 grade against the gold grade, with quadratic weights, the
  usual kappa for ordinal scales (a 3 against a 4 costs less than a 0 against a 4);
- **binary**: the judge's verdict against "gold grade >= ``rel``", plain (unweighted) kappa.

The result compares like a metric (``assert judge_agreement(gold, judge) >= 0.6``), explains itself
with the confusion matrix and the pairs the two raters disagree on most, and is in the summary and
the reports. Kappa is computed here in numpy; ``tests/metrics/test_agreement.py`` checks it
against scikit-learn's ``cohen_kappa_score``.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from pytest_tempoeval.constants import WORST_EXPLAINED
from pytest_tempoeval.data.goldset import GoldSet
from pytest_tempoeval.data.values import rel_problem
from pytest_tempoeval.errors import MetricError, check_choice
from pytest_tempoeval.metrics.llm_judgments import Judge, JudgmentRequest, judged
from pytest_tempoeval.metrics.results import MetricResult

AGREEMENT_MODES = ("graded", "binary")
NO_TEXT = "no text for the judge (query or document)"


def cohen_kappa(
    first: np.ndarray,
    second: np.ndarray,
    weights: str | None = None,
    labels: np.ndarray | None = None,
) -> float:
    """Cohen's kappa of two raters' labels, over ``labels`` (sorted; by default the labels either
    used, as scikit-learn's ``cohen_kappa_score``).

    ``weights="quadratic"``: disagreement ``(i - j)**2`` between label positions i and j (ordinal
    scales); None: 0 when equal, else 1. The positions are those in ``labels``: pass the whole
    scale, or a grade nobody used closes the gap between its neighbours. kappa = 1 - observed
    weighted disagreement / the disagreement expected from the raters' marginals. NaN when that
    expectation is 0 (both raters used one and the same label): agreement beyond chance is
    undefined, not perfect."""
    labels = np.union1d(first, second) if labels is None else labels
    if labels.size == 0 or first.size == 0:
        return math.nan
    confusion = confusion_matrix(first, second, labels)
    n = confusion.sum()
    expected = np.outer(confusion.sum(axis=1), confusion.sum(axis=0)) / n
    index = np.arange(labels.size)
    if weights == "quadratic":
        weight = (index[:, None] - index[None, :]) ** 2.0
    elif weights is None:
        weight = (index[:, None] != index[None, :]).astype(np.float64)
    else:
        raise MetricError(f"unknown kappa weights {weights!r}; choose 'quadratic' or None")
    chance = float((weight * expected).sum())
    if chance == 0:
        return math.nan
    return 1.0 - float((weight * confusion).sum()) / chance


def confusion_matrix(first: np.ndarray, second: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """counts[i, j]: pairs the first rater labelled ``labels[i]`` and the second ``labels[j]``."""
    rows, columns = np.searchsorted(labels, first), np.searchsorted(labels, second)
    counts = np.zeros((labels.size, labels.size), dtype=np.int64)
    np.add.at(counts, (rows, columns), 1)
    return counts


class AgreementResult(MetricResult):
    """Kappa (the float value) of the judge against the gold grades, with ``.confusion`` (rows: gold
    labels, columns: the judge's), ``.labels``, ``.counts`` per rater and label, and
    ``.disagreements`` (query, doc, gold, judge), worst first."""

    labels: list[int]
    confusion: list[list[int]]
    counts: dict[str, dict[int, int]]
    disagreements: list[tuple[str, str, int, int]]

    @property
    def kappa(self) -> float:
        return float(self)

    def check_comparable(self) -> None:
        if self.per_query and math.isnan(self):  # its own reason, before the generic one
            raise MetricError(
                f"judge_agreement({self.mode}): kappa is undefined: the judge and the gold set "
                f"used one and the same label for all {len(self.per_query)} pairs, so agreement "
                "beyond chance cannot be measured; add pairs of other grades"
            )
        super().check_comparable()

    def detail_lines(self, n: int = WORST_EXPLAINED) -> list[str]:
        width = max([len(str(label)) for label in self.labels] + [5])
        head = " " * 12 + " ".join(f"{label:>{width}}" for label in self.labels)
        rows = "gold grade" if self.mode == "graded" else f"gold grade >= {self.extra['rel']}"
        lines = [f"  confusion (rows: {rows}, columns: the judge's {self.extra['unit']}):"]
        lines.append(f"  {head}")
        for label, row in zip(self.labels, self.confusion, strict=True):
            cells = " ".join(f"{count:>{width}}" for count in row)
            lines.append(f"  gold {label:>5}  {cells}")
        shown = self.disagreements[:n]
        if shown:
            lines.append(f"  most disagreed ({len(self.disagreements)} pairs disagree):")
            lines += [
                f"    {query} / {doc}: gold {gold}, judge {judge}"
                for query, doc, gold, judge in shown
            ]
        return lines

    def explain(self, n: int = WORST_EXPLAINED) -> str:
        first = (
            f"{self.label} = kappa {float(self):.4f} ({self.extra['kappa_weights']} weights) over "
            f"{len(self.per_query)} (query, document) pairs, judge {self.extra['judge_model']}"
        )
        if self.excluded:
            first += f" ({len(self.excluded)} pairs left out: {NO_TEXT})"
        return "\n".join([first, *self.detail_lines(n)])


def judge_agreement(
    gold: GoldSet, judge: Judge, mode: str = "graded", *, rel: int = 1
) -> AgreementResult:
    """Cohen's kappa between ``judge`` and the gold grades, over every judged pair with texts."""
    check_choice("agreement mode", mode, AGREEMENT_MODES, MetricError)
    if not isinstance(gold, GoldSet):
        raise MetricError(f"gold must be a GoldSet, got {type(gold).__name__}")
    problem = rel_problem(rel)
    if problem is not None:
        raise MetricError(problem)
    items: list[JudgmentRequest] = []
    grades: list[int] = []
    excluded: dict[str, str] = {}
    for query in gold:
        for doc_id, grade in query.relevant.items():
            document = gold.documents.get(doc_id)
            text = document.text if document is not None else None
            if not query.text or not text:
                excluded[f"{query.id} / {doc_id}"] = NO_TEXT
                continue
            items.append((query.id, query.text, doc_id, text))
            grades.append(max(int(grade), 0))  # a negative grade is judged non-relevant
    if not items:
        raise MetricError(
            f"no (query, judged document) pair of {gold.path} has texts for the judge: "
            "judge_agreement needs query texts and document texts"
        )
    focus = {query.id: query.temporal_focus for query in gold.queries.values()}
    judgments, stopped = judged(
        lambda: judge.grade_all(items) if mode == "graded" else judge.verdict_all(items, focus)
    )
    if stopped:  # a dry run asked nothing: no kappa, and the plugin skips the test
        return _unjudged(gold, judge, mode, rel, excluded, stopped)
    answers = [j.value for j in judgments]
    human = grades if mode == "graded" else [int(grade >= rel) for grade in grades]
    pairs = [(query_id, doc_id) for query_id, _, doc_id, _ in items]
    # the whole scale, used or not: a judge that never says 2 or 3 must not make 4 and 1 neighbours
    scale = np.arange(5) if mode == "graded" else np.arange(2)
    extra = {
        "judge_model": getattr(judge, "model", None),
        "unit": "grade" if mode == "graded" else "verdict",
        "rel": rel,
    }
    return kappa_result(pairs, human, answers, mode, scale, excluded, extra, gold)


def kappa_result(
    pairs: list[tuple[str, str]],
    first_labels: list[int],
    second_labels: list[int],
    mode: str,
    scale: np.ndarray,
    excluded: dict[str, str],
    extra: dict[str, object],
    gold: GoldSet,
) -> AgreementResult:
    """The agreement of two raters' labels of the same (query, doc) ``pairs``: the gold set's
    (rows of the confusion matrix) and the judge's (columns), over the labels of ``scale`` and any
    other either used. Quadratic weights in graded mode, none in binary mode."""
    first, second = np.array(first_labels), np.array(second_labels)
    weights = "quadratic" if mode == "graded" else None
    labels = np.union1d(scale, np.union1d(first, second))
    kappa = cohen_kappa(first, second, weights, labels)
    span = max(int(labels.size) - 1, 1)
    position = {int(label): i for i, label in enumerate(labels.tolist())}
    per_pair = {}
    disagreements = []
    for (query_id, doc_id), ours, theirs in zip(pairs, first_labels, second_labels, strict=True):
        distance = abs(position[ours] - position[theirs]) / span
        per_pair[f"{query_id} / {doc_id}"] = 1 - (distance**2 if weights else float(distance > 0))
        if ours != theirs:
            disagreements.append((query_id, doc_id, ours, theirs))
    disagreements.sort(key=lambda pair: (-abs(position[pair[2]] - position[pair[3]]), pair[:2]))
    result = AgreementResult(
        name="judge_agreement",
        k=None,
        mode=mode,
        per_query=per_pair,
        excluded=excluded,
        extra={**extra, "kappa_weights": weights or "none", "pairs": len(pairs)},
        gold=gold,
        measure=f"judge_agreement({mode})",
        value=kappa,
    )
    result.labels = [int(label) for label in labels.tolist()]
    result.confusion = confusion_matrix(first, second, labels).tolist()
    result.counts = {
        "gold": dict(sorted(Counter(first_labels).items())),
        "judge": dict(sorted(Counter(second_labels).items())),
    }
    result.disagreements = disagreements
    return result


def _unjudged(
    gold: GoldSet, judge: Judge, mode: str, rel: int, excluded: dict[str, str], stopped: str
) -> AgreementResult:
    """The result of an agreement a dry run judged nothing of."""
    result = AgreementResult(
        name="judge_agreement",
        k=None,
        mode=mode,
        per_query={},
        excluded=excluded,
        extra={"judge_model": getattr(judge, "model", None), "rel": rel, "pairs": 0},
        gold=gold,
        measure=f"judge_agreement({mode})",
    )
    result.labels, result.confusion, result.counts, result.disagreements = [], [], {}, []
    result.judge_dry_run = stopped
    return result


@dataclass(frozen=True)
class GoldAgreement:
    """How the LLM's judgments of one gold set agree with a person's in another
    (:func:`gold_agreement`): the kappa result over the pairs both judged, and the pairs only one
    side judged."""

    result: AgreementResult
    only_human: list[tuple[str, str]]  # judged by a person in the first set only
    only_llm: list[tuple[str, str]]  # judged by the LLM in the second set only
    people_in_llm: int  # judgments of the second set a person made: never compared


def gold_agreement(
    human: GoldSet, llm: GoldSet, mode: str = "graded", *, rel: int = 1
) -> GoldAgreement:
    """Cohen's kappa between the judgments a person made in ``human`` and those the LLM judge made
    in ``llm`` (``source: llm:<model>``), over the (query, doc) pairs both judged.

    Only judgments each side's source made count: a gold set pooled with ``--human`` holds the
    person's judgments too, and comparing them with themselves would inflate kappa. Both sets must
    grade on one scale (:attr:`GoldSet.grade_scale`)."""
    check_choice("agreement mode", mode, AGREEMENT_MODES, MetricError)
    problem = rel_problem(rel)
    if problem is not None:
        raise MetricError(problem)
    if human.grade_scale != llm.grade_scale:
        (hl, hh), (ll, lh) = human.grade_scale, llm.grade_scale
        raise MetricError(
            f"{human.path} grades on [{hl}, {hh}] and {llm.path} on [{ll}, {lh}]: agreement "
            "compares grades on one scale; declare grade_scale in both gold sets (or pool again "
            "with --grade-scale)"
        )
    by_person = _judged_by(human, llm_side=False)
    by_llm = _judged_by(llm, llm_side=True)
    if not by_llm:
        raise MetricError(
            f"{llm.path} holds no judgment made by an LLM (source: llm:<model>), so there is "
            "nothing to compare with the person's; give the gold set `tempoeval pool` wrote"
        )
    pairs = [pair for pair in by_person if pair in by_llm]
    if not pairs:
        raise MetricError(
            f"no (query, document) pair is judged both by a person in {human.path} and by the "
            f"LLM in {llm.path}: judge a sample of the pooled pairs by hand first"
        )
    first = [by_person[pair] for pair in pairs]
    second = [by_llm[pair] for pair in pairs]
    if mode == "binary":
        first, second = [int(g >= rel) for g in first], [int(g >= rel) for g in second]
    low, high = human.grade_scale
    scale = np.arange(low, high + 1) if mode == "graded" else np.arange(2)
    models = sorted(
        {
            provenance.source.removeprefix("llm:")
            for query in llm
            for provenance in query.provenance.values()
            if not provenance.is_human
        }
    )
    extra = {
        "judge_model": ", ".join(models),
        "unit": "grade" if mode == "graded" else f"grade >= {rel}",
        "rel": rel,
    }
    result = kappa_result(pairs, first, second, mode, scale, {}, extra, human)
    people = sum(len(query.relevant) for query in llm) - len(by_llm)
    return GoldAgreement(
        result,
        [pair for pair in by_person if pair not in by_llm],
        [pair for pair in by_llm if pair not in by_person],
        people,
    )


def _judged_by(gold: GoldSet, llm_side: bool) -> dict[tuple[str, str], int]:
    """(query, doc) -> grade of the judgments an LLM made (``llm_side``), or a person made; a
    negative grade (qrels) is judged non-relevant, 0."""
    judged = {}
    for query in gold:
        for doc_id, grade in query.relevant.items():
            provenance = query.provenance.get(doc_id)
            by_llm = provenance is not None and not provenance.is_human
            if by_llm == llm_side:
                judged[(query.id, doc_id)] = max(int(grade), 0)
    return judged
