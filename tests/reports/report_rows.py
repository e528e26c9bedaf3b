"""Check rows built from plain data, as a session records them: the reports' tests render these,
with no pytest session to run."""

from __future__ import annotations

from pytest_tempoeval.session import CheckRow

LONG_DOC = "3f2a9c4e-1b7d-4c0a-9e8f-2d6b5a1c81e0"  # a retriever's UUID: shown shortened
LONG_QUERY = "query-about-the-1998-world-cup-final-in-paris-long"


def threshold_row(test: str = "tests/test_a.py::test_threshold") -> CheckRow:
    """A threshold check that passed, with temporal figures and its worst queries' years."""
    scores = {f"q{i:02d}": 0.5 + i / 40 for i in range(12)}
    return CheckRow(
        test=test,
        sequence=0,
        metric="T-nDCG@10",
        mode="focus_time",
        counted=12,
        excluded=1,
        score=sum(scores.values()) / 12,
        op=">=",
        threshold=0.4,
        passed=True,
        per_query=scores,
        excluded_queries={"q99": "no focus time"},
        note="1 excluded: no focus time (q99)",
        worst=[
            {
                "query": "q00",
                "score": 0.5,
                "retrieved": [["d1", 3.0], ["x1", None]],
                "ideal": [["d1", 3.0]],
                "note": "",
                "temporal": {
                    "years": "2000",
                    "k": 10,
                    "retrieved": 2,
                    "dated": 1,
                    "future": 0,
                    "mean_offset": 0.0,
                    "future_share": 0.0,
                },
                "doc_years": {"d1": "2000", "x1": None},
            }
        ],
        temporal={
            "k": 10,
            "mean_offset": -1.5,
            "future_share": 0.25,
            "queries": 12,
            "without_years": 0,
            "without_dated": 0,
            "retrieved": 120,
            "undated": 0,
        },
    )


def gate_row() -> CheckRow:
    """A baseline check that failed: 12 queries, three of them dropped, the baseline's rankings
    stored, checked by period, with a history of three sessions."""
    baseline = {f"q{i:02d}": 0.9 for i in range(11)} | {LONG_QUERY: 1.0}
    current = dict(baseline) | {"q00": 0.2, "q01": 0.3, LONG_QUERY: 0.1}
    old_top = [f"old{i}" for i in range(8)] + ["kept1", "kept2"]
    new_top = [[LONG_DOC, 0.0], ["kept1", 3.0], ["kept2", 1.0]] + [
        [f"new{i}", 0.0] for i in range(7)
    ]
    doc_years = {doc: "1998" for doc, _ in new_top} | {doc: "1998" for doc in old_top}
    return CheckRow(
        test="tests/test_b.py::test_gate",
        sequence=0,
        metric="nDCG@10",
        mode="gold",
        counted=12,
        excluded=0,
        score=sum(current.values()) / 12,
        op="drop <=",
        threshold=0.01,
        passed=False,
        per_query=current,
        baseline=sum(baseline.values()) / 12,
        delta=(sum(current.values()) - sum(baseline.values())) / 12,
        p_value=0.0004,
        note="regressed",
        baseline_per_query=baseline,
        changes=[
            {
                "query": LONG_QUERY,
                "baseline": 1.0,
                "score": 0.1,
                "counted": True,
                "retrieved": new_top,
                "baseline_top": old_top,
                "rankings_stored": True,
                "temporal": {
                    "years": "1998",
                    "k": 10,
                    "retrieved": 10,
                    "dated": 10,
                    "future": 0,
                    "mean_offset": 0.0,
                    "future_share": 0.0,
                },
                "doc_years": doc_years,
            },
            {
                "query": "q00",
                "baseline": 0.9,
                "score": 0.2,
                "counted": True,
                "retrieved": [["d0", 1.0]],
                "baseline_top": None,  # past the baseline's bound
                "rankings_stored": True,
            },
        ],
        periods=[
            {
                "period": "1990-1999",
                "status": "regressed",
                "queries": 6,
                "baseline": 0.95,
                "current": 0.6,
                "p_value": None,
                "p_adjusted": None,
                "ids": ["q00", "q01", "q02", "q03", "q04", LONG_QUERY],
            },
            {
                "period": "2000-2009",
                "status": "not tested",
                "queries": 6,
                "baseline": 0.9,
                "current": 0.9,
                "p_value": None,
                "p_adjusted": None,
                "ids": ["q05", "q06", "q07", "q08", "q09", "q10"],
            },
        ],
    )


def llm_row() -> CheckRow:
    """An llm-mode threshold check that failed, with the judge's reasons."""
    return CheckRow(
        test="tests/test_c.py::test_judged",
        sequence=0,
        metric="T-nDCG(mode=llm)@3",
        mode="llm",
        counted=2,
        excluded=0,
        score=0.5,
        op=">=",
        threshold=0.9,
        passed=False,
        per_query={"fr-2022": 0.25, "us-2020": 0.75},
        worst=[
            {
                "query": "fr-2022",
                "score": 0.25,
                "retrieved": [["campaign", 0.0], ["fr2022", 4.0]],
                "ideal": [["fr2022", 4.0]],
                "note": "",
                "reasons": {
                    "campaign": "about 2016, not 2022",
                    "fr2022": "names the 2022 result",
                },
            }
        ],
    )


def quiet_row() -> CheckRow:
    """A threshold check that passed with nothing to note, on another test."""
    return CheckRow(
        test="tests/test_d.py::test_quiet",
        sequence=0,
        metric="P@5",
        mode="gold",
        counted=2,
        excluded=0,
        score=0.6,
        op=">=",
        threshold=0.5,
        passed=True,
        per_query={"a": 0.6, "b": 0.6},
    )


def session_rows() -> list[CheckRow]:
    """Passing rows first, as sorted by test id they would not be: the reports must reorder."""
    return [threshold_row(), quiet_row(), gate_row(), llm_row()]


def trends_for(rows: list[CheckRow]) -> list[list[dict[str, object]]]:
    """Three sessions of history for every row; the gate's score fell in the last."""
    trends = []
    for row in rows:
        before = 0.9 if row.op == "drop <=" else row.score
        trends.append(
            [
                {"time": "2026-11-25T10:00:00Z", "commit": "a" * 40, "score": before},
                {"time": "2026-11-26T10:00:00Z", "commit": None, "score": before},
                {"time": "2026-11-27T10:00:00Z", "commit": "b" * 40, "score": row.score},
            ]
        )
    return trends
