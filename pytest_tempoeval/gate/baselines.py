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

With the Holm correction (ini ``tempoeval_gate_correction = holm``) a significant drop does not
fail its test at once: its status is "pending", and the session decides every pending check
together at its end (:func:`.randomization.holm_adjusted`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pytest_tempoeval.constants import REGRESSED_LISTED, SCORE_TOLERANCE, WORST_NAMED
from pytest_tempoeval.errors import BaselineError, BaselineRegression
from pytest_tempoeval.files import per_test_path, test_file, warn_legacy, write_atomically
from pytest_tempoeval.gate import randomization
from pytest_tempoeval.metrics.explain import query_lines
from pytest_tempoeval.metrics.results import MetricResult

FORMAT_VERSION = 1
MIN_QUERIES_FOR_TEST = 10  # below this the randomization test cannot reach p < 0.05 reliably
PENDING_NOTE = "pending: decided with the session's Holm correction"
JUDGED_DROP_NOTED = 0.05  # a fall of the mean Judged@k larger than this is named in the verdict


@dataclass(frozen=True)
class BaselineComparison:
    """The outcome of one check, for messages and reports."""

    key: str
    # "pass", "improved", "regressed", "written", "incomplete" (fail_on_excluded), "unknown ids"
    # (fail_on_unknown_ids), "dry run" (nothing judged: its test is skipped), or "pending": a
    # significant drop that the session's Holm correction decides at its end
    status: str
    baseline: float | None
    current: float
    queries: int  # paired queries
    p_value: float | None = None  # None: not tested (written, or fewer than MIN_QUERIES_FOR_TEST)
    max_drop: float = 0.0
    alpha: float = 0.05
    regressed: list[tuple[str, float, float]] = field(
        default_factory=list
    )  # (query, old, new), worst first
    baseline_scores: dict[str, float] = field(default_factory=dict, repr=False)
    lost: list[str] = field(
        default_factory=list
    )  # baseline queries the result no longer counts (scored 0)
    judged_note: str = ""  # "Judged@10 fell from 0.98 to 0.71: ..." (gold mode)

    @property
    def delta(self) -> float | None:
        return None if self.baseline is None else self.current - self.baseline

    @property
    def passed(self) -> bool:
        return self.status not in ("regressed", "incomplete", "unknown ids")

    @property
    def note(self) -> str:
        verdict = {
            "improved": "baseline can be raised",
            "regressed": "regressed",
            "written": "baseline written",
            "incomplete": "queries left out (fail_on_excluded)",
            "unknown ids": "retrieved ids unknown to the gold set (fail_on_unknown_ids)",
            "pending": PENDING_NOTE,
        }.get(self.status, "")
        return "; ".join(filter(None, [verdict, self.judged_note]))

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
        return f"{line}\n  {self.judged_note}" if self.judged_note else line


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
    regressed = drop > max_drop + SCORE_TOLERANCE and (p_value is None or p_value < alpha)
    worse = sorted(
        (
            (query, o, n)
            for query, o, n in zip(shared, old, new, strict=True)
            if n < o - SCORE_TOLERANCE
        ),
        key=lambda item: (item[2] - item[1], item[0]),
    )
    status = (
        "regressed" if regressed else "improved" if current > baseline + SCORE_TOLERANCE else "pass"
    )
    return BaselineComparison(
        key,
        status,
        baseline,
        current,
        len(shared),
        p_value,
        max_drop,
        alpha,
        worse,
        baseline_scores,
        lost,
        judged_note(*judged, shared) if judged else "",
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


def entry_for(result: Any) -> dict[str, Any]:
    """What a baseline file stores for one metric result."""
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
    return entry


class BaselineStore:
    """This test's baseline file: ``check`` results against it, or collect them to write it."""

    def __init__(
        self,
        path: Path,
        update: bool,
        test_id: str = "",
        max_drop: float = 0.0,
        on_check: Callable[[Any, BaselineComparison, str], None] | None = None,
        defer: bool = False,
        correction: str = "none",
    ) -> None:
        self.path = path
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
        alpha: float = 0.05,
        *,
        name: str | None = None,
        seed: int | None = None,
    ) -> BaselineComparison:
        """Compare ``result`` with its baseline; on a significant drop, raise
        :class:`BaselineRegression`, or with ``defer`` (the ``tempoeval_baseline`` fixture) note it
        and go on: the test fails when it ends, listing every failed check.

        ``name`` tells apart two results of the same measure in one test (default: the measure,
        ``nDCG@10``).
        """
        __tracebackhide__ = True  # failures point at the test's line, not here
        if not isinstance(result, MetricResult):
            raise TypeError(
                f"tempoeval_baseline.check() takes a MetricResult, the value a metric function "
                f"(ndcg(...), temporal_ndcg(...)) or evaluate(...)[measure] returns, got "
                f"{type(result).__name__} {result!r}: pass the result itself, not float(result)"
            )
        max_drop = self.max_drop if max_drop is None else max_drop
        if result.judge_dry_run:  # nothing was judged: nothing to write or compare; skipped
            return BaselineComparison(name or result.measure, "dry run", None, math.nan, 0)
        result.check_comparable()  # a result with no counted query is an error, never a pass
        if not (
            math.isfinite(max_drop) and max_drop >= 0 and 0 < alpha < 1
        ):  # inf would switch the gate off
            raise ValueError(
                f"max_drop must be >= 0 and alpha in (0, 1), got {max_drop!r} and {alpha!r}"
            )
        key = name or result.measure
        if key in self._entries:
            raise BaselineError(
                f"{self.test_id}: {key} is checked twice in this test; "
                "pass name=... to tell them apart"
            )
        entry = entry_for(result)
        self._entries[key] = entry
        if self.update:
            comparison = BaselineComparison(
                key,
                "written",
                None,
                float(result),
                len(result.per_query),
                max_drop=max_drop,
                alpha=alpha,
            )
        else:
            stored = self._stored_entry(key, entry, None if name else _legacy_key(result))
            judged = None
            if "judged" in stored and "judged" in entry:
                judged = (stored["judged"], entry["judged"], judged_measure(result))
            comparison = compare(
                key, stored["per_query"], entry["per_query"], max_drop, alpha, seed, judged=judged
            )
        left_out, unknown = result.exclusion_failure(), result.unknown_ids_failure()
        if (left_out or unknown) and comparison.passed:
            comparison = replace(comparison, status="incomplete" if left_out else "unknown ids")
        elif (
            self.correction == "holm"
            and comparison.status == "regressed"
            and comparison.p_value is not None  # tested: the session's family decides
            and not (left_out or unknown)
        ):
            comparison = replace(comparison, status="pending")
        message = ""
        if not comparison.passed or comparison.status == "pending":
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
        stored = entries.get(key)
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
            ("k", "k"),
            ("mode", "mode"),
            ("gold_fingerprint", "gold set"),
            ("judge_model", "judge model"),
        ):
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

    def _regression_message(self, comparison: BaselineComparison, result: Any) -> str:
        what = "regression" if comparison.status in ("regressed", "pending") else "failed check"
        lines = [f"{self.test_id}: {what} against {self.path}", f"  {comparison.describe()}"]
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
        try:
            text = (self.source or self.path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise BaselineError(
                f"{self.path}: no baseline yet. Create it with: {self.update_command}"
            ) from None
        except (OSError, UnicodeDecodeError) as error:
            raise BaselineError(f"{self.path}: cannot read the baseline ({error})") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise BaselineError(
                f"{self.path}:{error.lineno}: the baseline is not valid JSON ({error.msg}). "
                "It was left as it "
                f"is: fix it (see git history), or rewrite it with: {self.update_command}"
            ) from None
        except (ValueError, RecursionError) as error:  # a 4,301-digit number; 100,000 nested '['
            raise BaselineError(
                f"{self.path}: the baseline is not valid JSON "
                f"({type(error).__name__}: {str(error)[:80]}). It was left as it is: fix it "
                f"(see git history), or rewrite it with: {self.update_command}"
            ) from None
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
