"""Holes filled by the judge in a pytest session (issue 29): recorded against the fake Messages
API, replayed offline under xdist; the reports, the baseline and ``--tempoeval-propose-gold``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_tempoeval.data.gold_patch import ProposedJudgment, read_gold_patch
from pytest_tempoeval.testing import FakeMessagesServer

# its pytester sessions record in-process: the SDK is imported once, not per session
pytestmark = pytest.mark.usefixtures("judge_sdk_stays_loaded")
KEY = "test-key-not-a-secret"
GOLD = """\
version: 1
documents:
  a2020: {text: "The 2020 result."}
  b2020: {text: "Counting went on in 2020."}
  c2019: {text: "Polls of 2019 and 2020."}
  a2016: {text: "The 2016 result."}
  b2016: {text: "The 2016 count."}
queries:
  - id: q2020
    text: "What happened in 2020?"
    relevant: {a2020: 3}
  - id: q2016
    text: "What happened in 2016?"
    relevant: {a2016: 2, b2020: 0}
"""
TESTS = """
import pytest
from pytest_tempoeval import Run, evaluate, ndcg

@pytest.mark.tempoeval(gold="gold.yaml")
def test_better(tempoeval_gold, tempoeval_judge, tempoeval_baseline):
    run = Run({"q2020": ["b2020", "a2020", "ghost"], "q2016": ["b2016", "a2016", "c2019"]})
    result = ndcg(run, tempoeval_gold, k=3, fill_unjudged=tempoeval_judge)
    assert result >= 0.5
    tempoeval_baseline.check(result)

@pytest.mark.tempoeval(gold="gold.yaml")
def test_by_name(tempoeval_gold, tempoeval_judge):
    run = Run({"q2020": ["c2019", "a2020"], "q2016": ["b2016"]})
    result = evaluate(run, tempoeval_gold, ["P(fill=llm)@2"], judge=tempoeval_judge)
    assert result["P(fill=llm)@2"] >= 0.25
"""
# The fake grades round(4 x year Jaccard), mapped onto 0..3 (the set's largest grade), halves up:
# b2020 for 2020 4 -> 3, b2016 for 2016 4 -> 3, c2019 (2019-2020) for 2020 2 -> 2, for 2016 0.
PROPOSED = [
    ProposedJudgment("q2016", "b2016", 3, 4, model="claude-haiku-5-5"),
    ProposedJudgment("q2020", "b2020", 3, 4, model="claude-haiku-5-5"),
    ProposedJudgment("q2020", "c2019", 2, 2, model="claude-haiku-5-5"),
]


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    pytester.makefile(".yaml", gold=GOLD)
    pytester.makepyfile(test_fill=TESTS)
    return pytester


def test_recorded_replayed_under_xdist_reported_gated_and_proposed(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    reports = ["--tempoeval-report=r.json", "--tempoeval-markdown=r.md", "--tempoeval-html=r.html"]
    with FakeMessagesServer() as server, monkeypatch.context() as env:
        env.setenv("ANTHROPIC_API_KEY", KEY)
        env.setenv("ANTHROPIC_BASE_URL", server.base_url)
        recorded = suite.runpytest(
            "--tempoeval-record-mode=once",
            "--tempoeval-update-baseline",
            "--tempoeval-propose-gold=patch.yaml",
            *reports,
        )
        # only the holes of each top k: b2020, b2016, c2019 (test_better), c2019, b2016 (by name)
        assert len(server.requests) == 5
    recorded.assert_outcomes(passed=2)
    patch = read_gold_patch(suite.path / "patch.yaml")
    assert patch.gold == "gold.yaml"  # from the rootdir, as `tempoeval gold merge` takes it
    assert [(j.query_id, j.doc_id, j.grade, j.judge_grade, j.model) for j in patch.judgments] == [
        (j.query_id, j.doc_id, j.grade, j.judge_grade, j.model) for j in PROPOSED
    ]
    assert all(j.prompt_hash and j.reasoning for j in patch.judgments)
    recorded.stdout.fnmatch_lines(
        ["tempoeval: 3 proposed judgments for gold.yaml written to patch.yaml; review them*"]
    )
    # the reports show per query what was filled, and which holes were left without text
    rows = json.loads((suite.path / "r.json").read_text())["checks"]
    better = next(row for row in rows if row["metric"] == "nDCG(fill=llm)@3")
    assert better["filled"]["per_query"]["q2020"]["filled"] == {"b2020": 3}
    assert better["filled"]["per_query"]["q2020"]["without_text"] == ["ghost"]
    assert better["filled"]["per_query"]["q2016"]["filled"] == {"b2016": 3, "c2019": 0}
    assert (
        "3 grades filled by the judge (claude-haiku-5-5), 1 unjudged without text"
        in (better["note"])
    )
    markdown = (suite.path / "r.md").read_text()
    assert (
        "- test_fill.py::test_better, nDCG(fill=llm)@3, q2020: 1 filled (b2020 3); 1 unjudged "
        "without text (ghost)" in markdown
    )
    html = (suite.path / "r.html").read_text()
    assert (
        "Grades filled by the judge (claude-haiku-5-5): q2020 1 (b2020 3); q2016 2 (b2016 3, "
        "c2019 0). Unjudged without text: q2020 ghost" in html
    )
    baseline = json.loads(
        (suite.path / "fixtures/baselines/test_fill/test_better.json").read_text()
    )
    assert baseline["results"]["nDCG(fill=llm)@3"]["filled"] == {"q2016": 2 / 3, "q2020": 1 / 3}

    # replayed offline (no key, no server) under xdist: the controller writes one patch with
    # both workers' proposals, byte for byte the serial one; the baseline check passes
    replayed = suite.runpytest("-n", "2", "--tempoeval-propose-gold=again.yaml")
    replayed.assert_outcomes(passed=2)
    assert (suite.path / "again.yaml").read_bytes() == (suite.path / "patch.yaml").read_bytes()
    replayed.stdout.fnmatch_lines(["*nDCG(fill=llm)@3*drop <= *pass*"])

    # an existing patch (under review?) is never replaced unless asked
    refused = suite.runpytest("--tempoeval-propose-gold=patch.yaml")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(
        ["*--tempoeval-propose-gold: patch.yaml exists*--tempoeval-propose-gold-overwrite*"]
    )
    (suite.path / "patch.yaml").write_text("# reviewed\n")
    suite.runpytest(
        "--tempoeval-propose-gold=patch.yaml", "--tempoeval-propose-gold-overwrite"
    ).assert_outcomes(passed=2)
    assert (suite.path / "patch.yaml").read_bytes() == (suite.path / "again.yaml").read_bytes()


def proposal(gold: str, query: str, doc: str, grade: int, model: str = "m1") -> dict[str, object]:
    return {
        "gold": gold,
        "query": query,
        "document": doc,
        "grade": grade,
        "judge_grade": 4,
        "reasoning": None,
        "model": model,
        "prompt_hash": "0" * 16,
    }


def test_one_patch_per_gold_set_one_line_per_pair_and_nothing_replaced(tmp_path: Path) -> None:
    from pytest_tempoeval.reports.gold_proposals import write_proposals

    root = tmp_path
    made = [
        proposal(str(root / "gold/a.yaml"), "q1", "d1", 2),
        proposal(str(root / "gold/a.yaml"), "q1", "d1", 3, model="m2"),  # another judge's answer
        proposal(str(root / "gold/a.yaml"), "q1", "d1", 2),  # the same hole, another test
        proposal(str(root / "other/b.yaml"), "q9", "d9", 1),
    ]
    lines = write_proposals(made, str(tmp_path / "p.yaml"), overwrite=False, root=root)
    first = read_gold_patch(tmp_path / "p.a.yaml")
    assert first.gold == "gold/a.yaml"
    assert [(j.query_id, j.doc_id, j.grade, j.model) for j in first.judgments] == [
        ("q1", "d1", 2, "m1")  # the first by (model, prompt hash, grade)
    ]
    assert [j.doc_id for j in read_gold_patch(tmp_path / "p.b.yaml").judgments] == ["d9"]
    assert "1 pairs were filled with different answers" in lines[0]
    assert not (tmp_path / "p.yaml").exists()
    again = write_proposals(made, str(tmp_path / "p.yaml"), overwrite=False, root=root)
    assert all("exists, not replaced" in line for line in again)
    assert "nothing to propose" in write_proposals([], "p.yaml", overwrite=False, root=root)[0]
