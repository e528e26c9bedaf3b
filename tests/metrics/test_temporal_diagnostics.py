"""Temporal diagnostics (issue 28, item 4): the years each query was read as, and where in time its
top k documents are: hand-computed on small gold sets, against a plain-Python reference on random
ones, computed only when asked, and worded in the explanation."""

from __future__ import annotations

import json
import math
import pickle
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_tempoeval import (
    FocusTime,
    GoldSet,
    Run,
    average_precision,
    ndcg,
    temporal_ndcg,
    temporal_precision,
)
from pytest_tempoeval.metrics import diagnostics
from pytest_tempoeval.metrics.explain import format_offset, format_years

# Focus times: a1990 {1990}, a2001 {2001}, a2010s 2010-2019, b2008 {2008}, nodate none; web1 is not
# in the gold set, the run gives it a text about 2030; ghost has neither.
GOLD = {
    "version": 1,
    "documents": {
        "a1990": {"text": "Report of 1990."},
        "a1995": {"text": "Report of 1995."},
        "a2000": {"text": "Report of 2000."},
        "a2001": {"text": "Report of 2001."},
        "a2010s": {"text": "A decade.", "focus_time": "2010-2019"},
        "b2008": {"text": "Report of 2008."},
        "b2012": {"text": "Report of 2012."},
        "b2020": {"text": "Report of 2020."},
        "nodate": {"text": "No year here."},
    },
    "queries": [
        {"id": "q90s", "text": "Anything", "focus_time": "1990s", "relevant": {"a1995": 2}},
        {"id": "qpair", "text": "Compare 2008 and 2012", "relevant": {"b2012": 1}},
        {"id": "qnone", "text": "Who won?", "relevant": {"a1990": 1}},
        {"id": "qundated", "text": "The year 2000", "relevant": {"a2000": 1}},
        {"id": "qmissing", "text": "The year 2020", "relevant": {"b2020": 1}},
    ],
}
RUN = {
    "q90s": ["a1990", "a2001", "nodate", "a2010s"],  # a2010s is past k=3
    "qpair": ["b2008", "a2010s", "web1"],
    "qnone": ["a1990", "b2008"],
    "qundated": ["nodate", "ghost"],
}  # qmissing is not in the run
TEXTS = {"web1": "Published in 2030."}


@pytest.fixture(scope="module")
def gold() -> GoldSet:
    return GoldSet.from_dict(GOLD)


def run() -> Run:
    return Run(RUN, texts=TEXTS)


# By hand, top 3, offsets = midpoint of the document's years - midpoint of the query's years:
# q90s (1990-1999, midpoint 1994.5): a1990 -4.5, a2001 +6.5 (from the future: 2001 > 1999), nodate
#   without a focus time: mean (-4.5 + 6.5) / 2 = +1.0, 1 of 2 from the future.
# qpair ({2008, 2012}, midpoint 2010): b2008 -2, a2010s (midpoint 2014.5) +4.5 (not from the future:
#   2010 <= 2012), web1 +20 (from the future): mean 22.5 / 3 = +7.5, 1 of 3 from the future.
# qnone: no years.  qundated ({2000}): 2 retrieved, neither with a focus time.  qmissing: nothing.
Q90S = {"years": "1990-1999", "retrieved": 3, "dated": 2, "future": 1, "mean_offset": 1.0}
QPAIR = {"years": "2008, 2012", "retrieved": 3, "dated": 3, "future": 1, "mean_offset": 7.5}


def test_each_query_is_hand_computed(gold: GoldSet) -> None:
    result = ndcg(run(), gold, k=3)
    figures = {query: result.explain_query(query).temporal.to_dict() for query in gold.query_ids}
    assert figures["q90s"] == {**Q90S, "k": 3, "future_share": 0.5}
    assert figures["qpair"] == {**QPAIR, "k": 3, "future_share": 1 / 3}
    assert figures["qnone"] == {
        "years": None,
        "k": 3,
        "retrieved": 2,
        "dated": 2,
        "future": 0,
        "mean_offset": None,
        "future_share": None,
    }
    assert figures["qundated"] == {
        "years": "2000",
        "k": 3,
        "retrieved": 2,
        "dated": 0,
        "future": 0,
        "mean_offset": None,
        "future_share": None,
    }
    assert figures["qmissing"]["retrieved"] == 0 and figures["qmissing"]["mean_offset"] is None


def test_the_result_averages_its_counted_queries_and_counts_the_others_apart(
    gold: GoldSet,
) -> None:
    # nDCG counts all 5 queries (each has a relevant judgment; qmissing scores 0).
    gold_mode = ndcg(run(), gold, k=3).temporal_diagnostics
    assert gold_mode is not None
    assert gold_mode.to_dict() == {
        "k": 3,
        "mean_offset": (1.0 + 7.5) / 2,
        "future_share": (1 / 2 + 1 / 3) / 2,
        "queries": 2,
        "without_years": 1,  # qnone
        "without_dated": 2,  # qundated, qmissing
        "retrieved": 3 + 3 + 2 + 0,  # of the queries with years
        "undated": 1 + 2,  # nodate in q90s; nodate and ghost in qundated
    }
    assert gold_mode.per_query == {"q90s": (1.0, 0.5), "qpair": (7.5, 1 / 3)}
    # T-nDCG leaves qnone out (no focus time): it is not counted here either.
    focus = temporal_ndcg(run(), gold, k=3)
    assert "qnone" in focus.excluded
    assert focus.temporal_diagnostics.to_dict() == {**gold_mode.to_dict(), "without_years": 0}


def test_a_period_of_a_sliced_result_has_the_diagnostics_of_its_own_queries(
    gold: GoldSet,
) -> None:
    """By decade: q90s is about 1990-1999, qpair about 2000-2009 (start year 2008), qundated
    2000-2009, qmissing 2020-2029, qnone has no focus time. Each period's figures are its own
    queries' (by hand above), not the whole result's."""
    periods = ndcg(run(), gold, k=3).by_period("decade")
    nineties = periods["1990-1999"].temporal_diagnostics
    assert nineties is not None
    assert nineties.per_query == {"q90s": (1.0, 0.5)}
    assert (nineties.mean_offset, nineties.future_share, nineties.queries) == (1.0, 0.5, 1)
    two_thousands = periods["2000-2009"].temporal_diagnostics
    assert two_thousands is not None
    assert two_thousands.per_query == {"qpair": (7.5, 1 / 3)}
    assert two_thousands.without_dated == 1  # qundated
    assert two_thousands.undated == 2
    undated = periods["no focus time"].temporal_diagnostics
    assert undated is not None and undated.queries == 0 and undated.without_years == 1


def test_only_the_top_k_is_read_and_a_whole_ranking_measure_reads_the_default_k(
    gold: GoldSet,
) -> None:
    top1 = ndcg(run(), gold, k=1).temporal_diagnostics
    # q90s: a1990 -4.5; qpair: b2008 -2; qundated: nodate (no focus time)
    assert top1.per_query == {"q90s": (-4.5, 0.0), "qpair": (-2.0, 0.0)}
    assert top1.mean_offset == -3.25 and top1.k == 1
    whole = average_precision(run(), gold).temporal_diagnostics  # AP reads every rank
    # top 10 = every rank: q90s adds a2010s (midpoint 2014.5, +20.0, from the future)
    assert whole.k == 10
    assert whole.per_query["q90s"] == (pytest.approx((-4.5 + 6.5 + 20.0) / 3), 2 / 3)


def test_a_gold_set_without_query_years_has_no_diagnostics_and_says_nothing(
    tmp_path: Path,
) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq2 0 d2 1\n")
    gold = GoldSet.from_trec_qrels(qrels)
    result = ndcg(Run({"q1": ["d1"], "q2": ["d3"]}), gold, k=2)
    assert result.temporal_diagnostics is None
    assert result.explain_query("q1").temporal is None
    assert "years" not in result.explain()


def test_the_explanation_words_them(gold: GoldSet) -> None:
    text = ndcg(run(), gold, k=3).explain(n=5)
    lines = [line.strip() for line in text.splitlines()]
    # after the summary line and its notes (unknown ids, short rankings), before the worst queries
    assert lines[3] == (
        "years: the top 3 are on average 4.2 years newer than the query (mean offset +4.2), "
        "41.7% from the future, over 2 queries; 1 query without a focus time; 2 queries whose "
        "top 3 has no document with one; 3 of 8 retrieved documents without a focus time"
    )
    assert lines[4].startswith("q90s: 0.0000")
    assert (
        "years: 1990-1999; top 3: mean offset +1.0 years, 1 of 2 from the future, 1 without a "
        "focus time"
    ) in lines
    assert "years: 2008, 2012; top 3: mean offset +7.5 years, 1 of 3 from the future" in lines
    assert "years: none read (no focus time given or found in its text), so no offsets" in lines
    assert "years: 2000; top 3: no focus time in its 2 documents" in lines
    assert "years: 2020; top 3: nothing retrieved" in lines


def test_a_failed_comparison_shows_them(gold: GoldSet) -> None:
    with pytest.raises(AssertionError) as failure:
        assert ndcg(run(), gold, k=3).checked() >= 0.99
    assert "mean offset +4.2" in str(failure.value)
    assert "years: 1990-1999; top 3: mean offset +1.0 years" in str(failure.value)


def test_older_documents_give_a_negative_offset_and_no_future() -> None:
    gold = GoldSet.from_dict(
        {
            "version": 1,
            "documents": {"old": {"text": "In 1980."}, "new": {"text": "In 2024."}},
            "queries": [{"id": "q", "text": "In 2000", "relevant": {"old": 1}}],
        }
    )
    older = temporal_precision(Run({"q": ["old"]}), gold, k=1).temporal_diagnostics
    assert (older.mean_offset, older.future_share) == (-20.0, 0.0)
    newer = temporal_precision(Run({"q": ["new"]}), gold, k=1).temporal_diagnostics
    assert (newer.mean_offset, newer.future_share) == (24.0, 1.0)
    assert (
        "24.0 years newer than the query"
        in temporal_precision(Run({"q": ["new"]}), gold, k=1).explain()
    )


def test_nothing_is_computed_until_asked(gold: GoldSet, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    compute = diagnostics._query_figures

    def counted(*args: object) -> object:
        calls.append(args)
        return compute(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(diagnostics, "_query_figures", counted)
    scored = run()
    result = ndcg(scored, gold, k=3)
    temporal_ndcg(scored, gold, k=3)
    assert float(result) >= 0 and calls == []  # scoring computed none
    assert result.temporal_diagnostics is not None and len(calls) == 1
    result.explain()  # the explanation reuses them (kept on the run)
    assert temporal_ndcg(scored, gold, k=3).temporal_diagnostics is not None
    assert len(calls) == 1


def test_a_pickled_result_keeps_them(gold: GoldSet) -> None:
    result = ndcg(run(), gold, k=3)
    copy = pickle.loads(pickle.dumps(result))
    assert copy.temporal_diagnostics == result.temporal_diagnostics


def test_a_corpus_read_on_demand_reads_only_the_retrieved_documents(tmp_path: Path) -> None:
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    corpus = [
        {"_id": "d1", "title": "", "text": "The 2020 result."},
        {"_id": "d2", "title": "", "text": "Trump won.", "metadata": {"date": "2016-11-09"}},
        {"_id": "d3", "title": "", "text": "A story of the 1990s."},
        {"_id": "d4", "title": "", "text": "In 1999."},
        {"_id": "d5", "title": "", "text": "Never retrieved, 1950."},
    ]
    queries = [{"_id": "q1", "text": "Who won in 2020?"}, {"_id": "q2", "text": "In 2016"}]
    (folder / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in corpus))
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n")
    beir = GoldSet.from_beir(folder)
    rankings = {"q1": ["d3", "d1"], "q2": ["d2", "d4"]}
    result = ndcg(Run(rankings), beir, k=2)
    figures = result.temporal_diagnostics
    # q1 {2020}: d3 1990-1999 (midpoint 1994.5) -25.5, d1 0: -12.75. q2 {2016}: d2 0, d4 -17: -8.5
    assert figures.per_query == {"q1": (-12.75, 0.0), "q2": (-8.5, 0.0)}
    assert figures.mean_offset == (-12.75 - 8.5) / 2
    assert repr(beir.documents) == "JsonlCorpus(5 documents, 4 read)"  # d5 was not read
    # the same documents in a gold set held in memory (the focus index's path) agree
    in_memory = GoldSet.from_dict(
        {
            "version": 1,
            "documents": {d["_id"]: {"text": d["text"]} for d in corpus if d["_id"] != "d2"}
            | {"d2": {"text": "Trump won.", "focus_time": 2016}},
            "queries": [
                {"id": "q1", "text": "Who won in 2020?", "relevant": {"d1": 1}},
                {"id": "q2", "text": "In 2016", "relevant": {"d2": 1}},
            ],
        }
    )
    assert ndcg(Run(rankings), in_memory, k=2).temporal_diagnostics == figures


@pytest.mark.parametrize(
    ("years", "shown"),
    [
        (None, "none read"),
        ("1990-1999", "1990-1999"),
        ("2008, 2012", "2008, 2012"),
        ("1, 3, 5, 7, 9, 11", "1, 3, 5, 7 and 2 more"),
    ],
)
def test_years_are_shown_compactly(years: str | None, shown: str) -> None:
    assert format_years(years) == shown


@pytest.mark.parametrize(
    ("offset", "shown"), [(-6.25, "-6.2"), (-0.04, "+0.0"), (0.0, "+0.0"), (1.96, "+2.0")]
)
def test_offsets_are_signed_with_one_decimal(offset: float, shown: str) -> None:
    assert format_offset(offset) == shown


# -- against a plain-Python reference, on random gold sets ----------------------------------------


def reference(
    query_years: dict[str, FocusTime | None],
    document_years: dict[str, FocusTime | None],
    rankings: dict[str, list[str]],
    k: int,
) -> dict[str, tuple[int, int, int, float | None]]:
    """(retrieved, with a focus time, from the future, mean offset) per query, written from the
    definition in docs/focus-time.md, one document at a time."""
    out = {}
    for query, years in query_years.items():
        top = rankings.get(query, [])[:k]
        dated = [document_years[doc] for doc in top if document_years.get(doc)]
        if not years:
            out[query] = (len(top), len(dated), 0, None)
            continue
        middle = (min(years) + max(years)) / 2
        offsets = [(min(d) + max(d)) / 2 - middle for d in dated]  # type: ignore[type-var]
        future = sum(min(d) > max(years) for d in dated)  # type: ignore[type-var]
        mean = math.fsum(offsets) / len(offsets) if offsets else None
        out[query] = (len(top), len(dated), future, mean)
    return out


YEARS = st.one_of(
    st.none(),
    st.frozensets(st.integers(1980, 2030), min_size=1, max_size=4),
    st.tuples(st.integers(1900, 2020), st.integers(0, 30)).map(
        lambda start: frozenset(range(start[0], start[0] + start[1] + 1))
    ),
)


@settings(max_examples=60, deadline=None)
@given(
    queries=st.lists(YEARS, min_size=1, max_size=6),
    documents=st.lists(YEARS, min_size=1, max_size=8),
    data=st.data(),
    k=st.integers(1, 5),
)
def test_matches_a_plain_reference_on_random_gold_sets(
    queries: list[frozenset[int] | None],
    documents: list[frozenset[int] | None],
    data: st.DataObject,
    k: int,
) -> None:
    document_ids = [f"d{i}" for i in range(len(documents))]
    gold = GoldSet.from_dict(
        {
            "version": 1,
            "documents": {
                doc: {"focus_time": sorted(years)} if years else {"text": "no year"}
                for doc, years in zip(document_ids, documents, strict=True)
            },
            "queries": [
                {"id": f"q{i}", "text": "no year", "relevant": {"d0": 1}}
                | ({"focus_time": sorted(years)} if years else {})
                for i, years in enumerate(queries)
            ],
        }
    )
    pool = [*document_ids, "unknown"]
    rankings = {
        f"q{i}": data.draw(st.lists(st.sampled_from(pool), unique=True, max_size=6))
        for i in range(len(queries))
        if data.draw(st.booleans()) or i == 0
    }
    rankings = {query: docs for query, docs in rankings.items() if docs}
    if not rankings:
        return
    result = ndcg(Run(rankings), gold, k=k)
    query_years = {f"q{i}": FocusTime(years) if years else None for i, years in enumerate(queries)}
    document_years = {
        doc: FocusTime(years) if years else None
        for doc, years in zip(document_ids, documents, strict=True)
    }
    expected = reference(query_years, document_years, rankings, k)
    diagnostics_ = result.temporal_diagnostics
    if not any(query_years.values()):
        assert diagnostics_ is None
        return
    for query, (retrieved, dated, future, mean) in expected.items():
        figures = result.explain_query(query).temporal
        assert (figures.retrieved, figures.dated, figures.future) == (retrieved, dated, future)
        assert figures.mean_offset == (None if mean is None else pytest.approx(mean))
    figured = {q: v for q, v in expected.items() if v[3] is not None}
    assert diagnostics_.queries == len(figured)
    assert diagnostics_.without_years == sum(years is None for years in query_years.values())
    if figured:
        assert diagnostics_.mean_offset == pytest.approx(
            math.fsum(v[3] for v in figured.values()) / len(figured)  # type: ignore[misc]
        )
        assert diagnostics_.future_share == pytest.approx(
            math.fsum(v[2] / v[1] for v in figured.values()) / len(figured)
        )
    else:
        assert diagnostics_.mean_offset is None and diagnostics_.future_share is None
