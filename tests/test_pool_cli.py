"""``tempoeval pool``: TREC pooling of runs, each pooled pair judged once by the recorded judge
against the loopback fake Messages API (no network), written with provenance; a replay writes the
same bytes offline, and a dry run counts exactly what a recording asks.

The fake grades round(4 x Jaccard(query years, document years)), so every expected grade below is
worked out by hand from the texts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import run_main

from pytest_tempoeval import GoldSet
from pytest_tempoeval.data.provenance import prompt_hash
from pytest_tempoeval.metrics.llm_prompts import graded_prompt
from pytest_tempoeval.testing import FakeMessagesServer

QA, QB = "What happened between 2016 and 2019?", "Who won in 2020?"  # {2016..2019}, {2020}
TEXTS = {
    "a4": "Events from 2016 to 2019.",  # qa: Jaccard 1 -> 4
    "a3": "Reports from 2017 to 2019.",  # qa: 3/4 -> 3
    "a1": "A story of 2016.",  # qa: 1/4 -> 1
    "a0": "Biden won the 2020 election.",  # qa: 0; qb: 1 -> 4
    "b0": "Nothing dated here.",  # qb: 0 -> 0
}
CORPUS = (
    "version: 1\ndocuments:\n"
    + "".join(f'  {doc}: {{text: "{text}"}}\n' for doc, text in TEXTS.items())
    + "  notext: {}\n"
    + f'queries:\n  - id: qa\n    text: "{QA}"\n  - id: qb\n    text: "{QB}"\n'
)
# bm25: qa's a1 and a0 tie on score: trec_eval's order puts a1 first (ties by doc id descending),
# whatever the rank column says. rerank: a query QUERIES lacks (qz), and a document the corpus
# lacks (missing9).
BM25 = """\
qa Q0 a4 1 3.0 bm25
qa Q0 a0 2 2.0 bm25
qa Q0 a1 3 2.0 bm25
qa Q0 b0 4 1.0 bm25
qb Q0 a0 1 5.0 bm25
qb Q0 b0 2 4.0 bm25
"""
RERANK = """\
qa Q0 a3 1 9.0 rerank
qa Q0 notext 2 8.0 rerank
qa Q0 a2 3 7.0 rerank
qb Q0 missing9 1 3.0 rerank
qb Q0 a0 2 2.0 rerank
qz Q0 a0 1 1.0 rerank
"""
# depth 2: qa {a4, a1} + {a3, notext}; qb {a0, b0} + {missing9, a0}: 7 pairs, 5 judgeable
JUDGED = {("qa", "a4"): 4, ("qa", "a1"): 1, ("qa", "a3"): 3, ("qb", "a0"): 4, ("qb", "b0"): 0}
ON_0_3 = {4: 3, 3: 2, 1: 1, 0: 0}  # round(g * 3 / 4), halves up


@pytest.fixture(scope="module")
def server() -> Iterator[FakeMessagesServer]:
    with FakeMessagesServer() as fake:
        yield fake


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: FakeMessagesServer) -> Path:
    """A folder with the corpus (a gold set with queries and documents) and the two runs; the
    judge pointed at the fake server."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    (tmp_path / "corpus.yaml").write_text(CORPUS)
    (tmp_path / "bm25.trec").write_text(BM25)
    (tmp_path / "rerank.trec").write_text(RERANK)
    return tmp_path


POOL = ("pool", "corpus.yaml", "corpus.yaml", "bm25.trec", "rerank.trec", "--depth", "2")


def test_the_pool_is_judged_once_per_pair_and_written_with_provenance(
    files: Path, capsys: pytest.CaptureFixture[str], server: FakeMessagesServer
) -> None:
    before = len(server.requests)
    code, out, err = run_main(
        capsys, *POOL, "-o", "gold.yaml", "--cassette", "c.yaml", "--record-mode", "once",
        "--grade-scale", "0", "3",
    )  # fmt: skip
    assert code == 0, err
    asked = server.requests[before:]
    assert len(asked) == len(JUDGED)  # each judgeable pooled pair once, nothing else
    gold = GoldSet.load(files / "gold.yaml")
    assert gold.grade_scale == (0, 3) == gold.declared_grade_scale
    assert {(q.id, d): g for q in gold for d, g in q.relevant.items()} == {
        pair: ON_0_3[grade] for pair, grade in JUDGED.items()
    }
    for query_id, doc_id in JUDGED:
        provenance = gold.queries[query_id].provenance[doc_id]
        assert provenance.source == "llm:claude-haiku-5-5"
        prompt = graded_prompt(QA if query_id == "qa" else QB, TEXTS[doc_id])
        assert provenance.prompt_hash == prompt_hash(prompt)
        assert provenance.reasoning is not None and "query years" in provenance.reasoning
    assert sorted(gold.documents) == ["a0", "a1", "a3", "a4", "b0"]  # the judged ones
    assert out.splitlines()[:3] == [
        "pool: 7 pairs from 2 runs at depth 2, over 2 queries",
        "  bm25.trec: 3 pairs only this run pooled",  # qa/a4, qa/a1, qb/b0
        "  rerank.trec: 3 pairs only this run pooled",  # qa/a3, qa/notext, qb/missing9
    ]
    assert "  judged by claude-haiku-5-5: 5 pairs; grades on [0, 3]: 0: 1, 1: 1, 2: 1, 3: 2" in out
    assert "    the document is not in CORPUS: 1 (qb/missing9)" in out
    assert "    the document has no text: 1 (qa/notext)" in out
    assert "rerank.trec: 1 query not in corpus.yaml, not pooled: qz" in err
    assert "judgments of" not in err  # corpus.yaml has none


def test_judgments_in_queries_are_named_when_not_kept(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (files / "judged.yaml").write_text(
        CORPUS.replace(f'"{QB}"\n', f'"{QB}"\n    relevant: {{a0: 1}}\n')
    )
    code, _, err = run_main(
        capsys, "pool", "judged.yaml", "corpus.yaml", "bm25.trec", "--depth", "1", "-o", "g.yaml",
        "--cassette", "c.yaml", "--dry-run",
    )  # fmt: skip
    assert code == 0
    assert "1 judgment of judged.yaml not kept" in err and "--human too" in err


def test_a_dry_run_counts_what_the_recording_asks_and_a_replay_writes_the_same_bytes(
    files: Path,
    capsys: pytest.CaptureFixture[str],
    server: FakeMessagesServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = len(server.requests)
    code, out, _ = run_main(capsys, *POOL, "-o", "gold.yaml", "--cassette", "c.yaml", "--dry-run")
    assert code == 0 and len(server.requests) == before and not (files / "gold.yaml").exists()
    assert "dry run (nothing asked): 5 judgments to ask, 0 held in c.yaml" in out
    assert "through --batch at claude-haiku-5-5 prices" in out
    code, _, err = run_main(
        capsys, *POOL, "-o", "gold.yaml", "--cassette", "c.yaml", "--record-mode", "once"
    )
    assert code == 0, err
    assert len(server.requests) - before == 5  # what the dry run said
    first = (files / "gold.yaml").read_bytes()
    assert b"grade_scale: [0, 4]" in first  # the default scale: the judge's own grades
    # Offline: no key, no server; replayed from the cassette, the same bytes.
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    code, out, err = run_main(capsys, *POOL, "-o", "again.yaml", "--cassette", "c.yaml")
    assert code == 0, err
    assert (files / "again.yaml").read_bytes() == first
    assert "LLM judge: 5 replayed from cassettes, 0 asked live" in out
    code, out, _ = run_main(capsys, *POOL, "-o", "x.yaml", "--cassette", "c.yaml", "--dry-run")
    assert "0 judgments to ask, 5 held in c.yaml" in out
    # A changed document is a cassette miss, never a wrong grade.
    (files / "corpus.yaml").write_text(CORPUS.replace("A story of 2016.", "A story of 2017."))
    code, _, err = run_main(capsys, *POOL, "-o", "changed.yaml", "--cassette", "c.yaml")
    assert code == 2 and "is not in the cassette c.yaml" in err
    assert not (files / "changed.yaml").exists()


def test_beir_and_jsonl_inputs_pool_the_same_gold_set(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_main(
        capsys, *POOL, "-o", "gold.yaml", "--cassette", "c.yaml", "--record-mode", "once"
    )
    assert code == 0, err
    beir = files / "beir"
    beir.mkdir()
    queries = [{"_id": "qa", "text": QA}, {"_id": "qb", "text": QB}]
    corpus = [{"_id": doc, "title": "", "text": text} for doc, text in TEXTS.items()]
    corpus.append({"_id": "notext", "title": "", "text": ""})
    (beir / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (beir / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in corpus))
    runs = ("bm25.trec", "rerank.trec", "--depth", "2", "--cassette", "c.yaml")
    for name, sources in (
        ("from_beir.yaml", ("beir", "beir")),
        ("from_jsonl.yaml", ("beir/queries.jsonl", "beir/corpus.jsonl")),
    ):
        code, out, err = run_main(capsys, "pool", *sources, *runs, "-o", name)
        assert code == 0, err
        assert (files / name).read_bytes() == (files / "gold.yaml").read_bytes(), name
        assert "the document has no text: 1 (qa/notext)" in out


def test_human_judgments_are_kept_and_only_the_rest_judged(
    files: Path, capsys: pytest.CaptureFixture[str], server: FakeMessagesServer
) -> None:
    (files / "human.yaml").write_text(
        "version: 1\ngrade_scale: [0, 3]\nqueries:\n"
        "  - id: qa\n    relevant: {a4: 2, a9: 1}\n"  # a4 pooled (kept, not asked); a9 not pooled
    )
    before = len(server.requests)
    code, out, err = run_main(
        capsys, *POOL, "-o", "gold.yaml", "--cassette", "h.yaml", "--record-mode", "once",
        "--human", "human.yaml",
    )  # fmt: skip
    assert code == 0, err
    assert len(server.requests) - before == len(JUDGED) - 1  # qa/a4 is a person's
    gold = GoldSet.load(files / "gold.yaml")
    assert gold.grade_scale == (0, 3)  # the person's scale
    assert gold.queries["qa"].relevant == {"a4": 2, "a9": 1, "a1": 1, "a3": 2}
    assert sorted(gold.queries["qa"].provenance) == ["a1", "a3"]
    assert "a9" in gold.documents and gold.documents["a9"].text is None  # declared by id
    assert "  kept from human.yaml: 2 judgments" in out
    # the scale must be the person's; a person's query must be pooled from QUERIES
    code, _, err = run_main(
        capsys, *POOL, "-o", "x.yaml", "--cassette", "h.yaml", "--human", "human.yaml",
        "--grade-scale", "0", "4",
    )  # fmt: skip
    assert code == 2 and "--grade-scale 0 4 is not the scale of human.yaml, [0, 3]" in err
    (files / "human.yaml").write_text("version: 1\nqueries:\n  - id: q7\n    relevant: {a4: 1}\n")
    code, _, err = run_main(
        capsys, *POOL, "-o", "x.yaml", "--cassette", "h.yaml", "--human", "human.yaml"
    )
    assert code == 2 and "human.yaml: query 'q7' has judgments but is not in corpus.yaml" in err


def test_a_spent_budget_keeps_what_it_paid_for_and_a_resume_asks_only_the_rest(
    files: Path, capsys: pytest.CaptureFixture[str], server: FakeMessagesServer
) -> None:
    before = len(server.requests)
    record = ("-o", "gold.yaml", "--cassette", "b.yaml", "--max-concurrency", "1")
    code, _, err = run_main(capsys, *POOL, *record, "--record-mode", "once", "--max-requests", "2")
    assert code == 2 and not (files / "gold.yaml").exists()
    assert "--max-requests 2) is spent, and 3 of the 5 pooled judgments are still missing" in err
    assert len(server.requests) - before == 2
    code, _, err = run_main(capsys, *POOL, *record, "--record-mode", "new_episodes")
    assert code == 0, err
    assert len(server.requests) - before == 5  # the 2 paid for were not asked again


def test_what_the_pool_refuses(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (files / "gold.yaml").write_text("kept\n")
    code, _, err = run_main(capsys, *POOL, "-o", "gold.yaml", "--cassette", "c.yaml")
    assert code == 2 and "gold.yaml exists: give --force to replace it" in err
    assert (files / "gold.yaml").read_text() == "kept\n"
    (files / "other.trec").write_text("qa Q0 elsewhere 1 1.0 x\n")
    code, _, err = run_main(
        capsys, "pool", "corpus.yaml", "corpus.yaml", "other.trec", "-o", "new.yaml",
        "--cassette", "c.yaml",
    )  # fmt: skip
    assert code == 2 and "no pooled pair can be judged (1 pooled, 1 without a text)" in err
    code, _, err = run_main(capsys, *POOL, "-o", "new.yaml", "--cassette", "c.yaml", "--depth", "0")
    assert code == 2 and "must be a positive integer" in err


def test_the_cost_per_thousand_judgments_in_the_docs_is_the_price_tables() -> None:
    """docs/judge.md states what 1,000 graded judgments cost at the default model's price: the
    figures follow the prompt, the dry run's token estimate and judge/prices.py."""
    import re

    from pytest_tempoeval.judge.accounting import CHARS_PER_TOKEN, ESTIMATED_OUTPUT_TOKENS
    from pytest_tempoeval.judge.anthropic_judge import DEFAULT_MODEL
    from pytest_tempoeval.judge.prices import dollars, price_of

    page = (Path(__file__).parent.parent / "docs" / "judge.md").read_text(encoding="utf-8")
    prompt = graded_prompt("q" * 60, "d" * 1000)  # a 60-character query, a 1,000-character doc
    tokens = -(-len(prompt) // CHARS_PER_TOKEN), ESTIMATED_OUTPUT_TOKENS["grade"]
    price = price_of(DEFAULT_MODEL)
    assert price is not None
    live = dollars(price.cost(tokens[0] * 1000, tokens[1] * 1000))
    batch = dollars(price.cost(tokens[0] * 1000, tokens[1] * 1000, batch=True))
    text = " ".join(page.split())
    assert f"is a {len(prompt):,}-character seed prompt: {tokens[0]} input tokens" in text
    assert f"a reply of about {tokens[1]} output tokens" in text
    assert f"(`{DEFAULT_MODEL}`, priced as" in text
    assert f"${price.input:g} / ${price.output:g} per million tokens" in text
    match = re.search(r"cost about \*\*(\$[\d.]+) live and (\$[\d.]+) through batches\*\*", text)
    assert match is not None and match.groups() == (live, batch)
