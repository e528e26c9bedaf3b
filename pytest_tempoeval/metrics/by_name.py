"""Scoring measures by name: ``evaluate(run, gold, ["nDCG@10", "P(rel=2)@5"])``.

Each measure string is parsed (:mod:`.measures`) and scored by its spec (:mod:`.scoring`), as its
metric function (:mod:`.functions`) is, so a measure by name and the function called directly give
the same result.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, overload

from pytest_tempoeval.errors import MetricError
from pytest_tempoeval.metrics.measures import Measure, parse_measure
from pytest_tempoeval.metrics.results import MetricResult
from pytest_tempoeval.metrics.scoring import (
    ALL_RANKS,
    Cutoff,
    GoldLike,
    RunLike,
    as_gold_set,
    as_run,
    compute,
)

if TYPE_CHECKING:  # the judge's protocol module: imported by llm mode only
    from pytest_tempoeval.metrics.llm_judgments import Judge
    from pytest_tempoeval.metrics.periods import Periods, PeriodSlicing


@overload
def evaluate(
    run: RunLike,
    gold: GoldLike,
    measures: Iterable[str | Measure],
    *,
    judge: Judge | None = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    empty: str = "exclude",
    fill_grades: Mapping[int, int] | None = None,
    by_period: None = None,
) -> dict[str, MetricResult]: ...


@overload
def evaluate(
    run: RunLike,
    gold: GoldLike,
    measures: Iterable[str | Measure],
    *,
    judge: Judge | None = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    empty: str = "exclude",
    fill_grades: Mapping[int, int] | None = None,
    by_period: PeriodSlicing,
) -> dict[str, Periods[MetricResult]]: ...


def evaluate(
    run: RunLike,
    gold: GoldLike,
    measures: Iterable[str | Measure],
    *,
    judge: Judge | None = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    empty: str = "exclude",
    fill_grades: Mapping[int, int] | None = None,
    by_period: PeriodSlicing | None = None,
) -> dict[str, MetricResult] | dict[str, Periods[MetricResult]]:
    """One :class:`MetricResult` per measure, keyed by the measure string as given.

    Every measure is parsed before any is scored, so a misspelled one fails at once. ``judge`` is
    used by the llm-mode measures (``T-nDCG(mode=llm)@10``), and grades the holes of the gold-mode
    measures that say ``fill=llm`` (``nDCG(fill=llm)@10``), mapped by ``fill_grades`` when given
    (else onto the gold set's scale, docs/judge.md). With ``by_period`` (``"decade"``,
    ``"year"``, ``"century"``, boundary years, or a function from a gold query to a label), each
    measure's result sliced by period instead (:meth:`MetricResult.by_period`): measure ->
    period -> result, ``evaluate(...)["T-nDCG@10"]["1990-1999"]``, the whole result at
    ``.overall``."""
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    parsed = {str(text) if isinstance(text, Measure) else text: _parsed(text) for text in measures}
    if not parsed:
        raise MetricError("no measures given; e.g. evaluate(run, gold, ['nDCG@10', 'P@5'])")
    slicing = None
    if by_period is not None:  # a bad slicing fails before anything is scored
        from pytest_tempoeval.metrics.periods import as_slicing

        slicing = as_slicing(by_period)
    gold, run = as_gold_set(gold), as_run(run)  # load once for them all
    results = {
        text: score(
            measure,
            run,
            gold,
            judge=judge,
            strict=strict,
            fail_on_excluded=fail_on_excluded,
            empty=empty,
            fill_grades=fill_grades,
        )
        for text, measure in parsed.items()
    }
    if slicing is None:
        return results
    return {text: result.by_period(slicing) for text, result in results.items()}


def score(
    measure: str | Measure,
    run: RunLike,
    gold: GoldLike,
    *,
    judge: Judge | None = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    empty: str = "exclude",
    fill_grades: Mapping[int, int] | None = None,
) -> MetricResult:
    """One measure's result: ``score("nDCG@10", run, gold)``. Scored as its function scores it
    (the same spec, :func:`.scoring.compute`), with the parameters as the functions spell them:
    ``fill=llm`` is ``fill_unjudged=judge``."""
    parsed = _parsed(measure)
    spec = parsed.family
    values: dict[str, object] = {key: spec.param(key).value(word) for key, word in parsed.params}
    fill_unjudged = None
    if values.pop("fill", None) == "llm":
        if judge is None:
            raise MetricError(
                f"measure {str(parsed)!r}: fill=llm has the judge grade the unjudged documents; "
                "give evaluate(..., judge=...) (in a test, the tempoeval_judge fixture; the "
                "command line has no judge)"
            )
        fill_unjudged = judge
    k: Cutoff
    if spec.at is not None:  # "@" is a parameter (IPrec@0.5: the recall level), not a cutoff
        if parsed.cutoff is None:
            raise MetricError(f"measure {str(parsed)!r}: {spec.name} needs @{spec.at.name}")
        values[spec.at.name], k = parsed.cutoff, None
    elif isinstance(parsed.cutoff, float):
        raise MetricError(f"measure {str(parsed)!r}: the cutoff after @ must be a whole number")
    else:
        k = ALL_RANKS if parsed.cutoff is None and spec.whole_ranking else parsed.cutoff
    return compute(
        spec,
        run,
        gold,
        k,
        strict,
        fail_on_excluded,
        judge=judge,
        empty=empty,
        fill_unjudged=fill_unjudged,
        fill_grades=fill_grades,
        **values,
    )


def assert_measure(
    measure: str | Measure,
    run: RunLike,
    gold: GoldLike,
    *,
    judge: Judge | None = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
    empty: str = "exclude",
    fill_grades: Mapping[int, int] | None = None,
) -> MetricResult:
    """``score`` whose comparisons raise AssertionError with the explanation when they fail:
    ``assert_measure("nDCG@10", run, gold) >= 0.8`` works as a bare statement."""
    return score(
        measure,
        run,
        gold,
        judge=judge,
        strict=strict,
        fail_on_excluded=fail_on_excluded,
        empty=empty,
        fill_grades=fill_grades,
    ).checked()


def _parsed(measure: str | Measure) -> Measure:
    return measure if isinstance(measure, Measure) else parse_measure(measure)
