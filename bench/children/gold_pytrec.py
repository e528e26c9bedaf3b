"""Gold mode, pytrec_eval: ``gold_pytrec.py RUN QRELS [DUMP]``; DUMP gets every per-query value."""

import json
import sys

import _report
import pytrec_eval

MEASURES = {"ndcg@10": "ndcg_cut_10", "P@10": "P_10", "mrr": "recip_rank"}

phases = _report.Phases()
phases("import")
with open(sys.argv[1]) as lines:
    run = pytrec_eval.parse_run(lines)
phases("parse_run")
with open(sys.argv[2]) as lines:
    qrel = pytrec_eval.parse_qrel(lines)
phases("parse_qrels")
evaluator = pytrec_eval.RelevanceEvaluator(qrel, {"ndcg_cut.10", "P.10", "recip_rank"})
per_query = evaluator.evaluate(run)
means = {n: sum(r[key] for r in per_query.values()) / len(per_query) for n, key in MEASURES.items()}
phases("evaluate")
if len(sys.argv) > 3:
    with open(sys.argv[3], "w") as out:
        json.dump(
            {n: {q: r[key] for q, r in per_query.items()} for n, key in MEASURES.items()}, out
        )
_report.emit(phases=phases, means=means)
