"""What judging costs: the one price table, with its source and date, and the arithmetic.

Prices change; ini ``tempoeval_judge_prices`` overrides them, one ``model = input/output`` line per
model, in US dollars per million tokens. The Message Batches API costs half.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

PRICES_AS_OF = "2026-03-21"
PRICES_SOURCE = "Anthropic's pricing page (docs.anthropic.com/en/docs/about-claude/pricing)"
# USD per million tokens: (input, output).
PRICES: dict[str, tuple[float, float]] = {
    "claude-haiku-4-5": (1.00, 5.00),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-3-haiku": (0.25, 1.25),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-sonnet-4-5": (3.00, 15.00),
    "claude-sonnet-4-6": (3.00, 15.00),
    "claude-opus-4-5": (5.00, 25.00),
    "claude-opus-4-6": (5.00, 25.00),
    "claude-opus-4-1": (15.00, 75.00),
}
# Models with no price published where this table was written: priced as the model named, and the
# summary says the price is assumed.
ASSUMED = {"claude-haiku-5-5": "claude-haiku-4-5"}
BATCH_DISCOUNT = 0.5
_DATED = re.compile(r"-\d{8}$")  # claude-haiku-4-5-20251001 is claude-haiku-4-5


@dataclass(frozen=True)
class Price:
    model: str
    input: float  # USD per million tokens
    output: float
    assumed: bool = False  # not published for this model: another model's price

    def cost(self, input_tokens: int, output_tokens: int, batch: bool = False) -> float:
        dollars = (input_tokens * self.input + output_tokens * self.output) / 1_000_000
        return dollars * (BATCH_DISCOUNT if batch else 1.0)


def parse_prices(lines: Iterable[str]) -> dict[str, tuple[float, float]]:
    """The ini's ``model = input/output`` lines. Raises ValueError naming a bad line."""
    prices = {}
    for line in lines:
        if not line.strip():
            continue
        match = re.fullmatch(r"\s*([\w.\-]+)\s*=\s*([\d.]+)\s*/\s*([\d.]+)\s*", line)
        if match is None:
            raise ValueError(
                f"tempoeval_judge_prices: {line.strip()!r} is not 'model = input/output' "
                "(US dollars per million tokens, e.g. claude-haiku-4-5 = 1.00/5.00)"
            )
        prices[match[1]] = (float(match[2]), float(match[3]))
    return prices


def price_of(model: str, overrides: dict[str, tuple[float, float]] | None = None) -> Price | None:
    """The price of ``model``: the ini's, else the table's, else an assumed one; None if unknown."""
    for table in (overrides or {}, PRICES):
        for name in (model, _DATED.sub("", model)):
            if name in table:
                return Price(model, *table[name])
    stand_in = ASSUMED.get(_DATED.sub("", model))
    if stand_in is not None:
        return Price(model, *PRICES[stand_in], assumed=True)
    return None


def dollars(amount: float) -> str:
    """``$12.34``, or two significant digits under a dollar (``$0.012``)."""
    return f"${amount:,.2f}" if amount >= 1 else f"${amount:.2g}"
