"""The plugin's command-line options and ini keys: declared once (:func:`add_options`), read and
checked once (:meth:`Settings.from_config`, in ``pytest_configure``, before collection); and its
marker.

A bad value is a usage error (exit 4) naming the option or key and what to write, before any test
is collected: never an error in every test that reads it. Fixtures and hooks read the frozen
:class:`Settings`; nothing else in the package calls ``config.getini`` or ``config.getoption``
(``tests/plugin/test_settings.py`` checks). Closed sets are the lower layers' enums, and the
command line (``cli.py``) reuses them and the gate's defaults.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import pytest

from pytest_tempoeval.errors import check_choice
from pytest_tempoeval.gate.randomization import Correction
from pytest_tempoeval.gate.verdict import DEFAULT_MAX_DROP, max_drop_from
from pytest_tempoeval.judge.modes import (
    BATCH_POLL_RULE,
    BATCH_POLL_SECONDS,
    RecordMode,
    Serializer,
    valid_batch_poll,
)
from pytest_tempoeval.metrics.llm_prompts import PROMPT_STYLES

if TYPE_CHECKING:
    from pytest_tempoeval.metrics.periods import Slicing

_T = TypeVar("_T")


def add_options(parser: pytest.Parser) -> None:
    """Every option and ini key of the plugin, with its help."""
    group = parser.getgroup("tempoeval", "retrieval regression testing with temporal relevance")
    group.addoption(
        "--tempoeval-record-mode",
        metavar="{" + ",".join(RecordMode) + "}",  # checked by Settings: our message, with a hint
        default=RecordMode.NONE.value,
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
        help="Write a self-contained HTML report to PATH: an overview of every check, per-query "
        "charts against the thresholds and baselines, what changed for a drop, the worst queries.",
    )
    group.addoption(
        "--tempoeval-history",
        metavar="PATH",
        help="Append one JSON line per session to PATH (time, git commit, each check's score); "
        "the reports draw each check's trend from it.",
    )
    group.addoption(
        "--tempoeval-propose-gold",
        metavar="PATH",
        help="Write the grades the judge filled (fill_unjudged=, fill=llm) at or above the "
        "relevance level to PATH as a gold patch for review (tempoeval gold merge); an existing "
        "PATH is refused unless --tempoeval-propose-gold-overwrite.",
    )
    group.addoption(
        "--tempoeval-propose-gold-overwrite",
        action="store_true",
        help="Let --tempoeval-propose-gold replace an existing patch file.",
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
        default=Serializer.YAML.value,
    )
    parser.addini(
        "tempoeval_baseline_dir", "Directory of regression baselines.", default="fixtures/baselines"
    )
    parser.addini(
        "tempoeval_baseline_rankings",
        "Baselines also store each query's top k retrieved ids (at most 10 ids for 2,000 "
        "queries), so the HTML report shows a dropped query's old and new rankings side by side.",
        type="bool",
        default=False,
    )
    parser.addini(
        "tempoeval_judge_model", "Anthropic model of the LLM judge (default: the plugin's)."
    )
    parser.addini(
        "tempoeval_max_drop",
        "Largest drop of a metric mean a baseline check tolerates.",
        default=str(DEFAULT_MAX_DROP),
    )
    parser.addini(
        "tempoeval_judge_max_requests",
        "Cap on the new judge requests a session may send (default: no cap).",
    )
    parser.addini(
        "tempoeval_judge_prompt_style",
        "seed (default: the TempoEval prompts word for word) or delimited (query and document "
        "text fenced, so that a heading inside them cannot restructure the prompt).",
        default=PROMPT_STYLES[0],
    )
    parser.addini(
        "tempoeval_judge_batch_poll",
        "Seconds between polls of a Message Batch (--tempoeval-judge-batch).",
        default=f"{BATCH_POLL_SECONDS:g}",
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
        default=Correction.NONE.value,
    )
    parser.addini(
        "tempoeval_by_period",
        "Every baseline check also tests each period's queries and fails naming the period that "
        "regressed: year, decade, century, or boundary years such as '1990, 2000, 2010' "
        "(default: none; a check's own by_period= wins).",
        default="",
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


@dataclass(frozen=True, kw_only=True)
class Settings:
    """Every option and ini key of the session, read and checked once."""

    record_mode: RecordMode = RecordMode.NONE  # --tempoeval-record-mode
    judge_dry_run: bool = False  # --tempoeval-judge-dry-run
    judge_max_requests: int | None = None  # --tempoeval-judge-max-requests, else the ini key
    judge_batch: bool = False  # --tempoeval-judge-batch
    update_baseline: bool = False  # --tempoeval-update-baseline
    json_path: str | None = None  # --tempoeval-report
    markdown_path: str | None = None  # --tempoeval-markdown
    html_path: str | None = None  # --tempoeval-html
    history_path: str | None = None  # --tempoeval-history: one JSON line appended per session
    propose_gold_path: str | None = None  # --tempoeval-propose-gold: the patch of filled grades
    propose_gold_overwrite: bool = False  # --tempoeval-propose-gold-overwrite
    gold: str = ""  # ini tempoeval_gold: the gold set of a test with no marker
    cassette_dir: Path = Path("fixtures/cassettes")  # from the rootdir
    cassette_serializer: Serializer = Serializer.YAML
    baseline_dir: Path = Path("fixtures/baselines")  # from the rootdir
    baseline_dir_shown: str = "fixtures/baselines"  # as the ini says it (reports name files so)
    baseline_rankings: bool = False  # ini tempoeval_baseline_rankings: store each top k
    judge_model: str = ""  # "": the judge's default model
    max_drop: float = DEFAULT_MAX_DROP
    judge_prompt_style: str = PROMPT_STYLES[0]
    judge_batch_poll: float = BATCH_POLL_SECONDS
    judge_prices: dict[str, tuple[float, float]] = field(default_factory=dict)
    gate_correction: Correction = Correction.NONE
    by_period: Slicing | None = None  # ini tempoeval_by_period: None, every check overall only
    fail_on_excluded: bool = False
    fail_on_unknown_ids: bool = False
    trim_failures: bool = True  # pytest's short tracebacks: the plugin's frames are taken out

    @classmethod
    def from_config(cls, config: pytest.Config) -> Settings:
        """Read and check every option and ini key; a bad one raises :class:`pytest.UsageError`
        naming it and what to write."""
        ini, option = config.getini, config.getoption
        root = config.rootpath
        return cls(
            record_mode=RecordMode(
                _checked(
                    "--tempoeval-record-mode",
                    option("tempoeval_record_mode"),
                    lambda mode: check_choice("--tempoeval-record-mode", mode, RecordMode),
                )
            ),
            judge_dry_run=option("tempoeval_judge_dry_run"),
            judge_max_requests=_judge_max_requests(
                option("tempoeval_judge_max_requests"), ini("tempoeval_judge_max_requests")
            ),
            judge_batch=option("tempoeval_judge_batch"),
            update_baseline=option("tempoeval_update_baseline"),
            json_path=option("tempoeval_report"),
            markdown_path=option("tempoeval_markdown"),
            html_path=option("tempoeval_html"),
            history_path=option("tempoeval_history"),
            propose_gold_path=_propose_gold_path(
                option("tempoeval_propose_gold"), option("tempoeval_propose_gold_overwrite")
            ),
            propose_gold_overwrite=option("tempoeval_propose_gold_overwrite"),
            gold=ini("tempoeval_gold"),
            cassette_dir=root / ini("tempoeval_cassette_dir"),
            cassette_serializer=Serializer(
                _ini_choice(ini, "tempoeval_cassette_serializer", Serializer)
            ),
            baseline_dir=root / ini("tempoeval_baseline_dir"),
            baseline_dir_shown=Path(ini("tempoeval_baseline_dir")).as_posix(),
            baseline_rankings=_ini_bool(ini, "tempoeval_baseline_rankings"),
            judge_model=ini("tempoeval_judge_model"),
            max_drop=_checked(
                "ini tempoeval_max_drop", ini("tempoeval_max_drop"), max_drop_from, " "
            ),
            judge_prompt_style=_ini_choice(ini, "tempoeval_judge_prompt_style", PROMPT_STYLES),
            judge_batch_poll=_checked(
                "ini tempoeval_judge_batch_poll", ini("tempoeval_judge_batch_poll"), _seconds, " "
            ),
            judge_prices=_judge_prices(ini("tempoeval_judge_prices")),
            gate_correction=Correction(_ini_choice(ini, "tempoeval_gate_correction", Correction)),
            by_period=_by_period(ini("tempoeval_by_period")),
            fail_on_excluded=_ini_bool(ini, "tempoeval_fail_on_excluded"),
            fail_on_unknown_ids=_ini_bool(ini, "tempoeval_fail_on_unknown_ids"),
            trim_failures=_short_tracebacks(config),
        )


def _checked(where: str, raw: str, parse: Callable[[str], _T], joint: str = ": ") -> _T:
    """``parse(raw)``, or a usage error: ``where`` then the parser's words (``ini
    tempoeval_max_drop must be ...``, or ``--tempoeval-record-mode must be ...`` as is)."""
    try:
        return parse(raw)
    except ValueError as error:
        problem = str(error)
    message = problem if problem.startswith(where) else f"{where}{joint}{problem}"
    raise pytest.UsageError(message)  # outside the handler: no chained traceback


def _short_tracebacks(config: pytest.Config) -> bool:
    """Whether failures show pytest's short kind (``--tb=auto``, ``short``...), from which the
    plugin's frames are taken out (``failures.py``): not under ``--tb=long``, ``--full-trace`` or
    ``--pdb``, which ask for everything."""
    option = config.option
    return not (
        getattr(option, "fulltrace", False)
        or getattr(option, "tbstyle", "auto") == "long"
        or getattr(option, "usepdb", False)
    )


def _ini_choice(ini: Callable[[str], str], key: str, choices: Iterable[str]) -> str:
    where = f"ini {key}"
    return _checked(where, ini(key), lambda value: check_choice(where, value, choices))


def _ini_bool(ini: Callable[[str], bool], key: str) -> bool:
    try:
        return bool(ini(key))
    except (ValueError, pytest.UsageError) as error:  # not a truth value (pytest 9: UsageError)
        problem = str(error)
    raise pytest.UsageError(
        f"ini {key} must be true or false (yes/no, on/off, 1/0 also work): {problem}"
    )


def _by_period(text: str) -> Slicing | None:
    """ini ``tempoeval_by_period``: how every baseline check slices its queries, or None."""
    if not text.strip() or text.strip().lower() == "none":
        return None
    from pytest_tempoeval.metrics.periods import as_slicing  # light: no numpy

    def parse(value: str) -> Slicing:
        try:
            return as_slicing(value)
        except ValueError as error:  # "by_period: ...": the key is named instead
            raise ValueError(str(error).removeprefix("by_period: ")) from None

    return _checked("ini tempoeval_by_period", text, parse)


def _seconds(text: str) -> float:
    """Seconds between polls of a batch, as :class:`Recording` accepts them."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not valid_batch_poll(seconds):
        raise ValueError(f"{BATCH_POLL_RULE}, got {text!r}")
    return seconds


def _propose_gold_path(path: str | None, overwrite: bool) -> str | None:
    """--tempoeval-propose-gold's PATH: a patch a person may be reviewing is never replaced
    unless asked, and that is said before any judge is paid."""
    if path is not None and not overwrite and os.path.lexists(path):
        raise pytest.UsageError(
            f"--tempoeval-propose-gold: {path} exists (a patch under review?); move it, or pass "
            "--tempoeval-propose-gold-overwrite to replace it"
        )
    if path is None and overwrite:
        raise pytest.UsageError(
            "--tempoeval-propose-gold-overwrite goes with --tempoeval-propose-gold=PATH"
        )
    return path


def _judge_max_requests(given: str | None, ini_value: str) -> int | None:
    """The session's cap on new judge requests (the option wins over the ini key), or None."""
    where, raw = (
        ("--tempoeval-judge-max-requests", given)
        if given is not None
        else ("ini tempoeval_judge_max_requests", ini_value or None)
    )
    if raw is None:
        return None
    return _checked(where, raw, _request_count)


def _request_count(text: str) -> int:
    try:
        count = int(text)
    except ValueError:
        count = -1
    if count < 0:
        raise ValueError(f"the judge request budget must be an integer >= 0, got {text!r}")
    return count


def _judge_prices(lines: list[str]) -> dict[str, tuple[float, float]]:
    if not lines:
        return {}
    from pytest_tempoeval.judge.prices import parse_prices

    try:
        return parse_prices(lines)
    except ValueError as error:  # its message names the key and the line
        problem = str(error)
    raise pytest.UsageError(problem)


# -- the marker ------------------------------------------------------------------------------------

MARKER = (
    "tempoeval(PATH) or tempoeval(gold=PATH): the golden query set the tempoeval_gold fixture "
    "loads (path from rootdir)."
)


def marker_gold(marker: pytest.Mark, test: str) -> str | os.PathLike[str]:
    """The gold set a ``tempoeval`` marker names: ``tempoeval("gold.yaml")`` or
    ``tempoeval(gold="gold.yaml")``; else a usage error naming the test."""
    unknown = set(marker.kwargs) - {"gold"}
    given = [*marker.args, *([marker.kwargs["gold"]] if "gold" in marker.kwargs else [])]
    if unknown or len(given) != 1 or not isinstance(given[0], (str, os.PathLike)):
        raise pytest.UsageError(
            f"{test}: @pytest.mark.tempoeval takes one gold set path, as tempoeval('gold.yaml') "
            f"or tempoeval(gold='gold.yaml') (a YAML/JSON file, a qrels file or a BEIR folder); "
            f"got args={marker.args!r}, kwargs={marker.kwargs!r}"
        )
    return given[0]
