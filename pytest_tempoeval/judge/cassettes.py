"""Recording LLM judgments once, replaying them forever: vcrpy cassettes for the judge.

- A cassette per test, at ``<tempoeval_cassette_dir>/<test module>/<test name>.yaml``
  (pytest-recording's layout, with ``Class.`` before the name of a method; ``.json`` when vcrpy's
  JSON serializer is chosen: faster to replay, for big cassettes).
- A judgment is looked up by its request body (JSON-normalised, as vcrpy's body matcher compares
  it), so a changed prompt, document or model is a miss, never a wrong answer. In record mode
  ``none`` a miss fails at once with :class:`JudgeCassetteError`.
- Nothing secret is written: only a few named headers are stored (never ``authorization``,
  ``x-api-key`` or account headers), and error responses are never recorded.
- The judge reads and writes the file itself (:class:`JudgeCassette`) instead of patching HTTP with
  vcrpy: a replayed judgment is a dict lookup with no SDK import, and recording skips vcrpy's
  per-request deep copies (a large share of a recording's CPU). The files are written with vcrpy's
  own serializers and stay standard cassettes: stock ``vcr.use_cassette(path, record_mode="none",
  match_on=MATCH_ON)`` replays them (tested).

One module on purpose, though longer than most: where a cassette lives, how it is read and how it is
saved are one file format.
"""

from __future__ import annotations

import gc
import json
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pytest_tempoeval.errors import JudgeCassetteError, check_choice
from pytest_tempoeval.files import (
    regular_file_problem,
    test_file,
    warn_legacy,
    write_atomically,
)
from pytest_tempoeval.judge.modes import RecordMode, Serializer

MATCH_ON = ("method", "scheme", "host", "port", "path", "query", "body")  # stock vcrpy's equivalent
# Only these headers are stored: nothing secret or account-specific can slip through under a new
# header name, recordings do not depend on the machine (host, SDK and Python versions), and a
# cassette is several times smaller, so it loads faster.
KEPT_REQUEST_HEADERS = ("content-type", "anthropic-version", "anthropic-beta")
KEPT_RESPONSE_HEADERS = ("content-type",)


RECORD_MODES = tuple(RecordMode)  # as a tuple: the name earlier versions exported


SAVE_EVERY_SECONDS = 2.0  # while recording: how much work a crash can lose
CANONICAL_API = (
    "https://api.anthropic.com"  # where every request is stored as sent, whatever the base URL
)
MESSAGES_PATH = "/v1/messages"
_NO_RECORDING_INTO_EXISTING = "does not record into an existing cassette"


class SaveClock:
    """When a recording saves next: every ``every`` seconds, stretched to ten times the last
    save's duration, so saving stays under ~10% of the time. A process killed mid-recording loses
    at most that much paid work (cassettes and :class:`~.custom.CachedJudge` caches)."""

    def __init__(self, every: float) -> None:
        self.every = every
        self._next = time.monotonic() + every

    def due(self) -> bool:
        return time.monotonic() >= self._next

    def saved(self, started: float) -> None:
        """A save that began at ``started`` (``time.monotonic()``) just ended."""
        finished = time.monotonic()
        self._next = finished + max(self.every, 10 * (finished - started))


def cassette_file(directory: Path, test: str, serializer: str = "yaml") -> tuple[Path, Path | None]:
    """The cassette's path, and its legacy place to read while only that one exists."""
    path, legacy = test_file(directory, test, _suffix(serializer))
    if legacy is not None:
        warn_legacy(legacy, path, "the next recording writes it there, and leaves the old file")
    return path, legacy


def _suffix(serializer: str) -> str:
    return ".json" if serializer == Serializer.JSON else ".yaml"


def rerecord_command(test: str, cassette_exists: bool = False) -> str:
    """``new_episodes`` adds what an existing cassette lacks (e.g. after a crash mid-recording)
    without asking again what it holds; ``once`` creates a missing one."""
    mode = "new_episodes" if cassette_exists else "once"
    return f"pytest {test!r} --tempoeval-record-mode={mode}  (needs ANTHROPIC_API_KEY)"


class JudgeCassette:
    """One test's judgments on file, with vcrpy's record modes.

    - ``none``: replay only. ``once``: record if the file does not exist yet, else replay only.
      ``new_episodes``: replay what is there, record what is not. ``all``: record everything anew.
    - :meth:`save` writes atomically (temporary file, then rename) and only when something new was
      recorded, so a replay never touches the file and a crash mid-write leaves the old one intact.
    - While recording, the file is also saved every ``save_every`` seconds (stretched to ten times
      the last save's duration, so saving stays under ~10% of the time): a run that crashes or is
      killed keeps what it recorded, and ``new_episodes`` completes it.
    """

    def __init__(
        self,
        path: Path,
        record_mode: str = "none",
        command: str = "--tempoeval-record-mode=once",
        save_every: float = SAVE_EVERY_SECONDS,
        source: Path | None = None,
    ) -> None:
        check_choice("record mode", record_mode, RecordMode)
        self.path = Path(path)
        # Read from here while the file is at its legacy place; the next save moves it to path.
        self.source = Path(source) if source is not None else None
        read_from = self.source or self.path
        self.record_mode = record_mode
        self.command = command
        exists = os.path.exists(read_from)  # never raises: a name too long is not there
        if exists and (problem := regular_file_problem(read_from, "cassette")):
            raise JudgeCassetteError(problem)
        self.recording = record_mode in ("new_episodes", "all") or (
            record_mode == "once" and not exists
        )
        self._interactions: list[dict[str, Any]] = []
        self._answers: dict[str, dict[str, Any]] = {}  # normalised request body -> response
        self._read: dict[str, dict[str, Any]] = {}  # normalised body -> its valid parsed message
        self._positions: dict[str, int] = {}  # normalised request body -> index in _interactions
        self._recorded = 0
        self._clock = SaveClock(save_every)
        if exists and record_mode != "all":
            with _no_cyclic_gc():
                for interaction in _read_interactions(read_from, command):
                    self._add(interaction)
        # A whole re-recording (``all``) that fails partway must not shrink the file: until it is
        # complete, saves keep the old answers it has not asked again.
        self._previous: list[dict[str, Any]] = []
        self._merged_on_disk = False
        if exists and record_mode == "all":
            try:
                with _no_cyclic_gc():
                    self._previous = _read_interactions(read_from, command)
            except JudgeCassetteError:
                pass  # an unreadable file is what a whole re-recording replaces

    def __len__(self) -> int:
        return len(self._answers)

    def answer(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """The stored Messages API response (parsed JSON) for a request body, or None."""
        key = _body_key(body)
        if key in self._read:  # a judge asks once to plan (dry run, batches), then to answer
            return self._read[key]
        response = self._answers.get(key)
        if response is None:
            return None
        status = response.get("status")
        code = status.get("code") if isinstance(status, dict) else None
        if code is not None and not (isinstance(code, int) and 200 <= code < 300):
            if self.recording:
                return None  # asked again, and the new answer replaces the failed one
            raise JudgeCassetteError(
                f"{self.path}: the stored response to this judgment has HTTP status {code!r}: a "
                f"failed request is never an answer (recording keeps only successes, so the file "
                f"was edited). Re-record with: {self.command}"
            )
        try:
            message: dict[str, Any] | None = json.loads(_text(response.get("body")))
        except ValueError:
            message = None
        problem = "is not a JSON message" if not isinstance(message, dict) else _shape(message)
        if problem or message is None:
            if self.recording:
                return None  # asked again, and the new answer replaces the damaged one
            raise JudgeCassetteError(
                f"{self.path}: the stored response to this judgment {problem}. "
                f"Re-record with: {self.command}"
            )
        self._read[key] = message
        return message

    def miss(self) -> JudgeCassetteError:
        if not self._interactions and not os.path.exists(self.source or self.path):
            return JudgeCassetteError(
                f"the cassette {self.path} does not exist "
                f"(record mode {self.record_mode!r} replays only). "
                f"Record it with: {self.command}"
            )
        return JudgeCassetteError(
            f"this judgment is not in the cassette {self.path} (record mode {self.record_mode!r} "
            f"{'replays only' if self.record_mode == 'none' else _NO_RECORDING_INTO_EXISTING}; "
            f"a changed prompt, document or model is a miss). Re-record with: {self.command}"
        )

    def record(self, request: Any, response: Any) -> None:
        """Keep one successful exchange (an httpx request and its read response)."""
        if response.status_code >= 400:
            return  # the SDK retried it or reported it: an error is never replayed
        self._add(
            {
                "request": {
                    "body": request.content.decode("utf-8"),
                    "headers": _kept(request.headers, KEPT_REQUEST_HEADERS),
                    "method": request.method,
                    # Always the public endpoint: a gateway's path prefix or query (which can hold
                    # account ids or keys) is never stored, and stock vcrpy matches anywhere.
                    "uri": CANONICAL_API + MESSAGES_PATH,
                },
                "response": {
                    "body": {"string": response.content.decode("utf-8")},
                    "headers": _kept(response.headers, KEPT_RESPONSE_HEADERS),
                    "status": {"code": response.status_code, "message": response.reason_phrase},
                },
            },
            replace=True,
        )
        self._recorded += 1
        if self._clock.due():
            self.save()

    def save(self, complete: bool = False) -> None:
        """Write the cassette if anything was recorded (vcrpy's serializers, atomic replace).

        ``complete``: the test's judging finished. Only then does a whole re-recording (``all``)
        drop the old answers it did not ask again; before, they are kept beside the new ones.
        """
        if not (self._recorded or (complete and self._merged_on_disk)):
            return
        started = time.monotonic()  # serializing is most of a save: it counts in the interval
        from vcr.serializers import jsonserializer, yamlserializer

        serializer = jsonserializer if self.path.suffix == ".json" else yamlserializer
        # Sorted by request: the file does not depend on which concurrent answer came first, so
        # a re-recording (or -n 4 against -n 0) gives the same file and a clean diff.
        interactions = self._interactions
        self._merged_on_disk = bool(self._previous) and not complete
        if self._merged_on_disk:
            asked = set(self._positions)
            kept = [old for old in self._previous if _key(old) not in asked]
            interactions = kept + interactions
        interactions = sorted(interactions, key=_sort_key)
        text = serializer.serialize({"interactions": interactions, "version": 1})
        if serializer is yamlserializer:
            # e.g. "recorded against the fake server"
            text = _leading_comment(self.source or self.path) + text
        write_atomically(self.path, text)
        # A legacy place may hold another test's cassette (the old mapping collapsed ids): it is
        # copied from, never removed.
        self.source = None
        self._recorded = 0
        self._clock.saved(started)

    def _add(self, interaction: dict[str, Any], replace: bool = False) -> None:
        """Index an interaction. The first one stored for a body answers it (as in vcrpy), unless
        ``replace``: a judgment asked again (its reply was invalid) supersedes the stored one."""
        key = _key(interaction)
        if key is None:
            self._interactions.append(interaction)
            return
        if key in self._positions and replace:
            self._interactions[self._positions[key]] = interaction
            self._answers[key] = interaction["response"]
            self._read.pop(key, None)
            return
        self._interactions.append(interaction)
        if key not in self._positions:
            self._positions[key] = len(self._interactions) - 1
            self._answers[key] = interaction["response"]


def _key(interaction: dict[str, Any]) -> str | None:
    """The normalised body of a Messages API request (None for any other interaction)."""
    request = interaction["request"]
    if str(request.get("method", "")).upper() != "POST" or not str(request.get("uri", "")).endswith(
        MESSAGES_PATH
    ):
        return None
    return _normalised_body(_text(request.get("body")))


@contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """Loading builds dozens of containers per interaction, none in a cycle; with the cyclic GC on,
    each collection rescans everything built so far and the load grows superlinearly."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _kept(headers: Any, names: tuple[str, ...]) -> dict[str, list[str]]:
    return {name: [value] for name, value in headers.items() if name.lower() in names}


_MAX_YAML_DEPTH = 1000  # a cassette nests about 6 levels
# 1,000 flow-collection openers in a row ("[[[", "{ {"); searching costs ~1% of a YAML replay.
_DEEP_YAML = re.compile(r"[\[{](?:[ \t\r\n]{0,8}[\[{]){" + str(_MAX_YAML_DEPTH - 1) + "}")


def _read_interactions(path: Path, command: str) -> list[dict[str, Any]]:
    """The stored interactions; anything unreadable is a JudgeCassetteError naming file and line.

    The file is never rewritten here: a broken cassette stays as it is until a re-record."""

    def broken(problem: str, line: int | None = None) -> JudgeCassetteError:
        where = f"{path}:{line}" if line else str(path)
        whole = re.sub(r"--tempoeval-record-mode=\w+", "--tempoeval-record-mode=all", command)
        return JudgeCassetteError(
            f"{where}: not a readable cassette: {problem}. It was left as it is: fix it, or "
            f"re-record it whole with: {whole}"
        )

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise broken(str(error)) from None
    if path.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise broken(error.msg, error.lineno) from None
        except (ValueError, RecursionError) as error:  # a 4,301-digit number; 100,000 nested '['
            raise broken(f"{type(error).__name__}: {str(error)[:80]}") from None
    else:
        import yaml

        # libyaml's C composer recurses once per nesting level and crashes (SIGSEGV) past ~20,000. A
        # text with 1,000 flow openers in a row is read by PyYAML's Python loader instead, which
        # raises RecursionError (caught below) where the C one would crash, and reads a valid file.
        deep = _DEEP_YAML.search(text) is not None
        loader = yaml.SafeLoader if deep else getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        try:
            data = yaml.load(text, Loader=loader)
        except yaml.reader.ReaderError as error:  # a character YAML refuses: no mark, a position
            raise broken(
                f"character {error.character!r} is not allowed",
                text.count("\n", 0, error.position) + 1,
            ) from None
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            raise broken(
                getattr(error, "problem", None) or str(error), mark.line + 1 if mark else None
            ) from None
        except (
            ValueError,
            OverflowError,
            RecursionError,
        ) as error:  # 2020-13-45, a 4,301-digit number
            raise broken(f"{type(error).__name__}: {str(error)[:80]}") from None
    interactions = data.get("interactions") if isinstance(data, dict) else None
    if not isinstance(interactions, list):
        raise broken("expected a mapping with an 'interactions' list")
    for number, interaction in enumerate(interactions, 1):
        if not (
            isinstance(interaction, dict)
            and isinstance(interaction.get("request"), dict)
            and isinstance(interaction.get("response"), dict)
        ):
            raise broken(f"interaction {number} is not a mapping with 'request' and 'response'")
    return interactions


def _shape(message: dict[str, Any]) -> str:
    """What is wrong with the fields of a stored Messages API response ("" when nothing): a
    hand-edited cassette must fail naming its file, not with a TypeError inside the judge."""
    content = message.get("content")
    if not isinstance(content, list) or not all(isinstance(block, dict) for block in content):
        return "has no 'content' list of blocks"
    if any(not isinstance(block.get("text", ""), str) for block in content):
        return "has a content block whose 'text' is not a string"
    usage = message.get("usage", {})
    if not isinstance(usage, dict):
        return "has a 'usage' that is not a mapping"
    for field in ("input_tokens", "output_tokens"):
        count = usage.get(field, 0)
        if isinstance(count, bool) or not isinstance(count, int):
            return f"has a 'usage.{field}' that is not an integer"
    return ""


def _leading_comment(path: Path) -> str:
    """The ``#`` lines a YAML cassette starts with, kept when it is rewritten: from a regular file
    only, never through a symlink (whose target may be any file)."""
    if path.is_symlink():
        return ""
    try:
        with path.open(encoding="utf-8") as file:
            lines = []
            for line in file:
                if not line.startswith("#"):
                    break
                lines.append(line)
            return "".join(lines)
    except (OSError, UnicodeDecodeError):
        return ""


def _sort_key(interaction: dict[str, Any]) -> tuple[str, str, str]:
    request = interaction["request"]
    return (
        str(request.get("uri", "")),
        str(request.get("method", "")),
        _normalised_body(_text(request.get("body"))),
    )


def _text(body: Any) -> str:
    """A vcrpy body: a string, or ``{"string": ...}``; anything else (a damaged file) is ""."""
    if isinstance(body, dict):
        body = body.get("string", "")
    if isinstance(body, bytes):
        body = body.decode("utf-8", errors="replace")
    return body if isinstance(body, str) else ""


def _body_key(body: Any) -> str:
    """A request body as vcrpy's body matcher compares JSON: as data, whatever its key order."""
    return json.dumps(body, sort_keys=True, separators=(",", ":"))


def _normalised_body(text: str) -> str:
    try:
        return _body_key(json.loads(text))
    except (ValueError, TypeError):
        return text
