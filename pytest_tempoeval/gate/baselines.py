"""Regression baselines: one JSON file per test, and the gate that compares a result with it.

A file (``<baseline dir>/<test module>/<test name>.json``) holds one entry per checked result:
per-query scores, the mean, k, mode, the gold set's fingerprint and the judge model. The gate is
one-sided. A check fails only when the mean dropped by more than ``max_drop`` and, when 10 or more
queries are paired, the drop is significant (:mod:`.randomization`, p < ``alpha``). With fewer
queries a
test has too little power to mean anything, so ``max_drop`` alone decides.

Files are written only with ``--tempoeval-update-baseline``, atomically (temporary file, then
rename), once per test at teardown, and only when their content changes.

Entries are keyed by the measure string (``nDCG@10``, ``T-nDCG@10``). Files written before measure
strings keyed them ``ndcg@10 gold``; they are still read.

Gold-mode entries also store each query's Judged@k. When it fell by more than
``JUDGED_DROP_NOTED``, a drop may come from documents nobody judged rather than a worse ranking,
and the comparison says so.

A changed gold set does not void the baselines on it. Each entry also keeps, per query, a hash of
what its mode reads of the gold set for that query (gold: the query's judgments; focus_time: its
focus time; llm: its text and temporal focus), and one hash of what every query reads (focus_time:
every document's focus time, which the ideal ranking pools; llm: the documents' texts; gold:
nothing but the identical-ids rule). When the gold set changed, the queries whose part is unchanged
are compared, and those changed, added or removed are named (in the check's note and a
:class:`BaselineWarning`); a change to the shared part, or to every query, asks for a re-baseline.
Files written before these hashes void the check on any change of the gold set, as they did.

With ini ``tempoeval_baseline_rankings = true`` each entry also stores each query's top
``min(k, RANKING_DEPTH)`` retrieved ids (``top``), for at most ``RANKED_QUERIES`` queries (the
first by id): the HTML report then shows a dropped query's old and new top k side by side. The
rankings are shown, never compared: they are not part of any fingerprint, and files without them
(older ones, or written with the key off) gate exactly as before.

With the Holm correction (ini ``tempoeval_gate_correction = holm``) a significant drop does not
fail its test at once: its status is "pending", and the session decides every pending check
together at its end (:func:`.randomization.holm_adjusted`).

One module on purpose, though longer than most: the baseline file's format (``entry_for``,
``_validated``), the store that reads and writes it and the comparison that reads its entries change
together; split, one format would be spread over three files.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pytest_tempoeval.constants import REGRESSED_LISTED, SCORE_TOLERANCE, WORST_NAMED
from pytest_tempoeval.data.readers.structured import Source, strict_json
from pytest_tempoeval.errors import BaselineError, BaselineRegression, BaselineWarning, warn
from pytest_tempoeval.files import (
    per_test_path,
    regular_file_problem,
    test_file,
    warn_legacy,
    write_atomically,
)
from pytest_tempoeval.gate import randomization, verdict
from pytest_tempoeval.gate.randomization import Correction
from pytest_tempoeval.gate.verdict import (
    DEFAULT_ALPHA,
    DEFAULT_MAX_DROP,
    Verdict,
    valid_alpha,
    valid_max_drop,
)
from pytest_tempoeval.metrics.explain import format_offset, query_lines
from pytest_tempoeval.metrics.results import MetricResult

if TYPE_CHECKING:
    from pytest_tempoeval.gate.periods import PeriodComparison
    from pytest_tempoeval.metrics.periods import PeriodSlicing, Slicing

FORMAT_VERSION = 1
MIN_QUERIES_FOR_TEST = 10  # below this the randomization test cannot reach p < 0.05 reliably
PENDING_NOTE = "pending: decided with the session's Holm correction"
_VERDICT_NOTES = {
    Verdict.IMPROVED: "baseline can be raised",
    Verdict.REGRESSED: "regressed",
    Verdict.WRITTEN: "baseline written",
    Verdict.INCOMPLETE: "queries left out (fail_on_excluded)",
    Verdict.UNKNOWN_IDS: "retrieved ids unknown to the gold set (fail_on_unknown_ids)",
    Verdict.PENDING: PENDING_NOTE,
}
# The rankings a baseline stores (ini tempoeval_baseline_rankings): each query's top 10 ids at
# most, for 2,000 queries at most (the first by id). With 36-character ids (UUIDs) that is about
# 1 MB of JSON at worst; the per-query scores stay the file's main content below that.
RANKING_DEPTH = 10
RANKED_QUERIES = 2_000
PERIODS_LISTED = 12  # a failure by period lists every period up to this many, else the regressed
JUDGED_DROP_NOTED = 0.05  # a fall of the mean Judged@k larger than this is named in the verdict


@dataclass(frozen=True, kw_only=True)
class BaselineComparison:
    """The outcome of one check, for messages and reports."""

    key: str
    status: Verdict
    baseline: float | None
    current: float
    queries: int  # paired queries
    p_value: float | None = None  # None: not tested (written, or fewer than MIN_QUERIES_FOR_TEST)
    max_drop: float = DEFAULT_MAX_DROP
    alpha: float = DEFAULT_ALPHA
    # (query, old, new), worst first
    regressed: list[tuple[str, float, float]] = field(default_factory=list)
    baseline_scores: dict[str, float] = field(default_factory=dict, repr=False)
    lost: list[str] = field(default_factory=list)  # baseline queries no longer counted (scored 0)
    judged_note: str = ""  # "Judged@10 fell from 0.98 to 0.71: ..." (gold mode)
    gold_note: str = ""  # the queries changed in the gold set since the baseline, not compared
    # by_period (gate/periods.py): each period's comparison, how they were sliced, and the note
    periods: tuple[PeriodComparison, ...] = ()
    by_period: str = ""
    period_note: str = ""
    # "retrieved documents moved 6.2 years older on average ...": the temporal diagnostics' change
    temporal_note: str = ""
    # the baseline's top k ids of the regressed queries it stored them for (None: the baseline
    # stores no rankings; ini tempoeval_baseline_rankings), for the report's old-vs-new rankings
    baseline_top: dict[str, list[str]] | None = field(default=None, repr=False)
    # by_period: the period of each compared query, for the report's chart per period
    query_periods: dict[str, str] = field(default_factory=dict, repr=False)
    # "grades filled by the judge: 10.0% -> 35.0% of the top 10 ...": gold mode with fill=llm
    filled_note: str = ""

    @property
    def delta(self) -> float | None:
        return None if self.baseline is None else self.current - self.baseline

    @property
    def passed(self) -> bool:
        return self.status.passed

    @property
    def pending(self) -> bool:
        """Left to the session's Holm correction, which decides it at the session's end."""
        return self.status == Verdict.PENDING

    @property
    def note(self) -> str:
        verdict = _VERDICT_NOTES.get(self.status, "")
        return "; ".join(
            filter(
                None,
                [
                    verdict,
                    self.judged_note,
                    self.filled_note,
                    self.gold_note,
                    self.period_note,
                    self.temporal_note,
                ],
            )
        )

    @property
    def period_figures(self) -> list[dict[str, Any]]:
        """Each period's comparison as plain data (reports), with the ids of its compared
        queries."""
        members: dict[str, list[str]] = {}
        for query, period in sorted(self.query_periods.items()):
            members.setdefault(period, []).append(query)
        return [
            {
                "period": c.period,
                "status": str(c.status),
                "queries": c.queries,
                "baseline": c.baseline,
                "current": c.current,
                "p_value": c.p_value,
                "p_adjusted": c.p_adjusted,
                "ids": members.get(c.period, []),
            }
            for c in self.periods
        ]

    @property
    def regressed_periods(self) -> list[str]:
        """The periods whose queries regressed (by_period), in time order."""
        from pytest_tempoeval.gate.periods import PeriodStatus

        return [c.period for c in self.periods if c.status == PeriodStatus.REGRESSED]

    def describe(self) -> str:
        """One line: old -> new, the drop allowed and the p-value."""
        if self.baseline is None:
            return (
                f"{self.key}: {self.current:.4f} written as the baseline ({self.queries} queries)"
            )
        test = (
            f"p = {self.p_value:.4g} (paired randomization, one-sided, alpha {self.alpha:g})"
            if self.p_value is not None
            else f"no significance test under {MIN_QUERIES_FOR_TEST} queries"
        )
        line = (
            f"{self.key}: {self.baseline:.4f} -> {self.current:.4f} ({self.delta:+.4f}; "
            "drop allowed "
            f"{self.max_drop:g}), {test}, {self.queries} paired queries"
        )
        return "\n  ".join(
            filter(
                None,
                [line, self.judged_note, self.filled_note, self.gold_note, self.temporal_note],
            )
        )


def compare(
    key: str,
    baseline_scores: dict[str, float],
    current_scores: dict[str, float],
    max_drop: float,
    alpha: float,
    seed: int | None = None,
    permutations: int | None = None,
    judged: tuple[dict[str, float], dict[str, float], str] | None = None,
) -> BaselineComparison:
    """The gate, on per-query scores paired by query id (pure: no files). ``judged``: the
    baseline's and the current Judged@k per query, and the measure's name (``Judged@10``)."""
    # Paired over the baseline's queries. One the result no longer counts (in llm mode, nothing
    # judged relevant) scores 0: dropping it from the comparison would hide the worst regression.
    # Queries new since the baseline are not compared (a changed gold set asks for a re-baseline).
    shared = sorted(baseline_scores)
    old = [baseline_scores[query] for query in shared]
    new = [current_scores.get(query, 0.0) for query in shared]
    lost = [query for query in shared if query not in current_scores]
    baseline, current = math.fsum(old) / len(old), math.fsum(new) / len(new)
    drop = baseline - current
    p_value = None
    if len(shared) >= MIN_QUERIES_FOR_TEST:
        p_value = randomization.paired_randomization_p(
            old,
            new,
            seed=randomization.DEFAULT_SEED if seed is None else seed,
            permutations=permutations or randomization.DEFAULT_PERMUTATIONS,
        )
    worse = sorted(
        (
            (query, o, n)
            for query, o, n in zip(shared, old, new, strict=True)
            if n < o - SCORE_TOLERANCE
        ),
        key=lambda item: (item[2] - item[1], item[0]),
    )
    if verdict.regressed(drop, max_drop, p_value, alpha):
        status = Verdict.REGRESSED
    else:
        status = Verdict.IMPROVED if current > baseline + SCORE_TOLERANCE else Verdict.PASS
    return BaselineComparison(
        key=key,
        status=status,
        baseline=baseline,
        current=current,
        queries=len(shared),
        p_value=p_value,
        max_drop=max_drop,
        alpha=alpha,
        regressed=worse,
        baseline_scores=baseline_scores,
        lost=lost,
        judged_note=judged_note(*judged, shared) if judged else "",
    )


def judged_note(
    baseline: dict[str, float], current: dict[str, float], name: str, queries: list[str]
) -> str:
    """What to say when the mean Judged@k over the paired queries fell by more than
    JUDGED_DROP_NOTED (nothing otherwise)."""
    paired = [query for query in queries if query in baseline and query in current]
    if not paired:
        return ""
    before = math.fsum(baseline[query] for query in paired) / len(paired)
    after = math.fsum(current[query] for query in paired) / len(paired)
    if before - after <= JUDGED_DROP_NOTED + SCORE_TOLERANCE:
        return ""
    return (
        f"{name} fell from {before:.2f} to {after:.2f}: part of this drop may be unjudged "
        "documents, not worse ranking; judge them (mode='llm') or add judgments"
    )


def entry_for(result: Any, rankings: bool = False) -> dict[str, Any]:
    """What a baseline file stores for one metric result; with ``rankings``, each query's top k
    ids too (bounded: RANKING_DEPTH, RANKED_QUERIES)."""
    entry = {
        "metric": result.name,
        "measure": result.measure,
        "k": result.k,
        "mode": result.mode,
        "score": float(result),
        "queries": len(result.per_query),
        "gold_fingerprint": result.gold_fingerprint,
        "judge_model": result.extra.get("judge_model"),
        "per_query": dict(sorted(result.per_query.items())),
    }
    if result.judged is not None:  # gold mode
        entry["judged"] = dict(sorted(result.judged.items()))
    filled = getattr(result, "filled", None)
    if filled is not None:  # gold mode with fill=llm: the share of each top k the judge graded
        entry["filled"] = dict(sorted(filled.shares.items()))
    fingerprints = result.gold_fingerprints
    if fingerprints is not None:  # what the mode reads of the gold set, per query and shared
        entry["query_fingerprints"] = dict(sorted(fingerprints[0].items()))
        entry["shared_fingerprint"] = fingerprints[1]
    starts = _period_starts(result)
    if starts is not None:  # each query's period as written, for checks by period
        entry["focus_start"] = starts
    temporal = temporal_entry(result)
    if temporal is not None:
        entry["temporal"] = temporal
    if rankings:
        top = ranking_entry(result)
        if top is not None:
            entry["top"] = top
    return entry


def ranking_entry(result: Any) -> dict[str, list[str]] | None:
    """Each counted query's top ``min(k, RANKING_DEPTH)`` ids, for the first RANKED_QUERIES
    queries by id; None for a result that does not know its rankings."""
    depth = min(result.k or RANKING_DEPTH, RANKING_DEPTH)
    queries = sorted(result.per_query)[:RANKED_QUERIES]
    top: dict[str, list[str]] | None = result.top_ids(depth, queries)
    return top


def _period_starts(result: Any) -> dict[str, int] | None:
    """Each counted query's focus-time start year (gate/periods.py), when the result knows its
    gold set's queries (not judge agreement's pairs)."""
    if result.gold_set is None or result.gold_fingerprints is None:
        return None
    from pytest_tempoeval.gate.periods import period_starts

    return period_starts(result)


@dataclass(frozen=True)
class GoldChanges:
    """The queries of the gold set whose part a measure reads changed since its baseline."""

    changed: list[str]  # in both, changed
    added: list[str]  # in the gold set now, not in the baseline's
    removed: list[str]  # in the baseline's gold set, no longer in it

    @classmethod
    def between(cls, stored: dict[str, Any], entry: dict[str, Any]) -> GoldChanges:
        old, new = stored["query_fingerprints"], entry["query_fingerprints"]
        return cls(
            sorted(query for query in old if query in new and old[query] != new[query]),
            sorted(query for query in new if query not in old),
            sorted(query for query in old if query not in new),
        )

    @property
    def not_compared(self) -> set[str]:
        """Baseline queries left out of the comparison: their scores measured something else."""
        return {*self.changed, *self.removed}

    def describe(self, command: str) -> str:
        """``3 queries changed in the gold set since the baseline, not compared: q1, q7, q9;
        re-baseline with: ...``, or "" when nothing it reads changed."""
        parts = [
            f"{_counted(queries, 'query', 'queries')} {what}: {_listed(queries)}"
            for queries, what in (
                (self.changed, "changed in the gold set since the baseline, not compared"),
                (self.added, "added to the gold set since the baseline, not compared"),
                (self.removed, "removed from the gold set since the baseline"),
            )
            if queries
        ]
        return f"{'; '.join(parts)}; re-baseline with: {command}" if parts else ""


def _counted(items: list[str], one: str, many: str) -> str:
    return f"{len(items)} {one if len(items) == 1 else many}"


def _listed(queries: list[str]) -> str:
    shown = ", ".join(queries[:REGRESSED_LISTED])
    more = len(queries) - REGRESSED_LISTED
    return f"{shown} and {more} more" if more > 0 else shown


class BaselineStore:
    """This test's baseline file: ``check`` results against it, or collect them to write it."""

    def __init__(
        self,
        path: Path,
        update: bool,
        test_id: str = "",
        max_drop: float = DEFAULT_MAX_DROP,
        on_check: Callable[[Any, BaselineComparison, str], None] | None = None,
        defer: bool = False,
        correction: str = Correction.NONE,
        by_period: PeriodSlicing | Slicing | None = None,
        rankings: bool = False,
    ) -> None:
        self.path = path
        self.rankings = rankings  # ini tempoeval_baseline_rankings: store each query's top k
        self.by_period = by_period  # ini tempoeval_by_period: every check's default slicing
        # With defer (the fixture's), a failed check is kept and the test goes on: every check
        # runs and is reported, and the test fails at its end listing them all (regressions).
        self.defer = defer
        self.regressions: list[str] = []
        self.correction = correction  # "holm": significant drops are decided at session end
        self.update = update  # --tempoeval-update-baseline: write instead of check
        self.test_id = test_id
        self.max_drop = max_drop  # the tempoeval_max_drop ini default
        self._on_check = on_check  # reports each comparison to the session
        self._entries: dict[str, dict[str, Any]] = {}  # checked in this test, by key
        self._stored: dict[str, Any] | None = None
        self.source: Path | None = None  # the legacy place to read from, until the next write

    def __repr__(self) -> str:
        return f"BaselineStore({str(self.path)!r}, update={self.update})"

    @classmethod
    def for_test(cls, directory: Path, test: str, update: bool, **options: Any) -> BaselineStore:
        """The store of the test with node id ``test``."""
        path, legacy = test_file(directory, test, ".json")
        store = cls(path, update, test, **options)
        if legacy is not None and _owner(legacy) in (None, test):
            # read there while the file is at its legacy place; the next update moves it
            warn_legacy(legacy, path, "--tempoeval-update-baseline moves it")
            store.source = legacy
        return store

    @property
    def update_command(self) -> str:
        return (
            f"pytest {self.test_id!r} --tempoeval-update-baseline"
            if self.test_id
            else "--tempoeval-update-baseline"
        )

    # -- the gate ---------------------------------------------------------------------------------

    def check(
        self,
        result: Any,
        max_drop: float | None = None,
        alpha: float = DEFAULT_ALPHA,
        *,
        name: str | None = None,
        seed: int | None = None,
        by_period: PeriodSlicing | Literal[False] | None = None,
    ) -> BaselineComparison:
        """Compare ``result`` with its baseline; on a significant drop, raise
        :class:`BaselineRegression`, or with ``defer`` (the ``tempoeval_baseline`` fixture) note it
        and go on: the test fails when it ends, listing every failed check.

        ``name`` tells apart two results of the same measure in one test (default: the measure,
        ``nDCG@10``). ``by_period`` (``"decade"``, ``"year"``, ``"century"``, boundary years, a
        function from a gold query to a label; default: ini ``tempoeval_by_period``, ``False``
        for none) also tests each period's queries, and fails naming the period that regressed
        (:mod:`.periods`).
        """
        __tracebackhide__ = True  # failures point at the test's line, not here
        if not isinstance(result, MetricResult):
            raise TypeError(
                f"tempoeval_baseline.check() takes a MetricResult, the value a metric function "
                f"(ndcg(...), temporal_ndcg(...)) or evaluate(...)[measure] returns, got "
                f"{type(result).__name__} {result!r}: pass the result itself, not float(result)"
            )
        if result.gate_refusal:
            raise TypeError(f"tempoeval_baseline.check(): {result.gate_refusal}")
        slicing, explicit = self._slicing(by_period)
        max_drop = self.max_drop if max_drop is None else max_drop
        if result.judge_dry_run:  # nothing was judged: nothing to write or compare; skipped
            return BaselineComparison(
                key=name or result.measure,
                status=Verdict.DRY_RUN,
                baseline=None,
                current=math.nan,
                queries=0,
            )
        result.check_comparable()  # a result with no counted query is an error, never a pass
        if not (valid_max_drop(max_drop) and valid_alpha(alpha)):
            raise ValueError(
                f"max_drop must be >= 0 and alpha in (0, 1), got {max_drop!r} and {alpha!r}"
            )
        key = name or result.label  # the measure; for one period's result, with the period
        if key in self._entries:
            raise BaselineError(
                f"{self.test_id}: {key} is checked twice in this test; "
                "pass name=... to tell them apart"
            )
        entry = entry_for(result, self.rankings and self.update)
        self._entries[key] = entry
        if self.update:
            comparison = BaselineComparison(
                key=key,
                status=Verdict.WRITTEN,
                baseline=None,
                current=float(result),
                queries=len(result.per_query),
                max_drop=max_drop,
                alpha=alpha,
            )
        else:
            legacy = None if name or result.period else _legacy_key(result)
            stored = self._stored_entry(key, entry, legacy)
            baseline_scores, gold_note = self._unchanged_scores(key, stored, entry)
            judged = None
            if "judged" in stored and "judged" in entry:
                judged = (stored["judged"], entry["judged"], judged_measure(result))
            comparison = compare(
                key, baseline_scores, entry["per_query"], max_drop, alpha, seed, judged=judged
            )
            comparison = replace(
                comparison,
                gold_note=gold_note,
                temporal_note=temporal_note(
                    stored.get("temporal"), entry.get("temporal"), baseline_scores
                ),
                baseline_top=_regressed_rankings(stored, comparison),
                filled_note=filled_note(
                    stored.get("filled"), entry.get("filled"), baseline_scores, result.k
                ),
            )
            if slicing is not None:
                comparison = self._by_period(
                    comparison, result, slicing, explicit, stored, baseline_scores, seed
                )
        left_out, unknown = result.exclusion_failure(), result.unknown_ids_failure()
        if comparison.gold_note and result.strict_exclusions:  # left out of the comparison
            left_out = "; ".join(filter(None, [left_out, comparison.gold_note]))
        if (left_out or unknown) and comparison.passed:
            status = Verdict.INCOMPLETE if left_out else Verdict.UNKNOWN_IDS
            comparison = replace(comparison, status=status)
        elif (
            self.correction == Correction.HOLM
            and comparison.status == Verdict.REGRESSED
            and comparison.p_value is not None  # tested: the session's family decides
            and not (left_out or unknown)
        ):
            comparison = replace(comparison, status=Verdict.PENDING)
        if comparison.regressed_periods and comparison.status != Verdict.REGRESSED:
            # decided here, by the check's own Holm family of periods: never left pending
            comparison = replace(comparison, status=Verdict.REGRESSED)
        message = ""
        if not comparison.passed or comparison.pending:
            message = self._regression_message(comparison, result)
            if left_out:
                message += (
                    f"\n  fails because nothing may be left out (fail_on_excluded): {left_out}"
                )
            if unknown:
                message += (
                    "\n  fails because every retrieved id must be known (fail_on_unknown_ids): "
                    f"{unknown}"
                )
        if self._on_check is not None:
            self._on_check(result, comparison, message)
        if comparison.passed:
            return comparison
        if not self.defer:
            raise BaselineRegression(message)
        self.regressions.append(message)
        return comparison

    # -- by period (gate/periods.py) -------------------------------------------------------------

    def _slicing(self, by_period: object) -> tuple[Slicing | None, bool]:
        """The check's slicing (None: not by period), and whether the call asked for it (the
        ini default does not fail a result that cannot be sliced: its note says why)."""
        __tracebackhide__ = True  # failures point at the test's line, not here
        if by_period is False:
            return None, True
        given = by_period if by_period is not None else self.by_period
        if given is None:
            return None, False
        from pytest_tempoeval.metrics.periods import as_slicing

        return as_slicing(given), by_period is not None

    def _by_period(
        self,
        comparison: BaselineComparison,
        result: MetricResult,
        slicing: Slicing,
        explicit: bool,
        stored: dict[str, Any],
        baseline_scores: dict[str, float],
        seed: int | None,
    ) -> BaselineComparison:
        """``comparison`` with each period's comparison and their note."""
        __tracebackhide__ = True  # failures point at the test's line, not here
        from pytest_tempoeval.errors import MetricError
        from pytest_tempoeval.gate.periods import compare_periods, period_note, stored_labels
        from pytest_tempoeval.metrics.periods import query_periods

        gold = result.gold_set
        ids = [*result.per_query, *(q for q in result.excluded if q not in result.per_query)]
        try:
            if gold is None or result.gold_fingerprints is None:
                raise MetricError(
                    f"{result.label} cannot be sliced by period: its scores are not per gold query"
                )
            current, starts = query_periods(slicing, gold.queries, ids, result.label)
        except MetricError as error:
            if explicit:
                raise
            return replace(comparison, period_note=f"not checked by {slicing.description}: {error}")
        held = stored_labels(slicing, stored, current)
        stored_starts = stored.get("focus_start") or {}
        periods = compare_periods(
            baseline_scores,
            result.per_query,
            {
                query: held.get(query) or current.get(query) or "not in the gold set now"
                for query in baseline_scores
            },
            held,
            {query: current[query] for query in result.per_query},
            {**stored_starts, **{q: s for q, s in starts.items() if s is not None}},
            max_drop=comparison.max_drop,
            alpha=comparison.alpha,
            seed=seed,
        )
        return replace(
            comparison,
            periods=tuple(periods),
            by_period=slicing.description,
            period_note=period_note(periods, slicing.description),
            query_periods={
                query: held.get(query) or current.get(query) or "not in the gold set now"
                for query in baseline_scores
            },
        )

    def _period_lines(self, comparison: BaselineComparison, measure: str) -> list[str]:
        """Every period of a check by period, the regressed ones marked."""
        if not comparison.periods:
            return []
        from pytest_tempoeval.gate.periods import MIN_PERIOD_QUERIES, PeriodStatus

        lines = [
            (
                f"  by {comparison.by_period} (each query in the period of its focus time's "
                f"start year; under {MIN_PERIOD_QUERIES} queries a period is reported, not "
                "tested):"
            )
        ]
        shown = [
            period
            for period in comparison.periods
            if len(comparison.periods) <= PERIODS_LISTED or period.status == PeriodStatus.REGRESSED
        ]
        for period in shown:
            mark = "REGRESSED " if period.status == PeriodStatus.REGRESSED else ""
            lines.append(f"    {mark}{period.describe(measure)}")
        if len(shown) < len(comparison.periods):  # the note names the untested ones
            lines.append(
                f"    and {len(comparison.periods) - len(shown)} more periods that did not regress"
            )
        return lines

    def _unchanged_scores(
        self, key: str, stored: dict[str, Any], entry: dict[str, Any]
    ) -> tuple[dict[str, float], str]:
        """The baseline's per-query scores of the queries whose part of the gold set is unchanged,
        and the note naming the others ("" when the gold set is the baseline's)."""
        __tracebackhide__ = True  # failures point at the test's line, not here
        scores = stored["per_query"]
        if stored.get("gold_fingerprint") == entry["gold_fingerprint"]:
            return scores, ""
        changes = GoldChanges.between(stored, entry)  # _stored_entry checked both have them
        note = changes.describe(self.update_command)
        kept = {
            query: score for query, score in scores.items() if query not in changes.not_compared
        }
        if not kept:
            raise BaselineError(
                f"{self.path}: re-baseline: every query the baseline of {key} scored changed in "
                f"the gold set ({note})"
            )
        if note:
            warn(BaselineWarning(f"{self.test_id or self.path}: {key}: {note}"))
        return kept, note

    def regression_report(self) -> str:
        """Every failed check of this test, for the failure at its end."""
        count = len(self.regressions)
        head = f"{count} baseline check{'s' if count != 1 else ''} of this test failed:"
        return "\n".join([head, *self.regressions])

    def _stored_entry(
        self, key: str, entry: dict[str, Any], legacy_key: str | None = None
    ) -> dict[str, Any]:
        __tracebackhide__ = True  # failures point at the test's line, not here
        entries = self.read()["results"]
        stored: dict[str, Any] | None = entries.get(key)
        if stored is None and legacy_key is not None:  # a file written before measure strings
            stored = entries.get(legacy_key)
        if stored is None:
            same_metric = [k for k, e in entries.items() if e.get("metric") == entry["metric"]]
            if same_metric:
                raise BaselineError(
                    f"{self.path}: re-baseline: the baseline has {', '.join(same_metric)} but the "
                    f"test now checks {key} (k or mode changed). If that is intended, run: "
                    f"{self.update_command}"
                )
            raise BaselineError(
                f"{self.path}: no baseline for {key} yet. Create it with: {self.update_command}"
            )
        for field_name, what in (
            ("measure", "measure"),  # name= keys a check by hand: another measure may reuse it
            ("k", "k"),
            ("mode", "mode"),
            ("gold_fingerprint", "gold set"),
            ("judge_model", "judge model"),
        ):
            if field_name == "measure" and field_name not in stored:
                continue  # written before measure strings
            if field_name == "gold_fingerprint" and self._per_query(key, stored, entry):
                continue  # compared query by query
            if stored.get(field_name) != entry[field_name]:
                old, new = stored.get(field_name), entry[field_name]
                shown = (
                    (old[:12], new[:12])
                    if field_name == "gold_fingerprint" and old and new
                    else (old, new)
                )
                raise BaselineError(
                    f"{self.path}: re-baseline: the {what} changed since the baseline of {key} "
                    f"({shown[0]} -> {shown[1]}); scores are not comparable. "
                    "If the change is intended, "
                    f"run: {self.update_command}"
                )
        return stored

    def _per_query(self, key: str, stored: dict[str, Any], entry: dict[str, Any]) -> bool:
        """Whether a changed gold set can be compared query by query: the baseline has per-query
        hashes (files written before them have not) and what every query reads is unchanged."""
        __tracebackhide__ = True  # failures point at the test's line, not here
        if "query_fingerprints" not in stored or "query_fingerprints" not in entry:
            return False
        if stored.get("shared_fingerprint") != entry["shared_fingerprint"]:
            shared = {
                "focus_time": "the documents' focus times, which every query's ideal ranking reads",
                "llm": "the documents' texts, which the judge reads",
            }.get(entry["mode"], "how the gold set matches documents")
            raise BaselineError(
                f"{self.path}: re-baseline: what every query of {key} reads changed in the gold "
                f"set since the baseline ({shared}); scores are not comparable. If the change is "
                f"intended, run: {self.update_command}"
            )
        return True

    def _regression_message(self, comparison: BaselineComparison, result: Any) -> str:
        regression = comparison.status in (Verdict.REGRESSED, Verdict.PENDING)
        what = "regression" if regression else "failed check"
        if comparison.regressed_periods:
            from pytest_tempoeval.metrics.periods import period_phrase

            what += " on " + ", ".join(map(period_phrase, comparison.regressed_periods))
        lines = [f"{self.test_id}: {what} against {self.path}", f"  {comparison.describe()}"]
        lines.extend(self._period_lines(comparison, result.measure))
        shown = comparison.regressed[:REGRESSED_LISTED]
        if shown:
            more = len(comparison.regressed) - len(shown)
            lines.append(
                f"  regressed queries (old -> new), worst first{f'; {more} more' if more else ''}:"
            )
            lost = set(comparison.lost)
            lines.extend(
                f"    {query}: {old:.4f} -> {new:.4f} ({new - old:+.4f})"
                + (
                    f"  [no longer counted: {result.excluded.get(query, 'not in the result')}; "
                    "scored 0]"
                    if query in lost
                    else ""
                )
                for query, old, new in shown
            )
            lines.append(
                f"  what the worst {min(WORST_NAMED, len(shown))} retrieved now (doc(relevance)):"
            )
            for query, _, _ in shown[:WORST_NAMED]:
                lines.extend(f"  {line}" for line in query_lines(result, query))
        lines.append(f"  If the drop is intended, re-baseline with: {self.update_command}")
        return "\n".join(lines)

    # -- the file ---------------------------------------------------------------------------------

    def read(self) -> dict[str, Any]:
        """The whole file, validated; read once per test."""
        __tracebackhide__ = True  # failures point at the test's line, not here
        if self._stored is not None:
            return self._stored
        source = self.source or self.path
        if os.path.exists(source) and (problem := regular_file_problem(source, "baseline")):
            raise BaselineError(problem)  # a FIFO would wait for a writer
        try:
            text = source.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise BaselineError(
                f"{self.path}: no baseline yet. Create it with: {self.update_command}"
            ) from None
        except (OSError, UnicodeDecodeError) as error:
            raise BaselineError(f"{self.path}: cannot read the baseline ({error})") from None
        problem = None
        data: object = None
        try:  # a duplicate key, NaN or Infinity is refused with its line, as a JSON run's is
            data = strict_json(text, Source(self.path, BaselineError))
        except BaselineError as error:
            problem = str(error)
        if problem is not None:  # raised outside the handler: no "during handling..." chain
            raise BaselineError(
                f"{problem}. The baseline was left as it is: fix it (see git history), or rewrite "
                f"it with: {self.update_command}"
            )
        self._stored = _validated(data, self.path, self.update_command)
        owner = self._stored.get("test")
        if self.test_id and owner and owner != self.test_id:
            raise BaselineError(
                f"{self.path}: this baseline belongs to {owner}, not {self.test_id}: "
                "two tests map to one file "
                "(a file from before test files kept their module's path?). Move it, or "
                "rewrite it with --tempoeval-update-baseline."
            )
        return self._stored

    def write(self, data: dict[str, Any]) -> bool:
        """Atomic: a temporary file in the same directory, then a rename (safe under xdist). Returns
        whether the file changed (an identical file is left untouched)."""
        text = json.dumps(data, indent=2, sort_keys=True) + "\n"
        try:
            if self.path.read_text(encoding="utf-8") == text:
                return False
        except (OSError, UnicodeDecodeError):
            pass
        write_atomically(self.path, text)
        if self.source is not None:  # moved from its legacy place
            self.source.unlink(missing_ok=True)
            self.source = None
        return True

    def finish(self) -> bool:
        """At teardown, in update mode: write what this test checked. Returns whether it wrote."""
        if not (self.update and self._entries):
            return False
        return self.write(
            {"version": FORMAT_VERSION, "test": self.test_id, "results": self._entries}
        )

    @property
    def checked(self) -> bool:
        return bool(self._entries)


def _regressed_rankings(
    stored: dict[str, Any], comparison: BaselineComparison
) -> dict[str, list[str]] | None:
    """The stored top k of the queries the report shows as dropped (None: the baseline stores
    no rankings)."""
    top = stored.get("top")
    if top is None:
        return None
    shown = [query for query, _, _ in comparison.regressed[:REGRESSED_LISTED]]
    return {query: list(top[query]) for query in shown if query in top}


def _legacy_key(result: Any) -> str:
    """The key baseline files used before measure strings: ``ndcg@10 gold``."""
    return f"{result.legacy_label} {result.mode}"


def judged_measure(result: Any) -> str:
    """The Judged measure at the result's cutoff: ``Judged@10`` (``Judged`` for a whole ranking)."""
    return f"Judged@{result.k}" if result.k is not None else "Judged"


def baseline_path(directory: Path, test: str) -> Path:
    return per_test_path(directory, test, ".json")


def _validated(data: Any, path: Path, command: str) -> dict[str, Any]:
    def broken(problem: str) -> BaselineError:
        return BaselineError(
            f"{path}: not a tempoeval baseline: {problem}. It was left as it is; "
            f"rewrite it with: {command}"
        )

    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise broken("expected an object with a 'results' object")
    if data.get("version") != FORMAT_VERSION:
        raise broken(f"format version {data.get('version')!r}, this plugin reads {FORMAT_VERSION}")
    for key, entry in data["results"].items():
        scores = entry.get("per_query") if isinstance(entry, dict) else None
        if not isinstance(scores, dict) or not scores:
            raise broken(f"result {key!r} has no per-query scores")
        for query, score in scores.items():
            if isinstance(score, bool) or not isinstance(score, (int, float)) or not _finite(score):
                raise broken(
                    f"result {key!r}, query {query!r}: score {score!r} is not a finite number"
                )
            if abs(score) > _SCORE_BOUND:  # sums of such values would overflow, and none is real
                raise broken(
                    f"result {key!r}, query {query!r}: score {score!r} is outside "
                    f"[-{_SCORE_BOUND:g}, {_SCORE_BOUND:g}] (metric scores lie between -1 and 1)"
                )
        hashes = entry.get("query_fingerprints", {})
        if not isinstance(hashes, dict) or not all(isinstance(h, str) for h in hashes.values()):
            raise broken(f"result {key!r}: 'query_fingerprints' is not an object of strings")
        if not isinstance(entry.get("shared_fingerprint", ""), str):
            raise broken(f"result {key!r}: 'shared_fingerprint' is not a string")
        starts = entry.get("focus_start", {})  # each query's focus-time start year (by_period)
        if not isinstance(starts, dict) or not all(
            isinstance(year, int) and not isinstance(year, bool) and 1 <= year <= 9999
            for year in starts.values()
        ):
            raise broken(f"result {key!r}: 'focus_start' is not an object of years (1 to 9999)")
        for name, what in (("judged", "Judged@k"), ("filled", "filled share")):
            shares = entry.get(name, {})  # gold mode: a share of the top k per query
            if not isinstance(shares, dict):
                raise broken(f"result {key!r}: {name!r} is not an object of the {what} per query")
            for query, share in shares.items():
                if (
                    isinstance(share, bool)
                    or not isinstance(share, (int, float))
                    or not 0 <= share <= 1
                ):
                    raise broken(
                        f"result {key!r}, query {query!r}: {what} {share!r} is not in [0, 1]"
                    )
        top = entry.get("top", {})  # ini tempoeval_baseline_rankings: each query's top k ids
        if not isinstance(top, dict) or not all(
            isinstance(ids, list) and all(isinstance(doc, str) for doc in ids)
            for ids in top.values()
        ):
            raise broken(f"result {key!r}: 'top' is not an object of lists of document ids")
        if "temporal" in entry:  # written since the temporal diagnostics; older files have none
            problem = _temporal_problem(entry["temporal"])
            if problem is not None:
                raise broken(f"result {key!r}: {problem}")
    return data


_SCORE_BOUND = 1e6


def _owner(path: Path) -> str | None:
    """The test a baseline file says it belongs to (None when it cannot tell): a legacy place may
    hold another test's file, which is never read or moved for this one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    owner = data.get("test") if isinstance(data, dict) else None
    return owner if isinstance(owner, str) else None


# -- grades filled by the judge (issue 29): their share stored, its change named in the note ---

# A change of the paired queries' mean share of grades filled by the judge of at least this much is
# named in the check's note: part of the score's change is the judge's, not the human judgments'.
FILLED_CHANGE_NOTED = 0.05
FILLED_NOT_RECORDED = "filled share not in the baseline: re-baseline to record it"


def filled_note(
    stored: dict[str, float] | None,
    current: dict[str, float] | None,
    queries: Iterable[str],
    k: int | None,
) -> str:
    """``grades filled by the judge: 10.0% -> 35.0% of the top 10 over 12 queries; part of the
    change is the judge's grades, not the human judgments`` when the mean share changed by
    FILLED_CHANGE_NOTED or more over the compared ``queries``; whether only one side was filled;
    empty otherwise."""
    if stored is None and current is None:
        return ""
    if stored is None:
        return FILLED_NOT_RECORDED
    if current is None:
        return "the baseline had grades filled by the judge (fill=llm); this result has none"
    paired = [query for query in queries if query in stored and query in current]
    if not paired:
        return ""
    before = math.fsum(stored[query] for query in paired) / len(paired)
    after = math.fsum(current[query] for query in paired) / len(paired)
    if abs(after - before) < FILLED_CHANGE_NOTED - _CHANGE_TOLERANCE:
        return ""
    top = f"the top {k}" if k is not None else "the rankings"
    return (
        f"grades filled by the judge: {before:.1%} -> {after:.1%} of {top} over "
        f"{_counted(paired, 'query', 'queries')}; part of the change is the judge's grades, not "
        "the human judgments"
    )


# -- temporal diagnostics (issue 28): stored with each entry, their change named in the note --

# A change of the paired queries' mean offset of at least this many years, or of their share of
# documents from the future of at least this much, is named in the check's note (docs/baselines.md).
OFFSET_CHANGE_NOTED = 1.0
FUTURE_CHANGE_NOTED = 0.05
TEMPORAL_NOT_RECORDED = "temporal figures not in the baseline: re-baseline to record them"
_CHANGE_TOLERANCE = 1e-9  # means of the same values summed in another order differ by ulps


def temporal_entry(result: Any) -> dict[str, Any] | None:
    """What a baseline stores of a result's temporal diagnostics: the two means, their counts and
    each query's two figures (so a later check pairs them by query); None without them."""
    diagnostics = getattr(result, "temporal_diagnostics", None)
    return None if diagnostics is None else diagnostics.to_dict(per_query=True)


def temporal_note(
    stored: dict[str, Any] | None, current: dict[str, Any] | None, queries: Iterable[str]
) -> str:
    """The change of the temporal diagnostics over the compared ``queries`` that have them in
    both, when notable (OFFSET_CHANGE_NOTED, FUTURE_CHANGE_NOTED): ``retrieved documents moved
    6.2 years older on average (mean offset +0.0 -> -6.2 years over 12 queries); documents from
    the future 0.0% -> 25.0%``. Says so when the baseline has no figures and the result has;
    empty otherwise."""
    if current is None:
        return ""
    if stored is None:
        return TEMPORAL_NOT_RECORDED
    before, after = stored["per_query"], current["per_query"]
    paired = [query for query in queries if query in before and query in after]
    if not paired or stored.get("k") != current.get("k"):
        return ""
    old_offset = math.fsum(before[query][0] for query in paired) / len(paired)
    new_offset = math.fsum(after[query][0] for query in paired) / len(paired)
    old_future = math.fsum(before[query][1] for query in paired) / len(paired)
    new_future = math.fsum(after[query][1] for query in paired) / len(paired)
    parts = []
    moved = new_offset - old_offset
    if abs(moved) >= OFFSET_CHANGE_NOTED - _CHANGE_TOLERANCE:
        parts.append(
            f"retrieved documents moved {abs(moved):.1f} years "
            f"{'older' if moved < 0 else 'newer'} on average (mean offset "
            f"{format_offset(old_offset)} -> {format_offset(new_offset)} years over "
            f"{_counted(paired, 'query', 'queries')})"
        )
    if abs(new_future - old_future) >= FUTURE_CHANGE_NOTED - _CHANGE_TOLERANCE:
        parts.append(f"documents from the future {old_future:.1%} -> {new_future:.1%}")
    return "; ".join(parts)


def _temporal_problem(temporal: Any) -> str | None:
    """What is wrong with a stored entry's temporal figures, or None."""
    if not isinstance(temporal, dict) or not isinstance(temporal.get("per_query"), dict):
        return "'temporal' is not an object with a 'per_query' object"
    if not _whole_number(temporal.get("k")) or temporal["k"] < 1:
        return f"'temporal' k {temporal.get('k')!r} is not a positive integer"
    for query, pair in temporal["per_query"].items():
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or not all(_real(value) for value in pair)
            or abs(pair[0]) > _OFFSET_BOUND
            or not 0 <= pair[1] <= 1
        ):
            return (
                f"query {query!r}: temporal figures {pair!r} are not [mean offset in years, share "
                "from the future in [0, 1]]"
            )
    return None


_OFFSET_BOUND = 9999  # years: focus times lie in 1..9999


def _real(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and _finite(value)


def _whole_number(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _finite(value: float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer beyond float range
        return False


def assert_no_regression(
    result: Any, baseline: BaselineStore, **options: Any
) -> BaselineComparison:
    """``baseline.check(result, ...)`` as a function:
    ``assert_no_regression(result, tempoeval_baseline)``."""
    __tracebackhide__ = True  # failures point at the test's line, not here
    return baseline.check(result, **options)
