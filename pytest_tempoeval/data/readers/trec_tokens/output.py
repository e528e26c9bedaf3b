"""The result columns, and how a block writes its rows into them.

The output is preallocated for the most rows the file can hold (a line holds at least two bytes
per field), so blocks parsed on different threads write their rows straight into place; pages
never written are never touched. Ids are gathered word by word from the block's bytes
(:func:`gather_words`), and numbers parsed by the line format's parsers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from pytest_tempoeval.data.columns.ids import (
    FIRST_BYTES,
    WORD_BYTES,
    WORD_ORDER,
    words_for,
    words_to_ids,
)
from pytest_tempoeval.data.readers.trec_tokens._memory import zeros_in_small_pages
from pytest_tempoeval.data.readers.trec_tokens.fields import (
    DEL,
    LineFormat,
    Problem,
    TrecFields,
)
from pytest_tempoeval.data.readers.trec_tokens.layout import Lines

if TYPE_CHECKING:
    import numpy.typing as npt

_INT32_LINES = 2**30  # fewer rows than this: int32 line numbers fit (a file below 4 GiB)


class Stored(NamedTuple):
    """What a block wrote, for the reading thread's book-keeping."""

    rows: slice
    n_newlines: int
    widths: dict[int, int]  # id field -> longest value in bytes
    wider: dict[int, npt.NDArray[np.uint64]]  # id field -> its words, if wider than the column
    non_ascii_rows: npt.NDArray[np.integer]


class Output:
    """Preallocated result columns, written in place by the blocks.

    The id columns are as wide as the first block needs. A later block with longer ids writes what
    fits and keeps its whole words aside; :meth:`fields` widens the columns once at the end (rare:
    a file whose ids grow longer after its first four MiB).
    """

    def __init__(self, capacity: int, layout: LineFormat) -> None:
        self.capacity = capacity
        self.rows = 0
        self.words: dict[int, npt.NDArray[np.uint64]] = {}  # made by the first block (widths)
        self.widths = dict.fromkeys(layout.ids, 1)
        self.numbers = {
            field: zeros_in_small_pages((capacity,), np.float64) for field in layout.numbers
        }
        self.lines = zeros_in_small_pages(
            (capacity,), np.int32 if capacity < _INT32_LINES else np.int64
        )
        # Rows whose line has a byte >= 0x7f: the only ones the id checks need to decode.
        self.non_ascii_rows: list[npt.NDArray[np.integer]] = []
        self.wider: dict[int, list[tuple[slice, npt.NDArray[np.uint64]]]] = {}

    def allocate(self, widths: dict[int, int]) -> None:
        """The id columns, as wide as the first block's ids (untouched pages are free)."""
        self.words = {
            field: zeros_in_small_pages((self.capacity, words_for(width)), np.uint64)
            for field, width in widths.items()
        }

    def add(self, block: Stored) -> None:
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


def write_rows(
    buffer: npt.NDArray[np.uint8],
    end: int,
    layout: LineFormat,
    lines: Lines,
    output: Output,
    rows: slice,
    first_line: int,
) -> Stored | Problem:
    """Gather the ids and parse the numbers of ``lines`` into ``output[rows]``."""
    widths, bounds = lines.widths, lines.bounds
    wider = {}
    for field in layout.ids:
        starts, lengths = bounds[field]
        column = output.words[field][rows]
        if words_for(widths[field]) <= column.shape[1]:
            gather_words(buffer, starts, lengths, column)
        else:
            words = np.empty((starts.size, words_for(widths[field])), dtype=np.uint64)
            gather_words(buffer, starts, lengths, words)
            column[:] = words[:, : column.shape[1]]
            wider[field] = words
    for field, (name, parse, valid) in layout.numbers.items():
        starts, lengths = bounds[field]
        words = np.empty((starts.size, words_for(widths[field])), dtype=np.uint64)
        gather_words(buffer, starts, lengths, words)
        try:
            output.numbers[field][rows] = parse(words, widths[field])
        except ValueError as problem:
            row = int(problem.args[0])
            shown = words_to_ids(words[row : row + 1], widths[field])[0]
            shown = shown.decode("utf-8", errors="replace")
            return Problem(int(lines.numbers[row]), f"{name} {shown!r} is not {valid}")
    output.lines[rows] = lines.numbers + first_line
    non_ascii = np.zeros(0, dtype=np.int64)
    # Rare: only then find the rows the id rules must read. DEL (0x7f) is the one control byte
    # above the blanks, so it goes with the non-ASCII bytes.
    if buffer[:end].max() >= DEL:
        high = np.flatnonzero(buffer[:end] >= DEL)
        line_starts = bounds[0][0]
        found_rows = np.searchsorted(line_starts, high, side="right") - 1
        found_rows = found_rows[found_rows >= 0]  # sorted: keep the first of each run of equals
        if found_rows.size:
            first = np.concatenate(([True], found_rows[1:] != found_rows[:-1]))
            non_ascii = found_rows[first] + rows.start
    id_widths = {field: widths[field] for field in layout.ids}
    return Stored(rows, lines.n_newlines, id_widths, wider, non_ascii)


def gather_words(
    buffer: npt.NDArray[np.uint8],
    starts: npt.NDArray[np.integer],
    lengths: npt.NDArray[np.integer],
    out: npt.NDArray[np.uint64],
) -> None:
    """Tokens into ``out``'s rows of id words, zero-padded: one gather per word.

    ``windows[i]`` is the WORD_BYTES bytes starting at byte ``i`` read as one big-endian integer
    (an overlapping strided view, no copy); bytes past a token's end are masked off.
    """
    windows = np.ndarray(
        shape=(buffer.size - WORD_BYTES + 1,), dtype=WORD_ORDER, buffer=buffer, strides=(1,)
    )
    needed = words_for(int(lengths.max(initial=1)))
    for word in range(out.shape[1]):
        if word >= needed:
            out[:, word] = 0
            continue
        raw = windows[starts + WORD_BYTES * word].astype(np.uint64)
        kept = (
            np.minimum(lengths, WORD_BYTES)
            if word == 0
            else np.minimum(np.maximum(lengths - WORD_BYTES * word, 0), WORD_BYTES)
        )
        np.bitwise_and(raw, FIRST_BYTES[kept], out=out[:, word])
