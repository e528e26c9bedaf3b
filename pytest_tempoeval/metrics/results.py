"""MetricResult: a float that remembers how it was computed, per query, and can explain itself.

One module on purpose, though long: the result, its per-query scores and the comparison that
records a check are one object's behaviour; a reader looks for what ``result >= 0.8`` does here.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Self

import numpy as np

from pytest_tempoeval.constants import WORST_EXPLAINED
from pytest_tempoeval.errors import MetricError

# metrics.explain is imported by the methods that word an explanation: printing needs none.
if TYPE_CHECKING:
    from pytest_tempoeval.metrics.diagnostics import TemporalDiagnostics
    from pytest_tempoeval.metrics.explain import QueryExplanation
    from pytest_tempoeval.metrics.filling import FilledGrades
    from pytest_tempoeval.metrics.periods import Periods, PeriodSlicing, Slicing

_FLIPPED = {">=": "<=", "<=": ">=", ">": "<", "<": ">", "==": "==", "!=": "!="}
_OPERATORS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


class QueryScores(Mapping[str, float]):
    """Query id -> score, kept as arrays until someone asks for the dict: building a dict of
    10,000 scores would be most of a warm focus-time evaluation."""

    def __init__(self, ids: Sequence[str], scores: np.ndarray, counted: np.ndarray) -> None:
        self._ids, self._scores, self._counted = ids, scores, counted
        self._dict: dict[str, float] | None = None

    @property
    def counted_scores(self) -> list[float]:
        scores: list[float] = self._scores[self._counted].tolist()
        return scores

    def arrays(self) -> tuple[Sequence[str], np.ndarray, np.ndarray]:
        """The query ids, every query's score and which are counted, as kept: for a caller that
        reads every query of a large set (the trec_eval output), without building the dict."""
        return self._ids, self._scores, self._counted

    def _as_dict(self) -> dict[str, float]:
        if self._dict is None:
            ids = [self._ids[i] for i in np.flatnonzero(self._counted).tolist()]
            self._dict = dict(zip(ids, self.counted_scores))
        return self._dict

    def __getitem__(self, query_id: str) -> float:
        return self._as_dict()[query_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._as_dict())

    def __len__(self) -> int:
        return int(self._counted.sum()) if self._dict is None else len(self._dict)


@dataclass(kw_only=True, eq=False)  # compared by identity: no generated __eq__ to build
class _Details:
    per_query: Mapping[str, float]
    excluded: dict[str, str]
    explain_query: Callable[[str], QueryExplanation] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    gold: Any = None  # the GoldSet scored against: its fingerprint is computed only if asked
    # gold mode: Judged@k per query, or a function computing it when first asked for
    judged: Mapping[str, float] | Callable[[], Mapping[str, float]] | None = None
    # counts computed when first asked for (they may need work the score itself did not)
    later_extra: Callable[[], dict[str, Any]] | None = None
    # whether some retrieved rank has a known relevance (so its id is known): cheaper than
    # counting the ids the gold set does not know, which only "no" needs
    some_known: Callable[[], bool] | None = None
    # what the score read of each query, when more than its mode's (relevance.GOLD_READS)
    gold_reads: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    # temporal diagnostics (issue 28), or the function computing them when first asked for; the
    # function also takes a subset of the queries (a period's, :meth:`MetricResult.only`)
    temporal: TemporalDiagnostics | Callable[..., TemporalDiagnostics | None] | None = None
    temporal_of: Callable[..., TemporalDiagnostics | None] | None = None
    # (queries, n) -> each query's top n retrieved ids (a baseline with rankings stores them)
    ranked_ids: Callable[[Collection[str], int], dict[str, list[str]]] | None = None
    filled: FilledGrades | None = None  # gold mode: the holes the judge graded (fill_unjudged=)


class MetricResult(float):
    """Mean of a metric over the counted queries, with ``.per_query``, ``.median``, ``.excluded``.

    A result with no counted query is NaN. Comparing it raises :class:`MetricError` naming why every
    query was excluded, so ``assert result >= 0.8`` can never pass or fail silently on nothing.
    """

    name: str
    measure: str
    k: int | None
    mode: str
    fail_on_excluded: bool | None  # None: the session's policy decides
    _details: _Details
    # Why nothing was judged: a judged call a dry run stopped (the plugin skips its test). Its
    # comparisons hold and record nothing, so the test goes on to its other judged calls.
    judge_dry_run = ""
    # By period (:meth:`by_period`): the period whose queries this result covers ("" for all).
    period = ""
    # Why the baseline gate refuses this result ("": it can be gated); a ratio of two means is no
    # mean of per-query scores (T-Persistence).
    gate_refusal = ""

    def __new__(
        cls,
        *,
        name: str,
        k: int | None,
        mode: str,
        per_query: Mapping[str, float],
        excluded: Mapping[str, str] | None = None,
        explain_query: Callable[[str], QueryExplanation] | None = None,
        extra: Mapping[str, Any] | None = None,
        gold: Any = None,
        fail_on_excluded: bool | None = None,
        measure: str | None = None,
        judged: Mapping[str, float] | Callable[[], Mapping[str, float]] | None = None,
        value: float | None = None,
        later_extra: Callable[[], dict[str, Any]] | None = None,
        some_known: Callable[[], bool] | None = None,
        gold_reads: tuple[tuple[str, ...], tuple[str, ...]] | None = None,
        temporal: TemporalDiagnostics | Callable[..., TemporalDiagnostics | None] | None = None,
        ranked_ids: Callable[[Collection[str], int], dict[str, list[str]]] | None = None,
        filled: FilledGrades | None = None,
    ) -> Self:
        if isinstance(per_query, QueryScores):
            scores = per_query.counted_scores
        else:
            per_query = dict(per_query)
            scores = list(per_query.values())
        if value is None:  # the mean over the counted queries (kappa is not a mean: it passes it)
            value = math.fsum(scores) / len(scores) if scores else math.nan
        self = super().__new__(cls, value)
        self.name, self.k, self.mode = name, k, mode
        # The measure string (``nDCG@10``, ``T-nDCG(mode=llm)@10``); a result built by hand has
        # none, and shows its name and k.
        self.measure = measure or (f"{name}@{k}" if k is not None else name)
        self.fail_on_excluded = fail_on_excluded  # None: the session's policy decides
        self._details = _Details(
            per_query=per_query,
            excluded=dict(excluded or {}),
            explain_query=explain_query,
            extra=dict(extra or {}),
            gold=gold,
            judged=judged,
            later_extra=later_extra,
            some_known=some_known,
            gold_reads=gold_reads,
            temporal=temporal,
            temporal_of=temporal if callable(temporal) else None,
            ranked_ids=ranked_ids,
            filled=filled,
        )
        return self

    # -- data -------------------------------------------------------------------------------------

    @property
    def per_query(self) -> dict[str, float]:
        """Query id -> score, for every counted query."""
        scores = self._details.per_query
        return scores._as_dict() if isinstance(scores, QueryScores) else scores  # type: ignore[return-value]

    def query_arrays(self) -> tuple[Sequence[str], np.ndarray, np.ndarray] | None:
        """The per-query scores as kept: (query ids, every query's score, which are counted), or
        None when they were given as a dict. For a caller that reads every query of a large set
        (the trec_eval output) without building ``per_query``."""
        scores = self._details.per_query
        return scores.arrays() if isinstance(scores, QueryScores) else None

    @property
    def excluded(self) -> dict[str, str]:
        """Query id -> why it was left out of the mean (e.g. no relevant document known)."""
        return self._details.excluded

    @property
    def extra(self) -> dict[str, Any]:
        """Counts the explanation reports (unjudged documents, missing queries, the judge model)."""
        details = self._details
        if details.later_extra is not None:
            details.extra = {**details.later_extra(), **details.extra}
            details.later_extra = None
        return details.extra

    @property
    def gold_fingerprint(self) -> str | None:
        """sha256 of the gold set's content, or None when the result was not computed from one."""
        gold = self._details.gold
        return None if gold is None else gold.fingerprint

    @property
    def gold_fingerprints(self) -> tuple[dict[str, str], str] | None:
        """What this result's mode reads of the gold set, hashed per query and for what every
        query shares (:meth:`GoldSet.fingerprints`); None without a gold set, or for a result whose
        reads are not known query by query (judge agreement)."""
        from pytest_tempoeval.metrics.relevance import GOLD_READS

        gold = self._details.gold
        reads = self._details.gold_reads or GOLD_READS.get(self.mode)
        return None if gold is None or reads is None else gold.fingerprints(*reads)

    @property
    def median(self) -> float:
        import statistics  # at first use: 1.6 ms of imports (fractions, decimal) otherwise

        return statistics.median(self.per_query.values()) if self.per_query else math.nan

    @property
    def judged(self) -> dict[str, float] | None:
        """Gold mode: Judged@k per query (the share of its retrieved top k that is judged)."""
        judged = self._details.judged
        if callable(judged):
            judged = self._details.judged = judged()
        if judged is None:
            return None
        return judged._as_dict() if isinstance(judged, QueryScores) else dict(judged)

    @property
    def filled(self) -> FilledGrades | None:
        """Gold mode with ``fill_unjudged=judge`` (``fill=llm``): the holes of the top k the judge
        graded, per query (``.per_query``: doc id -> grade on the gold set's scale), and the
        counts (``.asked``, ``.filled``, ``.without_text``); None without filling."""
        return self._details.filled

    # -- temporal diagnostics (issue 28; computed in :mod:`.diagnostics`) --------------------------

    @property
    def temporal_diagnostics(self) -> TemporalDiagnostics | None:
        """Where in time the counted queries' top k documents are against the years each query
        was read as: the mean offset (years, negative = older) and the share from the future,
        averaged over the queries that have them, with the queries and documents without a focus
        time counted apart. None when the gold set gives no query a focus time. Computed when
        first asked for (docs/focus-time.md, "Temporal diagnostics")."""
        temporal = self._details.temporal
        if callable(temporal):
            temporal = self._details.temporal = temporal()
        return temporal

    def top_ids(
        self, n: int, queries: Collection[str] | None = None
    ) -> dict[str, list[str]] | None:
        """Each counted query's (or each of ``queries``') top ``n`` retrieved ids, in rank order;
        None for a result that does not know its rankings (built by hand, judge agreement)."""
        ranked = self._details.ranked_ids
        if ranked is None:
            return None
        return ranked(sorted(self.per_query if queries is None else queries), n)

    @property
    def label(self) -> str:
        """The name shown in summaries and reports: the measure string, and for one period of a
        result sliced by period, which (``T-nDCG@10 on queries about 1990-1999``)."""
        if self.period:
            from pytest_tempoeval.metrics.periods import period_phrase

            return f"{self.measure} on {period_phrase(self.period)}"
        return self.measure

    @property
    def legacy_label(self) -> str:
        """``ndcg@10``: the name the summary and baselines used before measure strings."""
        return f"{self.name}@{self.k}" if self.k is not None else self.name

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form (reports, baselines, xdist)."""
        return {
            "name": self.name,
            "measure": self.measure,
            "k": self.k,
            "mode": self.mode,
            "score": None if math.isnan(self) else float(self),
            "median": None if math.isnan(self.median) else self.median,
            "per_query": self.per_query,
            "excluded": self.excluded,
            "extra": self.extra,
            **({} if self.filled is None else {"filled": self.filled.to_dict()}),
        }

    def __repr__(self) -> str:
        return (
            f"MetricResult({self.label}={float(self)!r}, mode={self.mode!r}, "
            f"queries={len(self.per_query)}, excluded={len(self.excluded)})"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # Its data, without what cannot cross a process (the explainer, the gold set).
        arguments = {
            "name": self.name,
            "k": self.k,
            "mode": self.mode,
            "per_query": self.per_query,
            "excluded": self._details.excluded,
            "extra": self.extra,
            "fail_on_excluded": self.fail_on_excluded,
            "measure": self.measure,
            "judged": self.judged,
            "temporal": self.temporal_diagnostics,
            "value": float(self),
            "filled": self.filled,
        }
        state = {key: value for key, value in vars(self).items() if key != "_details"}
        return (_rebuilt, (type(self), arguments), state)

    # -- explanations (text in :mod:`.explain`) ---------------------------------------------------

    def worst(self, n: int = WORST_EXPLAINED) -> list[str]:
        """Ids of the ``n`` lowest-scoring counted queries (ties by id)."""
        ranked = sorted(self.per_query.items(), key=lambda item: (item[1], item[0]))
        return [query for query, _ in ranked[:n]]

    def explain(self, n: int = WORST_EXPLAINED) -> str:
        """A summary line, then the ``n`` worst queries with their retrieved ids and relevance."""
        from pytest_tempoeval.metrics.explain import explain_text

        return explain_text(self, n)

    def detail_lines(self, n: int = WORST_EXPLAINED) -> list[str]:
        """What a failed comparison shows under its first line: the worst ``n`` explained."""
        from pytest_tempoeval.metrics.explain import explain_text

        return explain_text(self, n).splitlines()[1:]

    def summary(self) -> str:
        from pytest_tempoeval.metrics.explain import summary_line

        return summary_line(self)

    def explain_query(self, query_id: str) -> QueryExplanation | None:
        """What ``query_id`` retrieved and what an ideal ranking holds (None if unknown)."""
        explain = self._details.explain_query
        return None if explain is None else explain(query_id)

    # -- comparisons ------------------------------------------------------------------------------
    # Comparisons with a number are reported to the active recorder (the plugin's session), which is
    # how reports learn the threshold. ``raise_on_failure`` makes a failed comparison raise the
    # explanation itself: the ``assert_*`` helpers return results in that state.

    raise_on_failure = False

    def unknown_ids_failure(self) -> str | None:
        """With ini ``tempoeval_fail_on_unknown_ids``, the retrieved ids the gold set does not
        know, which fail every check of this result; else None."""
        from pytest_tempoeval.metrics.checks import policy
        from pytest_tempoeval.metrics.explain import unknown_ids_note

        return (unknown_ids_note(self) or None) if policy.fail_on_unknown_ids else None

    def knows_no_retrieved_id(self) -> bool:
        """Whether the gold set knows none of the ids the run retrieved for its queries, at any
        rank (and it retrieved some): ids of another corpus, whose score is 0 whatever they are."""
        some_known = self._details.some_known
        if some_known is not None and some_known():  # usually: the unknown ids are not counted
            return False
        retrieved: int = self.extra.get("run_retrieved_ids", 0)
        if some_known is not None:
            return retrieved > 0
        # a result rebuilt from its data: what its counts say
        unknown: int = self.extra.get("unknown_ids", 0)
        return 0 < unknown == self.extra.get("retrieved_ids") == retrieved

    def exclusion_failure(self) -> str | None:
        """With ``fail_on_excluded`` (the call's, else ini ``tempoeval_fail_on_excluded``), what
        was left out of the score, which fails every check of this result; else None."""
        if not self.strict_exclusions:
            return None
        from pytest_tempoeval.metrics.explain import left_out

        return left_out(self.excluded, self.extra.get("ignored_run_queries") or []) or None

    @property
    def strict_exclusions(self) -> bool:
        """Whether anything left out fails this result's checks: the call's ``fail_on_excluded``,
        else ini ``tempoeval_fail_on_excluded``."""
        from pytest_tempoeval.metrics.checks import policy

        return policy.fail_on_excluded if self.fail_on_excluded is None else self.fail_on_excluded

    def _compare(self, op: str, other: object, outcome: bool) -> bool:
        # The checks' recorder is imported by comparisons: printing a result never loads it.
        from pytest_tempoeval.metrics.checks import Check, discarded_at, not_asserted, record
        from pytest_tempoeval.metrics.explain import explain_comparison

        if _is_threshold(other):
            threshold = float(other)  # type: ignore[arg-type]
            outcome = (
                outcome and self.exclusion_failure() is None and self.unknown_ids_failure() is None
            )
            unasserted = ""
            if not outcome and not self.raise_on_failure:
                where = discarded_at()
                if where:  # a bare statement: nothing else will fail the test
                    explanation = explain_comparison(self, op, threshold, verbose=0)
                    unasserted = "\n".join([not_asserted(where), *explanation])
            record(
                Check(
                    result=self, op=op, threshold=threshold, passed=outcome, unasserted=unasserted
                )
            )
            if not outcome and self.raise_on_failure:
                explanation = explain_comparison(self, op, threshold, verbose=0)
                raise AssertionError("\n".join(explanation))
        return outcome

    def check_comparable(self) -> None:
        """Raise :class:`MetricError` when no query was counted, when a counted query's score is
        NaN, or when the gold set knows none of the retrieved ids: such a result can neither pass
        nor fail a check."""
        if not self._details.per_query:
            reasons = sorted(set(self.excluded.values())) or ["no queries"]
            raise MetricError(
                f"{self.label} [{self.mode}] has no counted query, so it cannot be compared: "
                f"all {len(self.excluded)} queries were excluded ({'; '.join(reasons)})"
            )
        if math.isnan(self):
            undefined = [query for query, score in self.per_query.items() if math.isnan(score)]
            shown = ", ".join(repr(query) for query in undefined[:WORST_EXPLAINED])
            more = len(undefined) - WORST_EXPLAINED
            which = f" ({shown}{f' and {more} more' if more > 0 else ''})" if undefined else ""
            raise MetricError(
                f"{self.label} [{self.mode}] is NaN, so it cannot be compared: counted queries "
                f"with a NaN score: {len(undefined)}{which}"
            )
        if self.knows_no_retrieved_id():
            from pytest_tempoeval.metrics.explain import format_score, unknown_ids_problem

            raise MetricError(
                f"{self.label} [{self.mode}] = {format_score(float(self))} measures nothing: "
                f"{unknown_ids_problem(self)}"
            )

    def _comparable(self, op: str, other: object) -> None:
        """:meth:`check_comparable`, for a comparison: one the retrieved ids cannot pass is
        recorded as failed before it raises, so the summary and the reports show it."""
        if _is_threshold(other) and self._details.per_query and self.knows_no_retrieved_id():
            from pytest_tempoeval.metrics.checks import Check, record

            record(Check(result=self, op=op, threshold=float(other), passed=False))  # type: ignore[arg-type]
        self.check_comparable()

    def _check(self, op: str, other: object) -> bool:
        if self.judge_dry_run:  # no score: the test is skipped when it ends
            return True
        self._comparable(op, other)
        return self._compare(op, other, _OPERATORS[op](float(self), _plain(other)))  # type: ignore[arg-type]

    def __lt__(self, other: object) -> bool:
        return self._check("<", other)

    def __le__(self, other: object) -> bool:
        return self._check("<=", other)

    def __gt__(self, other: object) -> bool:
        return self._check(">", other)

    def __ge__(self, other: object) -> bool:
        return self._check(">=", other)

    def __hash__(self) -> int:
        return float.__hash__(self)

    def checked(self) -> MetricResult:
        """This result, in the state where a failed comparison raises AssertionError with the
        explanation: ``assert_temporal_ndcg(...) >= 0.8`` works as a bare statement."""
        self.raise_on_failure = True
        return self

    # -- periods (the grouping is metrics/periods.py's) ---------------------------------------

    @property
    def gold_set(self) -> Any:
        """The GoldSet this result was scored against (None: built by hand, or rebuilt in another
        process)."""
        return self._details.gold

    def by_period(self, by: PeriodSlicing | Slicing = "decade") -> Periods[MetricResult]:
        """This result per period: queries grouped by their focus time's start year, each period a
        result over its queries (mean, count, excluded queries), in time order. ``by``:
        ``"year"``, ``"decade"``, ``"century"``, boundary years (``[1990, 2000, 2010]``), or a
        function from a gold query to its period's label. A query with no focus time is in the
        period ``"no focus time"``."""
        from pytest_tempoeval.metrics.periods import slice_by_period

        return slice_by_period(self, by)

    def only(self, queries: Collection[str], period: str) -> MetricResult:
        """This result over ``queries`` alone (the ``period`` they are about): their scores and
        exclusions, aggregated as the measure aggregates (mean, geometric mean, sum). Checks,
        explanations and the gate read it as any result; what it says about retrieved ids it
        does not know is the whole result's (ids are not told apart by query)."""
        counted, left_out = self.per_query, self.excluded
        scores = {query: counted[query] for query in queries if query in counted}
        excluded = {query: left_out[query] for query in queries if query in left_out}
        aggregate = _aggregate_of(self)
        value = None
        if aggregate != "mean":
            from pytest_tempoeval.metrics.kernels import aggregate as aggregated

            value = aggregated(np.array(list(scores.values()), dtype=np.float64), aggregate)
        details, whole = self._details, self

        def judged() -> dict[str, float]:
            shares = whole.judged or {}
            return {query: shares[query] for query in queries if query in shares}

        def extra() -> dict[str, Any]:  # the whole result's, but its counts of queries
            return {key: value for key, value in whole.extra.items() if key in _WHOLE_NOTES}

        part = MetricResult(
            name=self.name,
            k=self.k,
            mode=self.mode,
            per_query=scores,
            excluded=excluded,
            explain_query=details.explain_query,
            gold=details.gold,
            fail_on_excluded=self.fail_on_excluded,
            measure=self.measure,
            judged=None if details.judged is None else judged,
            value=value,
            later_extra=extra,
            some_known=details.some_known,
            temporal=None if details.temporal_of is None else partial(details.temporal_of, queries),
            ranked_ids=details.ranked_ids,
            filled=None if details.filled is None else details.filled.only(frozenset(queries)),
        )
        part.period = period
        part.raise_on_failure = self.raise_on_failure
        part.judge_dry_run = self.judge_dry_run
        return part


# What a period's result keeps of its whole result's extra: what no query owns (the judge, the run
# queries the gold set lacks) and the retrieved ids it does not know, which fail its checks as they
# fail the whole result's (ini tempoeval_fail_on_unknown_ids). Counts over every query (unjudged
# documents, queries missing from the run, short rankings) would misstate a period: left out.
_WHOLE_NOTES = frozenset(
    {
        "judge_model",
        "ignored_run_queries",
        "unknown_ids",
        "retrieved_ids",
        "unknown_examples",
        "run_retrieved_ids",
        "gold_id_examples",
    }
)


def _aggregate_of(result: MetricResult) -> str:
    """How the result's measure aggregates its per-query scores (specs.Aggregate): its spec's, or
    the mean for a result built by hand whose value is its mean."""
    from pytest_tempoeval.errors import TempoEvalError
    from pytest_tempoeval.metrics.measures import parse_measure

    try:
        return str(parse_measure(result.measure).family.aggregate)
    except TempoEvalError:
        pass
    scores = list(result.per_query.values())
    if not scores or math.isclose(float(result), math.fsum(scores) / len(scores), abs_tol=1e-12):
        return "mean"
    raise MetricError(
        f"{result.label} cannot be sliced by period: its value {float(result)!r} is not the mean "
        "of its per-query scores, and its measure names no known aggregate"
    )


def _rebuilt(cls: type[MetricResult], arguments: dict[str, Any]) -> MetricResult:
    """A pickled result (xdist), rebuilt by keyword."""
    return cls(**arguments)


def assertrepr_compare(op: str, left: Any, right: Any, verbose: int) -> list[str] | None:
    """The ``pytest_assertrepr_compare`` implementation: explain ``metric op number`` either way
    round."""
    if isinstance(left, MetricResult) and _is_number(right):
        from pytest_tempoeval.metrics.explain import explain_comparison

        return explain_comparison(left, op, float(right), verbose)
    if isinstance(right, MetricResult) and _is_number(left) and op in _FLIPPED:
        from pytest_tempoeval.metrics.explain import explain_comparison

        return explain_comparison(right, _FLIPPED[op], float(left), verbose)
    return None


def _is_threshold(value: object) -> bool:
    """Whether a comparison with ``value`` is a check (reported): a number, another result too."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, (bool, MetricResult))


def _plain(value: object) -> object:
    """Another result as a plain float, so comparing two results is not dispatched back to it."""
    return float(value) if isinstance(value, MetricResult) else value
