"""``--tempoeval-report=PATH``: every check as JSON, for scripts and dashboards."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from pytest_tempoeval.files import write_user_file
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
) -> None:
    """``failed`` counts the failed checks and each test whose xdist worker crashed under it
    (``crashed_tests``): its checks are missing, so a script reading ``failed == 0`` never passes
    a session that lost some."""
    checks = [row.to_dict() for row in rows]
    document = {
        "version": FORMAT_VERSION,
        "checks": checks,
        "failed": sum(not check["passed"] for check in checks) + len(crashed),
        "crashed_tests": list(crashed),
        "judge": judge_totals(judge, prices) | {"models": {m: dict(c) for m, c in judge.items()}},
        "unused_baselines": list(unused),
    }
    write_user_file(path, json.dumps(document, indent=2, sort_keys=True) + "\n", "backslashreplace")
