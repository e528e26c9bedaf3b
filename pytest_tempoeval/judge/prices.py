"""What judging costs: the one price table, with its source and date, and the arithmetic.

Prices change; ini ``tempoeval_judge_prices`` overrides them, one ``model = input/output`` line per
model, in US dollars per million tokens. The Message Batches API costs half.
"""

from __future__ import annotations

import math
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


_NUMBER = r"(\d+(?:\.\d*)?|\.\d+)"  # 1, 1.5, .5: no sign, no exponent, no nan or inf
_PRICE_LINE = re.compile(rf"\s*([\w.\-]+)\s*=\s*{_NUMBER}\s*/\s*{_NUMBER}\s*")
_FORMAT = (
    "expected 'model = input/output' (US dollars per million tokens, e.g. "
    "claude-haiku-4-5 = 1.00/5.00)"
)


def parse_prices(lines: Iterable[str]) -> dict[str, tuple[float, float]]:
    """The ini's ``model = input/output`` lines. Raises ValueError naming the ini key, the line
    and the expected format; a model priced on two lines is an error naming both."""
    prices: dict[str, tuple[float, float]] = {}
    seen: dict[str, tuple[int, str]] = {}  # model -> (line number, line)
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"ini tempoeval_judge_prices, line {number} {line.strip()!r}"
        match = _PRICE_LINE.fullmatch(line)
        price = (float(match[2]), float(match[3])) if match else None
        if price is None or not all(map(math.isfinite, price)):
            raise ValueError(f"{where}: {_FORMAT}")
        model = match[1]  # type: ignore[index]
        if model in seen:
            first, text = seen[model]
            raise ValueError(
                f"{where}: {model} is priced twice (first on line {first} {text!r}): keep one"
            )
        seen[model] = (number, line.strip())
        prices[model] = price
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
