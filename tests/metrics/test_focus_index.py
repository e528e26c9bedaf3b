"""The focus-time index's fast paths against plain computations with ``FocusTime.jaccard``.

The index computes Jaccard on first and last years when every focus time is one run of years, and
on year bits otherwise; it reads the pool from the overlapping pairs only; it codes focus times by
their intern keys, or by their years when one is not interned; and it joins retrieved ranks as deep
as a measure reads, deepening later. Each is compared here, exactly, with a loop over documents
that calls ``FocusTime.jaccard``, on random gold sets and runs of both kinds.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_tempoeval import FocusTime, GoldDocument, GoldQuery, GoldSet, Run
from pytest_tempoeval.data import focus_time as focus_time_module
from pytest_tempoeval.metrics import focus_index as focus_index_module
from pytest_tempoeval.metrics.focus_index import focus_index, focus_pool
from pytest_tempoeval.metrics.jaccard import NO_FIRST, NO_LAST, run_jaccard, year_runs
from pytest_tempoeval.metrics.relevance import focus_time_relevance


@contextmanager
def fresh_intern_table() -> Iterator[None]:
    """An empty intern table, so that the focus times built inside are interned whatever ran
    before in this process (a full table interns nothing more). Everything inside must use only
    focus times built inside: a key names a place in the table it was made with."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(focus_time_module, "_INTERNED", {})
        patch.setattr(focus_time_module, "_INTERNED_IN_ORDER", [])
        yield


def random_focus_time(rng: np.random.Generator, gaps: bool) -> FocusTime | None:
    """None, empty, a run of years (mostly short, sometimes a century), or a set with gaps."""
    kind = rng.integers(0, 10)
    if kind == 0:
        return None
    if kind == 1:
        return FocusTime()
    start = int(rng.integers(1990, 2010))  # a narrow span: many overlap, touch, or just miss
    if gaps and kind >= 8:
        return FocusTime(int(year) for year in start + rng.choice(90, size=3, replace=False))
    length = int(rng.integers(60, 120)) if kind == 2 else int(rng.integers(1, 6))
    return FocusTime.from_range(start, start + length - 1)


def random_gold(rng: np.random.Generator, gaps: bool, n_queries: int, n_docs: int) -> GoldSet:
    queries = [
        GoldQuery(f"q{i}", focus_time=random_focus_time(rng, gaps)) for i in range(n_queries)
    ]
    documents = [
        GoldDocument(f"d{i}", focus_time=random_focus_time(rng, gaps)) for i in range(n_docs)
    ]
    return GoldSet(queries=queries, documents=documents)


def reference_pool(gold: GoldSet, depth: int, threshold: float) -> tuple[list, list]:
    """Per query: the ``depth`` best 4 x Jaccard over the gold documents (zeros after), and how
    many documents are relevant (Jaccard above the threshold, or above 0)."""
    pooled = [doc.focus_time for doc in gold.documents.values() if doc.focus_time]
    ideal, n_relevant = [], []
    for query in gold.queries.values():
        similarities = [query.focus_time.jaccard(ft) for ft in pooled] if query.focus_time else []
        best = sorted((4.0 * value for value in similarities), reverse=True)[:depth]
        ideal.append(best + [0.0] * (depth - len(best)))
        n_relevant.append(sum(value > threshold for value in similarities))
    return ideal, n_relevant


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.booleans(),
    st.integers(1, 12),
    st.sampled_from([0.0, 0.2, 0.5]),
)
def test_the_pool_equals_a_plain_computation(
    seed: int, gaps: bool, depth: int, threshold: float
) -> None:
    """Runs of years take the overlapping-slices path, sets with gaps the bitset table: both give
    the plain loop's ideal relevances and relevant counts, to the last bit."""
    rng = np.random.default_rng(seed)
    with fresh_intern_table():
        gold = random_gold(rng, gaps, int(rng.integers(1, 25)), int(rng.integers(0, 60)))
        ideal, n_relevant = focus_pool(gold, depth, threshold)
    expected_ideal, expected_relevant = reference_pool(gold, depth, threshold)
    assert ideal.tolist() == expected_ideal
    assert n_relevant.tolist() == expected_relevant


def test_both_pool_paths_are_taken() -> None:
    """The property above reaches both forms: a gold set of runs only, and one with a gap."""
    runs = GoldSet(
        queries=[GoldQuery("q", focus_time=FocusTime.from_range(1990, 1999))],
        documents=[GoldDocument("d", focus_time=FocusTime.from_range(1995, 2004))],
    )
    gapped = GoldSet(
        queries=[GoldQuery("q", focus_time=FocusTime([1990, 1999]))],
        documents=[GoldDocument("d", focus_time=FocusTime.from_range(1995, 2004))],
    )
    assert focus_index(runs).runs and not focus_index(gapped).runs
    # 1990-1999 and 1995-2004 share 5 of 15 years; {1990, 1999} and 1995-2004 share 1 of 11
    assert focus_pool(runs, 2, 0.0)[0].tolist() == [[4 * 5 / 15, 0.0]]
    assert focus_pool(gapped, 2, 0.0)[0].tolist() == [[4 * 1 / 11, 0.0]]


def test_a_document_that_just_touches_or_just_misses_the_query_is_pooled_as_such() -> None:
    """The slice of codes that can overlap a query's run starts ``longest - 1`` years before it:
    the longest document ending on the query's first year overlaps it by one year, and one ending
    the year before does not."""
    query = GoldQuery("q", focus_time=FocusTime.from_range(2000, 2004))
    touching = [
        GoldDocument("touches", focus_time=FocusTime.from_range(1990, 2000)),  # the longest
        GoldDocument("misses", focus_time=FocusTime.from_range(1989, 1999)),
        GoldDocument("after", focus_time=FocusTime.from_range(2004, 2006)),
        GoldDocument("beyond", focus_time=FocusTime.from_range(2005, 2006)),
    ]
    gold = GoldSet(queries=[query], documents=touching)
    ideal, n_relevant = focus_pool(gold, 3, 0.0)
    # after: 1 of 7 years shared; touches: 1 of 15
    assert ideal.tolist() == [[4 * 1 / 7, 4 * 1 / 15, 0.0]] and n_relevant.tolist() == [2]


def reference_relevance(run_rankings: dict, texts: dict, gold: GoldSet, depth: int) -> tuple:
    """Per gold query and rank: 4 x Jaccard with the document's focus time (the gold set's, else
    read from its text in the run), and whether that focus time is known."""
    relevance, known = [], []
    for query in gold.queries.values():
        ranking = run_rankings.get(query.id, [])[:depth]
        row_relevance, row_known = [0.0] * depth, [False] * depth
        for rank, doc in enumerate(ranking):
            if doc in gold.documents:
                focus = gold.documents[doc].focus_time
            else:
                focus = FocusTime.from_text(texts[doc]) if doc in texts else None
            if focus:
                row_known[rank] = True
                if query.focus_time:
                    row_relevance[rank] = 4.0 * query.focus_time.jaccard(focus)
        relevance.append(row_relevance)
        known.append(row_known)
    return relevance, known


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans(), st.integers(1, 6), st.integers(1, 6))
def test_retrieved_relevance_equals_a_plain_computation(
    seed: int, gaps: bool, first_depth: int, more: int
) -> None:
    """Gold documents, ids the gold set lacks, and ids whose text in the run gives a focus time
    (a run of years, or years with a gap: the extra codes after the universe), read at one depth
    and then deeper on the same run (only the new ranks are joined)."""
    rng = np.random.default_rng(seed)
    texts = {
        "t0": "Written about 1995 to 1998.",
        "t1": "Events of 2001 and 2003.",  # a gap: the years' bits, even if the gold's are runs
        "t2": "A text with no year.",
    }
    with fresh_intern_table():
        gold = random_gold(rng, gaps, int(rng.integers(1, 12)), int(rng.integers(1, 30)))
        pool = [*gold.documents, "unknown", *texts]
        rankings: dict[str, list] = {}
        for query in gold.queries:
            if rng.random() < 0.9:  # some gold queries are missing from the run
                docs = rng.choice(pool, size=int(rng.integers(1, len(pool) + 1)), replace=False)
                rankings[query] = [(doc, texts[doc]) if doc in texts else (doc, "") for doc in docs]
        if not rankings:
            rankings[next(iter(gold.queries))] = [("unknown", "")]
        run = Run(rankings)
        ids = {query: [doc for doc, _ in docs] for query, docs in rankings.items()}
        for depth in (first_depth, first_depth + more):
            relevance = focus_time_relevance(run, gold, depth)
            expected_relevance, expected_known = reference_relevance(ids, texts, gold, depth)
            assert relevance.relevance.tolist() == expected_relevance
            assert relevance.known.tolist() == expected_known


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 9999), st.integers(0, 150)), min_size=2, max_size=20),
    st.data(),
)
def test_run_jaccard_equals_focus_time_jaccard(spans: list, data: st.DataObject) -> None:
    """Every pair of runs of years, and the stand-in for an unknown focus time (it overlaps
    nothing: 0, never NaN)."""
    focus_times = [
        FocusTime.from_range(start, min(start + length, 9999)) for start, length in spans
    ]
    first, last, sizes = year_runs(focus_times)
    a = np.array(data.draw(st.lists(st.integers(-1, len(spans) - 1), min_size=1, max_size=30)))
    b = np.array(
        data.draw(st.lists(st.integers(-1, len(spans) - 1), min_size=a.size, max_size=a.size))
    )
    first = np.append(first, np.int32(NO_FIRST))
    last = np.append(last, np.int32(NO_LAST))
    sizes = np.append(sizes, np.int32(0))
    similarity = run_jaccard(first[a], last[a], sizes[a], first[b], last[b], sizes[b])
    expected = [
        0.0 if i < 0 or j < 0 else focus_times[i].jaccard(focus_times[j])
        for i, j in zip(a.tolist(), b.tolist())
    ]
    assert similarity.tolist() == expected


def codes_as_years(codes: np.ndarray, universe: list[FocusTime]) -> list:
    return [None if code < 0 else universe[code].years for code in codes.tolist()]


def test_codes_from_intern_keys_equal_codes_from_years() -> None:
    """The fast path codes each item by its focus time's intern key: the same universe and the same
    focus time per item as the dict on years; no focus time and the empty one are both -1."""
    rng = np.random.default_rng(7)
    with fresh_intern_table():
        gold = random_gold(rng, gaps=True, n_queries=30, n_docs=200)
        queries, documents = gold.queries.values(), gold.documents.values()
        by_key = focus_index_module._coded_by_intern_key(queries, documents)
    assert by_key is not None
    by_years = focus_index_module._coded_by_years(queries, documents)
    for fast, plain in ((by_key[0], by_years[0]), (by_key[1], by_years[1])):
        assert codes_as_years(fast, by_key[2]) == codes_as_years(plain, by_years[2])
    assert sorted(map(sorted, by_key[2])) == sorted(map(sorted, by_years[2]))
    expected = [None if not q.focus_time else q.focus_time.years for q in queries]
    assert codes_as_years(by_key[0], by_key[2]) == expected


def test_a_focus_time_not_interned_takes_the_years_path_with_the_same_values(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past the intern table's bounds (a full table, or more than 128 years) a focus time has no
    key: the index codes the whole gold set by years, and the measures do not change."""
    wide = FocusTime.from_range(1800, 1999)  # 200 years: never interned
    assert wide._intern_key == focus_time_module.NOT_INTERNED.to_bytes(4, "little", signed=True)
    rng = np.random.default_rng(11)
    gold = random_gold(rng, gaps=False, n_queries=10, n_docs=40)
    with_wide = GoldSet(
        queries=[*gold.queries.values(), GoldQuery("wide", focus_time=wide)],
        documents=list(gold.documents.values()),
    )
    queries, documents = with_wide.queries.values(), with_wide.documents.values()
    assert focus_index_module._coded_by_intern_key(queries, documents) is None
    ideal, n_relevant = focus_pool(with_wide, 5, 0.0)
    expected_ideal, expected_relevant = reference_pool(with_wide, 5, 0.0)
    assert ideal.tolist() == expected_ideal and n_relevant.tolist() == expected_relevant


def test_equal_years_share_a_key_and_a_key_names_one_set_of_years() -> None:
    """A key is a place in the intern table: the focus time there has exactly the item's years,
    whichever constructor made it (so two different focus times never share a code)."""
    with fresh_intern_table():
        made = [
            FocusTime.from_range(1990, 1992),
            FocusTime([1992, 1991, 1990]),
            FocusTime.parse("1990-1992"),
            FocusTime.parse([1990, "1991-1992"]),
            FocusTime([2001, 2003]),
            FocusTime.from_years([2003, 2001]),
            pickle.loads(pickle.dumps(FocusTime([2003, 2001]))),
            FocusTime(),
        ]
        table = focus_time_module.interned_in_order()
        keys = [int.from_bytes(ft._intern_key, "little", signed=True) for ft in made]
        assert keys[:4] == [keys[0]] * 4 and keys[4:7] == [keys[4]] * 3 and keys[4] != keys[0]
        assert all(table[key].years == ft.years for key, ft in zip(keys, made))
        assert len({table[key].years for key in keys}) == len(set(keys))
