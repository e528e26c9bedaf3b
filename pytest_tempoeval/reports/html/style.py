"""The HTML report's style sheet, and the filter's rules (CSS only: it works with JavaScript off).

Widths: nothing has a fixed width wider than a phone; charts are SVGs scaled to their container
(``width: 100%``, a ``viewBox``), tables take the page's width and wrap long cells (notes, ids),
so the page never scrolls sideways at 1,280 px (``scripts/render_report.py`` checks it in
Chromium). Print: A4, the filter hidden, the checks in the page's order (failures first), each
check that failed open.

The filter is one group of radio buttons placed before the sections they filter: a rule per
choice hides the rows and checks that do not match (``#show-failed:checked ~ section
.row:not(.st-FAIL)``). The buttons are hidden; their labels are the filter's chips.
"""

from __future__ import annotations

from collections.abc import Sequence

STYLE = """
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0;
  color: #1d2733; background: #fff; }
main { max-width: 80rem; margin: 0 auto; padding: .9rem 1.25rem 2rem; }
h1 { font-size: 1.35rem; margin: 0 0 .3rem; }
h2 { font-size: 1.05rem; margin: .8rem 0 .3rem; }
h3 { font-size: .95rem; margin: .9rem 0 .3rem; }
p { margin: .3rem 0; }
code { font: .9em/1.3 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
table { border-collapse: collapse; width: 100%; margin: .3rem 0; }
td, th { padding: .2rem .45rem; text-align: left; vertical-align: top;
  overflow-wrap: anywhere; }
td.nowrap { white-space: nowrap; overflow-wrap: normal; }
td.test { min-width: 16em; }
th { border-bottom: 2px solid #c9d1d9; font-weight: 600; white-space: nowrap; }
tr + tr td { border-top: 1px solid #e6e9ed; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap;
  overflow-wrap: normal; }
td.note { color: #5b6673; font-size: .92em; min-width: 14em; overflow-wrap: break-word; }
.FAIL { color: #b42318; } .pass { color: #1a7f37; } .pending { color: #9a6700; }
.badge { display: inline-block; font-size: .78em; font-weight: 700; padding: 0 .35em;
  border-radius: .25em; border: 1px solid currentColor; line-height: 1.35; }
.note, .muted { color: #5b6673; }
.verdict-line { font-size: 1.05rem; }
.verdict-line .FAIL, .verdict-line .pass { font-weight: 700; }
.notes { color: #5b6673; font-size: .92em; }
svg { display: block; width: 100%; height: auto; overflow: visible; }
svg text { font: 11px system-ui, sans-serif; fill: #57606a; }
svg .axis { stroke: #8c959f; stroke-width: 1; }
svg .grid { stroke: #eaeef2; stroke-width: 1; }
svg .track { stroke: #e6e9ed; stroke-width: 6; stroke-linecap: round; }
svg .threshold { stroke: #1d2733; stroke-width: 1.5; stroke-dasharray: 4 3; }
svg .tick-threshold { stroke: #1d2733; stroke-width: 2; }
svg .allowed { fill: #fff4d6; }
svg .baseline { stroke: #6e7781; stroke-width: 2.5; }
svg .current { fill: #1f6feb; } svg .regressed { fill: #d1242f; } svg .improved { fill: #1a7f37; }
svg .failed-dot { fill: #d1242f; } svg .passed-dot { fill: #1f6feb; }
svg .drop { stroke: #d1242f; stroke-width: 2; } svg .rise { stroke: #1a7f37; stroke-width: 2; }
svg .leader { stroke: #afb8c1; stroke-width: 1; stroke-dasharray: 2 2; }
svg .label { fill: #1d2733; font-size: 11px; }
svg .halo { paint-order: stroke; stroke: #fff; stroke-width: 3px; stroke-linejoin: round; }
svg .row-label { fill: #1d2733; font-size: 11.5px; }
svg .row-label.FAIL { fill: #b42318; font-weight: 600; }
svg .value { fill: #1d2733; font-size: 11.5px; font-variant-numeric: tabular-nums; }
svg .value.FAIL { fill: #b42318; }
svg .band { fill: #fff1f0; }
svg .spark { fill: none; stroke: #57606a; stroke-width: 1.5; }
svg .spark-end { fill: #1d2733; }
svg a:hover .row-label { text-decoration: underline; }
.spark-svg { width: 4.5rem; height: 1.1rem; display: inline-block; vertical-align: middle; }
.legend { font-size: .85em; color: #57606a; margin: .1rem 0 .3rem; }
.legend span { margin-right: 1em; white-space: nowrap; }
.swatch { display: inline-block; width: .75em; height: .75em; margin-right: .3em;
  vertical-align: -.05em; border-radius: 50%; }
.swatch.tick { border-radius: 0; height: .2em; vertical-align: .2em; }
header.top { border-bottom: 1px solid #e6e9ed; padding-bottom: .3rem; margin-bottom: .3rem; }
.heading { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0 1.2rem; }
.heading h2 { margin: .6rem 0 .2rem; }
.facts p { display: inline; margin: 0 .3em 0 0; }
.facts { margin: .3rem 0; font-size: .93em; }
#show-failed:checked ~ section details.quiet { display: none; }
.folds { display: flex; flex-wrap: wrap; gap: .2rem 1.4rem; align-items: baseline; }
.folds > details[open] { flex-basis: 100%; }
.filter-state { position: absolute; opacity: 0; width: 1px; height: 1px; margin: 0; }
nav.filter { display: flex; flex-wrap: wrap; gap: .35rem; align-items: flex-start;
  margin: .3rem 0 .5rem; font-size: .9em; }
nav.filter > span { padding: .15rem 0; }
nav.filter label { cursor: pointer; border: 1px solid #d0d7de; border-radius: 1em;
  padding: .05rem .6rem; background: #f6f8fa; white-space: nowrap; display: inline-block; }
nav.filter details { position: relative; }
nav.filter details > summary { cursor: pointer; border: 1px solid #d0d7de; border-radius: 1em;
  padding: .05rem .6rem; list-style: none; }
nav.filter details > summary::-webkit-details-marker { display: none; }
nav.filter details[open] > div { position: absolute; z-index: 2; background: #fff;
  border: 1px solid #d0d7de; border-radius: .4rem; padding: .4rem; margin-top: .2rem;
  display: flex; flex-direction: column; gap: .25rem; max-height: 22rem; overflow: auto;
  max-width: min(40rem, 90vw); box-shadow: 0 4px 12px rgba(0,0,0,.12); }
section.overview table.summary { font-size: .9em; }
table.summary { table-layout: fixed; }
table.summary td.test { min-width: 0; overflow-wrap: normal; word-break: normal; }
table.summary .mode { display: block; color: #5b6673; font-size: .88em; }
table.summary td.nowrap { white-space: normal; overflow-wrap: anywhere; }
details.check { border: 1px solid #d0d7de; border-radius: .4rem; margin: .45rem 0;
  padding: 0 .7rem; }
details.check.st-FAIL { border-color: #f0a8a4; border-left: 4px solid #d1242f; }
details.check.st-pending { border-left: 4px solid #bf8700; }
details.check > summary { cursor: pointer; padding: .4rem 0; color: #1d2733; }
details.check > summary h2 { display: inline; font-size: 1rem; margin: 0; font-weight: 600; }
details.check[open] > summary { border-bottom: 1px solid #e6e9ed; }
details.check > .body { padding: .25rem 0 .6rem; }
details.fold > summary { cursor: pointer; color: #0969da; font-size: .9em; }
figure { margin: .3rem 0; }
figcaption { font-size: .85em; color: #57606a; }
.periods { display: flex; flex-wrap: wrap; gap: .6rem; }
.periods figure { flex: 1 1 14rem; max-width: 22rem; margin: 0; }
.periods figure.regressed figcaption { color: #b42318; font-weight: 600; }
ol.ranking { margin: 0; padding-left: 1.6em; }
ol.ranking li { margin: 0; }
ol.ranking li.entered code { background: #dafbe1; }
ol.ranking li.left code { background: #ffebe9; text-decoration: line-through; }
.mark { font-size: .75em; font-weight: 700; padding: 0 .25em; border-radius: .2em; }
.mark.entered { color: #1a7f37; border: 1px solid #1a7f37; }
.mark.left { color: #b42318; border: 1px solid #b42318; }
.grade { font-variant-numeric: tabular-nums; color: #57606a; }
.years { color: #8250df; font-size: .88em; white-space: nowrap; }
.reason { display: block; color: #57606a; font-size: .85em; margin-left: .2em; }
.chips code { margin-right: .15em; }
@media print {
  @page { size: A4; margin: 12mm; }
  body { font-size: 10pt; }
  main { max-width: none; padding: 0; }
  nav.filter, .filter-state { display: none !important; }
  details.check { break-inside: avoid-page; }
  figure, table.changes tr, table.worst tr { break-inside: avoid; }
  a { color: inherit; text-decoration: none; }
  table.summary { table-layout: auto; font-size: 7.5pt; }
  table.summary th { width: auto !important; }
  table.summary td.nowrap { white-space: nowrap; overflow-wrap: normal; }
  table.summary td.test { min-width: 14em; }
  svg text { font-size: 12px; }
}
"""


def filter_rules(choices: Sequence[tuple[str, str]]) -> str:
    """The filter's rules: for each (radio id, class the shown rows carry), hide every row and
    check without that class while its radio is checked, and mark its chip as chosen."""
    rules = []
    for radio, kept in choices:
        rules.append(
            f"#{radio}:checked ~ section .row:not(.{kept}) {{ display: none; }}" if kept else ""
        )
        rules.append(
            f"#{radio}:checked ~ nav [for={radio}] {{ background: #1d2733; color: #fff; "
            "border-color: #1d2733; }"
        )
        rules.append(
            f"#{radio}:focus-visible ~ nav [for={radio}] {{ outline: 2px solid #0969da; }}"
        )
    return "\n".join(rule for rule in rules if rule)
