"""Writing the report files a session asked for, once, at its end (on xdist's controller)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from pytest_tempoeval.files import write_atomically
from pytest_tempoeval.session import CheckRow


def write_reports(
    rows: Sequence[CheckRow],
    judge: Mapping[str, Mapping[str, int]],
    prices: Mapping[str, tuple[float, float]],
    unused: Sequence[str],
    *,
    json_path: str | None,
    html_path: str | None,
    markdown_path: str | None,
) -> None:
    """The JSON, HTML and markdown reports that have a path; the markdown one is also appended to
    ``$GITHUB_STEP_SUMMARY`` when that is set."""
    if json_path:
        from pytest_tempoeval.reports import json_report

        json_report.write(Path(json_path), rows, judge, prices, unused)
    if not (html_path or markdown_path):
        return
    from pytest_tempoeval.reports.text import judge_line

    judging = judge_line(judge, prices)
    if html_path:
        from pytest_tempoeval.reports.html import render

        write_atomically(Path(html_path), render(rows, judging, unused))
    if markdown_path:
        from pytest_tempoeval.reports.text import markdown

        text = markdown(rows, judging, unused)
        write_atomically(Path(markdown_path), text)
        if summary := os.environ.get("GITHUB_STEP_SUMMARY"):
            with open(summary, "a", encoding="utf-8") as out:
                out.write(text)
