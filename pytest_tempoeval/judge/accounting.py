"""What judges count before asking: a dry run's estimate, and the message when the budget is spent.

Shared by every judge (:mod:`.anthropic_judge`, :mod:`.custom`): a dry run and a spent budget read
the same whichever provider judges.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pytest_tempoeval.errors import JudgeBudgetSpent, JudgeDryRun

if TYPE_CHECKING:
    from pytest_tempoeval.judge.budget import RequestBudget

# A dry run estimates tokens without a tokenizer: about 4 characters a token for English prompts,
# and the length of a typical reply to each prompt, by what it asks (the binary one asks for five
# fields; the coverage one for five, two of them free text).
CHARS_PER_TOKEN = 4
ESTIMATED_OUTPUT_TOKENS = {"grade": 50, "verdict": 90, "coverage": 110}


def count_dry_run(
    stats: JudgeStats,
    counted: set[str],
    prompts: Collection[str],
    missing: Collection[str],
    kind: str,
    where: str,
) -> JudgeDryRun | None:
    """Count what a dry-run call needs: the prompts ``missing`` it would ask and the others, held,
    each prompt once per judge (``counted``: those its earlier stopped calls counted), as a
    recording asks a prompt once and then remembers the reply. Returns the stop the call raises
    when it would ask anything (nothing is asked); None when everything is held: it replays.
    ``kind``: what the prompts ask (a key of ESTIMATED_OUTPUT_TOKENS)."""
    if not missing:
        return None
    new = [prompt for prompt in prompts if prompt not in counted]
    counted.update(new)
    wanted = set(missing)
    to_ask = [prompt for prompt in new if prompt in wanted]
    held = len(new) - len(to_ask)
    stats.to_ask += len(to_ask)
    stats.held += held
    stats.estimated_input_tokens += sum(-(-len(prompt) // CHARS_PER_TOKEN) for prompt in to_ask)
    output = ESTIMATED_OUTPUT_TOKENS[kind]
    stats.estimated_output_tokens += output * len(to_ask)
    return JudgeDryRun(
        f"judge dry run: {_judgments(len(to_ask))} to ask ({held} held in {where}); "
        "nothing was asked",
        needed=len(to_ask),
        held=held,
        where=where,
    )


def dry_run_summary(stops: Sequence[JudgeDryRun]) -> str:
    """Why a test is skipped in a dry run: the judgments all its stopped calls would ask, and those
    held, summed (each call counted only what the ones before it had not)."""
    needed, held = sum(stop.needed for stop in stops), sum(stop.held for stop in stops)
    places = ", ".join(dict.fromkeys(stop.where for stop in stops if stop.where)) or "cassettes"
    calls = f" in {len(stops)} judged calls" if len(stops) > 1 else ""
    return (
        f"judge dry run: {_judgments(needed)} to ask ({held} held in {places}){calls}; "
        "nothing was asked"
    )


def _judgments(n: int) -> str:
    return f"{n} judgment{'' if n == 1 else 's'}"


def budget_spent(budget: RequestBudget, still: int, total: int) -> JudgeBudgetSpent:
    """The error of a call that needs judgments the session's budget no longer allows."""
    return JudgeBudgetSpent(
        f"the judge's request budget is spent: {budget.limit} new requests per session "
        "(ini tempoeval_judge_max_requests or --tempoeval-judge-max-requests), and "
        f"{still} of the {total} judgments this call needs are still missing. No score was "
        "computed. What was recorded is saved: raise the budget and run again with "
        "--tempoeval-record-mode=new_episodes to ask only for the rest"
    )


@dataclass
class JudgeStats:
    """What the session summary reports about judging: what was replayed (free), and what was
    asked live (billed), with its tokens."""

    replayed: int = 0  # answered from the cassette
    asked: int = 0  # answered by the API
    cache_hits: int = 0  # identical (model, prompt) pairs answered from this judge's memory
    input_tokens: int = 0  # of the requests asked live
    output_tokens: int = 0
    batched: int = 0  # of ``asked``: answered through the Message Batches API (half price)
    batch_input_tokens: int = 0  # of ``input_tokens``: those of batched requests
    batch_output_tokens: int = 0
    batch_retried: int = 0  # batch items that expired or errored, asked live instead
    # Dry run (nothing is asked): judgments the session would ask, those the cassettes hold, and the
    # estimated tokens of the ones it would ask.
    to_ask: int = 0
    held: int = 0
    estimated_input_tokens: int = 0
    estimated_output_tokens: int = 0

    @property
    def judgments(self) -> int:
        """Requests answered, by the cassette or the API."""
        return self.replayed + self.asked
