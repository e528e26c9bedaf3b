"""Focus-time mode, ours: ``focus_ours.py QUERIES DOCS CORPUS K [DUMP]``. Builds a fresh GoldSet
and Run from ``bench.data.focus_inputs``, then times temporal nDCG@k + temporal P@k twice: cold
(the first call builds the focus-time index and the alignment caches) and warm. DUMP gets the
per-query temporal P@k in query order."""

import gc
import json
import sys
import time

import _report

from bench.data import focus_inputs
from pytest_tempoeval import (
    FocusTime,
    GoldDocument,
    GoldQuery,
    GoldSet,
    Run,
    temporal_ndcg,
    temporal_precision,
)

queries, docs, corpus, k = map(int, sys.argv[1:5])
inputs = focus_inputs(queries, docs, corpus)
times = {}


def timed(name, function):
    gc.collect()
    start = time.perf_counter()
    value = function()
    times[name] = time.perf_counter() - start
    return value


def build_gold():
    spans = zip(inputs.query_ids, inputs.query_span.tolist())
    gold_queries = [GoldQuery(q, focus_time=FocusTime.from_range(a, b)) for q, (a, b) in spans]
    spans = zip(inputs.doc_ids, inputs.doc_span.tolist())
    documents = [GoldDocument(d, focus_time=FocusTime.from_range(a, b)) for d, (a, b) in spans]
    return GoldSet(queries=gold_queries, documents=documents)


def build_run():
    rankings = zip(inputs.query_ids, inputs.rankings.tolist())
    return Run({q: [inputs.doc_ids[d] for d in ranking] for q, ranking in rankings})


gold, run = timed("build GoldSet", build_gold), timed("build Run", build_run)
timed("cold", lambda: (temporal_ndcg(run, gold, k=k), temporal_precision(run, gold, k=k)))
ndcg, precision = timed(
    "warm", lambda: (temporal_ndcg(run, gold, k=k), temporal_precision(run, gold, k=k))
)
if len(sys.argv) > 5:
    with open(sys.argv[5], "w") as out:
        json.dump([precision.per_query[q] for q in inputs.query_ids], out)
_report.emit(times=times, means={"ndcg": float(ndcg), "precision": float(precision)})
