"""What every child program prints: one JSON line with its phase times and memory readings.

Children run as ``python bench/children/NAME.py``, so this sibling module is on their ``sys.path``.
Import it before anything heavy: its import starts the child's clock.
"""

from __future__ import annotations

import json
import resource
import time
from typing import Any

START = time.perf_counter()


class Phases(dict[str, float]):
    """Seconds per named phase, each from the end of the one before (the first from START)."""

    def __init__(self) -> None:
        super().__init__()
        self.last = START

    def __call__(self, name: str) -> None:
        now = time.perf_counter()
        self[name] = now - self.last
        self.last = now


def status() -> dict[str, int]:
    """VmRSS (resident now) and VmHWM (the high-water mark of this address space), in KiB."""
    fields = {}
    with open("/proc/self/status") as lines:
        for line in lines:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                fields[name] = int(value.split()[0])
    return fields


def emit(**report: Any) -> None:
    """Print the report with the process's own peak readings, as the last stdout line."""
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({**report, "vmhwm_kib": status()["VmHWM"], "maxrss_kib": maxrss}))
