"""Large TREC files are streamed in blocks, parsed on two threads: same results, exact lines."""

from pathlib import Path

import pytest

from pytest_tempoeval import GoldSet, Run, RunError, ndcg
from pytest_tempoeval.data.readers import trec_tokens


def run_lines(n_queries: int) -> list[str]:
    return [f"q{q} Q0 d{d:03d} {d} {float(d % 7)} t\n" for q in range(n_queries) for d in range(30)]


@pytest.fixture
def tiny_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 256 bytes: a small file crosses dozens of blocks and uses the thread pool."""
    monkeypatch.setattr(trec_tokens, "BLOCK_BYTES", 256)


def test_blocks_and_threads_give_the_same_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "run.trec"
    path.write_text("".join(run_lines(40)))
    whole = Run.load(path)
    monkeypatch.setattr(trec_tokens, "BLOCK_BYTES", 256)
    blocked = Run.load(path)
    assert {q: blocked[q] for q in blocked} == {q: whole[q] for q in whole}
    assert {q: blocked.scores(q) for q in blocked} == {q: whole.scores(q) for q in whole}
    gold = GoldSet.from_dict(
        {"queries": [{"id": f"q{q}", "relevant": {"d005": 2, "d013": 1}} for q in range(40)]}
    )
    assert ndcg(blocked, gold, k=10).per_query == ndcg(whole, gold, k=10).per_query


def test_an_error_in_a_late_block_names_its_absolute_line(
    tmp_path: Path, tiny_blocks: None
) -> None:
    lines = run_lines(20)
    lines[517] = "q17 Q0 d999 1 not-a-number t\n"
    path = tmp_path / "run.trec"
    path.write_text("".join(lines))
    with pytest.raises(RunError, match=r"run\.trec:518: score 'not-a-number' is not a number"):
        Run.load(path)


def test_a_wrong_field_count_in_a_late_block_names_its_line(
    tmp_path: Path, tiny_blocks: None
) -> None:
    lines = run_lines(20)
    lines[401] = "q13 Q0 d999 1 2.0\n"
    path = tmp_path / "run.trec"
    path.write_text("".join(lines))
    expected = r"run\.trec:402: expected at least 6 whitespace-separated fields"
    with pytest.raises(RunError, match=expected):
        Run.load(path)


def test_a_line_longer_than_a_block_still_reads(tmp_path: Path, tiny_blocks: None) -> None:
    long_id = "d" + "x" * 1000
    path = tmp_path / "run.trec"
    path.write_text("".join(run_lines(3)) + f"q9 Q0 {long_id} 1 3.5 t\n" + "q9 Q0 short 2 1.0 t")
    run = Run.load(path)
    assert run["q9"] == [long_id, "short"]
    assert run.line_of("q9") == 91
