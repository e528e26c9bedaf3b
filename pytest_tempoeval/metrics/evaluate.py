"""Scoring measures by name: ``evaluate(run, gold, ["nDCG@10", "P(rel=2)@5"])``.

Each measure string is parsed (:mod:`.measures`) and scored by its metric function
(:mod:`.functions`), so a measure by name and the function called directly give the same result.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pytest_tempoeval.errors import MetricError
from pytest_tempoeval.metrics import functions
from pytest_tempoeval.metrics.functions import GoldLike, RunLike
from pytest_tempoeval.metrics.llm_judgments import Judge
from pytest_tempoeval.metrics.measures import FUNCTION_GAIN, Measure, parse_measure
from pytest_tempoeval.metrics.results import MetricResult


def evaluate(
    run: RunLike,
    gold: GoldLike,
    measures: Iterable[str | Measure],
    *,
    judge: Judge | None = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
) -> dict[str, MetricResult]:
    """One :class:`MetricResult` per measure, keyed by the measure string as given.

    Every measure is parsed before any is scored, so a misspelled one fails at once. ``judge`` is
    used by the llm-mode measures (``T-nDCG(mode=llm)@10``)."""
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    parsed = {str(text) if isinstance(text, Measure) else text: _parsed(text) for text in measures}
    if not parsed:
        raise MetricError("no measures given; e.g. evaluate(run, gold, ['nDCG@10', 'P@5'])")
    gold, run = functions.as_gold_set(gold), functions.as_run(run)  # load once for them all
    return {
        text: score(
            measure, run, gold, judge=judge, strict=strict, fail_on_excluded=fail_on_excluded
        )
        for text, measure in parsed.items()
    }


def score(
    measure: str | Measure,
    run: RunLike,
    gold: GoldLike,
    *,
    judge: Judge | None = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
) -> MetricResult:
    """One measure's result: ``score("nDCG@10", run, gold)``."""
    parsed = _parsed(measure)
    family, params = parsed.family, dict(parsed.params)
    options: dict[str, Any] = {"strict": strict, "fail_on_excluded": fail_on_excluded}
    if "gain" in params:
        options["gain"] = FUNCTION_GAIN[params.pop("gain")]
    if "mode" in params and parsed.param("mode") == "llm":
        options["judge"] = judge
    options.update(params)
    k: int | str | None = parsed.cutoff
    if k is None and family.whole_ranking:
        k = functions.ALL_RANKS
    return getattr(functions, family.function)(run, gold, k, **options)


def assert_measure(
    measure: str | Measure,
    run: RunLike,
    gold: GoldLike,
    *,
    judge: Judge | None = None,
    strict: bool = False,
    fail_on_excluded: bool | None = None,
) -> MetricResult:
    """``score`` whose comparisons raise AssertionError with the explanation when they fail:
    ``assert_measure("nDCG@10", run, gold) >= 0.8`` works as a bare statement."""
    return score(
        measure, run, gold, judge=judge, strict=strict, fail_on_excluded=fail_on_excluded
    ).checked()


def _parsed(measure: str | Measure) -> Measure:
    return measure if isinstance(measure, Measure) else parse_measure(measure)
