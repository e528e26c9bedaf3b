"""How a text file's lines end, and what its first data line is: the sniffing done before a
reader is chosen, light enough for the plugin's import (no numpy)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from pytest_tempoeval.data.values import is_number
from pytest_tempoeval.files import is_file

SNIFF_BYTES = 1 << 16  # how much of a file's start tells its line ends and first line


def lines_end_in_cr(head: bytes) -> bool:
    """Whether a file starting with ``head`` ends its lines with a lone CR (classic Mac OS, or
    ``tr '\\n' '\\r'``): it has a CR and no LF. Read as it is, such a file is one line, and a
    run's first six fields would be all of it; so its CRs are read as newlines. In a file with
    LFs a CR is a blank, as in CRLF lines (and trec_eval: C isspace)."""
    return b"\n" not in head and b"\r" in head


def first_data_line(path: Path) -> tuple[int, list[bytes]] | None:
    """The number and fields of the first line that is neither blank nor a comment, among the
    file's first bytes (lines end in LF, CRLF or CR); None if there is none or no regular file
    (a FIFO is never opened here: that would wait for a writer, or eat the data)."""
    if not is_file(path):
        return None
    try:
        with path.open("rb") as file:
            head = file.read(SNIFF_BYTES)
    except OSError:
        return None
    for number, line in enumerate(head.splitlines(), start=1):
        if line.strip() and not line.startswith(b"#"):
            return number, line.split()
    return None


_YAML_OPENINGS = (b"{", b"[", b"-", b"%", b"?", b"!", b"&", b"*", b"|", b">", b"'", b'"')


def reads_as_columns(path: Path) -> bool:
    """Whether the file's first data line is whitespace-separated columns, as in TREC qrels (or
    in a file that is nearly qrels: three columns, a header), rather than the start of a YAML or
    JSON document: two fields or more, no YAML key (``name:``), no opening such as ``{`` or
    ``- ``. Such a file is read as qrels, whose errors say what is wrong with its lines."""
    first = first_data_line(path)
    if first is None:
        return False
    fields = first[1]
    if len(fields) == 4 and _is_integer(fields[3]):
        return True
    return (
        len(fields) >= 2
        and not fields[0].startswith(_YAML_OPENINGS)
        and not any(field.endswith(b":") for field in fields)
    )


def _is_integer(field: bytes) -> bool:
    return field.lstrip(b"-").isdigit()


# A gold set's top key (searched only for an error's hint: compiled then, by re's cache)
_GOLD_KEY = rb'(?m)^(?:version|queries|documents):|"(?:version|queries)"\s*:'


def sniffed_kind(path: str | Path) -> str | None:
    """What a file looks like at a glance, for a hint when it fails to load: "a TREC run" (six
    columns, an integer rank and a number score), "TREC qrels" (four columns, an integer grade),
    "a gold set" (a top key ``version``/``queries`` of YAML or JSON, or a folder: BEIR), or
    None. Never raises; reads no more than the file's first bytes."""
    if os.path.isdir(path):
        return "a gold set (a folder, read as BEIR)"
    first = first_data_line(Path(path))
    if first is None:
        return None
    fields = first[1]
    if len(fields) == 6 and _is_integer(fields[3]) and is_number(fields[4]):
        return "a TREC run"
    if len(fields) == 4 and _is_integer(fields[3]):
        return "TREC qrels"
    try:
        with open(path, "rb") as file:  # first_data_line found a regular file
            head = file.read(SNIFF_BYTES)
    except OSError:
        return None
    return "a gold set" if re.search(_GOLD_KEY, head) else None
