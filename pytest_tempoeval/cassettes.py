"""Recording LLM judgments once, replaying them forever: vcrpy cassettes for the judge.

- A cassette per test, at ``<tempoeval_cassette_dir>/<test module>/<test name>.yaml``
  (pytest-recording's layout; ``.json`` when vcrpy's JSON serializer is chosen, which loads ~15x
  faster).
- Matching includes the request body, so a changed prompt, document or model is a miss, never a
  wrong answer. In record mode ``none`` a miss fails at once with :class:`JudgeCassetteError`.
- Nothing secret is written: the ``authorization`` and ``x-api-key`` request headers are filtered,
  account headers are dropped from responses, compressed bodies are stored decoded, and error
  responses (status >= 400) are never recorded.
- Replay is an indexed lookup (:class:`IndexedCassette`), not vcrpy's scan of every stored
  interaction per request, so replaying N judgments costs O(N), not O(N^2). Cassettes stay standard
  vcrpy cassettes: stock ``vcr.use_cassette`` replays them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .errors import JudgeError

MATCH_ON = ("method", "scheme", "host", "port", "path", "query", "body")
FILTERED_REQUEST_HEADERS = ("authorization", "x-api-key")
DROPPED_RESPONSE_HEADERS = ("anthropic-organization-id", "request-id", "cf-ray", "set-cookie")
RECORD_MODES = ("none", "once", "new_episodes", "all")


class JudgeCassetteError(JudgeError):
    """A judgment is not in the cassette and the record mode forbids asking the API."""


def cassette_miss(path: Path, command: str) -> JudgeCassetteError:
    return JudgeCassetteError(
        f"this judgment is not in the cassette {path} (record mode 'none' replays only; a changed "
        f"prompt, document or model is a miss). Re-record with: {command}"
    )


def cassette_path(directory: Path, node: Any, serializer: str = "yaml") -> Path:
    module = Path(node.path).stem
    name = re.sub(r"[^\w.\-\[\]]+", "_", node.name)
    return directory / module / f"{name}.{'json' if serializer == 'json' else 'yaml'}"


def rerecord_command(node: Any) -> str:
    return f"pytest {node.nodeid!r} --tempoeval-record-mode=once  (needs ANTHROPIC_API_KEY)"


@contextmanager
def judge_cassette(path: Path, record_mode: str) -> Iterator[Any]:
    """Route every HTTP request made inside the block through the cassette at ``path``."""
    import vcr

    if record_mode not in RECORD_MODES:
        raise ValueError(f"record mode must be one of {', '.join(RECORD_MODES)}, got {record_mode!r}")
    recorder = vcr.VCR(
        record_mode=record_mode,
        match_on=MATCH_ON,
        filter_headers=list(FILTERED_REQUEST_HEADERS),
        before_record_request=_canonical_host,
        before_record_response=_scrub_response,
        decode_compressed_response=True,
        serializer="json" if path.suffix == ".json" else "yaml",
    )
    config = recorder.get_merged_config(path=str(path))
    with IndexedCassette.use(**config) as cassette:
        yield cassette


CANONICAL_API = "https://api.anthropic.com"


def _canonical_host(request: Any) -> Any:
    """Store and match every request as if sent to the public API: a cassette recorded against the
    loopback fake server (on a random port) or a proxy replays anywhere. Copies: vcrpy may pass the
    live request."""
    from urllib.parse import urlsplit

    parts = urlsplit(request.uri)
    canonical = CANONICAL_API + parts.path + (f"?{parts.query}" if parts.query else "")
    if request.uri == canonical:
        return request
    import copy

    request = copy.copy(request)
    request.uri = canonical
    return request


def _scrub_response(response: dict[str, Any]) -> dict[str, Any] | None:
    if response["status"]["code"] >= 400:
        return None  # the SDK retried it or reported it: an error is never replayed
    headers = response["headers"]
    for name in list(headers):
        if name.lower() in DROPPED_RESPONSE_HEADERS:
            del headers[name]
    return response


def is_cassette_miss(error: BaseException) -> bool:
    """Whether an SDK error was caused by vcrpy refusing an unrecorded request."""
    from vcr.errors import CannotOverwriteExistingCassetteException

    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, CannotOverwriteExistingCassetteException):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _indexed_cassette_class() -> type:
    from vcr.cassette import Cassette

    class _Indexed(Cassette):
        """A vcrpy Cassette whose lookups use a dict keyed by (method, URI, JSON-normalised body).

        The key is at least as strict as ``MATCH_ON`` (JSON bodies compare as data, like vcrpy's
        body matcher), so it finds exactly what vcrpy's scan would find, in O(1).
        """

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self._index: dict[tuple[str, str, str], list[int]] = {}
            super().__init__(*args, **kwargs)

        def append(self, request: Any, response: Any) -> None:
            before = len(self.data)
            super().append(request, response)
            if len(self.data) > before:
                self._index.setdefault(_request_key(self.data[-1][0]), []).append(before)

        def _responses(self, request: Any) -> Iterator[tuple[int, Any]]:
            request = self._before_record_request(request)
            if not request:
                return
            for index in self._index.get(_request_key(request), ()):
                yield index, self.data[index][1]

    return _Indexed


class _LazyClass:
    """Defers importing vcrpy until a cassette is used (the plugin must stay light)."""

    def __getattr__(self, name: str) -> Any:
        global IndexedCassette
        IndexedCassette = _indexed_cassette_class()  # type: ignore[misc]
        return getattr(IndexedCassette, name)


IndexedCassette: Any = _LazyClass()


def _request_key(request: Any) -> tuple[str, str, str]:
    return (request.method.upper(), request.uri, _normalised_body(_text(request.body)))


class ReplayIndex:
    """Record mode ``none`` without the SDK: answers read straight from a cassette file.

    Replaying through the SDK and vcrpy costs ``import anthropic`` (~2 s) plus request building and
    deep copies for every judgment; this index maps each stored request body (JSON-normalised, as
    vcrpy's body matcher compares it) to its response, so a replayed judgment is a dict lookup. The
    file stays a standard vcrpy cassette.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._answers: dict[str, dict[str, Any]] = {}
        if path.is_file():
            for interaction in _read_interactions(path):
                request, response = interaction["request"], interaction["response"]
                if request.get("method", "").upper() != "POST" or not request.get("uri", "").endswith("/v1/messages"):
                    continue
                self._answers.setdefault(_normalised_body(_text(request.get("body"))), response)

    def answer(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """The stored Messages API response (parsed JSON) for a request body, or None."""
        response = self._answers.get(_normalised_body(json.dumps(body)))
        if response is None:
            return None
        return json.loads(_text(response.get("body")))


def _read_interactions(path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        data = json.loads(text)
    else:
        import yaml

        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return list((data or {}).get("interactions", []))


def _text(body: Any) -> str:
    """A vcrpy body: a string, or ``{"string": ...}``."""
    if isinstance(body, dict):
        body = body.get("string", "")
    if isinstance(body, bytes):
        body = body.decode("utf-8", errors="replace")
    return body or ""


def _normalised_body(text: str) -> str:
    try:
        return json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"))
    except (ValueError, TypeError):
        return text
