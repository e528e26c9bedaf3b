"""pytest entry point (``pytest11: tempoeval``): hooks and fixtures only.

Options and ini keys are declared, read and checked in ``options.py``; the per-test hooks are plugin
objects in ``hooks.py``, registered here (each returns at once for a test that does not use the
plugin); what the session learns is ``session.py``'s. Nothing heavy (numpy, anthropic, vcrpy) is
imported here: the modules doing the work are imported inside the hooks and fixtures that need
them.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

import pytest

from pytest_tempoeval.hooks import (
    ASKS,
    BASELINES,
    CALL_FAILED,
    JUDGING_INTERRUPTED,
    Checks,
    DryRun,
    Proposals,
    Reports,
    Trimming,
    Xdist,
    mark_users,
)
from pytest_tempoeval.metrics.checks import policy
from pytest_tempoeval.options import MARKER, Settings, add_options, marker_gold
from pytest_tempoeval.session import WORKER_OUTPUT_KEY, TempoEvalSession, add_counters, notes_of

if TYPE_CHECKING:
    from pytest_tempoeval.data.goldset import GoldSet
    from pytest_tempoeval.gate.baselines import BaselineComparison, BaselineStore
    from pytest_tempoeval.judge.anthropic_judge import AnthropicJudge
    from pytest_tempoeval.judge.custom import CachedJudge

# The package's modules the plugin loads: any other loaded by the end of collection is the suite's.
_PLUGIN_MODULES = frozenset(name for name in sys.modules if name.startswith("pytest_tempoeval"))
SESSION = pytest.StashKey[TempoEvalSession]()


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER)
    settings = Settings.from_config(config)  # a bad setting is a usage error, before collection
    policy.fail_on_excluded = settings.fail_on_excluded
    policy.fail_on_unknown_ids = settings.fail_on_unknown_ids
    config.stash[SESSION] = state = TempoEvalSession.start(config, settings)
    plugins = config.pluginmanager
    plugins.register(Reports(state), "tempoeval-reports")
    # Its entry point's name, or its module's when loaded by name (-p xdist.plugin).
    if plugins.hasplugin("xdist") or plugins.hasplugin("xdist.plugin"):
        plugins.register(Xdist(state), "tempoeval-xdist")


def pytest_unconfigure(config: pytest.Config) -> None:
    policy.fail_on_excluded = False  # pytester runs sessions inside this one
    policy.fail_on_unknown_ids = False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Which tests use the plugin, decided once; bad marker arguments are usage errors, reported
    before anything runs. The per-test hooks are registered only when a test uses the plugin: a
    suite that never does pays nothing per test."""
    try:
        used = mark_users(items, _PLUGIN_MODULES)
    except pytest.UsageError as error:
        if not hasattr(config, "workerinput"):
            raise
        # Raised in an xdist worker, it crashes the session (INTERNALERROR, exit 3) and the message
        # is lost: the worker runs nothing and hands it to the controller, which exits 4 with it.
        config.stash[SESSION].usage_error = str(error)
        items.clear()
        return
    plugins = config.pluginmanager  # each job its own hooks; the last registered wraps the others
    if used and not plugins.has_plugin("tempoeval-checks"):
        settings = config.stash[SESSION].settings
        # the reports that show the temporal diagnostics and what changed for a drop
        temporal = bool(settings.json_path or settings.html_path or settings.markdown_path)
        plugins.register(Checks(temporal), "tempoeval-checks")
        if settings.trim_failures:
            plugins.register(Trimming(), "tempoeval-trimming")
        if settings.judge_dry_run:
            plugins.register(DryRun(), "tempoeval-dry-run")
        if settings.propose_gold_path:
            plugins.register(Proposals(), "tempoeval-proposals")


def pytest_collection_finish(session: pytest.Session) -> None:
    """Note which baseline files the selected tests own, for the report of unused ones. A session
    in which no selected test uses the plugin never looks at the baseline directory."""
    if any(item.stash.get(ASKS, False) for item in session.items):
        session.config.stash[SESSION].note_selection(session.items, session.config)


def pytest_deselected(items: list[pytest.Item]) -> None:
    if items:
        from pytest_tempoeval.files import module_key

        state = items[0].config.stash[SESSION]
        state.partial_modules.update(module_key(item.nodeid) for item in items)


def pytest_assertrepr_compare(
    config: pytest.Config, op: str, left: Any, right: Any
) -> list[str] | None:
    if "pytest_tempoeval.metrics.results" not in sys.modules:  # no metric result exists
        return None
    from pytest_tempoeval.metrics.results import assertrepr_compare

    return assertrepr_compare(op, left, right, config.get_verbosity())


# -- the session's end -----------------------------------------------------------------------------


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    state = config.stash[SESSION]
    if hasattr(config, "workerinput") or not (
        state.rows
        or state.judged
        or state.unused
        or state.report_problems
        or state.crashed
        or state.proposal_lines
    ):
        return
    from pytest_tempoeval.reports.text import terminal_summary

    terminal_summary(state, terminalreporter)


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
    state.conclude(session, exitstatus)
    settings = state.settings
    if settings.json_path or settings.html_path or settings.markdown_path or settings.history_path:
        from pytest_tempoeval.reports.writer import write_session_reports

        write_session_reports(state, (config.rootpath, config.invocation_params.dir))
    if settings.propose_gold_path:
        from pytest_tempoeval.reports.gold_proposals import write_proposals

        state.proposal_lines = write_proposals(
            state.proposals,
            settings.propose_gold_path,
            overwrite=settings.propose_gold_overwrite,
            root=config.rootpath,
        )


# -- fixtures --------------------------------------------------------------------------------------


@pytest.fixture
def tempoeval_gold(request: pytest.FixtureRequest) -> GoldSet:
    """The gold set named by ``@pytest.mark.tempoeval(gold=...)`` (or the ``tempoeval_gold`` ini
    key), loaded once per session."""
    state = request.config.stash[SESSION]
    marker = request.node.get_closest_marker("tempoeval")
    raw = marker_gold(marker, request.node.nodeid) if marker else state.settings.gold
    if not raw:
        pytest.fail(
            f"{request.node.nodeid}: the tempoeval_gold fixture needs a gold set: add "
            "@pytest.mark.tempoeval(gold='path/to/gold.yaml') or set tempoeval_gold in the "
            "pytest ini",
            pytrace=False,
        )
    return state.gold_set(raw, request.config, request.path, request.node.nodeid)


@pytest.fixture
def tempoeval_judge(request: pytest.FixtureRequest) -> Generator[AnthropicJudge, None, None]:
    """An AnthropicJudge bound to this test's cassette
    (``<tempoeval_cassette_dir>/<test module>/<test name>.yaml``).

    Record mode ``none`` (the default) replays only: no SDK, no network, and a miss fails at once
    with JudgeCassetteError naming the cassette and the command to re-record.
    """
    from pytest_tempoeval.errors import JudgeCassetteError
    from pytest_tempoeval.files import is_file
    from pytest_tempoeval.judge.cassettes import JudgeCassette, cassette_file, rerecord_command
    from pytest_tempoeval.judge.recorded import recorded_judge
    from pytest_tempoeval.reports.progress import progress_line, status_line

    config = request.config
    state = config.stash[SESSION]
    settings = state.settings
    path, legacy = cassette_file(
        settings.cassette_dir, request.node.nodeid, settings.cassette_serializer
    )
    command = rerecord_command(request.node.nodeid, is_file(legacy or path))
    problem: str | None = None
    cassette: JudgeCassette | None = None
    try:
        cassette = JudgeCassette(path, settings.record_mode, command, source=legacy)
    except JudgeCassetteError as error:
        problem = str(error)
    if problem is not None:  # failed outside the handler: no "during handling..." chain
        pytest.fail(f"{request.node.nodeid}: {problem}", pytrace=False)
    assert cassette is not None
    batch = settings.judge_batch
    judge = recorded_judge(
        cassette,
        model=settings.judge_model,
        prompt_style=settings.judge_prompt_style,
        dry_run=settings.judge_dry_run,
        budget=state.judge_budget,
        batch=batch,
        batch_poll=settings.judge_batch_poll,
        progress=progress_line(config) if cassette.recording else None,  # silent in replay
        batch_status=status_line(config) if batch else None,
    )
    yield judge
    add_counters(notes_of(request.node).judge, judge.model, judge.stats)
    # Only if something was recorded; kept even when the test failed. A re-recording (all) that
    # was interrupted keeps the old answers it did not ask again.
    cassette.save(complete=not request.node.stash.get(JUDGING_INTERRUPTED, True))


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

    state = request.config.stash[SESSION]
    settings = state.settings
    path = per_test_path(settings.cassette_dir, request.node.nodeid, ".judgments.json")
    judges: list[CachedJudge] = []
    # shared by its judges
    recording = Recording(dry_run=settings.judge_dry_run, budget=state.judge_budget)

    def make(provider: Any, max_concurrency: int = 8) -> CachedJudge:
        judge = CachedJudge(
            provider,
            path,
            settings.record_mode,
            max_concurrency,
            recording=recording,
        )
        judges.append(judge)
        return judge

    yield make
    for judge in judges:
        add_counters(notes_of(request.node).judge, judge.model, judge.stats)
        judge.save(complete=not request.node.stash.get(JUDGING_INTERRUPTED, True))


@pytest.fixture
def tempoeval_baseline(request: pytest.FixtureRequest) -> Generator[BaselineStore, None, None]:
    """This test's regression baseline (``<tempoeval_baseline_dir>/<module>/<test>.json``).

    ``tempoeval_baseline.check(result, max_drop=..., alpha=0.05)`` fails the test on a significant
    drop; with ``--tempoeval-update-baseline`` it records the result instead, and the file is
    written when the test ends.
    """
    from pytest_tempoeval.gate.baselines import BaselineStore
    from pytest_tempoeval.metrics.checks import Check, record

    def report(result: Any, comparison: BaselineComparison, message: str) -> None:
        record(Check.from_comparison(result, comparison, message))

    settings = request.config.stash[SESSION].settings
    directory = settings.baseline_dir
    store = BaselineStore.for_test(
        directory,
        request.node.nodeid,
        settings.update_baseline,
        max_drop=settings.max_drop,
        on_check=report,
        defer=True,
        correction=settings.gate_correction,
        by_period=settings.by_period,
        rankings=settings.baseline_rankings,
    )
    request.node.stash[BASELINES] = store  # regressions fail the test when its body has ended
    yield store
    if store.checked:
        notes_of(request.node).baselines.append(store.path.relative_to(directory).as_posix())
    if request.node.stash.get(CALL_FAILED, True):  # failed, or never ran to a report
        if store.update and store.checked:  # a half-run test must not shrink the file
            warnings.warn(
                pytest.PytestWarning(
                    f"{request.node.nodeid}: baseline not written, the test failed"
                ),
                stacklevel=1,
            )
        return
    store.finish()
