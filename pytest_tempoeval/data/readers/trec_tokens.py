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

import os
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pytest_tempoeval.data.columns import words_to_ids
from pytest_tempoeval.errors import located

# Bytes trec_eval's parser treats as blanks between fields (C isspace).
_BLANKS = np.zeros(256, dtype=bool)
_BLANKS[[9, 10, 11, 12, 13, 32]] = True
_NEWLINE, _SPACE, _TAB = 10, 32, 9
_MAX_FIELD_BYTES = (
    4096  # a longer "id" is a broken file (binary data, a missing newline), not an id
)
_PADDING = _MAX_FIELD_BYTES + 8  # zero bytes after the data, so gathers never run off the end
# _KEEP[n]: mask keeping the first n bytes of a big-endian word.
_KEEP = np.array([((1 << (8 * n)) - 1) << (8 * (8 - n)) for n in range(9)], dtype=np.uint64)


@dataclass(frozen=True, eq=False)
class TrecFields:
    """Selected fields of a whitespace-separated file, one row per non-blank line."""

    words: dict[int, np.ndarray]  # id field -> (rows, n_words) uint64 id words
    widths: dict[int, int]  # id field -> longest value in bytes
    numbers: dict[int, np.ndarray]  # numeric field -> parsed values
    line_numbers: np.ndarray  # 1-based line number of each row, for error messages
    non_ascii_rows: (
        np.ndarray
    )  # rows whose line has a byte >= 0x80: the only ones UTF-8 checks read

    def text(self, field: int) -> np.ndarray:
        """An id field as an ``S`` array."""
        return words_to_ids(self.words[field], self.widths[field])


Parser = Callable[[np.ndarray], np.ndarray]  # ``S`` array -> values; ValueError(row) for a bad row

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
    # Outputs are allocated once and filled block by block. A line holds at least 2 * n_fields
    # bytes, which bounds the row count without a counting pass; pages never written are never
    # touched.
    out = _Output(size // (2 * layout.n_fields) + 1, layout.ids, tuple(layout.numbers))
    first_line = 1

    def store(block: _Block | _Problem) -> None:
        nonlocal first_line
        if isinstance(block, _Problem):
            raise error(located(path, first_line + block.line, block.message))
        out.store(block, first_line)
        first_line += block.n_newlines

    # Blocks are parsed on up to two threads (numpy releases the GIL in its loops) and stored in
    # file order, so line numbers stay exact. Each in-flight block gets its own copy of the bytes,
    # in a buffer reused once its block is stored.
    workers = min(2, os.cpu_count() or 1) if size > BLOCK_BYTES else 1
    free: list[np.ndarray] = []
    with ThreadPoolExecutor(max_workers=workers) as pool:
        pending: deque[tuple[np.ndarray, Future[_Block | _Problem]]] = deque()
        for number, (buf, end) in enumerate(_blocks_of_lines(path)):
            if number == 0:
                if buf[:3].tobytes() == b"\xef\xbb\xbf":
                    message = "the file starts with a UTF-8 byte-order mark; save it without one"
                    raise error(located(path, 1, message))
                if header is not None and buf[: len(header)].tobytes() == header:
                    _blank_first_line(buf, end)
            if workers == 1:
                store(_parse_block(buf, end, layout))
                continue
            copy = free.pop() if free and free[-1].size >= end + _PADDING else None
            if copy is None:
                copy = np.empty(buf.size, dtype=np.uint8)
            copy[:end] = buf[:end]
            copy[end : end + _PADDING] = 0
            pending.append((copy, pool.submit(_parse_block, copy, end, layout)))
            if len(pending) > workers:
                done, parsed = pending.popleft()
                store(parsed.result())
                free.append(done)
        while pending:
            store(pending.popleft()[1].result())
    if out.rows == 0:
        message = f"no data lines: the file is empty or all blank or comment lines ({layout.what})"
        raise error(located(path, 1, message))
    return out.fields()


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
    with path.open("rb") as file:
        while True:
            if carried == buf.size - _PADDING:  # one line longer than the whole buffer: grow it
                bigger = np.empty(2 * buf.size, dtype=np.uint8)
                bigger[:carried] = buf[:carried]
                buf = bigger
            capacity = buf.size - _PADDING
            read = file.readinto(memoryview(buf)[carried:capacity])
            filled = carried + read
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


class _Output:
    """Preallocated result columns, filled block by block."""

    def __init__(self, capacity: int, ids: tuple[int, ...], numbers: tuple[int, ...]) -> None:
        self.rows = 0
        self.words = {field: np.zeros((capacity, 1), dtype=np.uint64) for field in ids}
        self.widths = dict.fromkeys(ids, 1)
        self.numbers = {field: np.empty(capacity, dtype=np.float64) for field in numbers}
        # a line holds at least two bytes: int32 line numbers fit any file below 4 GiB
        self.lines = np.empty(capacity, dtype=np.int32 if capacity < 2**30 else np.int64)
        # Rows whose line has a byte >= 0x80: the only ones UTF-8 checks need to decode.
        self.non_ascii_rows: list[np.ndarray] = []

    def store(self, block: _Block, first_line: int) -> None:
        rows = slice(self.rows, self.rows + block.line_numbers.size)
        for field, (words, width) in block.words.items():
            if words.shape[1] > self.words[field].shape[1]:  # a longer id than any before
                self.words[field] = self._widened(self.words[field], words.shape[1])
            target = self.words[field][rows]
            target[:, : words.shape[1]] = words
            target[:, words.shape[1] :] = 0
            self.widths[field] = max(self.widths[field], width)
        for field, values in block.numbers.items():
            self.numbers[field][rows] = values
        self.lines[rows] = block.line_numbers + first_line
        if block.non_ascii_rows.size:
            self.non_ascii_rows.append(block.non_ascii_rows + self.rows)
        self.rows = rows.stop

    def _widened(self, words: np.ndarray, n_words: int) -> np.ndarray:
        """More words per row, copying only the rows filled so far: the rest of the capacity stays
        untouched pages (np.zeros), which cost no memory until a block is stored there."""
        wider = np.zeros((words.shape[0], n_words), dtype=np.uint64)
        wider[: self.rows, : words.shape[1]] = words[: self.rows]
        return wider

    def fields(self) -> TrecFields:
        rows = self.rows
        return TrecFields(
            {field: words[:rows] for field, words in self.words.items()},
            self.widths,
            {field: values[:rows] for field, values in self.numbers.items()},
            self.lines[:rows],
            np.concatenate(self.non_ascii_rows)
            if self.non_ascii_rows
            else np.zeros(0, dtype=np.int64),
        )


@dataclass(frozen=True, eq=False)
class _Block:
    """One parsed block. Line numbers are relative to the block (0 = its first line)."""

    line_numbers: np.ndarray
    n_newlines: int
    words: dict[int, tuple[np.ndarray, int]]  # id field -> (id words, longest value in bytes)
    numbers: dict[int, np.ndarray]
    non_ascii_rows: np.ndarray


@dataclass(frozen=True)
class _Problem:
    """What is wrong with a block, at a line relative to the block (a value, not an exception:
    blocks are parsed on worker threads, and only the reader knows the block's first line)."""

    line: int
    message: str


def _parse_block(buf: np.ndarray, end: int, layout: LineFormat) -> _Block | _Problem:
    """Parse the lines ``buf[:end]``; runs on a worker thread, so it only reads its arguments."""
    is_blank = buf[:end] <= 32
    blanks = np.flatnonzero(is_blank)
    n_fields = layout.n_fields
    found = _regular_layout(buf, end, is_blank, blanks, n_fields)
    if found is None:
        found = _general_layout(buf, end, blanks, layout)
        if isinstance(found, _Problem):
            return found
    line_numbers, bounds, n_newlines = found
    words, values = {}, {}
    for field in layout.fields:
        starts, lengths = bounds[field]
        width = int(lengths.max(initial=1))
        if width > _MAX_FIELD_BYTES:
            return _Problem(
                int(line_numbers[np.argmax(lengths)]),
                f"a field of {width} bytes: the line is not a {layout.what} line",
            )
        field_words = _gather_words(buf, starts, lengths, width)
        if field in layout.numbers:
            name, parse, valid = layout.numbers[field]
            text = words_to_ids(field_words, width)
            try:
                values[field] = parse(text)
            except ValueError as problem:
                row = int(problem.args[0])
                shown = text[row].decode("utf-8", errors="replace")
                return _Problem(int(line_numbers[row]), f"{name} {shown!r} is not {valid}")
        else:
            words[field] = (field_words, width)
    non_ascii = np.zeros(0, dtype=np.int64)
    if buf[:end].max() >= 0x80:  # rare: only then find the rows that need a UTF-8 check
        high = np.flatnonzero(buf[:end] >= 0x80)
        line_starts = bounds[0][0]
        rows = np.searchsorted(line_starts, high, side="right") - 1
        rows = rows[rows >= 0]  # sorted: keep the first of each run of equal rows
        non_ascii = rows[np.concatenate(([True], rows[1:] != rows[:-1]))] if rows.size else rows
    return _Block(line_numbers, n_newlines, words, values, non_ascii)


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
    buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray, width: int
) -> np.ndarray:
    """Tokens as rows of big-endian uint64 words, zero-padded: eight bytes per gather.

    ``windows[i]`` is the 8 bytes starting at byte ``i`` read as one big-endian integer (an
    overlapping strided view, no copy); bytes past a token's end are masked off.
    """
    windows = np.ndarray(shape=(buf.size - 7,), dtype=">u8", buffer=buf, strides=(1,))
    n_words = max(1, -(-width // 8))
    words = np.empty((starts.size, n_words), dtype=np.uint64)
    for word in range(n_words):
        raw = windows[starts + 8 * word].astype(np.uint64)
        kept = (
            np.minimum(lengths, 8)
            if word == 0
            else np.minimum(np.maximum(lengths - 8 * word, 0), 8)
        )
        np.bitwise_and(raw, _KEEP[kept], out=words[:, word])
    return words


def parse_floats(text: np.ndarray) -> np.ndarray:
    """Parse an ``S`` array of numbers into float64, exactly as C ``strtod``/Python ``float`` would.

    Plain decimals (``[+-]digits[.digits]``, at most 15 digits) take a vectorised path that is
    exact: an integer mantissa below 2**53 divided by an exact power of ten is one correctly
    rounded operation. Everything else (exponents, long mantissas, nan, inf) goes through Python's
    ``float``. Raises ValueError(row) for text that is not a number.
    """
    if text.dtype.itemsize <= 8:
        mantissa, fraction_digits, negative, plain = _short_decimals(text)
    else:
        mantissa, fraction_digits, negative, plain = _long_decimals(text)
    values = mantissa / _POWERS_OF_TEN[np.where(plain, fraction_digits, 0)]
    np.negative(values, out=values, where=negative)
    for row in np.flatnonzero(~plain).tolist():  # rare: exponents, long mantissas, nan/inf, garbage
        try:
            shown = text[row].decode("ascii")
            if "_" in shown:  # Python reads "1_0" as 10; C strtod (trec_eval) stops at the "_"
                raise ValueError(shown)
            values[row] = float(shown)
        except (ValueError, UnicodeDecodeError):
            raise ValueError(row) from None
    return values


_POWERS_OF_TEN = 10.0 ** np.arange(16)
Decimals = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # mantissa, fraction, -, plain


def _short_decimals(text: np.ndarray) -> Decimals:
    """:func:`parse_floats` for numbers of at most 8 bytes, each read as one big-endian word.

    Every per-byte test is a SWAR expression on the word (a flag in the top bit of each byte,
    counted with ``bitwise_count``): numpy's row-wise reductions over a [rows, 8] byte matrix cost
    more than all of this. The digits are combined by pairs, quads and octets with three
    multiply-adds once the sign and the dot are squeezed out.
    """
    count, width = text.size, text.dtype.itemsize
    padded = np.zeros((count, 8), dtype=np.uint8)
    padded[:, :width] = text.view(np.uint8).reshape(count, width)
    word = padded.view(">u8").ravel().astype(np.uint64)
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
# _FIRST_BYTES[n]: mask of the first n bytes of a big-endian word
_FIRST_BYTES = np.array([((1 << (8 * n)) - 1) << (8 * (8 - n)) for n in range(9)], np.uint64)


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
    """:func:`parse_floats` for longer numbers: one pass per byte column."""
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
