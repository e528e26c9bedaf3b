"""How well ``FocusTime.from_text`` reads years, against TempoEval 0.1.0's extractors, on the
labelled phrases of ``focus_time_labelled.yaml`` (the set the rules of issue 28 were written from)
and ``focus_time_holdout.yaml`` (written after them, never used to change them); the tables of
docs/focus-time.md.

Scores, over the phrases' year sets (a phrase's expected years E, the extractor's years R):

- precision = sum |R ∩ E| / sum |R|, recall = sum |R ∩ E| / sum |E| (micro-averaged: every year
  weighs one, so a century weighs a hundred times a year), F1 their harmonic mean;
- exact match = the share of phrases with R == E (every phrase weighs one; a phrase with no year
  and nothing read is a match).

TempoEval's extractors (``tempoeval/core/focus_time.py``; it has no other that returns years from
text without an LLM or a tagger that is not installed):

- ``QueryFocusTime.extract`` with its defaults: its regex of years 1800-2099 and decades, its named
  periods (WWII, Cold War, ...) and its relative phrases, resolved against ``current_year``: here
  the phrase's reference year, or FIXED_CURRENT_YEAR for the phrases without one (its default,
  today's year, would make the figures change with the date);
- ``DocumentFocusTime.extract`` with its defaults: the regex alone.

``utils/temporal_parser.py``'s ``extract_years`` (years 1900-2099 only) is a subset of the first's
regex and is not scored.

Rewrite the tables of docs/focus-time.md: ``python tests/data/focus_time_scores.py``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import yaml

from pytest_tempoeval.data.focus_time import FocusTime

LABELLED = Path(__file__).with_name("focus_time_labelled.yaml")
HOLDOUT = Path(__file__).with_name("focus_time_holdout.yaml")
DOCS = Path(__file__).parents[2] / "docs" / "focus-time.md"
FIXED_CURRENT_YEAR = 2024  # TempoEval's current_year for a phrase without a reference year

_BLOCK = re.compile(
    r"(<!-- labelled:(?P<name>\w+) -->\n).*?(<!-- /labelled:(?P=name) -->)", re.DOTALL
)


@dataclass(frozen=True)
class Labelled:
    phrase: str
    years: frozenset[int]
    category: str
    reference_year: int | None


@dataclass(frozen=True)
class Scores:
    precision: float
    recall: float
    f1: float
    exact: float
    phrases: int


def labelled(path: Path = LABELLED) -> list[Labelled]:
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [
        Labelled(
            entry["phrase"],
            FocusTime.parse(entry["years"]).years,
            entry["category"],
            entry.get("reference_year"),
        )
        for entry in entries
    ]


def ours(entry: Labelled) -> frozenset[int]:
    return FocusTime.from_text(entry.phrase, reference_year=entry.reference_year).years


def tempoeval_query(entry: Labelled) -> frozenset[int]:
    from tempoeval.core.focus_time import QueryFocusTime

    current_year = entry.reference_year or FIXED_CURRENT_YEAR
    return frozenset(QueryFocusTime(current_year=current_year).extract(entry.phrase).years)


def tempoeval_document(entry: Labelled) -> frozenset[int]:
    from tempoeval.core.focus_time import DocumentFocusTime

    return frozenset(DocumentFocusTime().extract(entry.phrase).years)


EXTRACTORS: dict[str, Callable[[Labelled], frozenset[int]]] = {
    "pytest-tempoeval `FocusTime.from_text`": ours,
    "TempoEval `QueryFocusTime.extract`": tempoeval_query,
    "TempoEval `DocumentFocusTime.extract`": tempoeval_document,
}


def scores(pairs: Iterable[tuple[frozenset[int], frozenset[int]]]) -> Scores:
    """Micro precision, recall and F1 of the read years, and the exact-match rate, over
    (expected, read) pairs."""
    hits = read = expected_total = exact = phrases = 0
    for expected, got in pairs:
        hits += len(expected & got)
        read += len(got)
        expected_total += len(expected)
        exact += expected == got
        phrases += 1
    precision = hits / read if read else 0.0
    recall = hits / expected_total if expected_total else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return Scores(precision, recall, f1, exact / phrases if phrases else 0.0, phrases)


def all_scores(
    entries: list[Labelled],
) -> tuple[dict[str, Scores], dict[str, dict[str, Scores]]]:
    """Each extractor's scores over every phrase, and per category."""
    read = {name: [extract(entry) for entry in entries] for name, extract in EXTRACTORS.items()}
    overall = {
        name: scores((entry.years, got) for entry, got in zip(entries, years, strict=True))
        for name, years in read.items()
    }
    categories = sorted({entry.category for entry in entries})
    by_category = {
        category: {
            name: scores(
                (entry.years, got)
                for entry, got in zip(entries, years, strict=True)
                if entry.category == category
            )
            for name, years in read.items()
        }
        for category in categories
    }
    return overall, by_category


def tables(sets: dict[str, list[Labelled]]) -> dict[str, str]:
    """The overall table (every extractor on every set) and the per-category table of the first
    set."""
    lines = [
        "| phrases | extractor | precision | recall | F1 | exact match |",
        "|---|---|--:|--:|--:|--:|",
    ]
    by_category: dict[str, dict[str, Scores]] = {}
    for index, (set_name, entries) in enumerate(sets.items()):
        overall, per_category = all_scores(entries)
        if index == 0:
            by_category = per_category
        lines += [
            f"| {set_name} ({s.phrases}) | {name} | {s.precision:.3f} | {s.recall:.3f} "
            f"| {s.f1:.3f} | {s.exact:.3f} |"
            for name, s in overall.items()
        ]
    names = list(EXTRACTORS)
    rows = ["| category | phrases | " + " | ".join(names) + " |", "|---|--:|" + "--:|" * len(names)]
    for category, per_name in by_category.items():
        count = next(iter(per_name.values())).phrases
        cells = " | ".join(f"{per_name[name].exact:.3f}" for name in names)
        rows.append(f"| {category} | {count} | {cells} |")
    return {"overall": "\n".join(lines) + "\n", "categories": "\n".join(rows) + "\n"}


def both_sets() -> dict[str, list[Labelled]]:
    return {"labelled": labelled(LABELLED), "held out": labelled(HOLDOUT)}


def updated_docs(text: str, sets: dict[str, list[Labelled]]) -> str:
    made = tables(sets)
    return _BLOCK.sub(lambda match: match[1] + made[match["name"]] + match[3], text)


def main() -> int:
    DOCS.write_text(updated_docs(DOCS.read_text(encoding="utf-8"), both_sets()), encoding="utf-8")
    return 0


if __name__ == "__main__":
    if "--print" in sys.argv:
        for table in tables(both_sets()).values():
            print(table)
        raise SystemExit(0)
    raise SystemExit(main())
