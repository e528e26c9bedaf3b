"""Loading a BEIR folder: ``beir.py SIDE FOLDER MODE``.

SIDE ``plugin``: ``GoldSet.from_beir(FOLDER, split="test")``; ``plain``: the loop a user writes
without it (``json.loads`` per line of ``corpus.jsonl`` and ``queries.jsonl``, ``csv.reader`` on
``qrels/test.tsv``), as BEIR's own loader does. MODE ``time`` loads; ``access`` (plugin) also reads
the documents of ``sample.txt``, first and again; ``check`` reports counts and checksums of what
was read; ``floor`` only imports what ``from_beir`` needs."""

import csv
import hashlib
import json
import sys
import time

import _report

side, folder, mode = sys.argv[1:4]
phases = _report.Phases()
if side == "plugin":
    import pytest_tempoeval.data.readers.beir  # noqa: F401
    from pytest_tempoeval import GoldSet
phases("import")
if mode == "floor":
    _report.emit(phases=phases)
    sys.exit(0)
if side == "plugin":
    gold = GoldSet.from_beir(folder, split="test")
    documents = gold.documents
else:
    documents, queries, qrels = {}, {}, {}
    for name, into in (("corpus", documents), ("queries", queries)):
        with open(f"{folder}/{name}.jsonl", encoding="utf-8") as lines:
            for line in lines:
                record = json.loads(line)
                into[record["_id"]] = record
    with open(f"{folder}/qrels/test.tsv", encoding="utf-8", newline="") as lines:
        rows = csv.reader(lines, delimiter="\t", quoting=csv.QUOTE_NONE)
        next(rows)  # the header
        for query_id, doc_id, score in rows:
            qrels.setdefault(query_id, {})[doc_id] = int(score)
phases("load")
with open(f"{folder}/sample.txt") as ids:
    sample = ids.read().split()
if mode == "access":
    start = time.perf_counter()
    [documents[doc_id] for doc_id in sample]
    phases["access_first"] = time.perf_counter() - start
    start = time.perf_counter()
    [documents[doc_id] for doc_id in sample]
    phases["access_again"] = time.perf_counter() - start


def checksum(lines):
    return [len(lines), hashlib.sha256("\n".join(sorted(lines)).encode()).hexdigest()[:16]]


check = {}
if mode == "check" and side == "plugin":
    judged = gold.queries.values()
    check = {
        "queries": checksum([f"{q.id}\t{q.text}" for q in judged]),
        "judgments": checksum([f"{q.id}\t{d}\t{g}" for q in judged for d, g in q.relevant.items()]),
        "sampled": checksum(
            [f"{d.id}\t{d.title}\t{d.text}" for d in map(documents.__getitem__, sample)]
        ),
    }
elif mode == "check":
    sampled = []
    for doc_id in sample:
        title, text = documents[doc_id].get("title") or None, documents[doc_id].get("text")
        body = " ".join(part for part in (title, text) if part).strip() or None
        sampled.append(f"{doc_id}\t{title}\t{body}")
    check = {
        "queries": checksum([f"{q}\t{r['text']}" for q, r in queries.items()]),
        "judgments": checksum([f"{q}\t{d}\t{g}" for q, ds in qrels.items() for d, g in ds.items()]),
        "sampled": checksum(sampled),
    }
if check:
    check["documents"] = checksum(list(documents))
_report.emit(phases=phases, check=check)
