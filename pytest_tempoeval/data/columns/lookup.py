"""Exact lookup of ids among distinct stored ids: :class:`IdLookup`.

Both sides' ids become sort keys (:class:`~pytest_tempoeval.data.columns.keys.KeyLayout`: hash bits
over the row). Sorting those (a plain sort, no argsort) orders both sides by hash, and searching the
sorted asked keys in the sorted stored ones walks memory nearly sequentially: several times faster
than a hash table's random probes or a binary search per unsorted id. Every candidate is verified on
its full id words, and a run of equal hash bits (a collision) is walked until one matches, so a
collision costs a comparison, never a wrong row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pytest_tempoeval.data.columns.ids import widen
from pytest_tempoeval.data.columns.keys import KeyLayout, bits_for, hash_words

if TYPE_CHECKING:
    import numpy.typing as npt

ABSENT = -1  # the row found for an id that is not stored


class IdLookup:
    """The rows of asked ids among distinct stored ids (their id words)."""

    def __init__(self, words: npt.NDArray[np.uint64]) -> None:
        self.words = words  # [stored ids, words], distinct ids
        self.layout = KeyLayout(bits_for(words.shape[0]))
        keys = self.layout.pack(hash_words(words))
        keys.sort()
        self.keys = keys  # sorted by hash
        self.rows = self.layout.rows(keys)  # the stored row of each key

    def find(self, words: npt.NDArray[np.uint64]) -> npt.NDArray[np.int64]:
        """Row of every asked id among the stored ones (``ABSENT`` when absent)."""
        result = np.full(words.shape[0], ABSENT, dtype=np.int64)
        n_stored, n_words = self.words.shape
        if n_stored == 0 or words.shape[0] == 0:
            return result
        if words.shape[1] > n_words:
            # Longer ids than any stored one can only match if their extra words are padding.
            fits = np.flatnonzero(~np.any(words[:, n_words:], axis=1))
            result[fits] = self.find(words[fits, :n_words])
            return result
        words = widen(words, n_words)
        layout = KeyLayout(bits_for(words.shape[0]))
        asked = layout.pack(hash_words(words))
        asked.sort()
        shift = max(layout.hash_shift, self.layout.hash_shift)  # both compare the bits above
        asked_hashes = layout.hashes(asked, shift)
        asked_rows = layout.rows(asked)
        stored_hashes = self.layout.hashes(self.keys, shift)
        candidate = np.searchsorted(stored_hashes, asked_hashes)  # per pending asked key
        pending = np.arange(asked.size)  # into the asked keys
        while pending.size:
            candidate = np.minimum(candidate, n_stored - 1)  # past the end: the last, unequal
            same_hash = stored_hashes[candidate] == asked_hashes[pending]
            stored, rows = self.rows[candidate], asked_rows[pending]
            matched = same_hash.copy()
            for column in range(n_words):  # column by column: no [rows, words] temporary
                matched &= self.words[stored, column] == words[rows, column]
            result[rows[matched]] = stored[matched]
            # a collision: go on to the next stored id, if it has the same hash bits
            walk = np.flatnonzero(same_hash & ~matched & (candidate + 1 < n_stored))
            pending, candidate = pending[walk], candidate[walk] + 1
        return result


# -- reference: the same results in plain Python, for the tests to compare with --------------------


def find_reference(stored: list[bytes], asked: list[bytes]) -> list[int]:
    """:meth:`IdLookup.find` with a dict (``stored`` distinct)."""
    row_of = {value: row for row, value in enumerate(stored)}
    return [row_of.get(value, ABSENT) for value in asked]
