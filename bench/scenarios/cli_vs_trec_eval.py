"""The command line vs the trec_eval binary: ``tempoeval evaluate RUN QRELS --format trec`` against
``trec_eval`` built from its sources, whole process, from 1,000 queries (start-up) to 100,000
(queries : docs : judged per query, or a named shape of bench/data.py), time and peak RSS.

Both print map, P_5, P_10, recall_100, recip_rank and ndcg_cut_10 in trec_eval's layout. An
untimed pair per shape warms the page cache and checks that every printed value is the same; then
the tools alternate. The binary is ``$TREC_EVAL``, or ``trec_eval`` on ``PATH``; without one the
scenario is skipped, and says how to build one. trec_eval scans its results once per qrels query,
so its time grows with the square of the number of queries; at 1,000 queries its C start-up wins,
and the command's own start-up (interpreter, numpy, imports) is most of its time.
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
REPEATS = 5
BUILD = (
    "build it from https://github.com/usnistgov/trec_eval outside this repository (git clone, "
    "then make), then set TREC_EVAL=/path/to/trec_eval or put it on PATH"
)
# (queries, docs, judged) or (queries, named shape). 1,000 queries is the start-up case; the 100k
# rows are the large-size lead (0.017 and 0.075 of trec_eval's time at release 0.1.0).
SHAPES: list[tuple[int, int | str, int]] = [
    (1_000, 100, 20),
    (1_000, "b", 0),
    (10_000, 100, 20),
    (3_000, 1000, 100),
    (100_000, 10, 5),
    (100_000, 100, 20),
]
QUICK_SHAPES: list[tuple[int, int | str, int]] = [(200, 100, 20), (300, "b", 0), (500, 10, 5)]
START_UP_AT_MOST = 2.0  # tempoeval / trec_eval at 1,000 queries
LEAD_AT_MOST = {"100,000:10:5": 0.017, "100,000:100:20": 0.075}


def find_binary() -> Path:
    found = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    if not found or not os.access(found, os.X_OK):
        raise Skip(f"no trec_eval binary: {BUILD}")
    return Path(found)


def all_values(output: str) -> dict[str, str]:
    rows = (line.split() for line in output.splitlines())
    return {row[0]: row[2] for row in rows if len(row) == 3 and row[1] == "all"}


def label(queries: int, docs: int | str, judged: int) -> str:
    return f"{queries:,}:{docs}:{judged}" if isinstance(docs, int) else f"{queries:,} shape {docs}"


def run(ctx: Context) -> dict[str, Any]:
    return compare_shapes(ctx, ctx.pick(SHAPES, QUICK_SHAPES))


def compare_shapes(ctx: Context, shapes: list[tuple[int, int | str, int]]) -> dict[str, Any]:
    """Both tools on each shape, alternating ``ctx.repeats`` rounds (also run by cli_start_up)."""
    binary = find_binary()
    version = subprocess.run([binary, "-v"], capture_output=True, text=True, check=False)
    rows, targets = [], []
    for queries, docs, judged in shapes:
        name = label(queries, docs, judged)
        data = ctx.workdir / f"trec_{queries}_{docs}_{judged}"
        shape = {"shape": docs} if isinstance(docs, str) else {"docs": docs, "judged": judged}
        sizes = generate(ctx, "write_trec", data, queries=queries, seed=1, **shape)
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
            raise Mismatch(f"{name}: tempoeval {values[0]}, trec_eval {values[1]}")
        samples = alternate({"tempoeval": side(ours), "trec_eval": side(theirs)}, ctx.repeats)
        walls = {side_name: [s.wall for s in runs] for side_name, runs in samples.items()}
        ratio = median(walls["tempoeval"]) / median(walls["trec_eval"])
        per_round = [a / b for a, b in zip(walls["tempoeval"], walls["trec_eval"])]
        rows.append(
            [name, round((sizes["run_bytes"] + sizes["qrels_bytes"]) / 2**20, 1)]
            + [spread(walls["tempoeval"]), spread(walls["trec_eval"]), ratio]
            + [spread(per_round, "")]
            + [spread([s.rss_mib for s in runs], "MiB") for runs in samples.values()]
        )
        bound = START_UP_AT_MOST if queries == 1_000 else LEAD_AT_MOST.get(name)
        if bound is not None:
            what = f"tempoeval / trec_eval <= {bound:g} ({name})"
            targets.append({"what": what, "value": f"{ratio:.3g}", "met": ratio <= bound})
        shutil.rmtree(data)
    table = {
        "title": "tempoeval evaluate vs trec_eval, whole process",
        "columns": ["queries:docs:judged", "run + qrels MiB", "tempoeval", "trec_eval"]
        + ["tempoeval / trec_eval", "ratio per round", "tempoeval peak RSS", "trec_eval peak RSS"],
        "rows": rows,
        "note": f"{(version.stdout or version.stderr).strip()}, built from its sources; every "
        "shape printed the same six values on both sides. Ratio: of the medians; per round: each "
        "round's pair (median [min, max]).",
    }
    ratios = ", ".join(f"{row[4]:.3g} ({row[0]})" for row in rows)
    return {
        "params": {"shapes": shapes, "binary": str(binary)},
        "tables": [table],
        "targets": targets,
        "headline": f"time tempoeval / trec_eval: {ratios}",
    }
