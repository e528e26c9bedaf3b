"""The columnar primitives behind the joins, checked against plain Python dicts and float()."""

import itertools
from collections.abc import Callable
from decimal import Decimal
from unittest import mock

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pytest_tempoeval import GoldSet, Run, ndcg
from pytest_tempoeval.data import columns
from pytest_tempoeval.data.columns import (
    IdLookup,
    count_per_group,
    duplicate_pairs,
    encode_ids,
    group_rows,
    hash_words,
    id_words,
    id_words_of,
    join_within_groups,
    same_group_as_next,
    sort_within_groups,
    words_to_ids,
)
from pytest_tempoeval.data.columns import ids as ids_module
from pytest_tempoeval.data.columns import join as join_module
from pytest_tempoeval.data.columns import keys as keys_module
from pytest_tempoeval.data.columns import lookup as lookup_module
from pytest_tempoeval.data.columns.grouped import group_rows_reference, sort_within_groups_reference
from pytest_tempoeval.data.columns.ids import id_words_reference
from pytest_tempoeval.data.columns.join import (
    duplicate_pairs_reference,
    join_within_groups_reference,
)
from pytest_tempoeval.data.columns.keys import hash_words_reference
from pytest_tempoeval.data.columns.lookup import find_reference
from pytest_tempoeval.data.columns.order import runs_of_true_reference, trec_eval_order_reference
from pytest_tempoeval.data.readers.trec_tokens import parse_floats, parse_ints
from pytest_tempoeval.data.readers.trec_tokens.numbers import (
    parse_float_reference,
    parse_int_reference,
)


def zeros(n: int) -> np.ndarray:
    return np.zeros(n, dtype=np.uint64)


IDS = st.text(alphabet="ab01é-_文", min_size=1, max_size=20)


def encoded(groups: list[list[str]]) -> list[list[bytes]]:
    return [[value.encode() for value in group] for group in groups]


# The corners of the id lookups, pinned (100 drawn cases each, not 200): nothing stored, nothing
# asked, an asked id longer than every stored one, a one-word id and its one-byte-longer twin,
# multi-byte characters, with every hash colliding.
LOOKUP_EDGES = [
    ([], ["a", "b"]),
    (["a", "b"], []),
    (["ab", "a"], ["a" * 20, "ab", "b", "abx"]),
    (["x" * 8, "x" * 9, "文é"], ["x" * 9, "x" * 8, "x" * 10, "文é", "文"]),
]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(IDS, unique=True, max_size=60),
    st.lists(IDS, max_size=60),
    st.sampled_from(["real", "all equal", "two values"]),
)
@example(*LOOKUP_EDGES[0], "real")
@example(*LOOKUP_EDGES[1], "all equal")
@example(*LOOKUP_EDGES[2], "all equal")
@example(*LOOKUP_EDGES[3], "two values")
def test_id_lookup_finds_exactly_what_a_dict_finds(
    stored: list[str], asked: list[str], hashes: str
) -> None:
    """Asked ids longer than any stored one included, and with hashes that collide: all of them,
    or half of them, so that a run of equal hash bits must be walked past wrong candidates."""
    expected = find_reference([value.encode() for value in stored], [v.encode() for v in asked])
    fake = {
        "all equal": lambda words, salt=None: zeros(len(words)),
        "two values": lambda words, salt=None: (words[:, 0] & np.uint64(1 << 56)) << np.uint64(7),
    }
    with mock.patch.object(lookup_module, "hash_words", fake.get(hashes, hash_words)):
        lookup = IdLookup(id_words(encode_ids(stored or ["unused"])[: len(stored)]))
        assert lookup.find(id_words(encode_ids(asked or ["a"])[: len(asked)])).tolist() == expected


@settings(max_examples=100, deadline=None)
@given(
    st.lists(IDS, unique=True, max_size=60),
    st.lists(IDS, max_size=60),
    st.sampled_from(["real", "all equal", "two values"]),
    st.sampled_from([0, 1, 3, 1 << 20]),
)
@example(*LOOKUP_EDGES[0], "real", 1 << 20)
@example(*LOOKUP_EDGES[1], "all equal", 1)
@example(*LOOKUP_EDGES[2], "all equal", 3)
@example(*LOOKUP_EDGES[3], "two values", 1 << 20)
@example(*LOOKUP_EDGES[3], "real", 0)
def test_id_lookup_with_or_without_its_table_finds_what_a_dict_finds(
    stored: list[str], asked: list[str], hashes: str, table_max_ids: int
) -> None:
    """The direct-mapped table answers the asks whose slot holds their id, an empty slot says
    absent, and the rest (an id that lost its slot, an ask whose slot holds another) go to the
    sorted keys; without the table (too many ids for the caches) the sorted keys take all. With
    colliding hashes, most ids lose their slot."""
    expected = find_reference([value.encode() for value in stored], [v.encode() for v in asked])
    fake = {
        "all equal": lambda words, salt=None: zeros(len(words)),
        "two values": lambda words, salt=None: (words[:, 0] & np.uint64(1 << 56)) << np.uint64(7),
    }
    with (
        mock.patch.object(lookup_module, "hash_words", fake.get(hashes, hash_words)),
        mock.patch.object(lookup_module, "_TABLE_MAX_IDS", table_max_ids),
    ):
        lookup = IdLookup(id_words(encode_ids(stored or ["unused"])[: len(stored)]))
        assert (lookup.table is not None) == (0 < len(stored) <= table_max_ids)
        assert lookup.find(id_words(encode_ids(asked or ["a"])[: len(asked)])).tolist() == expected


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "ab", "é", "x" * 9]), min_size=1, max_size=30))
def test_id_lookup_of_repeated_stored_ids_finds_one_of_them(stored: list[str]) -> None:
    """Judged ids are stored once per judgment (alignment's known-ids lookup): whichever row a
    find gives holds the asked id, and an id never stored is absent."""
    lookup = IdLookup(id_words(encode_ids(stored)))
    asked = ["a", "b", "ab", "é", "x" * 9, "zz"]
    rows = lookup.find(id_words(encode_ids(asked))).tolist()
    assert [stored[row] if row >= 0 else None for row in rows] == [
        value if value in stored else None for value in asked
    ]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.text(min_size=0, max_size=20)),
    st.sampled_from([1 << 16, 3, 1]),
)
# Pinned corners (100 drawn cases, not 200): no id; empty, newline, NUL and long non-ASCII ids in
# blocks of 3; one- and two-word ids a byte apart, a row per block.
@example([], 1)
@example(["", "a\nb", "\x00", "é" * 10], 3)
@example(["x" * 8, "x" * 9], 1)
def test_id_words_of_strings_equal_id_words_of_their_encoding(
    ids: list[str], block_rows: int
) -> None:
    """Any text (newlines, NUL, non-ASCII, empty, several words long) gives the words of its UTF-8
    bytes, read in blocks of any size: the same as building the S array first."""
    with mock.patch.object(ids_module, "_WORDS_BLOCK_ROWS", block_rows):
        words = id_words_of(ids)
    expected = id_words(encode_ids(ids))
    assert words.shape == expected.shape and words.tolist() == expected.tolist()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=12)), st.sampled_from([1 << 20, 8, 1]))
def test_encode_ids_equals_encoding_each_id(ids: list[str], cut_cells: int) -> None:
    """Any text (newlines, NUL-free or not, non-ASCII) comes out as each id's UTF-8 bytes, also
    when short ids are cut in many small blocks."""
    with mock.patch.object(ids_module, "_CUT_CELLS", cut_cells):
        encoded = encode_ids(ids)
    assert encoded.tolist() == [value.encode("utf-8").rstrip(b"\0") for value in ids]
    assert encoded.dtype.itemsize == max([len(value.encode("utf-8")) for value in ids] + [1])


def test_ids_round_trip_through_words_in_byte_order() -> None:
    ids = encode_ids(["b", "a", "ab", "aé", "文書", "x" * 17])
    words = id_words(ids)
    assert words_to_ids(words, ids.dtype.itemsize).tolist() == ids.tolist()
    by_words = sorted(range(len(ids)), key=lambda i: tuple(words[i]))
    assert [ids[i] for i in by_words] == sorted(ids.tolist())  # word order is strcmp order


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.lists(IDS, unique=True, max_size=8), st.lists(IDS, unique=True, max_size=8)),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from([1 << 20, 3, 1]),
    st.booleans(),
)
# Pinned corners (100 drawn cases, not 200): empty groups on either side, first and last; the same
# ids in other groups only; ids of one word, of two, and one byte apart; chunks of one row.
@example([([], ["a"]), (["a", "b"], []), (["a"], ["a", "b"])], 1, True)
@example([(["x" * 8, "x" * 9], ["x" * 9, "x" * 8, "x" * 10]), (["a"], ["b"]), ([], [])], 3, False)
@example([(["文é", "a"], ["a"]), (["a"], ["文é"])], 1 << 20, True)
def test_join_within_groups_equals_per_group_dicts(
    pairs: list[tuple[list[str], list[str]]],
    chunk_rows: int,
    colliding: bool,
) -> None:
    """Exact for any chunking, and when every hash collides."""
    left_groups = [left for left, _ in pairs]
    right_groups = [right for _, right in pairs]
    left = [doc for group in left_groups for doc in group]
    right = [doc for group in right_groups for doc in group]
    left_counts = np.array([len(g) for g in left_groups], dtype=np.int64)
    right_offsets = np.cumsum([0] + [len(g) for g in right_groups])
    right_of = np.repeat(np.arange(len(right_groups)), [len(g) for g in right_groups])
    right_words = id_words(encode_ids(right))
    left_words = id_words(encode_ids(left))
    if colliding:  # every hash the same: only the verification on the full ids tells rows apart
        with mock.patch.object(
            join_module, "hash_words", lambda words, salt=None: zeros(len(words))
        ):
            found = join_within_groups(
                left_counts, left_words, right_offsets, right_words, zeros(len(right)), chunk_rows
            )
    else:
        hashes = hash_words(right_words, right_of)
        found = join_within_groups(
            left_counts, left_words, right_offsets, right_words, hashes, chunk_rows
        )
    expected = join_within_groups_reference(encoded(left_groups), encoded(right_groups))
    assert found.tolist() == expected


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 2**64 - 1) | st.just(2**64 - 1), max_size=300), max_size=12)
)
# Pinned corners (100 drawn cases, not 200): no group; one empty group; values equal to the
# padding; groups of widths 0, 1, 2 and 300 side by side, the longest in reverse order.
@example([])
@example([[]])
@example([[2**64 - 1, 0, 2**64 - 1]])
@example([[5, 3], [], [2**64 - 1], list(range(300, 0, -1))])
def test_sort_within_groups_equals_sorting_each_group(groups: list[list[int]]) -> None:
    """Any group sizes (padded rows of several widths), and values equal to the padding."""
    offsets = np.cumsum([0] + [len(group) for group in groups])
    values = np.array([value for group in groups for value in group], dtype=np.uint64)
    sort_within_groups(values, offsets)
    assert values.tolist() == sort_within_groups_reference(groups)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(["a", "b", "d1", "x" * 9, "x" * 9 + "y"]), max_size=9)),
    st.sampled_from([1, 3, 1 << 20]),
    st.booleans(),
)
# Pinned corners (100 drawn cases, not 200): no group; empty groups; a repeat across groups only;
# repeats of a two-word id beside its one-byte-longer twin, chunked by one row, hashes colliding.
@example([], 1, False)
@example([[], ["a"], []], 3, True)
@example([["a", "b"], ["a", "b"]], 1, True)
@example([["x" * 9, "x" * 9 + "y", "x" * 9, "a", "x" * 9 + "y"], ["d1", "d1", "d1"]], 1, True)
def test_duplicate_pairs_equal_a_dict_per_group(
    groups: list[list[str]], chunk_rows: int, colliding: bool
) -> None:
    """One-word and longer ids, any chunking, and every hash colliding: (first row, repeated
    row) for each repeat within its group, never across groups."""
    offsets = np.cumsum([0] + [len(group) for group in groups])
    words = id_words(encode_ids([doc for group in groups for doc in group] or ["a"]))
    words = words[: int(offsets[-1])]
    expected = duplicate_pairs_reference(encoded(groups))
    if colliding:
        with mock.patch.object(
            join_module, "hash_words", lambda words, salt=None: zeros(len(words))
        ):
            found = duplicate_pairs(offsets, words, chunk_rows)
    else:
        found = duplicate_pairs(offsets, words, chunk_rows)
    assert sorted(found) == sorted(expected)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.booleans(), max_size=6), min_size=1, max_size=8))
# Pinned corners (100 drawn cases, not 200): one empty group; empty groups first and last; a group
# of all False beside one of all True.
@example([[]])
@example([[], [True], []])
@example([[False] * 6, [True] * 6])
def test_group_helpers_equal_a_per_row_group_column(groups: list[list[bool]]) -> None:
    """Empty groups anywhere, first and last included."""
    offsets = np.cumsum([0] + [len(group) for group in groups])
    row_group = [g for g, group in enumerate(groups) for _ in group]
    flags = np.array([flag for group in groups for flag in group], dtype=bool)
    assert count_per_group(flags, offsets).tolist() == [sum(group) for group in groups]
    expected = [a == b for a, b in itertools.pairwise(row_group)]
    assert same_group_as_next(offsets).tolist() == expected


def test_duplicate_pairs_are_exact_and_within_groups() -> None:
    offsets = np.array([0, 3, 6])
    words = id_words(encode_ids(["a", "b", "a", "a", "c", "c"]))
    assert duplicate_pairs(offsets, words) == [(0, 2), (4, 5)]
    assert duplicate_pairs(offsets, words, chunk_rows=2) == [(0, 2), (4, 5)]  # chunks end on groups


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(
        st.floats(allow_nan=False, allow_infinity=False),
        st.decimals(allow_nan=False, allow_infinity=False, places=4),
    )
)
# Pinned corners (150 drawn cases, not 300): both zeros, the largest and the smallest doubles, a
# short decimal, a long one, and 0.1 (not exact in binary).
@example(0.0)
@example(-0.0)
@example(1.7976931348623157e308)
@example(5e-324)
@example(Decimal("0.0001"))
@example(Decimal("-1234567.8901"))
@example(0.1)
def test_parse_floats_equals_python_float(value: object) -> None:
    text = str(value).encode()
    assert parse_floats(np.array([text, b"1.5"])).tolist()[0] == float(text)


def parsed_like_the_reference(
    parse: Callable[[np.ndarray], np.ndarray],
    reference: Callable[[bytes], float],
    text: str,
    companion: bytes,
) -> None:
    """``parse`` reads ``text`` (after ``companion``) as ``reference`` does, or refuses it at its
    row when ``reference`` refuses it."""
    values = np.array([companion, text.encode()])
    try:
        expected = reference(text.encode())
    except ValueError:
        with pytest.raises(ValueError) as refused:
            parse(values)
        assert refused.value.args == (1,)
    else:
        assert repr(parse(values).tolist()[1]) == repr(expected)  # -0.0 stays -0.0


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="0123456789.+-", min_size=1, max_size=8))
# Pinned corners (150 drawn cases, not 300): signs and dots alone or doubled, a leading or trailing
# dot, leading zeros, a sign inside, all 8 bytes of digits.
@example("-0")
@example("+.5")
@example(".")
@example("-")
@example("1.")
@example("00.10")
@example("1-2")
@example("+-1")
@example("12345678")
def test_short_numbers_parse_as_float_does_or_are_refused(text: str) -> None:
    """Numbers of up to 8 bytes take the word-at-a-time path: signs, a leading or trailing dot,
    leading zeros; anything float() refuses is refused at its row."""
    parsed_like_the_reference(parse_floats, float, text, b"1")


def test_long_judgment_lists_against_a_short_ranking() -> None:
    # 300 judgments against a 2-document ranking: one group far longer than the other side
    relevant = {f"d{i}": 1 + i % 3 for i in range(300)}
    gold = GoldSet.from_dict({"queries": [{"id": "q", "relevant": relevant}]})
    result = ndcg(Run({"q": ["d299", "zzz"]}), gold, k=2)
    grades = sorted(relevant.values(), reverse=True)
    assert result.per_query["q"] == pytest.approx(
        (relevant["d299"]) / (grades[0] + grades[1] / np.log2(3))
    )


@settings(max_examples=100, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=40))
# Pinned corners (100 drawn cases, not 200): one flag either way; all 40 True; alternating; a run at
# the end.
@example([True])
@example([False])
@example([True] * 40)
@example([True, False] * 20)
@example([False, True, True])
def test_runs_of_true_equal_groupby(flags: list[bool]) -> None:
    """k tied neighbours join k + 1 rows."""
    starts, lengths = columns._runs_of_true(np.array(flags))
    assert list(zip(starts.tolist(), lengths.tolist())) == runs_of_true_reference(flags)


def test_a_tie_longer_than_an_int16_is_ordered_by_doc_id() -> None:
    """40,000 documents with one score between short tie runs, sorted by score as systems write
    them: only the ties are out of order, so each run of ties is sorted on its own."""
    docs = [f"d{i}" for i in range(40_000)]
    order = np.random.default_rng(0).permutation(len(docs))
    ranking = {"a": 2.0, "b": 2.0, **{docs[i]: 1.0 for i in order}, "x": 0.5, "z": 0.5, "y": 0.5}
    run = Run({"q": ranking})
    expected = ["b", "a", *sorted(docs, key=lambda d: d.encode(), reverse=True), "z", "y", "x"]
    assert run["q"] == expected


@settings(max_examples=50, deadline=None)
@given(
    rankings=st.lists(
        st.lists(
            st.tuples(IDS, st.sampled_from([0.0, 0.5, 1.0, 2.0])), min_size=1, max_size=12
        ).map(lambda pairs: list(dict(pairs).items())),
        min_size=1,
        max_size=12,
    ),
    presorted=st.lists(st.booleans(), min_size=12, max_size=12),
    chunk_rows=st.integers(1, 30),
)
# Pinned corners (50 drawn cases, not 100): one query of one row; every score tied, sorted in place
# and fully; ids of one word and of two one byte apart; chunks of one row and wider than the run.
@example(rankings=[[("a", 0.0)]], presorted=[True] * 12, chunk_rows=1)
@example(
    rankings=[[("b", 1.0), ("a", 1.0), ("c", 1.0)], [("a", 0.5), ("b", 0.5)]],
    presorted=[True, False] + [True] * 10,
    chunk_rows=1,
)
@example(
    rankings=[[("x" * 8, 2.0), ("x" * 9, 2.0), ("a", 0.0), ("x" * 9 + "y", 2.0)]] * 3,
    presorted=[False, True, False] + [True] * 9,
    chunk_rows=30,
)
def test_trec_eval_order_in_chunks_of_queries(
    rankings: list[list[tuple[str, float]]], presorted: list[bool], chunk_rows: int
) -> None:
    """Queries are ordered in chunks on two threads: each query ends up score descending, ties by
    doc id descending, whether its chunk is sorted in place (ties only) or fully (unsorted)."""
    rankings = [
        sorted(pairs, key=lambda pair: -pair[1]) if ordered else pairs
        for pairs, ordered in zip(rankings, presorted)
    ]
    offsets = np.cumsum([0, *map(len, rankings)])
    ids = np.array([doc.encode() for pairs in rankings for doc, _ in pairs])
    scores = np.array([score for pairs in rankings for _, score in pairs])
    words, ordered_scores = columns.trec_eval_order(
        offsets, scores, id_words(ids), min_chunk_rows=chunk_rows
    )
    got = [doc.decode() for doc in words_to_ids(words, ids.dtype.itemsize)]
    ordered = trec_eval_order_reference(
        [[(doc.encode(), score) for doc, score in pairs] for pairs in rankings]
    )
    assert got == [doc.decode() for pairs in ordered for doc, _ in pairs]
    score_of = [dict(pairs) for pairs in rankings]
    query_of_row = np.repeat(np.arange(len(rankings)), np.diff(offsets))
    assert ordered_scores.tolist() == [
        score_of[query][doc] for query, doc in zip(query_of_row.tolist(), got)
    ]


@pytest.mark.parametrize("salted", [False, True])
def test_hash_words_in_blocks_equals_one_block(salted: bool) -> None:
    """Rows are hashed a block at a time; each row's hash is the same as in one piece (a last
    block shorter than the others included)."""
    rng = np.random.default_rng(7)
    words = rng.integers(0, 2**63, size=(1000, 3), dtype=np.uint64)
    salt = rng.integers(0, 50, size=1000) if salted else None
    whole = hash_words(words, salt)
    with mock.patch.object(keys_module, "_HASH_BLOCK_ROWS", 64):
        blocked = hash_words(words, salt)
    assert blocked.tolist() == whole.tolist()
    assert len(set(whole.tolist())) == 1000  # distinct rows, distinct hashes here
    single = [
        int(hash_words(words[i : i + 1], None if salt is None else salt[i : i + 1])[0])
        for i in (0, 63, 64, 999)
    ]
    assert single == [int(whole[i]) for i in (0, 63, 64, 999)]


# -- the reference implementations (plain Python, beside the fast code) against their fast twins --


@settings(max_examples=100, deadline=None)
@given(st.lists(IDS, min_size=1, max_size=30))
# Pinned corners (100 drawn cases, not 200): one byte; ids of exactly one word and one byte more;
# a multi-byte id spanning three words.
@example(["a"])
@example(["x" * 8, "x" * 9, "文" * 7])
@example(["é"])
def test_id_words_equal_int_from_bytes(ids: list[str]) -> None:
    """The id-word layout: big-endian 8-byte words of the zero-padded UTF-8 bytes."""
    reference = id_words_reference([value.encode() for value in ids])
    assert [tuple(row) for row in id_words(encode_ids(ids)).tolist()] == reference


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 4).flatmap(
        lambda n_words: st.lists(
            st.tuples(*[st.integers(0, 2**64 - 1)] * n_words), min_size=1, max_size=40
        )
    ),
    st.booleans(),
    st.data(),
)
def test_hash_words_equals_the_python_loop(
    rows: list[tuple[int, ...]], salted: bool, data: st.DataObject
) -> None:
    salt = data.draw(st.lists(st.integers(0, 2**40), min_size=len(rows), max_size=len(rows)))
    words = np.array(rows, dtype=np.uint64)
    found = hash_words(words, np.array(salt) if salted else None)
    assert found.tolist() == hash_words_reference(rows, salt if salted else None)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["q1", "q2", "q10", "x" * 9, "x" * 9 + "y"]), min_size=1))
# Pinned corners (100 drawn cases, not 200): one row; a query's lines apart; two-word ids beside a
# one-byte-longer twin; ids that sort apart from their first appearance.
@example(["q1"])
@example(["q1", "q2", "q1"])
@example(["x" * 9, "x" * 9 + "y", "x" * 9])
@example(["q10", "q1", "q10", "q2"])
def test_group_rows_equals_a_dict_of_rows(queries: list[str]) -> None:
    """Queries in order of first appearance, each query's rows in file order, whether the file
    keeps each query's lines together or not."""
    ids = encode_ids(queries)
    grouping = group_rows(id_words(ids), ids.dtype.itemsize)
    keys, rows, offsets = group_rows_reference([value.encode() for value in queries])
    assert grouping.keys == keys
    order = range(len(queries)) if grouping.order is None else grouping.order.tolist()
    assert list(order) == rows
    assert grouping.offsets.tolist() == offsets


@settings(max_examples=150, deadline=None)
@given(
    st.text(alphabet="0123456789+-x ", min_size=1, max_size=8)
    | st.from_regex(r"[+-]?9[0-9]{15,19}", fullmatch=True),  # around the most digits an int64 holds
    st.sampled_from([b"7", b"-12"]),  # one byte per grade (a fast path), or longer
)
# Pinned corners (150 drawn cases, not 300): 18 digits (the most read) and 19 (refused), signed;
# a sign alone; zeros; a blank or a letter beside digits; both companions.
@example("999999999999999999", b"7")
@example("-999999999999999999", b"-12")
@example("+9999999999999999999", b"7")
@example("9999999999999999999", b"-12")
@example("-", b"7")
@example("+", b"-12")
@example("-0", b"7")
@example("00", b"-12")
@example(" 1", b"7")
@example("1 ", b"-12")
@example("1x", b"7")
def test_parse_ints_equals_the_reference_or_refuses(text: str, companion: bytes) -> None:
    parsed_like_the_reference(parse_ints, parse_int_reference, text, companion)


@settings(max_examples=150, deadline=None)
@given(
    st.text(alphabet="0123456789.+-eE_ nainfé", min_size=1, max_size=20),
    st.sampled_from([b"1", b"123456789.5"]),  # one word (SWAR), or the byte-column path
)
# Pinned corners (150 drawn cases, not 300): an overflow, nan and inf, a negative zero, an
# underscore, blanks, a bare dot either side, a non-ASCII byte, 20 digits; both companions.
@example("1e309", b"1")
@example("nan", b"123456789.5")
@example("-inf", b"1")
@example("-0", b"123456789.5")
@example("1_0", b"1")
@example(" 1", b"123456789.5")
@example("1.", b"1")
@example(".5", b"123456789.5")
@example("é", b"1")
@example("12345678901234567890", b"123456789.5")
def test_parse_floats_equal_the_reference_or_refuse(text: str, companion: bytes) -> None:
    """Every path (one-word SWAR, byte columns, Python's float for the rest) reads a number as
    the one-value reference does, and refuses what it refuses, at its row."""
    parsed_like_the_reference(parse_floats, parse_float_reference, text, companion)
