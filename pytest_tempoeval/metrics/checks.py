"""Where metric results report their checks. Free of heavy imports: the plugin loads it.

While a test runs, the plugin installs a recorder; each comparison of a MetricResult with a
threshold (``assert result >= 0.8``) and each baseline check is reported to it, which is how the
session summary, the reports and JUnit properties learn about checks. Outside a test nothing is
recorded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
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


Recorder = Callable[[Check], None]
active_recorders: list[Recorder] = []  # the plugin pushes one per running test


@dataclass
class Policy:
    """Session-wide rules for checks, set by the plugin from the ini file."""

    fail_on_excluded: bool = False  # ini tempoeval_fail_on_excluded; a metric call's own wins
    fail_on_unknown_ids: bool = False  # ini tempoeval_fail_on_unknown_ids


policy = Policy()


def record(check: Check) -> None:
    if active_recorders:
        active_recorders[-1](check)
