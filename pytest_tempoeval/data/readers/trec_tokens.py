"""The tokeniser behind the TREC readers: whitespace-separated fields, vectorised in numpy.

A 100,000-query run is ten million lines; splitting it in Python allocates sixty million objects and
takes longer than trec_eval's whole evaluation. So the file is read into one byte buffer and
tokenised with array operations: find the blanks, check every line has the right number of fields,
then gather the fields we need, eight bytes at a time, as big-endian uint64 "id words" (see
:mod:`pytest_tempoeval.data.columns`). Their order is ``strcmp`` order, which trec_eval breaks
ties by.

Each pass over the bytes, and each fresh file-sized temporary, costs real time at this size, so the
common layout (one blank between fields) is read with strided views only.
"""

from __future__ import annotations

import math
import mmap
import os
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pytest_tempoeval.data.columns import id_words, words_for, words_to_ids
from pytest_tempoeval.data.readers.lines import SNIFF_BYTES, lines_end_in_cr
from pytest_tempoeval.errors import located

# Bytes trec_eval's parser treats as blanks between fields (C isspace).
_BLANKS = np.zeros(256, dtype=bool)
_BLANKS[[9, 10, 11, 12, 13, 32]] = True
_NEWLINE, _SPACE, _TAB, _RETURN, _DEL = 10, 32, 9, 13, 0x7F
_MAX_FIELD_BYTES = (
    4096  # a longer "id" is a broken file (binary data, a missing newline), not an id
)
_PADDING = _MAX_FIELD_BYTES + 8  # zero bytes after the data, so gathers never run off the end
# _FIRST_BYTES[n]: mask keeping the first n bytes of a big-endian word (gathers, SWAR parsing).
_FIRST_BYTES = np.array([((1 << (8 * n)) - 1) << (8 * (8 - n)) for n in range(9)], dtype=np.uint64)


@dataclass(frozen=True, eq=False)
class TrecFields:
    """Selected fields of a whitespace-separated file, one row per non-blank line."""

    words: dict[int, np.ndarray]  # id field -> (rows, n_words) uint64 id words
    widths: dict[int, int]  # id field -> longest value in bytes
    numbers: dict[int, np.ndarray]  # numeric field -> parsed values
    line_numbers: np.ndarray  # 1-based line number of each row, for error messages
    non_ascii_rows: (
        np.ndarray
    )  # rows whose line has a byte >= 0x7f (DEL or non-ASCII): the only ones id checks read

    def text(self, field: int) -> np.ndarray:
        """An id field as an ``S`` array."""
        return words_to_ids(self.words[field], self.widths[field])


# (id words, width in bytes) -> values; raises ValueError(row) for a bad row
Parser = Callable[[np.ndarray, int], np.ndarray]

# Lines of about this many bytes are parsed at a time: a block and its temporaries stay in the
# processor's caches, and are reused rather than page-faulted anew.
BLOCK_BYTES = 1 << 22
_COMMENT = ord("#")


@dataclass(frozen=True)
class LineFormat:
    """What a line of a file holds: how many fields, which of them are read, and how."""

    n_fields: int
    ids: tuple[int, ...]  # fields read as id words
    numbers: dict[int, tuple[str, Parser, str]]  # field -> (name, parser, what a valid value is)
    what: str  # the format, for error messages: "TREC run: qid Q0 docid rank score tag"
    more_fields: bool = False  # fields after the last are allowed and ignored (trec_eval's runs)

    @property
    def fields(self) -> tuple[int, ...]:
        return (*self.ids, *self.numbers)


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
    _keep_freed_memory()
    # A line holds at least 2 * n_fields bytes, which bounds the row count without a counting pass;
    # pages of the output never written are never touched.
    out = _Output(size // (2 * layout.n_fields) + 1, layout)
    first_line = 1

    def collect(block: _Stored | _Problem) -> None:
        nonlocal first_line
        if isinstance(block, _Problem):
            raise error(located(path, first_line + block.line, block.message))
        out.add(block)
        first_line += block.n_newlines

    # Blocks are parsed on up to two threads (numpy releases the GIL in its loops). Each writes its
    # rows straight into the output, where the block before it says they start, and the results
    # are collected in file order, so the first problem in the file is the one reported. Each
    # in-flight block gets its own copy of the bytes, in a buffer reused once its block is done.
    workers = min(2, os.cpu_count() or 1) if size > BLOCK_BYTES else 1
    start: Future[_Start | None] = Future()
    start.set_result(_Start(0, 0))
    free: list[np.ndarray] = []
    with ThreadPoolExecutor(max_workers=workers) as pool:
        pending: deque[tuple[np.ndarray, Future[_Stored | _Problem]]] = deque()
        for number, (buf, end) in enumerate(_blocks_of_lines(path)):
            if number == 0:
                if buf[:3].tobytes() == b"\xef\xbb\xbf":
                    message = "the file starts with a UTF-8 byte-order mark; save it without one"
                    raise error(located(path, 1, message))
                if header is not None and buf[: len(header)].tobytes() == header:
                    _blank_first_line(buf, end)
            after: Future[_Start | None] = Future()
            if workers == 1:
                collect(_parse_block(buf, end, layout, out, start, after))
                start = after
                continue
            copy = free.pop() if free and free[-1].size >= end + _PADDING else None
            if copy is None:
                copy = np.empty(buf.size, dtype=np.uint8)
            copy[:end] = buf[:end]
            copy[end : end + _PADDING] = 0
            pending.append((copy, pool.submit(_parse_block, copy, end, layout, out, start, after)))
            start = after
            if len(pending) > workers:
                done, parsed = pending.popleft()
                collect(parsed.result())
                free.append(done)
        while pending:
            collect(pending.popleft()[1].result())
    if out.rows == 0:
        message = f"no data lines: the file is empty or all blank or comment lines ({layout.what})"
        raise error(located(path, 1, message))
    return out.fields()


def _keep_freed_memory() -> None:
    """Let the C allocator keep the blocks' freed temporaries for the next block.

    Each block allocates and frees tens of MB of temporaries. glibc's malloc hands freed memory
    back to the kernel once more than twice its mmap threshold is free at the top of a heap, and
    that threshold starts at 128 KiB, so every block's temporaries were fresh pages again, which
    the kernel zeroes: on a 100,000-query run as much system time as the parsing's user time.
    glibc raises the threshold by itself to the size of any mmap-served block that is freed, up
    to 32 MiB; one untouched 30 MiB array, freed at once, takes it there now (M_MMAP_THRESHOLD in
    mallopt(3)). Other allocators ignore it, and it costs one mmap and munmap.
    """
    np.empty(_SETTLE_BYTES, dtype=np.uint8)


_SETTLE_BYTES = 30 << 20


def _blank_first_line(buf: np.ndarray, end: int) -> None:
    """Turn the first line into blanks: skipped, while line numbers stay as they are."""
    newlines = np.flatnonzero(buf[:end] == _NEWLINE)
    stop = int(newlines[0]) if newlines.size else end
    buf[:stop] = _SPACE


def _blocks_of_lines(path: Path) -> Iterator[tuple[np.ndarray, int]]:
    """Stream the file as blocks of whole lines: ``(buffer, end)``, the lines being
    ``buffer[:end]``.

    One reusable buffer of about BLOCK_BYTES: the file is never held whole. In a fresh process
    memory touched for the first time is paid for (the kernel zeroes its pages), so peak memory
    is time. Bytes after ``end`` (the next lines, then padding) only serve the 8-byte gathers,
    which mask them off.
    """
    buf = np.empty(BLOCK_BYTES + _PADDING, dtype=np.uint8)
    buf[BLOCK_BYTES:] = 0
    carried = 0  # bytes of an unfinished line, moved to the front of the buffer
    cr_lines: bool | None = None  # decided on the first bytes read
    with path.open("rb") as file:
        while True:
            if carried == buf.size - _PADDING:  # one line longer than the whole buffer: grow it
                bigger = np.empty(2 * buf.size, dtype=np.uint8)
                bigger[:carried] = buf[:carried]
                buf = bigger
            capacity = buf.size - _PADDING
            read = file.readinto(memoryview(buf)[carried:capacity])
            filled = carried + read
            if cr_lines is None:
                cr_lines = lines_end_in_cr(bytes(memoryview(buf)[: min(filled, SNIFF_BYTES)]))
            if cr_lines:  # rare: only a file with no LF at all pays for this pass
                fresh = buf[carried:filled]
                fresh[fresh == _RETURN] = _NEWLINE
            if read == 0:
                if carried:
                    buf[carried : carried + 8] = 0
                    yield buf, carried  # the last line has no final newline
                return
            end = _after_last_newline(buf, filled)
            if end:
                yield buf, end
                carried = filled - end
                buf[:carried] = buf[end:filled].copy()
            else:
                carried = filled


def _after_last_newline(buf: np.ndarray, filled: int) -> int:
    """Offset just after the last newline in ``buf[:filled]`` (0 if there is none)."""
    window = 1 << 16
    stop = filled
    while stop > 0:
        start = max(0, stop - window)
        newlines = np.flatnonzero(buf[start:stop] == _NEWLINE)
        if newlines.size:
            return start + int(newlines[-1]) + 1
        stop = start
    return 0


@dataclass(frozen=True)
class _Start:
    """Where a block's rows start in the output, and its first line (0-based)."""

    row: int
    line: int


class _Output:
    """Preallocated result columns, written in place by the blocks.

    The id columns are as wide as the first block needs. A later block with longer ids writes what
    fits and keeps its whole words aside; :meth:`fields` widens the columns once at the end (rare:
    a file whose ids grow longer after its first four MiB).
    """

    def __init__(self, capacity: int, layout: LineFormat) -> None:
        self.capacity = capacity
        self.rows = 0
        self.words: dict[int, np.ndarray] = {}  # made by the first block: it knows the widths
        self.widths = dict.fromkeys(layout.ids, 1)
        self.numbers = {
            field: _zeros_in_small_pages((capacity,), np.float64) for field in layout.numbers
        }
        # a line holds at least two bytes: int32 line numbers fit any file below 4 GiB
        self.lines = _zeros_in_small_pages((capacity,), np.int32 if capacity < 2**30 else np.int64)
        # Rows whose line has a byte >= 0x7f: the only ones the id checks need to decode.
        self.non_ascii_rows: list[np.ndarray] = []
        self.wider: dict[int, list[tuple[slice, np.ndarray]]] = {}

    def allocate(self, widths: dict[int, int]) -> None:
        """The id columns, as wide as the first block's ids (untouched pages are free)."""
        self.words = {
            field: _zeros_in_small_pages((self.capacity, words_for(width)), np.uint64)
            for field, width in widths.items()
        }

    def add(self, block: _Stored) -> None:
        """Book-keeping for a block already written, in file order (on the reading thread)."""
        for field, width in block.widths.items():
            self.widths[field] = max(self.widths[field], width)
        for field, words in block.wider.items():
            self.wider.setdefault(field, []).append((block.rows, words))
        if block.non_ascii_rows.size:
            self.non_ascii_rows.append(block.non_ascii_rows)
        self.rows = max(self.rows, block.rows.stop)

    def fields(self) -> TrecFields:
        rows = self.rows
        words = {field: column[:rows] for field, column in self.words.items()}
        for field, blocks in self.wider.items():
            widened = np.zeros((rows, max(block.shape[1] for _, block in blocks)), np.uint64)
            widened[:, : words[field].shape[1]] = words[field]
            for block_rows, block in blocks:
                widened[block_rows, : block.shape[1]] = block
            words[field] = widened
        return TrecFields(
            words,
            self.widths,
            {field: values[:rows] for field, values in self.numbers.items()},
            self.lines[:rows],
            np.concatenate(self.non_ascii_rows)
            if self.non_ascii_rows
            else np.zeros(0, dtype=np.int64),
        )


def _zeros_in_small_pages(shape: tuple[int, ...], dtype: type[np.generic]) -> np.ndarray:
    """Zeros in an anonymous mapping of its own: untouched pages cost nothing, as with np.zeros.

    numpy asks the kernel for transparent huge pages for any array of 4 MiB or more. The columns
    are written once, front to back, so huge pages save them nothing; but on a VM that reports
    free memory to its host (virtio-balloon free page reporting, which this 2-core VM has), the
    free 2 MiB blocks they take are the ones the host has reclaimed, slow to fault back in
    (bench/README.md, section 10). Plain pages do not have that cost.
    """
    item = np.dtype(dtype)
    count = math.prod(shape)
    buffer = mmap.mmap(-1, max(1, count * item.itemsize))
    return np.frombuffer(buffer, dtype=item, count=count).reshape(shape)


@dataclass(frozen=True, eq=False)
class _Stored:
    """What a block wrote, for the reading thread's book-keeping."""

    rows: slice
    n_newlines: int
    widths: dict[int, int]  # id field -> longest value in bytes
    wider: dict[int, np.ndarray]  # id field -> all its words, when longer than the column holds
    non_ascii_rows: np.ndarray


@dataclass(frozen=True)
class _Problem:
    """What is wrong with a block, at a line relative to the block (a value, not an exception:
    blocks are parsed on worker threads, and only the reader knows the block's first line)."""

    line: int
    message: str


def _parse_block(
    buf: np.ndarray,
    end: int,
    layout: LineFormat,
    out: _Output,
    start: Future[_Start | None],
    after: Future[_Start | None],
) -> _Stored | _Problem:
    """Parse the lines ``buf[:end]`` and write their fields into ``out``; runs on a worker thread.

    ``start`` is set by the block before this one (None once a block found a problem or raised:
    nothing after it is written); this block sets ``after`` as soon as it knows its row count, so
    blocks wait on each other only for that.
    """
    try:
        lines = _split_lines(buf, end, layout)
        if isinstance(lines, _Problem):
            return lines
        begin = start.result()
        if begin is None:  # an earlier block has a problem, which is what gets reported
            return _Problem(0, "not read")
        if not out.words:
            out.allocate({field: lines.widths[field] for field in layout.ids})
        rows = slice(begin.row, begin.row + lines.numbers.size)
        after.set_result(_Start(rows.stop, begin.line + lines.n_newlines))
        return _write_rows(buf, end, layout, lines, out, rows, begin.line + 1)
    finally:
        # Whatever went wrong (a bug, MemoryError), the next block must not wait forever, or
        # the pool's shutdown would hang instead of the error reaching the caller.
        if not after.done():
            after.set_result(None)


@dataclass(frozen=True, eq=False)
class _Lines:
    """A block's data lines: where each field is, and how wide."""

    numbers: np.ndarray  # line of each row, relative to the block (0 = its first line)
    bounds: dict[int, tuple[np.ndarray, np.ndarray]]  # field -> (start offsets, lengths)
    n_newlines: int
    widths: dict[int, int]  # field -> longest value in bytes


def _split_lines(buf: np.ndarray, end: int, layout: LineFormat) -> _Lines | _Problem:
    is_blank = buf[:end] <= 32
    blanks = np.flatnonzero(is_blank)
    found = _regular_layout(buf, end, is_blank, blanks, layout.n_fields)
    if found is None:
        found = _general_layout(buf, end, blanks, layout)
    if isinstance(found, _Problem):
        return found
    line_numbers, bounds, n_newlines = found
    widths = {}
    for field in layout.fields:
        lengths = bounds[field][1]
        widths[field] = int(lengths.max(initial=1))
        if widths[field] > _MAX_FIELD_BYTES:
            return _Problem(
                int(line_numbers[np.argmax(lengths)]),
                f"a field of {widths[field]} bytes: the line is not a {layout.what} line",
            )
    return _Lines(line_numbers, bounds, n_newlines, widths)


def _write_rows(
    buf: np.ndarray,
    end: int,
    layout: LineFormat,
    lines: _Lines,
    out: _Output,
    rows: slice,
    first_line: int,
) -> _Stored | _Problem:
    """Gather the ids and parse the numbers of ``lines`` into ``out[rows]``."""
    widths, bounds = lines.widths, lines.bounds
    wider = {}
    for field in layout.ids:
        starts, lengths = bounds[field]
        column = out.words[field][rows]
        if words_for(widths[field]) <= column.shape[1]:
            _gather_words(buf, starts, lengths, column)
        else:
            words = np.empty((starts.size, words_for(widths[field])), dtype=np.uint64)
            _gather_words(buf, starts, lengths, words)
            column[:] = words[:, : column.shape[1]]
            wider[field] = words
    for field, (name, parse, valid) in layout.numbers.items():
        starts, lengths = bounds[field]
        words = np.empty((starts.size, words_for(widths[field])), dtype=np.uint64)
        _gather_words(buf, starts, lengths, words)
        try:
            out.numbers[field][rows] = parse(words, widths[field])
        except ValueError as problem:
            row = int(problem.args[0])
            shown = words_to_ids(words[row : row + 1], widths[field])[0]
            shown = shown.decode("utf-8", errors="replace")
            return _Problem(int(lines.numbers[row]), f"{name} {shown!r} is not {valid}")
    out.lines[rows] = lines.numbers + first_line
    non_ascii = np.zeros(0, dtype=np.int64)
    # Rare: only then find the rows the id rules must read. DEL (0x7f) is the one control byte
    # above the blanks, so it goes with the non-ASCII bytes.
    if buf[:end].max() >= _DEL:
        high = np.flatnonzero(buf[:end] >= _DEL)
        line_starts = bounds[0][0]
        found_rows = np.searchsorted(line_starts, high, side="right") - 1
        found_rows = found_rows[found_rows >= 0]  # sorted: keep the first of each run of equals
        if found_rows.size:
            first = np.concatenate(([True], found_rows[1:] != found_rows[:-1]))
            non_ascii = found_rows[first] + rows.start
    id_widths = {field: widths[field] for field in layout.ids}
    return _Stored(rows, lines.n_newlines, id_widths, wider, non_ascii)


class _LazyBounds(dict):
    """field -> (start offsets, lengths), computed only for the fields asked for."""

    def __init__(self, compute: Callable[[int], tuple[np.ndarray, np.ndarray]]) -> None:
        super().__init__()
        self._compute = compute

    def __missing__(self, field: int) -> tuple[np.ndarray, np.ndarray]:
        return self._compute(field)


Layout = tuple[np.ndarray, _LazyBounds, int]  # line numbers, field bounds, newlines in the block


def _regular_layout(
    buf: np.ndarray, end: int, is_blank: np.ndarray, blanks: np.ndarray, n_fields: int
) -> Layout | None:
    """Fast path for the usual file: one space or tab between fields, a newline ending every line.

    Then blank number ``j`` ends token ``j`` and every ``n_fields``-th blank is a newline: field
    ``f`` of line ``i`` ends at ``blanks[i * n_fields + f]``, and no array of all tokens is built.
    Returns None for anything else (blank lines, CRLF, runs of blanks, control bytes, a missing
    final newline), which takes the general path.
    """
    if blanks.size == 0 or blanks.size % n_fields or is_blank[0] or blanks[-1] != end - 1:
        return None
    n_lines = blanks.size // n_fields
    ends = blanks.reshape(n_lines, n_fields)
    if not np.all(buf[ends[:, -1]] == _NEWLINE):
        return None
    # The other blanks are all spaces when there are that many spaces (no positions needed).
    if np.count_nonzero(buf[:end] == _SPACE) != n_lines * (n_fields - 1):
        between = buf[ends[:, :-1]]
        if not np.all((between == _SPACE) | (between == _TAB)):
            return None
    if np.any(is_blank[1:] & is_blank[:-1]):  # two blanks in a row: an empty field
        return None
    line_starts = np.empty(n_lines, dtype=blanks.dtype)
    line_starts[0] = 0
    line_starts[1:] = ends[:-1, -1] + 1
    if np.any(buf[line_starts] == _COMMENT):  # a comment line: the general path skips it
        return None

    def field_bounds(field: int) -> tuple[np.ndarray, np.ndarray]:
        starts = line_starts if field == 0 else ends[:, field - 1] + 1
        return starts, ends[:, field] - starts

    return np.arange(n_lines), _LazyBounds(field_bounds), n_lines


def _general_layout(
    buf: np.ndarray, end: int, blanks: np.ndarray, layout: LineFormat
) -> Layout | _Problem:
    """Any whitespace between fields, blank and comment lines, CRLF, no final newline, and (with
    ``layout.more_fields``) extra fields; problems name their line."""
    n_fields = layout.n_fields
    blank_bytes = buf[blanks]
    newlines = blanks[blank_bytes == _NEWLINE]
    n_newlines = newlines.size
    if newlines.size == 0 or newlines[-1] != end - 1:
        newlines = np.append(newlines, end)  # a last line without its newline still counts
    line_starts = np.concatenate(([0], newlines[:-1] + 1))
    comment = buf[line_starts] == _COMMENT
    bad = ~_BLANKS[blank_bytes]
    if bad.any():
        # A control byte on a comment line is the comment's business, not an error.
        bad &= ~comment[np.searchsorted(newlines, blanks)]
    if bad.any():
        position = int(blanks[np.argmax(bad)])
        return _Problem(
            int(np.count_nonzero(buf[:position] == _NEWLINE)),
            f"control byte 0x{int(buf[position]):02x}: "
            "this is not a text file of whitespace-separated fields",
        )
    # A token fills each gap of more than one byte between consecutive blanks, plus the edges.
    bounded = np.concatenate(([-1], blanks, [end]))
    gap = np.flatnonzero(np.diff(bounded) > 1)
    starts, ends = bounded[gap] + 1, bounded[gap + 1]
    token_line = np.searchsorted(newlines, starts)  # line index of each token within the block
    if comment.any():
        kept = ~comment[token_line]
        starts, ends, token_line = starts[kept], ends[kept], token_line[kept]
    per_line = np.bincount(token_line, minlength=newlines.size)
    short = per_line < n_fields if layout.more_fields else per_line != n_fields
    wrong = np.flatnonzero((per_line != 0) & short)
    if wrong.size:
        line = int(wrong[0])
        at_least = "at least " if layout.more_fields else ""
        return _Problem(
            line,
            f"expected {at_least}{n_fields} whitespace-separated fields ({layout.what}), "
            f"found {int(per_line[line])}",
        )
    lengths = ends - starts
    lines = np.flatnonzero(per_line)
    if layout.more_fields and np.any(per_line[lines] != n_fields):
        first = (np.cumsum(per_line) - per_line)[lines]  # each line's first token

        def field_bounds(field: int) -> tuple[np.ndarray, np.ndarray]:
            return starts[first + field], lengths[first + field]

        bounds = _LazyBounds(field_bounds)
    else:
        bounds = _LazyBounds(lambda field: (starts[field::n_fields], lengths[field::n_fields]))
    return lines, bounds, n_newlines


def _gather_words(
    buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray, out: np.ndarray
) -> None:
    """Tokens into ``out``'s rows of big-endian uint64 words, zero-padded: eight bytes per gather.

    ``windows[i]`` is the 8 bytes starting at byte ``i`` read as one big-endian integer (an
    overlapping strided view, no copy); bytes past a token's end are masked off.
    """
    windows = np.ndarray(shape=(buf.size - 7,), dtype=">u8", buffer=buf, strides=(1,))
    needed = words_for(int(lengths.max(initial=1)))
    for word in range(out.shape[1]):
        if word >= needed:
            out[:, word] = 0
            continue
        raw = windows[starts + 8 * word].astype(np.uint64)
        kept = (
            np.minimum(lengths, 8)
            if word == 0
            else np.minimum(np.maximum(lengths - 8 * word, 0), 8)
        )
        np.bitwise_and(raw, _FIRST_BYTES[kept], out=out[:, word])


def parse_floats(text: np.ndarray) -> np.ndarray:
    """Parse an ``S`` array of numbers into float64: :func:`parse_float_words` of its id words."""
    return parse_float_words(id_words(text), text.dtype.itemsize)


def parse_float_words(words: np.ndarray, width: int) -> np.ndarray:
    """Parse numbers given as id words (as the tokeniser gathers them) into float64, exactly as C
    ``strtod``/Python ``float`` would.

    Plain decimals (``[+-]digits[.digits]``, at most 15 digits) take a vectorised path that is
    exact: an integer mantissa below 2**53 divided by an exact power of ten is one correctly
    rounded operation. Everything else (exponents, long mantissas, nan, inf) goes through Python's
    ``float``. Raises ValueError(row) for text that is not a number.
    """
    if words.shape[1] == 1:
        mantissa, fraction_digits, negative, plain = _short_decimals(words[:, 0])
    else:
        mantissa, fraction_digits, negative, plain = _long_decimals(words_to_ids(words, width))
    values = mantissa / _POWERS_OF_TEN[np.where(plain, fraction_digits, 0)]
    np.negative(values, out=values, where=negative)
    for row in np.flatnonzero(~plain).tolist():  # rare: exponents, long mantissas, nan/inf, garbage
        try:
            shown = words_to_ids(words[row : row + 1], width)[0].decode("ascii")
            if "_" in shown:  # Python reads "1_0" as 10; C strtod (trec_eval) stops at the "_"
                raise ValueError(shown)
            values[row] = float(shown)
        except (ValueError, UnicodeDecodeError):
            raise ValueError(row) from None
    return values


_POWERS_OF_TEN = 10.0 ** np.arange(16)
Decimals = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # mantissa, fraction, -, plain


def _short_decimals(word: np.ndarray) -> Decimals:
    """:func:`parse_float_words` for numbers of at most 8 bytes, each one big-endian word.

    Every per-byte test is a SWAR expression on the word (a flag in the top bit of each byte,
    counted with ``bitwise_count``): numpy's row-wise reductions over a [rows, 8] byte matrix cost
    more than all of this. The digits are combined by pairs, quads and octets with three
    multiply-adds once the sign and the dot are squeezed out.
    """
    first = word >> np.uint64(56)
    negative = first == ord("-")
    signed = negative | (first == ord("+"))
    word = np.where(signed, word << np.uint64(8), word)  # the sign squeezed out
    present = _nonzero_bytes(word)
    dots = _nonzero_bytes(word ^ np.uint64(ord(".") * _EVERY_BYTE)) ^ _TOP_BITS
    digits = _digit_bytes(word)
    n_digits = np.bitwise_count(digits).astype(np.int64)
    n_dots = np.bitwise_count(dots)
    plain = (present & ~digits & ~dots == 0) & (n_dots <= 1) & (n_digits >= 1)
    # a lone dot's byte index: its flag is bit 63 - 8 * index
    dot_at = np.where(n_dots == 1, (63 - np.bitwise_count(dots - np.uint64(1))) // 8, 8)
    dot_at = np.where(plain, dot_at, 8).astype(np.int64)
    length = np.bitwise_count(present).astype(np.int64)
    fraction_digits = np.maximum(length - 1 - dot_at, 0)
    before = _FIRST_BYTES[dot_at]
    word = (word & before) | ((word << np.uint64(8)) & ~before)  # the dot's byte dropped
    n_digits = np.where(plain, n_digits, 1)
    word -= np.uint64(ord("0") * _EVERY_BYTE) & _FIRST_BYTES[n_digits]
    word >>= np.uint64(8) * (np.uint64(8) - n_digits.astype(np.uint64))  # last digit lowest
    low = np.uint64(0x00FF00FF00FF00FF)
    word = ((word >> np.uint64(8)) & low) * np.uint64(10) + (word & low)
    low = np.uint64(0x0000FFFF0000FFFF)
    word = ((word >> np.uint64(16)) & low) * np.uint64(100) + (word & low)
    word = (word >> np.uint64(32)) * np.uint64(10000) + (word & np.uint64(0xFFFFFFFF))
    return word.astype(np.int64), fraction_digits, negative, plain


_EVERY_BYTE = 0x0101010101010101
_LOW7 = np.uint64(0x7F * _EVERY_BYTE)
_TOP_BITS = np.uint64(0x80 * _EVERY_BYTE)


def _nonzero_bytes(word: np.ndarray) -> np.ndarray:
    """The top bit of every non-zero byte (exact: no carry crosses a byte)."""
    return (((word & _LOW7) + _LOW7) | word) & _TOP_BITS


def _digit_bytes(word: np.ndarray) -> np.ndarray:
    """The top bit of every byte from ``0`` to ``9``."""
    offset = word ^ np.uint64(ord("0") * _EVERY_BYTE)  # a digit byte becomes 0..9
    # (x | 0x80) - 10 keeps the top bit exactly when x >= 10, per byte and with no borrow
    at_least_ten = (offset | _TOP_BITS) - np.uint64(10 * _EVERY_BYTE)
    return ~(at_least_ten | offset) & _TOP_BITS


def _long_decimals(text: np.ndarray) -> Decimals:
    """:func:`parse_float_words` for longer numbers: one pass per byte column."""
    count, width = text.size, text.dtype.itemsize
    chars = text.view(np.uint8).reshape(count, width)
    sign = chars[:, 0]
    negative = sign == ord("-")
    signed = negative | (sign == ord("+"))
    mantissa = np.zeros(count, dtype=np.int64)
    n_digits = np.zeros(count, dtype=np.int64)
    dots = np.zeros(count, dtype=np.int64)
    dot_position = np.zeros(count, dtype=np.int64)
    length = np.zeros(count, dtype=np.int64)
    other = np.zeros(count, dtype=bool)
    for column in range(width):
        char = chars[:, column]
        digit = char - np.uint8(ord("0"))  # wraps around for bytes below "0"
        is_digit = digit < 10
        if column == 0:
            is_digit &= ~signed
        is_dot = char == ord(".")
        present = char != 0
        length += present
        np.multiply(mantissa, np.where(is_digit, 10, 1), out=mantissa)
        mantissa += np.where(is_digit, digit, 0)
        n_digits += is_digit
        dots += is_dot
        dot_position = np.where(is_dot, column, dot_position)
        unexpected = present & ~is_digit & ~is_dot
        if column == 0:
            unexpected &= ~signed
        other |= unexpected
    plain = ~other & (dots <= 1) & (n_digits >= 1) & (n_digits <= 15)
    fraction_digits = np.where(dots == 1, length - 1 - dot_position, 0)
    return mantissa, fraction_digits, negative, plain


def parse_ints(text: np.ndarray) -> np.ndarray:
    """Parse an ``S`` array of optionally signed integers. Non-integers become a ValueError."""
    width = text.dtype.itemsize
    if width == 1:  # the usual qrels: one digit per grade
        digits = text.view(np.uint8) - np.uint8(ord("0"))
        if np.all(digits < 10):
            return digits.astype(np.int64)
    chars = text.view(np.uint8).reshape(text.size, width)
    negative = chars[:, 0] == ord("-")
    signed = negative | (chars[:, 0] == ord("+"))
    is_digit = (chars >= ord("0")) & (chars <= ord("9"))
    body = np.ones_like(is_digit)
    body[:, 0] = ~signed
    ok = np.all(is_digit | (chars == 0) | ~body, axis=1) & ((is_digit & body).sum(axis=1) >= 1)
    ok &= (is_digit & body).sum(axis=1) <= 18
    if not ok.all():
        row = int(np.argmin(ok))
        raise ValueError(row)
    value = np.zeros(text.size, dtype=np.int64)
    for column in range(width):
        digit = is_digit[:, column] & body[:, column]
        value = np.where(digit, value * 10 + (chars[:, column].astype(np.int64) - ord("0")), value)
    return np.where(negative, -value, value)
