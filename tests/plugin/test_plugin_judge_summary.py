"""The judge's line in the summary tells replayed (free) from asked live (billed), with tokens and
about what they cost; the live progress line is plain lines in a log."""

from __future__ import annotations

import re

import pytest

from pytest_tempoeval.judge.prices import PRICES, parse_prices, price_of
from pytest_tempoeval.testing import FakeMessagesServer

# its pytester sessions record in-process: the SDK is imported once, not per session
pytestmark = pytest.mark.usefixtures("judge_sdk_stays_loaded")
DOCS = 20
DOCUMENTS = "".join(f'  d{i}: {{text: "Report of {2000 + i}."}}\n' for i in range(DOCS))
QUERIES = '  - id: q1\n    text: "In 2005?"\n  - id: q2\n    text: "And in 2011?"\n'
GOLD = f"version: 1\ndocuments:\n{DOCUMENTS}queries:\n{QUERIES}"
TEST = f"""
import pytest
from pytest_tempoeval import Run, temporal_ndcg

@pytest.mark.tempoeval("gold.yaml")
def test_llm(tempoeval_gold, tempoeval_judge):
    docs = [f"d{{i}}" for i in range({DOCS})]
    run = Run({{"q1": docs, "q2": docs}})
    temporal_ndcg(run, tempoeval_gold, k={DOCS}, mode="llm", judge=tempoeval_judge)
"""


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    pytester.makefile(".yaml", gold=GOLD)
    pytester.makepyfile(test_judged=TEST)
    return pytester


def test_live_then_replayed(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeMessagesServer() as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        live = suite.runpytest("--tempoeval-record-mode=once")  # captured: not a terminal
    live.assert_outcomes(passed=1)
    output = live.stdout.str()
    assert "\r" not in output  # a log, not a terminal: no carriage returns
    progress = [line for line in live.stdout.lines if line.startswith("judging ")]
    assert progress[-1] == "judging 40/40 (0 cached)" and 2 <= len(progress) <= 11
    match = re.search(
        r"LLM judge: 0 replayed from cassettes, 40 asked live, (\d+) input / (\d+) output tokens, "
        r"about \$(\S+) at claude-haiku-5-5 prices \(assumed for claude-haiku-5-5; "
        r"tempoeval_judge_prices\)",
        output,
    )
    assert match is not None, output
    tokens_in, tokens_out = int(match[1]), int(match[2])
    expected = price_of("claude-haiku-5-5").cost(tokens_in, tokens_out)
    assert float(match[3]) == pytest.approx(expected, rel=0.05)  # printed to 2 digits
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    replayed = suite.runpytest()
    replayed.assert_outcomes(passed=1)
    replayed.stdout.fnmatch_lines(
        ["LLM judge: 40 replayed from cassettes, 0 asked live (0 tokens)"]
    )
    assert "judging" not in replayed.stdout.str()  # replay is silent


def test_prices_from_the_ini_override_the_table(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.makeini("[pytest]\ntempoeval_judge_prices =\n    claude-haiku-5-5 = 1000/1000\n")
    with FakeMessagesServer() as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        result = suite.runpytest("--tempoeval-record-mode=once")
    line = next(line for line in result.stdout.lines if line.startswith("LLM judge:"))
    assert "assumed" not in line
    tokens = re.search(r"(\d+) input / (\d+) output tokens", line)
    assert tokens is not None
    assert f"about ${(int(tokens[1]) + int(tokens[2])) * 1000 / 1_000_000:,.2f}" in line


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (
            ["claude-haiku-5-5: cheap"],
            (
                "*ini tempoeval_judge_prices, line 1 'claude-haiku-5-5: cheap': expected "
                "'model = input/output' (US dollars per million tokens, e.g. *"
            ),
        ),
        (  # read as '1.2.3' and refused by float(), naming neither the key nor the line
            ["my-model = 1/5", "claude-haiku-5-5 = 1.2.3/5"],
            (
                "*ini tempoeval_judge_prices, line 2 'claude-haiku-5-5 = 1.2.3/5': expected "
                "'model = input/output'*"
            ),
        ),
        (["m = inf/1"], "*ini tempoeval_judge_prices, line 1 'm = inf/1': expected 'model = *"),
        (["m = nan/1"], "*ini tempoeval_judge_prices, line 1 'm = nan/1': expected 'model = *"),
        (["m = -1/1"], "*ini tempoeval_judge_prices, line 1 'm = -1/1': expected 'model = *"),
        (  # the last one silently won
            ["claude-haiku-5-5 = 1/5", "other = 1/1", "claude-haiku-5-5 = 100/500"],
            (
                "*ini tempoeval_judge_prices, line 3 'claude-haiku-5-5 = 100/500': "
                "claude-haiku-5-5 is priced twice "
                "(first on line 1 'claude-haiku-5-5 = 1/5'): keep one"
            ),
        ),
    ],
    ids=["no-equals", "two-dots", "inf", "nan", "negative", "duplicate"],
)
def test_a_bad_price_line_is_a_usage_error_before_collection(
    suite: pytest.Pytester, lines: list[str], message: str
) -> None:
    suite.makeini("[pytest]\ntempoeval_judge_prices =\n" + "".join(f"    {x}\n" for x in lines))
    result = suite.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "collected" not in result.stdout.str()


def test_price_table() -> None:
    dated, plain = price_of("claude-haiku-4-5-20251001"), price_of("claude-haiku-4-5")
    assert (dated.input, dated.output) == (plain.input, plain.output)  # dated model ids
    assert price_of("claude-haiku-4-5").cost(1_000_000, 1_000_000) == sum(
        PRICES["claude-haiku-4-5"]
    )
    assert (
        price_of("claude-haiku-4-5").cost(2_000_000, 0, batch=True) == PRICES["claude-haiku-4-5"][0]
    )
    assert price_of("claude-haiku-5-5").assumed and not price_of("claude-haiku-4-5").assumed
    assert price_of("some-other-model") is None
    assert parse_prices(["", " my-model = 0.5 / 2 "]) == {"my-model": (0.5, 2.0)}
    assert price_of("my-model", parse_prices(["my-model = 0.5/2"])).cost(1_000_000, 0) == 0.5
