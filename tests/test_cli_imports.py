"""What ``tempoeval evaluate`` imports. At 1,000 queries a whole evaluation is mostly start-up (the
trec_eval binary takes about 50 ms), so the command imports only what the asked measures and the
given file formats need: these tests name the modules a run must not load, never a time.

Each case runs the command in a fresh interpreter, as ``python -m pytest_tempoeval`` does, and
reads the modules loaded when it exits.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "trec_eval"
QRELS, RUN = str(DATA / "qrels.test"), str(DATA / "results.test")
GOLD_YAML = str(Path(__file__).parent.parent / "examples" / "gold" / "mini_elections.yaml")
MEASURES = ["map", "P_5", "P_10", "recall_100", "recip_rank", "ndcg_cut_10"]

# Runs the command as `python -m pytest_tempoeval` does, and writes the names of the modules
# loaded at exit (after the command's SystemExit) to the file named by its first argument.
PROBE = """
import atexit, runpy, sys
listing = sys.argv.pop(1)

def write_modules():
    with open(listing, "w") as file:
        file.write("\\n".join(sorted(sys.modules)))

atexit.register(write_modules)
sys.argv[0] = "tempoeval"
runpy.run_module("pytest_tempoeval", run_name="__main__", alter_sys=True)
"""


def modules_after(tmp_path: Path, *argv: str) -> set[str]:
    """The modules loaded by ``tempoeval ARGV...`` when it exits (it must exit 0)."""
    listing = tmp_path / "modules.txt"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(listing), *argv],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout, "the command printed nothing"
    return set(listing.read_text().split())


@pytest.fixture(scope="module")
def trec_evaluate(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    """The modules of the benchmark's command: a TREC run and qrels, trec_eval's measures."""
    tmp = tmp_path_factory.mktemp("trec")
    return modules_after(tmp, "evaluate", RUN, QRELS, "--format", "trec", "-m", *MEASURES)


def test_the_probe_sees_what_the_command_imports(trec_evaluate: set[str]) -> None:
    """The listing is the command's: its reader, scorer and numpy are in it."""
    assert {
        "numpy",
        "pytest_tempoeval.cli",
        "pytest_tempoeval.data.readers.trec",
        "pytest_tempoeval.metrics.scoring",
    } <= trec_evaluate


def test_a_file_of_one_block_starts_no_thread_pool(trec_evaluate: set[str]) -> None:
    """concurrent.futures (with logging and queue) is for files of more than one block."""
    assert "concurrent.futures" not in trec_evaluate
    assert "logging" not in trec_evaluate


def test_trec_files_need_no_gold_set_schema_nor_yaml_or_json_reader(
    trec_evaluate: set[str],
) -> None:
    """A TREC run and qrels are read by the TREC tokeniser only: the YAML/JSON gold-set schema,
    its line-numbered readers, corpora and PyYAML are for the other formats."""
    for module in (
        "pytest_tempoeval.data.readers.structured",
        "pytest_tempoeval.data.gold_schema",
        "pytest_tempoeval.data.corpus",
        "yaml",
    ):
        assert module not in trec_evaluate, module


def test_a_yaml_gold_set_loads_its_schema(tmp_path: Path) -> None:
    """The other side: a YAML gold set does import its reader and schema (the probe sees lazy
    imports when they happen)."""
    run = tmp_path / "run.trec"
    run.write_text("us-2016 Q0 us2016 1 2.0 r\n")
    modules = modules_after(tmp_path, "evaluate", str(run), GOLD_YAML, "-m", "P@2")
    assert {"pytest_tempoeval.data.gold_schema", "pytest_tempoeval.data.readers.structured"} <= (
        modules
    )


def test_gold_mode_needs_no_focus_time_index_nor_judge(trec_evaluate: set[str]) -> None:
    """trec_eval's measures score gold judgments: the focus-time index (and focus times) and the
    LLM judge's modules are for the temporal and llm modes."""
    for module in (
        "pytest_tempoeval.metrics.focus_index",
        "pytest_tempoeval.data.focus_time",
        "pytest_tempoeval.metrics.llm_judgments",
        "pytest_tempoeval.metrics.llm_prompts",
    ):
        assert module not in trec_evaluate, module


def test_printed_results_load_no_check_recorder(trec_evaluate: set[str]) -> None:
    """The recorder of threshold checks is for comparisons (``assert result >= 0.8``): a command
    that prints its results never compares them."""
    assert "pytest_tempoeval.metrics.checks" not in trec_evaluate


def test_trec_lines_of_chosen_measures_need_no_trec_eval_command(trec_evaluate: set[str]) -> None:
    """``evaluate -m ... --format trec`` prints through trec_eval_output: the trec_eval command's
    flags, query rules and getopt are for ``tempoeval trec_eval`` and trec_eval's default set."""
    assert "pytest_tempoeval.trec_eval_output" in trec_evaluate
    assert "pytest_tempoeval.trec_eval_cli" not in trec_evaluate
    assert "getopt" not in trec_evaluate


def test_trec_lines_need_no_explanation_wording_nor_json(trec_evaluate: set[str]) -> None:
    """The trec format prints numbers: the explanations' wording (the text format's notes, the
    failures') and the json module (the json format's) are not loaded for it."""
    assert "pytest_tempoeval.metrics.explain" not in trec_evaluate
    assert "json" not in trec_evaluate


@pytest.mark.parametrize(
    ("output", "module"), [("text", "pytest_tempoeval.metrics.explain"), ("json", "json")]
)
def test_the_formats_that_need_them_load_them(tmp_path: Path, output: str, module: str) -> None:
    """The other side: the text format's notes are worded by metrics.explain, the json format is
    written by json."""
    modules = modules_after(tmp_path, "evaluate", RUN, QRELS, "--format", output, "-m", "P_5")
    assert module in modules


def test_a_temporal_measure_loads_the_focus_time_index(tmp_path: Path) -> None:
    """The other side: a focus-time measure imports the index it scores with."""
    run = tmp_path / "run.trec"
    run.write_text("us-2016 Q0 us2016 1 2.0 r\n")
    modules = modules_after(tmp_path, "evaluate", str(run), GOLD_YAML, "-m", "T-nDCG@2")
    assert "pytest_tempoeval.metrics.focus_index" in modules


def test_the_garbage_collector_pauses_during_a_command_and_resumes() -> None:
    """A command makes arrays and modules, not garbage cycles: the collector, whose passes go over
    every imported object, is off while it runs, and as it was afterwards, even after an error."""
    from pytest_tempoeval.cli import main

    collections: list[str] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(phase)

    gc.callbacks.append(count)
    try:
        assert gc.isenabled()
        assert main(["evaluate", RUN, QRELS, "--format", "trec", "-m", *MEASURES]) == 0
        assert collections == []
        assert gc.isenabled()
        with pytest.raises(SystemExit):
            main(["evaluate", RUN, str(DATA / "no such file"), "-m", "P@5"])
        assert gc.isenabled()
        gc.disable()
        try:
            main(["evaluate", RUN, QRELS, "-m", "P@5"])
            assert not gc.isenabled()
        finally:
            gc.enable()
    finally:
        gc.callbacks.remove(count)


# Prints a line to stderr at every garbage collection that starts once the command's module is
# imported, the interpreter's last one at exit included.
COLLECTIONS_PROBE = """
import gc, runpy, sys
import pytest_tempoeval.cli

def report(phase, info):
    if phase == "start":
        sys.stderr.write("collection of generation %d\\n" % info["generation"])

gc.callbacks.append(report)
sys.argv[0] = "tempoeval"
runpy.run_module("pytest_tempoeval", run_name="__main__", alter_sys=True)
"""


def test_a_command_line_run_never_collects_garbage() -> None:
    """Run as a process (``tempoeval ...``), the command ends the interpreter: no collection while
    it runs, and none over every object at exit."""
    argv = ["evaluate", RUN, QRELS, "--format", "trec", "-m", *MEASURES]
    done = subprocess.run(
        [sys.executable, "-c", COLLECTIONS_PROBE, *argv],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout
    assert "collection of generation" not in done.stderr


# Prints, at exit, the number of BLAS threads the command left numpy to start.
BLAS_PROBE = """
import atexit, os, runpy, sys
atexit.register(lambda: sys.stderr.write("BLAS %s\\n" % os.environ.get("OPENBLAS_NUM_THREADS")))
sys.argv[0] = "tempoeval"
runpy.run_module("pytest_tempoeval", run_name="__main__", alter_sys=True)
"""


@pytest.mark.parametrize(("chosen", "expected"), [(None, "1"), ("3", "3")])
def test_numpy_starts_one_blas_thread_unless_the_user_chose(
    chosen: str | None, expected: str
) -> None:
    """OpenBLAS starts a spinning thread per core when numpy is imported: a command's matrix
    products are too small to share, so it asks for one, unless OPENBLAS_NUM_THREADS says."""
    env = {key: value for key, value in os.environ.items() if key != "OPENBLAS_NUM_THREADS"}
    if chosen is not None:
        env["OPENBLAS_NUM_THREADS"] = chosen
    argv = ["evaluate", RUN, QRELS, "--format", "trec", "-m", *MEASURES]
    done = subprocess.run(
        [sys.executable, "-c", BLAS_PROBE, *argv],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert f"BLAS {expected}\n" in done.stderr


def test_a_command_called_in_process_leaves_the_environment_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """main(argv) from Python (a test, a script) runs in a process that goes on: no setting of
    its environment outlives the call."""
    from pytest_tempoeval.cli import main

    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    assert main(["evaluate", RUN, QRELS, "--format", "trec", "-m", "P_5"]) == 0
    assert "OPENBLAS_NUM_THREADS" not in os.environ


# A module global with a finaliser: it says so when the interpreter tears its modules down.
TEARDOWN_PROBE = """
import atexit, runpy, sys

class Noisy:
    def __del__(self):
        sys.stderr.write("modules torn down\\n")

kept = Noisy()
atexit.register(lambda: sys.stderr.write("exit handlers ran\\n"))
sys.argv[0] = "tempoeval"
runpy.run_module("pytest_tempoeval", run_name="__main__", alter_sys=True)
"""


@pytest.mark.parametrize(
    ("argv", "status", "said"),
    [
        (["evaluate", RUN, QRELS, "--format", "trec", "-m", "P_5", "map"], 0, "P_5"),
        (["evaluate", RUN, str(DATA / "no such file"), "-m", "P_5"], 2, "tempoeval: error: "),
        (["evaluate", RUN], 2, "usage: tempoeval evaluate"),
        (["--help"], 0, "usage: tempoeval"),
    ],
    ids=["scores", "bad-input", "usage-error", "help"],
)
def test_a_command_line_run_ends_without_tearing_down_its_modules(
    argv: list[str], status: int, said: str
) -> None:
    """The process ends as a normal exit would (same status, every line out, the exit handlers
    run), without freeing every module and object on the way out: 5% of a 1,000-query run."""
    done = subprocess.run(
        [sys.executable, "-c", TEARDOWN_PROBE, *argv],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == status, done.stderr
    assert said in done.stdout + done.stderr
    if status == 0 and argv[0] == "evaluate":
        assert [line.split()[0] for line in done.stdout.splitlines()] == ["P_5", "map"]
    assert "exit handlers ran" in done.stderr
    assert "modules torn down" not in done.stderr


def test_with_another_thread_running_the_process_ends_the_normal_way() -> None:
    """A thread still running is the normal exit's to wait for: no shortcut then."""
    import threading

    from pytest_tempoeval.cli import _end_process

    release = threading.Event()
    waiting = threading.Thread(target=release.wait)
    waiting.start()
    try:
        _end_process(0)  # returns: were it to end the process, this test would never finish
    finally:
        release.set()
        waiting.join()
