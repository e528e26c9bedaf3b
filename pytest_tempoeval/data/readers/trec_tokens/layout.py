"""Where the fields of a block's lines are: :func:`split_lines`.

Each pass over the bytes, and each fresh block-sized temporary, costs real time at ten million
lines, so the common layout (one space or tab between fields, every line ending in a newline) is
found with strided views only (:func:`_regular_layout`). Anything else (runs of blanks, blank and
comment lines, CRLF, a missing final newline, extra fields) takes :func:`_general_layout`, which
builds the array of all tokens and names the line of any problem.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from pytest_tempoeval.data.readers.trec_tokens.fields import (
    BLANKS,
    COMMENT,
    MAX_FIELD_BYTES,
    NEWLINE,
    SPACE,
    TAB,
    LineFormat,
    Problem,
)

if TYPE_CHECKING:
    import numpy.typing as npt

    Positions = npt.NDArray[np.integer]

_HIGHEST_BLANK = 32  # every byte up to the space is a blank or a control byte


class FieldBounds(dict[int, tuple["Positions", "Positions"]]):
    """field -> (start offsets, lengths) of its values, computed only for the fields asked for,
    once (the widths and the writing of a block both ask)."""

    def __init__(self, compute: Callable[[int], tuple[Positions, Positions]]) -> None:
        super().__init__()
        self._compute = compute

    def __missing__(self, field: int) -> tuple[Positions, Positions]:
        bounds = self[field] = self._compute(field)
        return bounds


# line of each row (relative to the block), where its fields are, newlines in the block
Layout = tuple["Positions", FieldBounds, int]


class Lines(NamedTuple):
    """A block's data lines: where each field is, and how wide."""

    numbers: Positions  # line of each row, relative to the block (0 = its first line)
    bounds: dict[int, tuple[Positions, Positions]]  # field -> (start offsets, lengths)
    n_newlines: int
    widths: dict[int, int]  # field -> longest value in bytes


def split_lines(buffer: npt.NDArray[np.uint8], end: int, layout: LineFormat) -> Lines | Problem:
    """The data lines of ``buffer[:end]`` (whole lines), or the first problem among them."""
    is_blank = buffer[:end] <= _HIGHEST_BLANK
    blanks = np.flatnonzero(is_blank)
    found: Layout | Problem | None = _regular_layout(buffer, end, is_blank, blanks, layout.n_fields)
    if found is None:
        found = _general_layout(buffer, end, blanks, layout)
    if isinstance(found, Problem):
        return found
    line_numbers, bounds, n_newlines = found
    widths = {}
    for field in layout.fields:
        lengths = bounds[field][1]
        widths[field] = int(lengths.max(initial=1))
        if widths[field] > MAX_FIELD_BYTES:
            return Problem(
                int(line_numbers[np.argmax(lengths)]),
                f"a field of {widths[field]} bytes: the line is not a {layout.what} line",
            )
    return Lines(line_numbers, bounds, n_newlines, widths)


def _regular_layout(
    buffer: npt.NDArray[np.uint8],
    end: int,
    is_blank: npt.NDArray[np.bool_],
    blanks: Positions,
    n_fields: int,
) -> Layout | None:
    """Fast path for the usual file: one space or tab between fields, a newline ending every line.

    Then blank number ``j`` ends token ``j`` and every ``n_fields``-th blank is a newline: field
    ``f`` of line ``i`` ends at ``blanks[i * n_fields + f]``, and no array of all tokens is built.
    Returns None for anything else, which takes the general path.
    """
    if blanks.size == 0 or blanks.size % n_fields or is_blank[0] or blanks[-1] != end - 1:
        return None
    n_lines = blanks.size // n_fields
    ends = blanks.reshape(n_lines, n_fields)
    if not np.all(buffer[ends[:, -1]] == NEWLINE):
        return None
    # The other blanks are all spaces when there are that many spaces (no positions needed).
    if np.count_nonzero(buffer[:end] == SPACE) != n_lines * (n_fields - 1):
        between = buffer[ends[:, :-1]]
        if not np.all((between == SPACE) | (between == TAB)):
            return None
    if np.any(is_blank[1:] & is_blank[:-1]):  # two blanks in a row: an empty field
        return None
    line_starts = np.empty(n_lines, dtype=blanks.dtype)
    line_starts[0] = 0
    line_starts[1:] = ends[:-1, -1] + 1
    if np.any(buffer[line_starts] == COMMENT):  # a comment line: the general path skips it
        return None

    def field_bounds(field: int) -> tuple[Positions, Positions]:
        starts = line_starts if field == 0 else ends[:, field - 1] + 1
        return starts, ends[:, field] - starts

    return np.arange(n_lines), FieldBounds(field_bounds), n_lines


def _general_layout(
    buffer: npt.NDArray[np.uint8], end: int, blanks: Positions, layout: LineFormat
) -> Layout | Problem:
    """Any whitespace between fields, blank and comment lines, CRLF, no final newline, and (with
    ``layout.more_fields``) extra fields; problems name their line."""
    n_fields = layout.n_fields
    blank_bytes = buffer[blanks]
    newlines = blanks[blank_bytes == NEWLINE]
    n_newlines = newlines.size
    if newlines.size == 0 or newlines[-1] != end - 1:
        newlines = np.append(newlines, end)  # a last line without its newline still counts
    line_starts = np.concatenate(([0], newlines[:-1] + 1))
    comment = buffer[line_starts] == COMMENT
    control = ~BLANKS[blank_bytes]
    if control.any():
        # A control byte on a comment line is the comment's business, not an error.
        control &= ~comment[np.searchsorted(newlines, blanks)]
    if control.any():
        position = int(blanks[np.argmax(control)])
        return Problem(
            int(np.count_nonzero(buffer[:position] == NEWLINE)),
            f"control byte 0x{int(buffer[position]):02x}: "
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
        return Problem(
            line,
            f"expected {at_least}{n_fields} whitespace-separated fields ({layout.what}), "
            f"found {int(per_line[line])}",
        )
    lengths = ends - starts
    lines = np.flatnonzero(per_line)
    if layout.more_fields and np.any(per_line[lines] != n_fields):
        first = (np.cumsum(per_line) - per_line)[lines]  # each line's first token

        def field_bounds(field: int) -> tuple[Positions, Positions]:
            return starts[first + field], lengths[first + field]

        bounds = FieldBounds(field_bounds)
    else:
        bounds = FieldBounds(lambda field: (starts[field::n_fields], lengths[field::n_fields]))
    return lines, bounds, n_newlines
