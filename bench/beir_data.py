"""Seeded synthetic BEIR folders (``corpus.jsonl``, ``queries.jsonl``, ``qrels/test.tsv``), for
``bench_beir.py``.

Texts are runs of words cut from one long seeded "pool" of words, at word boundaries: a vocabulary
of 5,000 made-up words, the years 1850-2025 (so focus times can be read from some texts), and a few
tokens that JSON escapes (``\\"quoted\\"``, ``caf\\u00e9``), as real corpora have. Lines are built
with f-strings from the pool slices (no per-line ``json.dumps``: the pool holds nothing to escape
but those tokens, already escaped), so a million documents take a few seconds.

- documents: ``{"_id": ..., "title": ..., "text": ..., "metadata": {}}``, titles of 15-45 bytes,
  bodies sized so that the average line is ``line_bytes``;
- ids: ``num`` = decimal numbers (``"731"``; queries ``"q17"``), ``uuid`` = 36-byte UUID-like hex
  ids for documents and queries;
- queries: ``docs // 100`` (at least 1), texts of 30-90 bytes;
- qrels: ``docs // 10`` rows, grouped by query, the same number per query (every query is judged),
  grades 0-2, no document judged twice (drawn without replacement from the corpus);
- ``sample.txt``: ``sample`` document ids drawn at random, one a line (the random-access test).

Run on its own: ``python bench/beir_data.py DIR --docs 100000 --line-bytes 400 --ids num``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

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


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("directory", type=Path)
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--line-bytes", type=int, default=400, help="average corpus line length")
    parser.add_argument("--ids", choices=ID_STYLES, default="num")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sample", type=int, default=1000, help="random doc ids in sample.txt")
    args = parser.parse_args()
    print(
        json.dumps(
            write_beir_folder(
                args.directory, args.docs, args.line_bytes, args.ids, args.seed, args.sample
            )
        )
    )


if __name__ == "__main__":
    main()
