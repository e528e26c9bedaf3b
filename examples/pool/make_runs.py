"""Writes the pool example's two runs: the retrievers of ``examples/retrievers.py`` over
``corpus.yaml``, each query's top 10.

- ``bm25.trec``: plain BM25;
- ``reranked.trec``: BM25's top 10 reranked by focus time (``TemporalReranker(depth=10)``).

Run from the repository's root: ``python examples/pool/make_runs.py``.
``tests/test_pool_example.py`` checks that the shipped runs are what this writes.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))  # examples/: retrievers.py

from retrievers import BM25, TemporalReranker

from pytest_tempoeval import GoldSet, Run

K = 10  # each query's results written
RERANK_DEPTH = 10  # BM25 candidates the reranker reorders


def runs(corpus: GoldSet) -> dict[str, Run]:
    """Each retriever's run over the corpus's queries: name -> run."""
    bm25 = BM25.from_gold(corpus)
    reranker = TemporalReranker(bm25, corpus.documents, depth=RERANK_DEPTH)
    return {
        name: Run({query.id: search(query.text or "", k=K) for query in corpus})
        for name, search in (("bm25", bm25.search), ("reranked", reranker.search))
    }


def main() -> None:
    corpus = GoldSet.load(HERE / "corpus.yaml")
    for name, run in runs(corpus).items():
        run.to_trec(HERE / f"{name}.trec", tag=name)


if __name__ == "__main__":
    main()
