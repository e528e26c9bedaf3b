"""Which failed comparisons count as written without ``assert``: exactly those whose value the
calling code throws away (a bare statement), wherever they are."""

from __future__ import annotations

import os

import pytest
from check_recording import recorded

from pytest_tempoeval import GoldSet, Run, assert_ndcg, ndcg

GOLD = GoldSet.from_dict({"queries": [{"id": "q1", "relevant": {"d1": 1}}]})
RUN = Run({"q1": ["x", "d1"]})  # nDCG@2 = 1/log2(3) = 0.6309


def bare(result) -> None:
    result >= 0.99  # noqa: B015 (the forgotten assert this file is about)


def bare_reflected(result) -> None:
    0.99 <= result  # noqa: B015


def bare_chained(result) -> None:
    0.0 <= result >= 0.99  # noqa: B015


def used(result) -> list[bool]:
    kept = result >= 0.99
    assert not (result >= 0.99)
    if result >= 0.99:
        pass
    listed = [result >= 0.99]
    assert not any(result >= t for t in (0.99, 0.98))
    return [kept, *listed]


@pytest.mark.parametrize("statement", [bare, bare_reflected, bare_chained])
def test_a_thrown_away_failed_comparison_is_marked_with_its_line(statement) -> None:
    with recorded() as seen:
        statement(ndcg(RUN, GOLD, k=2))
    failed = [check for check in seen if not check.passed]
    assert len(failed) == 1
    first, *explanation = failed[0].unasserted.splitlines()
    line = statement.__code__.co_firstlineno + 1
    assert first == (
        f"{os.path.relpath(__file__)}:{line}: this metric comparison failed, but it was not "
        "asserted (its value was thrown away): write `assert` before it"
    )
    assert explanation[0].startswith("nDCG@2 [gold] = 0.6309, needed >= 0.99; 1 query counted")


def test_a_used_or_raised_failed_comparison_is_not() -> None:
    with recorded() as seen:
        assert used(ndcg(RUN, GOLD, k=2)) == [False, False]
        with pytest.raises(AssertionError):
            assert_ndcg(RUN, GOLD, k=2) >= 0.99  # noqa: B015 (raises by itself)
        ndcg(RUN, GOLD, k=2) >= 0.5  # noqa: B015 (passed: nothing to fail)
    assert len(seen) == 8
    assert [check.unasserted for check in seen] == [""] * 8
