"""The tables of ``docs/measures.md``, generated from the measure specs (:mod:`.specs`).

``python -m pytest_tempoeval.metrics.spec_docs [PATH]`` rewrites them (default PATH:
``docs/measures.md`` in the current directory); ``tests/metrics/test_specs.py`` fails when the
page and the specs differ. Each table sits between ``<!-- specs:NAME -->`` and
``<!-- /specs:NAME -->``; the text around them is written by hand.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from pytest_tempoeval.constants import DEFAULT_K
from pytest_tempoeval.metrics.not_supported import NOT_SUPPORTED
from pytest_tempoeval.metrics.specs import SPECS, MeasureSpec, Param

_BLOCK = re.compile(r"(<!-- specs:(?P<name>\w+) -->\n).*?(<!-- /specs:(?P=name) -->)", re.DOTALL)


def _cell_of(param: Param) -> str:
    if param.default is None:
        return f"`{param.name}` (not given)"
    if not param.choices:
        return f"`{param.name}` ({param.measure_default})"
    others = ", ".join(f"`{word}`" for word in param.measure_choices[1:])
    default = f"`{param.measure_default}`"
    return f"`{param.name}` ({default}{f'; or {others}' if others else ''})"


def _no_cutoff(spec: MeasureSpec) -> str:
    if spec.at is not None:
        return f"— (@ gives `{spec.at.name}`, which every name needs)"
    if not spec.rank_cutoff:
        return "the whole ranking (it takes no cutoff)"
    if not spec.whole_ranking:
        return f"k = the gold set's k, else {DEFAULT_K}"
    if spec.ideal_from_all_judgments:
        return "the whole ranking, ideal from all judgments"
    return "the whole ranking"


def _row(spec: MeasureSpec) -> list[str]:
    at = [f"`@{spec.at.name}` (required)"] if spec.at is not None else []
    params = ", ".join([*at, *(_cell_of(param) for param in spec.all_params)]) or "—"
    aliases = ", ".join(f"`{alias}`" for alias in spec.aliases) or "—"
    row = [f"`{spec.name}`", spec.summary, params, _no_cutoff(spec), f"`{spec.function}`", aliases]
    if not spec.temporal:
        trec = [f"`{spec.trec_eval_whole}`"] * bool(spec.trec_eval_whole)
        cut = spec.at.name if spec.at is not None else "k"
        trec += [f"`{spec.trec_eval}.{cut}`"] * bool(spec.trec_eval)
        params = ", ".join(f"{key}={value}" for key, value in spec.trec_eval_params.items())
        row.append(", ".join(trec) + f" ({params})" * bool(trec and params) or "—")
    return row


def _table(head: list[str], rows: list[list[str]]) -> str:
    lines = [f"| {' | '.join(head)} |", "|" + "---|" * len(head)]
    return "\n".join(lines + [f"| {' | '.join(cells)} |" for cells in rows]) + "\n"


def docs_tables() -> dict[str, str]:
    """The generated blocks of docs/measures.md, by name."""
    head = ["name", "what it measures", "parameters (default)", "no cutoff means", "function"]
    head.append("also written")
    # One row per parameter and meaning: RBP's rel is not the binary measures' rel.
    by_name: dict[tuple[str, str], tuple[Param, list[str]]] = {}
    for spec in SPECS:
        for param in (*spec.all_params, *([spec.at] if spec.at is not None else [])):
            key = (param.name, param.description)
            by_name.setdefault(key, (param, []))[1].append(f"`{spec.name}`")
    kinds = {bool: "true or false", int: "an integer", float: "a number", str: "a word"}
    params = [
        [f"`{name}`", kinds[param.type], ", ".join(names), param.description]
        for (name, _), (param, names) in sorted(by_name.items())
    ]
    return {
        "standard": _table([*head, "trec_eval"], [_row(s) for s in SPECS if not s.temporal]),
        "temporal": _table(head, [_row(spec) for spec in SPECS if spec.temporal]),
        "parameters": _table(["parameter", "value", "measures", "meaning"], params),
        "not_supported": _table(["tool", "measures", "why not"], _not_supported_rows()),
    }


def _not_supported_rows() -> list[list[str]]:
    """One row per tool and reason, its measures listed."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for name, (tool, why) in NOT_SUPPORTED.items():
        grouped.setdefault((tool, why), []).append(f"`{name}`")
    return [[tool, ", ".join(names), why] for (tool, why), names in grouped.items()]


def updated_docs(text: str) -> str:
    """``text`` (docs/measures.md) with its generated blocks made anew from the specs."""
    tables = docs_tables()
    return _BLOCK.sub(lambda match: match[1] + tables[match["name"]] + match[3], text)


def main(argv: list[str]) -> int:
    """Rewrite the tables of docs/measures.md (``argv[0]``, default: the one in the current
    directory) from the specs."""
    path = Path(argv[0] if argv else "docs/measures.md")
    path.write_text(updated_docs(path.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
