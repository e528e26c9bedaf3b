"""Ids as numpy arrays: UTF-8 ``S`` arrays, and the "id words" every comparison is made on.

The id-word layout, defined here and nowhere else: an id of ``width`` bytes, zero-padded to a
multiple of :data:`WORD_BYTES`, read :data:`WORD_BYTES` bytes at a time as big-endian unsigned
integers, one row of ``words_for(width)`` uint64 words per id. Big-endian makes the numeric order of
the words the order of the bytes, so comparing word rows lexicographically is comparing the byte
strings with ``strcmp`` (the order trec_eval breaks score ties in), and integers compare far faster
than strings. The TREC tokeniser gathers these words straight from the file with
:data:`FIRST_BYTES`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import numpy.typing as npt

WORD_BYTES = 8  # bytes of an id per uint64 word
WORD_ORDER = ">u8"  # big-endian: a word's numeric order is its bytes' order
# FIRST_BYTES[n]: the mask keeping the first n bytes of a word (its n most significant bytes).
FIRST_BYTES = np.array(
    [((1 << (8 * n)) - 1) << (8 * (WORD_BYTES - n)) for n in range(WORD_BYTES + 1)],
    dtype=np.uint64,
)
# Ids up to this long are encoded as one joined string and cut into rows (see encode_ids).
_SHORT_ID_BYTES = 16
_CUT_CELLS = 1 << 20  # bytes cut per block: bounds the positions array to 8 MiB


# -- ids as S arrays -------------------------------------------------------------------------------


def encode_ids(ids: Iterable[str]) -> npt.NDArray[np.bytes_]:
    """UTF-8 ``S`` array of string ids."""
    ids = ids if isinstance(ids, (list, tuple)) else list(ids)
    if not ids:
        return np.array([], dtype="S1")
    # Short ids (TREC, BEIR, MS MARCO) are encoded as one newline-joined string and cut into rows
    # with array ops, twice as fast as encoding them one by one. Longer ones are encoded one by
    # one: cutting costs per byte of the longest id, Python's encoding per id.
    sample = ids[:64]  # a guess, to skip joining long ids for nothing; the cut checks them all
    if sum(map(len, sample)) <= _SHORT_ID_BYTES * len(sample):
        data = np.frombuffer(("\n".join(ids) + "\n").encode("utf-8"), dtype=np.uint8)
        ends = np.flatnonzero(data == ord("\n"))
        starts = np.concatenate(([0], ends[:-1] + 1))
        width = max(1, int((ends - starts).max()))
        if ends.size == len(ids) and width <= _SHORT_ID_BYTES:  # (and no id holds a newline)
            return _cut_rows(data, starts, ends, width)
    encoded = [value.encode("utf-8") for value in ids]
    return np.array(encoded, dtype=f"S{max(1, *map(len, encoded))}")


def _cut_rows(
    data: npt.NDArray[np.uint8],
    starts: npt.NDArray[np.intp],
    ends: npt.NDArray[np.intp],
    width: int,
) -> npt.NDArray[np.bytes_]:
    """The ``S{width}`` array of the ids at ``data[start:end]``, zero-padded like any S array."""
    rows = np.empty((starts.size, width), dtype=np.uint8)
    step = max(1, _CUT_CELLS // width)
    for first in range(0, starts.size, step):
        at = starts[first : first + step, None] + np.arange(width)
        block = data[np.minimum(at, data.size - 1)]
        block[at >= ends[first : first + step, None]] = 0
        rows[first : first + step] = block
    return rows.view(f"S{width}").ravel()


def decode_ids(ids: npt.NDArray[np.bytes_]) -> list[str]:
    return [value.decode("utf-8") for value in ids.tolist()]


# -- ids as words ----------------------------------------------------------------------------------


def words_for(width: int) -> int:
    """uint64 words per row for ids of ``width`` bytes (at least one)."""
    return max(1, -(-width // WORD_BYTES))


def id_words(ids: npt.NDArray[np.bytes_], n_words: int | None = None) -> npt.NDArray[np.uint64]:
    """``(n, n_words)`` uint64 rows whose lexicographic order is the byte order of ``ids``."""
    width = ids.dtype.itemsize
    n_words = n_words or words_for(width)
    # Word w of an id is the WORD_BYTES bytes at its start + WORD_BYTES * w, read big-endian through
    # a strided view of the ids' bytes (one pass, no copy per row); the bytes past the id (the next
    # one's, or the zeros after the last) are masked off.
    raw = np.zeros(ids.size * width + n_words * WORD_BYTES, dtype=np.uint8)
    raw[: ids.size * width] = np.ascontiguousarray(ids).view(np.uint8).ravel()
    words = np.zeros((ids.size, n_words), dtype=np.uint64)
    for word in range(min(n_words, words_for(width))):
        read = np.ndarray(
            (ids.size,), dtype=WORD_ORDER, buffer=raw, offset=WORD_BYTES * word, strides=(width,)
        )
        np.bitwise_and(
            read, FIRST_BYTES[min(WORD_BYTES, width - WORD_BYTES * word)], out=words[:, word]
        )
    return words


_WORDS_BLOCK_ROWS = 1 << 16  # ids read at a time by id_words_of: its temporaries stay in cache


def id_words_of(ids: list[str]) -> npt.NDArray[np.uint64]:
    """``id_words(encode_ids(ids))``, read straight from the ids' joined UTF-8 bytes: no ``S`` array
    is built, and no cut (a gold set's 100,000 document ids cost a third as much).

    The bytes are laid out as aligned big-endian words; the word of an id that starts at byte p
    is the tail of aligned word ``p // 8`` joined with the head of the next, and the bytes past the
    id's end are masked off, as :data:`FIRST_BYTES` does for the TREC tokeniser.
    """
    if not ids:
        return id_words(encode_ids(ids))
    raw = np.frombuffer(("\n".join(ids) + "\n").encode("utf-8"), dtype=np.uint8)
    ends = np.flatnonzero(raw == ord("\n"))
    if ends.size != len(ids):  # an id holds a newline
        return id_words(encode_ids(ids))
    starts = np.empty_like(ends)
    starts[0], starts[1:] = 0, ends[:-1] + 1
    lengths = ends - starts
    n_words = words_for(int(lengths.max()))
    # zero words past the end: the last id's reads of "the next word" find padding
    padded = np.zeros((raw.size // WORD_BYTES + n_words + 1) * WORD_BYTES, dtype=np.uint8)
    padded[: raw.size] = raw
    aligned = padded.view(WORD_ORDER).astype(np.uint64)
    out = np.empty((len(ids), n_words), dtype=np.uint64)
    for first in range(0, len(ids), _WORDS_BLOCK_ROWS):
        block = slice(first, first + _WORDS_BLOCK_ROWS)
        at, length = starts[block], lengths[block]
        head_bits = (at & (WORD_BYTES - 1)).astype(np.uint64)
        head_bits <<= np.uint64(3)  # the same for every word of an id
        # the tail's shift, in two steps: a shift by 64 bits is not defined
        tail_bits = np.uint64(63) - head_bits
        index = at >> 3
        for word in range(n_words):
            value = aligned[index]
            value <<= head_bits
            index += 1
            tail = aligned[index]
            tail >>= np.uint64(1)
            tail >>= tail_bits
            value |= tail
            value &= FIRST_BYTES[np.clip(length - WORD_BYTES * word, 0, WORD_BYTES)]
            out[block, word] = value
    return out


def words_to_ids(words: npt.NDArray[np.uint64], width: int) -> npt.NDArray[np.bytes_]:
    """Inverse of :func:`id_words`."""
    raw = (
        np.ascontiguousarray(words.astype(WORD_ORDER))
        .view(np.uint8)
        .reshape(words.shape[0], WORD_BYTES * words.shape[1])
    )
    return np.ascontiguousarray(raw[:, :width]).view(f"S{width}").ravel()


def widen(words: npt.NDArray[np.uint64], n_words: int) -> npt.NDArray[np.uint64]:
    """Pad word rows with zero words (an id's own padding) up to ``n_words`` columns."""
    if words.shape[1] >= n_words:
        return words
    out = np.zeros((words.shape[0], n_words), dtype=np.uint64)
    out[:, : words.shape[1]] = words
    return out


# -- reference: the same results in plain Python, for the tests to compare with --------------------


def id_words_reference(ids: list[bytes]) -> list[tuple[int, ...]]:
    """:func:`id_words` one id at a time, with ``int.from_bytes``."""
    n_words = words_for(max(map(len, ids), default=1))
    padded = [value.ljust(n_words * WORD_BYTES, b"\0") for value in ids]
    return [
        tuple(
            int.from_bytes(value[start : start + WORD_BYTES], "big")
            for start in range(0, len(value), WORD_BYTES)
        )
        for value in padded
    ]
