"""Parallel safety: under xdist, every file the plugin writes (baselines, cassettes, JSON, markdown
and HTML reports) is byte-identical to a serial run's, and eight tests recorded by two workers at
the same time leave eight whole cassettes.

Two workers (-n 2), not four: what is proved is that a file is the same whichever process wrote it
and in whatever order the tests ended, which two workers splitting the eight tests between them
already make happen (both write into the same folders at the same time). Each extra recording
worker imports the SDK (about 3 s of CPU) and adds no other kind of case."""

from pathlib import Path

import pytest
import yaml
from plugin_helpers import BASELINE_GOLD, QUERIES

from pytest_tempoeval.testing import FakeMessagesServer

TESTS = """
import pytest
from pytest_tempoeval import Run, ndcg, temporal_ndcg

@pytest.mark.tempoeval(gold="gold.yaml")
@pytest.mark.parametrize("worse", range(8))
def test_case(tempoeval_gold, tempoeval_baseline, tempoeval_judge, worse):
    run = Run({q: ([f"x{i}", f"d{i}"] if i < worse else [f"d{i}", f"x{i}"]) \
for i, q in enumerate(sorted(tempoeval_gold.queries))})
    assert ndcg(run, tempoeval_gold, k=2) >= 0.5
    tempoeval_baseline.check(ndcg(run, tempoeval_gold, k=2))
    tempoeval_baseline.check(temporal_ndcg(run, tempoeval_gold, k=2, mode="llm", \
judge=tempoeval_judge))
"""
REPORTS = (
    "--tempoeval-report=out/report.json",
    "--tempoeval-markdown=out/report.md",
    "--tempoeval-html=out/report.html",
)
WRITTEN = ("base", "fixtures", "out")  # every directory the plugin writes to here


def snapshot(root: Path) -> dict[str, bytes]:
    files = {}
    for directory in WRITTEN:
        for path in sorted((root / directory).rglob("*")):
            if path.is_file():
                files[path.relative_to(root).as_posix()] = path.read_bytes()
    return files


def clear(root: Path) -> None:
    import shutil

    for directory in WRITTEN:
        shutil.rmtree(root / directory, ignore_errors=True)


@pytest.mark.usefixtures("judge_sdk_stays_loaded")  # the serial runs record in-process
def test_xdist_writes_the_same_files_as_a_serial_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeini("[pytest]\ntempoeval_baseline_dir = base\n")
    pytester.makefile(".yaml", gold=BASELINE_GOLD)
    pytester.makepyfile(test_parallel=TESTS)
    runs = {}
    with FakeMessagesServer() as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-sentinel-parallel")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        for name, xdist in (("serial", []), ("n2", ["-n", "2"])):
            clear(pytester.path)
            result = pytester.runpytest(
                *xdist, "--tempoeval-update-baseline", "--tempoeval-record-mode=once", *REPORTS
            )
            result.assert_outcomes(passed=8)
            runs[name] = snapshot(pytester.path)
        requests = len(server.requests)
    assert requests == 2 * 8 * 2 * QUERIES  # each run: 8 tests x 12 queries x 2 documents judged
    serial, parallel = runs["serial"], runs["n2"]
    assert sorted(serial) == sorted(parallel)
    assert len([name for name in serial if name.startswith("fixtures/cassettes/")]) == 8
    assert len([name for name in serial if name.startswith("base/")]) == 8
    different = [name for name in serial if serial[name] != parallel[name]]
    assert different == []

    # Eight tests recorded by two workers at once: eight whole cassettes, each with its 24
    # judgments.
    for name, content in parallel.items():
        if name.startswith("fixtures/cassettes/"):
            assert len(yaml.safe_load(content)["interactions"]) == 2 * QUERIES, name

    # Replayed offline with -n 2, against the baselines just written: every gate passes, and the
    # reports equal a serial replay's.
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.delenv("ANTHROPIC_BASE_URL")
    replays = {}
    for name, xdist in (("serial", []), ("n2", ["-n", "2"])):
        pytester.runpytest(*xdist, *REPORTS).assert_outcomes(passed=8)
        replays[name] = {k: v for k, v in snapshot(pytester.path).items() if k.startswith("out/")}
    assert replays["serial"] == replays["n2"]
    assert {k: v for k, v in snapshot(pytester.path).items() if not k.startswith("out/")} == {
        k: v for k, v in parallel.items() if not k.startswith("out/")
    }  # a replay writes no cassette and no baseline
