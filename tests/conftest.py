"""Test-suite setup.

pytester's in-process runs unload every module first imported during the inner run. numpy refuses
to load twice in one process, and PyYAML's C parser keeps references to the ``yaml.events`` classes
of its first import. Importing the package's modules here keeps them (and numpy, yaml) loaded for
the whole suite; a real pytest session never unloads them.
"""

import importlib
import os
import pkgutil

import numpy  # noqa: F401
import pytest
import yaml  # noqa: F401
from hypothesis import HealthCheck, settings

import pytest_tempoeval

for _module in pkgutil.walk_packages(pytest_tempoeval.__path__, "pytest_tempoeval."):
    if _module.name != "pytest_tempoeval.__main__":  # running it is the command line
        importlib.import_module(_module.name)

# Hypothesis profiles. ``ci`` (the default) keeps the suite quick and steady: derandomized, so a
# commit's verdict does not depend on the draw (twice a random draw found a loader bug in an
# unrelated change's CI run). ``fuzz`` is the long, random run of
# tests/reliability/test_fuzz_loaders.py (HYPOTHESIS_PROFILE=fuzz) that looks for new bugs. Tests
# with their own @settings(max_examples=...) keep their count under both. No deadline: a per-example
# time limit is a wall-clock assert, and a loaded CI machine (or a lazy import in the first
# example) made it fail tests whose values were right.
settings.register_profile("ci", max_examples=200, derandomize=True, deadline=None)
settings.register_profile(
    "fuzz", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _inner_sessions_load_only_what_they_test(request: pytest.FixtureRequest) -> None:
    """pytester's inner sessions (and their xdist workers) load this plugin and xdist only.

    Autoloading every installed plugin costs an inner session about 3 s here, most of it
    langsmith's (installed with langchain-core, a dev extra): the suite's time went to plugins the
    tests never use. Tests of loading through the entry point (test_inert.py) opt out with
    ``@pytest.mark.autoload``.
    """
    if "pytester" not in request.fixturenames or request.node.get_closest_marker("autoload"):
        return
    monkeypatch = request.getfixturevalue("monkeypatch")
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("PYTEST_PLUGINS", "pytest_tempoeval.plugin,xdist.plugin,xdist.looponfail")


@pytest.fixture(scope="session")
def judge_sdk_stays_loaded() -> None:
    """Imports the anthropic SDK and vcrpy once per process, for tests whose pytester sessions
    record judgments in-process. Those sessions unload every module they first import (see the
    top of this file): each would import the SDK and vcrpy again, about 3 s of CPU every time."""
    import anthropic  # noqa: F401
    import vcr  # noqa: F401
