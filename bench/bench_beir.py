"""Loading a BEIR folder: ``GoldSet.from_beir(path, split="test")`` against the plain loop a user
would write without the plugin, whole process per side.

What is measured, per corpus shape (size, line length, id style), for each side in a *fresh* Python
process (the same interpreter and environment for both):

- wall-clock time from spawn to reap (``perf_counter`` around ``Popen`` + ``os.wait4``): start-up,
  imports, loading and exit, what a CI job pays; the child also reports its own ``load`` phase (the
  ``from_beir`` call, or the plain loop), the figure the target is about;
- peak RSS from ``wait4``'s rusage (and the child's ``VmHWM``), also as a multiple of the size of
  ``corpus.jsonl``;
- the plugin only, in separate children: a first access to ``--sample`` (1,000) random documents,
  ``gold.documents[doc_id]``, after loading. The plugin keeps the corpus as the file's bytes and
  parses a document when it is first asked for; this is what that costs when llm mode needs texts.
  A second pass over the same ids (cached) is reported next to it.

The two sides:

- plugin: ``GoldSet.from_beir(folder, split="test")``;
- plain loop: ``json.loads`` per line of ``corpus.jsonl`` and ``queries.jsonl`` into dicts id ->
  record, and ``qrels/test.tsv`` with ``csv.reader`` into a dict of dicts (BEIR's own loader does
  the same). Both sides end holding the whole content.

Before timing, one untimed pair per shape (it also warms the page cache and the bytecode cache)
checks that both sides see the same number of document ids and the same ids, the same queries
(ids and texts), the same judgments, and the same title and text for the sampled documents (counts
and SHA-256 checksums printed by each child). A mismatch stops the script.

The machine is shared and noisy: the sides alternate (plugin, plain, plugin, plain, ...)
``--repeats`` times, and the tables show medians with min and max. The files are read from the
page cache in every timed run (the warm-up pair read them first).

Targets: the plugin's load time at most the plain loop's, and its peak RSS under 2x the corpus file
size. If one is missed (or with ``--profile``), the plugin's child runs once more under cProfile
(the load, then the 1,000 first accesses), once calling the reader's steps one by one without a
profiler (time and RSS after each: cProfile inflates the many small calls), and once under
tracemalloc, and the script prints where the time and the memory go. A "floor" child that only
imports what ``from_beir`` needs (numpy included) gives the RSS that is not the data's.

Another engineer edits the package while this runs: the script hashes its sources before and after
each shape and prints a warning naming the files that changed.

Data (seeded, from ``bench/beir_data.py``) is written by a separate process (the parent never holds
it: on Linux a child's ``ru_maxrss`` can include the parent's address space) to a temporary
directory outside the repository, one shape at a time, deleted after each shape unless ``--keep``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
sys.path.insert(0, str(BENCH_DIR))

from bench_common import child_environment, code_version, run_json_child

# docs:line bytes:id style. 1M:400:num is the required size (~390 MiB of corpus.jsonl, 10,000
# queries, 100,000 judgments); the others vary one thing at a time, and 100k shows the scaling.
DEFAULT_SHAPES = (
    "100k:400:num",
    "100k:150:num",
    "100k:1000:num",
    "100k:400:uuid",
    "1M:400:num",
    "1M:150:uuid",
)
SIDES = ("plugin", "plain")
RSS_TARGET = 2.0  # the plugin's peak RSS / corpus.jsonl size

# argv: side folder mode [profile prefix]. mode: time | access | check | profile | trace | floor |
# breakdown.
# Prints one JSON line.
CHILD = textwrap.dedent(
    """
    import time
    _t0 = time.perf_counter()
    import json, resource, sys

    def _status():
        fields = {}
        with open("/proc/self/status") as status:
            for line in status:
                name, _, value = line.partition(":")
                if name in ("VmRSS", "VmHWM"):
                    fields[name] = int(value.split()[0])
        return fields

    def _maxrss():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    side, folder, mode = sys.argv[1:4]
    report = {"phases": {}}
    phases = report["phases"]
    if mode == "floor":  # the interpreter and what from_beir imports (numpy too); nothing read
        from pytest_tempoeval import GoldSet
        import pytest_tempoeval.data.readers.beir
        phases["import"] = time.perf_counter() - _t0
        print(json.dumps({**report, "vmhwm_kib": _status()["VmHWM"], "maxrss_kib": _maxrss()}))
        sys.exit(0)
    if mode == "breakdown":  # from_beir's steps one by one, unprofiled, with the RSS after each
        steps = report["steps"] = []

        def _step(name, start):
            steps.append([name, time.perf_counter() - start, _status()["VmRSS"]])

        try:
            from array import array
            from pathlib import Path
            from pytest_tempoeval.data.readers import beir
            from pytest_tempoeval.data.readers.trec import read_trec_qrels
            _step("imports (numpy, the readers)", _t0)
            start = time.perf_counter()
            data = Path(folder, "corpus.jsonl").read_bytes()
            _step("read_bytes of corpus.jsonl", start)
            start = time.perf_counter()
            ids, starts = {}, array("q")
            if first := beir._BEIR_FIRST_LINE.match(data):
                ids[first.group(1)] = 0
                starts.append(0)
            for match in beir._BEIR_LINE.finditer(data):
                ids[match.group(1)] = len(starts)
                starts.append(match.start() + 1)
            _step("_BEIR_LINE.finditer + dict insert (raw ids)", start)
            start = time.perf_counter()
            ids = {beir._plain(raw): position for raw, position in ids.items()}
            _step("_plain() on every id (decode + PLAIN_ID.fullmatch)", start)
            start = time.perf_counter()
            lines = data.count(b"\\n")
            _step("data.count(newline): every line matched?", start)
            start = time.perf_counter()
            index = beir._LineIndex(starts, dense=True)
            _step("_LineIndex of the line starts", start)
            start = time.perf_counter()
            beir._read_queries(Path(folder, "queries.jsonl"))
            _step("queries.jsonl (json.loads per line)", start)
            start = time.perf_counter()
            read_trec_qrels(Path(folder, "qrels", "test.tsv"), beir=True)
            _step("qrels/test.tsv (read_trec_qrels)", start)
            with open(f"{folder}/sample.txt") as sample:
                positions = [ids[doc_id] for doc_id in sample.read().split()]
            start = time.perf_counter()
            for position in positions:
                offset = index.start(position)
                json.loads(data[offset : data.find(b"\\n", offset)])
            _step(f"access: find the line + json.loads x {len(positions)}", start)
        except Exception as error:  # the reader's internals changed: say so, do not fail
            report["error"] = f"{type(error).__name__}: {error}"
        print(json.dumps({**report, "vmhwm_kib": _status()["VmHWM"], "maxrss_kib": _maxrss()}))
        sys.exit(0)
    if mode == "profile":
        import cProfile
        profiler = cProfile.Profile()
    if mode == "trace":
        import tracemalloc
    if side == "plugin":
        from pytest_tempoeval import GoldSet
    else:
        import csv
    _t1 = time.perf_counter()
    phases["import"] = _t1 - _t0
    if mode == "trace":
        tracemalloc.start()
    if mode == "profile":
        profiler.enable()

    if side == "plugin":
        gold = GoldSet.from_beir(folder, split="test")
        documents = gold.documents
    else:
        documents, queries, qrels = {}, {}, {}
        with open(f"{folder}/corpus.jsonl", encoding="utf-8") as lines:
            for line in lines:
                record = json.loads(line)
                documents[record["_id"]] = record
        with open(f"{folder}/queries.jsonl", encoding="utf-8") as lines:
            for line in lines:
                record = json.loads(line)
                queries[record["_id"]] = record
        with open(f"{folder}/qrels/test.tsv", encoding="utf-8", newline="") as lines:
            rows = csv.reader(lines, delimiter="\\t", quoting=csv.QUOTE_NONE)
            next(rows)  # the header
            for query_id, doc_id, score in rows:
                qrels.setdefault(query_id, {})[doc_id] = int(score)

    _t2 = time.perf_counter()
    phases["load"] = _t2 - _t1
    if mode == "profile":
        profiler.disable()
        profiler.dump_stats(sys.argv[4] + ".load.prof")
    report["rss_after_load_kib"] = _status()["VmRSS"]
    report["maxrss_after_load_kib"] = _maxrss()
    if mode == "trace":
        current, peak = tracemalloc.get_traced_memory()
        top = tracemalloc.take_snapshot().statistics("lineno")[:8]
        tracemalloc.stop()
        report["trace"] = {"current": current, "peak": peak, \
"top": [[str(stat.traceback[0]), stat.size, stat.count] for stat in top]}
        if side == "plugin":  # what stays: the corpus bytes and the id -> offset dict
            ids = documents._ids
            report["trace"]["parts"] = {
                "corpus bytes": sys.getsizeof(documents._data),
                "id dict (table)": sys.getsizeof(ids),
                "id strings": sum(map(sys.getsizeof, ids)),
                "offset ints": sum(map(sys.getsizeof, ids.values())),
            }

    if mode in ("access", "check", "profile") and side == "plugin":
        with open(f"{folder}/sample.txt") as ids:
            sample = ids.read().split()
        if mode == "profile":
            profiler = cProfile.Profile()
            profiler.enable()
        start = time.perf_counter()
        read = [documents[doc_id] for doc_id in sample]
        phases["access_first"] = time.perf_counter() - start
        if mode == "profile":
            profiler.disable()
            profiler.dump_stats(sys.argv[4] + ".access.prof")
        start = time.perf_counter()
        again = [documents[doc_id] for doc_id in sample]
        phases["access_again"] = time.perf_counter() - start
        report["sample"] = len(sample)

    if mode == "check":
        import hashlib

        def checksum(lines):
            return hashlib.sha256("\\n".join(sorted(lines)).encode()).hexdigest()[:16]

        with open(f"{folder}/sample.txt") as ids:
            sample = ids.read().split()
        if side == "plugin":
            judged = gold.queries
            query_lines = [f"{q.id}\\t{q.text}" for q in judged.values()]
            judgments = [f"{q.id}\\t{d}\\t{g}" for q in judged.values() \
for d, g in q.relevant.items()]
            sampled = [f"{d.id}\\t{d.title}\\t{d.text}" for d in map(documents.__getitem__, sample)]
        else:
            query_lines = [f"{q}\\t{r['text']}" for q, r in queries.items()]
            judgments = [f"{q}\\t{d}\\t{g}" for q, docs in qrels.items() for d, g in docs.items()]
            sampled = []
            for doc_id in sample:
                record = documents[doc_id]
                title, text = record.get("title") or None, record.get("text")
                body = " ".join(part for part in (title, text) if part).strip() or None
                sampled.append(f"{doc_id}\\t{title}\\t{body}")
        report["check"] = {
            "documents": [len(documents), checksum(documents)],
            "queries": [len(query_lines), checksum(query_lines)],
            "judgments": [len(judgments), checksum(judgments)],
            "sampled documents": [len(sampled), checksum(sampled)],
        }

    report["vmhwm_kib"] = _status()["VmHWM"]
    report["maxrss_kib"] = _maxrss()
    print(json.dumps(report))
    """
)


@dataclass
class Sample:
    """One child process: wall seconds, peak RSS (MiB, from wait4) and what the child reported."""

    wall: float
    maxrss_mib: float
    report: dict

    def phase(self, name: str) -> float:
        return self.report["phases"][name]

    @property
    def vmhwm_mib(self) -> float:
        return self.report["vmhwm_kib"] / 1024


@dataclass
class Shape:
    docs: int
    line_bytes: int
    ids: str
    spec: str
    sizes: dict = field(default_factory=dict)

    @classmethod
    def parse(cls, spec: str) -> Shape:
        match = re.fullmatch(r"(\d+)([kM]?):(\d+):(num|uuid)", spec)
        if not match:
            raise argparse.ArgumentTypeError(
                f"{spec!r}: a shape is DOCS:LINE_BYTES:IDS, e.g. 1M:400:num or 100k:150:uuid"
            )
        number, unit, line_bytes, ids = match.groups()
        docs = int(number) * {"": 1, "k": 1_000, "M": 1_000_000}[unit]
        return cls(docs, int(line_bytes), ids, spec)

    @property
    def corpus_mib(self) -> float:
        return self.sizes["corpus_bytes"] / 2**20


@dataclass
class Result:
    shape: Shape
    samples: dict[str, list[Sample]]
    access: list[Sample]
    floor_mib: float  # peak RSS of a child that only imports what from_beir needs

    def load(self, side: str) -> list[float]:
        return [s.phase("load") for s in self.samples[side]]

    def wall(self, side: str) -> list[float]:
        return [s.wall for s in self.samples[side]]

    def peak(self, side: str) -> list[float]:
        return [max(s.maxrss_mib, s.vmhwm_mib) for s in self.samples[side]]

    @property
    def load_ratio(self) -> float:
        return median(self.load("plugin")) / median(self.load("plain"))

    @property
    def wall_ratio(self) -> float:
        return median(self.wall("plugin")) / median(self.wall("plain"))

    @property
    def rss_multiple(self) -> float:
        """The plugin's largest peak over its samples, as a multiple of the corpus file."""
        return max(self.peak("plugin")) / self.shape.corpus_mib

    def above_floor(self, side: str) -> float:
        """The median peak minus the floor, as a multiple of the corpus file."""
        return (median(self.peak(side)) - self.floor_mib) / self.shape.corpus_mib

    @property
    def time_met(self) -> bool:
        return self.load_ratio <= 1.0

    @property
    def rss_met(self) -> bool:
        return self.rss_multiple < RSS_TARGET


def median(values: list[float]) -> float:
    return statistics.median(values)


def spread(values: list[float], unit: str = "s", digits: int = 2) -> str:
    """``median (min-max)``."""
    return f"{median(values):.{digits}f}{unit} ({min(values):.{digits}f}-{max(values):.{digits}f})"


def run_child(python: str, script: Path, args: list[str], env: dict[str, str], cwd: Path) -> Sample:
    """Spawn ``python script args``; time it from spawn to reap and take its rusage via wait4."""
    return Sample(*run_json_child(python, script, args, env, cwd))


def write_data(args: argparse.Namespace, shape: Shape, folder: Path) -> None:
    """A separate process writes the folder (the parent must not hold the data)."""
    start = time.perf_counter()
    written = subprocess.run(
        [
            args.python,
            str(BENCH_DIR / "beir_data.py"),
            str(folder),
            "--docs",
            str(shape.docs),
            "--line-bytes",
            str(shape.line_bytes),
            "--ids",
            shape.ids,
            "--seed",
            str(args.seed),
            "--sample",
            str(args.sample),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    shape.sizes = json.loads(written.stdout.strip().splitlines()[-1])
    sizes = shape.sizes
    print(
        f"\n=== shape {shape.spec}: {sizes['docs']:,} documents ({shape.ids} ids, "
        f"{sizes['id_bytes']:.0f} bytes on average), {sizes['queries']:,} queries, "
        f"{sizes['qrels']:,} judgments; corpus.jsonl {shape.corpus_mib:.1f} MiB "
        f"({sizes['corpus_bytes'] / sizes['docs']:.0f} bytes a line), queries.jsonl "
        f"{sizes['queries_bytes'] / 2**20:.1f} MiB, test.tsv {sizes['qrels_bytes'] / 2**20:.1f} "
        f"MiB; written in {time.perf_counter() - start:.1f}s by a separate process",
        flush=True,
    )


def check_pair(plugin: Sample, plain: Sample) -> None:
    ours, theirs = plugin.report["check"], plain.report["check"]
    for what in ours:
        same = ours[what] == theirs[what]
        print(
            f"  check {what:18s} plugin {ours[what][0]:>9,} {ours[what][1]}  "
            f"plain {theirs[what][0]:>9,} {theirs[what][1]}  {'same' if same else 'DIFFERENT'}"
        )
    if ours != theirs:
        raise SystemExit("MISMATCH between the plugin and the plain loop (see above)")


def bench_shape(
    args: argparse.Namespace,
    shape: Shape,
    folder: Path,
    script: Path,
    env: dict[str, str],
    floor_mib: float,
) -> Result:
    write_data(args, shape, folder)
    common = [str(folder)]

    # Untimed warm-up pair: page cache, bytecode cache, and the check.
    plugin = run_child(args.python, script, ["plugin", *common, "check"], env, folder.parent)
    plain = run_child(args.python, script, ["plain", *common, "check"], env, folder.parent)
    print("untimed warm-up pair, same content on both sides:")
    check_pair(plugin, plain)

    samples: dict[str, list[Sample]] = {side: [] for side in SIDES}
    for repeat in range(args.repeats):
        for side in SIDES:
            sample = run_child(args.python, script, [side, *common, "time"], env, folder.parent)
            samples[side].append(sample)
            print(
                f"  repeat {repeat + 1}/{args.repeats} {side:6s} wall {sample.wall:6.2f}s  "
                f"load {sample.phase('load'):6.2f}s  import {sample.phase('import'):.2f}s  "
                f"peak RSS {sample.maxrss_mib:6.0f} MiB (VmHWM {sample.vmhwm_mib:.0f}, "
                f"RSS after load {sample.report['rss_after_load_kib'] / 1024:.0f})",
                flush=True,
            )

    # First access to the sampled documents: the check child's, then --access-runs more.
    access = [plugin]
    for _ in range(args.access_runs):
        access.append(
            run_child(args.python, script, ["plugin", *common, "access"], env, folder.parent)
        )
    print(
        f"  first access to {args.sample:,} random documents (plugin): "
        + ", ".join(f"{s.phase('access_first'):.2f}s" for s in access)
        + "; again (cached): "
        + ", ".join(f"{s.phase('access_again') * 1e3:.1f}ms" for s in access),
        flush=True,
    )
    result = Result(shape, samples, access, floor_mib)
    print_shape(result, args)
    if args.profile or not (result.time_met and result.rss_met):
        profile_plugin(args, folder, script, env)
    return result


def print_shape(result: Result, args: argparse.Namespace) -> None:
    shape = result.shape
    print(
        f"\n{shape.spec}: medians of {args.repeats} alternating runs, (min-max); "
        f"corpus.jsonl {shape.corpus_mib:.1f} MiB"
    )
    print(f"{'':34s} {'plugin':>26s} {'plain loop':>26s} {'plugin/plain':>13s}")
    rows = [
        ("load (from_beir / the loop)", result.load("plugin"), result.load("plain")),
        ("whole process (spawn to reap)", result.wall("plugin"), result.wall("plain")),
    ]
    for label, ours, theirs in rows:
        print(
            f"{label:34s} {spread(ours):>26s} {spread(theirs):>26s} "
            f"{median(ours) / median(theirs):13.3f}"
        )
    ours, theirs = result.peak("plugin"), result.peak("plain")
    print(
        f"{'peak RSS (wait4 / VmHWM)':34s} {spread(ours, ' MiB', 0):>26s} "
        f"{spread(theirs, ' MiB', 0):>26s} {median(ours) / median(theirs):13.3f}"
    )
    print(
        f"{'peak RSS / corpus file size':34s} {median(ours) / shape.corpus_mib:25.2f}x "
        f"{median(theirs) / shape.corpus_mib:25.2f}x"
    )
    print(
        f"{'(peak RSS - floor) / corpus size':34s} {result.above_floor('plugin'):25.2f}x "
        f"{'':26s}   (floor {result.floor_mib:.0f} MiB: the plugin's imports, numpy)"
    )
    first = [s.phase("access_first") for s in result.access]
    print(
        f"{'first access, ' + str(args.sample) + ' random docs':34s} {spread(first):>26s}   "
        f"({median(first) / args.sample * 1e3:.1f} ms a document; {len(first)} runs)"
    )
    print(
        f"targets: load time plugin <= plain: {'MET' if result.time_met else 'NOT MET'} "
        f"(ratio {result.load_ratio:.3f}; whole process {result.wall_ratio:.3f}); "
        f"peak RSS < {RSS_TARGET:g}x corpus: {'MET' if result.rss_met else 'NOT MET'} "
        f"(largest sample {result.rss_multiple:.2f}x)",
        flush=True,
    )


def profile_plugin(
    args: argparse.Namespace, folder: Path, script: Path, env: dict[str, str]
) -> None:
    import pstats

    prefix = folder.parent / f"{folder.name}.plugin"
    sample = run_child(
        args.python, script, ["plugin", str(folder), "profile", str(prefix)], env, folder.parent
    )
    print(
        f"\n--- cProfile of the plugin's load ({sample.phase('load'):.2f}s with the profiler on; "
        f"top {args.profile_top} by own time) ---"
    )
    _print_stats(pstats.Stats(f"{prefix}.load.prof"), args.profile_top)
    print(
        f"--- cProfile of the first access to {args.sample:,} documents "
        f"({sample.phase('access_first'):.2f}s with the profiler on) ---"
    )
    _print_stats(pstats.Stats(f"{prefix}.access.prof"), min(args.profile_top, 8))

    broken = run_child(
        args.python, script, ["plugin", str(folder), "breakdown"], env, folder.parent
    ).report
    print("--- the load's steps one by one, unprofiled (the reader's own code, called in turn) ---")
    if "error" in broken:
        print(f"  unavailable: the reader's internals changed ({broken['error']})")
    for name, seconds, rss_kib in broken["steps"]:
        print(f"  {seconds:7.2f}s  RSS after {rss_kib / 1024:6.0f} MiB  {name}")

    traced = run_child(args.python, script, ["plugin", str(folder), "trace"], env, folder.parent)
    trace = traced.report["trace"]
    print(
        f"--- tracemalloc of the plugin's load: peak {trace['peak'] / 2**20:.1f} MiB traced, "
        f"{trace['current'] / 2**20:.1f} MiB alive after it; process peak RSS "
        f"{traced.maxrss_mib:.0f} MiB ---"
    )
    for name, size in trace["parts"].items():
        print(f"  {size / 2**20:8.1f} MiB  {name}")
    print("  alive after loading, by allocation site:")
    for where, size, count in trace["top"]:
        where = where.replace(str(REPO_ROOT) + "/", "")
        print(f"    {size / 2**20:8.1f} MiB {count:9,} blocks  {where}")


def _print_stats(stats, top: int) -> None:
    """The top entries by own time, with paths shortened to the repository."""
    stats.sort_stats("tottime")
    total = stats.total_tt
    rows = sorted(stats.stats.items(), key=lambda item: item[1][2], reverse=True)[:top]
    print(f"  {'own s':>7s} {'own %':>6s} {'cum s':>7s} {'calls':>10s}  function")
    for (path, line, name), (_, calls, own, cumulative, _) in rows:
        where = path.replace(str(REPO_ROOT) + "/", "")
        label = name if path == "~" else f"{where}:{line} {name}"
        print(f"  {own:7.2f} {own / total * 100:5.1f}% {cumulative:7.2f} {calls:10,}  {label}")


def source_fingerprint() -> dict[str, str]:
    """SHA-256 of each of the package's sources: another engineer edits them while this runs."""
    return {
        str(path.relative_to(REPO_ROOT)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted((REPO_ROOT / "pytest_tempoeval").rglob("*.py"))
    }


def short_digest(fingerprint: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(fingerprint, sort_keys=True).encode()).hexdigest()[:12]


def print_summary(results: list[Result], args: argparse.Namespace) -> None:
    """Two Markdown tables: time, then memory and access."""
    print(
        f"\nSummary: medians of {args.repeats} alternating runs (min-max). load = the from_beir "
        "call / the plain loop, in the child; wall = the whole process, spawn to reap."
    )
    print(
        "\n| shape | corpus.jsonl | plugin load | plain load | load ratio | plugin wall | "
        "plain wall | wall ratio | load time target |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        print(
            f"| {r.shape.spec} | {r.shape.corpus_mib:.0f} MiB | {spread(r.load('plugin'))} | "
            f"{spread(r.load('plain'))} | {r.load_ratio:.2f} | {spread(r.wall('plugin'))} | "
            f"{spread(r.wall('plain'))} | {r.wall_ratio:.2f} | "
            f"{'met' if r.time_met else 'NOT MET'} |"
        )
    print(
        "\n| shape | plugin peak RSS | plain peak RSS | plugin / corpus | plain / corpus | "
        f"plugin above floor / corpus | first access, {args.sample:,} docs | RSS target |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        ours, theirs = median(r.peak("plugin")), median(r.peak("plain"))
        first = [s.phase("access_first") for s in r.access]
        print(
            f"| {r.shape.spec} | {spread(r.peak('plugin'), ' MiB', 0)} | "
            f"{spread(r.peak('plain'), ' MiB', 0)} | {ours / r.shape.corpus_mib:.2f}x | "
            f"{theirs / r.shape.corpus_mib:.2f}x | {r.above_floor('plugin'):.2f}x | "
            f"{spread(first)} | {'met' if r.rss_met else 'NOT MET'} ({r.rss_multiple:.2f}x) |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--shapes",
        nargs="+",
        type=Shape.parse,
        default=[Shape.parse(spec) for spec in DEFAULT_SHAPES],
        metavar="DOCS:LINE_BYTES:IDS",
        help=(
            "corpus shapes: documents (k/M suffixes), average corpus.jsonl line length, ids "
            "(num: '731', uuid: 36-byte hex); queries = docs/100, judgments = docs/10 "
            f"(default: {' '.join(DEFAULT_SHAPES)})"
        ),
    )
    parser.add_argument(
        "--repeats", type=int, default=3, help="timed runs of each side, alternating (default 3)"
    )
    parser.add_argument(
        "--sample", type=int, default=1000, help="random documents accessed (default 1000)"
    )
    parser.add_argument(
        "--access-runs",
        type=int,
        default=2,
        help="plugin children timing the first access, besides the check child (default 2)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="where to write the folders (default: a new temp dir, deleted)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the data")
    parser.add_argument(
        "--python", default=sys.executable, help="interpreter for the children (default: this one)"
    )
    parser.add_argument(
        "--no-bytecode-cache",
        dest="bytecode_cache",
        action="store_false",
        help="children compile the plugin from source (as in the other benchmarks)",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="profile the plugin's child for every shape, not only when a target is missed",
    )
    parser.add_argument("--profile-top", type=int, default=12)
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")

    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="bench_beir_"))
    if data_dir.resolve().is_relative_to(REPO_ROOT):
        raise SystemExit(
            f"--data-dir {data_dir} is inside the repository; use a directory outside it"
        )
    data_dir.mkdir(parents=True, exist_ok=True)
    try:
        failed = run_bench(args, data_dir)
    finally:
        if args.data_dir is None and not args.keep:
            shutil.rmtree(data_dir, ignore_errors=True)
        else:
            print(f"data kept in {data_dir}")
    sys.exit(1 if failed else 0)


def run_bench(args: argparse.Namespace, data_dir: Path) -> bool:
    script = data_dir / "child_beir.py"
    script.write_text(CHILD)
    env = child_environment(data_dir, args.bytecode_cache)
    fingerprint = source_fingerprint()
    print(
        f"python {platform.python_version()} ({args.python}); measuring {code_version()}; "
        f"package sources sha256 {short_digest(fingerprint)}; seed {args.seed}; "
        f"data in {data_dir}"
    )
    start = time.perf_counter()
    # The floor: interpreter + the plugin's imports, nothing read (the first run fills the
    # bytecode cache and is not counted).
    floors = [
        run_child(args.python, script, ["plugin", "-", "floor"], env, data_dir)
        for _ in range(args.repeats + 1)
    ][1:]
    floor_mib = median([max(s.maxrss_mib, s.vmhwm_mib) for s in floors])
    imports = median([s.phase("import") for s in floors])
    print(
        f"floor (python + from pytest_tempoeval import GoldSet + the BEIR reader, numpy): "
        f"peak RSS {floor_mib:.0f} MiB, imports {imports:.2f}s, "
        f"whole process {median([s.wall for s in floors]):.2f}s"
    )
    results = []
    for shape in args.shapes:
        folder = data_dir / shape.spec.replace(":", "_")
        results.append(bench_shape(args, shape, folder, script, env, floor_mib))
        now = source_fingerprint()
        if now != fingerprint:
            changed = sorted(
                name
                for name in now.keys() | fingerprint.keys()
                if now.get(name) != fingerprint.get(name)
            )
            print(
                f"WARNING: pytest_tempoeval changed while {shape.spec} ran (sources "
                f"{short_digest(fingerprint)} -> {short_digest(now)}: {', '.join(changed)}); "
                "if the BEIR reader is among them, its figures may mix two versions of the code",
                flush=True,
            )
            fingerprint = now
        if not args.keep and args.data_dir is None:
            shutil.rmtree(folder, ignore_errors=True)
    print_summary(results, args)
    parent = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"\nparent's own peak RSS: {parent:.0f} MiB; whole invocation "
        f"{(time.perf_counter() - start) / 60:.1f} min"
    )
    return not all(r.time_met and r.rss_met for r in results)


if __name__ == "__main__":
    main()
