"""The command line vs the trec_eval binary: ``tempoeval evaluate RUN QRELS --format trec`` against
``trec_eval``, whole process, on TREC files of several shapes (queries : docs : judged per query).

Both print map, P_5, P_10, recall_100, recip_rank and ndcg_cut_10 in trec_eval's layout. An
untimed pair per shape warms the page cache and checks that every printed value is the same; then
the tools alternate. The binary is ``$TREC_EVAL``, or ``trec_eval`` on ``PATH``; without one the
scenario is skipped. Build it from a usnistgov/trec_eval checkout with its own Makefile (``make``),
outside this repository. trec_eval scans its results once per qrels query, so its time grows with
the square of the number of queries; at small sizes its C start-up wins.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.harness import Context, Mismatch, Skip, alternate, generate, median, run_child, spread

MEASURES = ["map", "P_5", "P_10", "recall_100", "recip_rank", "ndcg_cut_10"]
TREC_EVAL_MEASURES = ["-m", "map", "-m", "P.5,10", "-m", "recall.100", "-m", "recip_rank"]
TREC_EVAL_MEASURES += ["-m", "ndcg_cut.10"]
REPEATS = 3


def find_binary() -> Path:
    found = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    if not found or not os.access(found, os.X_OK):
        raise Skip("no trec_eval binary: set TREC_EVAL=/path/to/trec_eval or put it on PATH")
    return Path(found)


def all_values(output: str) -> dict[str, str]:
    rows = (line.split() for line in output.splitlines())
    return {row[0]: row[2] for row in rows if len(row) == 3 and row[1] == "all"}


def run(ctx: Context) -> dict[str, Any]:
    binary = find_binary()
    version = subprocess.run([binary, "-v"], capture_output=True, text=True, check=False)
    shapes = ctx.pick(
        [(1_000, 100, 20), (10_000, 100, 20), (3_000, 1000, 100), (30_000, 10, 5)],
        [(200, 100, 20), (500, 10, 5)],
    )
    rows = []
    for queries, docs, judged in shapes:
        data = ctx.workdir / f"trec_{queries}_{docs}_{judged}"
        sizes = generate(ctx, "write_trec", data, queries=queries, docs=docs, judged=judged, seed=1)
        run_file, qrels = data / "run.trec", data / "qrels.trec"
        ours = [sys.executable, "-m", "pytest_tempoeval", "evaluate", run_file, qrels]
        ours += ["--format", "trec", "-m", *MEASURES]
        theirs = [binary, *TREC_EVAL_MEASURES, qrels, run_file]

        def side(command: list[Any]) -> Any:
            return lambda: run_child(
                list(map(str, command)), ctx.env, ctx.workdir, json_report=False
            )

        values = [all_values(side(command)().stdout) for command in (ours, theirs)]
        if values[0] != values[1] or sorted(values[0]) != sorted(MEASURES):
            raise Mismatch(
                f"{queries}:{docs}:{judged}: tempoeval {values[0]}, trec_eval {values[1]}"
            )
        samples = alternate({"tempoeval": side(ours), "trec_eval": side(theirs)}, ctx.repeats)
        walls = {name: [s.wall for s in runs] for name, runs in samples.items()}
        rows.append(
            [
                f"{queries:,}:{docs}:{judged}",
                round((sizes["run_bytes"] + sizes["qrels_bytes"]) / 2**20, 1),
            ]
            + [spread(walls["tempoeval"]), spread(walls["trec_eval"])]
            + [round(median(walls["tempoeval"]) / median(walls["trec_eval"]), 3)]
            + [spread([s.rss_mib for s in runs], "MiB") for runs in samples.values()]
        )
        shutil.rmtree(data)
    table = {
        "title": "tempoeval evaluate vs trec_eval, whole process",
        "columns": ["queries:docs:judged", "run + qrels MiB", "tempoeval", "trec_eval"]
        + ["tempoeval / trec_eval", "tempoeval peak RSS", "trec_eval peak RSS"],
        "rows": rows,
        "note": f"{(version.stdout or version.stderr).strip()}; every shape printed the "
        "same six values on both sides.",
    }
    ratios = ", ".join(f"{row[4]:.3g} ({row[0]})" for row in rows)
    return {
        "params": {"shapes": shapes},
        "tables": [table],
        "headline": f"time tempoeval / trec_eval: {ratios}",
    }
