"""The judge's closed sets the plugin reads at start-up: record modes and cassette formats.

Apart from :mod:`.cassettes` (which re-exports them) so that loading the plugin does not load the
cassette machinery: a suite that never uses the plugin must not pay for it.
"""

from __future__ import annotations

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
