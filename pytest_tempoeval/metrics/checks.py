"""Where metric results report their checks. Free of heavy imports: the plugin loads it.

While a test runs, the plugin installs a recorder; each comparison of a MetricResult with a
threshold (``assert result >= 0.8``) and each baseline check is reported to it, which is how the
session summary, the reports and JUnit properties learn about checks. Outside a test nothing is
recorded.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from types import CodeType, FrameType
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pytest_tempoeval.errors import JudgeDryRun


@dataclass(frozen=True, kw_only=True)
class Check:
    """One comparison of a metric result with a threshold or with its baseline."""

    result: Any  # a MetricResult (not imported: that would pull numpy into plugin start-up)
    op: str  # ">=", ">", "<=", "<", or "drop <=" for a baseline check (threshold = max_drop)
    threshold: float
    passed: bool
    baseline: float | None = None  # baseline checks: the stored mean (None when just written)
    p_value: float | None = None
    note: str = ""  # "regressed", "baseline can be raised", "baseline written"
    baseline_scores: dict[str, float] | None = None  # per query, for the HTML chart
    alpha: float | None = None  # baseline checks: the significance level
    # A significant drop left to the session's Holm correction: the failure message it gets if the
    # correction confirms it.
    pending_message: str = ""
    # A failed comparison whose value was thrown away (a bare statement, no ``assert``): the
    # failure message its test gets when it ends.
    unasserted: str = ""
    # baseline checks: the stored top k ids of the dropped queries (None: the baseline stores no
    # rankings), and each period's comparison (by_period), for the HTML report
    baseline_top: dict[str, list[str]] | None = None
    periods: list[dict[str, Any]] | None = None

    @classmethod
    def from_comparison(cls, result: Any, comparison: BaselineOutcome, message: str) -> Check:
        """A baseline check (``drop <= max_drop``) of ``result``; ``message`` is its failure
        message, kept when the session's Holm correction decides the check at its end."""
        return cls(
            result=result,
            op="drop <=",
            threshold=comparison.max_drop,
            passed=comparison.passed,
            baseline=comparison.baseline,
            p_value=comparison.p_value,
            note=comparison.note,
            baseline_scores=comparison.baseline_scores,
            alpha=comparison.alpha,
            pending_message=message if comparison.pending else "",
            baseline_top=comparison.baseline_top,
            periods=comparison.period_figures or None,
        )


class BaselineOutcome(Protocol):
    """What a baseline check reports (``gate.baselines.BaselineComparison``, from the layer
    above, so only its shape is named here)."""

    @property
    def max_drop(self) -> float: ...
    @property
    def passed(self) -> bool: ...
    @property
    def pending(self) -> bool: ...
    @property
    def baseline(self) -> float | None: ...
    @property
    def p_value(self) -> float | None: ...
    @property
    def note(self) -> str: ...
    @property
    def baseline_scores(self) -> dict[str, float]: ...
    @property
    def alpha(self) -> float: ...
    @property
    def baseline_top(self) -> dict[str, list[str]] | None: ...
    @property
    def period_figures(self) -> list[dict[str, Any]]: ...


Recorder = Callable[[Check], None]
active_recorders: list[Recorder] = []  # the plugin pushes one per running test


@dataclass
class Policy:
    """Session-wide rules for checks, set by the plugin from the ini file."""

    fail_on_excluded: bool = False  # ini tempoeval_fail_on_excluded; a metric call's own wins
    fail_on_unknown_ids: bool = False  # ini tempoeval_fail_on_unknown_ids


policy = Policy()


def record(check: Check) -> None:
    """Hand ``check`` to the running test's recorder. With none (a test the plugin did not see
    use the package, or no plugin at all), a failed comparison whose value was thrown away
    raises here: nothing else would ever fail for it."""
    if active_recorders:
        active_recorders[-1](check)
    elif check.unasserted:
        raise AssertionError(check.unasserted)


# -- judged calls a dry run stopped ----------------------------------------------------------------
# Under --tempoeval-judge-dry-run the plugin pushes a list per running test. A judged metric call
# the dry run stopped (its judge raised JudgeDryRun: nothing asked) adds the stop there and returns
# a result with no score, so the test goes on to its later judged calls and the dry run counts them
# all; the plugin then skips the test with their counts. Outside that, the stop is raised.
dry_run_stops: list[list[JudgeDryRun]] = []


def keep_dry_run_stop(stop: JudgeDryRun) -> bool:
    """Whether the running test collects dry-run stops; if so, ``stop`` is added to them."""
    if not dry_run_stops:
        return False
    dry_run_stops[-1].append(stop)
    return True


# -- comparisons written without ``assert`` --------------------------------------------------------
# ``ndcg(run, gold) >= 0.8`` as a bare statement compares, records a failed check, and throws the
# False away: the test would pass. The rule: a failed comparison whose value the calling code
# throws away fails its test; one whose value is used (``assert``, ``assert not``, ``if``, stored,
# or raised by an ``assert_*`` result) is the calling code's business, so a test that checks that a
# threshold fails (``with pytest.raises(AssertionError): assert result >= 0.99``) still passes.
# CPython compiles a bare comparison to COMPARE_OP then POP_TOP (3.11 to 3.13); anything else, or
# code that cannot be read, counts as used.

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def discarded_at() -> str:
    """``file:line`` of the comparison running now when its caller throws its value away (a bare
    statement), else an empty string. The caller is the first frame outside this package."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
    if frame is None or not _pops_after(frame.f_code, frame.f_lasti):
        return ""
    path = frame.f_code.co_filename
    try:
        path = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        pass
    return f"{path}:{frame.f_lineno}"


_bare_comparisons: dict[CodeType, frozenset[int]] = {}  # code -> offsets of discarded comparisons


def _pops_after(code: CodeType, offset: int) -> bool:
    if code not in _bare_comparisons:
        import dis  # only a failed comparison gets here
        from itertools import pairwise

        _bare_comparisons[code] = frozenset(
            this.offset
            for this, after in pairwise(dis.get_instructions(code))
            if this.opname == "COMPARE_OP" and after.opname == "POP_TOP"
        )
    return offset in _bare_comparisons[code]


def not_asserted(where: str) -> str:
    """The first line of the failure of a comparison written without ``assert``."""
    return (
        f"{where}: this metric comparison failed, but it was not asserted (its value was thrown "
        "away): write `assert` before it"
    )


# -- grades the judge filled (--tempoeval-propose-gold) --------------------------------------------
# With --tempoeval-propose-gold the plugin pushes a list per running test; every gold-mode call
# whose holes the judge filled (fill_unjudged=, fill=llm) adds what it filled (a
# metrics.filling.FilledGrades), and the session writes them as a patch for the gold set at its end.
# Outside that, nothing is kept.
filled_grades: list[list[Any]] = []


def record_fill(filled: Any) -> None:
    """Hand the grades a call filled to the running test's list, when the plugin keeps one."""
    if filled_grades:
        filled_grades[-1].append(filled)
