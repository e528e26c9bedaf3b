"""Reading a file: :func:`read_fields`, which streams it in blocks of lines parsed on two threads.

The file is read into one reusable buffer, a block of whole lines at a time, so it is never held
whole: blocks of about :data:`BLOCK_BYTES` on threads, of :data:`SEQUENTIAL_BLOCK_BYTES` one after
the other. Blocks are parsed on up to two threads (numpy releases the GIL in
its loops); each writes its rows straight into the output, where the block before it says they
start, and results are collected in file order, so the first problem in the file is the one
reported. Each block in flight gets its own copy of the bytes, in a buffer reused once its block is
done.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol

import numpy as np

from pytest_tempoeval.data.columns.ids import WORD_BYTES
from pytest_tempoeval.data.readers.lines import SNIFF_BYTES, lines_end_in_cr
from pytest_tempoeval.data.readers.trec_tokens._memory import keep_freed_memory
from pytest_tempoeval.data.readers.trec_tokens.fields import (
    NEWLINE,
    PADDING,
    RETURN,
    SPACE,
    LineFormat,
    Problem,
    TrecFields,
)
from pytest_tempoeval.data.readers.trec_tokens.layout import split_lines
from pytest_tempoeval.data.readers.trec_tokens.output import Output, Stored, write_rows
from pytest_tempoeval.errors import located

if TYPE_CHECKING:
    from concurrent.futures import Future

    import numpy.typing as npt

# Lines of about this many bytes are parsed at a time: a block and its temporaries stay in the
# processor's caches, and are reused rather than page-faulted anew.
BLOCK_BYTES = 1 << 22
# Blocks parsed one after the other (a file of one BLOCK_BYTES block, or one core) are smaller:
# their temporaries, five times the block, are fresh pages the first time, which a short process
# pays for. A 3 MiB run (1,000 queries) read in 512 KiB blocks: 1,800 page faults instead of
# 5,300, 22 ms instead of 30.
SEQUENTIAL_BLOCK_BYTES = 1 << 19
WORKERS = 2
_BYTE_ORDER_MARK = b"\xef\xbb\xbf"
_NEWLINE_SEARCH = 1 << 16  # bytes searched at a time, from the end, for a block's last newline


def read_fields(
    path: Path, layout: LineFormat, error: type[Exception], header: bytes | None = None
) -> TrecFields:
    """Read a file of lines of ``layout.n_fields`` blank-separated fields.

    Blank lines and comment lines (``#`` in the first column, as trec_eval 10 reads them) are
    skipped, and so is a first line starting with ``header`` (a TSV header). Any other line with a
    wrong field count, a field that does not parse, or a control byte raises ``error`` naming the
    file and the line.
    """
    path = Path(path)
    size = path.stat().st_size
    if size == 0:
        raise error(located(path, 1, f"the file is empty; expected lines of {layout.what}"))
    keep_freed_memory()
    # A line holds at least 2 * n_fields bytes, which bounds the row count without a counting pass;
    # pages of the output never written are never touched.
    output = Output(size // (2 * layout.n_fields) + 1, layout)
    first_line = 1

    def collect(block: Stored | Problem) -> None:
        nonlocal first_line
        if isinstance(block, Problem):
            raise error(located(path, first_line + block.line, block.message))
        output.add(block)
        first_line += block.n_newlines

    if size > BLOCK_BYTES and (os.cpu_count() or 1) > 1:
        blocks = _blocks_of_lines(path, BLOCK_BYTES)
        _parse_on_threads(blocks, path, error, header, layout, output, collect)
    else:  # one block, or one core: no thread, and no concurrent.futures to import (~1.5 ms)
        start: _Handoff = _Given(_Start(0, 0))
        for number, (buffer, end) in enumerate(_blocks_of_lines(path, SEQUENTIAL_BLOCK_BYTES)):
            if number == 0:
                _check_first_block(buffer, end, path, error, header)
            after = _Given()
            collect(_parse_block(buffer, end, layout, output, start, after))
            start = after
    if output.rows == 0:
        message = f"no data lines: the file is empty or all blank or comment lines ({layout.what})"
        raise error(located(path, 1, message))
    return output.fields()


def _parse_on_threads(
    blocks: Iterator[tuple[npt.NDArray[np.uint8], int]],
    path: Path,
    error: type[Exception],
    header: bytes | None,
    layout: LineFormat,
    output: Output,
    collect: Callable[[Stored | Problem], None],
) -> None:
    """Parse the blocks on :data:`WORKERS` threads, collecting them in file order."""
    from concurrent.futures import Future, ThreadPoolExecutor

    workers = min(WORKERS, os.cpu_count() or 1)
    start: Future[_Start | None] = Future()
    start.set_result(_Start(0, 0))
    free: list[npt.NDArray[np.uint8]] = []  # copies whose block is done, for reuse
    with ThreadPoolExecutor(max_workers=workers) as pool:
        pending: deque[tuple[npt.NDArray[np.uint8], Future[Stored | Problem]]] = deque()
        for number, (buffer, end) in enumerate(blocks):
            if number == 0:
                _check_first_block(buffer, end, path, error, header)
            after: Future[_Start | None] = Future()
            copy = free.pop() if free and free[-1].size >= end + PADDING else None
            if copy is None:
                copy = np.empty(buffer.size, dtype=np.uint8)
            copy[:end] = buffer[:end]
            copy[end : end + PADDING] = 0
            parsed = pool.submit(_parse_block, copy, end, layout, output, start, after)
            pending.append((copy, parsed))
            start = after
            if len(pending) > workers:
                done, oldest = pending.popleft()
                collect(oldest.result())
                free.append(done)
        while pending:
            collect(pending.popleft()[1].result())


def _check_first_block(
    buffer: npt.NDArray[np.uint8],
    end: int,
    path: Path,
    error: type[Exception],
    header: bytes | None,
) -> None:
    """Refuse a byte-order mark; blank out a header line."""
    if buffer[: len(_BYTE_ORDER_MARK)].tobytes() == _BYTE_ORDER_MARK:
        message = "the file starts with a UTF-8 byte-order mark; save it without one"
        raise error(located(path, 1, message))
    if header is not None and buffer[: len(header)].tobytes() == header:
        _blank_first_line(buffer, end)


def _blank_first_line(buffer: npt.NDArray[np.uint8], end: int) -> None:
    """Turn the first line into blanks: skipped, while line numbers stay as they are."""
    newlines = np.flatnonzero(buffer[:end] == NEWLINE)
    stop = int(newlines[0]) if newlines.size else end
    buffer[:stop] = SPACE


def _blocks_of_lines(path: Path, block_bytes: int) -> Iterator[tuple[npt.NDArray[np.uint8], int]]:
    """Stream the file as blocks of whole lines: ``(buffer, end)``, the lines being
    ``buffer[:end]``.

    One reusable buffer of about ``block_bytes``: the file is never held whole. In a fresh process
    memory touched for the first time is paid for (the kernel zeroes its pages), so peak memory
    is time. Bytes after ``end`` (the next lines, then padding) only serve the word-wide gathers,
    which mask them off.
    """
    buffer = np.empty(block_bytes + PADDING, dtype=np.uint8)
    buffer[block_bytes:] = 0
    carried = 0  # bytes of an unfinished line, moved to the front of the buffer
    cr_lines: bool | None = None  # decided on the first bytes read
    with path.open("rb") as file:
        while True:
            if carried == buffer.size - PADDING:  # one line longer than the whole buffer: grow it
                bigger = np.empty(2 * buffer.size, dtype=np.uint8)
                bigger[:carried] = buffer[:carried]
                buffer = bigger
            capacity = buffer.size - PADDING
            read = file.readinto(buffer.data[carried:capacity])
            filled = carried + read
            if cr_lines is None:
                cr_lines = lines_end_in_cr(bytes(buffer.data[: min(filled, SNIFF_BYTES)]))
            if cr_lines:  # rare: only a file with no LF at all pays for this pass
                fresh = buffer[carried:filled]
                fresh[fresh == RETURN] = NEWLINE
            if read == 0:
                if carried:
                    buffer[carried : carried + WORD_BYTES] = 0
                    yield buffer, carried  # the last line has no final newline
                return
            end = _after_last_newline(buffer, filled)
            if end:
                yield buffer, end
                carried = filled - end
                buffer[:carried] = buffer[end:filled].copy()
            else:
                carried = filled


def _after_last_newline(buffer: npt.NDArray[np.uint8], filled: int) -> int:
    """Offset just after the last newline in ``buffer[:filled]`` (0 if there is none)."""
    stop = filled
    while stop > 0:
        start = max(0, stop - _NEWLINE_SEARCH)
        newlines = np.flatnonzero(buffer[start:stop] == NEWLINE)
        if newlines.size:
            return start + int(newlines[-1]) + 1
        stop = start
    return 0


class _Start(NamedTuple):
    """Where a block's rows start in the output, and its first line (0-based)."""

    row: int
    line: int


class _Handoff(Protocol):
    """What a block hands the next one (its :class:`_Start`, or None after a problem): a
    ``concurrent.futures.Future`` on threads, a :class:`_Given` in sequence."""

    def result(self) -> _Start | None: ...
    def set_result(self, result: _Start | None) -> None: ...
    def done(self) -> bool: ...


class _Given:
    """A :class:`_Handoff` for blocks parsed one after the other: set before it is read."""

    def __init__(self, value: _Start | None = None) -> None:
        self._value, self._done = value, value is not None

    def result(self) -> _Start | None:
        return self._value

    def set_result(self, result: _Start | None) -> None:
        self._value, self._done = result, True

    def done(self) -> bool:
        return self._done


def _parse_block(
    buffer: npt.NDArray[np.uint8],
    end: int,
    layout: LineFormat,
    output: Output,
    start: _Handoff,
    after: _Handoff,
) -> Stored | Problem:
    """Parse the lines ``buffer[:end]`` and write their fields into ``output``; runs on a worker.

    ``start`` is set by the block before this one (None once a block found a problem or raised:
    nothing after it is written); this block sets ``after`` as soon as it knows its row count, so
    blocks wait on each other only for that.
    """
    try:
        lines = split_lines(buffer, end, layout)
        if isinstance(lines, Problem):
            return lines
        begin = start.result()
        if begin is None:  # an earlier block has a problem, which is what gets reported
            return Problem(0, "not read")
        if not output.words:
            output.allocate({field: lines.widths[field] for field in layout.ids})
        rows = slice(begin.row, begin.row + lines.numbers.size)
        after.set_result(_Start(rows.stop, begin.line + lines.n_newlines))
        return write_rows(buffer, end, layout, lines, output, rows, begin.line + 1)
    finally:
        # Whatever went wrong (a bug, MemoryError), the next block must not wait forever, or
        # the pool's shutdown would hang instead of the error reaching the caller.
        if not after.done():
            after.set_result(None)
