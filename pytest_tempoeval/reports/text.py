"""The session's checks as text: the terminal summary table and its markdown twin, plus the lines
every report shares (the count of failed checks, the judge's totals, unused baselines)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pytest_tempoeval.metrics.explain import format_score
from pytest_tempoeval.session import CheckRow

COLUMNS = (
    "test",
    "metric",
    "mode",
    "queries",
    "score",
    "threshold",
    "baseline",
    "delta",
    "p",
    "status",
    "note",
)


def optional_number(value: float | None) -> str:
    """A baseline or p-value cell: 4 decimals, or "-" when there is none."""
    return "-" if value is None else f"{value:.4f}"


def delta_cell(value: float | None) -> str:
    return "-" if value is None else f"{value:+.4f}"


def threshold_cell(row: CheckRow) -> str:
    return f"{row.op} {row.threshold:g}"


def table_rows(rows: Sequence[CheckRow]) -> list[tuple[str, ...]]:
    out = []
    for row in rows:
        queries = f"{row.counted}" + (f" (+{row.excluded} excl.)" if row.excluded else "")
        out.append(
            (
                row.test,
                row.metric,
                row.mode,
                queries,
                format_score(row.score),
                threshold_cell(row),
                optional_number(row.baseline),
                delta_cell(row.delta),
                optional_number(row.p_value),
                row.status,
                row.note,
            )
        )
    return out


def checks_line(rows: Sequence[CheckRow]) -> str:
    """``N metric checks, M failed``: the verdict line of every report."""
    failed = sum(not row.passed for row in rows)
    return f"{len(rows)} metric checks, {failed} failed"


def judge_line(stats: Mapping[str, int]) -> str | None:
    """The judge's totals over the session, or None when nothing was judged."""
    if not stats["judgments"] and not stats["cache_hits"]:
        return None
    return (
        f"LLM judge: {stats['judgments']} judgments, {stats['cache_hits']} answered from memory, "
        f"{stats['input_tokens']} input / {stats['output_tokens']} output tokens"
    )


def terminal_lines(rows: Sequence[CheckRow]) -> list[str]:
    """A fixed-width table, one line per check, then the count line."""
    body = table_rows(rows)
    widths = [max(len(cell) for cell in column) for column in zip(COLUMNS, *body)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip()
        for line in [COLUMNS, *body]
    ]
    lines.append(checks_line(rows))
    return lines


def unused_lines(unused: Sequence[str]) -> list[str]:
    """The unused-baselines notice: listed, never deleted."""
    if not unused:
        return []
    plural = "s" if len(unused) != 1 else ""
    heading = (
        f"{len(unused)} unused baseline{plural} (no selected test checked them; delete by hand if "
        "the tests are gone):"
    )
    return [heading, *(f"  {name}" for name in unused)]


def markdown(
    rows: Sequence[CheckRow], judging: str | None = None, unused: Sequence[str] = ()
) -> str:
    lines = [
        "## tempoeval",
        "",
        f"{checks_line(rows)}." + (f" {judging}." if judging else ""),
        "",
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "---|" * len(COLUMNS),
    ]
    for cells in table_rows(rows):
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    if unused:
        lines.extend(["", *unused_lines(unused)])
    return "\n".join(lines) + "\n"
