"""LLM-judge cassettes: how fast a recorded judge replays, and how concurrently it records.

Why: ``mode="llm"`` tests replay recorded judgments from vcrpy cassettes in CI, on every run, and
record them (against the real API, once) with many requests in flight. So two things must be fast:

1. **Replay, whole process.** For N in ``--sizes`` (default 1000 and 3000) a cassette of N graded
   judgments for one "test" is recorded (untimed, in this process) against the loopback fake API,
   ``pytest_tempoeval.testing.FakeMessagesServer``, with ``AnthropicJudge(api_key=...,
   base_url=server.base_url, max_concurrency=16, cassette=JudgeCassette(path, "once"))``. The
   server is then stopped. Each sample is a fresh ``python -c`` process that does what the
   ``tempoeval_judge`` fixture does in record mode ``none``:
   ``AnthropicJudge(cassette=JudgeCassette(path, "none", cmd))`` (the cassette file read straight
   into a request-body index; no SDK, no HTTP, no vcrpy) and grades the same N
   items. It is timed from spawn to reap (``perf_counter`` around ``Popen`` + ``os.wait4``, which
   also gives CPU time): interpreter start-up, imports, loading the cassette, the N
   lookups and exit all count. The child also reports its phases.
   Every sample must return the recorded judgments (same grades, in order, by SHA-256), all N
   answered by the cassette. Both serializers are measured (``.yaml`` and ``.json`` cassettes).
   The N values and serializers alternate, ``--repeats`` times, after one untimed warm-up per
   serializer; medians are reported. Targets: N=3000 in <= 3 s, and t(3000) <= 3.5 x t(1000)
   (linear, not quadratic, in N). Then a missing cassette in record mode ``none``: the judge must
   raise ``JudgeCassetteError`` naming the file, the whole process within 1 s.

   For contrast, stock vcrpy replays the 1000-judgment YAML cassette once:
   ``vcr.use_cassette(path, record_mode="none", match_on=[method, scheme, host, port, path, query,
   body])`` around the same judge without ``cassette=``. vcrpy scans every stored interaction per
   request (several times), so this is quadratic; it is stopped after ``--stock-timeout`` (120 s).

2. **Recording concurrency.** ``FakeMessagesServer(latency=0.05)`` runs in its own process (the
   real API is not in the test's process either; ``--server-in-child`` puts it in the recording
   process instead). A fresh child records ``--record-n`` (1000) judgments into a new cassette in
   record mode ``all`` (``JudgeCassette(path, "all")``, saved at the end) with
   ``max_concurrency=16`` (``--repeats`` times) and with ``max_concurrency=1``
   (``--sequential-repeats`` times, default 1: it takes over 50 s). The
   figure is the time from the first judgment to the saved cassette (judging plus saving),
   measured in the child; whole-process times are shown too. The server process reports how many
   requests it got and the most it answered at once. Target: concurrent <= 1/10 of sequential.
   The fake server sets TCP_NODELAY (its headers and body go out in two writes; with Nagle's
   algorithm on, each answer would wait ~40 ms for the client's delayed ACK), so the latency is the
   50 ms asked for.

If a target is missed (or with ``--profile``), the case is run once more under cProfile and the
script prints where the time goes. The items are
``(f"q{i}", f"question about {1900 + i % 120}", f"d{i}", f"document about {year}")`` with
``year = 1900 + (i // 120 + 7 * i) % 120``: every (query, document) pair, and so every prompt, is
distinct for N < 14,400 (with ``(7 * i) % 120`` alone there would be only 120 distinct prompts, and
the judge asks each identical prompt once).

Data (cassettes, child output, profiles, bytecode cache) goes to a temporary directory outside the
repository, deleted afterwards unless ``--keep`` or ``--data-dir``. As in the other benchmarks,
children use ``PYTHONPYCACHEPREFIX=<data dir>/pycache`` (this environment sets
``PYTHONDONTWRITEBYTECODE=1``), filled by the warm-up runs. Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import os
import pstats
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
sys.path.insert(0, str(BENCH_DIR))
sys.path.insert(0, str(REPO_ROOT))

from bench_common import child_environment, code_version

Item = tuple[str, str, str, str]

REPLAY_TARGET_S = 3.0  # replaying 3000 judgments, whole process
REPLAY_RATIO_TARGET = 3.5  # t(3000) / t(1000)
RECORD_RATIO_TARGET = 0.1  # concurrent / sequential
MISSING_TARGET_S = 1.0  # a missing cassette in record mode none fails within this, whole process
MATCH_ON = ["method", "scheme", "host", "port", "path", "query", "body"]

# The child process: one replay, stock-vcrpy replay or recording, described by a JSON argument.
# It prints one JSON line: phase times, what the judge and the cassette saw, and a digest of the
# judgments. The items expression must stay the same as make_items() below (checked: the digest).
# Not a raw string: the "\\n" below is escaped, and a backslash at a line's end joins two lines.
CHILD = """
import json, sys, time
T0 = time.perf_counter()
job = json.loads(sys.argv[1])
import hashlib
from pathlib import Path
if job["mode"] in ("record", "stock"):  # replay, as the fixture does it, needs neither
    import anthropic  # the judge imports it on its first request anyway
    import vcr
import contextlib
from pytest_tempoeval.errors import JudgeCassetteError
from pytest_tempoeval.judge.cassettes import JudgeCassette
from pytest_tempoeval.judge.anthropic_judge import AnthropicJudge
T_IMPORT = time.perf_counter()
profiler = None
if job.get("profile"):  # after the imports: -X importtime covers those
    import cProfile
    profiler = cProfile.Profile()
    profiler.enable()
n = job["n"]
items = [
    (f"q{i}", f"question about {1900 + i % 120}",
     f"d{i}", f"document about {1900 + (i // 120 + i * 7) % 120}")
    for i in range(n)
]
path = Path(job["cassette"])
server = None
cassette = None
stock = contextlib.nullcontext()
if job["mode"] == "record":
    base_url = job["base_url"]
    if base_url is None:
        from pytest_tempoeval.testing import FakeMessagesServer
        server = FakeMessagesServer(latency=job["latency"]).start()
        base_url = server.base_url
    cassette = JudgeCassette(path, "all", "bench")
    judge = AnthropicJudge(
        api_key="dummy", base_url=base_url, max_concurrency=job["concurrency"], cassette=cassette
    )
elif job["mode"] in ("replay", "miss"):  # exactly what the tempoeval_judge fixture does \
in mode none
    cassette = JudgeCassette(path, "none", "bench")
    judge = AnthropicJudge(cassette=cassette)
else:  # stock vcrpy around a judge without a cassette
    judge = AnthropicJudge(max_concurrency=16, api_key="replay-only", max_retries=0)
    stock = vcr.use_cassette(str(path), record_mode="none", match_on=job["match_on"])
T_SETUP = time.perf_counter()
error = None
with stock as vcr_cassette:
    T_LOADED = time.perf_counter()
    try:
        judgments = judge.grade_all(items)
    except JudgeCassetteError as miss:
        judgments, error = [], str(miss)
    T_GRADED = time.perf_counter()
    interactions = len(vcr_cassette.data) if cassette is None else len(cassette)
if cassette is not None:
    cassette.save()  # writes only what was recorded
T_EXIT = time.perf_counter()
if profiler is not None:
    profiler.disable()
    profiler.dump_stats(job["profile"])
server_report = None
if server is not None:
    server_report = {"requests": len(server.requests), "max_in_flight": server.max_in_flight}
    server.stop()
text = "\\n".join(f"{j.query_id} {j.doc_id} {j.value}" for j in judgments)
print(json.dumps({
    "phases": {
        "import": T_IMPORT - T0,
        "items, judge, read cassette": T_SETUP - T_IMPORT,
        "stock vcrpy: load cassette": T_LOADED - T_SETUP,
        "grade_all": T_GRADED - T_LOADED,
        "save cassette": T_EXIT - T_GRADED,
    },
    "block": T_EXIT - T_SETUP,
    "count": len(judgments),
    "digest": hashlib.sha256(text.encode()).hexdigest(),
    "judgments": judge.stats.judgments,
    "cache_hits": judge.stats.cache_hits,
    "interactions": interactions,
    "server": server_report,
    "error": error,
}))
"""

# A FakeMessagesServer in its own process: prints its base URL, serves until stdin closes, then
# prints how many requests it answered and the most it answered at once.
SERVER = r"""
import json, sys
from pytest_tempoeval.testing import FakeMessagesServer
server = FakeMessagesServer(latency=float(sys.argv[1])).start()
print(server.base_url, flush=True)
sys.stdin.read()
print(json.dumps({"requests": len(server.requests), "max_in_flight": server.max_in_flight}))
server.stop()
"""

# Profiled functions worth naming: (label, file regex, function name). The entry with the largest
# cumulative time among the matches is shown. Indented labels are part of the one above.
HOTSPOTS: list[tuple[str, str, str]] = [
    ("lazy imports (after the import phase)", r"<frozen importlib._bootstrap>", "_find_and_load"),
    ("JudgeCassette: read the file", r"pytest_tempoeval/judge/cassettes\.py", "_read_interactions"),
    ("judge: grade_all", r"pytest_tempoeval/judge/anthropic_judge\.py", "grade_all"),
    ("  JudgeCassette.answer (lookup)", r"pytest_tempoeval/judge/cassettes\.py", "answer"),
    ("  anthropic: messages.create", r"anthropic/resources/messages/messages\.py", "create"),
    ("    SDK: build the request", r"anthropic/_base_client\.py", "_build_request"),
    ("    SDK: process the response", r"anthropic/_base_client\.py", "_process_response"),
    ("  JudgeCassette.record", r"pytest_tempoeval/judge/cassettes\.py", "record"),
    ("JudgeCassette.save", r"pytest_tempoeval/judge/cassettes\.py", "save"),
    ("  serialize (PyYAML/json)", r"vcr/serializers/\w+serializer\.py", "serialize"),
    ("stock vcrpy: load the cassette", r"vcr/cassette\.py", "_load"),
    ("stock vcrpy: httpx stub (match, play)", r"vcr/stubs/httpx_stubs\.py", "_vcr_request"),
    ("  stock Cassette._responses (scan)", r"vcr/cassette\.py", "_responses"),
    ("  copy.deepcopy (all calls)", r"copy\.py", "deepcopy"),
]


def make_items(n: int) -> list[Item]:
    """The N graded items; every prompt distinct for n < 14,400 (see the module docstring)."""
    return [
        (
            f"q{i}",
            f"question about {1900 + i % 120}",
            f"d{i}",
            f"document about {1900 + (i // 120 + i * 7) % 120}",
        )
        for i in range(n)
    ]


def digest(judgments: Sequence[Any]) -> str:
    text = "\n".join(f"{j.query_id} {j.doc_id} {j.value}" for j in judgments)
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class Sample:
    """One child process: wall seconds (spawn to reap), its rusage, and what it reported."""

    wall: float
    cpu: float
    rss_mib: float
    report: dict[str, Any] = field(default_factory=dict)
    timed_out: bool = False


def run_child(
    python: str,
    job: dict[str, Any],
    env: dict[str, str],
    data_dir: Path,
    timeout: float | None = None,
) -> Sample:
    """Run CHILD with ``job``; kill its process group after ``timeout`` seconds."""
    out_path, err_path = data_dir / "child.out", data_dir / "child.err"
    with out_path.open("wb") as out, err_path.open("wb") as err:
        start = time.perf_counter()
        process = subprocess.Popen(
            [python, "-c", CHILD, json.dumps(job)],
            env=env,
            cwd=data_dir,
            stdout=out,
            stderr=err,
            start_new_session=True,  # its own process group, so a timeout can stop all of it
        )
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout, kill) if timeout else None
        if timer is not None:
            timer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            if timer is not None:
                timer.cancel()
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
    sample = Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)
    if killed.is_set():
        sample.timed_out = True
        return sample
    if process.returncode != 0:
        raise SystemExit(
            f"child {job['mode']} N={job['n']} failed (exit {process.returncode}):\n"
            + err_path.read_text(errors="replace")[-4000:]
        )
    sample.report = json.loads(out_path.read_text().strip().splitlines()[-1])
    return sample


def check_replay(sample: Sample, n: int, expected: str, what: str) -> None:
    report = sample.report
    problems = []
    if report["count"] != n or report["digest"] != expected:
        problems.append("judgments differ from the recorded ones")
    if report["judgments"] != n or report["cache_hits"] != 0:
        problems.append(
            f"{report['judgments']} answered by the cassette, {report['cache_hits']} cache hits"
        )
    if report["interactions"] != n:
        problems.append(f"the cassette holds {report['interactions']} interactions")
    if problems:
        raise SystemExit(f"{what}: {'; '.join(problems)} (expected {n})")


def record_cassette(path: Path, n: int) -> tuple[str, float, int]:
    """Record N graded judgments against an in-process fake server (stopped on return)."""
    from pytest_tempoeval.judge.anthropic_judge import AnthropicJudge
    from pytest_tempoeval.judge.cassettes import JudgeCassette
    from pytest_tempoeval.testing import FakeMessagesServer

    items = make_items(n)
    start = time.perf_counter()
    with FakeMessagesServer() as server:
        cassette = JudgeCassette(path, "once", "cmd")
        judge = AnthropicJudge(
            api_key=os.environ["ANTHROPIC_API_KEY"],
            base_url=server.base_url,
            max_concurrency=16,
            cassette=cassette,
        )
        judgments = judge.grade_all(items)
        cassette.save()
        interactions = len(cassette)
        requests = len(server.requests)
    seconds = time.perf_counter() - start
    prompts = {json.dumps(body["messages"], sort_keys=True) for body in server.requests}
    if not (requests == interactions == len(prompts) == n):
        raise SystemExit(
            f"recording {path.name}: {requests} requests, {interactions} interactions, "
            f"{len(prompts)} distinct prompts; expected {n} of each"
        )
    return digest(judgments), seconds, path.stat().st_size


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def fmt_s(seconds: float) -> str:
    return f"{seconds:.2f} s"


def fmt_samples(values: Sequence[float]) -> str:
    return ", ".join(f"{value:.2f}" for value in values)


# -- 1. replay ---------------------------------------------------------------------------------


def bench_replay(
    args: argparse.Namespace, env: dict[str, str], data_dir: Path, missed: list[str]
) -> dict[tuple[str, int], tuple[Path, str]]:
    sizes: list[int] = sorted(args.sizes)
    cassettes: dict[tuple[str, int], tuple[Path, str]] = {}
    print("\n## 1. Replay, whole process\n")
    print("recording the cassettes (untimed, in this process, against FakeMessagesServer):")
    for serializer in args.serializers:
        for n in sizes:
            path = data_dir / f"replay_{n}.{serializer}"
            expected, seconds, size = record_cassette(path, n)
            cassettes[serializer, n] = (path, expected)
            print(
                f"  {path.name}: {n} interactions, {size / 2**20:.1f} MiB, "
                f"recorded in {seconds:.1f} s"
            )

    def job(serializer: str, n: int, profile: Path | None = None) -> dict[str, Any]:
        path = cassettes[serializer, n][0]
        return {
            "mode": "replay",
            "n": n,
            "cassette": str(path),
            "profile": str(profile) if profile else None,
        }

    for serializer in args.serializers:  # untimed: fills the bytecode cache, checks the replay
        n = sizes[0]
        sample = run_child(args.python, job(serializer, n), env, data_dir)
        check_replay(sample, n, cassettes[serializer, n][1], f"warm-up {serializer} N={n}")
    samples: dict[tuple[str, int], list[Sample]] = {key: [] for key in cassettes}
    for repeat in range(args.repeats):
        for n in sizes:
            for serializer in args.serializers:
                sample = run_child(args.python, job(serializer, n), env, data_dir)
                check_replay(sample, n, cassettes[serializer, n][1], f"{serializer} N={n}")
                samples[serializer, n].append(sample)
        done = ", ".join(
            f"{s} {n}: {samples[s, n][-1].wall:.2f} s" for n in sizes for s in args.serializers
        )
        print(f"repeat {repeat + 1}/{args.repeats}: {done}")

    small, large = sizes[0], sizes[-1]
    print(
        f"\nmedian of {args.repeats}, whole process (spawn to reap); every sample replayed the "
        "recorded judgments exactly\n"
    )
    header = "| cassette | " + " | ".join(f"N={n}" for n in sizes)
    header += f" | t({large})/t({small}) | N={large} <= {REPLAY_TARGET_S:g} s | ratio <= "
    header += f"{REPLAY_RATIO_TARGET:g} |"
    print(header)
    print("|---" * (len(sizes) + 4) + "|")
    to_profile: list[str] = []
    for serializer in args.serializers:
        walls = {n: median([s.wall for s in samples[serializer, n]]) for n in sizes}
        ratio = walls[large] / walls[small]
        fast = walls[large] <= REPLAY_TARGET_S if large == 3000 else None
        linear = ratio <= REPLAY_RATIO_TARGET
        cells = " | ".join(fmt_s(walls[n]) for n in sizes)
        fast_text = "n/a" if fast is None else ("met" if fast else "**missed**")
        print(
            f"| {serializer} | {cells} | {ratio:.2f} | {fast_text} | "
            f"{'met' if linear else '**missed**'} |"
        )
        if fast is False:
            missed.append(f"replay {serializer} N={large}: {fmt_s(walls[large])} > 3 s")
        if not linear:
            missed.append(f"replay {serializer}: t({large})/t({small}) = {ratio:.2f} > 3.5")
        if fast is False or not linear:
            to_profile.append(serializer)

    print("\nphases (medians, seconds; measured in the child):\n")
    keys = list(next(iter(samples.values()))[0].report["phases"])
    columns = [(s, n) for s in args.serializers for n in sizes]
    print("| phase | " + " | ".join(f"{s} N={n}" for s, n in columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for key in keys:
        cells = " | ".join(
            f"{median([x.report['phases'][key] for x in samples[c]]):.2f}" for c in columns
        )
        print(f"| {key} | {cells} |")
    rows: list[tuple[str, Callable[[Sample], float]]] = [
        ("start-up + exit", lambda x: x.wall - sum(x.report["phases"].values())),
        ("wall", lambda x: x.wall),
        ("CPU (user + sys)", lambda x: x.cpu),
    ]
    for label, value in rows:
        cells = " | ".join(f"{median([value(x) for x in samples[c]]):.2f}" for c in columns)
        print(f"| {label} | {cells} |")
    print(
        "| cassette (MiB) | "
        + " | ".join(f"{cassettes[c][0].stat().st_size / 2**20:.1f}" for c in columns)
        + " |"
    )
    print("\nall wall samples (s):")
    for column in columns:
        print(f"  {column[0]} N={column[1]}: {fmt_samples([x.wall for x in samples[column]])}")

    bench_missing_cassette(args, env, data_dir, missed)

    if args.profile:
        to_profile = list(args.serializers)
    if to_profile:
        print_import_times(args, env, data_dir)
    for serializer in to_profile:
        profile = data_dir / f"replay_{serializer}_{large}.prof"
        run_child(args.python, job(serializer, large, profile), env, data_dir)
        print_profile(
            profile, f"replay {serializer} N={large} (child process under cProfile)", args
        )
    return cassettes


def bench_missing_cassette(
    args: argparse.Namespace, env: dict[str, str], data_dir: Path, missed: list[str]
) -> None:
    """Record mode none, no cassette file: the first judgment must fail at once, with the error."""
    n = min(args.sizes)
    job = {"mode": "miss", "n": n, "cassette": str(data_dir / "missing" / "never.yaml")}
    samples = [run_child(args.python, job, env, data_dir) for _ in range(args.repeats)]
    for sample in samples:
        error = sample.report["error"] or ""
        if "does not exist" not in error or "never.yaml" not in error or sample.report["count"]:
            raise SystemExit(f"missing cassette: expected JudgeCassetteError, got {error!r}")
    failing = median([x.report["phases"]["grade_all"] for x in samples])
    wall = median([x.wall for x in samples])
    met = wall < MISSING_TARGET_S
    print(
        f"\nmissing cassette (record mode none, {n} judgments asked): JudgeCassetteError after "
        f"{failing * 1000:.1f} ms in grade_all; whole process {fmt_s(wall)} (median of "
        f"{len(samples)}); target < {MISSING_TARGET_S:g} s: {'met' if met else '**missed**'}"
    )
    if not met:
        missed.append(f"missing cassette: {fmt_s(wall)} >= {MISSING_TARGET_S:g} s")


def bench_stock(
    args: argparse.Namespace,
    env: dict[str, str],
    data_dir: Path,
    cassettes: dict[tuple[str, int], tuple[Path, str]],
) -> None:
    n = args.stock_n
    print(f"\n## 1b. Stock vcrpy replay of the same YAML cassette, N={n} (once)\n")
    if ("yaml", n) not in cassettes:
        path = data_dir / f"replay_{n}.yaml"
        expected, _, _ = record_cassette(path, n)
        cassettes["yaml", n] = (path, expected)
    path, expected = cassettes["yaml", n]
    job = {"mode": "stock", "n": n, "cassette": str(path), "match_on": MATCH_ON, "profile": None}
    print(f"vcr.use_cassette({path.name!r}, record_mode='none', match_on={MATCH_ON})")
    sample = run_child(args.python, job, env, data_dir, timeout=args.stock_timeout)
    if sample.timed_out:
        print(f"stock vcrpy, N={n}: > {args.stock_timeout:g} s (stopped)")
        return
    check_replay(sample, n, expected, f"stock vcrpy N={n}")
    phases = ", ".join(f"{k} {v:.2f}" for k, v in sample.report["phases"].items())
    print(f"stock vcrpy, N={n}: {fmt_s(sample.wall)} whole process ({phases})")


# -- 2. recording concurrency ------------------------------------------------------------------


def start_server(
    args: argparse.Namespace, env: dict[str, str]
) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [args.python, "-c", SERVER, str(args.latency)],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    base_url = process.stdout.readline().strip()
    if not base_url.startswith("http://"):
        process.kill()
        raise SystemExit(f"the fake server process did not start (said {base_url!r})")
    return process, base_url


def record_once(
    args: argparse.Namespace,
    env: dict[str, str],
    data_dir: Path,
    n: int,
    concurrency: int,
    run: int,
    profile: Path | None = None,
) -> Sample:
    path = data_dir / f"record_c{concurrency}_{run}.yaml"
    path.unlink(missing_ok=True)
    job = {
        "mode": "record",
        "n": n,
        "cassette": str(path),
        "concurrency": concurrency,
        "latency": args.latency,
        "base_url": None,
        "profile": str(profile) if profile else None,
    }
    server: subprocess.Popen[str] | None = None
    if not args.server_in_child:
        server, job["base_url"] = start_server(args, env)
    try:
        sample = run_child(args.python, job, env, data_dir)
    finally:
        if server is not None:
            out, _ = server.communicate("", timeout=60)  # closes its stdin: it reports and stops
    if server is not None:
        sample.report["server"] = json.loads(out.strip().splitlines()[-1])
    report = sample.report
    seen = report["server"]
    if not (report["count"] == report["judgments"] == report["interactions"] == n) or (
        seen["requests"] != n
    ):
        raise SystemExit(
            f"recording N={n} at concurrency {concurrency}: {report['judgments']} judgments, "
            f"{report['interactions']} interactions, {seen['requests']} requests at the server"
        )
    if seen["max_in_flight"] > concurrency:
        raise SystemExit(f"{seen['max_in_flight']} requests in flight at concurrency {concurrency}")
    path.unlink(missing_ok=True)
    return sample


def bench_recording(
    args: argparse.Namespace, env: dict[str, str], data_dir: Path, missed: list[str]
) -> None:
    n, latency, wide = args.record_n, args.latency, args.concurrency
    where = "in the recording process" if args.server_in_child else "in its own process"
    print(
        f"\n## 2. Recording concurrency: {n} judgments, FakeMessagesServer(latency={latency:g}) "
        f"{where}, record mode 'all', a new cassette each run\n"
    )
    record_once(args, env, data_dir, min(n, 50), wide, run=-1)  # warm-up, untimed
    concurrent: list[Sample] = []
    sequential: list[Sample] = []
    run = 0
    for repeat in range(max(args.repeats, args.sequential_repeats)):
        if repeat < args.sequential_repeats:
            sequential.append(record_once(args, env, data_dir, n, 1, run))
            run += 1
            print(f"  max_concurrency=1: {sequential[-1].report['block']:.2f} s")
        if repeat < args.repeats:
            concurrent.append(record_once(args, env, data_dir, n, wide, run))
            run += 1
            print(f"  max_concurrency={wide}: {concurrent[-1].report['block']:.2f} s")

    def row(label: str, samples: list[Sample]) -> tuple[float, str]:
        block = median([s.report["block"] for s in samples])
        wall = median([s.wall for s in samples])
        cpu = median([s.cpu for s in samples])
        flight = max(s.report["server"]["max_in_flight"] for s in samples)
        text = (
            f"| {label} | {len(samples)} | {fmt_s(block)} | {fmt_s(wall)} | {fmt_s(cpu)} | "
            f"{flight} | {fmt_samples([s.report['block'] for s in samples])} |"
        )
        return block, text

    print(
        "\nrecording = first judgment to saved cassette (judging + saving), measured in the "
        "child; medians\n"
    )
    print(
        "| max_concurrency | runs | recording | whole process | its CPU (user + sys) "
        "| most in flight | samples (s) |"
    )
    print("|---|---|---|---|---|---|---|")
    fast, fast_row = row(str(wide), concurrent)
    slow, slow_row = row("1 (sequential)", sequential)
    print(fast_row)
    print(slow_row)
    ratio = fast / slow
    verdict = "met" if ratio <= RECORD_RATIO_TARGET else "**missed**"
    print(
        f"\nconcurrent / sequential = {ratio:.3f} ({slow / fast:.1f}x faster); target <= "
        f"{RECORD_RATIO_TARGET:g}: {verdict}. Latency floor: {n * latency / wide:.2f} s at "
        f"{wide} in flight, {n * latency:.1f} s sequential."
    )
    print(
        f"per judgment: {1000 * slow / n:.1f} ms sequential (the server sleeps "
        f"{1000 * latency:.0f} ms), {1000 * fast / n:.1f} ms at max_concurrency={wide}"
    )
    phases = concurrent[len(concurrent) // 2].report["phases"]
    print(
        "one concurrent run's phases (s): " + ", ".join(f"{k} {v:.2f}" for k, v in phases.items())
    )
    if ratio > RECORD_RATIO_TARGET:
        missed.append(f"recording: concurrent/sequential = {ratio:.3f} > {RECORD_RATIO_TARGET:g}")
    if ratio > RECORD_RATIO_TARGET or args.profile:
        profile = data_dir / "record_concurrent.prof"
        record_once(args, env, data_dir, n, wide, run=run, profile=profile)
        print_profile(profile, f"recording N={n}, max_concurrency={wide} (under cProfile)", args)


# -- profiles ----------------------------------------------------------------------------------


def print_profile(path: Path, title: str, args: argparse.Namespace) -> None:
    stats = pstats.Stats(str(path))
    entries: dict[tuple[str, int, str], Any] = stats.stats  # type: ignore[attr-defined]
    total = sum(own for _, _, own, _, _ in entries.values())
    print(f"\n### profile: {title}\n")
    print(
        f"profiled total {total:.2f} s, from after the imports to the end (cProfile slows "
        "Python code down, so compare shares, not seconds, with the timings above; it also "
        "loses some frames around asyncio, so a missing row is not a zero)\n"
    )
    print("| where | calls | own s | cumulative s | share |")
    print("|---|---|---|---|---|")
    for label, file_pattern, function in HOTSPOTS:
        matches = [
            (key, value)
            for key, value in entries.items()
            if key[2] == function and re.search(file_pattern, key[0])
        ]
        if not matches:
            continue
        _, (primitive, calls, own, cumulative, _) = max(matches, key=lambda kv: kv[1][3])
        count = f"{calls}" if calls == primitive else f"{calls}/{primitive}"
        print(
            f"| {label} | {count} | {own:.2f} | {cumulative:.2f} | "
            f"{100 * cumulative / total:.0f}% |"
        )
    print(f"\ntop {args.profile_top} by own time:\n")
    ranked = sorted(entries.items(), key=lambda kv: kv[1][2], reverse=True)[: args.profile_top]
    for (file, line, function), (_, calls, own, cumulative, _) in ranked:
        print(
            f"  {own:7.2f} own {cumulative:7.2f} cum {calls:9d}  {short(file)}:{line}({function})"
        )


IMPORTS = (
    "import anthropic, vcr; import pytest_tempoeval.judge.cassettes, "
    "pytest_tempoeval.judge.anthropic_judge; "
    "import vcr.stubs.httpx_stubs"
)


def print_import_times(args: argparse.Namespace, env: dict[str, str], data_dir: Path) -> None:
    """The child's import phase, by top-level package, from one ``python -X importtime`` run."""
    result = subprocess.run(
        [args.python, "-X", "importtime", "-c", IMPORTS],
        env=env,
        cwd=data_dir,
        capture_output=True,
        text=True,
        check=True,
    )
    packages: dict[str, float] = {}
    for line in result.stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if match and len(match[3]) == 1:  # imported by the -c code itself, not by another module
            name = match[4].split(".")[0]
            packages[name] = packages.get(name, 0.0) + int(match[2]) / 1e6
    total = sum(packages.values())
    print(f"\n### imports: {total:.2f} s in one `python -X importtime -c '{IMPORTS}'`\n")
    print("(the profiles start after the imports; top-level packages, cumulative, >= 10 ms)\n")
    for name, seconds in sorted(packages.items(), key=lambda kv: -kv[1]):
        if seconds >= 0.01:
            print(f"  {seconds:6.2f} s  {name}")


def short(file: str) -> str:
    for marker in ("site-packages/", "python3.11/", str(REPO_ROOT) + "/"):
        if marker in file:
            return file.split(marker, 1)[1]
    return file


# -- main --------------------------------------------------------------------------------------


def versions() -> Iterator[str]:
    yield f"Python {sys.version.split()[0]}"
    for name in ("anthropic", "vcrpy", "PyYAML", "httpx2", "httpx"):
        try:
            yield f"{name} {importlib.metadata.version(name)}"
        except importlib.metadata.PackageNotFoundError:
            continue
    try:
        import yaml

        yield f"libyaml {'yes' if yaml.__with_libyaml__ else 'no'}"
    except ImportError:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        epilog="Sections: 1 replay (+ stock vcrpy), 2 recording concurrency. Exit status 1 when "
        "a target is missed. See bench/README.md, section 4.",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=3,
        help="timed replays of each (serializer, N), and concurrent recordings (default 3)",
    )
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=[1000, 3000],
        help="judgments per replayed cassette (default 1000 3000; the ratio uses the extremes)",
    )
    parser.add_argument(
        "--serializers",
        nargs="+",
        choices=["yaml", "json"],
        default=["yaml", "json"],
        help="cassette formats to replay (default both)",
    )
    parser.add_argument(
        "--stock-n", type=int, default=1000, help="judgments for the stock vcrpy replay (1000)"
    )
    parser.add_argument(
        "--stock-timeout",
        type=float,
        default=120.0,
        help="stop the stock vcrpy replay after this many seconds (default 120)",
    )
    parser.add_argument(
        "--record-n", type=int, default=1000, help="judgments per recording run (default 1000)"
    )
    parser.add_argument(
        "--latency", type=float, default=0.05, help="fake server latency when recording (0.05 s)"
    )
    parser.add_argument(
        "--concurrency", type=int, default=16, help="max_concurrency of the concurrent side (16)"
    )
    parser.add_argument(
        "--sequential-repeats",
        type=int,
        default=1,
        help="recordings at max_concurrency=1 (default 1: each takes over 50 s)",
    )
    parser.add_argument(
        "--server-in-child",
        action="store_true",
        help="run the fake server inside the recording process instead of its own process",
    )
    parser.add_argument("--no-replay", action="store_true", help="skip section 1")
    parser.add_argument("--no-stock", action="store_true", help="skip the stock vcrpy replay")
    parser.add_argument("--no-recording", action="store_true", help="skip section 2")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="profile every case (by default only a case that misses its target is profiled)",
    )
    parser.add_argument("--profile-top", type=int, default=25, help="rows of the own-time list")
    parser.add_argument(
        "--data-dir", type=Path, help="where to write cassettes (default: a new temp dir, deleted)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temp dir")
    parser.add_argument(
        "--python", default=sys.executable, help="interpreter for the children (default: this one)"
    )
    parser.add_argument(
        "--no-bytecode-cache",
        dest="bytecode_cache",
        action="store_false",
        help="children compile every module from source (PYTHONDONTWRITEBYTECODE=1) instead of "
        "using a bytecode cache in the data dir",
    )
    args = parser.parse_args()
    if args.repeats < 1 or args.sequential_repeats < 1:
        parser.error("--repeats and --sequential-repeats must be at least 1")

    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="bench_judge_"))
    if data_dir.resolve().is_relative_to(REPO_ROOT):
        raise SystemExit(f"--data-dir {data_dir} is inside the repository; use one outside it")
    data_dir.mkdir(parents=True, exist_ok=True)
    try:
        missed = run_bench(args, data_dir)
    finally:
        if args.data_dir is None and not args.keep:
            shutil.rmtree(data_dir, ignore_errors=True)
        else:
            print(f"data kept in {data_dir}")
    sys.exit(1 if missed else 0)


def run_bench(args: argparse.Namespace, data_dir: Path) -> list[str]:
    # As the brief for these cassettes says: a dummy key in the environment for recording. The
    # children do not inherit it: replay must work without a key, as in CI.
    os.environ["ANTHROPIC_API_KEY"] = "dummy"
    env = child_environment(data_dir, args.bytecode_cache)
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN"):
        env.pop(name, None)
    print(f"{'; '.join(versions())}; {os.cpu_count()} CPUs; measuring {code_version()}")
    print(f"data in {data_dir}")
    missed: list[str] = []
    cassettes: dict[tuple[str, int], tuple[Path, str]] = {}
    if not args.no_replay:
        cassettes = bench_replay(args, env, data_dir, missed)
    if not args.no_stock:
        bench_stock(args, env, data_dir, cassettes)
    if not args.no_recording:
        bench_recording(args, env, data_dir, missed)
    print("\n## Targets\n")
    print("\n".join(f"- missed: {line}" for line in missed) if missed else "all targets met")
    return missed


if __name__ == "__main__":
    main()
