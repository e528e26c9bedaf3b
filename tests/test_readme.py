"""The README and the docs say what the commands print: their examples are run and compared.

The README keeps the worked example, a failing threshold and the commands; the pages under docs/
keep the rest (the session summary, the drop-in classes, the command line), read the same way.
"""

from __future__ import annotations

import contextlib
import glob
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def page(name: str) -> str:
    """A page of docs/, read as the README is."""
    return (ROOT / "docs" / name).read_text(encoding="utf-8")


def worked_example() -> list[str]:
    section = README.split("## Worked example", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```(?:yaml|python|)\n(.*?)```", section, re.DOTALL)


def test_the_yaml_shown_is_the_file() -> None:
    shown, _, _ = worked_example()
    file = ROOT / "examples" / "gold" / "mini_elections.yaml"
    assert yaml.safe_load(shown) == yaml.safe_load(file.read_text(encoding="utf-8"))


def test_the_worked_example_prints_what_the_readme_shows() -> None:
    _, code, output = worked_example()
    printed, namespace = io.StringIO(), {}
    cwd = Path.cwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(code, "README.md", "exec"), namespace)  # noqa: S102 (the README's own code)
    finally:
        os.chdir(cwd)
    assert printed.getvalue() == output
    shown = re.search(r"# a float: (\S+)", code)
    assert shown is not None and float(namespace["result"]) == float(shown.group(1))


def fenced_after(heading: str, text: str = README, language: str = "python|") -> list[str]:
    """The fenced blocks that follow the paragraph starting with ``heading`` in ``text``."""
    section = text.split(heading, 1)[1]
    return re.findall(rf"```(?:{language})\n(.*?)```", section, re.DOTALL)


@pytest.fixture(scope="module")
def example_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the examples with their fixtures and pytest configuration, to run pytest in."""
    project = tmp_path_factory.mktemp("readme")
    for folder in ("examples", "fixtures"):
        shutil.copytree(ROOT / folder, project / folder)
    shutil.copy(ROOT / "pyproject.toml", project / "pyproject.toml")
    return project


def run_pytest(project: Path, *args: str) -> str:
    environment = {**os.environ, "COLUMNS": "80"}
    # pytest prints differently on CI (no truncation, another assertion prefix) when CI or
    # BUILD_NUMBER is set; the README shows what a developer sees in a terminal
    for name in ("PYTEST_ADDOPTS", "CI", "BUILD_NUMBER"):
        environment.pop(name, None)
    command = [sys.executable, "-m", "pytest", *args]
    # check=False: the failure example exits 1 on purpose; its output is what is compared
    done = subprocess.run(
        command, check=False, cwd=project, env=environment, capture_output=True, text=True
    )
    return done.stdout


def failure_block(output: str) -> str:
    """The failure of ``examples/test_bm25.py`` in pytest's output: its source to its location."""
    lines = [line.rstrip() for line in output.splitlines()]
    start = next(i for i, line in enumerate(lines) if line.startswith("    def test_bm25"))
    end = lines.index("examples/test_bm25.py:11: AssertionError")
    return "\n".join(lines[start : end + 1]) + "\n"


def failure_parts(block: str) -> tuple[list[str], list[str]]:
    """A failure's frame (source lines, location) and the plugin's message, line by line.

    The message loses what pytest puts around it: the ``E`` column, ``AssertionError: assert``
    (its wording changes with the verbosity), and when it truncates, the '...' on the last line
    kept, a blank line and a notice (whose wording changes between pytest releases).
    """
    lines = block.splitlines()
    frame = [line for line in lines if not line.startswith("E")]
    message = [line[1:] for line in lines if line.startswith("E")]
    message[0] = re.sub(r"^\s+(AssertionError: )?assert ", "", message[0])
    if len(message) > 2 and not message[-2].strip() and message[-3].endswith("..."):
        message = message[:-2]
        message[-1] = message[-1].removesuffix("...")
    return frame, message


def test_the_failure_shown_is_what_pytest_prints(example_project: Path) -> None:
    test_file, failure = fenced_after("A failing threshold")[:2]
    (example_project / "examples" / "test_bm25.py").write_text(test_file, encoding="utf-8")
    try:
        printed = failure_block(run_pytest(example_project, "examples/test_bm25.py"))
        untruncated = failure_block(run_pytest(example_project, "-vv", "examples/test_bm25.py"))
    finally:
        (example_project / "examples" / "test_bm25.py").unlink()
    shown_frame, shown = failure_parts(failure)
    printed_frame, printed_message = failure_parts(printed)
    full = failure_parts(untruncated)[1]
    assert shown_frame == printed_frame
    # The essentials are the first line, shown whole at the default verbosity; the lines after
    # it are the plugin's, as far as pytest's truncation lets them through.
    assert shown[0] == printed_message[0] == full[0]
    for message in (shown, printed_message):
        assert len(message) > 2
        assert [full[i][: len(line)] for i, line in enumerate(message)] == message


def test_the_summary_shown_is_what_pytest_examples_prints(example_project: Path) -> None:
    shown = fenced_after("At the end of the session a `tempoeval` section", page("plugin.md"))[0]
    output = run_pytest(example_project, "examples")
    section = output[output.index("=" * 34 + " tempoeval ") :].split("\n=====", 1)[0]
    printed = [line.rstrip() for line in section.splitlines() if line.strip()]
    assert "\n".join(printed) + "\n" == shown


def test_the_quick_start_is_two_commands_and_the_second_is_what_ci_runs() -> None:
    """A fresh machine needs two commands: install and run the examples, install and test. CI
    (.ci/run) runs exactly the README's test command, so the README cannot drift from it."""
    (block,) = fenced_after("## Quick start", language="bash")[:1]
    commands = [line for line in block.splitlines() if line.strip() and not line.startswith("#")]
    assert commands[0] == "pip install -e . && pytest examples"
    assert len(commands) == 2 and commands[1].startswith('pip install -e ".[dev]" && ')
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert commands[1].split(" && ", 1)[1] == ci[-1]


def test_the_drop_in_classes_give_the_values_the_docs_show() -> None:
    """docs/metrics.md shows what each drop-in call returns in a trailing comment."""
    (code,) = fenced_after("## Drop-in replacements", page("metrics.md"))[:1]
    namespace: dict[str, object] = {}
    calls = 0
    for line in code.splitlines():
        statement, _, shown = line.partition("  # ")
        if statement.startswith(("from ", "import ")):
            exec(statement, namespace)  # noqa: S102 (the docs' own code)
        elif statement.strip():
            assert eval(statement, namespace) == pytest.approx(float(shown))
            calls += 1
    assert calls == 2


def trec_lines(rankings: dict[str, list[str]]) -> str:
    return "".join(
        f"{query} Q0 {doc} {rank} {100 - rank} run\n"
        for query, docs in rankings.items()
        for rank, doc in enumerate(docs, 1)
    )


@pytest.fixture
def command_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The files the shown ``tempoeval`` commands name, in the current folder: trec_eval's test
    run and qrels, three equal runs of the worked example and its gold set, and the example gold
    sets under fixtures/gold/."""
    data = ROOT / "tests" / "data" / "trec_eval"
    shutil.copy(data / "results.test", tmp_path / "run.trec")
    shutil.copy(data / "qrels.test", tmp_path / "qrels.txt")
    gold = ROOT / "examples" / "gold"
    shutil.copy(gold / "mini_elections.yaml", tmp_path / "gold.yaml")
    run = trec_lines({"us-2020": ["us2020", "us2016"], "us-2016": ["us2016", "campaign"]})
    for name in ("bm25.trec", "reranker.trec", "dense.trec"):
        (tmp_path / name).write_text(run, encoding="utf-8")
    shutil.copytree(gold, tmp_path / "fixtures" / "gold")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def shown_commands(text: str, heading: str) -> list[list[str]]:
    """The ``tempoeval`` command lines of the first bash block after ``heading``, as argv."""
    (block,) = fenced_after(heading, text, language="bash")[:1]
    commands = []
    for line in block.splitlines():
        words = shlex.split(line, comments=True)
        if words and words[0] == "tempoeval":
            commands.append([arg for word in words[1:] for arg in glob.glob(word) or [word]])
    return commands


@pytest.mark.parametrize(
    ("source", "heading"),
    [("README.md", "### The command line"), ("docs/cli.md", "# Command line")],
)
def test_every_command_shown_runs(
    command_files: Path, capsys: pytest.CaptureFixture[str], source: str, heading: str
) -> None:
    """Each shown ``tempoeval`` command runs on files of the names it gives and exits 0."""
    from pytest_tempoeval.cli import main

    commands = shown_commands((ROOT / source).read_text(encoding="utf-8"), heading)
    assert len(commands) >= 3
    for argv in commands:
        code = main(argv)
        assert code == 0, (argv, capsys.readouterr())
