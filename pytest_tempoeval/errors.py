"""Every exception and warning class the package raises, in one place, all exported from
``pytest_tempoeval``.

Each error says where (``path:line:``, query id, doc id) and what to do. Errors are raised on
purpose and never turned into a score: a failure scored as 0 would make a broken input look like a
bad retriever.
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from collections.abc import Iterable
from types import FrameType
from typing import Self


class TempoEvalError(Exception):
    """Base class of every error this package raises on purpose."""


class FocusTimeError(TempoEvalError, ValueError):
    """A value could not be read as a focus time (bad year, unknown form, year out of bounds)."""


class GoldSetError(TempoEvalError, ValueError):
    """A golden query set is malformed. The message starts with ``path:line:``."""


class RunError(TempoEvalError, ValueError):
    """A run (ranked results) is malformed or does not fit the gold set."""


class MetricError(TempoEvalError, ValueError):
    """A metric was called with arguments it cannot honour (k <= 0, unknown mode, ...)."""


class JudgeError(TempoEvalError, RuntimeError):
    """An LLM judge failed to give a valid judgment. Never scored as 0.

    Its message passes through :func:`scrub_secrets`: API errors quote requests and responses, and
    the message reaches the terminal, logs and JUnit XML."""

    def __init__(self, *args: object) -> None:
        super().__init__(*(scrub_secrets(arg) if isinstance(arg, str) else arg for arg in args))

    def in_context(self, where: str) -> Self:
        """This error with ``where`` before its message: a copy of the same class with the same
        attributes (a dry run's counts), made without calling its constructor, whose arguments
        differ from class to class."""
        if str(self).startswith(where):
            return self
        located = type(self).__new__(type(self))
        located.__dict__.update(self.__dict__)
        located.args = (scrub_secrets(f"{where}: {self}"),)
        return located


class InvalidReply(JudgeError):
    """One judge reply could not be read as a judgment; the caller may ask again."""


class NoValidAnswer(JudgeError):
    """Every try gave a reply that is not a valid judgment (the message carries the last one)."""


class JudgeCassetteError(JudgeError):
    """A judgment is not in the cassette and the record mode forbids asking the API, or the cassette
    cannot be read."""


class JudgeBudgetSpent(JudgeError):
    """The session's cap on new judge requests (ini ``tempoeval_judge_max_requests``) is reached
    while judgments are still missing. What was recorded is kept; the score is not computed."""


class JudgeDryRun(JudgeError):
    """Raised instead of asking the judge under ``--tempoeval-judge-dry-run``: the judgments a call
    needs were counted, and the plugin skips the test with the count. Carries the counts (of the
    prompts no earlier call of the same judge counted) and where the held ones are."""

    def __init__(self, message: str, needed: int, held: int, where: str = "") -> None:
        super().__init__(message)
        self.needed, self.held, self.where = needed, held, where


class BaselineError(TempoEvalError, ValueError):
    """A baseline file is missing, unreadable or does not fit the result it is compared with."""


class BaselineRegression(AssertionError):
    """The gate: a result dropped below its baseline (beyond max_drop, and significantly)."""


class BaselineWarning(UserWarning):
    """A baseline check that compared fewer queries than its baseline holds: queries of the gold
    set changed (in what the measure reads), were added or removed since the baseline was written.
    They are named; re-baseline to compare them again. Turn it into an error with
    ``-W error::pytest_tempoeval.BaselineWarning``."""


class GoldSetWarning(UserWarning):
    """A gold set that loads but probably does not say what its author meant: a judged document
    that the declared documents lack (a typo there lowers every score, silently). Turn it into an
    error with ``-W error::pytest_tempoeval.GoldSetWarning``."""


class RunWarning(UserWarning):
    """A run that loads but will probably score lower than its retriever deserves: a retriever
    that returned fewer than ``k`` results for most queries (the missing ranks count as not
    relevant, and precision divides by ``k``). Turn it into an error with
    ``-W error::pytest_tempoeval.RunWarning``."""


# Shown as pytest_tempoeval.RunError in tracebacks: the public name, where users import it from.
for _error in (
    TempoEvalError,
    FocusTimeError,
    GoldSetError,
    RunError,
    MetricError,
    JudgeError,
    InvalidReply,
    NoValidAnswer,
    JudgeCassetteError,
    JudgeBudgetSpent,
    JudgeDryRun,
    BaselineError,
    BaselineRegression,
    BaselineWarning,
    GoldSetWarning,
    RunWarning,
):
    _error.__module__ = "pytest_tempoeval"
del _error


def warn(warning: Warning) -> None:
    """Issue ``warning`` at the first frame outside this package: the user's call, not ours."""
    package = os.path.dirname(__file__) + os.sep
    frame: FrameType | None = sys._getframe(1)
    level = 2  # stacklevel 2: our caller
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    warnings.warn(warning, stacklevel=level)


def located(path: object, line: int | None, message: str) -> str:
    """Format ``path:line: message`` the way compilers and pytest do, so editors can jump there."""
    where = f"{path}:{line}" if line is not None else f"{path}"
    return f"{where}: {message}"


def closest_match(word: str, candidates: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The candidate most like ``word``, for "did you mean ...?" hints (None if none is close)."""
    import difflib  # at first use: only a failing call needs it

    close = difflib.get_close_matches(word, candidates, n=1, cutoff=cutoff)
    return close[0] if close else None


def check_choice(
    what: str, value: object, choices: Iterable[str], error: type[Exception] = ValueError
) -> str:
    """``value`` if it is one of ``choices``; else ``error`` saying "``what`` must be one of ...,
    got ...", with a "did you mean" hint. The one wording of every closed-set setting and
    parameter (ini keys, command-line choices, measure parameters, function arguments)."""
    allowed = tuple(map(str, choices))  # enum members as their values
    if isinstance(value, str) and value in allowed:
        return value
    message = f"{what} must be one of {', '.join(allowed)}, got {value!r}"
    if isinstance(value, str) and (close := closest_match(value, allowed)):
        message += f" (did you mean {close!r}?)"
    raise error(message)


# What a secret looks like in an error text: an Anthropic key, a bearer token, a key-like header or
# parameter with its value, and the query string of a URL (gateways take keys there). A value ends
# where its quotes, call or mapping do (``api_key=s3cret)``: the parenthesis stays), and one with no
# letter or digit is a placeholder, not a secret (``AnthropicJudge(api_key=...)`` in a hint).
_VALUE = r"(?=[^\s\"',;}\])&]*[A-Za-z0-9])[^\s\"',;}\])&]+"
_SECRETS = [
    (r"(https?://[^\s?#\"'<>]+)\?[^\s\"'#<>]*", r"\1?<hidden>"),
    (r"sk-ant-[A-Za-z0-9_\-]+", "sk-ant-<hidden>"),
    (r"(?i)(bearer\s+)[A-Za-z0-9._~+/=\-]+", r"\1<hidden>"),
    (
        r"(?i)\b(x-api-key|api[_-]?key|authorization|token)([\"']?\s*[:=]\s*[\"']?)" + _VALUE,
        r"\1\2<hidden>",
    ),
]


BASE_URL_SHOWN = "<base URL>"
# The judges' base URLs, hidden wherever they appear (hide_base_url): a gateway's path can carry an
# account or a token (/gw/acct-7731/tok_...), and a server that echoes the request path (a 404)
# puts it into the error, the terminal and the JUnit XML. Kept for the process: every JudgeError
# is scrubbed, wherever it is built (the judge, its batches, the SDK's message quoted).
_BASE_URLS: dict[str, re.Pattern[str]] = {}


def hide_base_url(url: str) -> None:
    """From now on, :func:`scrub_secrets` shows ``url`` (and its path alone, as an echoed request
    path has it) as ``<base URL>``."""
    from urllib.parse import quote, unquote, urlsplit

    url = url.strip().rstrip("/")
    if not url or url in _BASE_URLS:
        return
    path = urlsplit(url).path.rstrip("/")
    forms = {url}
    if path.strip("/"):
        forms |= {path, unquote(path), quote(unquote(path), safe="/")}
    # Longest first, so the whole URL goes before its path; a path only as a whole (not inside a
    # longer path segment: /gw does not hide /gwen).
    alternatives = "|".join(re.escape(form) for form in sorted(forms, key=len, reverse=True))
    _BASE_URLS[url] = re.compile(rf"(?:{alternatives})(?![\w.~%-])")


def scrub_secrets(text: str) -> str:
    """``text`` with API keys, bearer tokens, key-like values, URL query strings and the judges'
    base URLs (:func:`hide_base_url`) hidden: the one scrubber every judge error passes through."""
    for pattern in list(_BASE_URLS.values()):
        text = pattern.sub(BASE_URL_SHOWN, text)
    for secret, replacement in _SECRETS:  # compiled at first use (re caches them): ~0.6 ms
        text = re.sub(secret, replacement, text)  # at every start of a process that never errs
    return text
