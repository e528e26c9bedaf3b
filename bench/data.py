"""Seeded synthetic data for the scenarios, one generator per kind of input.

Every generator is deterministic for a seed. The scenarios call the file-writing ones through
``harness.generate`` (a separate process, so the parent never holds the data).

**TREC run and qrels** (``write_trec``). Scores are rounded so that ties are common (trec_eval
breaks them by doc id, descending), each query's lines are in score order with ties in random
order, as real systems write them, and every query has at least one relevant document. Named
shapes (``SHAPES``), so that no one code path is flattered by one generator:

- ``a`` sparse: 100 retrieved, 20 judged of which 10 retrieved, ``d123456`` ids, 1-decimal scores;
- ``b`` dense: 100 retrieved, 72 judged of which 70 retrieved, 4-byte ids, 5-decimal scores;
- ``c`` long ids: 1,000 retrieved, 5 judged of which 3 retrieved, URL-like ids of 20 to 40 bytes.

**BEIR folders** (``write_beir_folder``): ``corpus.jsonl``, ``queries.jsonl``, ``qrels/test.tsv``
and ``sample.txt`` (random doc ids). Texts are runs of words cut from one seeded pool: 5,000 made-up
words, the years 1850-2025, and tokens JSON escapes (``\\"quoted\\"``, ``caf\\u00e9``). Ids are
``num`` (``"731"``) or ``uuid`` (36 bytes); queries = docs / 100, judgments = docs / 10.

**Focus times** (``focus_inputs``): a corpus and queries with year spans, and rankings that draw
part of each from documents near the query's years. **Memory files** (``write_memory_files``): the
same as a YAML gold set with texts that carry the years, a qrels file, a TREC and a JSON run.
**Judge items** (``judge_items``): (query id, query, doc id, document) with distinct prompts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# -- TREC run and qrels ----------------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    docs_per_query: int
    judged_per_query: int
    judged_in_run: int
    id_style: str  # "number" (d123456), "short" (4 bytes), "long" (20-40 bytes, URL-like)
    score_decimals: int


SHAPES = {
    "a": Shape(100, 20, 10, "number", 1),
    "b": Shape(100, 72, 70, "short", 5),
    "c": Shape(1000, 5, 3, "long", 4),
}

_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def _base36(number: int, width: int) -> str:
    digits = []
    for _ in range(width):
        number, digit = divmod(number, 36)
        digits.append(_BASE36[digit])
    return "".join(reversed(digits))


def id_formatter(style: str) -> Callable[[int], str]:
    """Doc number -> doc id, distinct numbers giving distinct ids."""
    if style == "number":
        return lambda number: f"d{number}"
    if style == "short":  # 36**4 = 1.7M names; larger numbers take a fifth character
        return lambda number: _base36(number, 4 if number < 36**4 else 5)
    if style == "long":  # 20-40 bytes: a site, a path of the number, a per-number tail

        def long_id(number: int) -> str:
            tail = (number * 2654435761) % 2**32
            return f"https://ex.org/{_base36(number, 5)}/{tail:08x}"[: 20 + number % 21].ljust(
                20 + number % 21, "x"
            )

        return long_id
    raise ValueError(f"unknown id style {style!r}")


def write_trec_files(
    directory: Path,
    n_queries: int,
    docs_per_query: int,
    seed: int = 0,
    judged_per_query: int = 20,
    corpus_size: int = 1_000_000,
    score_decimals: int = 1,
    judged_in_run: int | None = None,
    id_style: str = "number",
) -> tuple[Path, Path]:
    """Write ``run.trec`` and ``qrels.trec`` into ``directory``; return their paths.

    ``judged_in_run`` of the ``judged_per_query`` judgments are of retrieved documents (default
    half), the rest of documents no ranking retrieved."""
    rng = np.random.default_rng(seed)
    name = id_formatter(id_style)
    in_run = judged_per_query // 2 if judged_in_run is None else judged_in_run
    directory.mkdir(parents=True, exist_ok=True)
    run_path, qrels_path = directory / "run.trec", directory / "qrels.trec"
    with run_path.open("w") as run_file, qrels_path.open("w") as qrels_file:
        chunk = 10_000  # queries per vectorised chunk: bounded memory at any size
        for first in range(0, n_queries, chunk):
            count = min(chunk, n_queries - first)
            docs = _distinct_docs(rng, count, docs_per_query, corpus_size)
            scores = np.round(rng.normal(10.0, 2.0, size=(count, docs_per_query)), score_decimals)
            order = np.argsort(-scores, axis=1, kind="stable")
            docs = np.take_along_axis(docs, order, axis=1)
            scores = np.take_along_axis(scores, order, axis=1)
            # Judge some retrieved docs (more often near the top) and some never retrieved.
            n_judged_in_run = min(in_run, docs_per_query)
            judged_positions = rng.permuted(np.tile(np.arange(docs_per_query), (count, 1)), axis=1)
            judged_in_run = np.take_along_axis(docs, judged_positions[:, :n_judged_in_run], axis=1)
            unretrieved = rng.integers(
                corpus_size, 2 * corpus_size, size=(count, judged_per_query - n_judged_in_run)
            )
            _replace_repeats(unretrieved, 2 * corpus_size + first * judged_per_query)
            judged = np.concatenate([judged_in_run, unretrieved], axis=1)
            grades = rng.integers(0, 4, size=judged.shape)
            grades[:, 0] = np.maximum(grades[:, 0], 1)  # every query has at least one relevant doc
            run_lines, qrel_lines = [], []
            for row in range(count):
                qid = f"q{first + row}"
                run_lines.extend(
                    f"{qid} Q0 {name(doc)} {rank} {score:.{score_decimals}f} bench\n"
                    for rank, (doc, score) in enumerate(zip(docs[row], scores[row]), start=1)
                )
                qrel_lines.extend(
                    f"{qid} 0 {name(doc)} {grade}\n" for doc, grade in zip(judged[row], grades[row])
                )
            run_file.writelines(run_lines)
            qrels_file.writelines(qrel_lines)
    return run_path, qrels_path


def _replace_repeats(docs: np.ndarray, fresh: int) -> None:
    """Replace a number repeated within a row by one above ``fresh`` (unique per cell): trec_eval
    refuses a doc judged twice for a query. Rare (about 5 rows in 100,000 at 10 draws from 1M), and
    done without drawing, so the rest of the data stays as the seed made it."""
    ordered = np.sort(docs, axis=1)
    for row in np.flatnonzero((ordered[:, 1:] == ordered[:, :-1]).any(axis=1)).tolist():
        seen: set[int] = set()
        for column, doc in enumerate(docs[row].tolist()):
            if doc in seen:
                docs[row, column] = fresh + row * docs.shape[1] + column
            seen.add(int(docs[row, column]))


def _distinct_docs(rng: np.random.Generator, rows: int, width: int, corpus_size: int) -> np.ndarray:
    """Draw ``width`` distinct doc numbers per row (trec_eval rejects duplicates within a
    ranking)."""
    docs = rng.integers(0, corpus_size, size=(rows, width * 2))
    out = np.empty((rows, width), dtype=np.int64)
    for row in range(rows):
        unique = np.unique(docs[row])
        rng.shuffle(unique)
        out[row] = unique[:width]
    return out


def write_shape(directory: Path, n_queries: int, shape: str, seed: int = 0) -> tuple[Path, Path]:
    """:func:`write_trec_files` with one of the named ``SHAPES``."""
    chosen = SHAPES[shape]
    return write_trec_files(
        directory,
        n_queries,
        chosen.docs_per_query,
        seed,
        chosen.judged_per_query,
        score_decimals=chosen.score_decimals,
        judged_in_run=chosen.judged_in_run,
        id_style=chosen.id_style,
    )


def write_trec(
    directory: Path,
    queries: int,
    shape: str | None = None,
    docs: int = 100,
    judged: int = 20,
    seed: int = 0,
) -> dict[str, int]:
    """A named shape, or ``docs`` retrieved and ``judged`` judged per query; the file sizes."""
    if shape:
        run, qrels = write_shape(directory, queries, shape, seed)
    else:
        run, qrels = write_trec_files(directory, queries, docs, seed, judged)
    return {"run_bytes": run.stat().st_size, "qrels_bytes": qrels.stat().st_size}


# -- BEIR folders ----------------------------------------------------------------------------


ID_STYLES = ("num", "uuid")
_ESCAPED = ['\\"quoted\\"', "caf\\u00e9", "na\\u00efve", "\\u00c5ngstr\\u00f6m"]
_LINE_OVERHEAD = len('{"_id": "", "title": "", "text": "", "metadata": {}}')


def write_beir_folder(
    directory: Path,
    docs: int,
    line_bytes: int = 400,
    ids: str = "num",
    seed: int = 0,
    sample: int = 1000,
) -> dict:
    """Write a BEIR folder into ``directory``; return its counts and file sizes."""
    if ids not in ID_STYLES:
        raise ValueError(f"ids must be one of {ID_STYLES}, got {ids!r}")
    rng = np.random.default_rng(seed)
    n_queries = max(1, docs // 100)
    n_qrels = max(n_queries, docs // 10)
    pool, starts = _word_pool(rng, max(4 * line_bytes, 2_000) * 2_000)

    doc_ids = _ids(rng, docs, ids, "")
    query_ids = _ids(rng, n_queries, ids, "q")
    id_bytes = sum(map(len, doc_ids)) / docs
    body = max(20, round(line_bytes - _LINE_OVERHEAD - id_bytes - 30))

    directory.mkdir(parents=True, exist_ok=True)
    (directory / "qrels").mkdir(exist_ok=True)
    chunk = 100_000
    with (directory / "corpus.jsonl").open("w", encoding="utf-8") as out:
        for first in range(0, docs, chunk):
            count = min(chunk, docs - first)
            titles = _slices(rng, pool, starts, count, 15, 45)
            texts = _slices(rng, pool, starts, count, body // 2, body + body // 2)
            out.write(
                "".join(
                    f'{{"_id": "{doc_id}", "title": "{title}", "text": "{text}", '
                    '"metadata": {}}\n'
                    for doc_id, title, text in zip(doc_ids[first : first + count], titles, texts)
                )
            )
    with (directory / "queries.jsonl").open("w", encoding="utf-8") as out:
        texts = _slices(rng, pool, starts, n_queries, 30, 90)
        out.write(
            "".join(
                f'{{"_id": "{query_id}", "text": "{text}", "metadata": {{}}}}\n'
                for query_id, text in zip(query_ids, texts)
            )
        )
    judged = rng.permutation(docs)[:n_qrels].tolist()  # distinct: no (query, doc) pair repeats
    grades = rng.integers(0, 3, size=n_qrels).tolist()
    per_query = n_qrels // n_queries
    with (directory / "qrels" / "test.tsv").open("w", encoding="utf-8") as out:
        out.write("query-id\tcorpus-id\tscore\n")
        out.write(
            "".join(
                f"{query_ids[min(row // per_query, n_queries - 1)]}\t{doc_ids[doc]}\t{grade}\n"
                for row, (doc, grade) in enumerate(zip(judged, grades))
            )
        )
    picked = rng.choice(docs, size=min(sample, docs), replace=False).tolist()
    (directory / "sample.txt").write_text("".join(f"{doc_ids[i]}\n" for i in picked))
    return {
        "docs": docs,
        "queries": n_queries,
        "qrels": n_qrels,
        "ids": ids,
        "id_bytes": id_bytes,
        "sample": len(picked),
        "corpus_bytes": (directory / "corpus.jsonl").stat().st_size,
        "queries_bytes": (directory / "queries.jsonl").stat().st_size,
        "qrels_bytes": (directory / "qrels" / "test.tsv").stat().st_size,
    }


def _word_pool(rng: np.random.Generator, size: int) -> tuple[str, np.ndarray]:
    """About ``size`` bytes of space-separated words, and the offset where each word starts."""
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    lengths = rng.integers(2, 11, size=5_000)
    vocabulary = ["".join(rng.choice(letters, size=n)) for n in lengths.tolist()]
    vocabulary += [str(year) for year in range(1850, 2026)] + _ESCAPED
    words = [vocabulary[i] for i in rng.integers(0, len(vocabulary), size=size // 7).tolist()]
    lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words)) + 1
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    return " ".join(words), starts


def _slices(
    rng: np.random.Generator, pool: str, starts: np.ndarray, count: int, low: int, high: int
) -> list[str]:
    """``count`` runs of whole words from ``pool``, each ``low``-``high`` bytes long (about)."""
    lengths = rng.integers(low, high + 1, size=count)
    last_start = np.searchsorted(starts, len(pool) - 2 * high - 20)
    begin = starts[rng.integers(0, last_start, size=count)]
    end_word = np.searchsorted(starts, begin + lengths)  # the first word starting past the length
    end = starts[end_word] - 1  # before the space that precedes it
    return [pool[b:e] for b, e in zip(begin.tolist(), end.tolist())]


def _ids(rng: np.random.Generator, count: int, style: str, prefix: str) -> list[str]:
    if style == "num":
        return [f"{prefix}{i}" for i in range(count)]
    hexed = rng.bytes(16 * count).hex()
    return [
        f"{hexed[i : i + 8]}-{hexed[i + 8 : i + 12]}-{hexed[i + 12 : i + 16]}-"
        f"{hexed[i + 16 : i + 20]}-{hexed[i + 20 : i + 32]}"
        for i in range(0, 32 * count, 32)
    ]


# -- focus times -----------------------------------------------------------------------------


@dataclass
class FocusInputs:
    """A corpus and queries with year spans, and rankings of corpus indices."""

    doc_ids: list[str]
    doc_span: np.ndarray  # [docs, 2] first and last year
    query_ids: list[str]
    query_span: np.ndarray  # [queries, 2]
    rankings: np.ndarray  # [queries, docs_per_query] corpus indices in rank order


def focus_inputs(
    n_queries: int,
    docs_per_query: int,
    corpus: int,
    seed: int = 0,
    years: tuple[int, int] = (1900, 2025),
    max_span: int = 5,
    near_fraction: float = 0.5,
) -> FocusInputs:
    """Spans are one year (60%) or 2..``max_span`` years. Each ranking holds ``near_fraction``
    documents whose span starts near the query's (many overlap it) and random others, ordered by a
    noisy score that favours the near ones."""
    rng = np.random.default_rng(seed)
    year_min, year_max = years

    def spans(n: int) -> np.ndarray:
        start = rng.integers(year_min, year_max + 1, n)
        length = np.where(rng.random(n) < 0.6, 1, rng.integers(2, max_span + 1, n))
        return np.stack([start, np.minimum(start + length - 1, year_max)], axis=1)

    doc_span, query_span = spans(corpus), spans(n_queries)
    by_start = np.argsort(doc_span[:, 0], kind="stable")
    starts = doc_span[by_start, 0]
    n_near = round(docs_per_query * near_fraction)
    rankings = np.empty((n_queries, docs_per_query), dtype=np.int64)
    for q in range(n_queries):
        lo = np.searchsorted(starts, query_span[q, 0] - max_span + 1, "left")
        hi = np.searchsorted(starts, query_span[q, 1], "right")
        near = by_start[lo + rng.choice(hi - lo, size=min(n_near, hi - lo), replace=False)]
        chosen = dict.fromkeys(near.tolist())
        while len(chosen) < docs_per_query:
            chosen.update(dict.fromkeys(rng.integers(0, corpus, docs_per_query).tolist()))
        picked = np.array(list(chosen)[:docs_per_query])
        score = np.isin(picked, near) + rng.normal(0.0, 1.0, docs_per_query)
        rankings[q] = picked[np.argsort(-score, kind="stable")]
    doc_ids = [f"d{i}" for i in range(corpus)]
    return FocusInputs(doc_ids, doc_span, [f"q{i}" for i in range(n_queries)], query_span, rankings)


def write_memory_files(
    directory: Path, queries: int, docs: int, corpus: int, seed: int = 0
) -> dict[str, int]:
    """``gold.yaml`` (texts carry each focus time: "Report on topic 417 in 1987."), ``qrels.trec``,
    ``run.trec`` and ``run.json``. Each query has five judgments: three retrieved documents graded
    1-3, one retrieved graded 0, one never retrieved."""
    inputs = focus_inputs(queries, docs, corpus, seed)
    rng = np.random.default_rng(seed + 1)
    spans = inputs.doc_span.tolist()
    doc_text = [_when("Report on topic", i % 997, a, b, ".") for i, (a, b) in enumerate(spans)]
    spans = inputs.query_span.tolist()
    query_text = [
        _when("What happened to topic", i % 997, a, b, "?") for i, (a, b) in enumerate(spans)
    ]
    rankings = inputs.rankings.tolist()
    judgments = []  # per query: [(doc index, grade)]
    for ranking in rankings:
        retrieved = [ranking[p] for p in rng.choice(len(ranking), size=4, replace=False).tolist()]
        outside = int(rng.integers(0, corpus))
        while outside in ranking:
            outside = int(rng.integers(0, corpus))
        grades = [int(g) for g in rng.integers(1, 4, size=3)] + [0, int(rng.integers(1, 4))]
        judgments.append(list(zip([*retrieved, outside], grades)))
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / "gold.yaml").open("w") as out:
        out.write(f"# Synthetic gold set (seed {seed}).\nversion: 1\nname: memory-bench\nk: 10\n")
        out.write("documents:\n")
        out.writelines(f'  d{i}: {{text: "{text}"}}\n' for i, text in enumerate(doc_text))
        out.write("queries:\n")
        out.writelines(
            f'  - id: q{q}\n    text: "{query_text[q]}"\n'
            f"    relevant: {{{', '.join(f'd{d}: {g}' for d, g in judged)}}}\n"
            for q, judged in enumerate(judgments)
        )
    with (directory / "qrels.trec").open("w") as out:
        out.writelines(
            f"q{q} 0 d{d} {g}\n" for q, judged in enumerate(judgments) for d, g in judged
        )
    # Scores fall with rank (distinct), so the TREC file and the JSON object rank identically.
    scores = [f"{docs - rank:.1f}" for rank in range(docs)]
    with (directory / "run.trec").open("w") as out:
        for q, ranking in enumerate(rankings):
            out.writelines(
                f"q{q} Q0 d{d} {r + 1} {scores[r]} bench\n" for r, d in enumerate(ranking)
            )
    with (directory / "run.json").open("w") as out:
        rows = (
            f'"q{q}": {{' + ", ".join(f'"d{d}": {scores[r]}' for r, d in enumerate(ranking)) + "}"
            for q, ranking in enumerate(rankings)
        )
        out.write("{\n" + ",\n".join(rows) + "\n}\n")
    return {"judgments": sum(map(len, judgments)), "run_lines": queries * docs}


def _when(prefix: str, topic: int, first: int, last: int, end: str) -> str:
    if first == last:
        return f"{prefix} {topic} in {first}{end}"
    between = f"from {first} to {last}" if end == "." else f"between {first} and {last}"
    return f"{prefix} {topic} {between}{end}"


# -- judge items -----------------------------------------------------------------------------


def judge_items(n: int) -> list[tuple[str, str, str, str]]:
    """(query id, query, doc id, document); every (query, document) pair, and so every prompt, is
    distinct for n < 14,400 (the judge asks an identical prompt once)."""
    return [
        (
            f"q{i}",
            f"question about {1900 + i % 120}",
            f"d{i}",
            f"document about {1900 + (i // 120 + i * 7) % 120}",
        )
        for i in range(n)
    ]
