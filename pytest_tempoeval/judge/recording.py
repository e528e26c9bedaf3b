"""How a judge records: the plumbing a session gives its judges, apart from what they judge with.

A judge's own parameters say how it judges (model, concurrency, client, prompt style). A
:class:`Recording` says where its answers are kept and how new ones may be obtained: the cassette,
a dry run, the session's request budget, the Message Batches API, and the progress and status
lines. The ``tempoeval_judge`` and ``tempoeval_judge_for`` fixtures build one from the session's
settings; in your own code::

    AnthropicJudge(model="...", recording=Recording(cassette=JudgeCassette(path), dry_run=True))

The keywords judges took before (``AnthropicJudge(cassette=..., dry_run=True)``) still work: they
build the same Recording (:func:`recording_from`). A judge's ``cassette``, ``dry_run``, ... read
and write its Recording (:class:`RecordingField`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypedDict, TypeVar, overload

from pytest_tempoeval.errors import closest_match
from pytest_tempoeval.judge.modes import BATCH_POLL_RULE, BATCH_POLL_SECONDS, valid_batch_poll

if TYPE_CHECKING:
    from pytest_tempoeval.judge.budget import RequestBudget
    from pytest_tempoeval.judge.cassettes import JudgeCassette

Progress = Callable[[int, int, int], None]  # (done, total, answered without a request)
StatusLine = Callable[[str], None]


@dataclass(frozen=True, kw_only=True)
class Recording:
    """Where a judge's answers are kept and how new ones may be obtained (all optional)."""

    cassette: JudgeCassette | None = (
        None  # answers first, and records what the API says, when it may
    )
    progress: Progress | None = None  # called with (done, total, cached) while judging live
    dry_run: bool = False  # count what would be asked, ask nothing (raises JudgeDryRun)
    budget: RequestBudget | None = None  # the session's cap on new requests
    batch: bool = False  # ask what the cassette lacks through the Message Batches API
    batch_poll: float = BATCH_POLL_SECONDS  # seconds between polls of a batch
    batch_status: StatusLine | None = None  # called with a status line while a batch is processed

    def __post_init__(self) -> None:
        if not valid_batch_poll(self.batch_poll):
            raise ValueError(f"batch_poll {BATCH_POLL_RULE}, got {self.batch_poll!r}")

    def refuse_unused(self, judge: str, used: Collection[str]) -> None:
        """Refuse the settings ``judge`` cannot honour (anything outside ``used`` that is not its
        default): ignoring a cassette or a batch would record elsewhere, or at full price."""
        unused = [
            field.name
            for field in dataclasses.fields(self)
            if field.name not in used and getattr(self, field.name) != field.default
        ]
        if unused:
            raise ValueError(
                f"{judge} does not use Recording({', '.join(unused)}): it takes "
                f"{', '.join(used)} only"
            )


class CommonKeywords(TypedDict, total=False):
    """The recording keywords every judge took before :class:`Recording`."""

    dry_run: bool
    budget: RequestBudget | None


class RecordingKeywords(CommonKeywords, total=False):
    """The recording keywords ``AnthropicJudge`` took before :class:`Recording`."""

    cassette: JudgeCassette | None
    progress: Progress | None
    batch: bool
    batch_poll: float
    batch_status: StatusLine | None


def recording_from(
    judge: str,
    recording: Recording | None,
    keywords: Mapping[str, object],
    accepted: Collection[str],
) -> Recording:
    """The Recording a judge was given: ``recording``, or one built from the old keywords (those in
    ``accepted``). Both at once, or a keyword no judge takes, is a TypeError."""
    for name in keywords:
        if name not in accepted:
            hint = closest_match(name, accepted)
            raise TypeError(
                f"{judge}() got an unexpected keyword argument {name!r}"
                + (f" (did you mean {hint!r}?)" if hint else "")
            )
    if recording is None:
        return Recording(**keywords)  # type: ignore[arg-type]  # names checked above
    if keywords:
        raise TypeError(
            f"{judge}() takes the recording settings either as recording=Recording(...) or as "
            f"keywords, not both: put {', '.join(keywords)} in the Recording"
        )
    if not isinstance(recording, Recording):
        raise TypeError(f"{judge}(recording=...) must be a Recording, got {recording!r}")
    return recording


class _Recorded(Protocol):
    _recording: Recording  # private: CachedJudge.recording already says whether it records


T = TypeVar("T")


class RecordingField(Generic[T]):
    """A judge attribute kept in its Recording: ``judge.dry_run`` reads the Recording's, and
    ``judge.dry_run = True`` gives the judge a new Recording with it (the Recording is frozen; the
    attribute works as it did before the Recording existed)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, judge: None, owner: type) -> RecordingField[T]: ...
    @overload
    def __get__(self, judge: _Recorded, owner: type) -> T: ...
    def __get__(self, judge: _Recorded | None, owner: type) -> RecordingField[T] | T:
        if judge is None:
            return self
        value: T = getattr(judge._recording, self.name)
        return value

    def __set__(self, judge: _Recorded, value: T) -> None:
        changed: dict[str, Any] = {self.name: value}  # its type is the field's (T)
        judge._recording = dataclasses.replace(judge._recording, **changed)
