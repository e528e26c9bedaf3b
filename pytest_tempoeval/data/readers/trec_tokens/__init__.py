"""The tokeniser behind the TREC readers: whitespace-separated fields, vectorised in numpy.

A 100,000-query run is ten million lines; splitting it in Python allocates sixty million objects and
takes longer than trec_eval's whole evaluation. So the file is read in blocks of bytes and tokenised
with array operations: find the blanks, check every line has the right number of fields, then
gather the fields we need, eight bytes at a time, as big-endian uint64 "id words" (see
:mod:`pytest_tempoeval.data.columns.ids`). Their order is ``strcmp`` order, which trec_eval breaks
ties by. Read the modules in this order:

- :mod:`.fields`: what is asked (:class:`LineFormat`) and returned (:class:`TrecFields`);
- :mod:`.pipeline`: :func:`read_fields`, blocks of lines on two threads, buffers reused;
- :mod:`.layout`: where the fields of a block's lines are (a fast path for the usual layout);
- :mod:`.output`: the preallocated result columns, and the gathering of id words into them;
- :mod:`.numbers`: scores and grades parsed from their words (SWAR), with plain references;
- :mod:`._memory`: the glibc and huge-page workarounds that keep fresh pages from costing time.

This package re-exports every name callers import.
"""

from pytest_tempoeval.data.readers.trec_tokens.fields import LineFormat, Parser, TrecFields
from pytest_tempoeval.data.readers.trec_tokens.numbers import (
    parse_float_words,
    parse_floats,
    parse_ints,
)
from pytest_tempoeval.data.readers.trec_tokens.pipeline import (
    BLOCK_BYTES,
    SEQUENTIAL_BLOCK_BYTES,
    read_fields,
)

__all__ = [
    "BLOCK_BYTES",
    "SEQUENTIAL_BLOCK_BYTES",
    "LineFormat",
    "Parser",
    "TrecFields",
    "parse_float_words",
    "parse_floats",
    "parse_ints",
    "read_fields",
]
