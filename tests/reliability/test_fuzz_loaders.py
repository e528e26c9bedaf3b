"""Fuzzing every file loader: malformed input raises the loader's documented error, fast, nowhere
else.

Each loader gets mutated copies of a few valid files (lines deleted, duplicated, swapped; bytes
inserted; tokens replaced by nasty values; JSON/YAML trees with wrong types, missing and extra keys,
deep nesting) and pure random bytes. For every input the loader either loads it or raises its
documented error (a :class:`TempoEvalError` subclass) whose message starts with ``path:`` or
``path:line:``, with the line inside the file, in under two seconds. Anything else (KeyError,
TypeError, RecursionError, a yaml error, a crash, a hang) is a bug.

The bugs this found are fixed: 17 minimal files that raised undocumented ValueError, OverflowError,
TypeError or AttributeError (kept in ``FOUND_BUGS`` as regression tests), and 100,000 nested '['
that raised RecursionError in two loaders and crashed libyaml's composer (SIGSEGV) in a third.
Files too big or too deep to generate for every example (a 20 MiB line, 100,000 nested '[', an
alias bomb) have their own tests.

The number of inputs comes from the hypothesis profile (``tests/conftest.py``): under ``ci``, the
default, 100 per loader (``CI_INPUTS``: a fixed, derandomized sample that keeps the loaders from
regressing on inputs like those fuzzing broke them with; each bug it found is a test of its own,
``FOUND_BUGS``), and ``fuzz`` for the search for new bugs (2,000 inputs per loader)::

    HYPOTHESIS_PROFILE=fuzz pytest tests/reliability/test_fuzz_loaders.py -n 2
"""

from __future__ import annotations

import copy
import functools
import gzip
import itertools
import json
import os
import re
import subprocess
import sys
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings, target
from hypothesis import strategies as st

from pytest_tempoeval import BaselineError, BaselineStore, GoldSet, Run
from pytest_tempoeval.errors import GoldSetError, JudgeCassetteError, RunError, TempoEvalError
from pytest_tempoeval.judge.cassettes import JudgeCassette

# CPU seconds per input (process time: a loaded, shared machine does not count). The slowest input
# takes about 0.2 s; a real hang takes far longer.
SECONDS_PER_INPUT = 2.0
# Inputs per loader under the ci profile (half its 200: about 10 s of CPU less); any other profile
# (fuzz) gives its own number.
CI_INPUTS = 100
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")  # as tests/conftest.py loads it
INPUTS = CI_INPUTS if PROFILE == "ci" else settings.default.max_examples

# A mutated gold set often judges a document it does not declare: that loads, with a GoldSetWarning
# (tested in tests/data/test_goldset.py). Here only errors and hangs matter.
pytestmark = pytest.mark.filterwarnings("ignore::pytest_tempoeval.GoldSetWarning")

# -- valid seed documents -------------------------------------------------------------------------

GOLD_TREES: list[dict[str, Any]] = [
    {
        "version": 1,
        "name": "elections",
        "k": 5,
        "documents": {
            "d1": {"text": "Biden won the 2020 election."},
            "d2": {"text": "Politics of the 1990s", "focus_time": [2020, "2016-2018"]},
            "d3": None,
        },
        "queries": [
            {
                "id": "q1",
                "text": "Who won in 2020?",
                "temporal_focus": "specific_time",
                "relevant": {"d1": 3, "d9": 0},
            },
            {
                "id": "q2",
                "text": "Elections of 2015-2017",
                "focus_time": "1990s",
                "relevant": ["d2", "d3"],
            },
            {"id": "q3", "relevant": {"d1": 1}},
        ],
    },
    {"version": 1, "queries": [{"id": "only", "focus_time": "19th century", "relevant": ["a"]}]},
]
# Hand-written YAML too: block and flow styles, comments, the layout people actually write.
GOLD_YAML_TEXT = b"""\
# a tiny gold set
version: 1
name: mini
documents:
  us2020:  {text: "Joe Biden won the 2020 United States presidential election."}
  campaign: {text: "Campaigns of 2015 and 2016.", focus_time: "2015-2016"}
queries:
  - id: us-2020
    text: "Who won the US presidential election in 2020?"
    relevant: {us2020: 3, campaign: 1}
  - id: 010
    focus_time: [1990s, 2001]
    relevant: [us2020]
"""

QRELS_SEEDS = [
    b"q1 0 d1 3\nq1 0 d2 0\nq2 0 d1 1\n",
    b"301\t0\tFBIS3-10082\t1\n301\t0\tFBIS3-10169\t0\n",
]
TREC_RUN_SEEDS = [
    b"q1 Q0 d1 1 12.5 run\nq1 Q0 d2 2 9.0 run\nq2 Q0 d3 1 1e-3 run\n",
    b"301\tQ0\tFBIS3-10082\t1\t-3.25\tbm25\n301\tQ0\tFBIS3-10169\t2\t-3.5\tbm25\n",
]
RUN_TREES: list[Any] = [
    {"q1": ["d3", "d1"], "q2": []},
    {"q1": {"d3": 12.5, "d1": 9}},
    {"q1": [["d1", 12.5], ["d2", 3]], "q2": [["d1", 0.5]]},
    {"q1": [["d1", "text of d1, about 2020"], ["d2", "another text"]]},
]
BASELINE_TREES: list[Any] = [
    {
        "version": 1,
        "test": "t.py::t",
        "results": {
            "nDCG@10": {
                "metric": "ndcg",
                "k": 10,
                "mode": "gold",
                "score": 0.75,
                "queries": 2,
                "gold_fingerprint": "3c7851cd2940c7da",
                "judge_model": None,
                "per_query": {"q1": 1.0, "q2": 0.5},
            }
        },
    }
]
# Request bodies the seed cassettes hold: replaying them reaches the stored responses.
JUDGE_BODIES: list[dict[str, Any]] = [
    {
        "max_tokens": 300,
        "messages": [{"role": "user", "content": f"Rate document {doc}"}],
        "model": "claude-haiku-5-5",
    }
    for doc in ("d1", "d2")
]


def _interaction(body: dict[str, Any], grade: int) -> dict[str, Any]:
    reply = {"type": "text", "text": json.dumps({"relevance_score": grade})}
    message = {"id": "msg_1", "type": "message", "role": "assistant", "content": [reply]}
    return {
        "request": {
            "body": json.dumps(body, separators=(",", ":")),
            "headers": {"anthropic-version": ["2023-06-01"], "content-type": ["application/json"]},
            "method": "POST",
            "uri": "https://api.anthropic.com/v1/messages",
        },
        "response": {
            "body": {"string": json.dumps(message)},
            "headers": {"content-type": ["application/json"]},
            "status": {"code": 200, "message": "OK"},
        },
    }


CASSETTE_TREES: list[Any] = [
    {
        "interactions": [_interaction(JUDGE_BODIES[0], 3), _interaction(JUDGE_BODIES[1], 0)],
        "version": 1,
    },
    {"interactions": [], "version": 1},
]


def dump_json(tree: Any, style: bool | None = True) -> bytes:
    """JSON on one line (None), one item per line (False) or indented (True)."""
    return json.dumps(tree, indent=None if style is None else int(style)).encode()


def dump_yaml(tree: Any, style: bool | None = False) -> bytes:
    """YAML in block (False), flow (True) or mixed (None) style."""
    return yaml.dump(
        tree, Dumper=yaml.CSafeDumper, sort_keys=False, allow_unicode=True, default_flow_style=style
    ).encode()


# -- the loaders ----------------------------------------------------------------------------------


def replay_cassette(path: Path) -> None:
    cassette = JudgeCassette(path, "none", "CMD")
    for body in [*JUDGE_BODIES, *stored_bodies(cassette), {}]:
        cassette.answer(body)


def stored_bodies(cassette: JudgeCassette) -> list[Any]:
    """The request bodies a (mutated) cassette holds: asking them reads the mutated responses
    too."""
    bodies = []
    for key in cassette._answers:
        try:
            bodies.append(json.loads(key))
        except (TypeError, ValueError):  # not JSON: no request body can match it
            pass
    return bodies


Load = Callable[[Path], object]


@dataclass(frozen=True)
class Loader:
    name: str
    suffix: str
    load: Load  # raises on a bad file
    error: type[TempoEvalError]  # the one exception type the loader documents
    seeds: tuple[bytes, ...]
    trees: tuple[Any, ...] = ()  # JSON/YAML seeds as data, for structural mutations
    dump: Callable[..., bytes] | None = None


def load_qrels(path: Path) -> object:
    return scored(GoldSet.from_trec_qrels(path))  # grouped lazily: scoring builds the queries


def load_gold(path: Path) -> object:
    return scored(GoldSet.load(path))


def scored(gold: GoldSet) -> object:
    """What loads must also score: a gold set whose grades or k load but overflow in a metric
    (a grade of 2**63, ``k: 2**40``) is a loader bug. Scored with a run of its own judged
    documents, in gold mode and focus-time mode, at the gold set's k."""
    from pytest_tempoeval import ndcg, precision, temporal_ndcg

    rankings = {query.id: list(query.relevant) for query in gold.queries.values() if query.relevant}
    if not rankings:
        return gold
    run = Run(rankings)
    k = gold.k or 10
    return [float(metric(run, gold, k=k)) for metric in (ndcg, precision, temporal_ndcg)]


def load_trec_run(path: Path) -> object:
    return dict(Run.from_trec(path))


def load_json_run(path: Path) -> object:
    return dict(Run.from_json(path))


def load_beir_corpus(path: Path) -> object:
    from pytest_tempoeval.data.readers.beir import JsonlCorpus

    return list(JsonlCorpus.open(path).values())  # every document read, as focus-time mode does


def load_beir_qrels(path: Path) -> object:
    from pytest_tempoeval.data.readers.trec import read_trec_qrels

    return read_trec_qrels(path, beir=True)


BEIR_CORPUS_SEEDS = [
    (
        b'{"_id": "d1", "title": "T", "text": "In 2020.", "metadata": {"date": "2020-05-01"}}\n'
        b'{"_id": "d\\u00e9", "title": "", "text": "x"}\n{"text": "late id", "_id": "d3"}\n'
    ),
]
BEIR_CORPUS_GZ_SEEDS = [gzip.compress(seed, mtime=0) for seed in BEIR_CORPUS_SEEDS]
BEIR_QRELS_SEEDS = [b"query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t0\nq2\td1\t-1\n"]


def read_baseline(path: Path) -> object:
    """Read, then gated against itself shifted down: extreme stored values (1e308) must be refused
    when read, not overflow in the gate's sums."""
    from pytest_tempoeval.gate.baselines import compare

    data = BaselineStore(path, update=False, test_id="t.py::t").read()
    for key, entry in data["results"].items():
        scores = entry["per_query"]
        compare(key, scores, {query: score - 0.5 for query, score in scores.items()}, 0.0, 0.05)
    return data


def yaml_loader(
    name: str, load: Load, error: type[TempoEvalError], trees: list[Any], *texts: bytes
) -> Loader:
    seeds = (
        *texts,
        *(dump_yaml(tree, style) for tree in trees for style in (False, True)),
    )  # block and flow style
    return Loader(name, ".yaml", load, error, seeds, tuple(trees), dump_yaml)


def json_loader(name: str, load: Load, error: type[TempoEvalError], trees: list[Any]) -> Loader:
    return Loader(name, ".json", load, error, tuple(map(dump_json, trees)), tuple(trees), dump_json)


LOADERS = {
    loader.name: loader
    for loader in [
        yaml_loader("gold_yaml", load_gold, GoldSetError, GOLD_TREES, GOLD_YAML_TEXT),
        json_loader("gold_json", load_gold, GoldSetError, GOLD_TREES),
        Loader("trec_qrels", ".qrels", load_qrels, GoldSetError, tuple(QRELS_SEEDS)),
        Loader("trec_run", ".run", load_trec_run, RunError, tuple(TREC_RUN_SEEDS)),
        Loader("beir_corpus", ".jsonl", load_beir_corpus, GoldSetError, tuple(BEIR_CORPUS_SEEDS)),
        Loader(
            "beir_corpus_gz",
            ".jsonl.gz",
            load_beir_corpus,
            GoldSetError,
            tuple(BEIR_CORPUS_GZ_SEEDS),
        ),
        Loader("beir_qrels", ".tsv", load_beir_qrels, GoldSetError, tuple(BEIR_QRELS_SEEDS)),
        json_loader("json_run", load_json_run, RunError, RUN_TREES),
        json_loader("baseline", read_baseline, BaselineError, BASELINE_TREES),
        yaml_loader("cassette_yaml", replay_cassette, JudgeCassetteError, CASSETTE_TREES),
        json_loader("cassette_json", replay_cassette, JudgeCassetteError, CASSETTE_TREES),
    ]
}

# -- the property ---------------------------------------------------------------------------------

_LINE_BREAKS = (
    b"\n",
    b"\r",
    "\x85".encode(),
    "\u2028".encode(),
    "\u2029".encode(),
)  # YAML counts all of these


def check_file(loader: Loader, path: Path, seconds: float = SECONDS_PER_INPUT) -> tuple[str, float]:
    """Load ``path``: it loads, or raises ``loader.error`` saying ``path:`` or ``path:line:``.

    Returns the outcome (``loaded`` or the error's type name) and the time the load took.
    """
    data = _decompressed(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    started = time.process_time()
    outcome = "loaded"
    try:
        loader.load(path)
    except loader.error as error:
        outcome = type(error).__name__
        message = str(error)
        where = re.match(re.escape(str(path)) + r"(?::(\d+))?: \S", message)
        assert where, (
            f"the message does not start with '{path}:' or '{path}:<line>:': {message[:300]!r}"
        )
        if where.group(1) is not None:
            last_line = sum(data.count(mark) for mark in _LINE_BREAKS) + 1
            if loader.suffix == ".yaml" and not data.endswith((b"\n", b"\r")):
                # libyaml puts the end of the stream on the line after an unterminated last line
                last_line += 1
            assert 1 <= int(where.group(1)) <= last_line, (
                f"line {where.group(1)} is outside the file: {message[:300]!r}"
            )
    finally:
        elapsed = time.process_time() - started
    assert elapsed < seconds, f"loading took {elapsed:.2f} s of CPU"
    return outcome, elapsed


def _decompressed(data: bytes) -> bytes:
    """A .gz file's lines, which its errors' line numbers count (a broken one has no lines)."""
    try:
        return gzip.decompress(data)
    except (OSError, EOFError, zlib.error):
        return b""


_names = itertools.count()


def check_input(loader: Loader, directory: Path, data: bytes) -> tuple[str, float]:
    path = (
        directory / f"input-{next(_names)}{loader.suffix}"
    )  # unique: hypothesis reuses the directory
    path.write_bytes(data)
    try:
        return check_file(loader, path)
    finally:
        path.unlink()


# -- mutations ------------------------------------------------------------------------------------

NASTY_TOKENS = [
    "",
    "-1",
    "0",
    "-0",
    "1e999",
    "-1e999",
    "NaN",
    "nan",
    "Infinity",
    "-Infinity",
    ".inf",
    ".nan",
    "9" * 400,
    "9" * 5000,
    "1" * 19,
    "0.1" + "1" * 20,
    "1_000",
    "0x1F",
    "0o17",
    "010",
    "1.10",
    "+1",
    "true",
    "false",
    "yes",
    "null",
    "~",
    "2020-13-45",
    "2020-02-30",
    "0000-01-01",
    "2001-12-14t21:59:43.10-05:00",
    "&a",
    "*a",
    "&a [1]",
    "!!binary",
    "!!python/object/apply:os.system",
    "!!set",
    "!custom",
    "<<",
    "? x",
    "---",
    "...",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "- ",
    "#",
    "|",
    ">",
    "'",
    '"',
    "\\",
    "\\u0000",
    "\\ud800",
    "%YAML 1.1",
    "\x00",
    "\t",
    "\r",
    "\x0b",
    "\ufeff",
    "\u2028",
    "\x85",
    "é",
    "😀",
    "\x7f",
    "Q0",
    "q1",
    "d1",
    "version",
    "queries",
    "relevant",
    "focus_time",
    "documents",
    "interactions",
    "request",
    "response",
    "body",
    "string",
    "per_query",
    "results",
    "d" * 8,
    "d" * 9,
    "d" * 4097,
    "1 2 3",
    "x\ny",
]
NASTY_BYTES = [
    b"\x00",
    b"\xff",
    b"\xc3",
    b"\xef\xbb\xbf",
    b"\r",
    b"\r\n",
    b"\t",
    b"\x0b",
    b"\x0c",
    b"\xed\xa0\x80",
    b"\xe2\x80\xa8",
    b"\xc2\x85",  # a UTF-8-encoded surrogate, U+2028, U+0085 (YAML line breaks)
]
HUGE_INTS = [10**400, -(10**400), 2**63, -(2**63) - 1, 2**64]  # beyond float, int64, uint64


def one_of_items(items: list[Any]) -> st.SearchStrategy[Any]:
    """``sampled_from(items)`` with a short repr: hypothesis statistics print the strategy."""
    return st.sampled_from(range(len(items))).map(lambda i: items[i])


index = st.integers(min_value=0, max_value=1 << 20)  # taken modulo the size of what it indexes
tokens = st.one_of(
    one_of_items(NASTY_TOKENS),
    st.text(max_size=12),
    st.integers().map(str) | st.floats().map(repr),
).map(str.encode)
inserted_bytes = st.sampled_from(NASTY_BYTES) | st.binary(min_size=1, max_size=8) | tokens

text_ops = st.one_of(
    st.tuples(st.just("delete line"), index),
    st.tuples(st.just("duplicate line"), index),
    st.tuples(st.just("swap lines"), index, index),
    st.tuples(st.just("truncate"), index),
    st.tuples(st.just("insert"), index, inserted_bytes),
    st.tuples(st.just("replace token"), index, tokens),
)
_TOKEN = re.compile(
    rb'"(?:[^"\\\n]|\\.)*"|[^\s\[\]{},:"]+'
)  # a JSON string, or a run of non-blank non-syntax bytes


def apply_text_op(data: bytes, op: tuple[Any, ...]) -> bytes:
    """One mutation of the file's bytes (indices wrap around, so any index fits any file)."""
    name, *args = op
    lines = data.splitlines(keepends=True) or [b""]
    if name == "delete line":
        del lines[args[0] % len(lines)]
    elif name == "duplicate line":
        at = args[0] % len(lines)
        lines.insert(at, lines[at])
    elif name == "swap lines":
        i, j = args[0] % len(lines), args[1] % len(lines)
        lines[i], lines[j] = lines[j], lines[i]
    elif name == "truncate":
        return data[: args[0] % (len(data) + 1)]
    elif name == "insert":
        at = args[0] % (len(data) + 1)
        return data[:at] + args[1] + data[at:]
    elif name == "replace token":
        found = list(_TOKEN.finditer(data))
        if not found:
            return data
        token = found[args[0] % len(found)]
        return data[: token.start()] + args[1] + data[token.end() :]
    return b"".join(lines)


keys = st.sampled_from(
    ["id", "text", "version", "queries", "relevant", "body", "string", "per_query"]
) | st.text(max_size=6)
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | one_of_items(HUGE_INTS)
    | st.floats()
    | st.text(max_size=10)
)
values = st.recursive(
    scalars | tokens.map(bytes.decode),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(keys, children, max_size=3),
    max_leaves=8,
)


# The strategies a composite draws from are made once: a strategy made anew for every draw is
# validated and labelled anew too, which was most of the time an input took (the same draws).
edits = st.integers(min_value=1, max_value=4)
path_steps = st.lists(index, max_size=6)
operations = st.sampled_from(["replace", "delete", "add", "nest"])
nesting = st.integers(min_value=1, max_value=150)


@st.composite
def mutated_tree(draw: st.DrawFn, trees: st.SearchStrategy[Any]) -> Any:
    """A seed tree (from ``trees``) with a few nodes replaced, deleted, added to or nested deep."""
    holder = [copy.deepcopy(draw(trees))]  # a holder, so the root can be replaced too
    for _ in range(draw(edits)):
        parent: Any = holder
        key: Any = 0
        for step in draw(path_steps):  # walk down to a random node
            node = parent[key]
            children = (
                list(node)
                if isinstance(node, dict)
                else list(range(len(node)))
                if isinstance(node, list)
                else []
            )
            if not children:
                break
            parent, key = node, children[step % len(children)]
        operation = draw(operations)
        if operation == "replace":
            parent[key] = draw(values)
        elif operation == "delete" and parent is not holder:
            del parent[key]
        elif operation == "add" and isinstance(parent[key], dict):
            parent[key][draw(keys)] = draw(values)
        elif operation == "add" and isinstance(parent[key], list):
            parent[key].insert(draw(index) % (len(parent[key]) + 1), draw(values))
        elif operation == "nest":  # 150 is beyond the gold loaders' 100-level limit
            for _ in range(draw(nesting)):
                parent[key] = [parent[key]]
    return holder[0]


# TREC-like lines: mostly the right number of fields, of tricky values, with tricky separators.
TREC_FIELDS = [
    b"q1",
    b"q2",
    b"Q0",
    b"0",
    b"d1",
    b"d2",
    b"1",
    b"3",
    b"-1",
    b"12.5",
    b"-3",
    b"1e5",
    b"1e999",
    b"nan",
    b"inf",
    b"1_0",
    b"+1",
    b"0x10",
    b".5",
    b"5.",
    b"1.2.3",
    b"run",
    "é".encode(),
    b"\xff",
    b"\x00",
    b"9" * 19,
    b"1" * 16 + b".5",
    b"d" * 7,
    b"d" * 8,
    b"d" * 9,
    b"d" * 16,
    b"d" * 17,
    b"d" * 4096,
    b"d" * 4097,
    b"\xef\xbb\xbfq1",
]
trec_field = st.sampled_from(TREC_FIELDS) | st.binary(min_size=1, max_size=10)


line_counts = st.integers(min_value=0, max_value=12)
separators = st.sampled_from([b" ", b" ", b"\t", b"  ", b" \t", b"\x0b", b"\x0c"])
line_ends = st.sampled_from([b"\n", b"\n", b"\r\n", b"\r", b"\n\n", b""])


@functools.cache
def field_counts(n_fields: int) -> st.SearchStrategy[int]:
    return st.sampled_from([n_fields] * 4 + [0, 1, n_fields - 1, n_fields + 1])


@st.composite
def trec_lines(draw: st.DrawFn, n_fields: int) -> bytes:
    """Lines of ``n_fields`` fields, give or take one, with any blank between them and any line
    end."""
    lines = []
    for _ in range(draw(line_counts)):
        count = draw(field_counts(n_fields))
        separator = draw(separators)
        end = draw(line_ends)
        lines.append(separator.join(draw(trec_field) for _ in range(count)) + end)
    return b"".join(lines)


@functools.cache
def malformed(name: str) -> st.SearchStrategy[bytes]:
    """Inputs for a loader: mutated seeds (as text, and as trees), format-shaped noise, random
    bytes."""
    loader = LOADERS[name]

    def mutate(data: bytes, ops: list[tuple[Any, ...]]) -> bytes:
        for op in ops:
            data = apply_text_op(data, op)
        return data

    mutated = st.builds(
        mutate, st.sampled_from(loader.seeds), st.lists(text_ops, min_size=1, max_size=4)
    )
    # Mutated trees get at most one text mutation: more would mostly break the syntax they keep.
    if loader.trees:
        assert loader.dump is not None
        dumped = st.builds(
            loader.dump,
            mutated_tree(st.sampled_from(loader.trees)),
            st.sampled_from([None, False, True]),
        )
        mutated |= st.builds(mutate, dumped, st.lists(text_ops, max_size=1))
    if name == "beir_corpus_gz":  # damaged compressed bytes (above), and damaged lines compressed
        mutated |= st.builds(
            lambda data, ops: gzip.compress(mutate(data, ops), mtime=0),
            st.sampled_from(BEIR_CORPUS_SEEDS),
            st.lists(text_ops, min_size=1, max_size=4),
        )
    if name in ("trec_qrels", "trec_run"):
        mutated |= st.builds(
            mutate, trec_lines(4 if name == "trec_qrels" else 6), st.lists(text_ops, max_size=1)
        )
    return mutated | st.binary(max_size=300)


# -- tests ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@pytest.mark.parametrize("name", LOADERS)
def test_seeds_load(name: str, tmp_path: Path) -> None:
    """The seeds are valid: mutations start from files that load."""
    loader = LOADERS[name]
    for number, seed in enumerate(loader.seeds):
        path = tmp_path / f"seed-{number}{loader.suffix}"
        path.write_bytes(seed)
        loader.load(path)


@settings(
    max_examples=INPUTS,
    deadline=None,  # check_file bounds each load's time itself; generating an input does not count
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
)
@given(data=st.data())
@pytest.mark.parametrize("name", LOADERS)
def test_fuzz(name: str, fuzz_dir: Path, data: st.DataObject) -> None:
    """A malformed file loads, or fails with the loader's documented error (see check_file)."""
    outcome, elapsed = check_input(
        LOADERS[name], fuzz_dir, data.draw(malformed(name), label="file")
    )
    event(f"outcome: {outcome}")
    target(elapsed, label="load seconds")  # steers generation towards slow inputs


# -- bugs fuzzing found ---------------------------------------------------------------------------
# Each raised an undocumented exception (ValueError, OverflowError, TypeError, AttributeError) until
# fixed; their minimal files stay here as regression tests.


@dataclass(frozen=True)
class FoundBug:
    loader: str
    name: str
    repro: bytes  # a minimal file
    what: str


_E309 = b"1" + b"0" * 309  # an integer beyond the largest float
_DIGITS = b"9" * 4301  # past Python's 4,300-digit limit for int(str)
FOUND_BUGS = [
    FoundBug(
        "gold_yaml",
        "bad-date",
        b"2020-13-45\n",
        "an impossible date: the YAML constructor's ValueError",
    ),
    FoundBug(
        "gold_yaml",
        "bad-tagged-value",
        b"version: !!int x\n",
        "'!!int x': the YAML constructor's ValueError",
    ),
    FoundBug("gold_yaml", "int-digits", _DIGITS, "a 4,301-digit integer"),
    FoundBug("gold_json", "int-digits", _DIGITS, "a 4,301-digit integer"),
    FoundBug("json_run", "int-digits", _DIGITS, "a 4,301-digit integer"),
    FoundBug(
        "json_run",
        "float-overflow",
        b'{"q":{"d":' + _E309 + b"}}",
        "a score beyond float range: OverflowError",
    ),
    FoundBug("baseline", "int-digits", _DIGITS, "a 4,301-digit integer"),
    FoundBug(
        "baseline",
        "float-overflow",
        b'{"version":1,"results":{"r":{"per_query":{"q":' + _E309 + b"}}}}",
        "a per-query score beyond float range: OverflowError",
    ),
    FoundBug(
        "trec_qrels",
        "unicode-blank-query",
        b"q1 0 d1 3\n\xe2\x80\xa8 0 d1 1\n",
        "U+2028 as a query id: loaded, then a RunError from scoring, with no file or line",
    ),
    FoundBug(
        "trec_run",
        "unicode-blank-doc",
        b"q1 Q0 d1 1 2.0 r\nq1 Q0 \xc2\xa0 2 1.0 r\n",
        "U+00A0 as a doc id: loaded, an id no other loader accepts",
    ),
    FoundBug("cassette_json", "int-digits", _DIGITS, "a 4,301-digit integer"),
    FoundBug("cassette_yaml", "int-digits", _DIGITS, "a 4,301-digit integer"),
    FoundBug(
        "cassette_yaml",
        "bad-date",
        b"x: 2020-13-45\n",
        "an impossible date: the YAML constructor's ValueError",
    ),
]
_POST = {"method": "POST", "uri": "/v1/messages"}
for _suffix, _dump in (("json", dump_json), ("yaml", dump_yaml)):
    FOUND_BUGS += [
        FoundBug(
            f"cassette_{_suffix}",
            "non-string-method",
            _dump({"interactions": [{"request": {"method": 1}, "response": {}}]}, None),
            "request method or uri not a string: AttributeError",
        ),
        FoundBug(
            f"cassette_{_suffix}",
            "unhashable-body",
            _dump({"interactions": [{"request": {**_POST, "body": [1]}, "response": {}}]}, None),
            "a request body that is a list: TypeError (unhashable)",
        ),
        FoundBug(
            f"cassette_{_suffix}",
            "non-string-response",
            _dump(
                {"interactions": [{"request": {**_POST, "body": "{}"}, "response": {"body": 1}}]},
                None,
            ),
            "a response body that is not a string: TypeError from json.loads",
        ),
    ]


@pytest.mark.parametrize("bug", FOUND_BUGS, ids=lambda bug: f"{bug.loader}-{bug.name}")
def test_bug_found_by_fuzzing_is_a_documented_error_now(bug: FoundBug, tmp_path: Path) -> None:
    check_input(LOADERS[bug.loader], tmp_path, bug.repro)


# -- nasty files hypothesis should not generate for every example ---------------------------------

HUGE = 20 * 1024 * 1024  # one 20 MiB line: larger than the TREC readers' 16 MiB block
_GOLD_JSON = b'{"version": 1, "queries": [{"id": "q", "text": "'
_GOLD_YAML = b'{version: 1, queries: [{id: q, text: "'


@pytest.mark.parametrize(
    ("name", "start", "repeated", "end"),
    [
        pytest.param("trec_run", b"", b"q1 Q0 d1 1 1.0 run ", b"", id="trec_run-fields"),
        pytest.param("trec_run", b"", b"d", b"", id="trec_run-one-field"),
        pytest.param("trec_qrels", b"", b"q1 0 d1 1 ", b"", id="trec_qrels-fields"),
        pytest.param("trec_qrels", b"", b"d", b"", id="trec_qrels-one-field"),
        pytest.param(
            "gold_json", _GOLD_JSON, b"x", b"", id="gold_json-open"
        ),  # the string never ends
        pytest.param("gold_json", _GOLD_JSON, b"x", b'"}]}', id="gold_json-valid"),
        pytest.param("gold_yaml", _GOLD_YAML, b"x", b"", id="gold_yaml-open"),
        pytest.param("gold_yaml", _GOLD_YAML, b"x", b'"}]}', id="gold_yaml-valid"),
    ],
)
def test_huge_single_line(
    name: str, start: bytes, repeated: bytes, end: bytes, tmp_path: Path
) -> None:
    """No newline in 20 MiB: loads or fails with the documented error within a few seconds."""
    path = tmp_path / f"huge{LOADERS[name].suffix}"
    path.write_bytes(start + repeated * (HUGE // len(repeated)) + end)
    check_file(LOADERS[name], path, seconds=5.0)


def alias_bomb(levels: int = 9) -> bytes:
    """'Billion laughs': each level lists the one before ten times; expanded, 10**levels strings."""
    lines = ['a0: &a0 "lol"']
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]" for n in range(1, levels + 1)]
    return "\n".join(lines).encode() + b"\n"


@pytest.mark.parametrize("name", ["gold_yaml", "cassette_yaml"])
def test_alias_bomb(name: str, tmp_path: Path) -> None:
    data = alias_bomb() + (b"interactions: []\n" if name == "cassette_yaml" else b"")
    outcome, _ = check_input(LOADERS[name], tmp_path, data)
    if name == "gold_yaml":  # anchors are refused outright
        assert outcome == "GoldSetError"


DEEP_LOADERS = ["gold_yaml", "gold_json", "json_run", "baseline", "cassette_json", "cassette_yaml"]


def check_in_a_child(paths: dict[str, Path]) -> subprocess.CompletedProcess[str]:
    """check_file for each loader on its file, one after the other, in a child process (a loader
    that overflows the C stack crashes it); the child prints each loader's name once checked."""
    script = (
        "import sys, test_fuzz_loaders as t\n"
        "for name, path in zip(sys.argv[1::2], sys.argv[2::2]):\n"
        "    t.check_file(t.LOADERS[name], t.Path(path))\n"
        "    print(name, flush=True)\n"
    )
    arguments = [str(item) for pair in paths.items() for item in pair]
    return subprocess.run(
        [sys.executable, "-c", script, *arguments],
        cwd=Path(__file__).parent,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def deep_file(directory: Path, name: str) -> Path:
    path = directory / f"deep{LOADERS[name].suffix}"
    path.write_bytes(b"[" * 100_000)
    return path


@pytest.fixture(scope="module")
def checked_together(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    """The loaders that passed the check when one child checked them all: a child each spent
    most of its second starting up. A loader that fails or crashes the shared child, and those
    after it, are checked again alone (below), so each failure is its own."""
    paths = {name: deep_file(tmp_path_factory.mktemp(name), name) for name in DEEP_LOADERS}
    return set(check_in_a_child(paths).stdout.split())


@pytest.mark.parametrize("name", DEEP_LOADERS)
def test_deep_nesting(name: str, tmp_path: Path, checked_together: set[str]) -> None:
    """100,000 '[': checked in a child process, since a loader that overflows the C stack
    crashes."""
    if name in checked_together:
        return
    child = check_in_a_child({name: deep_file(tmp_path, name)})
    assert child.returncode == 0, f"exit status {child.returncode}:\n{child.stderr[-3000:]}"
