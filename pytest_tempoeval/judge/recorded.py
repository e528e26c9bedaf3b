"""The recorded Anthropic judge, built once for every place that needs one: the ``tempoeval_judge``
fixture (:mod:`pytest_tempoeval.plugin`) and ``tempoeval pool`` (:mod:`pytest_tempoeval.pool_cli`)
give it their cassette and settings, and get the same judge: answers from the cassette first,
new ones recorded as its record mode allows, with the dry run, the budget and batches."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_tempoeval.judge.anthropic_judge import DEFAULT_MODEL, AnthropicJudge
from pytest_tempoeval.judge.modes import BATCH_POLL_SECONDS
from pytest_tempoeval.judge.recording import Progress, Recording, StatusLine

if TYPE_CHECKING:
    from pytest_tempoeval.judge.budget import RequestBudget
    from pytest_tempoeval.judge.cassettes import JudgeCassette


def recorded_judge(
    cassette: JudgeCassette,
    *,
    model: str | None = None,
    prompt_style: str = "seed",
    dry_run: bool = False,
    budget: RequestBudget | None = None,
    batch: bool = False,
    batch_poll: float = BATCH_POLL_SECONDS,
    progress: Progress | None = None,
    batch_status: StatusLine | None = None,
    max_concurrency: int = 8,
) -> AnthropicJudge:
    """An :class:`AnthropicJudge` bound to ``cassette``. ``model`` None: the default model.
    ``progress`` is shown only while recording (a replay is silent), ``batch_status`` only with
    ``batch``."""
    recording = Recording(
        cassette=cassette,
        progress=progress if cassette.recording else None,
        dry_run=dry_run,
        budget=budget,
        batch=batch,
        batch_poll=batch_poll,
        batch_status=batch_status if batch else None,
    )
    return AnthropicJudge(
        model=model or DEFAULT_MODEL,
        max_concurrency=max_concurrency,
        prompt_style=prompt_style,
        recording=recording,
    )
