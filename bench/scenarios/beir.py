"""Loading a BEIR folder: ``GoldSet.from_beir(folder, split="test")`` against the plain
``json.loads`` loop a user would write, whole process per side, on several corpus shapes.

``children/beir.py`` loads the folder (``corpus.jsonl``, ``queries.jsonl``, ``qrels/test.tsv``,
from ``bench.data.write_beir_folder``: documents, average line length, ``num`` or ``uuid`` ids).
An untimed pair per shape warms the caches and checks that both sides read the same documents,
queries, judgments and sampled texts (counts and checksums); then the sides alternate. Reported:
the load inside the child, the whole process, peak RSS (also as a multiple of the corpus file),
and the plugin's first access to 1,000 random documents (it parses a document when first asked).
Targets (issue 11): the plugin's load no slower than the plain loop; its peak RSS < 2x the corpus
file from 100 MiB of corpus up (on smaller ones the interpreter and numpy dominate).
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

REPEATS = 3
RSS_TARGET = 2.0  # the plugin's peak RSS / corpus.jsonl size


def peak(sample: Sample) -> float:
    return max(sample.rss_mib, sample.report["vmhwm_kib"] / 1024)


def run(ctx: Context) -> dict[str, Any]:
    shapes = ctx.pick(
        [
            (100_000, 400, "num"),
            (100_000, 150, "uuid"),
            (300_000, 400, "num"),
            (30_000, 1000, "num"),
        ],
        [(2_000, 400, "num"), (2_000, 150, "uuid")],
    )
    floors = [run_child(child("beir", "plugin", "-", "floor"), ctx.env, ctx.workdir) for _ in "12"]
    floor = peak(floors[-1])  # the first one filled the bytecode cache
    times, memory, targets = [], [], []
    for shape in shapes:
        time_row, memory_row, met = measure(ctx, *shape)
        times.append(time_row)
        memory.append(memory_row)
        targets += met
    time_columns = ["shape", "corpus MiB", "plugin load", "plain load", "plugin / plain"]
    memory_columns = ["shape", "plugin peak RSS", "plain peak RSS", "plugin / corpus"]
    ratios = ", ".join(f"{row[4]:g}" for row in times)
    multiples = ", ".join(f"{row[3]:g}x" for row in memory)
    return {
        "headline": f"load plugin / plain: {ratios}; peak RSS / corpus: {multiples}",
        "params": {"shapes": shapes, "floor_mib": round(floor)},
        "tables": [
            {
                "title": "BEIR folder: load time (inside the child) and whole process",
                "columns": time_columns + ["plugin whole process", "plain whole process"],
                "rows": times,
            },
            {
                "title": "BEIR folder: peak RSS and the first access to 1,000 random documents",
                "columns": memory_columns + ["plain / corpus", "plugin first access"],
                "rows": memory,
                "note": f"Floor (interpreter, the plugin's imports, numpy): {floor:.0f} MiB.",
            },
        ],
        "targets": [] if ctx.quick else targets,
    }


def measure(ctx: Context, docs: int, line_bytes: int, ids: str) -> tuple[list, list, list]:
    """Write one folder, check both sides read the same, then time them alternately."""
    label = f"{docs:,} docs, {line_bytes} B lines, {ids} ids"
    folder = ctx.workdir / f"beir_{docs}_{line_bytes}_{ids}"
    sizes = generate(ctx, "write_beir_folder", folder, docs=docs, line_bytes=line_bytes, ids=ids)
    corpus_mib = sizes["corpus_bytes"] / 2**20

    def side(name: str, mode: str = "time") -> Any:
        return lambda: run_child(child("beir", name, folder, mode), ctx.env, ctx.workdir)

    checks = {name: side(name, "check")().report["check"] for name in ("plugin", "plain")}
    if checks["plugin"] != checks["plain"]:
        raise Mismatch(f"{label}: the plugin and the plain loop read different data: {checks}")
    samples = alternate({"plugin": side("plugin"), "plain": side("plain")}, ctx.repeats)
    access = [side("plugin", "access")() for _ in range(max(1, ctx.repeats - 1))]
    ours, plain = samples["plugin"], samples["plain"]
    load = {name: [s.report["phases"]["load"] for s in runs] for name, runs in samples.items()}
    ratio = median(load["plugin"]) / median(load["plain"])
    rss_multiple = max(peak(s) for s in ours) / corpus_mib
    time_row = [label, round(corpus_mib, 1), spread(load["plugin"]), spread(load["plain"])]
    time_row += [round(ratio, 2), spread([s.wall for s in ours]), spread([s.wall for s in plain])]
    memory_row = [label, spread([peak(s) for s in ours], "MiB")]
    memory_row += [spread([peak(s) for s in plain], "MiB"), round(rss_multiple, 2)]
    memory_row += [round(median([peak(s) for s in plain]) / corpus_mib, 2)]
    memory_row += [spread([s.report["phases"]["access_first"] for s in access])]
    targets = [
        {"what": f"load plugin <= plain ({label})", "value": f"{ratio:.2f}", "met": ratio <= 1}
    ]
    if corpus_mib >= 100:  # below, the ~35 MiB of interpreter and numpy dominate the multiple
        target = {"what": f"peak RSS < {RSS_TARGET:g}x corpus ({label})"}
        targets += [target | {"value": f"{rss_multiple:.2f}x", "met": rss_multiple < RSS_TARGET}]
    return time_row, memory_row, targets
