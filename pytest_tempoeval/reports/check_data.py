"""One check as the reports show it: the one place that turns a :class:`CheckRow` (and its trend
from the history) into the plain data the HTML, JSON and markdown reports read.

A new field a report should show is one line in :func:`check_data`: the JSON report writes every
key, the HTML and markdown reports read the keys they show.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_tempoeval.constants import SCORE_TOLERANCE
from pytest_tempoeval.session import CheckRow, CheckStatus

# The order checks are shown in: failures first, then the checks the session's Holm correction
# decides, then those that passed; within each, by test (the rows' order).
_STATUS_ORDER = {CheckStatus.FAIL: 0, CheckStatus.PENDING: 1, CheckStatus.PASS: 2}


def check_data(
    row: CheckRow, number: int = 0, trend: Sequence[Mapping[str, Any]] = ()
) -> dict[str, Any]:
    """Everything a report shows of one check: every recorded field of the row (score, threshold,
    per-query scores, worst queries, what changed for a drop, periods, temporal diagnostics) and
    what the reports derive from it.

    ``number``: the check's place in the session's order (its anchor in the HTML report);
    ``trend``: its points in the history, oldest first, this session's last.
    """
    data = row.to_dict()
    data |= {
        "number": number,
        "anchor": f"check-{number}",
        "gate": row.op == "drop <=",
        # the lowest mean a baseline check passes by max_drop alone (the gate's floor)
        "floor": None if row.baseline is None else row.baseline - row.threshold,
        "dropped": sum(
            1
            for query, old in row.baseline_per_query.items()
            if row.per_query.get(query, 0.0) < old - SCORE_TOLERANCE
        ),
        "trend": [dict(point) for point in trend],
    }
    return data


def shown_order(rows: Sequence[CheckRow]) -> list[int]:
    """The positions of ``rows`` in the order reports list checks: failures first."""
    return sorted(range(len(rows)), key=lambda i: (_STATUS_ORDER[rows[i].status], i))
