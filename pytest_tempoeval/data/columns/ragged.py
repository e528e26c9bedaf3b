"""The table runs and judgments are stored in: :class:`Ragged`, rows grouped by query."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from pytest_tempoeval.data.columns.ids import decode_ids, encode_ids, id_words, words_to_ids

if TYPE_CHECKING:
    import numpy.typing as npt


@dataclass(frozen=True, eq=False)
class Ragged:
    """Rows grouped by query: rows ``offsets[i]:offsets[i+1]`` belong to ``keys[i]``.

    Used for runs (``values`` = scores, rows in rank order) and judgments (``values`` = grades).
    The doc ids are kept as an ``S`` array, or as id words only (a reader has those, and they are
    half the memory for long ids); each form is built from the other once, when first needed.
    """

    keys: tuple[str, ...]
    offsets: npt.NDArray[np.int64]  # len(keys) + 1
    stored_ids: npt.NDArray[np.bytes_] | None  # UTF-8; None: kept as ``known_words`` only
    values: npt.NDArray[np.float64] | npt.NDArray[np.int64]
    known_words: npt.NDArray[np.uint64] | None = None  # id words of the doc ids, when known
    width: int = 0  # longest doc id in bytes, when only ``known_words`` are kept

    @classmethod
    def from_words(
        cls,
        keys: tuple[str, ...],
        offsets: npt.NDArray[np.int64],
        words: npt.NDArray[np.uint64],
        width: int,
        values: npt.NDArray[np.float64] | npt.NDArray[np.int64],
    ) -> Ragged:
        """A table whose doc ids are given as id words of ids at most ``width`` bytes long."""
        return cls(keys, offsets, None, values, words, width)

    @property
    def doc_ids(self) -> npt.NDArray[np.bytes_]:
        """Every row's doc id as an ``S`` array (built once from the words when not stored)."""
        if self.stored_ids is None:
            assert self.known_words is not None
            object.__setattr__(self, "stored_ids", words_to_ids(self.known_words, self.width))
        assert self.stored_ids is not None
        return self.stored_ids

    @property
    def words(self) -> npt.NDArray[np.uint64]:
        """Id words of the doc ids (computed once)."""
        if self.known_words is None:
            object.__setattr__(self, "known_words", id_words(self.doc_ids))
        assert self.known_words is not None
        return self.known_words

    @property
    def n_rows(self) -> int:
        return int(self.offsets[-1])

    @property
    def lengths(self) -> npt.NDArray[np.int64]:
        return np.diff(self.offsets)

    def group_of_rows(self) -> npt.NDArray[np.int64]:
        """Index into ``keys`` of every row."""
        return np.repeat(np.arange(len(self.keys)), self.lengths)

    def ids_of(self, rows: slice | npt.NDArray[np.integer]) -> list[str]:
        """The doc ids of some rows, decoded, without building the whole ``S`` array."""
        if self.stored_ids is not None:
            return decode_ids(self.stored_ids[rows])
        assert self.known_words is not None
        return decode_ids(words_to_ids(self.known_words[rows], self.width))

    def words_of(self, rows: npt.NDArray[np.integer]) -> npt.NDArray[np.uint64]:
        """Id words of some rows, without computing every row's (a run built in Python has only
        its ``S`` array until something needs all the words)."""
        if self.known_words is not None:
            words: npt.NDArray[np.uint64] = self.known_words[rows]
            return words
        assert self.stored_ids is not None
        return id_words(np.take(self.stored_ids, rows))  # take: an S array's gather copies faster

    def select(self, rows: npt.NDArray[np.integer]) -> Ragged:
        """The rows ``rows`` (sorted, so every group keeps its order), groups unchanged."""
        lengths = np.bincount(self.group_of_rows()[rows], minlength=len(self.keys))
        offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        words = None if self.known_words is None else self.known_words[rows]
        ids = None if self.stored_ids is None else self.stored_ids[rows]
        return Ragged(self.keys, offsets, ids, self.values[rows], words, self.width)

    def head(self, limit: int) -> Ragged:
        """The first ``limit`` rows of every group."""
        rank = np.arange(self.n_rows) - np.repeat(self.offsets[:-1], self.lengths)
        return (
            self
            if rank.size == 0 or rank.max() < limit
            else self.select(np.flatnonzero(rank < limit))
        )

    def docs_of_all(self) -> list[str]:
        """Every row's doc id, decoded."""
        return decode_ids(self.doc_ids)

    def docs_of(self, index: int) -> list[str]:
        return self.ids_of(slice(self.offsets[index], self.offsets[index + 1]))

    def values_of(self, index: int) -> npt.NDArray[np.float64] | npt.NDArray[np.int64]:
        return self.values[self.offsets[index] : self.offsets[index + 1]]


def ragged_from_lists(
    keys: Sequence[str],
    groups: Sequence[Sequence[str]],
    values: Sequence[Sequence[float]],
    dtype: type,
) -> Ragged:
    """Build a :class:`Ragged` from Python lists (small, in-memory inputs)."""
    lengths = np.fromiter((len(group) for group in groups), dtype=np.int64, count=len(groups))
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    flat_ids = [doc for group in groups for doc in group]
    flat_values: npt.NDArray[np.float64] | npt.NDArray[np.int64] = np.fromiter(
        (v for group in values for v in group), dtype=dtype, count=len(flat_ids)
    )
    return Ragged(tuple(keys), offsets, encode_ids(flat_ids), flat_values)
