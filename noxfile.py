"""Compatibility runs: the suite on every supported Python, and once with the lowest versions.

    pipx run nox            # or: pip install nox && nox
    nox -s tests-3.12       # one Python
    nox -s lowest           # the lowest declared versions of the direct dependencies

Each session installs ``.[dev]`` into its own virtualenv and runs the README's test command,
``pytest -n 2`` (arguments after ``--`` replace ``-n 2``). A Python that is not installed is
skipped, not failed: the README's matrix says which ones were run.
"""

from __future__ import annotations

import nox

PYTHONS = ["3.11", "3.12", "3.13"]  # pyproject.toml's classifiers
LOWEST_PYTHON = PYTHONS[0]
SHOWN = ["pytest", "numpy", "pyyaml", "anthropic", "vcrpy"]

nox.options.sessions = ["tests", "lowest"]
nox.options.error_on_missing_interpreters = False

# Each direct dependency with a lower bound must resolve to exactly that bound, or the run does not
# test what pyproject.toml declares (a transitive requirement can lift one).
CHECK_LOWEST = """
import re, sys, tomllib
from importlib.metadata import version
from packaging.version import Version
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
wanted = project["dependencies"] + project["optional-dependencies"]["dev"]
lifted = []
for requirement in wanted:
    match = re.match(r"\\s*([A-Za-z0-9_.-]+)\\s*(?:>=|==)\\s*([0-9][^,;\\s]*)", requirement)
    if match and Version(version(match[1])) != Version(match[2]):
        lifted.append(f"{match[1]}: declared >= {match[2]}, installed {version(match[1])}")
sys.exit("not the lowest versions:\\n  " + "\\n  ".join(lifted) if lifted else 0)
"""


def install(session: nox.Session, *options: str) -> None:
    """``.[dev]`` with uv, then the project again, alone: TempoEval (a dev extra) installs a
    ``tempoeval`` script too, and the package installed last owns the name."""
    session.install("uv")
    environment = {"VIRTUAL_ENV": session.virtualenv.location}
    session.run("uv", "pip", "install", *options, "-e", ".[dev]", env=environment)
    session.run("uv", "pip", "install", "--no-deps", "--reinstall", "-e", ".", env=environment)


def run_suite(session: nox.Session) -> None:
    code = "from importlib.metadata import version as v; print(*(f'{n} {v(n)}' for n in %r))"
    session.run("python", "-c", code % SHOWN)
    session.run("pytest", *(session.posargs or ["-n", "2"]))


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """The suite with the newest releases the dependencies resolve to on this Python."""
    install(session)
    run_suite(session)


@nox.session(python=LOWEST_PYTHON)
def lowest(session: nox.Session) -> None:
    """The suite with the lowest declared version of every direct dependency."""
    install(session, "--resolution", "lowest-direct")
    session.run("python", "-c", CHECK_LOWEST)
    run_suite(session)
