"""TREC pooling: the documents to judge are the union of each run's top ``depth`` per query
(``tempoeval pool``), and the gold set built from their judgments.

- **Order.** Each run is ranked as trec_eval ranks it (score descending, ties by doc id
  descending: :meth:`Run.load`), not by its rank column; a run's top ``depth`` is that order's
  first ``depth``. A pooled pair is judged once, whichever runs pooled it.
- **Inputs.** Queries and documents come from a BEIR folder (``queries.jsonl``,
  ``corpus.jsonl[.gz]``; no qrels needed), a gold set file (its queries, its documents), or a
  JSONL file in BEIR's line format (``{"_id", "text"}`` queries, ``{"_id", "title", "text"}``
  documents).
- **What cannot be judged** (a document the corpus lacks, or without text; a query without text)
  is never guessed: it is left out of the gold set, listed by reason.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pytest_tempoeval.data.gold_schema import GoldDocument, GoldQuery
from pytest_tempoeval.data.goldset import GoldSet
from pytest_tempoeval.data.provenance import Provenance
from pytest_tempoeval.data.run import Run
from pytest_tempoeval.errors import GoldSetError
from pytest_tempoeval.files import regular_file_problem

JSONL_SUFFIXES = (".jsonl", ".gz")
NOT_IN_CORPUS = "the document is not in CORPUS"
NO_DOCUMENT_TEXT = "the document has no text"
NO_QUERY_TEXT = "the query has no text"


def read_pool_queries(path: str | Path) -> tuple[list[GoldQuery], int]:
    """The queries to pool, in their order: a BEIR folder's ``queries.jsonl``, a JSONL file of
    such lines, or a gold set's queries; and how many judgments that gold set holds, which are
    not kept here (``--human`` keeps them)."""
    path = Path(path)
    if path.is_dir() or path.suffix.lower() == ".jsonl":
        from pytest_tempoeval.data.readers.beir import QUERIES_NAME, read_queries

        file = path / QUERIES_NAME if path.is_dir() else path
        if problem := regular_file_problem(file, "queries file"):
            raise GoldSetError(problem)
        queries = [
            GoldQuery(query_id, text, focus, line=line)
            for query_id, (text, focus, line) in read_queries(file).items()
        ]
        return queries, 0
    gold = GoldSet.load(path)
    judged = sum(len(query.relevant) for query in gold)
    return [dataclasses.replace(query, relevant={}, provenance={}) for query in gold], judged


def read_pool_corpus(path: str | Path) -> Mapping[str, GoldDocument]:
    """The documents a pool's judge reads: a BEIR folder's ``corpus.jsonl[.gz]``, such a file, or
    a gold set's ``documents:``. A corpus is read lazily: a document is parsed when pooled."""
    path = Path(path)
    if path.is_dir() or path.suffix.lower() in JSONL_SUFFIXES:
        from pytest_tempoeval.data.readers.beir import CORPUS_NAMES, JsonlCorpus

        if path.is_dir():
            found = [path / name for name in CORPUS_NAMES if (path / name).exists()]
            if not found:
                raise GoldSetError(f"{path}: no corpus.jsonl or corpus.jsonl.gz in this folder")
            path = found[0]
        if problem := regular_file_problem(path, "corpus file"):
            raise GoldSetError(problem)
        return JsonlCorpus.open(path)
    gold = GoldSet.load(path)
    if not gold.documents:
        raise GoldSetError(
            f"{path}: the gold set declares no documents, so the judge has nothing to read; give "
            "a corpus (a BEIR folder, corpus.jsonl, or a gold set with 'documents:' and texts)"
        )
    return gold.documents


@dataclass
class Pool:
    """The pooled (query, doc) pairs of some runs, and which runs pooled each."""

    depth: int
    runs: int
    pairs: dict[str, list[str]] = field(default_factory=dict)  # query id -> doc ids, pooled order
    pooled_by: dict[tuple[str, str], list[int]] = field(default_factory=dict)  # run indexes
    ignored_queries: dict[int, list[str]] = field(default_factory=dict)  # per run: not in QUERIES

    def __len__(self) -> int:
        return len(self.pooled_by)

    def only_by(self, run: int) -> int:
        """How many pairs this run alone pooled."""
        return sum(1 for runs in self.pooled_by.values() if runs == [run])


def pool_runs(runs: Sequence[Run], query_ids: Sequence[str], depth: int) -> Pool:
    """The union of each run's top ``depth`` for each of ``query_ids``: per query, the runs in
    the order given, each's documents in rank order, each pair once."""
    pool = Pool(depth, len(runs))
    wanted = set(query_ids)
    for index, run in enumerate(runs):
        ignored = [query_id for query_id in run if query_id not in wanted]
        if ignored:
            pool.ignored_queries[index] = ignored
    for query_id in query_ids:
        docs: list[str] = []
        for index, run in enumerate(runs):
            if query_id not in run:
                continue
            for doc_id in run[query_id][:depth]:
                runs_of = pool.pooled_by.setdefault((query_id, doc_id), [])
                if not runs_of:
                    docs.append(doc_id)
                runs_of.append(index)
        if docs:
            pool.pairs[query_id] = docs
    return pool


@dataclass(frozen=True)
class Unjudgeable:
    """A pooled pair the judge cannot read, and why (NOT_IN_CORPUS, NO_DOCUMENT_TEXT,
    NO_QUERY_TEXT)."""

    query_id: str
    doc_id: str
    reason: str


def judgeable(
    pool: Pool,
    queries: Mapping[str, GoldQuery],
    corpus: Mapping[str, GoldDocument],
    held: Mapping[str, Mapping[str, int]],
) -> tuple[list[tuple[str, str, str, str]], list[Unjudgeable]]:
    """The judge's items ((query id, query text, doc id, document text)) for the pooled pairs
    ``held`` (query id -> doc id -> grade: ``--human``'s judgments) does not judge, and the pairs
    that cannot be judged."""
    items, unjudgeable = [], []
    for query_id, docs in pool.pairs.items():
        query = queries[query_id]
        for doc_id in docs:
            if doc_id in held.get(query_id, {}):
                continue
            document = corpus.get(doc_id)
            text = document.text if document is not None else None
            if not query.text or not query.text.strip():
                unjudgeable.append(Unjudgeable(query_id, doc_id, NO_QUERY_TEXT))
            elif document is None:
                unjudgeable.append(Unjudgeable(query_id, doc_id, NOT_IN_CORPUS))
            elif not text or not text.strip():
                unjudgeable.append(Unjudgeable(query_id, doc_id, NO_DOCUMENT_TEXT))
            else:
                items.append((query_id, query.text, doc_id, text))
    return items, unjudgeable


def pooled_gold(
    queries: Sequence[GoldQuery],
    corpus: Mapping[str, GoldDocument],
    judged: Mapping[tuple[str, str], tuple[int, Provenance]],
    human: GoldSet | None,
    grade_scale: tuple[int, int],
) -> GoldSet:
    """The gold set a pool writes: the queries (in their order) that have a judgment, each with
    ``human``'s judgments (and provenance) and the judge's (``judged``: (query, doc) -> grade on
    the scale, provenance); the judged documents, with their text and focus time from the corpus,
    else as ``human`` declares them, else by id only."""
    relevant: dict[str, dict[str, int]] = {}
    provenance: dict[str, dict[str, Provenance]] = {}
    if human is not None:
        for query in human:
            relevant[query.id] = dict(query.relevant)
            provenance[query.id] = dict(query.provenance)
    for (query_id, doc_id), (grade, judged_by) in judged.items():
        relevant.setdefault(query_id, {})[doc_id] = grade
        provenance.setdefault(query_id, {})[doc_id] = judged_by
    out_queries = [
        dataclasses.replace(
            query,
            relevant=relevant[query.id],
            provenance=provenance.get(query.id, {}),
            line=None,
            id_line=None,
        )
        for query in queries
        if relevant.get(query.id)
    ]
    documents: dict[str, GoldDocument] = {}
    for query in out_queries:
        for doc_id in query.relevant:
            if doc_id in documents:
                continue
            document = corpus.get(doc_id)
            if document is None and human is not None:
                document = human.documents.get(doc_id)
            documents[doc_id] = (
                GoldDocument(doc_id)
                if document is None
                else GoldDocument(doc_id, document.text, document.focus_time)
            )
    if not out_queries:
        raise GoldSetError("the pool judged nothing: no query has a judgment to write")
    return GoldSet(out_queries, documents, grade_scale=grade_scale)
