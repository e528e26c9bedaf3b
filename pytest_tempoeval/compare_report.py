"""The report of ``tempoeval compare`` (a :class:`.compare_cli.Report`) in text, markdown, JSON or
LaTeX.

- **text** with two runs is what ``tempoeval compare BASE NEW GOLD`` always printed (scripts parse
  it); with more, a table of the means (systems x measures, the base first), each cell marked ``v``
  when the system regressed against the base and ``^`` when it is significantly better, then every
  cell's delta, p-value and Holm-adjusted p-value, and the worst queries of each regressed cell.
- **markdown**: the same tables, the best mean of each measure in bold.
- **json**: the two-run form's keys (``correction``, ``alpha``, ``measures``: one row per system and
  measure, each row's keys kept) and more (``systems``, ``tests``, ``regressed``, ...): one shape
  whatever the number of runs.
- **latex**: a booktabs tabular (``\\usepackage{booktabs}``), the best of each column in bold, the
  marks as arrows, every cell's p-values as comments below it.

The marks are ASCII (``v``, ``^``; arrows in LaTeX): a redirected stdout may not be UTF-8.
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from pytest_tempoeval.compare_cli import Cell, Report
from pytest_tempoeval.gate.randomization import Correction
from pytest_tempoeval.gate.verdict import Verdict

REGRESSED_SHOWN = 10  # queries that got worse, per cell, in JSON and in the two-run text
WORST_PER_CELL = 5  # with more systems the text lists this many per regressed cell
REGRESSED_MARK, GAIN_MARK = "v", "^"


# -- JSON ------------------------------------------------------------------------------------------


def json_report(report: Report) -> dict[str, Any]:
    """The keys ``correction``, ``alpha`` and ``measures`` (one row per system and measure) of the
    two-run form, then what more systems need."""
    rows = [
        {
            "measure": cell.measure,
            "base": cell.comparison.baseline,
            "new": cell.comparison.current,
            "delta": cell.comparison.delta,
            "queries": cell.comparison.queries,
            "p": cell.comparison.p_value,
            "p_adjusted": cell.p_adjusted,
            "verdict": Verdict.REGRESSED if cell.regressed else Verdict.OK,
            "note": cell.note,
            "worse": [
                {"query": q, "base": old, "new": now}
                for q, old, now in cell.comparison.regressed[:REGRESSED_SHOWN]
            ],
            "worse_count": len(cell.comparison.regressed),
            "system": cell.system,
            "run": cell.run,
            "p_gain": cell.p_gain,
            "p_gain_adjusted": cell.p_gain_adjusted,
            "significant_gain": cell.significant_gain,
        }
        for cell in report.cells
    ]
    best = {measure: report.best(measure) for measure in report.measures}
    return {
        "correction": report.correction,
        "alpha": report.alpha,
        "measures": rows,
        "max_drop": report.max_drop,
        "gold": report.gold,
        "measure_names": report.measures,
        "systems": [
            {
                "name": name,
                "run": path,
                "base": system == 0,
                "means": {m: report.mean(system, m) for m in report.measures},
                "best": [m for m in report.measures if system in best[m]],
            }
            for system, (name, path) in enumerate(zip(report.names, report.paths, strict=True))
        ],
        "tests": report.tests,
        "regressed": [{"system": c.system, "measure": c.measure} for c in report.regressed],
    }


def shows_gains(form: str, runs: int) -> bool:
    """Whether ``form`` prints the tests for a gain: all but the two-run text."""
    return form != "text" or runs > 2


def write(report: Report, form: str, out: TextIO) -> None:
    if form == "json":
        json.dump(json_report(report), out, indent=2)
        out.write("\n")
    elif form == "markdown":
        _markdown(report, out)
    elif form == "latex":
        _latex(report, out)
    elif len(report.paths) == 2:
        _two_run_text(report, out)
    else:
        _text(report, out)


# -- text ------------------------------------------------------------------------------------------


def _p(value: float | None) -> str:
    return f"{value:.4f}" if value is not None else "-"


def _two_run_text(report: Report, out: TextIO) -> None:
    """What ``tempoeval compare BASE NEW GOLD`` always printed: scripts parse it."""
    cells = report.cells
    width = max(len("measure"), *(len(cell.measure) for cell in cells))
    holm = report.correction == Correction.HOLM
    adjusted = "p (Holm)" if holm else "p"
    out.write(f"base {report.paths[0]}, new {report.paths[1]}, gold {report.gold}\n")
    out.write(
        f"{'measure':<{width}}  {'base':>6}  {'new':>6}  {'delta':>7}  {'p':>6}  "
        f"{adjusted:>8}  verdict\n"
    )
    out.writelines(
        f"{cell.measure:<{width}}  {cell.comparison.baseline:.4f}  {cell.mean:.4f}  "
        f"{cell.comparison.delta:+.4f}  {_p(cell.comparison.p_value):>6}  "
        f"{_p(cell.p_adjusted):>8}  {_verdict(cell)}\n"
        for cell in cells
    )
    for cell in cells:
        if cell.note:
            out.write(f"{cell.measure}: {cell.note}\n")
        _worse(cell, cell.measure, REGRESSED_SHOWN, out)
    if report.regressed:
        out.write(f"regressed: {', '.join(c.measure for c in report.regressed)}{_rule(report)}\n")


def _verdict(cell: Cell) -> str:
    return str(Verdict.REGRESSED if cell.regressed else Verdict.OK)


def _rule(report: Report) -> str:
    holm = ", Holm-corrected" if report.correction == Correction.HOLM else ""
    return f" (drop > {report.max_drop:g} and p < {report.alpha:g}{holm})"


def _worse(cell: Cell, label: str, shown: int, out: TextIO) -> None:
    worse = cell.comparison.regressed
    if not worse:
        return
    more = len(worse) - min(shown, len(worse))
    tail = f"; {more} more" if more else ""
    out.write(f"{label}: queries that got worse (base -> new), worst first{tail}:\n")
    out.writelines(
        f"  {query}: {old:.4f} -> {now:.4f} ({now - old:+.4f})\n"
        for query, old, now in worse[:shown]
    )


def _mark(report: Report, system: int, measure: str) -> str:
    """``v`` (regressed), ``^`` (significantly better) or nothing (the base, and other cells)."""
    cell = report.cell(system, measure)
    if cell is not None and cell.regressed:
        return REGRESSED_MARK
    if cell is not None and cell.significant_gain:
        return GAIN_MARK
    return ""


def _row_name(report: Report, system: int) -> str:
    return f"{report.names[system]} (base)" if system == 0 else report.names[system]


def _legend(report: Report, down: str = REGRESSED_MARK, up: str = GAIN_MARK) -> list[str]:
    """What the marks mean: two lines."""
    from pytest_tempoeval.gate.baselines import MIN_QUERIES_FOR_TEST

    holm = report.correction == Correction.HOLM
    across = f", Holm-corrected across {report.tests} tests" if holm else ""
    test = f" and p < {report.alpha:g}{across} (one-sided paired randomization test)"
    untested = len(report.cells) - report.tests
    if untested:  # as in the gate: too few queries to mean anything
        test = (
            f"{test if report.tests else ''}; under {MIN_QUERIES_FOR_TEST} paired queries "
            "(p shown as -) the drop alone decides"
        )
    regressed = f"{down} regressed: drop > {report.max_drop:g}{test}: exit 1"
    better = f"{up} significantly better: p gain < {report.alpha:g}{', Holm-corrected' * holm}"
    return [regressed, better]


def _header(report: Report) -> str:
    counts = sorted({cell.comparison.queries for cell in report.cells})
    queries = "/".join(str(count) for count in counts)  # one count unless measures count apart
    return (
        f"base {report.paths[0]}, gold {report.gold}: {len(report.names) - 1} systems against the "
        f"base, over its {queries} counted queries"
    )


def _test_columns(report: Report) -> list[str]:
    if report.correction == Correction.HOLM:
        return ["delta", "p", "p (Holm)", "p gain", "p gain (Holm)", "verdict"]
    return ["delta", "p", "p gain", "verdict"]


def _test_values(report: Report, cell: Cell) -> list[str]:
    delta = f"{cell.comparison.delta:+.4f}"
    if report.correction == Correction.HOLM:
        ps = [cell.comparison.p_value, cell.p_adjusted, cell.p_gain, cell.p_gain_adjusted]
    else:
        ps = [cell.comparison.p_value, cell.p_gain]
    return [delta, *(_p(p) for p in ps), _verdict(cell)]


def _aligned(rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    return [
        "  ".join(
            text.rjust(width) if column in right else text.ljust(width)
            for column, (text, width) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]


def _text(report: Report, out: TextIO) -> None:
    systems = range(len(report.names))
    out.write(f"{_header(report)}\n")
    table = [["system", *report.measures]]
    table += [
        [
            _row_name(report, s),
            *(f"{report.mean(s, m):.4f} {_mark(report, s, m)}".rstrip() for m in report.measures),
        ]
        for s in systems
    ]
    out.writelines(f"{line}\n" for line in _aligned(table, set()))
    out.writelines(f"{line}\n" for line in _legend(report))
    tests = [["system", "measure", *_test_columns(report)]]
    tests += [[c.system, c.measure, *_test_values(report, c)] for c in report.cells]
    out.writelines(f"{line}\n" for line in _aligned(tests, set(range(2, len(tests[0]) - 1))))
    for cell in report.cells:
        if cell.note:
            out.write(f"{cell.system} {cell.measure}: {cell.note}\n")
    for cell in report.regressed:
        _worse(cell, f"{cell.system} {cell.measure}", WORST_PER_CELL, out)
    if report.regressed:
        cells = ", ".join(f"{c.system} {c.measure}" for c in report.regressed)
        out.write(f"regressed: {cells}{_rule(report)}\n")


# -- markdown --------------------------------------------------------------------------------------


def _one_line(text: str) -> str:
    """A file name may hold a line break: it would end a table row or a LaTeX comment."""
    return " ".join(text.splitlines())


def _md(text: str) -> str:
    """Plain text in a markdown table: no emphasis, code, column or line break."""
    for special in ("\\", "`", "*", "_", "|", "[", "]"):
        text = text.replace(special, f"\\{special}")
    return _one_line(text)


def _markdown(report: Report, out: TextIO) -> None:
    out.write(f"{_md(_header(report))}; **bold**: the best of each measure.\n\n")
    out.write(f"| system | {' | '.join(_md(m) for m in report.measures)} |\n")
    out.write(f"|:--|{'--:|' * len(report.measures)}\n")
    for system in range(len(report.names)):
        values = []
        for measure in report.measures:
            mean = f"{report.mean(system, measure):.4f}"
            if system in report.best(measure):
                mean = f"**{mean}**"
            mark = _mark(report, system, measure)
            values.append(f"{mean} {mark}" if mark else mean)
        out.write(f"| {_md(_row_name(report, system))} | {' | '.join(values)} |\n")
    out.write(f"\n{'; '.join(_md(line) for line in _legend(report))}.\n\n")
    columns = _test_columns(report)
    out.write(f"| system | measure | {' | '.join(columns)} |\n")
    out.write(f"|:--|:--|{'--:|' * (len(columns) - 1)}:--|\n")
    for cell in report.cells:
        tested = " | ".join(_test_values(report, cell))
        out.write(f"| {_md(cell.system)} | {_md(cell.measure)} | {tested} |\n")
    notes = [f"{c.system} {c.measure}: {c.note}" for c in report.cells if c.note]
    if notes or report.regressed:
        out.write("\n")
    out.writelines(f"- {_md(note)}\n" for note in notes)
    for cell in report.regressed:
        worse = cell.comparison.regressed[:WORST_PER_CELL]
        listed = ", ".join(f"{q} {old:.4f} -> {now:.4f}" for q, old, now in worse)
        more = len(cell.comparison.regressed) - len(worse)
        out.write(
            f"- regressed: {_md(cell.system)} {_md(cell.measure)}; worst queries (base -> new): "
            f"{_md(listed)}{f'; {more} more' if more else ''}\n"
        )


# -- LaTeX -----------------------------------------------------------------------------------------

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_LATEX_MARKS = {REGRESSED_MARK: r"$^{\downarrow}$", GAIN_MARK: r"$^{\uparrow}$"}


def _tex(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(character, character) for character in _one_line(text))


def _latex(report: Report, out: TextIO) -> None:
    """A booktabs tabular (``\\usepackage{booktabs}``): the best of each column in bold, the marks
    as arrows; the p-values as comments below it."""
    out.write(f"% tempoeval compare: {_one_line(_header(report))}\n")
    out.writelines(f"% {_one_line(line)}\n" for line in _legend(report, "down arrow", "up arrow"))
    out.write(f"\\begin{{tabular}}{{l{'r' * len(report.measures)}}}\n\\toprule\n")
    out.write(f"System & {' & '.join(_tex(m) for m in report.measures)} \\\\\n\\midrule\n")
    for system in range(len(report.names)):
        values = []
        for measure in report.measures:
            mean = f"{report.mean(system, measure):.4f}"
            if system in report.best(measure):
                mean = f"\\textbf{{{mean}}}"
            values.append(mean + _LATEX_MARKS.get(_mark(report, system, measure), ""))
        out.write(f"{_tex(_row_name(report, system))} & {' & '.join(values)} \\\\\n")
    out.write("\\bottomrule\n\\end{tabular}\n")
    columns = ", ".join(_test_columns(report))
    for cell in report.cells:
        tested = ", ".join(_test_values(report, cell))
        out.write(f"% {_one_line(f'{cell.system} {cell.measure}')}: {columns} = {tested}\n")
