"""Writing the report files a session asked for, once, at its end (on xdist's controller)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_tempoeval.files import write_user_file
from pytest_tempoeval.session import CheckRow, TempoEvalSession


def write_session_reports(state: TempoEvalSession, roots: Sequence[Path]) -> None:
    """The reports the session's settings ask for (--tempoeval-report, --tempoeval-html,
    --tempoeval-markdown); what could not be written goes to ``state.report_problems``."""
    settings = state.settings
    paths = {
        "json_path": settings.json_path,
        "html_path": settings.html_path,
        "markdown_path": settings.markdown_path,
    }
    rows = state.sorted_rows()
    trends: list[list[dict[str, Any]]] | None = None
    problems: list[str] = []
    if settings.history_path and rows:
        trends, notes, problem = record_history(
            Path(settings.history_path), rows, state.complete, roots
        )
        state.history_notes = notes
        problems += [problem] if problem else []
    if any(paths.values()):
        problems += write_reports(
            rows,
            state.judge_stats,
            state.judge_prices,
            state.unused,
            crashed=state.crashed,
            roots=roots,
            trends=trends,
            history_notes=state.history_notes,
            **paths,
        )
    state.report_problems = problems


def record_history(
    path: Path, rows: Sequence[CheckRow], complete: bool, roots: Sequence[Path]
) -> tuple[list[list[dict[str, Any]]], list[str], str | None]:
    """Read the history at ``path``, append this session's line, and return each row's trend,
    what reading skipped, and why the line could not be appended (None: it was)."""
    from pytest_tempoeval.reports import history

    record = history.session_record(
        rows, history.git_commit(roots[0] if roots else Path()), complete
    )
    past = history.read(path)
    problem = None
    try:
        if folder_problem := _missing_folder(path, roots):
            raise FileNotFoundError(folder_problem)
        path.parent.mkdir(parents=True, exist_ok=True)
        history.append(path, record)
    except (OSError, ValueError) as error:
        problem = f"tempoeval: the history {path} was not appended to: {error}"
    return history.trends(past, record), past.notes, problem


def write_reports(
    rows: Sequence[CheckRow],
    judge: Mapping[str, Mapping[str, int]],
    prices: Mapping[str, tuple[float, float]],
    unused: Sequence[str],
    *,
    crashed: Sequence[str] = (),
    roots: Sequence[Path] = (),
    json_path: str | None,
    html_path: str | None,
    markdown_path: str | None,
    trends: Sequence[Sequence[Mapping[str, Any]]] | None = None,
    history_notes: Sequence[str] = (),
) -> list[str]:
    """The JSON, HTML and markdown reports that have a path; the markdown one is also appended to
    ``$GITHUB_STEP_SUMMARY`` when that is set.

    ``crashed``: the tests whose xdist worker crashed under them; their checks may be missing.
    ``trends``: each row's points in the history (``--tempoeval-history``), in the rows' order;
    ``history_notes``: what reading the history skipped.
    ``roots``: where a report's missing folder is created (the rootdir, the invocation folder);
    a missing folder elsewhere is a problem naming it (a typo must not leave folders around).

    Each report is written or fails on its own: the returned lines say which could not be written
    and why, one line each, and the others are written all the same. Text a file cannot encode
    (a lone surrogate in an id) is written as a backslash escape, never an error.
    """
    from pytest_tempoeval.reports.text import judge_line

    judging = judge_line(judge, prices)
    problems: list[str] = []

    def attempt(kind: str, path: str, write: Callable[[], None]) -> None:
        try:
            if problem := _missing_folder(Path(path), roots):
                raise FileNotFoundError(problem)
            write()
        except (OSError, ValueError) as error:  # UnicodeError is a ValueError
            problems.append(f"tempoeval: the {kind} report {path} was not written: {error}")

    if json_path:
        from pytest_tempoeval.reports import json_report

        attempt(
            "JSON",
            json_path,
            lambda: json_report.write(
                Path(json_path), rows, judge, prices, unused, crashed, trends, history_notes
            ),
        )
    if html_path:
        from pytest_tempoeval.reports.html import render

        attempt(
            "HTML",
            html_path,
            lambda: write_user_file(
                Path(html_path),
                render(rows, judging, unused, crashed, trends, history_notes),
                _ESCAPED,
            ),
        )
    if markdown_path:
        from pytest_tempoeval.reports.text import markdown

        text = markdown(rows, judging, unused, crashed, trends)
        attempt(
            "markdown", markdown_path, lambda: write_user_file(Path(markdown_path), text, _ESCAPED)
        )
        if summary := os.environ.get("GITHUB_STEP_SUMMARY"):
            attempt("step summary", summary, lambda: _append(Path(summary), text))
    return problems


_ESCAPED = "backslashreplace"  # how reports write what UTF-8 cannot encode


def _missing_folder(path: Path, roots: Sequence[Path]) -> str | None:
    """Why the report's folder will not be created, or None: it exists, or is inside a root."""
    folder = Path(os.path.realpath(path)).parent  # a symlink's target is what gets written
    if folder.is_dir() or any(folder.is_relative_to(os.path.realpath(root)) for root in roots):
        return None
    inside = " or ".join(dict.fromkeys(str(root) for root in roots)) or "the rootdir"
    return (
        f"its folder {folder} does not exist; reports create missing folders only inside "
        f"{inside}: create it first"
    )


def _append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8", errors=_ESCAPED) as out:
        out.write(text)
