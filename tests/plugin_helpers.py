"""Shared pieces of the plugin's pytester tests."""

import pytest

GOLD_YAML = """\
version: 1
name: tiny
documents:
  a2020: {text: "The 2020 result."}
  a2016: {text: "The 2016 result."}
  a2012: {text: "The 2012 result."}
queries:
  - id: q2020
    text: "What happened in 2020?"
    relevant: {a2020: 3}
  - id: q2016
    text: "What happened in 2016?"
    relevant: {a2016: 3}
"""

# syrupy-style: every integration test runs without xdist, with -n 0 and with -n 2.
XDIST_MODES = [pytest.param([], id="no-xdist"), pytest.param(["-n", "0"], id="n0"), pytest.param(["-n", "2"], id="n2")]


def write_gold(pytester: pytest.Pytester, name: str = "gold.yaml", text: str = GOLD_YAML) -> None:
    pytester.makefile(".yaml", **{name.removesuffix(".yaml"): text})
