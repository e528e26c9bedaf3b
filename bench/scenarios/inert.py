"""Inertness: what the plugin costs a suite that never uses it. 200 trivial tests, whole pytest
processes with the plugin and with ``-p no:tempoeval``, alternating, 15 pairs; budget 20 ms.

pytest loads the plugin through its ``pytest11`` entry point in every run, so this measures that
(``pip install -e .`` must have registered it; the children import this checkout's code). The suite
(``children/inert_suite.py`` copied 20 times, no conftest) lives outside the repository. Two
variants: ``autoload`` (every installed plugin loads, as users run it) and ``only this plugin``
(``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``; ``-p tempoeval`` against an empty plugin module: shorter,
steadier runs). The warm-up pair checks that the plugin is loaded on one side only and that
numpy, anthropic, vcrpy and PyYAML are not loaded with it. Overhead = the median of the paired
differences (with - without, adjacent runs). ``-X importtime`` gives the plugin's own import time.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.harness import CHILDREN, Context, Mismatch, Sample, alternate, median, run_child, spread

REPEATS = 15
BUDGET_MS = 20.0
FORBIDDEN = ("numpy", "anthropic", "vcr", "yaml")
PLUGIN_MODULE = "pytest_tempoeval.plugin"
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
VARIANTS = {  # name: (environment, with, without)
    "autoload": ({}, [], ["-p", "no:tempoeval"]),
    "only this plugin": (
        {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        ["-p", "tempoeval"],
        ["-p", "no:tempoeval", "-p", "bench_noop_plugin"],
    ),
}


def write_suite(suite: Path, tests: int) -> None:
    suite.mkdir()
    (suite / "pytest.ini").write_text("[pytest]\n")
    shutil.copy(CHILDREN / "inert_noop_plugin.py", suite / "bench_noop_plugin.py")
    for number in range(tests // 10):
        shutil.copy(CHILDREN / "inert_suite.py", suite / f"test_gen_{number:03d}.py")


def pytest_run(argv: list[str], env: dict[str, str], suite: Path, tests: int) -> Sample:
    sample = run_child([*argv, str(suite)], env, suite, json_report=False)
    if not re.search(rf"\b{tests} passed\b", sample.stdout):
        raise Mismatch(f"expected {tests} passed from {' '.join(argv)}:\n{sample.stdout[-2000:]}")
    return sample


def modules(argv: list[str], env: dict[str, str], suite: Path, tests: int) -> set[str]:
    dump = suite.parent / "modules.txt"
    pytest_run(argv, {**env, "BENCH_MODULES_FILE": str(dump)}, suite, tests)
    return set(dump.read_text().split())


def plugin_import_ms(env: dict[str, str], suite: Path) -> float:
    """Cumulative ``-X importtime`` of the outermost pytest_tempoeval imports, the plugin loaded by
    module name (pytest imports entry points with importlib, which the log leaves out)."""
    argv = [sys.executable, "-X", "importtime", *PYTEST[1:], "-s", "-p", "no:tempoeval"]
    argv += ["-p", PLUGIN_MODULE, str(suite)]
    log = subprocess.run(argv, env=env, cwd=suite, capture_output=True, text=True, check=True)
    lines = re.findall(r"import time:\s+\d+ \|\s+(\d+) \|( +)(\S+)", log.stderr)
    total, outer = 0, None  # outer: the depth of the pytest_tempoeval import being summed
    for cumulative, indent, name in reversed(lines):  # a parent comes after its children
        if outer is not None and len(indent) <= outer:
            outer = None
        if outer is None and name.startswith("pytest_tempoeval"):
            total, outer = total + int(cumulative), len(indent)
    return total / 1000


def run(ctx: Context) -> dict[str, Any]:
    tests = ctx.pick(200, 20)
    suite = ctx.workdir / "suite"
    write_suite(suite, tests)
    rows, added, overhead = [], set(), {}
    for variant in VARIANTS:
        row, overhead[variant], more = measure(ctx, variant, suite, tests)
        rows.append(row)
        added |= more
    import_ms = [plugin_import_ms(ctx.env, suite) for _ in range(ctx.pick(5, 1))]
    table = {
        "title": f"A suite of {tests} trivial tests that never uses the plugin",
        "columns": ["variant", "with the plugin", "without", "paired difference (wall)"]
        + ["paired difference (CPU)", "peak RSS with", "peak RSS without"],
        "rows": rows,
        "note": f"The plugin adds {len(added)} modules, none of {', '.join(FORBIDDEN)}; its own "
        f"import (-X importtime, median of {len(import_ms)}): {median(import_ms):.1f} ms.",
    }
    wall = overhead["autoload"]
    target = {"what": f"paired overhead <= {BUDGET_MS:g} ms ({tests} tests, autoload)"}
    target |= {"value": f"{wall:.1f} ms", "met": wall <= BUDGET_MS}
    return {"params": {"tests": tests}, "tables": [table], "targets": [target]}


def measure(ctx: Context, variant: str, suite: Path, tests: int) -> tuple[list, float, set[str]]:
    """Check the two sides differ by the plugin alone, then time alternating pairs."""
    extra_env, with_args, without_args = VARIANTS[variant]
    env = {**ctx.env, **extra_env}
    if not extra_env:
        env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    with_, without = [*PYTEST, *with_args], [*PYTEST, *without_args]
    loaded, bare = modules(with_, env, suite, tests), modules(without, env, suite, tests)
    heavy = sorted(m for m in loaded if m.split(".")[0] in FORBIDDEN)
    if PLUGIN_MODULE not in loaded or PLUGIN_MODULE in bare or heavy:
        raise Mismatch(
            f"{variant}: plugin loaded with {PLUGIN_MODULE in loaded}, without "
            f"{PLUGIN_MODULE in bare}; heavy modules with it: {heavy}"
        )
    sides = {
        "with": lambda: pytest_run(with_, env, suite, tests),
        "without": lambda: pytest_run(without, env, suite, tests),
    }
    samples = alternate(sides, ctx.repeats)
    pairs = list(zip(samples["with"], samples["without"], strict=True))
    wall = [a.wall - b.wall for a, b in pairs]
    row = [variant, spread([s.wall for s in samples["with"]])]
    row += [spread([s.wall for s in samples["without"]]), spread(wall, "ms", 1000)]
    row += [spread([a.cpu - b.cpu for a, b in pairs], "ms", 1000)]
    row += [spread([s.rss_mib for s in samples[side]], "MiB") for side in sides]
    return row, median(wall) * 1000, loaded - bare
