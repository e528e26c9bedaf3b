"""How the plugin's errors and failures read in a test report: the user's line and the message,
not the plugin's own frames.

pytest prints every frame between the test and the ``raise``. For an error the plugin raises on
purpose (a bad file, a cassette miss, a regression), those frames are the plugin's insides, and
they bury the one line that matters. So, unless ``--tb=long``, ``--full-trace`` or ``--pdb`` asks
for everything (``options.Settings.trim_failures``), the frames of this package are taken out of
the traceback, and the chain of an error it wrapped is dropped when that chain holds nothing of
the user's.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import threading
import types
from collections.abc import Iterator

from pytest_tempoeval.errors import BaselineRegression, TempoEvalError

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
# The event loop and thread pools the plugin runs the judge and retrievers on: once the traceback
# is inside the plugin, their frames are its plumbing too.
_RUNNERS = tuple(
    os.path.dirname(os.path.abspath(module.__file__ or "")) + os.sep
    for module in (asyncio, concurrent.futures)
) + (os.path.abspath(threading.__file__),)
# A chain made only of these says nothing the message does not.
_PLUMBING = (_PACKAGE, *_RUNNERS)
_PLUMBING_NAMES = (os.sep + "anthropic" + os.sep, os.sep + "httpx", os.sep + "httpcore" + os.sep)


def trim(error: BaseException) -> None:
    """Take this package's frames out of ``error``'s traceback, and drop its chain when the chain
    is plugin plumbing (an error it wrapped, an asyncio cancellation)."""
    error.__traceback__ = _without_package_frames(error.__traceback__)
    ours = isinstance(error, (TempoEvalError, BaselineRegression))
    for cause in (error.__cause__, error.__context__):
        if cause is None:
            continue
        if ours and _is_plumbing(cause):
            error.__cause__, error.__suppress_context__ = None, True
            break
        cause.__traceback__ = _without_package_frames(cause.__traceback__)


def _is_plumbing(error: BaseException) -> bool:
    if isinstance(error, (TempoEvalError, asyncio.CancelledError)):
        return True
    return all(
        filename.startswith(_PLUMBING) or any(name in filename for name in _PLUMBING_NAMES)
        for filename in _filenames(error.__traceback__)
    )


def _filenames(traceback: types.TracebackType | None) -> Iterator[str]:
    while traceback is not None:
        yield traceback.tb_frame.f_code.co_filename
        traceback = traceback.tb_next


def _without_package_frames(
    traceback: types.TracebackType | None,
) -> types.TracebackType | None:
    kept, inside = [], False
    while traceback is not None:
        filename = traceback.tb_frame.f_code.co_filename
        inside = inside or filename.startswith(_PACKAGE)
        if not (filename.startswith(_PACKAGE) or (inside and filename.startswith(_RUNNERS))):
            kept.append(traceback)  # the user's frames, also those the plugin called back
        traceback = traceback.tb_next
    rebuilt = None
    for entry in reversed(kept):
        rebuilt = types.TracebackType(rebuilt, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return rebuilt


def after_a_stop(error: BaseException) -> bool:
    """Whether a test that raised ``error`` after a judged call the dry run stopped is skipped all
    the same: anything but an interrupt or pytest.exit (the call's missing score may be why)."""
    import pytest

    outcomes = (Exception, pytest.fail.Exception, pytest.skip.Exception)
    return isinstance(error, outcomes) and not isinstance(error, pytest.exit.Exception)
