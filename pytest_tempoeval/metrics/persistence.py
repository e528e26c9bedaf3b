"""T-Persistence: a measure's score on one period's queries over its score on another's.

``temporal_persistence(result, early="2000-2009", late="2010-2019", by_period="decade")`` slices
``result`` by period (:meth:`MetricResult.by_period`) and divides the late period's score by the
early one's: 1.0 is no change, 0.75 a quarter lost on the later queries. It is TempoEval's
``TemporalPersistence`` (``target_score / baseline_score``), with the two scores taken from the
slices rather than passed in, no rounding, and no number made up where the ratio has none: an early
score of 0 (TempoEval returns 1.0) or a period with no counted query (TempoEval returns 0.0 for a
missing score) is a :class:`MetricError` naming the period and why. ``docs/conventions.md`` lists
the differences.
"""

from __future__ import annotations

import math

from pytest_tempoeval.constants import WORST_EXPLAINED
from pytest_tempoeval.errors import MetricError
from pytest_tempoeval.metrics.periods import Periods, PeriodSlicing, period_phrase
from pytest_tempoeval.metrics.results import MetricResult

NAME = "T-Persistence"


class PersistenceResult(MetricResult):
    """The ratio ``late / early`` (the float value), with ``.early`` and ``.late``: the two
    periods' results. ``per_query`` and ``excluded`` are both periods' queries, so a check's
    ``fail_on_excluded`` sees what either left out. The baseline gate refuses it (a ratio of two
    means has no per-query scores to pair): gate the measure by period instead."""

    early: MetricResult
    late: MetricResult
    gate_refusal = (
        f"{NAME} is a ratio of two period means, with no per-query score to pair with a baseline: "
        "gate the measure itself by period instead, tempoeval_baseline.check(result, "
        "by_period='decade')"
    )

    def by_period(self, by: object = "decade") -> Periods[MetricResult]:
        raise MetricError(
            f"{self.label} is a ratio of two periods' scores: slice the measure's own result by "
            "period instead"
        )

    def detail_lines(self, n: int = WORST_EXPLAINED) -> list[str]:
        lines = [f"  {part.summary()}" for part in (self.late, self.early)]
        worst = self.late.worst(n)
        if worst:
            from pytest_tempoeval.metrics.explain import query_lines

            lines.append(f"  the worst of the {period_phrase(self.late.period)}:")
            for query in worst:
                lines.extend(f"  {line}" for line in query_lines(self.late, query))
        return lines

    def explain(self, n: int = WORST_EXPLAINED) -> str:
        return "\n".join([self.summary(), *self.detail_lines(n)])

    def summary(self) -> str:
        late, early = (
            f"{float(part):.4f} over {len(part.per_query)} "
            + period_phrase(part.period).replace("queries", _queries(len(part.per_query)), 1)
            for part in (self.late, self.early)
        )
        return f"{self.label} [{self.mode}] = {float(self):.4f}: {late} / {early}"


def _queries(n: int) -> str:
    return "query" if n == 1 else "queries"


def temporal_persistence(
    result: MetricResult,
    early: str,
    late: str,
    *,
    by_period: PeriodSlicing = "decade",
) -> PersistenceResult:
    """``result``'s score on the queries about ``late`` over its score on those about ``early``
    (period labels of ``result.by_period(by_period)``, such as ``"1990-1999"``). 1.0: the later
    period is served as well as the earlier one.

    Raises :class:`MetricError` when a period is not among the result's, has no counted query,
    or the early score is not above 0 (the ratio is then undefined): never inf or NaN."""
    if not isinstance(result, MetricResult):
        raise MetricError(
            f"temporal_persistence takes the MetricResult a metric function returns, got "
            f"{type(result).__name__} {result!r}"
        )
    periods = result.by_period(by_period)
    sides = {"early": _period(periods, early, "early"), "late": _period(periods, late, "late")}
    for side, part in sides.items():
        if not part.per_query:
            reasons = sorted(set(part.excluded.values())) or ["no queries"]
            raise MetricError(
                f"{NAME}: no counted query about {part.period} ({side}), so {result.measure} has "
                f"no score there: {len(part.excluded)} excluded ({'; '.join(reasons)}); choose "
                "another period, or give these queries what the measure needs"
            )
        if math.isnan(part):
            raise MetricError(
                f"{NAME}: {result.measure} is NaN on the queries about {part.period} ({side}): "
                "a counted query scored NaN"
            )
    early_result, late_result = sides["early"], sides["late"]
    denominator = float(early_result)
    if denominator <= 0:
        why = "0, so the ratio is undefined" if denominator == 0 else "negative"
        raise MetricError(
            f"{NAME}: {result.measure} on the {len(early_result.per_query)} queries about "
            f"{early} (early) is {denominator:g}: {why}; a ratio needs an early score above 0. "
            "Compare the two periods' scores themselves "
            f"(result.by_period(...)[{late!r}] - result.by_period(...)[{early!r}]), or choose "
            "another early period"
        )
    persistence = PersistenceResult(
        name="temporal_persistence",
        k=result.k,
        mode=result.mode,
        per_query={**early_result.per_query, **late_result.per_query},
        excluded={**early_result.excluded, **late_result.excluded},
        explain_query=result._details.explain_query,
        gold=result.gold_set,
        fail_on_excluded=result.fail_on_excluded,
        measure=f"{NAME}({result.measure}, {late} / {early})",
        value=float(late_result) / denominator,
        later_extra=lambda: dict(late_result.extra),
        some_known=result._details.some_known,
    )
    persistence.early, persistence.late = early_result, late_result
    persistence.raise_on_failure = result.raise_on_failure
    return persistence


def _period(periods: Periods[MetricResult], label: str, side: str) -> MetricResult:
    if label not in periods:
        raise MetricError(
            f"{NAME}: {side}={label!r} is not a period of {periods.overall.label} by "
            f"{periods.by}; its periods: {', '.join(map(repr, periods)) or 'none'}"
        )
    return periods[label]
