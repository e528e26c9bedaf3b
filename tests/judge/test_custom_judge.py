"""Another provider as the judge: the protocol, and its answers cached by (model, prompt)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from pytest_tempoeval import CachedJudge, GoldSet, Run, temporal_ndcg, temporal_precision
from pytest_tempoeval.data.focus_time import FocusTime
from pytest_tempoeval.errors import JudgeCassetteError, JudgeError, NoValidAnswer

GOLD = GoldSet.from_dict(
    {
        "version": 1,
        "documents": {
            "d2016": {"text": "The 2016 election."},
            "d2020": {"text": "The 2020 election."},
            "d2012": {"text": "The 2012 election."},
        },
        "queries": [{"id": "q", "text": "Who won in 2020?"}],
    }
)
RUN = Run({"q": ["d2016", "d2020", "d2012"]})


class YearProvider:
    """A provider that is not Anthropic: grades by year overlap, and counts its calls."""

    model = "year-overlap-1"

    def __init__(self, answers: dict[str, object] | None = None) -> None:
        self.calls = 0
        self.answers = answers or {}  # document text -> a forced answer

    async def grade(self, query: str, document: str) -> int:
        self.calls += 1
        if document in self.answers:
            return self.answers[document]  # type: ignore[return-value]
        return round(4 * FocusTime.from_text(query).jaccard(FocusTime.from_text(document)))

    async def verdict(self, query: str, document: str, temporal_focus: str | None = None) -> bool:
        self.calls += 1
        return FocusTime.from_text(query).overlaps(FocusTime.from_text(document))


def test_a_provider_is_judged_once_then_replayed_from_its_cache(tmp_path: Path) -> None:
    cache = tmp_path / "judgments.json"
    provider = YearProvider()
    judge = CachedJudge(provider, cache)
    first = temporal_ndcg(RUN, GOLD, k=3, mode="llm", judge=judge)
    # d2020 graded 4 at rank 2, the others 0; the ideal is the judged 4 at rank 1: 1 / log2(3).
    assert float(first) == pytest.approx(1 / math.log2(3))
    precision = temporal_precision(RUN, GOLD, k=3, mode="llm", judge=judge)
    assert float(precision) == pytest.approx(1 / 3)
    judge.save()
    assert provider.calls == 6 and judge.stats.asked == 6
    stored = json.loads(cache.read_text())
    assert stored["version"] == 1 and len(stored["answers"]) == 6
    assert {entry["model"] for entry in stored["answers"]} == {"year-overlap-1"}

    again = YearProvider()
    replay = CachedJudge(again, cache, record_mode="none")
    assert float(temporal_ndcg(RUN, GOLD, k=3, mode="llm", judge=replay)) == float(first)
    assert again.calls == 0 and replay.stats.replayed == 3


def test_a_changed_document_or_model_is_a_miss_in_replay(tmp_path: Path) -> None:
    cache = tmp_path / "judgments.json"
    judge = CachedJudge(YearProvider(), cache)
    temporal_ndcg(RUN, GOLD, k=3, mode="llm", judge=judge)
    judge.save()
    other = YearProvider()
    other.model = "year-overlap-2"
    with pytest.raises(JudgeCassetteError, match="3 judgments are not in"):
        temporal_ndcg(RUN, GOLD, k=3, mode="llm", judge=CachedJudge(other, cache, "none"))
    more = CachedJudge(YearProvider(), cache, "new_episodes")
    temporal_ndcg(Run({"q": ["d2016", "d2020"]}), GOLD, k=2, mode="llm", judge=more)
    assert more.stats.asked == 0 and more.stats.replayed == 2


@pytest.mark.parametrize("bad", [7, -1, 2.5, "3", None, True])
def test_an_invalid_answer_is_asked_again_then_an_error_never_a_zero(
    tmp_path: Path, bad: object
) -> None:
    provider = YearProvider({"The 2020 election.": bad})
    judge = CachedJudge(provider, tmp_path / "c.json")
    with pytest.raises(
        NoValidAnswer, match="doc 'd2020' for query 'q'.*no valid answer in 2 tries"
    ):
        temporal_ndcg(RUN, GOLD, k=3, mode="llm", judge=judge)
    judge.save()
    stored = json.loads((tmp_path / "c.json").read_text())["answers"]
    assert all(entry["doc_id"] != "d2020" for entry in stored)  # an invalid answer is not kept


def test_a_provider_failure_is_a_judge_error_naming_the_pair(tmp_path: Path) -> None:
    class Failing(YearProvider):
        async def grade(self, query: str, document: str) -> int:
            raise ConnectionError("provider down")

    with pytest.raises(JudgeError, match="doc '.*' for query 'q'.*provider failed.*provider down"):
        temporal_ndcg(RUN, GOLD, k=3, mode="llm", judge=CachedJudge(Failing(), tmp_path / "c.json"))


def test_a_damaged_cache_names_the_file_and_line(tmp_path: Path) -> None:
    cache = tmp_path / "c.json"
    cache.write_text('{"version": 1,\n "answers": [\n')
    with pytest.raises(JudgeCassetteError, match=r"c\.json:3: invalid JSON"):
        CachedJudge(YearProvider(), cache)
    cache.write_text(
        json.dumps({"version": 1, "answers": [{"key": "k", "kind": "grade", "value": 9}]})
    )
    with pytest.raises(JudgeCassetteError, match=r"c\.json:1: answer 'k' has grade 9: not an int"):
        CachedJudge(YearProvider(), cache)


def recorded_cache(path: Path) -> list[str]:
    """A cache of three grades, as lines (json.dumps(indent=1): one answer is 8 lines)."""
    judge = CachedJudge(YearProvider(), path)
    temporal_ndcg(RUN, GOLD, k=3, mode="llm", judge=judge)
    judge.save()
    return path.read_text().splitlines(keepends=True)


@pytest.mark.parametrize("mode", ["none", "once", "new_episodes"])
@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        # the second answer's key line twice: a duplicate JSON key
        (lambda lines: lines.insert(13, lines[12]), r":14: duplicate key 'key' \(first at line 13"),
        # the third answer has the first one's key: two answers, one key
        (
            lambda lines: lines.__setitem__(20, lines[4]),
            r":20: answer '{first}' appears twice \(first at line 4\)",
        ),
        (
            lambda lines: lines.__setitem__(6, lines[6].replace("grade", "grad")),
            r":4: answer '{first}' has kind 'grad', expected 'grade', 'verdict' or 'coverage'",
        ),
    ],
    ids=["duplicate-json-key", "two-answers-one-key", "unknown-kind"],
)
def test_an_ambiguous_or_wrong_answer_is_refused_with_file_line_and_key(
    tmp_path: Path, edit: object, problem: str, mode: str
) -> None:
    """They were read last-wins (a duplicate) or as a grade (any other kind)."""
    cache = tmp_path / "c.json"
    lines = recorded_cache(cache)
    first = json.loads(cache.read_text())["answers"][0]["key"]
    assert lines[4].strip() == f'"key": "{first}",' and '"kind": "grade"' in lines[6]
    edit(lines)  # type: ignore[operator]
    cache.write_text("".join(lines))
    before = cache.read_bytes()
    message = re.escape(str(cache)) + problem.format(first=first) + ".*left as it is"
    with pytest.raises(JudgeCassetteError, match=message):
        CachedJudge(YearProvider(), cache, record_mode=mode)
    assert cache.read_bytes() == before


def test_the_fixture_wraps_a_provider_with_the_session_settings(pytester: pytest.Pytester) -> None:
    pytester.makefile(
        ".yaml",
        gold='version: 1\ndocuments:\n  d2020: {text: "The 2020 election."}\n'
        'queries:\n  - id: q\n    text: "Who won in 2020?"\n',
    )
    pytester.makepyfile(
        test_custom="""
        import pytest
        from pytest_tempoeval import Run, temporal_ndcg

        class Provider:
            model = "my-model"
            async def grade(self, query, document):
                return 4
            async def verdict(self, query, document, temporal_focus=None):
                return True

        @pytest.mark.tempoeval("gold.yaml")
        def test_custom(tempoeval_gold, tempoeval_judge_for):
            judge = tempoeval_judge_for(Provider())
            assert temporal_ndcg(Run({"q": ["d2020"]}), tempoeval_gold, k=1, mode="llm",
                                 judge=judge) >= 1.0
        """
    )
    recorded = pytester.runpytest("--tempoeval-record-mode=once")
    recorded.assert_outcomes(passed=1)
    cache = pytester.path / "fixtures/cassettes/test_custom/test_custom.judgments.json"
    assert json.loads(cache.read_text())["answers"][0]["model"] == "my-model"
    recorded.stdout.fnmatch_lines(["LLM judge: 0 replayed from cassettes, 1 asked live*"])
    replayed = pytester.runpytest()
    replayed.assert_outcomes(passed=1)
    replayed.stdout.fnmatch_lines(["LLM judge: 1 replayed from cassettes, 0 asked live (0 tokens)"])


def test_a_whole_rerecording_that_fails_partway_keeps_the_old_answers(tmp_path: Path) -> None:
    """As for cassettes: `all` keeps what it has not asked again until the judging finished."""
    cache = tmp_path / "c.json"
    first = CachedJudge(YearProvider(), cache)
    temporal_ndcg(RUN, GOLD, k=3, mode="llm", judge=first)
    first.save()
    assert len(json.loads(cache.read_text())["answers"]) == 3

    class FailsOn2012(YearProvider):
        async def grade(self, query: str, document: str) -> int:
            if "2012" in document:
                raise ConnectionError("provider down")
            return await super().grade(query, document)

    partial = CachedJudge(FailsOn2012(), cache, record_mode="all", max_concurrency=1)
    with pytest.raises(JudgeError):
        temporal_ndcg(RUN, GOLD, k=3, mode="llm", judge=partial)
    partial.save(complete=False)
    assert len(json.loads(cache.read_text())["answers"]) == 3  # the old answer to d2012 is kept
    smaller = CachedJudge(YearProvider(), cache, record_mode="all")
    temporal_ndcg(Run({"q": ["d2020"]}), GOLD, k=1, mode="llm", judge=smaller)
    smaller.save(complete=True)
    assert len(json.loads(cache.read_text())["answers"]) == 1  # a finished one drops the rest


@pytest.mark.parametrize("record_mode", ["once", "new_episodes", "all"])
def test_two_judges_sharing_one_cache_keep_each_others_answers(
    tmp_path: Path, record_mode: str
) -> None:
    """Two providers in one test (tempoeval_judge_for gives both the test's one cache file): the
    second to save must not replace the answers the first paid for."""

    class OtherModel(YearProvider):
        model = "year-overlap-2"

    cache = tmp_path / "c.json"
    if record_mode == "all":  # an old answer neither asks again: a finished `all` drops it
        old = CachedJudge(YearProvider(), cache)
        temporal_ndcg(Run({"q": ["d2016"]}), GOLD, k=1, mode="llm", judge=old)
        old.save()
    first = CachedJudge(YearProvider(), cache, record_mode=record_mode)
    second = CachedJudge(OtherModel(), cache, record_mode=record_mode)
    temporal_ndcg(Run({"q": ["d2020"]}), GOLD, k=1, mode="llm", judge=first)
    temporal_ndcg(Run({"q": ["d2012"]}), GOLD, k=1, mode="llm", judge=second)
    first.save(complete=True)
    second.save(complete=True)
    stored = json.loads(cache.read_text())["answers"]
    assert sorted((entry["model"], entry["doc_id"]) for entry in stored) == [
        ("year-overlap-1", "d2020"),
        ("year-overlap-2", "d2012"),
    ]
    replay_first = YearProvider()
    replay = CachedJudge(replay_first, cache, record_mode="none")
    temporal_ndcg(Run({"q": ["d2020"]}), GOLD, k=1, mode="llm", judge=replay)
    assert replay_first.calls == 0


KILLED_SUITE = """
import asyncio
import os

import pytest
from pytest_tempoeval import Run, temporal_ndcg


class Slow:
    model = "slow-1"

    async def grade(self, query, document):
        await asyncio.sleep(float(os.environ["LATENCY"]))
        with open("calls.log", "a") as log:  # answered: billed
            log.write(document + "\\n")
        return 2

    async def verdict(self, query, document, temporal_focus=None):
        return True


@pytest.mark.tempoeval("gold.yaml")
def test_many(tempoeval_gold, tempoeval_judge_for):
    judge = tempoeval_judge_for(Slow(), max_concurrency=2)
    run = Run({"q": sorted(tempoeval_gold.documents)})
    temporal_ndcg(run, tempoeval_gold, k=len(run["q"]), mode="llm", judge=judge)
"""


def test_a_killed_session_keeps_the_paid_answers_and_the_resume_asks_only_the_rest(
    pytester: pytest.Pytester,
) -> None:
    """A provider's answers were saved only at teardown: a session killed midway had paid for
    every answer and kept none. Now saved as they come (every 0.3 s here), the resume asks
    nothing twice."""
    import os
    import signal
    import subprocess
    import sys
    import time

    documents = 200
    pytester.makefile(
        ".yaml",
        gold="version: 1\ndocuments:\n"
        + "".join(f'  d{i:03d}: {{text: "report {i}"}}\n' for i in range(documents))
        + 'queries:\n  - id: q\n    text: "Who won in 2020?"\n',
    )
    pytester.makeconftest(
        "import pytest_tempoeval.judge.custom as custom\ncustom.SAVE_EVERY_SECONDS = 0.3\n"
    )
    pytester.makepyfile(test_killed=KILLED_SUITE)
    cache = pytester.path / "fixtures/cassettes/test_killed/test_many.judgments.json"
    calls = pytester.path / "calls.log"
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"]

    def asked() -> list[str]:
        return calls.read_text().splitlines() if calls.exists() else []

    session = subprocess.Popen(
        [*command, "--tempoeval-record-mode=once"],
        cwd=pytester.path,
        env={**os.environ, "LATENCY": "0.05"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not (cache.exists() and len(asked()) >= 20) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert session.poll() is None, "the session ended before it was killed"
    session.send_signal(signal.SIGKILL)  # no teardown: only the periodic saves count
    session.wait()

    saved = {entry["doc_id"]: entry for entry in json.loads(cache.read_text())["answers"]}
    before_kill = {f"d{int(text.split()[1]):03d}" for text in asked()}
    assert 0 < len(saved) < documents and set(saved) <= before_kill
    calls.unlink()
    resumed = subprocess.run(
        [*command, "--tempoeval-record-mode=new_episodes"],
        cwd=pytester.path,
        env={**os.environ, "LATENCY": "0"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stdout
    again = [f"d{int(text.split()[1]):03d}" for text in asked()]
    assert not set(again) & set(saved)  # nothing saved is asked again
    assert len(again) == len(set(again)) == documents - len(saved)
    final = {entry["doc_id"]: entry for entry in json.loads(cache.read_text())["answers"]}
    assert len(final) == documents and all(final[doc] == saved[doc] for doc in saved)
