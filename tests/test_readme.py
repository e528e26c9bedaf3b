"""The README says what the commands print: its worked example is run and compared."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


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


def fenced_after(heading: str) -> list[str]:
    """The fenced blocks that follow the paragraph starting with ``heading``, up to the next one."""
    section = README.split(heading, 1)[1]
    return re.findall(r"```(?:python|)\n(.*?)```", section, re.DOTALL)


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
    shown = fenced_after("At the end of the session a `tempoeval` section")[0]
    output = run_pytest(example_project, "examples")
    section = output[output.index("=" * 34 + " tempoeval ") :].split("\n=====", 1)[0]
    printed = [line.rstrip() for line in section.splitlines() if line.strip()]
    assert "\n".join(printed) + "\n" == shown
