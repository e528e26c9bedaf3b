"""Human-readable reports of the session's checks: the terminal summary table and markdown."""

from __future__ import annotations

from collections.abc import Sequence

from .session import CheckRow

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
                "nan" if row.score is None else f"{row.score:.4f}",
                f"{row.op} {row.threshold:g}",
                "-" if row.baseline is None else f"{row.baseline:.4f}",
                "-" if row.delta is None else f"{row.delta:+.4f}",
                "-" if row.p_value is None else f"{row.p_value:.4f}",
                row.status,
                row.note,
            )
        )
    return out


def terminal_lines(rows: Sequence[CheckRow]) -> list[str]:
    """A fixed-width table, one line per check, then a count line."""
    body = table_rows(rows)
    widths = [max(len(cell) for cell in column) for column in zip(COLUMNS, *body)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip()
        for line in [COLUMNS, *body]
    ]
    failed = sum(not row.passed for row in rows)
    lines.append(f"{len(rows)} metric checks, {failed} failed")
    return lines


def unused_lines(unused: Sequence[str]) -> list[str]:
    """The unused-baselines notice: listed, never deleted."""
    if not unused:
        return []
    plural = "s" if len(unused) != 1 else ""
    heading = f"{len(unused)} unused baseline{plural} (no selected test checked them; delete by hand if the tests are gone):"
    return [heading, *(f"  {name}" for name in unused)]


def markdown(
    rows: Sequence[CheckRow], judging: str | None = None, unused: Sequence[str] = ()
) -> str:
    failed = sum(not row.passed for row in rows)
    lines = [
        "## tempoeval",
        "",
        f"{len(rows)} metric checks, {failed} failed." + (f" {judging}." if judging else ""),
        "",
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "---|" * len(COLUMNS),
    ]
    for cells in table_rows(rows):
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    if unused:
        lines.extend(["", *unused_lines(unused)])
    return "\n".join(lines) + "\n"
