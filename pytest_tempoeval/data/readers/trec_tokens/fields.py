"""What the tokeniser is asked for and what it returns: :class:`LineFormat` in, :class:`TrecFields`
out, a :class:`Problem` when a line is wrong, and the bytes a line is made of."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from pytest_tempoeval.data.columns.ids import WORD_BYTES, words_to_ids

if TYPE_CHECKING:
    import numpy.typing as npt

# Bytes trec_eval's parser treats as blanks between fields (C isspace).
BLANKS = np.zeros(256, dtype=bool)
BLANKS[[9, 10, 11, 12, 13, 32]] = True
NEWLINE, SPACE, TAB, RETURN, DEL = 10, 32, 9, 13, 0x7F
COMMENT = ord("#")  # in the first column, as trec_eval 10 reads them
# A longer "id" is a broken file (binary data, a missing newline), not an id.
MAX_FIELD_BYTES = 4096
# Zero bytes after a block's data: a field's last word-wide gather never runs off the end.
PADDING = MAX_FIELD_BYTES + WORD_BYTES

# (id words, width in bytes) -> values; raises ValueError(row) for a bad row
Parser = Callable[["npt.NDArray[np.uint64]", int], "npt.NDArray[np.float64 | np.int64]"]


# A NamedTuple, not a dataclass: defining a dataclass compiles its methods from source, about
# 0.4 ms at every start of the command (they are records; nothing compares them).
class LineFormat(NamedTuple):
    """What a line of a file holds: how many fields, which of them are read, and how."""

    n_fields: int
    ids: tuple[int, ...]  # fields read as id words
    numbers: dict[int, tuple[str, Parser, str]]  # field -> (name, parser, what a valid value is)
    what: str  # the format, for error messages: "TREC run: qid Q0 docid rank score tag"
    more_fields: bool = False  # fields after the last are allowed and ignored (trec_eval's runs)

    @property
    def fields(self) -> tuple[int, ...]:
        return (*self.ids, *self.numbers)


class TrecFields(NamedTuple):
    """Selected fields of a whitespace-separated file, one row per non-blank line."""

    words: dict[int, npt.NDArray[np.uint64]]  # id field -> (rows, n_words) id words
    widths: dict[int, int]  # id field -> longest value in bytes
    numbers: dict[int, npt.NDArray[np.float64]]  # numeric field -> parsed values
    line_numbers: npt.NDArray[np.integer]  # 1-based line number of each row, for error messages
    # rows whose line has a byte >= 0x7f (DEL or non-ASCII): the only ones id checks read
    non_ascii_rows: npt.NDArray[np.integer]

    def text(self, field: int) -> npt.NDArray[np.bytes_]:
        """An id field as an ``S`` array."""
        return words_to_ids(self.words[field], self.widths[field])


class Problem(NamedTuple):
    """What is wrong with a block, at a line relative to the block (a value, not an exception:
    blocks are parsed on worker threads, and only the reader knows the block's first line)."""

    line: int
    message: str
