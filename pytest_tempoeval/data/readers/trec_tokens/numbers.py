"""Numbers parsed from their id words, vectorised: scores (:func:`parse_float_words`) and grades
(:func:`parse_ints`), exactly as C ``strtod``/``strtol`` (trec_eval) and Python read them.

A plain decimal of up to 8 bytes, the usual run score, is one id word: every per-byte test on it is
a SWAR expression ("SIMD within a register": a flag in the top bit of each byte, counted with
``bitwise_count``), far cheaper than numpy's row-wise reductions over a [rows, 8] byte matrix.
Longer plain decimals take one pass per byte column; anything else (exponents, nan, inf) is rare and
goes through Python's ``float``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pytest_tempoeval.data.columns.ids import FIRST_BYTES, WORD_BYTES, id_words, words_to_ids

if TYPE_CHECKING:
    import numpy.typing as npt

    # mantissa, digits after the dot, negative, plain (the vectorised result holds)
    Decimals = tuple[
        npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.bool_], npt.NDArray[np.bool_]
    ]

_EXACT_DIGITS = 15  # a mantissa of at most 15 digits is below 2**53: exact in a float64
_POWERS_OF_TEN = 10.0 ** np.arange(_EXACT_DIGITS + 1)  # each exact in a float64
_INT_DIGITS = 18  # at most 18 digits fit an int64
_BYTE_BITS = 8
_TOP_BYTE_SHIFT = np.uint64(_BYTE_BITS * (WORD_BYTES - 1))  # the first byte of a word, lowest
# SWAR constants: a byte value repeated in every byte of a word
_EVERY_BYTE = 0x0101010101010101
_LOW7 = np.uint64(0x7F * _EVERY_BYTE)
_TOP_BITS = np.uint64(0x80 * _EVERY_BYTE)
_ZEROS = np.uint64(ord("0") * _EVERY_BYTE)
_DOTS = np.uint64(ord(".") * _EVERY_BYTE)
_TENS = np.uint64(10 * _EVERY_BYTE)


# -- scores ----------------------------------------------------------------------------------------


def parse_floats(text: npt.NDArray[np.bytes_]) -> npt.NDArray[np.float64]:
    """Parse an ``S`` array of numbers into float64: :func:`parse_float_words` of its id words."""
    return parse_float_words(id_words(text), text.dtype.itemsize)


def parse_float_words(words: npt.NDArray[np.uint64], width: int) -> npt.NDArray[np.float64]:
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
            values[row] = parse_float_reference(words_to_ids(words[row : row + 1], width)[0])
        except ValueError:
            raise ValueError(row) from None
    return values


def _short_decimals(word: npt.NDArray[np.uint64]) -> Decimals:
    """:func:`parse_float_words` for numbers of at most 8 bytes, each one big-endian word.

    The digits are combined by pairs, quads and octets with three multiply-adds once the sign and
    the dot are squeezed out.
    """
    first = word >> _TOP_BYTE_SHIFT
    negative = first == ord("-")
    signed = negative | (first == ord("+"))
    word = np.where(signed, word << np.uint64(_BYTE_BITS), word)  # the sign squeezed out
    present = _nonzero_bytes(word)
    dots = _nonzero_bytes(word ^ _DOTS) ^ _TOP_BITS
    digits = _digit_bytes(word)
    n_digits = np.bitwise_count(digits).astype(np.int64)
    n_dots = np.bitwise_count(dots)
    plain = (present & ~digits & ~dots == 0) & (n_dots <= 1) & (n_digits >= 1)
    # a lone dot's byte index: its flag is bit 63 - 8 * index
    dot_at = np.where(n_dots == 1, (63 - np.bitwise_count(dots - np.uint64(1))) // _BYTE_BITS, 8)
    dot_at = np.where(plain, dot_at, WORD_BYTES).astype(np.int64)
    length = np.bitwise_count(present).astype(np.int64)
    fraction_digits = np.maximum(length - 1 - dot_at, 0)
    before = FIRST_BYTES[dot_at]
    word = (word & before) | ((word << np.uint64(_BYTE_BITS)) & ~before)  # the dot's byte dropped
    n_digits = np.where(plain, n_digits, 1)
    word -= _ZEROS & FIRST_BYTES[n_digits]
    # the digits moved to the low bytes, the last digit lowest
    word >>= np.uint64(_BYTE_BITS) * (np.uint64(WORD_BYTES) - n_digits.astype(np.uint64))
    low = np.uint64(0x00FF00FF00FF00FF)
    word = ((word >> np.uint64(8)) & low) * np.uint64(10) + (word & low)  # pairs of digits
    low = np.uint64(0x0000FFFF0000FFFF)
    word = ((word >> np.uint64(16)) & low) * np.uint64(100) + (word & low)  # quads
    word = (word >> np.uint64(32)) * np.uint64(10000) + (word & np.uint64(0xFFFFFFFF))  # octets
    return word.astype(np.int64), fraction_digits, negative, plain


def _nonzero_bytes(word: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """The top bit of every non-zero byte (exact: no carry crosses a byte)."""
    return (((word & _LOW7) + _LOW7) | word) & _TOP_BITS


def _digit_bytes(word: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """The top bit of every byte from ``0`` to ``9``."""
    offset = word ^ _ZEROS  # a digit byte becomes 0..9
    # (x | 0x80) - 10 keeps the top bit exactly when x >= 10, per byte and with no borrow
    at_least_ten = (offset | _TOP_BITS) - _TENS
    return ~(at_least_ten | offset) & _TOP_BITS


def _long_decimals(text: npt.NDArray[np.bytes_]) -> Decimals:
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
    plain = ~other & (dots <= 1) & (n_digits >= 1) & (n_digits <= _EXACT_DIGITS)
    fraction_digits = np.where(dots == 1, length - 1 - dot_position, 0)
    return mantissa, fraction_digits, negative, plain


# -- grades ----------------------------------------------------------------------------------------


def parse_ints(text: npt.NDArray[np.bytes_]) -> npt.NDArray[np.int64]:
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
    ok &= (is_digit & body).sum(axis=1) <= _INT_DIGITS
    if not ok.all():
        row = int(np.argmin(ok))
        raise ValueError(row)
    value = np.zeros(text.size, dtype=np.int64)
    for column in range(width):
        digit = is_digit[:, column] & body[:, column]
        value = np.where(digit, value * 10 + (chars[:, column].astype(np.int64) - ord("0")), value)
    return np.where(negative, -value, value)


# -- reference: the same results one value at a time, for the fallback and the tests ---------------


def parse_float_reference(text: bytes) -> float:
    """One number as :func:`parse_float_words` reads it: Python's ``float`` of ASCII text, except
    that ``_`` is refused (Python reads "1_0" as 10; C strtod, trec_eval's, stops at the "_")."""
    shown = text.decode("ascii")  # a UnicodeDecodeError is a ValueError
    if "_" in shown:
        raise ValueError(shown)
    return float(shown)


def parse_int_reference(text: bytes) -> int:
    """One grade as :func:`parse_ints` reads it (ValueError when it is not an integer)."""
    digits = text[1:] if text[:1] in (b"+", b"-") else text
    if not (1 <= len(digits) <= _INT_DIGITS and digits.isdigit()):
        raise ValueError(text)
    return int(text)
