"""The plugin's hooks while tests run, as plugin objects that ``plugin.pytest_configure`` registers:
one small hook per job, as pytest's own ``tmpdir.py`` does.

Whether a test uses the plugin is decided once, at collection (:func:`mark_users`), and every
per-test hook checks that first and returns at once for a test that does not: a suite that never
uses the plugin pays next to nothing for it. A test uses it when it asks for one of its fixtures or
carries its marker, when its module refers to the package, or when the package is in use in the
session at all (a conftest or a helper imported it: any test may then compare a metric result).
"""

from __future__ import annotations

import sys
import types
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import pytest

from pytest_tempoeval.metrics.checks import active_recorders, dry_run_stops, filled_grades
from pytest_tempoeval.options import marker_gold
from pytest_tempoeval.session import (
    BUDGET_FILE,
    NOTES,
    REPORT_ATTRIBUTE,
    WORKER_OUTPUT_KEY,
    CheckRow,
    TempoEvalSession,
    notes_of,
)

if TYPE_CHECKING:
    from pytest_tempoeval.errors import JudgeDryRun
    from pytest_tempoeval.gate.baselines import BaselineStore  # noqa: F401 (BASELINES)

USES = pytest.StashKey[bool]()  # the test uses the plugin (decided at collection)
ASKS = pytest.StashKey[bool]()  # it asks for a fixture of the plugin or carries its marker
ROWS = pytest.StashKey[list[CheckRow]]()  # the checks its call made
# How its call ended, for the fixtures' teardown (unset: it never reported, e.g. an interrupt).
CALL_FAILED = pytest.StashKey[bool]()
JUDGING_INTERRUPTED = pytest.StashKey[bool]()  # stopped on something else than a failed assertion
BASELINES = pytest.StashKey["BaselineStore"]()  # its tempoeval_baseline, whose regressions fail it
FIXTURES = ("tempoeval_gold", "tempoeval_judge", "tempoeval_judge_for", "tempoeval_baseline")


# -- at collection ---------------------------------------------------------------------------------


def mark_users(items: list[pytest.Item], plugin_modules: frozenset[str]) -> bool:
    """Set ``USES`` and ``ASKS`` on every test, and return whether any uses the plugin; a bad
    marker argument is a usage error. ``plugin_modules``: the package's modules loaded with the
    plugin itself."""
    in_use = any(
        name.startswith("pytest_tempoeval") and name not in plugin_modules
        for name in list(sys.modules)
    )
    modules: dict[int, bool] = {}  # id(test module) -> whether it refers to the package
    used = False
    for item in items:
        for marker in item.iter_markers("tempoeval"):
            marker_gold(marker, item.nodeid)
        item.stash[ASKS] = asks = asks_for_plugin(item)
        module = getattr(item, "module", None)
        if not (in_use or asks) and id(module) not in modules:
            modules[id(module)] = refers_to_package(module)
        item.stash[USES] = uses = in_use or asks or modules[id(module)]
        used = used or uses
    return used


def asks_for_plugin(item: pytest.Item) -> bool:
    """Whether a test asks for one of the plugin's fixtures or carries its marker."""
    names = getattr(item, "fixturenames", ())
    return (
        any(name in names for name in FIXTURES) or item.get_closest_marker("tempoeval") is not None
    )


def refers_to_package(module: object) -> bool:
    """Whether a test module holds one of this package's modules or objects (``import
    pytest_tempoeval``, ``from pytest_tempoeval import ndcg``)."""
    for value in list(getattr(module, "__dict__", {}).values()):
        if isinstance(value, types.ModuleType):
            name: object = value.__name__
        else:
            name = getattr(value, "__module__", None)
        if isinstance(name, str) and name.startswith("pytest_tempoeval"):
            return True
    return False


# -- while a test runs -----------------------------------------------------------------------------


class Checks:
    """The test's metric checks: recorded while its body runs, failed when they were not asserted,
    and carried on its reports (with JUnit properties)."""

    def __init__(self, temporal: bool = False) -> None:
        # Whether the rows carry the temporal diagnostics: only a JSON or HTML report shows them,
        # and computing them is work the scores did not need.
        self.temporal = temporal

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, None, None]:
        """A recorder while the test's body runs; its rows go on its report."""
        if not item.stash.get(USES, False):
            return (yield)
        recorder, rows = TempoEvalSession.recorder_for(item.nodeid, self.temporal)
        item.stash[ROWS] = rows
        active_recorders.append(recorder)
        try:
            return (yield)
        finally:
            active_recorders.pop()
            if rows:
                notes_of(item).checks.extend(rows)

    @pytest.hookimpl(wrapper=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function) -> Generator[None, object, object]:
        """Failures the test's own code did not raise, once its body has ended: comparisons
        written without ``assert``, and baseline regressions (every check ran; now it fails)."""
        if not pyfuncitem.stash.get(USES, False):
            return (yield)
        outcome = yield
        if dry_run_stops and dry_run_stops[-1]:  # the dry run skips the test
            return outcome
        failures = [row.unasserted for row in pyfuncitem.stash.get(ROWS, []) if row.unasserted]
        store = pyfuncitem.stash.get(BASELINES, None)
        if store is not None and store.regressions:
            failures.append(store.regression_report())
        if failures:
            pytest.fail("\n\n".join(failures), pytrace=False)
        return outcome

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """Each phase's report carries what the test added to the session since the last one
        (checks after the call, judge counters and the checked baseline after teardown): xdist
        sends reports to the controller as they are made, so a crashed worker loses only the
        running test."""
        if not item.stash.get(USES, False):
            return (yield)
        if call.when == "call":
            note_call_outcome(item, call)
            add_junit_properties(item)
        report = yield
        notes = item.stash.get(NOTES, None)
        if notes is not None and (payload := notes.take()):
            setattr(report, REPORT_ATTRIBUTE, payload)
        return report


def note_call_outcome(item: pytest.Item, call: pytest.CallInfo[None]) -> None:
    """For the fixtures' teardown: a failed test writes no baseline, and a test stopped on
    something else than a failed assertion may have left its judging unfinished."""
    error = call.excinfo.value if call.excinfo is not None else None
    item.stash[CALL_FAILED] = error is not None
    item.stash[JUDGING_INTERRUPTED] = error is not None and not isinstance(
        error, (AssertionError, pytest.fail.Exception)
    )


def add_junit_properties(item: pytest.Item) -> None:
    rows = item.stash.get(ROWS, [])
    if rows:
        from pytest_tempoeval.reports.junit import junit_property

        item.user_properties.extend(junit_property(row) for row in rows)


class Trimming:
    """The plugin's frames out of a failure's traceback (``failures.py``; not under --tb=long,
    --full-trace or --pdb)."""

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, None, None]:
        if not item.stash.get(USES, False):
            return (yield)
        try:
            return (yield)
        except BaseException as error:
            from pytest_tempoeval.failures import trim

            trim(error)
            raise


class DryRun:
    """``--tempoeval-judge-dry-run``: a judged call the dry run stopped (nothing asked) is counted,
    the test goes on to its later judged calls, and is skipped with their counts."""

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, None, None]:
        if not item.stash.get(USES, False):
            return (yield)
        stops: list[JudgeDryRun] = []  # judged calls the dry run stopped (checks.dry_run_stops)
        dry_run_stops.append(stops)
        try:
            outcome = yield
            if not stops:
                return outcome
        except BaseException as error:
            from pytest_tempoeval.errors import JudgeDryRun
            from pytest_tempoeval.failures import after_a_stop

            if isinstance(error, JudgeDryRun):
                stops.append(error)  # skipped outside the handler: no chained traceback
            elif not (stops and after_a_stop(error)):
                raise
            # else: it failed after a judged call the dry run stopped, maybe for want of its score
        finally:
            dry_run_stops.pop()
        from pytest_tempoeval.judge.accounting import dry_run_summary

        pytest.skip(dry_run_summary(stops))


class Proposals:
    """``--tempoeval-propose-gold``: the grades the judge filled in a test's gold-mode calls, at
    or above each call's relevance level, travel on its report to the session, which writes them
    as one patch at its end (the controller's, under xdist)."""

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, None, None]:
        if not item.stash.get(USES, False):
            return (yield)
        filled: list[Any] = []  # FilledGrades of the test's calls (checks.record_fill)
        filled_grades.append(filled)
        try:
            return (yield)
        finally:
            filled_grades.pop()
            notes_of(item).proposals.extend(
                proposal for grades in filled for proposal in grades.proposals()
            )


# -- what the session learns from reports ----------------------------------------------------------


class Reports:
    """What the session learns from reports (the report hooks get no config; under xdist they run
    on the controller, which sees every worker's reports as each test ends): each test's checks,
    judge counters and checked baseline, the tests whose call phase passed (for the
    unused-baselines report), and failed collectors."""

    def __init__(self, state: TempoEvalSession) -> None:
        self.state = state

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        payload = getattr(report, REPORT_ATTRIBUTE, None)
        if payload:
            self.state.add_reported(payload)
        if report.when == "call" and report.passed:
            self.state.passed_tests.add(report.nodeid)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:  # its tests were not selected, yet their baselines may be in use
            self.state.collection_failed = True


class Xdist:
    """pytest-xdist's hooks, registered only when it is installed."""

    def __init__(self, state: TempoEvalSession) -> None:
        self.state = state

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """The controller hands each worker the file of the shared judge request budget."""
        budget = self.state.judge_budget
        if budget is not None and budget.path is not None:
            node.workerinput[BUDGET_FILE] = str(budget.path)

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str, report: Any, sched: Any) -> None:
        """A worker died running ``crashitem``: the checks it made are lost (xdist fails it)."""
        self.state.crashed.append(crashitem)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """On the controller: what a worker's collection found joins the session's; a worker that
        went down before its end (``error``) leaves the session incomplete."""
        if error is not None:
            self.state.workers_lost += 1
        payload = getattr(node, "workeroutput", {}).get(WORKER_OUTPUT_KEY)
        if payload:
            self.state.merge_worker_output(payload)
