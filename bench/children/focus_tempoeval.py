"""Focus-time mode, TempoEval 0.1.0: ``focus_tempoeval.py QUERIES DOCS CORPUS K [DUMP]``.

Loops ``TemporalNDCG(use_focus_time=True).compute`` and ``TemporalPrecision(...).compute`` over the
queries of ``bench.data.focus_inputs``, with ``qft`` = a set of years, ``dfts`` = one set per
retrieved document. Timed twice: handed the prepared sets (the headline figure), and from ids,
indexing the corpus and joining each ranking's top k itself, the starting point ours has."""

import gc
import json
import sys
import time

import _report
from tempoeval.metrics import TemporalNDCG, TemporalPrecision

from bench.data import focus_inputs

queries, docs, corpus, k = map(int, sys.argv[1:5])
inputs = focus_inputs(queries, docs, corpus)
spans = inputs.doc_span.tolist()
doc_sets = [set(range(a, b + 1)) for a, b in spans]
qfts = [set(range(a, b + 1)) for a, b in inputs.query_span.tolist()]
dfts = [[doc_sets[d] for d in ranking] for ranking in inputs.rankings.tolist()]
times = {}


def score(qfts, dfts):
    ndcg, precision = TemporalNDCG(use_focus_time=True), TemporalPrecision(use_focus_time=True)
    pairs = list(zip(qfts, dfts))
    return (
        [ndcg.compute(qft=qft, dfts=ranked, k=k) for qft, ranked in pairs],
        [precision.compute(qft=qft, dfts=ranked, k=k) for qft, ranked in pairs],
    )


def from_ids():
    years = {doc: set(range(a, b + 1)) for doc, (a, b) in zip(inputs.doc_ids, spans)}
    wanted = [set(range(a, b + 1)) for a, b in inputs.query_span.tolist()]
    ids = inputs.doc_ids
    return score(wanted, [[years[ids[d]] for d in r] for r in inputs.rankings[:, :k].tolist()])


for name, function in (("tempoeval", lambda: score(qfts, dfts)), ("from ids", from_ids)):
    gc.collect()
    start = time.perf_counter()
    ndcg, precision = function()
    times[name] = time.perf_counter() - start
if len(sys.argv) > 5:
    with open(sys.argv[5], "w") as out:
        json.dump(precision, out)
means = {"ndcg": sum(ndcg) / len(ndcg), "precision": sum(precision) / len(precision)}
_report.emit(times=times, means=means)
