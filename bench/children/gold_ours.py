"""Gold mode, ours: ``gold_ours.py RUN QRELS [PYTREC_DUMP]``. With a pytrec_eval dump (the
untimed warm-up), every per-query value is compared with it."""

import json
import sys

import _report

from pytest_tempoeval import GoldSet, Run, mrr, ndcg, precision

phases = _report.Phases()
phases("import")
run = Run.load(sys.argv[1])
phases("parse_run")
gold = GoldSet.from_trec_qrels(sys.argv[2])
phases("parse_qrels")
results = {
    "ndcg@10": ndcg(run, gold, k=10),
    "P@10": precision(run, gold, k=10),
    "mrr": mrr(run, gold),
}
phases("evaluate")
check = {}
if len(sys.argv) > 3:
    with open(sys.argv[3]) as dump:
        theirs = json.load(dump)
    for name, result in results.items():
        ours, other = dict(result.per_query), theirs[name]
        common = ours.keys() & other.keys()
        check[name] = {
            "max_diff": max((abs(ours[q] - other[q]) for q in common), default=0.0),
            "mean_diff": abs(float(result) - sum(other.values()) / len(other)) if ours else 0.0,
            "only_ours": len(ours.keys() - other.keys()),
            # a query we leave out must score 0 in pytrec_eval (no relevant document)
            "only_theirs_nonzero": sum(other[q] != 0 for q in other.keys() - ours.keys()),
        }
_report.emit(phases=phases, means={n: float(r) for n, r in results.items()}, check=check)
