"""A judgment from AnthropicJudge carries what a gold set's provenance keeps: the reply's reasoning
and the hash of the prompt asked (live from the fake server, and replayed from a cassette)."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_tempoeval.data.provenance import prompt_hash
from pytest_tempoeval.judge.anthropic_judge import AnthropicJudge
from pytest_tempoeval.judge.cassettes import JudgeCassette
from pytest_tempoeval.metrics.llm_judgments import Judgment
from pytest_tempoeval.metrics.llm_prompts import graded_prompt
from pytest_tempoeval.testing import FakeMessagesServer, fake_judgment

ITEM = ("q1", "Who won in 2016?", "d1", "Polls in 2015 and 2016 were wrong.")


def test_a_graded_judgment_keeps_the_reasoning_and_the_prompt_hash(tmp_path: Path) -> None:
    prompt = graded_prompt(ITEM[1], ITEM[3], "seed")
    reasoning = json.loads(fake_judgment(prompt))["reasoning"]
    cassette = tmp_path / "c.yaml"
    with FakeMessagesServer() as server:
        judge = AnthropicJudge(
            api_key="k", base_url=server.base_url, cassette=JudgeCassette(cassette, "once")
        )
        (live,) = judge.grade_all([ITEM])
        judge.cassette.save()
    assert live == Judgment("q1", "d1", 2)  # the fake: round(4 x Jaccard({2016}, {2015, 2016}))
    assert (live.reasoning, live.prompt_hash) == (reasoning, prompt_hash(prompt))
    (replayed,) = AnthropicJudge(cassette=JudgeCassette(cassette)).grade_all([ITEM])
    assert (replayed.reasoning, replayed.prompt_hash) == (reasoning, prompt_hash(prompt))
