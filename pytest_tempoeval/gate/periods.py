"""The gate by period: ``tempoeval_baseline.check(result, by_period="decade")``.

Each period's queries (grouped by their focus time's start year, :mod:`..metrics.periods`) are
compared with their baseline scores by the gate's own rule: the paired randomization test
(:mod:`.randomization`) on the period's paired queries, Holm's correction across the check's tested
periods, and :func:`.verdict.regressed` on the period's drop with ``max_drop`` and the adjusted
p-value. A period regression fails the check even when the overall mean moved within
``max_drop``, and its failure names the period::

    queries about 1990-1999: T-nDCG@10 0.7100 -> 0.4200 (12 queries, p = 0.003, ...)

A period with fewer than :data:`MIN_PERIOD_QUERIES` paired queries is reported with its means but
not tested. A period present in the baseline whose queries are no longer compared (changed or
removed from the gold set), and a period present now that the baseline has no query of, are
reported too. Nothing here reads files: :mod:`.baselines` passes the scores and each query's
period.

A query is compared in the period its baseline entry recorded (``focus_start``: each query's
start year when the baseline was written); entries written before that, and periods given by a
function, read the period from the gold set of the result checked.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pytest_tempoeval.gate import randomization, verdict
from pytest_tempoeval.metrics.periods import (
    Slicing,
    group_queries,
    period_phrase,
    start_year,
)

MIN_PERIOD_QUERIES = 10  # the gate's MIN_QUERIES_FOR_TEST: fewer cannot reach p < 0.05 reliably


class PeriodStatus(StrEnum):
    REGRESSED = "regressed"
    PASS = "pass"
    TOO_FEW = "not tested"  # fewer than MIN_PERIOD_QUERIES paired queries: reported, not tested
    ABSENT = "absent now"  # in the baseline, none of its queries compared now
    NEW = "new"  # queries now, none in the baseline


@dataclass(frozen=True, kw_only=True)
class PeriodComparison:
    """One period of a baseline check."""

    period: str
    status: PeriodStatus
    queries: int  # paired; for NEW the current queries, for ABSENT the baseline's
    baseline: float | None = None
    current: float | None = None
    p_value: float | None = None  # the period's own p (None: not tested)
    p_adjusted: float | None = None  # Holm over the check's tested periods
    tested: int = 0  # how many periods of the check were tested (Holm's family)
    lost: int = 0  # paired queries the result no longer counts (scored 0)

    def describe(self, measure: str) -> str:
        """``queries about 1990-1999: T-nDCG@10 0.7100 -> 0.4200 (12 queries, p = 0.003, ...)``."""
        where = period_phrase(self.period)
        if self.status == PeriodStatus.NEW:
            return f"{where}: new since the baseline, not compared ({_queries(self.queries)})"
        if self.status == PeriodStatus.ABSENT:
            return (
                f"{where}: in the baseline ({_queries(self.queries)}), none compared now (changed "
                "in or removed from the gold set)"
            )
        assert self.baseline is not None and self.current is not None
        facts = [_queries(self.queries)]
        if self.p_value is None:
            facts.append(f"not tested: under {MIN_PERIOD_QUERIES} queries")
        else:
            facts.append(f"p = {self.p_value:.3g}")
            if self.tested > 1:
                facts.append(f"Holm-adjusted {self.p_adjusted:.3g} over {self.tested} periods")
        if self.lost:
            facts.append(f"{self.lost} no longer counted, scored 0")
        return (
            f"{where}: {measure} {self.baseline:.4f} -> {self.current:.4f} "
            f"({self.current - self.baseline:+.4f}; {', '.join(facts)})"
        )


def _queries(n: int) -> str:
    return f"{n} {'query' if n == 1 else 'queries'}"


def compare_periods(
    baseline_scores: Mapping[str, float],
    current_scores: Mapping[str, float],
    baseline_periods: Mapping[str, str],
    stored_periods: Mapping[str, str],
    current_periods: Mapping[str, str],
    starts: Mapping[str, int | None],
    *,
    max_drop: float,
    alpha: float,
    seed: int | None = None,
    permutations: int | None = None,
) -> list[PeriodComparison]:
    """Every period's comparison, in time order.

    ``baseline_scores``: the baseline's compared queries (those :func:`.baselines.compare`
    pairs); ``baseline_periods``: their periods; ``stored_periods``: the period of every query the
    baseline holds (a period none of whose queries is compared is ABSENT); ``current_periods``:
    the periods of the result's queries now (a period the baseline has no query in is NEW);
    ``starts``: start years, for the order. A query the result no longer counts scores 0, as in
    the overall comparison."""
    labels = {**stored_periods, **current_periods, **baseline_periods}
    order = list(group_queries(labels, starts))  # every label, in time order
    compared: dict[str, list[str]] = {}
    for query in sorted(baseline_scores):
        compared.setdefault(baseline_periods[query], []).append(query)
    in_baseline = set(stored_periods.values()) | set(compared)
    tested: list[tuple[str, float]] = []
    rows: dict[str, dict[str, Any]] = {}
    for period in order:
        queries = compared.get(period)
        if queries:
            old = [baseline_scores[query] for query in queries]
            new = [current_scores.get(query, 0.0) for query in queries]
            row: dict[str, Any] = {
                "queries": len(queries),
                "baseline": math.fsum(old) / len(old),
                "current": math.fsum(new) / len(new),
                "lost": sum(query not in current_scores for query in queries),
            }
            if len(queries) >= MIN_PERIOD_QUERIES:
                row["p_value"] = randomization.paired_randomization_p(
                    old,
                    new,
                    seed=randomization.DEFAULT_SEED if seed is None else seed,
                    permutations=permutations or randomization.DEFAULT_PERMUTATIONS,
                )
                tested.append((period, row["p_value"]))
            rows[period] = row
        elif period in in_baseline:
            count = sum(label == period for label in stored_periods.values())
            rows[period] = {"status": PeriodStatus.ABSENT, "queries": count}
        else:
            count = sum(label == period for label in current_periods.values())
            rows[period] = {"status": PeriodStatus.NEW, "queries": count}
    adjusted = dict(
        zip(
            (period for period, _ in tested),
            randomization.holm_adjusted([p for _, p in tested]),
            strict=True,
        )
    )
    comparisons = []
    for period, row in rows.items():
        status = row.pop("status", None)
        if status is None:
            p_adjusted = adjusted.get(period)
            if p_adjusted is None:
                status = PeriodStatus.TOO_FEW
            elif verdict.regressed(row["baseline"] - row["current"], max_drop, p_adjusted, alpha):
                status = PeriodStatus.REGRESSED
            else:
                status = PeriodStatus.PASS
            row["p_adjusted"] = p_adjusted
            row["tested"] = len(tested)
        comparisons.append(PeriodComparison(period=period, status=status, **row))
    return comparisons


def period_note(comparisons: list[PeriodComparison], by: str) -> str:
    """What the check's note says of its periods (summary, reports): which regressed, which were
    not tested and why, which are new or absent; never silent about a period."""
    if not comparisons:
        return ""

    def named(status: PeriodStatus, with_counts: bool = True) -> list[str]:
        return [
            f"{c.period} ({_queries(c.queries)})" if with_counts else c.period
            for c in comparisons
            if c.status == status
        ]

    regressed = named(PeriodStatus.REGRESSED, with_counts=False)
    tested = sum(c.p_value is not None for c in comparisons)
    parts = [
        f"by {by}: regressed in {', '.join(regressed)}"
        if regressed
        else f"by {by}: {tested} of {len(comparisons)} periods tested, none regressed"
    ]
    for status, what in (
        (PeriodStatus.TOO_FEW, f"not tested (under {MIN_PERIOD_QUERIES} queries)"),
        (PeriodStatus.NEW, "new since the baseline, not compared"),
        (PeriodStatus.ABSENT, "in the baseline, none compared now"),
    ):
        periods = named(status)
        if periods:
            parts.append(f"{what}: {', '.join(periods)}")
    return "; ".join(parts)


def period_starts(result: Any) -> dict[str, int] | None:
    """What a baseline entry stores of each counted query's period: its focus time's start year
    (queries with none are left out), or None for a result with no gold set."""
    gold = result.gold_set
    if gold is None:
        return None
    queries = gold.queries
    starts = {query: start_year(queries.get(query)) for query in sorted(result.per_query)}
    return {query: start for query, start in starts.items() if start is not None}


def stored_labels(
    slicing: Slicing, stored: Mapping[str, Any], current: Mapping[str, str]
) -> dict[str, str]:
    """The period of every query a baseline entry holds: from the start years it stored
    (``focus_start``), or, for an entry written before them or periods a function gives, the
    period the query has now (``current``; a query the result no longer has is left out)."""
    scores = stored["per_query"]
    starts = stored.get("focus_start")
    if starts is None or not slicing.by_year:
        return {query: current[query] for query in scores if query in current}
    return {query: slicing.period_of_year(starts.get(query)) for query in scores}
