"""The judge's settings the plugin reads at start-up: record modes, cassette formats and the
batch poll interval.

Apart from :mod:`.cassettes` (which re-exports them) so that loading the plugin does not load the
cassette machinery: a suite that never uses the plugin must not pay for it.
"""

from __future__ import annotations

import math
from enum import StrEnum


class RecordMode(StrEnum):
    """vcrpy's record modes (``--tempoeval-record-mode``): ``none`` replays only; ``once`` records
    a cassette that does not exist yet; ``new_episodes`` adds what a cassette lacks; ``all``
    asks everything again."""

    NONE = "none"
    ONCE = "once"
    NEW_EPISODES = "new_episodes"
    ALL = "all"


class Serializer(StrEnum):
    """vcrpy's serializer a cassette is written with (ini ``tempoeval_cassette_serializer``)."""

    YAML = "yaml"  # pytest-recording's
    JSON = "json"  # faster to replay, for big suites


BATCH_POLL_SECONDS = 30.0  # the tempoeval_judge_batch_poll ini key's default
BATCH_POLL_RULE = "must be a positive, finite number of seconds"


def valid_batch_poll(value: object) -> bool:
    """Seconds between polls of a batch: 0 or less would poll the API in a busy loop, inf never.
    Checked as any object, since a caller without a type checker may pass a string or a bool."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return math.isfinite(value) and value > 0
