"""T-Coverage's judgments go through the judges' one machinery: recorded into cassettes and replayed
offline, counted by the budget and the dry run, asked in batches, read strictly (never a 0), and
cached by any provider (CachedJudge)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pytest_tempoeval import CachedJudge, GoldSet, Run, temporal_coverage
from pytest_tempoeval.data.focus_time import FocusTime
from pytest_tempoeval.errors import (
    InvalidReply,
    JudgeBudgetSpent,
    JudgeCassetteError,
    JudgeDryRun,
    JudgeError,
    NoValidAnswer,
)
from pytest_tempoeval.judge.accounting import CHARS_PER_TOKEN
from pytest_tempoeval.judge.anthropic_judge import AnthropicJudge
from pytest_tempoeval.judge.budget import RequestBudget
from pytest_tempoeval.judge.cassettes import JudgeCassette
from pytest_tempoeval.metrics.llm_judgments import COVERS_BASELINE, COVERS_COMPARISON, read_coverage
from pytest_tempoeval.metrics.llm_prompts import coverage_prompt
from pytest_tempoeval.testing import FakeMessagesServer, Fault

KEY = "test-key-COVERAGE-0123456789"
GOLD_YAML = """\
version: 1
documents:
  btc2017: {text: "In 2017 Bitcoin mining used about 30 TWh a year."}
  btc2021: {text: "By 2021 Bitcoin's electricity use passed 100 TWh."}
  btc2024: {text: "In 2024 Bitcoin mining drew around 150 TWh."}
  ev2015: {text: "Electric cars were under 1% of new car sales in 2015."}
  ev2023: {text: "In 2023 electric cars made up 18% of new car sales."}
queries:
  - id: btc
    text: "How has Bitcoin's energy consumption changed since 2017?"
    baseline_period: 2017
    comparison_period: 2024
  - id: ev
    text: "How has the share of electric cars changed since 2015?"
    temporal_focus: trends_changes
    baseline_period: 2015
    comparison_period: 2022-2023
  - id: plain
    text: "How much energy did Bitcoin use in 2021?"
"""
RUN = Run({"btc": ["btc2021", "btc2017", "btc2024"], "ev": ["ev2023", "btc2017"], "plain": ["x"]})
# btc: btc2017 covers the baseline, btc2024 the comparison; ev: ev2023 the comparison only.
EXPECTED = {"btc": 1.0, "ev": 0.5}
PROMPTS = 5  # the documents of btc and ev; plain is not a cross-period query


@pytest.fixture(scope="module")
def gold(tmp_path_factory: pytest.TempPathFactory) -> GoldSet:
    path = tmp_path_factory.mktemp("gold") / "gold.yaml"
    path.write_text(GOLD_YAML)
    return GoldSet.load(path)


@pytest.fixture
def server():
    with FakeMessagesServer() as fake:
        yield fake


def judge_for(server: FakeMessagesServer, **settings: object) -> AnthropicJudge:
    return AnthropicJudge(api_key=KEY, base_url=server.base_url, **settings)  # type: ignore[arg-type]


def test_recorded_against_the_fake_api_then_replayed_offline(tmp_path: Path, gold: GoldSet) -> None:
    path = tmp_path / "coverage.yaml"
    with FakeMessagesServer() as server:
        cassette = JudgeCassette(path, "once")
        recorded = temporal_coverage(RUN, gold, k=3, judge=judge_for(server, cassette=cassette))
        cassette.save()
        assert len(server.requests) == PROMPTS
    assert recorded.per_query == EXPECTED
    # The server is gone, and the judge has no key: the cassette answers everything.
    judge = AnthropicJudge(cassette=JudgeCassette(path, "none"))
    replayed = temporal_coverage(RUN, gold, k=3, judge=judge)
    assert replayed.per_query == EXPECTED and replayed.excluded == recorded.excluded
    assert (judge.stats.replayed, judge.stats.asked) == (PROMPTS, 0)
    text = path.read_text()
    assert KEY not in text and "COVERAGE-0123456789" not in text
    for header in ("authorization", "x-api-key", "anthropic-organization-id", "request-id"):
        assert header not in text.lower(), header
    # A changed period is another prompt: a miss, never another query's answer.
    moved = GOLD_YAML.replace("comparison_period: 2024", "comparison_period: 2025")
    (tmp_path / "moved.yaml").write_text(moved)
    with pytest.raises(JudgeCassetteError, match=r"query 'btc'"):
        temporal_coverage(RUN, GoldSet.load(tmp_path / "moved.yaml"), k=3, judge=judge)


def test_two_invalid_replies_are_an_error_naming_query_and_doc_never_a_0(
    server: FakeMessagesServer, gold: GoldSet
) -> None:
    """TempoEval skips a failed judgment (the document then covers nothing) and reads "false" as
    covered; here an invalid reply is asked once more, then raises."""
    server.inject(Fault.out_of_range(), Fault.out_of_range())  # covers_baseline: "yes"
    with pytest.raises(NoValidAnswer) as error:
        temporal_coverage(Run({"btc": ["btc2017"]}), gold, k=1, judge=judge_for(server))
    message = str(error.value)
    assert message.startswith("judging doc 'btc2017' for query 'btc' (model ")
    assert "covers_baseline 'yes' is not true or false" in message


def test_one_invalid_reply_is_asked_again(server: FakeMessagesServer, gold: GoldSet) -> None:
    server.inject(Fault.malformed_reply())
    result = temporal_coverage(Run({"btc": ["btc2017"]}), gold, k=1, judge=judge_for(server))
    assert result.per_query["btc"] == 0.5 and len(server.requests) == 2


def test_an_api_failure_is_a_judge_error(server: FakeMessagesServer, gold: GoldSet) -> None:
    server.inject(Fault.server_error())
    with pytest.raises(JudgeError, match="failed"):
        temporal_coverage(RUN, gold, k=3, judge=judge_for(server, max_retries=0))


def test_the_budget_counts_coverage_requests_and_new_episodes_asks_only_the_rest(
    tmp_path: Path, server: FakeMessagesServer, gold: GoldSet
) -> None:
    path = tmp_path / "c.yaml"
    cassette = JudgeCassette(path, "once")
    budget = RequestBudget(2)
    judge = judge_for(server, cassette=cassette, budget=budget, max_concurrency=1)
    with pytest.raises(JudgeBudgetSpent, match=f"{PROMPTS - 2} of the {PROMPTS} judgments"):
        temporal_coverage(RUN, gold, k=3, judge=judge)
    cassette.save()
    assert len(server.requests) == 2 and budget.used == 2
    rest = JudgeCassette(path, "new_episodes")
    again = judge_for(server, cassette=rest, budget=RequestBudget(PROMPTS - 2))
    assert temporal_coverage(RUN, gold, k=3, judge=again).per_query == EXPECTED
    assert len(server.requests) == PROMPTS and again.stats.replayed == 2


def test_a_dry_run_asks_nothing_and_estimates_the_coverage_replies(
    server: FakeMessagesServer, gold: GoldSet
) -> None:
    judge = judge_for(server, dry_run=True)
    with pytest.raises(JudgeDryRun, match=f"^judge dry run: {PROMPTS} judgments to ask "):
        temporal_coverage(RUN, gold, k=3, judge=judge)
    assert server.http_requests == 0
    prompts = {
        coverage_prompt(
            q.text,
            gold.documents[doc].text,
            q.temporal_focus,
            str(q.baseline_period),
            str(q.comparison_period),
        )
        for q in gold
        if q.baseline_period is not None
        for doc in RUN[q.id]
    }
    assert len(prompts) == PROMPTS
    assert judge.stats.estimated_input_tokens == sum(
        -(-len(prompt) // CHARS_PER_TOKEN) for prompt in prompts
    )
    assert judge.stats.estimated_output_tokens == 110 * PROMPTS


def test_batch_recording_gives_the_live_cassette_byte_for_byte(
    tmp_path: Path, gold: GoldSet
) -> None:
    cassettes = {}
    for batch in (False, True):
        path = tmp_path / f"{batch}.yaml"
        with FakeMessagesServer() as server:
            cassette = JudgeCassette(path, "once")
            judge = judge_for(server, cassette=cassette, batch=batch, batch_poll=0.001)
            assert temporal_coverage(RUN, gold, k=3, judge=judge).per_query == EXPECTED
            cassette.save()
            assert judge.stats.batched == (PROMPTS if batch else 0)
        cassettes[batch] = path.read_bytes()
    assert cassettes[True] == cassettes[False]


def test_the_delimited_prompt_style_fences_query_and_document(
    server: FakeMessagesServer, gold: GoldSet
) -> None:
    judge = judge_for(server, prompt_style="delimited")
    assert temporal_coverage(RUN, gold, k=3, judge=judge).per_query == EXPECTED
    prompt = next(b["messages"][0]["content"] for b in server.requests if "2017 Bitcoin" in str(b))
    assert "```text\nIn 2017 Bitcoin mining used about 30 TWh a year.\n```" in prompt
    assert "Baseline anchor period: 2017\n" in prompt


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ('{"covers_baseline": true, "covers_comparison": false}', COVERS_BASELINE),
        ('{"verdict": 1, "covers_baseline": false, "covers_comparison": true}', COVERS_COMPARISON),
        ('```json\n{"covers_baseline": true, "covers_comparison": true}\n```', 3),
        ({"covers_baseline": False, "covers_comparison": False}, 0),
    ],
)
def test_a_coverage_reply_is_read_as_flags(reply: str, value: int) -> None:
    assert read_coverage(reply) == value


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ('{"covers_baseline": "false", "covers_comparison": false}', "covers_baseline 'false'"),
        ('{"covers_baseline": 1, "covers_comparison": false}', "covers_baseline 1 is not"),
        ('{"covers_baseline": true, "covers_comparison": null}', "covers_comparison None is"),
        ('{"covers_baseline": true}', "no 'covers_comparison' field"),
        ('{"verdict": 1}', "no 'covers_baseline' field"),
        ("covered, both", "not valid JSON"),
    ],
)
def test_anything_but_two_json_booleans_is_an_invalid_reply(reply: str, problem: str) -> None:
    with pytest.raises(InvalidReply, match=re.escape(problem)):
        read_coverage(reply)


# -- any provider, through CachedJudge ------------------------------------------------------------


class Years:
    """A provider judging coverage by year overlap, counting its calls."""

    model = "years-coverage-1"

    def __init__(self, forced: object = None) -> None:
        self.calls = 0
        self.forced = forced

    async def grade(self, query: str, document: str) -> int:
        raise AssertionError("T-Coverage asks no grade")

    async def verdict(self, query: str, document: str, temporal_focus: str | None = None) -> bool:
        raise AssertionError("T-Coverage asks no verdict")

    async def coverage(
        self,
        query: str,
        document: str,
        baseline: str,
        comparison: str,
        temporal_focus: str | None = None,
    ) -> tuple[bool, bool]:
        self.calls += 1
        if self.forced is not None:
            return self.forced  # type: ignore[return-value]
        years = FocusTime.from_text(document)
        return years.overlaps(FocusTime.parse(baseline)), years.overlaps(
            FocusTime.parse(comparison)
        )


def test_a_provider_judges_coverage_once_then_replays_from_its_cache(
    tmp_path: Path, gold: GoldSet
) -> None:
    cache = tmp_path / "judgments.json"
    provider = Years()
    judge = CachedJudge(provider, cache)
    assert temporal_coverage(RUN, gold, k=3, judge=judge).per_query == EXPECTED
    judge.save()
    assert provider.calls == PROMPTS
    stored = json.loads(cache.read_text())["answers"]
    assert {entry["kind"] for entry in stored} == {"coverage"}
    # btc: btc2021 none, btc2017 the baseline, btc2024 the comparison; ev: ev2023 the comparison,
    # btc2017 none
    assert sorted(entry["value"] for entry in stored) == [
        0, 0, COVERS_BASELINE, COVERS_COMPARISON, COVERS_COMPARISON
    ]  # fmt: skip
    again = Years()
    replay = CachedJudge(again, cache, record_mode="none")
    assert temporal_coverage(RUN, gold, k=3, judge=replay).per_query == EXPECTED
    assert again.calls == 0 and replay.stats.replayed == PROMPTS


@pytest.mark.parametrize("answer", [("yes", True), (True,), 3, None], ids=repr)
def test_a_provider_answer_that_is_not_two_bools_is_an_error_never_a_0(
    tmp_path: Path, gold: GoldSet, answer: object
) -> None:
    forced = Years(forced=answer if answer is not None else [None, True])
    with pytest.raises(NoValidAnswer, match=r"judging doc 'btc2017' for query 'btc'.*not a pair"):
        temporal_coverage(Run({"btc": ["btc2017"]}), gold, k=1,
                          judge=CachedJudge(forced, tmp_path / "c.json"))  # fmt: skip
    assert forced.calls == 2  # asked once more


def test_a_provider_without_coverage_is_named(tmp_path: Path, gold: GoldSet) -> None:
    class GradesOnly:
        model = "grades-only"

        async def grade(self, query: str, document: str) -> int:
            return 0

        async def verdict(self, query: str, document: str, temporal_focus: object = None) -> bool:
            return False

    with pytest.raises(JudgeError, match=r"has no coverage\(\) method: T-Coverage asks which"):
        temporal_coverage(RUN, gold, k=3, judge=CachedJudge(GradesOnly(), tmp_path / "c.json"))


def test_a_cached_coverage_outside_0_3_is_refused_with_its_line(
    tmp_path: Path, gold: GoldSet
) -> None:
    cache = tmp_path / "judgments.json"
    judge = CachedJudge(Years(), cache)
    temporal_coverage(Run({"btc": ["btc2017"]}), gold, k=1, judge=judge)
    judge.save()
    stored = json.loads(cache.read_text())
    stored["answers"][0]["value"] = 4
    cache.write_text(json.dumps(stored, indent=1))
    with pytest.raises(
        JudgeCassetteError, match=r"\.json:4: answer '.*' has coverage 4: not coverage"
    ):
        CachedJudge(Years(), cache, record_mode="none")


# -- in a suite, through the tempoeval_judge fixture -----------------------------------------------

SUITE_TEST = """
import pytest
from pytest_tempoeval import Run, temporal_coverage

RUN = Run({"btc": ["btc2021", "btc2017", "btc2024"], "ev": ["ev2023", "btc2017"]})

@pytest.mark.tempoeval("gold.yaml")
@pytest.mark.parametrize("k", [2, 3])
def test_coverage(tempoeval_gold, tempoeval_judge, k):
    result = temporal_coverage(RUN, tempoeval_gold, k=k, judge=tempoeval_judge)
    assert result >= 0.5
    print("SCORE", k, dict(sorted(result.per_query.items())))
"""


def test_a_suite_dry_runs_records_and_replays_t_coverage(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the tempoeval_judge fixture: a dry run, a recording (in process: xdist workers
    would each import the SDK, seconds apiece), and a replay under xdist (-n 2), its counts summed
    on the controller."""
    pytester.makefile(".yaml", gold=GOLD_YAML)
    pytester.makepyfile(test_cov=SUITE_TEST)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with FakeMessagesServer() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        dry = pytester.runpytest("--tempoeval-judge-dry-run")
        assert server.http_requests == 0
        recorded = pytester.runpytest("-s", "--tempoeval-record-mode=once")
        asked = len(server.requests)
    dry.assert_outcomes(skipped=2)
    # k=2 needs 4 prompts, k=3 five (each test its own cassette): 9, each replied to in ~110 tokens.
    assert re.search(
        r"9 judgments to ask, 0 held in cassettes; estimated \d+ input / 990 output",
        dry.stdout.str(),
    )
    recorded.assert_outcomes(passed=2)
    assert asked == 9
    monkeypatch.delenv("ANTHROPIC_BASE_URL")
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    replayed = pytester.runpytest("-n", "2")  # no server, no key
    replayed.assert_outcomes(passed=2)
    replayed.stdout.fnmatch_lines(["*LLM judge: 9 replayed from cassettes, 0 asked live*"])
    cassettes = sorted((pytester.path / "fixtures" / "cassettes").rglob("*.yaml"))
    assert [path.name for path in cassettes] == ["test_coverage[2].yaml", "test_coverage[3].yaml"]


# -- the shipped example cassette ------------------------------------------------------------------

ROOT = Path(__file__).parents[2]
SHIPPED = (
    ROOT
    / "fixtures/cassettes/examples/test_temporal_coverage/test_the_top_2_cover_both_periods.yaml"
)


def test_the_shipped_cassette_replays_offline_and_holds_only_the_kept_headers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import yaml

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")  # nothing listens there
    gold = GoldSet.load(ROOT / "examples/gold/cross_period.yaml")
    run = Run({"bitcoin-energy": ["btc2024", "btc2017"], "ev-share": ["ev2023", "ev2015"]})
    judge = AnthropicJudge(cassette=JudgeCassette(SHIPPED, "none"))
    result = temporal_coverage(run, gold, k=2, judge=judge)
    assert result.per_query == {"bitcoin-energy": 1.0, "ev-share": 1.0}
    assert judge.stats.asked == 0 and judge.stats.replayed == 4
    interactions = yaml.safe_load(SHIPPED.read_text())["interactions"]
    assert len(interactions) == 6 and SHIPPED.stat().st_size < 20_000  # small
    for interaction in interactions:
        assert set(interaction["request"]["headers"]) == {"content-type", "anthropic-version"}
        assert set(interaction["response"]["headers"]) == {"content-type"}
        assert interaction["request"]["uri"] == "https://api.anthropic.com/v1/messages"
