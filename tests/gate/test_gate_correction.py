"""Holm's correction of the baseline gate: the family-wise false-alarm rate of a session."""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from pytest_tempoeval.gate.randomization import holm_adjusted, paired_randomization_p

ALPHA = 0.05


def test_holm_adjusted_p_values_by_hand() -> None:
    # Sorted: 0.005 (x4 = 0.02), 0.01 (x3 = 0.03), 0.03 (x2 = 0.06), 0.04 (x1, raised to 0.06).
    assert holm_adjusted([0.01, 0.04, 0.03, 0.005]) == [0.03, 0.06, 0.06, 0.02]
    assert holm_adjusted([0.5]) == [0.5]
    assert holm_adjusted([]) == []
    assert holm_adjusted([0.4, 0.3]) == [0.6, 0.6]


@given(st.lists(st.floats(1e-6, 1.0), min_size=1, max_size=30))
def test_holm_lies_between_the_raw_p_values_and_bonferroni(p_values: list[float]) -> None:
    adjusted = holm_adjusted(p_values)
    m = len(p_values)
    for raw, holm in zip(p_values, adjusted, strict=True):
        assert raw <= holm + 1e-15 <= min(1.0, m * raw) + 2e-15
    order = sorted(range(m), key=lambda i: p_values[i])  # monotone in the raw p-values
    assert all(adjusted[a] <= adjusted[b] for a, b in itertools.pairwise(order))


def no_change_sessions(sessions: int, checks: int, queries: int, seed: int) -> list[list[float]]:
    """p-values of sessions in which nothing changed: per check, baseline and current per-query
    scores are the same true scores plus independent noise (exchangeable, as the null says)."""
    rng = np.random.default_rng(seed)
    result = []
    for _ in range(sessions):
        p_values = []
        for _ in range(checks):
            true = rng.uniform(0, 1, queries)
            baseline = np.clip(true + rng.normal(0, 0.1, queries), 0, 1)
            current = np.clip(true + rng.normal(0, 0.1, queries), 0, 1)
            p_values.append(
                paired_randomization_p(
                    baseline, current, permutations=1000, seed=int(rng.integers(1 << 31))
                )
            )
        result.append(p_values)
    return result


def test_holm_keeps_the_family_wise_false_alarm_rate_at_alpha() -> None:
    """600 sessions of 15 gated checks, nothing changed. Uncorrected, a session raises a false alarm
    when any check has p < 0.05: about 1 - 0.95**15 = 54% of sessions. With Holm, a session raises
    one when any adjusted p < 0.05: at most 5%. With 600 sessions, a true rate of 5% exceeds 43
    alarms (7.2%) with probability under 0.1%, so the bound below is alpha, with room for chance."""
    sessions = no_change_sessions(600, 15, 30, seed=20261123)
    uncorrected = sum(min(p_values) < ALPHA for p_values in sessions) / len(sessions)
    corrected = sum(min(holm_adjusted(p_values)) < ALPHA for p_values in sessions) / len(sessions)
    expected = 1 - (1 - ALPHA) ** 15
    assert abs(uncorrected - expected) < 0.07, uncorrected  # measured: the problem is real
    binomial_sd = math.sqrt(ALPHA * (1 - ALPHA) / len(sessions))
    assert corrected <= ALPHA + 3.1 * binomial_sd, corrected
    assert corrected < uncorrected / 5
