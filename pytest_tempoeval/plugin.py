"""pytest entry point (``pytest11: tempoeval``).

Kept thin on purpose, like pytest-recording's: options, markers, fixtures and hooks only. Nothing
heavy
(numpy, anthropic, vcrpy) is imported here, so a suite that never uses the plugin pays nothing; the
modules doing the work are imported inside the hooks and fixtures that need them.
"""

from __future__ import annotations

import math
import os
import sys
import warnings
from collections.abc import Callable, Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_tempoeval.files import is_file, module_key
from pytest_tempoeval.gate.randomization import CORRECTIONS
from pytest_tempoeval.metrics.checks import active_recorders, dry_run_stops, policy
from pytest_tempoeval.metrics.llm_prompts import PROMPT_STYLES
from pytest_tempoeval.session import (
    REPORT_ATTRIBUTE,
    WORKER_OUTPUT_KEY,
    TempoEvalSession,
    TestNotes,
    add_counters,
)

if TYPE_CHECKING:
    from pytest_tempoeval.data.goldset import GoldSet
    from pytest_tempoeval.gate.baselines import BaselineStore
    from pytest_tempoeval.judge.anthropic_judge import AnthropicJudge
    from pytest_tempoeval.judge.custom import CachedJudge

SESSION = pytest.StashKey[TempoEvalSession]()
CALL_FAILED = pytest.StashKey[bool]()
# The test stopped on something other than a failed assertion: its judging may be unfinished.
JUDGING_INTERRUPTED = pytest.StashKey[bool]()
BASELINES = pytest.StashKey["BaselineStore"]()
NOTES = pytest.StashKey[TestNotes]()  # what the test adds to the session, until a report takes it
RECORD_MODES = ("none", "once", "new_episodes", "all")  # vcrpy's
BUDGET_FILE = "tempoeval_judge_budget_file"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tempoeval", "retrieval regression testing with temporal relevance")
    group.addoption(
        "--tempoeval-record-mode",
        choices=RECORD_MODES,
        default="none",
        help="LLM-judge cassettes: 'none' replays only (default); once/new_episodes/all record "
        "as vcrpy does.",
    )
    group.addoption(
        "--tempoeval-judge-dry-run",
        action="store_true",
        help="Ask the LLM judge nothing: count the judgments the session would ask and those the "
        "cassettes hold, estimate tokens and cost, and skip the tests that need new ones.",
    )
    group.addoption(
        "--tempoeval-judge-max-requests",
        metavar="N",
        type=int,
        default=None,
        help="Cap the new judge requests of the session (overrides ini "
        "tempoeval_judge_max_requests).",
    )
    group.addoption(
        "--tempoeval-judge-batch",
        action="store_true",
        help="Record new judgments through the Message Batches API (half price, up to 24 h).",
    )
    group.addoption(
        "--tempoeval-update-baseline",
        action="store_true",
        help="Write regression baselines instead of checking them.",
    )
    group.addoption(
        "--tempoeval-report", metavar="PATH", help="Write every metric check as JSON to PATH."
    )
    group.addoption(
        "--tempoeval-markdown",
        metavar="PATH",
        help="Write the metric summary as markdown to PATH (also appended to "
        "$GITHUB_STEP_SUMMARY when set).",
    )
    group.addoption(
        "--tempoeval-html",
        metavar="PATH",
        help="Write a self-contained HTML report to PATH: per-query charts against the "
        "baselines, worst queries.",
    )
    parser.addini(
        "tempoeval_gold", "Default gold set for the tempoeval_gold fixture (path from rootdir)."
    )
    parser.addini(
        "tempoeval_cassette_dir", "Directory of LLM-judge cassettes.", default="fixtures/cassettes"
    )
    parser.addini(
        "tempoeval_cassette_serializer",
        "Cassette format: yaml (default, pytest-recording's) or json (faster replay, for big "
        "suites).",
        default="yaml",
    )
    parser.addini(
        "tempoeval_baseline_dir", "Directory of regression baselines.", default="fixtures/baselines"
    )
    parser.addini(
        "tempoeval_judge_model", "Anthropic model of the LLM judge (default: the plugin's)."
    )
    parser.addini(
        "tempoeval_max_drop",
        "Largest drop of a metric mean a baseline check tolerates.",
        default="0.0",
    )
    parser.addini(
        "tempoeval_judge_max_requests",
        "Cap on the new judge requests a session may send (default: no cap).",
    )
    parser.addini(
        "tempoeval_judge_prompt_style",
        "seed (default: the TempoEval prompts word for word) or delimited (query and document "
        "text fenced, so that a heading inside them cannot restructure the prompt).",
        default="seed",
    )
    parser.addini(
        "tempoeval_judge_batch_poll",
        "Seconds between polls of a Message Batch (--tempoeval-judge-batch).",
        default="30",
    )
    parser.addini(
        "tempoeval_judge_prices",
        "Judge prices in US dollars per million tokens, one 'model = input/output' line each; "
        "they override the plugin's dated table.",
        type="linelist",
    )
    parser.addini(
        "tempoeval_gate_correction",
        "Multiple-comparison correction of the baseline checks: none (default; each check at its "
        "alpha) or holm (the session's tested checks together, family-wise error <= alpha; "
        "decided at the end of the session).",
        default="none",
    )
    parser.addini(
        "tempoeval_fail_on_excluded",
        "Fail every check of a result that leaves a query out (excluded, or a run query the gold "
        "set lacks); a metric call's own fail_on_excluded= wins.",
        type="bool",
        default=False,
    )
    parser.addini(
        "tempoeval_fail_on_unknown_ids",
        "Fail every check of a result that retrieved ids the gold set does not know (neither "
        "judged nor declared). A result that knows none of its ids fails whatever this says.",
        type="bool",
        default=False,
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "tempoeval(PATH) or tempoeval(gold=PATH): the golden query set the tempoeval_gold fixture "
        "loads (path from rootdir).",
    )
    policy.fail_on_excluded = config.getini("tempoeval_fail_on_excluded")
    policy.fail_on_unknown_ids = config.getini("tempoeval_fail_on_unknown_ids")
    correction = config.getini("tempoeval_gate_correction")
    if correction not in CORRECTIONS:
        raise pytest.UsageError(
            f"ini tempoeval_gate_correction must be one of {', '.join(CORRECTIONS)}, "
            f"got {correction!r}"
        )
    config.stash[SESSION] = state = TempoEvalSession()
    state.judge_dry_run = config.getoption("tempoeval_judge_dry_run")
    if prices := config.getini("tempoeval_judge_prices"):
        from pytest_tempoeval.judge.prices import parse_prices

        try:
            state.judge_prices = parse_prices(prices)
        except ValueError as error:
            raise pytest.UsageError(str(error)) from None
    state.judge_budget = _judge_budget(config)
    # Checked once, here, so a bad value is a usage error (exit 4), not an error in every test.
    state.judge_batch_poll = _positive_seconds(config, "tempoeval_judge_batch_poll")
    state.judge_prompt_style = config.getini("tempoeval_judge_prompt_style")
    if state.judge_prompt_style not in PROMPT_STYLES:
        raise pytest.UsageError(
            f"ini tempoeval_judge_prompt_style must be one of {', '.join(PROMPT_STYLES)}, "
            f"got {state.judge_prompt_style!r}"
        )
    config.pluginmanager.register(_Reports(state), "tempoeval-reports")


def _positive_seconds(config: pytest.Config, key: str) -> float:
    """An ini duration: a positive, finite number (0 or nan would poll without pause, inf never)."""
    raw = config.getini(key)
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise pytest.UsageError(
            f"ini {key} must be a positive, finite number of seconds, got {raw!r}"
        )
    return seconds


def _judge_budget(config: pytest.Config) -> Any:
    """The session's cap on new judge requests, or None. Its count is kept in a file the session
    creates; under xdist every worker updates the controller's, so the cap is the session's."""
    limit: Any = config.getoption("tempoeval_judge_max_requests")
    if limit is None:
        limit = config.getini("tempoeval_judge_max_requests") or None
    if limit is None:
        return None
    try:
        limit = int(limit)
        if limit < 0:
            raise ValueError
    except ValueError:
        raise pytest.UsageError(
            f"the judge request budget must be an integer >= 0, got {limit!r}"
        ) from None
    from pytest_tempoeval.judge.budget import RequestBudget

    shared = getattr(config, "workerinput", {}).get(BUDGET_FILE)
    if shared is None:  # the controller, or a run without xdist: a file costs nothing here
        import tempfile

        handle, name = tempfile.mkstemp(prefix="tempoeval-judge-budget-")
        os.close(handle)
        shared = name
        config.add_cleanup(lambda: Path(name).unlink(missing_ok=True))
    return RequestBudget(limit, Path(shared))


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook
def pytest_configure_node(node: Any) -> None:
    """The controller hands each worker the file of the shared judge request budget."""
    budget = node.config.stash[SESSION].judge_budget
    if budget is not None and budget.path is not None:
        node.workerinput[BUDGET_FILE] = str(budget.path)


def pytest_unconfigure(config: pytest.Config) -> None:
    policy.fail_on_excluded = False  # pytester runs sessions inside this one
    policy.fail_on_unknown_ids = False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Bad marker arguments are usage errors, reported before anything runs."""
    try:
        for item in items:
            for marker in item.iter_markers("tempoeval"):
                _marker_gold(marker, item.nodeid)
    except pytest.UsageError as error:
        if not hasattr(config, "workerinput"):
            raise
        # Raised in an xdist worker, it crashes the session (INTERNALERROR, exit 3) and the message
        # is lost: the worker runs nothing and hands it to the controller, which exits 4 with it.
        config.stash[SESSION].usage_error = str(error)
        items.clear()


def _marker_gold(marker: pytest.Mark, test: str) -> str | os.PathLike[str]:
    """The gold set a ``tempoeval`` marker names: ``tempoeval("gold.yaml")`` or
    ``tempoeval(gold="gold.yaml")``."""
    unknown = set(marker.kwargs) - {"gold"}
    given = [*marker.args, *([marker.kwargs["gold"]] if "gold" in marker.kwargs else [])]
    if unknown or len(given) != 1 or not isinstance(given[0], (str, os.PathLike)):
        raise pytest.UsageError(
            f"{test}: @pytest.mark.tempoeval takes one gold set path, as tempoeval('gold.yaml') "
            f"or tempoeval(gold='gold.yaml') (a YAML/JSON file, a qrels file or a BEIR folder); "
            f"got args={marker.args!r}, kwargs={marker.kwargs!r}"
        )
    return given[0]


def pytest_collection_finish(session: pytest.Session) -> None:
    """Note which baseline files the selected tests own, for the report of unused ones (one stat
    when the project has no baseline directory). A session in which no selected test uses the
    plugin never looks at the baseline directory: an unused plugin changes nothing."""
    if not any(_uses_plugin(item) for item in session.items):
        return
    directory = _baseline_dir(session.config)
    if not directory.is_dir():
        return
    from pytest_tempoeval.gate.baselines import baseline_path

    state = session.config.stash[SESSION]
    for item in session.items:
        state.selected_baselines.add(
            baseline_path(directory, item.nodeid).relative_to(directory).as_posix()
        )
    for arg in session.config.args:  # node ids select part of a module
        if "::" in arg:
            module = Path(arg.split("::", 1)[0]).resolve()
            if module.is_relative_to(session.config.rootpath):
                relative = module.relative_to(session.config.rootpath).as_posix()
                state.partial_modules.add(module_key(relative))


FIXTURES = ("tempoeval_gold", "tempoeval_judge", "tempoeval_judge_for", "tempoeval_baseline")


def _uses_plugin(item: pytest.Item) -> bool:
    """Whether a test asks for one of the plugin's fixtures or carries its marker."""
    names = getattr(item, "fixturenames", ())
    return (
        any(name in names for name in FIXTURES) or item.get_closest_marker("tempoeval") is not None
    )


def pytest_deselected(items: list[pytest.Item]) -> None:
    if items:
        state = items[0].config.stash[SESSION]
        state.partial_modules.update(module_key(item.nodeid) for item in items)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    # Runs for every test of every suite that has the plugin installed: kept to a push and a pop.
    state = item.config.stash[SESSION]
    recorder, rows = TempoEvalSession.recorder_for(item.nodeid)
    active_recorders.append(recorder)
    stops: list[Exception] = []  # judged calls the dry run stopped (checks.dry_run_stops)
    if state.judge_dry_run:
        dry_run_stops.append(stops)
    try:
        outcome = yield
        if not stops:
            # Failures the test's own code did not raise: comparisons written without
            # ``assert``, and baseline regressions (every check ran; now the test fails).
            failures = [row.unasserted for row in rows if row.unasserted]
            store = item.stash.get(BASELINES, None)
            if store is not None and store.regressions:
                failures.append(store.regression_report())
            if failures:
                item.stash[CALL_FAILED] = True
                pytest.fail("\n\n".join(failures), pytrace=False)
            return outcome
    except BaseException as error:
        item.stash[CALL_FAILED] = True  # update mode writes no baseline from a failed test
        if not isinstance(error, (AssertionError, pytest.fail.Exception)):
            item.stash[JUDGING_INTERRUPTED] = True
        from pytest_tempoeval.errors import JudgeDryRun
        from pytest_tempoeval.failures import trim, trimming

        if isinstance(error, JudgeDryRun):
            stops.append(error)  # skipped outside the handler: no chained traceback
        elif not (stops and _after_a_stop(error)):
            if trimming(item.config):
                trim(error)
            raise
        # else: it failed after a judged call the dry run stopped, maybe for want of its score
    finally:
        active_recorders.pop()
        if state.judge_dry_run:
            dry_run_stops.pop()
        if rows:  # on this test's report; and JUnit XML properties
            from pytest_tempoeval.reports.junit import junit_property

            _notes(item).checks.extend(rows)
            item.user_properties.extend(junit_property(row) for row in rows)
    from pytest_tempoeval.judge.accounting import dry_run_summary

    item.stash[CALL_FAILED] = True  # a test the dry run skipped writes no baseline
    pytest.skip(dry_run_summary(stops))


def _after_a_stop(error: BaseException) -> bool:
    """Whether a test that raised ``error`` after a judged call the dry run stopped is skipped
    all the same: anything but an interrupt or pytest.exit (the call's missing score may be why)."""
    outcomes = (Exception, pytest.fail.Exception, pytest.skip.Exception)
    return isinstance(error, outcomes) and not isinstance(error, pytest.exit.Exception)


def _notes(item: pytest.Item) -> TestNotes:
    notes = item.stash.get(NOTES, None)
    if notes is None:
        notes = item.stash[NOTES] = TestNotes()
    return notes


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Each phase's report carries what the test added to the session since the last one (checks
    after the call, judge counters and the checked baseline after teardown): xdist sends reports to
    the controller as they are made, so a crashed worker loses only the running test."""
    report = yield
    notes = item.stash.get(NOTES, None)
    if notes is not None and (payload := notes.take()):
        setattr(report, REPORT_ATTRIBUTE, payload)
    return report


def pytest_assertrepr_compare(
    config: pytest.Config, op: str, left: Any, right: Any
) -> list[str] | None:
    if "pytest_tempoeval.metrics.results" not in sys.modules:  # no metric result exists
        return None
    from pytest_tempoeval.metrics.results import assertrepr_compare

    return assertrepr_compare(op, left, right, config.get_verbosity())


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    state = config.stash[SESSION]
    # A crash is named even when no check reached the controller, in a project that has baselines.
    crashed = state.crashed if state.rows or state.selected_baselines else []
    if hasattr(config, "workerinput") or not (
        state.rows or state.judged or state.unused or state.report_problems or crashed
    ):
        return
    from pytest_tempoeval.reports.text import gate_lines, judge_line, terminal_lines, unused_lines

    judging = judge_line(state.judge_stats, state.judge_prices)
    rows, unused = state.sorted_rows(), state.unused
    terminalreporter.section("tempoeval")
    for line in terminal_lines(rows, crashed) if rows or crashed else []:
        terminalreporter.write_line(line)
    if judging:
        terminalreporter.write_line(judging)
    for line in unused_lines(unused):
        terminalreporter.write_line(line, yellow=True)
    if state.gate_failures:
        for line in gate_lines(state.gate_failures):
            terminalreporter.write_line(line, red=True)
    for line in state.report_problems:
        terminalreporter.write_line(line, red=True)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    state = config.stash[SESSION]
    if hasattr(config, "workerinput"):  # an xdist worker: the controller writes the reports
        config.workeroutput[WORKER_OUTPUT_KEY] = state.worker_output()  # type: ignore[attr-defined]
        return
    if state.usage_error:  # from an xdist worker: reported as the serial run reports it
        sys.stderr.write(f"ERROR: {state.usage_error}\n")
        session.exitstatus = pytest.ExitCode.USAGE_ERROR
        return
    # Every selected test ran to its end: not stopped (-x, --maxfail, interrupt), not only
    # collected, no collector failed, no xdist worker went down under a test.
    state.complete = (
        exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
        and not session.shouldstop
        and not session.shouldfail
        and not config.option.collectonly
        and not state.collection_failed
        and not state.lost_tests
    )
    if config.getini("tempoeval_gate_correction") == "holm":
        state.gate_failures = state.correct_gate()
    if (state.gate_failures or state.crashed) and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED  # checks failed, or may be missing
    if state.complete:  # a partial run proves nothing unused
        directory = _baseline_dir(config)
        shown = Path(config.getini("tempoeval_baseline_dir")).as_posix()
        state.unused = [f"{shown}/{name}" for name in state.unused_baselines(directory)]
    paths = {
        "json_path": config.getoption("tempoeval_report"),
        "html_path": config.getoption("tempoeval_html"),
        "markdown_path": config.getoption("tempoeval_markdown"),
    }
    if any(paths.values()):
        from pytest_tempoeval.reports.writer import write_reports

        state.report_problems = write_reports(
            state.sorted_rows(),
            state.judge_stats,
            state.judge_prices,
            state.unused,
            crashed=state.crashed,
            roots=(config.rootpath, config.invocation_params.dir),
            **paths,
        )


def _baseline_dir(config: pytest.Config) -> Path:
    return config.rootpath / config.getini("tempoeval_baseline_dir")


class _Reports:
    """What the session learns from reports (the report hooks get no config; under xdist they run
    on the controller, which sees every worker's reports as each test ends): each test's checks,
    judge counters and checked baseline, the tests whose call phase passed (for the
    unused-baselines report), failed collectors, and the tests a crashed worker was running."""

    def __init__(self, state: TempoEvalSession) -> None:
        self.state = state

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        payload = getattr(report, REPORT_ATTRIBUTE, None)
        if payload:
            self.state.add_reported(payload)
        if report.when == "call" and report.passed:
            self.state.passed_tests.add(report.nodeid)

    @pytest.hookimpl
    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:  # its tests were not selected, yet their baselines may be in use
            self.state.collection_failed = True

    @pytest.hookimpl(optionalhook=True)  # pytest-xdist's hooks, from here on
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


# -- fixtures --------------------------------------------------------------------------------------


@pytest.fixture
def tempoeval_gold(request: pytest.FixtureRequest) -> GoldSet:
    """The gold set named by ``@pytest.mark.tempoeval(gold=...)`` (or the ``tempoeval_gold`` ini
    key), loaded once per session."""
    marker = request.node.get_closest_marker("tempoeval")
    raw = (
        _marker_gold(marker, request.node.nodeid)
        if marker
        else request.config.getini("tempoeval_gold")
    )
    if not raw:
        pytest.fail(
            f"{request.node.nodeid}: the tempoeval_gold fixture needs a gold set: add "
            "@pytest.mark.tempoeval(gold='path/to/gold.yaml') or set tempoeval_gold in the "
            "pytest ini",
            pytrace=False,
        )
    state = request.config.stash[SESSION]
    return state.gold_set(raw, request.config, request.path, request.node.nodeid)


@pytest.fixture
def tempoeval_judge(request: pytest.FixtureRequest) -> Generator[AnthropicJudge, None, None]:
    """An AnthropicJudge bound to this test's cassette
    (``<tempoeval_cassette_dir>/<test module>/<test name>.yaml``).

    Record mode ``none`` (the default) replays only: no SDK, no network, and a miss fails at once
    with JudgeCassetteError naming the cassette and the command to re-record.
    """
    from pytest_tempoeval.errors import JudgeCassetteError
    from pytest_tempoeval.judge.anthropic_judge import DEFAULT_MODEL, AnthropicJudge
    from pytest_tempoeval.judge.cassettes import JudgeCassette, cassette_file, rerecord_command
    from pytest_tempoeval.judge.recording import Recording
    from pytest_tempoeval.reports.progress import progress_line, status_line

    config = request.config
    state = config.stash[SESSION]
    mode = config.getoption("tempoeval_record_mode")
    serializer = config.getini("tempoeval_cassette_serializer")
    if serializer not in ("yaml", "json"):
        raise pytest.UsageError(
            f"tempoeval_cassette_serializer must be yaml or json, got {serializer!r}"
        )
    directory = config.rootpath / config.getini("tempoeval_cassette_dir")
    path, legacy = cassette_file(directory, request.node.nodeid, serializer)
    command = rerecord_command(request.node.nodeid, is_file(legacy or path))
    try:
        cassette = JudgeCassette(path, mode, command, source=legacy)
    except JudgeCassetteError as error:
        problem = str(error)
    else:
        problem = None
    if problem is not None:  # failed outside the handler: no "during handling..." chain
        pytest.fail(f"{request.node.nodeid}: {problem}", pytrace=False)
    batch = config.getoption("tempoeval_judge_batch")
    progress = progress_line(config) if cassette.recording else None  # silent in replay
    recording = Recording(
        cassette=cassette,
        progress=progress,
        dry_run=config.getoption("tempoeval_judge_dry_run"),
        budget=state.judge_budget,
        batch=batch,
        batch_poll=state.judge_batch_poll,
        batch_status=status_line(config) if batch else None,
    )
    judge = AnthropicJudge(
        model=config.getini("tempoeval_judge_model") or DEFAULT_MODEL,
        prompt_style=state.judge_prompt_style,
        recording=recording,
    )
    yield judge
    add_counters(_notes(request.node).judge, judge.model, judge.stats)
    # Only if something was recorded; kept even when the test failed. A re-recording (all) that
    # was interrupted keeps the old answers it did not ask again.
    cassette.save(complete=not request.node.stash.get(JUDGING_INTERRUPTED, False))


@pytest.fixture
def tempoeval_judge_for(
    request: pytest.FixtureRequest,
) -> Generator[Callable[..., CachedJudge], None, None]:
    """Your own LLM provider as the judge: ``tempoeval_judge_for(MyProvider())`` gives a
    :class:`~pytest_tempoeval.judge.custom.CachedJudge` whose answers are kept in this test's
    judgment cache (``<tempoeval_cassette_dir>/<test module>/<test name>.judgments.json``), with
    the session's record mode, dry run and request budget."""
    from pytest_tempoeval.files import per_test_path
    from pytest_tempoeval.judge.custom import CachedJudge
    from pytest_tempoeval.judge.recording import Recording

    config = request.config
    state = config.stash[SESSION]
    directory = config.rootpath / config.getini("tempoeval_cassette_dir")
    path = per_test_path(directory, request.node.nodeid, ".judgments.json")
    judges: list[CachedJudge] = []
    dry_run = config.getoption("tempoeval_judge_dry_run")
    recording = Recording(dry_run=dry_run, budget=state.judge_budget)  # shared by its judges

    def make(provider: Any, max_concurrency: int = 8) -> CachedJudge:
        judge = CachedJudge(
            provider,
            path,
            config.getoption("tempoeval_record_mode"),
            max_concurrency,
            recording=recording,
        )
        judges.append(judge)
        return judge

    yield make
    for judge in judges:
        add_counters(_notes(request.node).judge, judge.model, judge.stats)
        judge.save(complete=not request.node.stash.get(JUDGING_INTERRUPTED, False))


@pytest.fixture
def tempoeval_baseline(request: pytest.FixtureRequest) -> Generator[BaselineStore, None, None]:
    """This test's regression baseline (``<tempoeval_baseline_dir>/<module>/<test>.json``).

    ``tempoeval_baseline.check(result, max_drop=..., alpha=0.05)`` fails the test on a significant
    drop; with ``--tempoeval-update-baseline`` it records the result instead, and the file is
    written when the test ends.
    """
    from pytest_tempoeval.gate.baselines import BaselineStore
    from pytest_tempoeval.metrics.checks import Check, record

    config = request.config
    max_drop = config.getini("tempoeval_max_drop")
    try:
        default_drop = float(max_drop)
    except ValueError:
        default_drop = math.nan
    if not (math.isfinite(default_drop) and default_drop >= 0):  # inf would switch the gate off
        raise pytest.UsageError(
            f"ini tempoeval_max_drop must be a finite number >= 0, got {max_drop!r}"
        )

    def report(result: Any, comparison: Any, message: str) -> None:
        record(
            Check(
                result,
                op="drop <=",
                threshold=comparison.max_drop,
                passed=comparison.passed,
                baseline=comparison.baseline,
                p_value=comparison.p_value,
                note=comparison.note,
                baseline_scores=comparison.baseline_scores,
                alpha=comparison.alpha,
                pending_message=message if comparison.status == "pending" else "",
            )
        )

    directory = _baseline_dir(config)
    update = config.getoption("tempoeval_update_baseline")
    store = BaselineStore.for_test(
        directory,
        request.node.nodeid,
        update,
        max_drop=default_drop,
        on_check=report,
        defer=True,
        correction=config.getini("tempoeval_gate_correction") or "none",
    )
    request.node.stash[BASELINES] = store  # regressions fail the test when its body has ended
    yield store
    if store.checked:
        _notes(request.node).baselines.append(store.path.relative_to(directory).as_posix())
    if request.node.stash.get(CALL_FAILED, False):
        if store.update and store.checked:  # a half-run test must not shrink the file
            warnings.warn(
                pytest.PytestWarning(
                    f"{request.node.nodeid}: baseline not written, the test failed"
                ),
                stacklevel=1,
            )
        return
    store.finish()
