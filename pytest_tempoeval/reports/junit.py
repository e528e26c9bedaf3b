"""Checks as JUnit XML test properties (``tempoeval:ndcg@10`` = ``0.766600 >= 0.72 [...] pass``)."""

from __future__ import annotations

from pytest_tempoeval.session import CheckRow


def junit_property(row: CheckRow) -> tuple[str, str]:
    score = "nan" if row.score is None else f"{row.score:.6f}"
    value = f"{score} {row.op} {row.threshold:g} [{row.mode}, {row.counted} queries] {row.status}"
    return f"tempoeval:{row.metric}", value
