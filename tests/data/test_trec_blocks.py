"""TREC files are streamed in blocks, parsed on two threads (large files) or one after the other
(a file of one BLOCK_BYTES block, in SEQUENTIAL_BLOCK_BYTES blocks): same results, exact lines."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_tempoeval import GoldSet, Run, RunError, ndcg
from pytest_tempoeval.data.readers import trec_tokens
from pytest_tempoeval.data.readers.trec_tokens.fields import PADDING, Problem


def run_lines(n_queries: int) -> list[str]:
    return [f"q{q} Q0 d{d:03d} {d} {float(d % 7)} t\n" for q in range(n_queries) for d in range(30)]


@pytest.fixture
def tiny_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 256 bytes: a small file crosses dozens of blocks and uses the thread pool."""
    monkeypatch.setattr(trec_tokens.pipeline, "BLOCK_BYTES", 256)


# Which block size a 256-byte block stands for: the thread pool's, or that of blocks read one after
# the other (a file under BLOCK_BYTES, as every file these tests write).
BLOCK_SIZES = {"threads": "BLOCK_BYTES", "sequence": "SEQUENTIAL_BLOCK_BYTES"}


@pytest.fixture(params=sorted(BLOCK_SIZES))
def small_blocks(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 256 bytes, parsed on the thread pool or one after the other."""
    monkeypatch.setattr(trec_tokens.pipeline, BLOCK_SIZES[request.param], 256)


def test_a_small_file_is_read_in_sequential_blocks_and_starts_no_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under BLOCK_BYTES, blocks of SEQUENTIAL_BLOCK_BYTES, each parsed before the next is read."""
    path = tmp_path / "run.trec"
    path.write_text("".join(run_lines(40)))
    parsed: list[int] = []
    parse_block = trec_tokens.pipeline._parse_block

    def recorded(*args: object) -> object:
        parsed.append(int(args[1]))  # type: ignore[call-overload]
        return parse_block(*args)  # type: ignore[arg-type]

    def no_threads(*args: object) -> None:
        raise AssertionError("a file under BLOCK_BYTES went to the thread pool")

    monkeypatch.setattr(trec_tokens.pipeline, "_parse_block", recorded)
    monkeypatch.setattr(trec_tokens.pipeline, "_parse_on_threads", no_threads)
    monkeypatch.setattr(trec_tokens.pipeline, "SEQUENTIAL_BLOCK_BYTES", 256)
    assert path.stat().st_size < trec_tokens.pipeline.BLOCK_BYTES
    run = Run.load(path)
    assert len(run) == 40
    assert len(parsed) > 50 and all(0 < end <= 256 for end in parsed)
    assert sum(parsed) == path.stat().st_size


@pytest.mark.parametrize("blocks", sorted(BLOCK_SIZES))
def test_blocks_and_threads_give_the_same_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, blocks: str
) -> None:
    path = tmp_path / "run.trec"
    path.write_text("".join(run_lines(40)))
    whole = Run.load(path)
    monkeypatch.setattr(trec_tokens.pipeline, BLOCK_SIZES[blocks], 256)
    blocked = Run.load(path)
    assert {q: blocked[q] for q in blocked} == {q: whole[q] for q in whole}
    assert {q: blocked.scores(q) for q in blocked} == {q: whole.scores(q) for q in whole}
    gold = GoldSet.from_dict(
        {"queries": [{"id": f"q{q}", "relevant": {"d005": 2, "d013": 1}} for q in range(40)]}
    )
    assert ndcg(blocked, gold, k=10).per_query == ndcg(whole, gold, k=10).per_query


def test_an_error_in_a_late_block_names_its_absolute_line(
    tmp_path: Path, small_blocks: None
) -> None:
    lines = run_lines(20)
    lines[517] = "q17 Q0 d999 1 not-a-number t\n"
    path = tmp_path / "run.trec"
    path.write_text("".join(lines))
    with pytest.raises(RunError, match=r"run\.trec:518: score 'not-a-number' is not a number"):
        Run.load(path)


def test_a_wrong_field_count_in_a_late_block_names_its_line(
    tmp_path: Path, small_blocks: None
) -> None:
    lines = run_lines(20)
    lines[401] = "q13 Q0 d999 1 2.0\n"
    path = tmp_path / "run.trec"
    path.write_text("".join(lines))
    expected = r"run\.trec:402: expected at least 6 whitespace-separated fields"
    with pytest.raises(RunError, match=expected):
        Run.load(path)


def test_a_line_longer_than_a_block_still_reads(tmp_path: Path, small_blocks: None) -> None:
    long_id = "d" + "x" * 1000
    path = tmp_path / "run.trec"
    path.write_text("".join(run_lines(3)) + f"q9 Q0 {long_id} 1 3.5 t\n" + "q9 Q0 short 2 1.0 t")
    run = Run.load(path)
    assert run["q9"] == [long_id, "short"]
    assert run.line_of("q9") == 91


def test_an_unexpected_failure_in_a_block_reaches_the_caller(
    tmp_path: Path, tiny_blocks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A block that raises (a bug, MemoryError) must not leave the blocks after it waiting on
    its row count forever: the pool's shutdown would hang instead of the error surfacing."""
    path = tmp_path / "run.trec"
    path.write_text("".join(run_lines(20)))
    calls = []
    regular_layout = trec_tokens.layout._regular_layout

    def failing_third_block(*args: object) -> object:
        calls.append(1)
        if len(calls) == 3:
            raise MemoryError("block three")
        return regular_layout(*args)

    monkeypatch.setattr(trec_tokens.layout, "_regular_layout", failing_third_block)
    with pytest.raises(MemoryError, match="block three"):
        Run.load(path)
    assert len(calls) >= 4  # the blocks after the failed one ran, and returned


ID_TEXT = st.text(alphabet="ab09-_.:/é", min_size=1, max_size=40)


@st.composite
def run_files(draw: st.DrawFn) -> list[str]:
    """Run lines of ids whose lengths vary from block to block, among blank and comment lines."""
    lines = []
    for _ in range(draw(st.integers(1, 60))):
        kind = draw(st.sampled_from(["row", "row", "row", "row", "blank", "comment"]))
        if kind == "blank":
            lines.append(draw(st.sampled_from(["", " ", "\t"])))
        elif kind == "comment":
            lines.append("# " + draw(ID_TEXT))
        else:
            query, doc = draw(ID_TEXT), draw(ID_TEXT)
            score = draw(st.sampled_from(["1", "-2.5", "0.125", "3e2", "12345.678901"]))
            blank = draw(st.sampled_from([" ", "\t", "  "]))
            lines.append(blank.join([query, "Q0", doc, "7", score, "tag"]))
    return lines


@settings(max_examples=60, deadline=None)
@given(
    lines=run_files(),
    block_bytes=st.integers(64, 700),
    final_newline=st.booleans(),
    blocks=st.sampled_from(sorted(BLOCK_SIZES)),
)
def test_blocks_written_in_place_hold_every_field_and_line(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[str],
    block_bytes: int,
    final_newline: bool,
    blocks: str,
) -> None:
    """Each block writes its rows where the block before it ends, and a block whose ids are longer
    than the first block's widens the columns: every field and line number is the one on the line
    (checked against str.split), whatever the block size."""
    if not any(line.split() and not line.startswith("#") for line in lines):
        lines.append("q Q0 d 1 1 t")
    path = tmp_path_factory.mktemp("blocks") / "run.trec"
    path.write_text("\n".join(lines) + ("\n" if final_newline else ""), encoding="utf-8")
    layout = trec_tokens.LineFormat(
        6, (0, 2), {4: ("score", trec_tokens.parse_float_words, "a number")}, "run", True
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(trec_tokens.pipeline, BLOCK_SIZES[blocks], block_bytes)
        fields = trec_tokens.read_fields(path, layout, RunError)
    expected = [
        (number, line.split())
        for number, line in enumerate(lines, start=1)
        if line.split() and not line.startswith("#")
    ]
    assert fields.line_numbers.tolist() == [number for number, _ in expected]
    assert [text.decode() for text in fields.text(0)] == [split[0] for _, split in expected]
    assert [text.decode() for text in fields.text(2)] == [split[2] for _, split in expected]
    assert fields.numbers[4].tolist() == [float(split[4]) for _, split in expected]
    # Every row with a non-ASCII id is among those UTF-8 checks decode (a comment's bytes may add
    # the row before it, which decodes fine).
    non_ascii = {row for row, (_, split) in enumerate(expected) if not " ".join(split).isascii()}
    assert non_ascii <= set(fields.non_ascii_rows.tolist())


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.lists(st.text(alphabet="ab1.-é", min_size=1, max_size=12), min_size=4, max_size=4)),
    st.sampled_from([" ", "\t"]),
)
def test_the_regular_layout_finds_the_fields_the_general_one_finds(
    rows: list[list[str]], blank: str
) -> None:
    """The fast path for one blank between fields is a twin of the general path: on the files it
    accepts, the same lines, the same field starts and lengths."""
    text = "".join(blank.join(row) + "\n" for row in rows).encode() or b"\n"
    buffer = np.frombuffer(text + bytes(PADDING), dtype=np.uint8).copy()
    is_blank = buffer[: len(text)] <= 32
    blanks = np.flatnonzero(is_blank)
    fast = trec_tokens.layout._regular_layout(buffer, len(text), is_blank, blanks, 4)
    general = trec_tokens.layout._general_layout(
        buffer, len(text), blanks, trec_tokens.LineFormat(4, (0, 1, 2, 3), {}, "test")
    )
    assert (fast is None) == (not rows)
    if fast is not None:
        assert not isinstance(general, Problem)
        assert fast[0].tolist() == general[0].tolist()
        assert fast[2] == general[2]
        for field in range(4):
            assert [bound.tolist() for bound in fast[1][field]] == [
                bound.tolist() for bound in general[1][field]
            ]


def test_a_fields_bounds_are_computed_once() -> None:
    """The widths and the writing of a block both read a field's bounds: computed on the first
    read, kept for the second."""
    computed: list[int] = []

    def compute(field: int) -> tuple[np.ndarray, np.ndarray]:
        computed.append(field)
        return np.array([field]), np.array([1])

    bounds = trec_tokens.layout.FieldBounds(compute)
    first, again = bounds[2], bounds[2]
    assert first is again and computed == [2]
    assert bounds[0][0].tolist() == [0] and computed == [2, 0]
