"""Columnar storage shared by runs and gold sets, and the exact joins and lookups over it.

Ids are UTF-8 bytes in numpy ``S`` arrays and, for every comparison, rows of big-endian uint64 "id
words" whose order is ``strcmp``'s. Read the modules in this order:

- :mod:`.ids`: encoding ids, and the id-word layout (the one place it is defined);
- :mod:`.keys`: hashing id words, and the bit layout of the sort keys the joins sort;
- :mod:`.lookup`: :class:`IdLookup`, ids among distinct stored ids;
- :mod:`.grouped`: rows in groups (offsets), per-group counts and sorts, chunks on two threads;
- :mod:`.join`: joins within groups, and repeated ids within a group;
- :mod:`.ragged`: :class:`Ragged`, the table runs and judgments are stored in;
- :mod:`.order`: trec_eval's ranking order.

Each module ends with a "reference" section: the same results in plain Python, slow and obvious,
which the tests compare the fast code with. This package re-exports every name callers import.
"""

from pytest_tempoeval.data.columns.grouped import (
    Grouping,
    count_per_group,
    group_rows,
    same_group_as_next,
    sort_within_groups,
)
from pytest_tempoeval.data.columns.ids import (
    decode_ids,
    encode_ids,
    id_words,
    id_words_of,
    widen,
    words_for,
    words_to_ids,
)
from pytest_tempoeval.data.columns.join import duplicate_pairs, join_within_groups
from pytest_tempoeval.data.columns.keys import hash_words
from pytest_tempoeval.data.columns.lookup import IdLookup
from pytest_tempoeval.data.columns.order import _runs_of_true, trec_eval_order
from pytest_tempoeval.data.columns.ragged import Ragged, ragged_from_lists

__all__ = [
    "Grouping",
    "IdLookup",
    "Ragged",
    "_runs_of_true",
    "count_per_group",
    "decode_ids",
    "duplicate_pairs",
    "encode_ids",
    "group_rows",
    "hash_words",
    "id_words",
    "id_words_of",
    "join_within_groups",
    "ragged_from_lists",
    "same_group_as_next",
    "sort_within_groups",
    "trec_eval_order",
    "widen",
    "words_for",
    "words_to_ids",
]
