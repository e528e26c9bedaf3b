"""Regression baseline files: one JSON per test at ``<baseline dir>/<test module>/<test name>.json``.

This module is the storage (paths, atomic writes, reading with clear errors). The gate that compares
a result with its baseline arrives with the baselines issue.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import TempoEvalError


class BaselineError(TempoEvalError, ValueError):
    """A baseline file is missing, unreadable or does not fit the result it is compared with."""


@dataclass(frozen=True)
class BaselineStore:
    path: Path
    update: bool  # --tempoeval-update-baseline: write instead of check

    @classmethod
    def for_test(cls, directory: Path, node: Any, update: bool) -> BaselineStore:
        module = Path(node.path).stem
        name = re.sub(r"[^\w.\-\[\]]+", "_", node.name)  # parametrized ids may hold path separators
        return cls(directory / module / f"{name}.json", update)

    def exists(self) -> bool:
        return self.path.is_file()

    def read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise BaselineError(f"{self.path}: no baseline yet; create it with --tempoeval-update-baseline") from None
        except json.JSONDecodeError as error:
            raise BaselineError(
                f"{self.path}:{error.lineno}: the baseline is not valid JSON ({error.msg}); fix it, or rewrite it "
                "with --tempoeval-update-baseline"
            ) from None
        if not isinstance(data, dict):
            raise BaselineError(f"{self.path}: a baseline is a JSON object; rewrite it with --tempoeval-update-baseline")
        return data

    def write(self, data: dict[str, Any]) -> None:
        """Atomic: a temporary file in the same directory, then a rename (safe under xdist)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(data, out, indent=2, sort_keys=True)
                out.write("\n")
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
