"""Memory bound: load and evaluate a 10,000-query gold set (100,000 documents with texts) and a
10,000 x 100 run in a fresh process; peak RSS per phase, against a bound of 768 MiB.

``children/memory.py`` imports the package, loads the gold set and the run, then evaluates temporal
nDCG@10 and P@10 (focus times read from the texts) and nDCG@10, P@10 and MRR. Cases: (a) YAML gold
+ TREC run, (b) TREC qrels + TREC run (no focus times: the temporal metrics exclude every query),
(c) YAML gold + JSON run, and the floor, a child that only imports. Peak RSS is the largest of
``wait4``'s ``ru_maxrss``, the child's own and its ``VmHWM``; the data is written by a separate
process, so no child starts from a big parent's pages. The gold-mode means must be the same in all
three cases (checked). Cases alternate after one untimed warm-up each.
"""

from __future__ import annotations

from typing import Any

from bench.harness import (
    Context,
    Mismatch,
    Sample,
    alternate,
    child,
    generate,
    median,
    run_child,
    spread,
)

BOUND_MIB = 768  # ~40% above the worst sample measured (550 MiB): a ~250 MiB regression fails
CASES = {
    "floor (imports only)": (),
    "a: YAML gold + TREC run": ("gold.yaml", "run.trec"),
    "b: qrels + TREC run": ("qrels.trec", "run.trec"),
    "c: YAML gold + JSON run": ("gold.yaml", "run.json"),
}
REPEATS = 3


def peak(sample: Sample) -> float:
    own = max(sample.report["vmhwm_kib"], sample.report["maxrss_kib"]) / 1024
    return max(sample.rss_mib, own)


def run(ctx: Context) -> dict[str, Any]:
    queries, docs, corpus = ctx.pick((10_000, 100, 100_000), (300, 100, 3_000))
    data = ctx.workdir / "data"
    generate(ctx, "write_memory_files", data, queries=queries, docs=docs, corpus=corpus)

    def side(files: tuple[str, ...]) -> Any:
        return lambda: run_child(child("memory", *(data / f for f in files)), ctx.env, ctx.workdir)

    warm = {case: side(files)() for case, files in CASES.items()}
    check_means({case: s.report["means"] for case, s in warm.items() if CASES[case]})
    samples = alternate({case: side(files) for case, files in CASES.items()}, ctx.repeats)
    floor = median([peak(s) for s in samples["floor (imports only)"]])
    rows = []
    for case, runs in samples.items():
        phases = runs[0].report["phases"]
        after = [
            f"{median([s.report['phases'][p]['maxrss_kib'] / 1024 for s in runs]):.0f}"
            for p in ("load_gold", "load_run", "evaluate")
            if p in phases
        ]
        rows.append(
            [case, spread([s.wall for s in runs]), spread([peak(s) for s in runs], "MiB")]
            + [round(median([peak(s) for s in runs]) - floor), " / ".join(after) or None]
        )
    worst = max(peak(s) for case, runs in samples.items() for s in runs)
    table = {
        "title": f"Memory: {queries:,} queries x {docs} docs, {corpus:,} gold documents",
        "columns": ["case", "whole process", "peak RSS", "above the floor (MiB)"]
        + ["peak after gold / run / evaluate (MiB)"],
        "rows": rows,
        "note": "The gold-mode means were the same in the three cases.",
    }
    target = {"what": f"peak RSS <= {BOUND_MIB} MiB", "value": f"{worst:.0f} MiB"}
    return {
        "params": {"queries": queries, "docs": docs, "corpus": corpus},
        "tables": [table],
        "targets": [{**target, "met": worst <= BOUND_MIB}] if not ctx.quick else [],
    }


def check_means(means: dict[str, dict[str, float | None]]) -> None:
    """Gold-mode means agree across the cases, temporal ones between the YAML cases."""
    for name in next(iter(means.values())):
        compared = [
            m[name] for case, m in means.items() if "YAML" in case or "temporal" not in name
        ]
        if max(compared) - min(compared) > 1e-12:  # type: ignore[operator]
            raise Mismatch(f"{name} differs between the cases: {compared}")
