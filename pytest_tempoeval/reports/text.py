"""The session's checks as text: the terminal summary table and its markdown twin, plus the lines
every report shares (the count of failed checks, the judge's totals, unused baselines)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from pytest_tempoeval.judge.prices import PRICES_AS_OF, dollars, price_of
from pytest_tempoeval.metrics.explain import format_score
from pytest_tempoeval.session import JUDGE_COUNTERS, CheckRow, TempoEvalSession

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
    out: list[tuple[str, ...]] = []
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


def checks_line(rows: Sequence[CheckRow], crashed: Sequence[str] = ()) -> str:
    """``N metric checks, M failed``: the verdict line of every report, naming the tests whose
    xdist worker crashed under them (their checks never reached the session)."""
    failed = sum(not row.passed for row in rows)
    line = f"{len(rows)} metric checks, {failed} failed"
    if crashed:
        plural = "s" if len(crashed) != 1 else ""
        line += (
            f"; the checks of {len(crashed)} test{plural} whose xdist worker crashed may be "
            f"missing (the session fails): {', '.join(crashed)}"
        )
    return line


def judge_totals(
    stats: Mapping[str, Mapping[str, int]], prices: Mapping[str, tuple[float, float]]
) -> dict[str, Any]:
    """The session's judging summed over models, and what the live part cost (None: a model has no
    known price)."""
    totals: dict[str, Any] = {
        counter: sum(counts[counter] for counts in stats.values()) for counter in JUDGE_COUNTERS
    }
    cost, estimate, assumed, unknown = 0.0, 0.0, [], []
    for model, counters in sorted(stats.items()):
        if not (counters["asked"] or counters["to_ask"]):
            continue
        price = price_of(model, dict(prices))
        if price is None:
            unknown.append(model)
            continue
        live_in = counters["input_tokens"] - counters["batch_input_tokens"]
        live_out = counters["output_tokens"] - counters["batch_output_tokens"]
        cost += price.cost(live_in, live_out) + price.cost(
            counters["batch_input_tokens"], counters["batch_output_tokens"], batch=True
        )
        estimate += price.cost(
            counters["estimated_input_tokens"], counters["estimated_output_tokens"]
        )
        if price.assumed:
            assumed.append(model)
    totals["cost_usd"] = None if unknown else cost
    totals["estimated_cost_usd"] = None if unknown else estimate
    totals["priced_models"] = sorted(
        model for model, c in stats.items() if c["asked"] or c["to_ask"]
    )
    totals["assumed_prices"], totals["unknown_prices"] = assumed, unknown
    totals["prices_as_of"] = PRICES_AS_OF
    return totals


def judge_line(
    stats: Mapping[str, Mapping[str, int]], prices: Mapping[str, tuple[float, float]]
) -> str | None:
    """``LLM judge: 48 replayed from cassettes, 0 asked live (0 tokens)``, or with live requests,
    their tokens and about what they cost; None when nothing was judged."""
    totals = judge_totals(stats, prices)
    if not any(totals[counter] for counter in JUDGE_COUNTERS):
        return None
    line = f"LLM judge: {totals['replayed']} replayed from cassettes, {totals['asked']} asked live"
    if totals["batched"]:
        line += f" ({totals['batched']} through batches at half price)"
    if not totals["asked"]:
        line += " (0 tokens)"
    else:
        line += f", {totals['input_tokens']} input / {totals['output_tokens']} output tokens"
        line += _cost(totals, "cost_usd", "about")
    if totals["batch_retried"]:
        line += f"; {totals['batch_retried']} batch items expired or errored, asked live"
    if totals["cache_hits"]:
        line += f"; {totals['cache_hits']} repeated prompts answered from memory"
    if totals["to_ask"]:
        line += (
            f"\nLLM judge dry run (nothing asked): {totals['to_ask']} judgments to ask, "
            f"{totals['held']} held in cassettes; estimated {totals['estimated_input_tokens']} "
            f"input / {totals['estimated_output_tokens']} output tokens"
            f"{_cost(totals, 'estimated_cost_usd', 'about')} (half that through "
            "--tempoeval-judge-batch)"
        )
    return line


def _cost(totals: Mapping[str, Any], key: str, word: str) -> str:
    """``, about $0.01 at claude-haiku-5-5 prices``, or why the cost is unknown."""
    models = ", ".join(totals["priced_models"])
    if totals["unknown_prices"]:
        unknown = ", ".join(totals["unknown_prices"])
        return f"; cost unknown: no price for {unknown} (set tempoeval_judge_prices)"
    text = f", {word} {dollars(totals[key])} at {models} prices"
    if totals["assumed_prices"]:
        text += f" (assumed for {', '.join(totals['assumed_prices'])}; tempoeval_judge_prices)"
    return text


def terminal_lines(rows: Sequence[CheckRow], crashed: Sequence[str] = ()) -> list[str]:
    """A fixed-width table, one line per check (none without checks), then the count line."""
    body = table_rows(rows)
    widths = [max(len(cell) for cell in column) for column in zip(COLUMNS, *body)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip()
        for line in ([COLUMNS, *body] if rows else [])
    ]
    lines.append(checks_line(rows, crashed))
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


def gate_lines(failed: Sequence[CheckRow]) -> list[str]:
    """The baseline checks the session's Holm correction failed, each with its full message."""
    plural = "s" if len(failed) != 1 else ""
    heading = (
        f"{len(failed)} baseline check{plural} regressed after the Holm correction "
        "(ini tempoeval_gate_correction = holm); the session fails:"
    )
    lines = [heading]
    for row in failed:
        lines.extend(row.pending_message.splitlines())
    return lines


def markdown(
    rows: Sequence[CheckRow],
    judging: str | None = None,
    unused: Sequence[str] = (),
    crashed: Sequence[str] = (),
    trends: Sequence[Sequence[Mapping[str, Any]]] | None = None,
) -> str:
    """The summary table (with a ``trend`` column from ``--tempoeval-history``), then what each
    failed check's report shows in words: the drop, the queries that dropped with their years,
    each period, the temporal diagnostics."""
    columns = (*COLUMNS, "trend") if trends is not None else COLUMNS
    lines = [
        "## tempoeval",
        "",
        f"{checks_line(rows, crashed)}." + (f" {judging}." if judging else ""),
        "",
        "| " + " | ".join(columns) + " |",
        "|" + "---|" * len(columns),
    ]
    for i, cells in enumerate(table_rows(rows)):
        if trends is not None:
            cells = (*cells, spark_text(trends[i]))
        lines.append("| " + " | ".join(_markdown_cell(cell) for cell in cells) + " |")
    failed = [i for i, row in enumerate(rows) if not row.passed]
    if failed:
        from pytest_tempoeval.reports.check_data import check_data

        lines.extend(["", "### Failed checks"])
        for i in failed:
            check = check_data(rows[i], trend=trends[i] if trends else ())
            lines.extend(
                ["", *(_markdown_cell(line, table=False) for line in failure_lines(check))]
            )
    filled = filled_lines(rows)
    if filled:
        lines.extend(["", "### Grades filled by the judge", "", *filled])
    if unused:
        lines.extend(["", *unused_lines(unused)])
    return "\n".join(lines) + "\n"


def _markdown_cell(cell: str, table: bool = True) -> str:
    # GitHub renders HTML in markdown: with "&" and "<" escaped, a test id is shown, never
    # interpreted (">" stays, so ">= 0.8" reads as it is)
    escaped = cell.replace("&", "&amp;").replace("<", "&lt;")
    return escaped.replace("|", "\\|") if table else escaped


_SPARKS = "▁▂▃▄▅▆▇█"


def spark_text(points: Sequence[Mapping[str, Any]]) -> str:
    """A check's trend in the history as block characters (its own range), then the first and
    last score: ``▇▇▁ 0.7666 → 0.4433``; "-" with fewer than two sessions."""
    scores = [point["score"] for point in points]
    known = [score for score in scores if score is not None]
    if len(points) < 2 or not known:
        return "-"
    low, span = min(known), max(known) - min(known)
    bars = "".join(
        " "
        if score is None
        else _SPARKS[round((score - low) / span * (len(_SPARKS) - 1)) if span else 3]
        for score in scores
    )
    return f"{bars} {format_score(scores[0])} → {format_score(scores[-1])}"


def failure_lines(check: Mapping[str, Any]) -> list[str]:
    """A failed check in words (markdown): what it compared, its trend, years, periods and the
    queries that dropped (each with its years, old and new score)."""
    lines = [f"**{check['test']}** `{check['metric']}` [{check['mode']}]: {_compared(check)}"]
    if check["trend"] and len(check["trend"]) > 1:
        lines.append(f"- history: {spark_text(check['trend'])} over {len(check['trend'])} sessions")
    if check["temporal"] is not None:
        from pytest_tempoeval.metrics.explain import temporal_line

        lines.append(f"- {temporal_line(check['temporal'])}")
    for period in check["periods"] or []:
        if period["baseline"] is None or period["current"] is None:
            continue
        lines.append(
            f"- {period['period']}: {period['baseline']:.4f} → {period['current']:.4f} "
            f"({period['queries']} queries; {period['status']})"
        )
    if check["changes"]:
        from pytest_tempoeval.metrics.explain import format_years

        dropped = "; ".join(
            f"`{change['query']}`"
            + (f" ({format_years(change['temporal']['years'])})" if change.get("temporal") else "")
            + f" {change['baseline']:.4f} → {change['score']:.4f}"
            for change in check["changes"]
        )
        more = check["dropped"] - len(check["changes"])
        lines.append(
            f"- {check['dropped']} queries dropped, the largest: {dropped}"
            + (f"; and {more} more" if more > 0 else "")
        )
    return lines


def _compared(check: Mapping[str, Any]) -> str:
    score = format_score(check["score"])
    if check["baseline"] is not None:
        p = "" if check["p_value"] is None else f", p = {check['p_value']:.4g}"
        return f"{check['baseline']:.4f} → {score} ({check['delta']:+.4f}{p}); {check['note']}"
    return f"{score}, needs {check['op']} {check['threshold']:g}; {check['note']}".rstrip("; ")


def filled_lines(rows: Sequence[CheckRow]) -> list[str]:
    """Per check whose holes the judge filled (fill=llm), per query, the grades it filled and the
    holes it left unjudged: ``- test, nDCG(fill=llm)@10, q1: 2 filled (d9 2, d4 0); 1 unjudged
    without text (d7)``."""
    lines = []
    for row in rows:
        if row.filled is None:
            continue
        for query, fill in row.filled["per_query"].items():
            grades = ", ".join(f"{doc} {grade}" for doc, grade in fill["filled"].items())
            parts = [f"{len(fill['filled'])} filled ({grades})" if grades else "0 filled"]
            if fill["without_text"]:
                parts.append(
                    f"{len(fill['without_text'])} unjudged without text "
                    f"({', '.join(fill['without_text'])})"
                )
            if fill["no_query_text"]:
                parts.append(f"{len(fill['no_query_text'])} unjudged: the query has no text")
            text = f"{row.test}, {row.metric}, {query}: {'; '.join(parts)}"
            lines.append("- " + text.replace("&", "&amp;").replace("<", "&lt;"))
    return lines


def terminal_summary(state: TempoEvalSession, reporter: pytest.TerminalReporter) -> None:
    """The ``tempoeval`` section at the end of the run (the controller's, under xdist): the checks,
    the judge's totals, unused baselines, the checks the Holm correction failed, and the reports
    that could not be written. Nothing when the session has none of these."""
    # A crash is named even when no check reached the controller, in a project that has baselines.
    crashed = state.crashed if state.rows or state.selected_baselines else []
    if not (
        state.rows
        or state.judged
        or state.unused
        or state.report_problems
        or crashed
        or state.history_notes
        or state.proposal_lines
    ):
        return
    judging = judge_line(state.judge_stats, state.judge_prices)
    rows = state.sorted_rows()
    reporter.section("tempoeval")
    for line in terminal_lines(rows, crashed) if rows or crashed else []:
        reporter.write_line(line)
    if judging:
        reporter.write_line(judging)
    for line in unused_lines(state.unused):
        reporter.write_line(line, yellow=True)
    if state.gate_failures:
        for line in gate_lines(state.gate_failures):
            reporter.write_line(line, red=True)
    for line in state.history_notes:
        reporter.write_line(line, yellow=True)
    for line in state.report_problems:
        reporter.write_line(line, red=True)
    for line in state.proposal_lines:  # --tempoeval-propose-gold
        reporter.write_line(line)
