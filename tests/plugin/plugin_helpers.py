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

# Every integration test runs in one process (no -n) and with -n 2 (two workers and a
# controller). xdist is loaded in every inner session (tests/conftest.py's PYTEST_PLUGINS), so
# "-n 0" ran exactly what no -n runs (no worker, the same hooks): it was a third copy of the
# serial proof and is no longer a mode.
XDIST_MODES = [
    pytest.param([], id="no-xdist"),
    pytest.param(["-n", "2"], id="n2"),
]


def write_gold(pytester: pytest.Pytester, name: str = "gold.yaml", text: str = GOLD_YAML) -> None:
    pytester.makefile(".yaml", **{name.removesuffix(".yaml"): text})


# -- a suite with baselines: 12 queries, so the gate's randomization test applies ------------------

QUERIES = 12
BASELINE_GOLD = (
    "version: 1\ndocuments:\n"
    + "".join(
        f'  d{i}: {{text: "Report of {2000 + i}."}}\n  x{i}: {{text: "Something else."}}\n'
        for i in range(QUERIES)
    )
    + "queries:\n"
    + "".join(
        f'  - id: q{i:02d}\n    text: "What happened in {2000 + i}?"\n    relevant: {{d{i}: 3}}\n'
        for i in range(QUERIES)
    )
)
# WORSE queries get their relevant document at rank 2 instead of 1: nDCG@2 1.0 -> 1/log2(3) = 0.631.
BASELINE_TESTS = """
import os
import pytest
from pytest_tempoeval import Run, ndcg

def run_for(gold):
    worse = int(os.environ.get("WORSE", "0"))
    return Run({q: ([f"x{i}", f"d{i}"] if i < worse else [f"d{i}", f"x{i}"]) \
for i, q in enumerate(sorted(gold.queries))})

@pytest.mark.tempoeval(gold="gold.yaml")
def test_gate(tempoeval_gold, tempoeval_baseline):
    tempoeval_baseline.check(ndcg(run_for(tempoeval_gold), tempoeval_gold, \
k=int(os.environ.get("K", "2"))))

@pytest.mark.tempoeval(gold="gold.yaml")
def test_other(tempoeval_gold, tempoeval_baseline):
    tempoeval_baseline.check(ndcg(run_for(tempoeval_gold), tempoeval_gold, k=2))
"""


def make_baseline_suite(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> pytest.Pytester:
    """Two tests checking nDCG@2 against baselines in ``base/``; env WORSE and K change their
    runs."""
    monkeypatch.delenv("WORSE", raising=False)
    monkeypatch.delenv("K", raising=False)
    pytester.makeini("[pytest]\ntempoeval_baseline_dir = base\n")
    pytester.makefile(".yaml", gold=BASELINE_GOLD)
    pytester.makepyfile(test_module=BASELINE_TESTS)
    return pytester
