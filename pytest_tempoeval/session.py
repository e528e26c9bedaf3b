"""Session state: every metric check made by the tests, in one object (syrupy-style).

What a test adds to the session (its checks, its judges' counters, the baseline file it checked)
travels on the test's own reports (:class:`TestNotes`): the session takes it from every report it
sees, and under pytest-xdist the controller sees each worker's reports as each test ends. A worker
that crashes loses only the test it was running; the controller names that test. What only
collection knows (the selected tests' baseline files) comes from the workers at their end
(``workeroutput``), and any worker's is the whole of it. Reports are written once, by the
controller, from rows sorted by test id, so ``-n 0`` and ``-n 2`` produce the same output.

One module on purpose, though longer than most: the session's one state object (syrupy-style) and
the records it is made of (``CheckRow``, ``TestNotes``), read and written as one.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field, fields
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_tempoeval.files import is_file, module_key, per_test_path
from pytest_tempoeval.gate.randomization import Correction
from pytest_tempoeval.judge.accounting import JudgeStats
from pytest_tempoeval.metrics.checks import Check, Recorder
from pytest_tempoeval.options import Settings

if TYPE_CHECKING:
    from pytest_tempoeval.data.goldset import GoldSet
    from pytest_tempoeval.judge.budget import RequestBudget

WORKER_OUTPUT_KEY = "tempoeval"
BUDGET_FILE = "tempoeval_judge_budget_file"  # workerinput key: the shared budget's file
REPORT_ATTRIBUTE = "tempoeval_notes"  # a test report's TestNotes, as JSON (xdist sends it along)
_COLLECTION_SETS = ("selected_baselines", "partial_modules")
JUDGE_COUNTERS = tuple(counter.name for counter in fields(JudgeStats))
NOT_ASSERTED_NOTE = "not asserted: the test fails"


class CheckStatus(StrEnum):
    """A check's state in every report (compares equal to, and is written as, its string)."""

    PASS = "pass"
    FAIL = "FAIL"
    PENDING = "pending"  # a significant drop the session's Holm correction decides at its end


@dataclass(kw_only=True)
class CheckRow:
    """One metric check: what a summary line, a JSON entry and a JUnit property say."""

    test: str  # pytest node id
    sequence: int  # order of the check within its test
    metric: str  # "temporal_ndcg@10"
    mode: str
    counted: int
    excluded: int
    score: float | None  # None: no counted query (NaN)
    op: str
    threshold: float
    passed: bool
    per_query: dict[str, float] = field(default_factory=dict)
    excluded_queries: dict[str, str] = field(default_factory=dict)
    baseline: float | None = None
    delta: float | None = None
    p_value: float | None = None
    note: str = ""  # the baseline's verdict, and what the score left out
    baseline_per_query: dict[str, float] = field(default_factory=dict)
    # The worst queries, explained (HTML report).
    worst: list[dict[str, Any]] = field(default_factory=list)
    ignored_run_queries: list[str] = field(default_factory=list)  # not in the gold set
    alpha: float | None = None  # baseline checks: the significance level
    p_adjusted: float | None = None  # the Holm-adjusted p-value (ini tempoeval_gate_correction)
    pending: bool = False  # a significant drop the session's Holm correction decides at its end
    pending_message: str = ""  # its failure message, shown if the correction confirms it
    unknown_ids: int = 0  # retrieved ids the gold set does not know (the note says which)
    retrieved_ids: int = 0
    unasserted: str = ""  # failed without ``assert``: the failure message its test got
    # Temporal diagnostics (TemporalDiagnostics.to_dict()), when a JSON or HTML report is written
    # and the gold set gives queries focus times; None otherwise.
    temporal: dict[str, Any] | None = None
    # Baseline checks, for the reports: the queries that dropped, worst first (baseline and new
    # score, the new top k, the old top k when the baseline stores rankings), and each period's
    # comparison of a check by period.
    changes: list[dict[str, Any]] = field(default_factory=list)
    periods: list[dict[str, Any]] | None = None
    # Gold mode with fill=llm: what the judge filled, per query (FilledGrades.to_dict()); None
    # without filling.
    filled: dict[str, Any] | None = None

    @property
    def status(self) -> CheckStatus:
        if self.pending:
            return CheckStatus.PENDING
        return CheckStatus.PASS if self.passed else CheckStatus.FAIL

    @classmethod
    def from_check(cls, test: str, sequence: int, check: Check, temporal: bool = False) -> CheckRow:
        """``temporal``: with what only the JSON, HTML and markdown reports show, computed for a
        session that writes one: the temporal diagnostics, each document's years, and for a
        baseline check the queries that dropped, explained."""
        # Here, not at start-up: a suite that never makes a check never loads the explanations.
        from pytest_tempoeval.metrics.check_details import (
            dropped_explained,
            temporal_figures,
            worst_explained,
        )
        from pytest_tempoeval.metrics.explain import score_notes

        result = check.result
        score = float(result)
        ignored = list(result.extra.get("ignored_run_queries") or [])
        unasserted = NOT_ASSERTED_NOTE if check.unasserted else ""
        note = "; ".join(filter(None, [unasserted, check.note, score_notes(result)]))
        return cls(
            test=test,
            sequence=sequence,
            metric=result.label,
            mode=result.mode,
            counted=len(result.per_query),
            excluded=len(result.excluded),
            score=None if math.isnan(score) else score,
            op=check.op,
            threshold=check.threshold,
            passed=check.passed,
            per_query=dict(result.per_query),
            excluded_queries=dict(result.excluded),
            baseline=check.baseline,
            delta=None if check.baseline is None else score - check.baseline,
            p_value=check.p_value,
            note=note,
            baseline_per_query=dict(check.baseline_scores or {}),
            worst=worst_explained(result, temporal),
            ignored_run_queries=ignored,
            alpha=check.alpha,
            pending=bool(check.pending_message),
            pending_message=check.pending_message,
            unknown_ids=result.extra.get("unknown_ids", 0),
            retrieved_ids=result.extra.get("retrieved_ids", 0),
            unasserted=check.unasserted,
            temporal=temporal_figures(result) if temporal else None,
            changes=dropped_explained(result, check, temporal) if temporal else [],
            periods=check.periods,
            filled=_filled(result),
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"status": self.status}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CheckRow:
        return cls(**{key: value for key, value in data.items() if key != "status"})


def _filled(result: Any) -> dict[str, Any] | None:
    """What the judge filled of a gold-mode result's holes, as plain data (None: nothing)."""
    filled = getattr(result, "filled", None)
    return None if filled is None else dict(filled.to_dict())


def add_counters(
    totals: dict[str, dict[str, int]], model: str, stats: Any
) -> dict[str, dict[str, int]]:
    """Add one judge's counters (a JudgeStats or its dict) to ``totals``, by model."""
    counters = totals.setdefault(model, dict.fromkeys(JUDGE_COUNTERS, 0))
    for counter in JUDGE_COUNTERS:
        counters[counter] += stats[counter] if isinstance(stats, dict) else getattr(stats, counter)
    return totals


@dataclass
class TestNotes:
    """What one test adds to the session, kept until its next report carries it (as JSON: plain
    data that xdist sends to the controller as the test ends)."""

    __test__ = False  # not a test class, whatever its name says

    checks: list[CheckRow] = field(default_factory=list)
    judge: dict[str, dict[str, int]] = field(default_factory=dict)
    baselines: list[str] = field(default_factory=list)  # checked, "module/test.json"
    # --tempoeval-propose-gold: the grades the judge filled at or above the relevance level
    # (FilledGrades.proposals())
    proposals: list[dict[str, Any]] = field(default_factory=list)

    def take(self) -> str | None:
        """The notes not yet reported, as JSON (None: nothing new); then they are cleared."""
        if not (self.checks or self.judge or self.baselines or self.proposals):
            return None
        payload = json.dumps(
            {
                "checks": [row.to_dict() for row in self.checks],
                "judge": self.judge,
                "baselines": self.baselines,
                "proposals": self.proposals,
            }
        )
        self.checks, self.judge, self.baselines, self.proposals = [], {}, [], []
        return payload


NOTES = pytest.StashKey[TestNotes]()  # what the test adds to the session, until a report takes it


def notes_of(item: pytest.Item) -> TestNotes:
    notes = item.stash.get(NOTES, None)
    if notes is None:
        notes = item.stash[NOTES] = TestNotes()
    return notes


def _judge_budget(limit: int, config: pytest.Config) -> RequestBudget:
    """The session's cap on new judge requests. Its count is kept in a file the session creates;
    under xdist every worker updates the controller's (handed over in ``workerinput``), so the cap
    is the session's."""
    from pytest_tempoeval.judge.budget import RequestBudget

    shared = getattr(config, "workerinput", {}).get(BUDGET_FILE)
    if shared is None:  # the controller, or a run without xdist: a file costs nothing here
        import tempfile

        handle, name = tempfile.mkstemp(prefix="tempoeval-judge-budget-")
        os.close(handle)
        shared = name
        config.add_cleanup(lambda: Path(name).unlink(missing_ok=True))
    return RequestBudget(limit, Path(shared))


class TempoEvalSession:
    """All checks of this pytest session (of this worker, under xdist), and its settings."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings if settings is not None else Settings()
        self.rows: list[CheckRow] = []
        # Judge model -> counters, summed over every test's judge.
        self.judge_stats: dict[str, dict[str, int]] = {}
        self.judge_budget: RequestBudget | None = None  # the session's cap on new judge requests
        self.gold_sets: dict[
            tuple[str, float], GoldSet
        ] = {}  # (path, mtime) -> GoldSet, loaded once
        # Baseline files (relative to the baseline directory, "module/test.json"), for the report of
        # unused ones: those of the selected tests, those checked, and modules not wholly selected.
        self.selected_baselines: set[str] = set()
        self.checked_baselines: set[str] = set()
        self.partial_modules: set[str] = set()
        # Node ids whose call phase passed (on the controller under xdist).
        self.passed_tests: set[str] = set()
        # The run was not stopped early (-x, --maxfail, interrupt, --collect-only).
        self.complete = False
        self.unused: list[str] = []  # unused baseline files, found at session finish (controller)
        self.gate_failures: list[CheckRow] = []  # failed by the Holm correction (controller)
        # A usage error found by an xdist worker, for the controller to report (exit 4).
        self.usage_error: str | None = None
        self.report_problems: list[str] = []  # reports that could not be written, one line each
        self.history_notes: list[str] = []  # lines of the history file that reading skipped
        # --tempoeval-propose-gold: the filled grades every test proposed (on the controller under
        # xdist: all workers'), and what writing their patch said, one line each
        self.proposals: list[dict[str, Any]] = []
        self.proposal_lines: list[str] = []
        # xdist (on the controller): the tests whose worker crashed under them, whose checks may be
        # missing; how many workers went down before their end; a failed collection.
        self.crashed: list[str] = []
        self.workers_lost = 0
        self.collection_failed = False

    @classmethod
    def start(cls, config: pytest.Config, settings: Settings) -> TempoEvalSession:
        """The session of ``config``, with its judge request budget."""
        state = cls(settings)
        if settings.judge_max_requests is not None:
            state.judge_budget = _judge_budget(settings.judge_max_requests, config)
        return state

    @property
    def judge_prices(self) -> dict[str, tuple[float, float]]:  # ini tempoeval_judge_prices
        return self.settings.judge_prices

    @staticmethod
    def recorder_for(test: str, temporal: bool = False) -> tuple[Recorder, list[CheckRow]]:
        """A recorder that turns the checks made by ``test`` into rows (returned). They reach the
        session on the test's report (:meth:`add_reported`). ``temporal``: the rows carry the
        temporal diagnostics (a JSON or HTML report shows them)."""
        rows: list[CheckRow] = []

        def record(check: Check) -> None:
            rows.append(CheckRow.from_check(test, len(rows), check, temporal))

        return record, rows

    def add_reported(self, payload: str) -> None:
        """Add what a test report carries (:meth:`TestNotes.take`)."""
        data = json.loads(payload)
        self.rows.extend(CheckRow.from_dict(row) for row in data["checks"])
        for model, counters in data["judge"].items():
            self.add_judge_stats(model, counters)
        self.checked_baselines.update(data["baselines"])
        self.proposals.extend(data.get("proposals", ()))

    @property
    def lost_tests(self) -> bool:
        """Whether a worker went down before its end: some tests may not have run to theirs."""
        return bool(self.crashed or self.workers_lost)

    @property
    def judged(self) -> bool:
        """Whether any judge asked or answered anything this session."""
        return any(any(counters.values()) for counters in self.judge_stats.values())

    def add_judge_stats(self, model: str, stats: Any) -> None:
        add_counters(self.judge_stats, model, stats)

    def gold_set(
        self, raw: str | os.PathLike[str], config: pytest.Config, test_file: Path, test: str
    ) -> GoldSet:
        """The gold set at ``raw`` (from the rootdir, else beside the test file), loaded once per
        session. A missing or broken file fails the test with the file and line, no traceback."""
        from pytest_tempoeval.data.goldset import GoldSet
        from pytest_tempoeval.errors import GoldSetWarning, TempoEvalError

        path = Path(raw)
        candidates = (
            [path] if path.is_absolute() else [config.rootpath / path, test_file.parent / path]
        )
        found = next((candidate for candidate in candidates if candidate.exists()), None)
        if found is None:
            tried = ", ".join(str(candidate) for candidate in candidates)
            pytest.fail(
                f"{test}: tempoeval gold set {str(path)!r} not found (looked at {tried})",
                pytrace=False,
            )
        key = (str(found), found.stat().st_mtime)
        if key not in self.gold_sets:
            problem = None
            try:
                self.gold_sets[key] = GoldSet.load(found)
            except (TempoEvalError, GoldSetWarning) as error:  # a warning, under -W error
                problem = str(error)  # failed outside the handler: no "during handling..." chain
            if problem is not None:
                pytest.fail(f"{test}: cannot use gold set {found}:\n{problem}", pytrace=False)
        return self.gold_sets[key]

    def correct_gate(self) -> list[CheckRow]:
        """Holm's correction over every baseline check this session tested (the controller's rows:
        all workers'). A pending check fails when its adjusted p-value is below its alpha; the
        others pass. Returns the checks that failed."""
        from pytest_tempoeval.gate.baselines import PENDING_NOTE
        from pytest_tempoeval.gate.randomization import holm_adjusted
        from pytest_tempoeval.gate.verdict import DEFAULT_ALPHA, regressed

        family = [(row, row.p_value) for row in self.sorted_rows() if row.p_value is not None]
        failed = []
        adjusted_p = holm_adjusted([p_value for _, p_value in family])
        for (row, _), adjusted in zip(family, adjusted_p):
            row.p_adjusted = adjusted
            if not row.pending:
                continue
            row.pending = False
            verdict = f"Holm-adjusted p = {adjusted:.4g} over {len(family)} tested checks"
            drop = -(row.delta or 0.0)  # pending: a drop beyond max_drop (the threshold)
            alpha = row.alpha if row.alpha is not None else DEFAULT_ALPHA
            row.passed = not regressed(drop, row.threshold, adjusted, alpha)
            decided = f"not significant: {verdict}" if row.passed else f"regressed: {verdict}"
            row.note = row.note.replace(PENDING_NOTE, decided)
            if not row.passed:
                failed.append(row)
        return failed

    def conclude(self, session: pytest.Session, exitstatus: int) -> None:
        """At the controller's session finish: whether every selected test ran to its end, the
        Holm correction, the exit status and the unused baselines (then the plugin writes the
        reports: ``reports.writer.write_session_reports``)."""
        config = session.config
        # Every selected test ran to its end: not stopped (-x, --maxfail, interrupt), not only
        # collected, no collector failed, no xdist worker went down under a test.
        self.complete = (
            exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
            and not session.shouldstop
            and not session.shouldfail
            and not config.option.collectonly
            and not self.collection_failed
            and not self.lost_tests
        )
        if self.settings.gate_correction == Correction.HOLM:
            self.gate_failures = self.correct_gate()
        if (self.gate_failures or self.crashed) and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED  # checks failed, or may be missing
        if self.complete:  # a partial run proves nothing unused
            shown = self.settings.baseline_dir_shown
            self.unused = [
                f"{shown}/{name}" for name in self.unused_baselines(self.settings.baseline_dir)
            ]

    def sorted_rows(self) -> list[CheckRow]:
        return sorted(self.rows, key=lambda row: (row.test, row.sequence))

    # -- xdist ------------------------------------------------------------------------------------

    def worker_output(self) -> str:
        """What a worker hands the controller at its end: what its collection found (checks and
        the rest came with each test's reports)."""
        collected = {name: sorted(getattr(self, name)) for name in _COLLECTION_SETS}
        return json.dumps({"usage_error": self.usage_error} | collected)

    def merge_worker_output(self, payload: str) -> None:
        data = json.loads(payload)
        self.usage_error = self.usage_error or data.get("usage_error")
        for name in _COLLECTION_SETS:
            getattr(self, name).update(data[name])

    # -- baselines --------------------------------------------------------------------------------

    def note_selection(self, items: list[pytest.Item], config: pytest.Config) -> None:
        """Which baseline files the selected tests own, and the modules node ids select only part
        of, for the report of unused ones (one stat when the project has no baseline directory)."""
        directory = self.settings.baseline_dir
        if not directory.is_dir():
            return
        from pytest_tempoeval.gate.baselines import baseline_path

        for item in items:
            self.selected_baselines.add(
                baseline_path(directory, item.nodeid).relative_to(directory).as_posix()
            )
        for arg in config.args:  # node ids select part of a module
            if "::" in arg:
                module = Path(arg.split("::", 1)[0]).resolve()
                if module.is_relative_to(config.rootpath):
                    relative = module.relative_to(config.rootpath).as_posix()
                    self.partial_modules.add(module_key(relative))

    def unused_baselines(self, directory: Path) -> list[str]:
        """Baseline files no test checked (syrupy's "unused snapshots"), never deleted: the files of
        tests that ran and passed without checking them, and, in modules selected whole, files no
        test of the module owns (a test renamed or removed). ``-k`` and node ids narrow this; a
        skipped or failed test's file is not reported. Empty, with no file looked at, when no
        selected test uses the plugin (``selected_baselines`` is then empty). Never raises: a file
        the file system cannot name or read is not there."""
        if not self.selected_baselines:
            return []
        ran = {
            per_test_path(directory, test, ".json").relative_to(directory).as_posix()
            for test in self.passed_tests
        }
        unused = {name for name in ran - self.checked_baselines if is_file(directory / name)}
        modules = {name.rsplit("/", 1)[0] for name in self.selected_baselines}
        modules -= self.partial_modules
        for module in modules:
            try:
                files = os.listdir(directory / module)
            except OSError:  # no folder (the usual case), or one it cannot read
                continue
            unused.update(
                f"{module}/{name}"
                for name in files
                if name.endswith(".json") and f"{module}/{name}" not in self.selected_baselines
            )
        return sorted(unused)
