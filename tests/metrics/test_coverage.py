"""Every measure of ir_measures' registry and of trec_eval 10's measure table is either read by the
measure grammar or listed as not supported, with why (metrics/not_supported.py, whose table
docs/measures.md shows)."""

from __future__ import annotations

import pytest

from pytest_tempoeval.errors import MetricError
from pytest_tempoeval.metrics.measures import parse_measure, trec_eval_name
from pytest_tempoeval.metrics.not_supported import NOT_SUPPORTED
from pytest_tempoeval.trec_eval_measures import GROUPS, ROOT, ROOTS, expand_measures

ir_measures = pytest.importorskip("ir_measures")

# Printed by tempoeval trec_eval itself: the run's tag and the grades of the top N, not scores.
NOT_SCORES = {"runid", "relstring"}


def reads(name: str) -> bool:
    """Whether the grammar reads ``name`` alone or with a cutoff (IPrec needs its @level)."""
    for text in (name, f"{name}@10", f"{name}@0.5"):
        try:
            parse_measure(text)
        except MetricError:
            continue
        return True
    return False


@pytest.mark.parametrize("name", sorted(ir_measures.measures.registry))
def test_each_ir_measures_measure_is_read_or_listed_with_why(name: str) -> None:
    if name in NOT_SUPPORTED:
        assert NOT_SUPPORTED[name][0] == "ir_measures"
        assert not reads(name)
    else:
        assert reads(name), f"{name} is neither read nor listed in metrics/not_supported.py"


@pytest.mark.parametrize("root", [root.name for root in ROOTS if root.name not in NOT_SCORES])
def test_each_trec_eval_measure_is_read_or_listed_with_why(root: str) -> None:
    printed = [line.name for line in expand_measures([root])]
    if root in NOT_SUPPORTED:
        assert NOT_SUPPORTED[root][0] == "trec_eval"
        for name in printed:
            with pytest.raises(MetricError, match=r"is not supported: "):
                parse_measure(name)
    else:
        for name in printed:  # as trec_eval prints it, and back (the drop-in's contract)
            assert trec_eval_name(parse_measure(name)) == name


def test_every_all_trec_measure_is_supported() -> None:
    printed = [line.name for line in expand_measures(["all_trec"])]
    # trec_eval's own out.test.a has 99 lines: relstring is printed per query only (-q)
    assert len(printed) == 100 and printed.count("relstring") == 1
    assert [name for name in printed if name not in NOT_SCORES and not reads(name)] == []
    assert all(member in ROOT for member in GROUPS["all_trec"])


def test_the_list_names_nothing_the_grammar_reads() -> None:
    """A measure added later must leave the list: a stale entry would refuse it."""
    known = set(ir_measures.measures.registry) | set(ROOT)
    for name in NOT_SUPPORTED:
        assert name in known, f"{name}: neither ir_measures nor trec_eval has it"
        with pytest.raises(MetricError, match=rf"{name} is not supported: "):
            parse_measure(name)
