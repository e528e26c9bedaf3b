"""``--tempoeval-report=PATH``: every check as JSON, for scripts and dashboards."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_tempoeval.files import write_user_file
from pytest_tempoeval.reports.check_data import check_data, shown_order
from pytest_tempoeval.reports.text import judge_totals
from pytest_tempoeval.session import CheckRow

FORMAT_VERSION = 1


def write(
    path: Path,
    rows: Sequence[CheckRow],
    judge: Mapping[str, Mapping[str, int]],
    prices: Mapping[str, tuple[float, float]],
    unused: Sequence[str],
    crashed: Sequence[str] = (),
    trends: Sequence[Sequence[Mapping[str, Any]]] | None = None,
    history_notes: Sequence[str] = (),
) -> None:
    """``failed`` counts the failed checks and each test whose xdist worker crashed under it
    (``crashed_tests``): its checks are missing, so a script reading ``failed == 0`` never passes
    a session that lost some. Each check is :func:`~.check_data.check_data`'s (``trend``: its
    points in ``--tempoeval-history``, this session's last); ``history_notes``: the lines of the
    history that reading skipped."""
    number = {position: n for n, position in enumerate(shown_order(rows), 1)}
    checks = [check_data(row, number[i], trends[i] if trends else ()) for i, row in enumerate(rows)]
    document = {
        "version": FORMAT_VERSION,
        "checks": checks,
        "failed": sum(not check["passed"] for check in checks) + len(crashed),
        "crashed_tests": list(crashed),
        "judge": judge_totals(judge, prices) | {"models": {m: dict(c) for m, c in judge.items()}},
        "unused_baselines": list(unused),
    }
    if trends is not None:
        document["history_notes"] = list(history_notes)
    write_user_file(path, json.dumps(document, indent=2, sort_keys=True) + "\n", "backslashreplace")
