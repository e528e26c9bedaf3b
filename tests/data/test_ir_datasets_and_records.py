"""GoldSet.from_ir_datasets (a local ir_datasets dataset, and a stand-in of the same shape) and
GoldSet.from_records (plain dicts and tuples, as pandas' to_dict("records") gives them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import pytest

from pytest_tempoeval import (
    GoldQuery,
    GoldSet,
    GoldSetError,
    Run,
    ndcg,
    precision,
    temporal_ndcg,
    temporal_precision,
)


def local_dataset(tmp_path: Path) -> Any:
    """A dataset of local files, as ir_datasets builds one: nothing is downloaded."""
    ir_datasets = pytest.importorskip("ir_datasets")
    docs = tmp_path / "docs.tsv"
    docs.write_text("d1\tBiden won the 2020 election.\nd2\tTrump won in 2016.\nd3\tNo year here.\n")
    queries = tmp_path / "queries.tsv"
    queries.write_text("q1\tWho won in 2020?\nq2\tWho won in 2016?\n")
    qrels = tmp_path / "qrels.trec"
    qrels.write_text("q1 0 d1 2\nq1 0 d3 0\nq2 0 d2 1\n")
    return ir_datasets.create_dataset(
        docs_tsv=str(docs), queries_tsv=str(queries), qrels_trec=str(qrels)
    )


def test_a_local_ir_datasets_dataset(tmp_path: Path) -> None:
    gold = GoldSet.from_ir_datasets(local_dataset(tmp_path))
    assert gold.query_ids == ("q1", "q2")
    assert gold.queries["q1"].text == "Who won in 2020?" and gold.queries["q1"].focus_time == {2020}
    assert gold.queries["q1"].relevant == {"d1": 2, "d3": 0}
    assert gold.documents["d2"].text == "Trump won in 2016." and gold.documents[
        "d2"
    ].focus_time == {2016}
    assert "d9" not in gold.documents and "d1" in gold.documents
    run = Run({"q1": ["d3", "d1"], "q2": ["d2"]})
    assert ndcg(run, gold, k=2).per_query == pytest.approx(
        {"q1": 2 / 1.5849625007211562 / 2, "q2": 1.0}
    )
    assert temporal_precision(run, gold, k=2).per_query == {"q1": 0.5, "q2": 0.5}


class Doc(NamedTuple):
    doc_id: str
    title: str
    body: str
    date: str


class Query(NamedTuple):
    query_id: str
    title: str


class Qrel(NamedTuple):
    query_id: str
    doc_id: str
    relevance: int
    iteration: str


class StandIn:
    """The shape of an ir_datasets dataset without a docs store: documents are read up front."""

    def docs_iter(self) -> Any:
        yield Doc("a", "Report", "The vote.", "2012-11-06")
        yield Doc("b", "Other", "Another year: 1999.", "")

    def queries_iter(self) -> Any:
        yield Query("q", "The 2012 vote?")

    def qrels_iter(self) -> Any:
        yield Qrel("q", "a", 1, "0")
        yield Qrel("q", "b", -1, "0")


def test_a_stand_in_with_the_same_shape() -> None:
    gold = GoldSet.from_ir_datasets(StandIn())
    assert gold.queries["q"].text == "The 2012 vote?"
    assert gold.documents["a"].text == "Report The vote." and gold.documents["a"].title == "Report"
    assert gold.documents["a"].focus_time == {2012}  # from its date field
    assert gold.documents["b"].focus_time == {1999}  # no date: from its text
    assert temporal_ndcg(Run({"q": ["b", "a"]}), gold, k=2).explain_query("q").ideal == [("a", 4.0)]


def test_ir_datasets_errors() -> None:
    class NoQrels:
        def queries_iter(self) -> Any:
            return iter(())

    with pytest.raises(GoldSetError, match="needs qrels_iter"):
        GoldSet.from_ir_datasets(NoQrels())

    class Twice(StandIn):
        def qrels_iter(self) -> Any:
            yield Qrel("q", "a", 1, "0")
            yield Qrel("q", "a", 2, "0")

    with pytest.raises(GoldSetError, match="qrel 2: doc 'a' is judged twice for query 'q'"):
        GoldSet.from_ir_datasets(Twice())


# -- records ---------------------------------------------------------------------------------

RECORDS = {
    "queries": [
        {"query_id": "q1", "text": "Who won in 2020?", "split": "test"},  # extra columns ignored
        {"query_id": "q2", "text": "What happened in the 1990s?"},
    ],
    "qrels": [
        {"query_id": "q1", "doc_id": "d1", "relevance": 2},
        {"query_id": "q1", "doc_id": "d2", "relevance": 0.0},  # a DataFrame's float column
        {"query_id": "q2", "doc_id": "d3", "relevance": 1},
    ],
    "documents": [
        {"doc_id": "d1", "title": "2020", "text": "Biden won.", "date": None},
        {"doc_id": "d2", "text": float("nan"), "date": "2016-11-09"},  # NaN: pandas' missing
        {"doc_id": "d3", "text": "A 1990s story."},
    ],
}


def test_records_as_dataframes_give_them() -> None:
    gold = GoldSet.from_records(**RECORDS, name="records")
    assert gold.query_ids == ("q1", "q2") and gold.name == "records"
    assert gold.queries["q1"].relevant == {"d1": 2, "d2": 0}
    assert gold.documents["d1"].text == "2020 Biden won." and gold.documents["d1"].focus_time == {
        2020
    }
    assert gold.documents["d2"].text is None and gold.documents["d2"].focus_time == {2016}
    assert gold.queries["q2"].focus_time == set(range(1990, 2000))


def test_real_pandas_dataframes_directly_and_as_records() -> None:
    """A year column with an empty cell is float in pandas (2020.0), and an empty date is NaT:
    a year, and no focus time. A float year was read as a Unix timestamp (1970) before."""
    import pandas as pd

    queries = pd.DataFrame({"qid": ["q1", "q2"], "query": ["Who won in 2020?", "Olympics?"]})
    qrels = pd.DataFrame(
        {"qid": ["q1", "q1", "q2"], "docno": ["d1", "d2", "d3"], "label": [2, 0, 1]}
    )
    documents = pd.DataFrame(
        {
            "docno": ["d1", "d2", "d3", "d4"],
            "text": ["Biden won.", None, "Paris games", float("nan")],
            "date": pd.to_datetime(["2020-11-03", None, None, "2016-11-09"]),
            "year": [2020, float("nan"), 2024, float("nan")],
        }
    )
    direct = GoldSet.from_records(queries=queries, qrels=qrels, documents=documents)
    records = GoldSet.from_records(
        queries=queries.to_dict("records"),
        qrels=qrels.to_dict("records"),
        documents=documents.to_dict("records"),
    )
    for gold in (direct, records):
        assert gold.query_ids == ("q1", "q2")
        assert gold.queries["q1"].relevant == {"d1": 2, "d2": 0}
        focus = {doc_id: doc.focus_time for doc_id, doc in gold.documents.items()}
        assert focus == {"d1": {2020}, "d2": None, "d3": {2024}, "d4": {2016}}
        assert gold.documents["d2"].text is None and gold.documents["d4"].text is None


@pytest.mark.parametrize(
    ("key", "value", "years"),
    [
        ("date", 2020, {2020}),
        ("year", 2020.0, {2020}),
        ("year", float("nan"), None),
        ("year", "2020", {2020}),
        ("year", "2020.0", {2020}),
        ("year", "2019-2021", {2019, 2020, 2021}),
        ("year", "", None),
        ("timestamp", 1_600_000_000, {2020}),  # a Unix timestamp, under a timestamp key only
        ("created_at", 1_600_000_000.5, {2020}),
        ("published_at", "1600000000", {2020}),
        ("timestamp", -5, {1969}),
        ("created_at", "2020-05-17T10:00:00Z", {2020}),
        ("date", "2019-2021", {2019, 2020, 2021}),
        ("date", "2020-05-17", {2020}),
        ("date", [2019, "2021"], {2019, 2021}),
        ("published", True, None),  # a CMS's published flag is not a date
    ],
)
def test_date_fields(key: str, value: object, years: set[int] | None) -> None:
    from pytest_tempoeval.data.metadata import date_focus_time

    found = date_focus_time(value, key)
    assert (found.years if found else None) == years


YEAR = "not a year (a whole number in 1..9999)"


@pytest.mark.parametrize(
    ("key", "value", "fragments"),
    [
        # These were read as Unix timestamps: year 0 became 1970, -5 1969, 20200 1970.
        ("year", 0, [f"'year' is 0, {YEAR}"]),
        ("year", -5, [f"'year' is -5, {YEAR}"]),
        ("year", 20200, [f"'year' is 20200, {YEAR}"]),
        ("year", 2020.5, [f"'year' is 2020.5, {YEAR}"]),
        ("year", "20200", [f"'year' is '20200', {YEAR}"]),
        ("year", True, [f"'year' is True, {YEAR}"]),
        ("year", "soon", ["'year': cannot read 'soon' as a focus time"]),
        ("focus_time", 0, [f"'focus_time' is 0, {YEAR}"]),
        ("year", [2020, 0], [f"'year' is 0, {YEAR}"]),
        (
            "date",
            1_600_000_000,
            [f"'date' is 1600000000, {YEAR}", "put a Unix timestamp under 'timestamp'"],
        ),
        (
            "timestamp",
            1_600_000_000_000,
            [
                (
                    "'timestamp' is 1600000000000, not a Unix timestamp (seconds since 1970) of "
                    "a year in 1..9999"
                ),
                "milliseconds must be divided by 1000",
            ],
        ),
        ("year", 10**400, ["'year' is 10000000000000000000...(401 characters)"]),
    ],
)
def test_date_fields_that_are_not_dates_are_errors(
    key: str, value: object, fragments: list[str]
) -> None:
    from pytest_tempoeval.data.metadata import date_focus_time
    from pytest_tempoeval.errors import FocusTimeError

    with pytest.raises(FocusTimeError) as error:
        date_focus_time(value, key)
    for fragment in fragments:
        assert fragment in str(error.value), (fragment, str(error.value))


def test_bad_year_fields_in_records_name_the_record_and_id() -> None:
    import pandas as pd

    documents = pd.DataFrame({"doc_id": ["d1", "d2"], "text": ["a", "b"], "year": [2020, 0]})
    with pytest.raises(GoldSetError) as error:
        GoldSet.from_records(qrels=[("q1", "d1", 1)], documents=documents)
    assert str(error.value).startswith(
        f"<records>: documents record 2: doc 'd2': 'year' is 0, {YEAR}"
    )
    queries = [{"id": "q1", "text": "t", "metadata": {"year": -5}}]
    with pytest.raises(
        GoldSetError, match="^<records>: queries record 1: query 'q1': 'year' is -5"
    ):
        GoldSet.from_records(queries=queries, qrels=[("q1", "d1", 1)])
    # A timestamp key holds a timestamp.
    timed = [{"doc_id": "d1", "timestamp": 1_600_000_000}, {"doc_id": "d2", "year": 2016}]
    gold = GoldSet.from_records(qrels=[("q1", "d1", 1)], documents=timed)
    assert gold.documents["d1"].focus_time == {2020} and gold.documents["d2"].focus_time == {2016}


def test_bad_year_fields_in_ir_datasets_name_the_document() -> None:
    class BadYear(StandIn):
        def docs_iter(self) -> Any:
            yield Doc("a", "Report", "The vote.", "20200")

    with pytest.raises(GoldSetError) as error:
        GoldSet.from_ir_datasets(BadYear())
    assert str(error.value).startswith(f"BadYear: doc 'a': 'date' is '20200', {YEAR}")


def test_records_as_tuples() -> None:
    gold = GoldSet.from_records(
        queries=[("q1", "In 2020?")],
        qrels=[("q1", "d1", 1), ("q1", "0", "d2", 2)],  # (q, doc, grade) and TREC's 4 fields
        documents=[("d1", "2020 text"), ("d2", "other")],
    )
    assert gold.queries["q1"].relevant == {"d1": 1, "d2": 2}
    assert gold.documents["d1"].focus_time == {2020}


def test_judged_queries_without_a_query_record_have_no_text() -> None:
    gold = GoldSet.from_records(qrels=[("q1", "d1", 1)])
    assert gold.queries["q1"].text is None and gold.queries["q1"].relevant == {"d1": 1}


@pytest.mark.parametrize(
    ("records", "message"),
    [
        (
            {"qrels": [{"qid": "q", "doc": "d", "relevance": 1}]},
            "qrels record 1: no doc id (accepted keys: doc_id",
        ),
        (
            {"qrels": [("q", "d", 1.5)]},
            "qrels record 1: grade 1.5 of doc 'd' for query 'q' is not an integer from",
        ),
        ({"qrels": [("q", "d", 1), ("q", "d", 2)]}, "qrels record 2: doc 'd' is judged twice"),
        ({"queries": [("q", "t"), ("q", "u")]}, "queries record 2: query 'q' appears twice"),
        ({"queries": [{"text": "t"}]}, "queries record 1: no query id"),
        ({"queries": [("q", 5)]}, "queries record 1: text must be a string"),
        (
            {"queries": [(" q", "t")]},
            "queries record 1: id ' q' has leading or trailing whitespace",
        ),
        ({"documents": [("d", "t")]}, "no queries and no qrels"),
        ({"queries": [("q", "t", "x")]}, "expected a dict or (query id, text)"),
    ],
)
def test_bad_records_name_the_record(records: dict[str, Any], message: str) -> None:
    with pytest.raises(GoldSetError) as error:
        GoldSet.from_records(**records)
    assert message in str(error.value) and str(error.value).startswith("<records>: ")


# -- grades: the file readers' bounds, in every loader -------------------------------------------

GRADE_RULE = (
    "is not an integer from -1,000,000 to 1,000,000; use 0 (judged non-relevant), 1, 2, ... "
    "(negative grades are judged non-relevant too)"
)


class Graded(StandIn):
    """A stand-in dataset judging doc 'a' for query 'q' with ``grade``."""

    def __init__(self, grade: object) -> None:
        self.grade = grade

    def qrels_iter(self) -> Any:
        yield Qrel("q", "b", 1, "0")
        yield Qrel("q", "a", self.grade, "0")  # type: ignore[arg-type]


@pytest.mark.parametrize("grade", [2_000_000, 10**18, 10**30, -1_000_001, 1.5, True, "2"])
def test_a_grade_past_the_bounds_or_not_an_integer_is_refused_by_every_loader(
    grade: object,
) -> None:
    """from_records and from_ir_datasets took 2,000,000 and 10**18, and 10**30 raised
    OverflowError at evaluate time: the TREC reader's bounds apply to every loader, at load."""
    shown = repr(grade)
    with pytest.raises(GoldSetError) as error:
        GoldSet.from_records(qrels=[("q", "b", 1), ("q", "a", grade)])
    assert str(error.value) == (
        f"<records>: qrels record 2: grade {shown} of doc 'a' for query 'q' {GRADE_RULE}"
    )
    with pytest.raises(GoldSetError) as error:
        GoldSet.from_ir_datasets(Graded(grade))
    assert str(error.value) == (
        f"Graded: qrel 2: relevance {shown} of doc 'a' for query 'q' {GRADE_RULE}"
    )
    with pytest.raises(GoldSetError) as error:
        GoldSet([GoldQuery("q", relevant={"b": 1, "a": grade})])  # type: ignore[dict-item]
    assert str(error.value) == f"<gold set>: query 'q': grade {shown} of doc 'a' {GRADE_RULE}"


@pytest.mark.parametrize("top", [1_000_000, -1_000_000])
def test_grades_at_the_bounds_load_and_score(top: int) -> None:
    """A negative grade is judged non-relevant (as in qrels): no gain."""
    import numpy as np

    run = Run({"q": ["a", "b"]})
    expected_ndcg = 1.0 if top > 0 else 1 / np.log2(3)  # b at rank 2, where rank 1 is ideal
    loaded = [
        GoldSet.from_records(qrels=[("q", "a", top), ("q", "b", 1)]),
        GoldSet.from_records(qrels=[("q", "a", np.int64(top)), ("q", "b", 1.0)]),
        GoldSet.from_ir_datasets(Graded(top)),
        GoldSet([GoldQuery("q", relevant={"a": top, "b": 1})]),
    ]
    for gold in loaded:
        assert gold.queries["q"].relevant["a"] == top
        assert float(ndcg(run, gold, k=2)) == pytest.approx(expected_ndcg)
        assert float(precision(run, gold, k=2)) == (1.0 if top > 0 else 0.5)


# -- polars --------------------------------------------------------------------------------------


@pytest.mark.parametrize("lazy", [False, True], ids=["DataFrame", "LazyFrame"])
def test_real_polars_frames_read_as_their_rows(lazy: bool) -> None:
    """A polars DataFrame has a to_dict() that takes no "records" (TypeError), and a LazyFrame was
    read as its columns: both are read through their rows (collect(), to_dicts())."""
    import polars as pl

    frames = {
        "queries": pl.DataFrame({"qid": ["q1", "q2"], "query": ["Who won in 2020?", "Olympics?"]}),
        "qrels": pl.DataFrame(
            {"qid": ["q1", "q1", "q2"], "docno": ["d1", "d2", "d3"], "label": [2, 0, 1]}
        ),
        "documents": pl.DataFrame(
            {
                "docno": ["d1", "d2", "d3"],
                "text": ["Biden won.", None, "Paris games"],
                "year": [2020, None, 2024],
            }
        ),
    }
    given = {name: frame.lazy() if lazy else frame for name, frame in frames.items()}
    gold = GoldSet.from_records(**given)
    expected = GoldSet.from_records(**{name: frame.to_dicts() for name, frame in frames.items()})
    assert gold.query_ids == ("q1", "q2")
    assert gold.queries["q1"].text == "Who won in 2020?" and gold.queries["q1"].focus_time == {2020}
    assert gold.queries["q1"].relevant == {"d1": 2, "d2": 0} and gold.queries["q2"].relevant == {
        "d3": 1
    }
    focus = {doc_id: doc.focus_time for doc_id, doc in gold.documents.items()}
    assert focus == {"d1": {2020}, "d2": None, "d3": {2024}}
    assert gold.documents["d2"].text is None
    assert gold.fingerprint == expected.fingerprint
