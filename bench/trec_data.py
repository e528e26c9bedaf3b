"""Seeded synthetic TREC run and qrels files, for benchmarks and cross-checks.

Scores are rounded so that ties are common (trec_eval breaks them by doc id, descending), and each
query's lines are written in score order with ties left in random order, as real systems write them.

Three named shapes (``SHAPES``), so that no one code path is flattered by one generator:

- ``a`` sparse: 100 retrieved, 20 judged of which 10 retrieved (10% of the ranking judged),
  ``d123456`` ids, 1-decimal scores (many ties);
- ``b`` dense: 100 retrieved, 72 judged of which 70 retrieved (70%), 4-byte ids, 8-character
  scores (``10.12345``);
- ``c`` long ids: 1,000 retrieved, 5 judged of which 3 retrieved, URL-like ids of 20 to 40 bytes.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("directory", type=Path)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--judged", type=int, default=20, help="judgments per query")
    parser.add_argument("--shape", choices=SHAPES, help="a named shape (overrides --docs/--judged)")
    args = parser.parse_args()
    if args.shape:
        print(*write_shape(args.directory, args.queries, args.shape, args.seed))
    else:
        print(*write_trec_files(args.directory, args.queries, args.docs, args.seed, args.judged))


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


if __name__ == "__main__":
    main()
