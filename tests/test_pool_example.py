"""The pool example (``examples/pool/``): its runs are what the example retrievers return, its
pooled gold set is what ``tempoeval pool`` writes from the shipped cassette, byte for byte and with
no network, and its hand-judged gold set has the holes the example is about."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pytest_tempoeval import GoldSet, Run, ndcg
from pytest_tempoeval.cli import main

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "examples" / "pool"
CASSETTE = ROOT / "fixtures" / "cassettes" / "examples" / "pool" / "pooled.yaml"
RUNS = [str(EXAMPLE / "bm25.trec"), str(EXAMPLE / "reranked.trec")]
# The documents the reranker puts in its top 5 that nobody judged (query id, doc id): each query's
# answer, which BM25 ranks 6th to 10th.
HOLES = {
    ("wc-2014", "wc-2014"),
    ("oly-2008", "oly-2008"),
    ("rwc-2019", "rwc-2019"),
    ("rwc-2007", "rwc-2007"),
}


def pool(*more: str) -> list[str]:
    """``tempoeval pool`` as the example's README runs it (paths from anywhere)."""
    corpus = str(EXAMPLE / "corpus.yaml")
    command = ["pool", corpus, corpus, *RUNS, "--depth", "5", "--grade-scale", "0", "3"]
    return [*command, "--cassette", str(CASSETTE), *more]


def test_the_pooled_gold_set_is_what_the_pool_writes_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")  # nothing listens: offline
    assert main(pool("-o", str(tmp_path / "dry.yaml"), "--dry-run")) == 0
    assert "0 judgments to ask, 39 held in" in capsys.readouterr().out
    monkeypatch.chdir(tmp_path)
    assert main(pool("-o", "pooled.yaml")) == 0
    assert (tmp_path / "pooled.yaml").read_bytes() == (EXAMPLE / "pooled.yaml").read_bytes()
    summary = capsys.readouterr().out
    assert "LLM judge: 39 replayed from cassettes, 0 asked live" in summary
    assert summary == shown_after("**The summary**") + "\n"  # docs/cli.md shows it


def shown_after(words: str) -> str:
    """The first unlabelled fenced block after ``words`` in docs/cli.md."""
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    return page.split(words, 1)[1].split("\n```\n", 1)[1].split("\n```", 1)[0]


def test_agree_on_the_example_prints_what_the_docs_show(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
    human, pooled = "examples/pool/human.yaml", "examples/pool/pooled.yaml"
    assert main(["agree", human, pooled]) == 0
    printed = capsys.readouterr().out.splitlines()
    shown = shown_after("On the pool example:").splitlines()
    assert printed[: len(shown) - 2] == shown[:-2]  # the docs cut the list of disagreements
    assert printed[-1] == shown[-1]


def test_the_runs_are_what_the_example_retrievers_return(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLE))
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    from make_runs import runs  # examples/pool/make_runs.py

    made = runs(GoldSet.load(EXAMPLE / "corpus.yaml"))
    for name, run in made.items():
        shipped = Run.load(EXAMPLE / f"{name}.trec")
        assert {q: list(shipped[q]) for q in shipped} == {q: list(run[q]) for q in run}, name
    sys.modules.pop("make_runs", None)


def test_the_hand_judged_set_has_holes_only_the_reranker_retrieves() -> None:
    human = GoldSet.load(EXAMPLE / "human.yaml")
    bm25, reranked = (Run.load(path) for path in RUNS)
    judged = {(q.id, d) for q in human for d in q.relevant}
    assert judged == {(q, d) for q in bm25 for d in bm25[q][:5]}  # BM25's top 5, all of it
    holes = {(q, d) for q in reranked for d in reranked[q][:5] if (q, d) not in judged}
    assert holes == HOLES
    # Gold-only, the holes count as not relevant: the reranker looks worse than BM25 ...
    assert ndcg(reranked, human, k=5) < ndcg(bm25, human, k=5)
    # ... though each hole is its query's answer, which the LLM judge of the pool grades 3.
    pooled = GoldSet.load(EXAMPLE / "pooled.yaml")
    assert {pair: pooled.queries[pair[0]].relevant[pair[1]] for pair in HOLES} == dict.fromkeys(
        HOLES, 3
    )
