"""Hashing id words, and packing a hash with a row number into one sortable uint64 key.

The lookups and joins never sort rows with argsort: each row becomes one uint64 whose top bits are
its hash and whose low bits say which row it is (:class:`KeyLayout`, the one statement of that bit
layout), so a plain in-cache sort of the keys orders the rows by hash and still names them. Hashes
collide: every caller verifies a candidate on its full id words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:
    import numpy.typing as npt

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # 2**64 / golden ratio: the usual multiplicative hash
_MIX_SHIFT = np.uint64(31)  # the xorshift after each multiply
# Rows hashed at a time: small temporaries stay in cache, where full-size fresh ones would cost
# more in page faults than the arithmetic.
_HASH_BLOCK_ROWS = 1 << 16


def hash_words(
    words: npt.NDArray[np.uint64], salt: npt.NDArray[np.integer] | None = None
) -> npt.NDArray[np.uint64]:
    """A 64-bit hash per row (multiply-xorshift). Collisions happen: callers verify matches.

    With ``salt`` (one non-negative integer per row, such as its group), equal rows of different
    groups hash apart.
    """
    state = np.empty(words.shape[0], dtype=np.uint64)
    # In place, a block of rows at a time (see _HASH_BLOCK_ROWS).
    shifted = np.empty(min(words.shape[0], _HASH_BLOCK_ROWS), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for start in range(0, words.shape[0], _HASH_BLOCK_ROWS):
            block = state[start : start + _HASH_BLOCK_ROWS]
            if salt is None:
                block[:] = 0
            else:
                np.add(salt[start : start + block.size], 1, out=block, casting="unsafe")
                block *= _GOLDEN
            spare = shifted[: block.size]
            for column in range(words.shape[1]):
                block ^= words[start : start + block.size, column]
                block *= _GOLDEN
                np.right_shift(block, _MIX_SHIFT, out=spare)
                block ^= spare
    return state


def bits_for(n_rows: int) -> int:
    """Bits that number ``n_rows`` rows (at least one)."""
    return max(1, (n_rows - 1).bit_length())


class KeyLayout(NamedTuple):
    """The bits of a sort key, from the most significant::

        | the row's hash, its top bits | side: 1 bit, if has_side | row: row_bits bits |

    ``row`` is the row's index in the keyed array. ``side`` (joins: 0 for a right row, 1 for a
    left one) sorts a group's right rows before its left rows of the same hash. The hash keeps only
    the bits above ``hash_shift``; two layouts compare hashes above the larger of their shifts.
    """

    row_bits: int
    has_side: bool = False

    @property
    def hash_shift(self) -> int:
        return self.row_bits + self.has_side

    @property
    def side_bit(self) -> np.uint64:
        return np.uint64(int(self.has_side) << self.row_bits)

    def pack(self, hashes: npt.NDArray[np.uint64], side: int = 0) -> npt.NDArray[np.uint64]:
        """One key per hash, its row being its index in ``hashes``, on ``side`` (0 or 1)."""
        shift = np.uint64(self.hash_shift)
        keys: npt.NDArray[np.uint64] = np.left_shift(hashes >> shift, shift)
        keys |= np.arange(hashes.size, dtype=np.uint64)
        if side:
            keys |= self.side_bit
        return keys

    def hashes(
        self, keys: npt.NDArray[np.uint64], shift: int | None = None
    ) -> npt.NDArray[np.uint64]:
        """The hash bits of each key (those above ``shift``, by default the layout's own)."""
        hashes: npt.NDArray[np.uint64] = keys >> np.uint64(
            self.hash_shift if shift is None else shift
        )
        return hashes

    def sides(self, keys: npt.NDArray[np.uint64]) -> npt.NDArray[np.bool_]:
        """Whether each key is on side 1."""
        on_side: npt.NDArray[np.bool_] = (keys & self.side_bit) != 0
        return on_side

    def rows(self, keys: npt.NDArray[np.uint64]) -> npt.NDArray[np.int64]:
        return (keys & np.uint64((1 << self.row_bits) - 1)).astype(np.int64)


# -- reference: the same results in plain Python, for the tests to compare with --------------------


def hash_words_reference(words: list[tuple[int, ...]], salt: list[int] | None = None) -> list[int]:
    """:func:`hash_words` one row at a time, in Python integers modulo 2**64."""
    golden, mask, hashes = int(_GOLDEN), (1 << 64) - 1, []
    for row, values in enumerate(words):
        state = 0 if salt is None else ((salt[row] + 1) * golden) & mask
        for value in values:
            state = ((state ^ value) * golden) & mask
            state ^= state >> int(_MIX_SHIFT)
        hashes.append(state)
    return hashes
