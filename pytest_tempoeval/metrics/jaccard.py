"""Jaccard of focus times, exactly, in two forms the focus-time index computes it in.

- runs: a focus time that is one run of consecutive years (a year, a range, a decade, a century:
  the usual case) is its first and last year, and |A ∩ B| is arithmetic on them;
- bitsets: any focus time is a row of year bits, and the intersections of many pairs are one
  matrix product over them.

Both divide the same two integers as :meth:`FocusTime.jaccard
<pytest_tempoeval.data.focus_time.FocusTime.jaccard>`, so all three agree to the last bit.
"""

from __future__ import annotations

import numpy as np

from pytest_tempoeval.data.focus_time import FocusTime

# First and last year of "no focus time" in the run form: it overlaps nothing.
NO_FIRST, NO_LAST = 1 << 20, -(1 << 20)


def year_runs(focus_times: list[FocusTime]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """[n] int32 first year, last year, and number of years of each focus time (non-empty)."""
    n = len(focus_times)
    first = np.fromiter((min(ft.years) for ft in focus_times), dtype=np.int32, count=n)
    last = np.fromiter((max(ft.years) for ft in focus_times), dtype=np.int32, count=n)
    sizes = np.fromiter((len(ft.years) for ft in focus_times), dtype=np.int32, count=n)
    return first, last, sizes


def is_run(focus_time: FocusTime) -> bool:
    """Whether a non-empty focus time is one run of consecutive years."""
    years = focus_time.years
    return max(years) - min(years) + 1 == len(years)


def run_jaccard(
    first_a: np.ndarray,
    last_a: np.ndarray,
    sizes_a: np.ndarray,
    first_b: np.ndarray,
    last_b: np.ndarray,
    sizes_b: np.ndarray,
) -> np.ndarray:
    """Elementwise |A∩B| / |A∪B| of focus times that are each one run of consecutive years, given
    by their first and last years and sizes (0 when both are empty). Exact: the same two integers
    divided as :func:`jaccard` and :meth:`FocusTime.jaccard` divide them."""
    overlap = np.minimum(last_a, last_b)
    overlap -= np.maximum(first_a, first_b)
    overlap += 1
    np.maximum(overlap, 0, out=overlap)
    union = sizes_a + sizes_b
    union -= overlap
    similarity: np.ndarray = np.divide(overlap, union, out=np.zeros(union.shape), where=union > 0)
    return similarity


def year_bitsets(
    focus_times: list[FocusTime], first_year: int | None = None, n_words: int | None = None
) -> tuple[np.ndarray, int]:
    """[n, words] uint64 bitsets: bit ``y - first_year`` is set when year y is in the focus time."""
    years = [year for ft in focus_times for year in ft.years]
    if first_year is None:
        first_year = min(years, default=0)
    span = (max(years, default=first_year) - first_year + 1) if years else 1
    n_words = n_words or max(1, -(-span // 64))
    bits = np.zeros((len(focus_times), n_words), dtype=np.uint64)
    if years:
        owner = np.repeat(np.arange(len(focus_times)), [len(ft) for ft in focus_times])
        offset = np.array(years, dtype=np.int64) - first_year
        np.bitwise_or.at(
            bits,
            (owner, offset // 64),
            np.left_shift(np.uint64(1), (offset % 64).astype(np.uint64)),
        )
    return bits, first_year


def jaccard(
    bits_a: np.ndarray, sizes_a: np.ndarray, bits_b: np.ndarray, sizes_b: np.ndarray
) -> np.ndarray:
    """Elementwise |A∩B| / |A∪B| of bitset rows (0 when both are empty)."""
    overlap = np.bitwise_count(bits_a & bits_b).sum(axis=-1, dtype=np.int64)
    union = sizes_a + sizes_b - overlap
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(union > 0, overlap / union, 0.0)


def pairwise_jaccard(
    bits_a: np.ndarray, sizes_a: np.ndarray, bits_b: np.ndarray, sizes_b: np.ndarray
) -> np.ndarray:
    """[len(a), len(b)] Jaccard of every pair of bitset rows (0 when both are empty).

    The intersections of all pairs are one matrix product of 0/1 rows over the years either side
    uses: exact (float32 holds every count below 2**24, and no count exceeds the number of years
    compared) and several times faster than intersecting bitsets pair by pair. Bit order does not
    matter, so the words are unpacked as raw bytes.
    """
    years_a = np.unpackbits(np.ascontiguousarray(bits_a).view(np.uint8), axis=1)
    years_b = np.unpackbits(np.ascontiguousarray(bits_b).view(np.uint8), axis=1)
    shared = np.flatnonzero(years_a.any(axis=0) & years_b.any(axis=0))
    exact = np.float32 if shared.size < 1 << 24 else np.float64
    overlap = (years_a[:, shared].astype(exact) @ years_b[:, shared].T.astype(exact)).astype(
        np.float64
    )
    union = sizes_a[:, None] + sizes_b[None, :] - overlap
    similarity: np.ndarray = np.divide(overlap, union, out=np.zeros_like(overlap), where=union > 0)
    return similarity
