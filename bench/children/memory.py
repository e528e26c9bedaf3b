"""The memory bound: ``memory.py [GOLD RUN]``. Imports, loads the gold set (YAML or qrels) and the
run (TREC or JSON), then evaluates two focus-time and three gold-mode metrics; after each phase,
its time, the peak RSS so far and the RSS now. No arguments: the floor (imports only)."""

import resource
import sys
import time

import _report
import numpy  # noqa: F401

from pytest_tempoeval import GoldSet, Run, mrr, ndcg, precision, temporal_ndcg, temporal_precision

phases = {}
last = _report.START


def phase(name):
    global last
    now = time.perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    phases[name] = {"seconds": now - last, "maxrss_kib": peak, "rss_kib": _report.status()["VmRSS"]}
    last = time.perf_counter()


phase("import")
means = {}
if len(sys.argv) > 2:
    gold_path, run_path = sys.argv[1:3]
    qrels = gold_path.endswith(".trec")
    gold = GoldSet.from_trec_qrels(gold_path) if qrels else GoldSet.load(gold_path)
    phase("load_gold")
    run = Run.load(run_path)
    phase("load_run")
    results = {
        "temporal_ndcg@10": temporal_ndcg(run, gold, k=10),
        "temporal_P@10": temporal_precision(run, gold, k=10),
        "ndcg@10": ndcg(run, gold, k=10),
        "P@10": precision(run, gold, k=10),
        "mrr": mrr(run, gold),
    }
    phase("evaluate")
    means = {name: float(r) if r.per_query else None for name, r in results.items()}
_report.emit(phases=phases, means=means)
