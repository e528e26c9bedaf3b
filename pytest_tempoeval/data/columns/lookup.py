"""Exact lookup of ids among distinct stored ids: :class:`IdLookup`.

Two stages, both on a 64-bit hash of each id's words. First a direct-mapped table (one slot per
hash value's top bits, two to four slots per stored id) holds one stored id per slot: an asked id
is answered by one probe when its slot holds it, and known absent when its slot is empty. The
stored ids that lost their slot to another, and the asks whose slot holds another id, go to the
second stage: sort keys (:class:`~pytest_tempoeval.data.columns.keys.KeyLayout`: hash bits over
the row); sorting those (a plain sort, no argsort) orders both sides by hash, and searching the
sorted asked keys in the sorted stored ones walks memory nearly sequentially. The table is built
only while it fits in the caches (:data:`_TABLE_MAX_IDS`): past that its probes would miss, and the
sorted search, several times faster than random probes there, takes every id. Every candidate is
verified on its full id words, and a run of equal hash bits (a collision) is walked until one
matches, so a collision costs a comparison, never a wrong row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pytest_tempoeval.data.columns.ids import widen
from pytest_tempoeval.data.columns.keys import KeyLayout, bits_for, hash_words

if TYPE_CHECKING:
    import numpy.typing as npt

ABSENT = -1  # the row found for an id that is not stored
# Stored ids up to this many get the direct-mapped table: at most 2**21 int32 slots, 8 MiB.
_TABLE_MAX_IDS = 1 << 20
_TABLE_SPARE_BITS = 1  # slot bits past those that number the stored ids: 2 to 4 slots per id


class IdLookup:
    """The rows of asked ids among distinct stored ids (their id words)."""

    def __init__(self, words: npt.NDArray[np.uint64]) -> None:
        self.words = words  # [stored ids, words], distinct ids
        n_stored = words.shape[0]
        hashes = hash_words(words)
        rest = np.arange(n_stored)  # the stored rows the sorted keys hold
        self.table: npt.NDArray[np.int32] | None = None
        self.slot_shift = np.uint64(0)
        if 0 < n_stored <= _TABLE_MAX_IDS:
            slot_bits = bits_for(n_stored) + _TABLE_SPARE_BITS
            self.slot_shift = np.uint64(64 - slot_bits)
            slots = hashes >> self.slot_shift
            table = np.full(1 << slot_bits, ABSENT, dtype=np.int32)
            table[slots] = rest  # one row per slot: the last written wins
            rest = np.flatnonzero(table[slots] != rest)
            self.table = table
        self.layout = KeyLayout(bits_for(rest.size))
        keys = self.layout.pack(hashes[rest])
        keys.sort()
        self.keys = keys  # sorted by hash
        self.rows = rest[self.layout.rows(keys)]  # the stored row of each key

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
        hashes = hash_words(words)
        if self.table is None:
            self._search(words, hashes, np.arange(words.shape[0]), result)
            return result
        held = self.table[hashes >> self.slot_shift].astype(np.int64)
        matched = held >= 0
        stored = np.maximum(held, 0)
        for column in range(n_words):  # column by column: no [rows, words] temporary
            matched &= self.words[:, column][stored] == words[:, column]
        result[matched] = held[matched]
        # An empty slot: no stored id has that hash. A slot holding another id: search the rest.
        asked = np.flatnonzero((held >= 0) & ~matched)
        if asked.size and self.keys.size:
            self._search(words, hashes, asked, result)
        return result

    def _search(
        self,
        words: npt.NDArray[np.uint64],
        hashes: npt.NDArray[np.uint64],
        asked: npt.NDArray[np.int64],
        result: npt.NDArray[np.int64],
    ) -> None:
        """Rows of the asked ids ``asked`` (rows of ``words``) among the sorted keys, into
        ``result``."""
        n_stored, n_words = self.keys.size, self.words.shape[1]
        layout = KeyLayout(bits_for(asked.size))
        keys = layout.pack(hashes[asked])
        keys.sort()
        shift = max(layout.hash_shift, self.layout.hash_shift)  # both compare the bits above
        asked_hashes = layout.hashes(keys, shift)
        asked_rows = asked[layout.rows(keys)]
        stored_hashes = self.layout.hashes(self.keys, shift)
        candidate = np.searchsorted(stored_hashes, asked_hashes)  # per pending asked key
        pending = np.arange(keys.size)  # into the asked keys
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


# -- reference: the same results in plain Python, for the tests to compare with --------------------


def find_reference(stored: list[bytes], asked: list[bytes]) -> list[int]:
    """:meth:`IdLookup.find` with a dict (``stored`` distinct)."""
    row_of = {value: row for row, value in enumerate(stored)}
    return [row_of.get(value, ABSENT) for value in asked]
