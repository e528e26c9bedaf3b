"""The paired randomization test behind the baseline gate (pure functions over arrays).

Convention: one-sided, for a *drop*. The statistic is the mean per-query difference
``current - baseline``. Under "no change" each query's difference is as likely to have either sign
(the two systems are exchangeable per query), so the null distribution comes from flipping signs.
The p-value is the share of sign assignments whose mean is at most the observed one, counting the
observed assignment itself (so p is never 0):

- with ``2**n <= permutations`` every assignment is enumerated: the exact p-value;
- otherwise ``permutations`` random assignments from ``numpy.random.default_rng(seed)``, and
  ``p = (1 + hits) / (1 + permutations)`` (Phipson & Smyth), the same for the same inputs.

This is the test Smucker, Allan and Carterette (CIKM 2007) recommend for IR evaluation: it assumes
nothing about the score distribution, and nDCG per query is bounded and often bimodal.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

DEFAULT_PERMUTATIONS = 10_000
DEFAULT_SEED = 20261121
_RELATIVE_TOLERANCE = 1e-9  # means equal up to float summation order count as "at most"
_CHUNK_CELLS = 1 << 20  # sign matrix cells per chunk: bounded memory for 10,000-query suites


def paired_randomization_p(
    baseline: Any,
    current: Any,
    *,
    permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = DEFAULT_SEED,
) -> float:
    """One-sided p-value that ``current`` scores lower than ``baseline`` (paired by position)."""
    import numpy as np

    differences = np.asarray(current, dtype=np.float64) - np.asarray(baseline, dtype=np.float64)
    n = differences.size
    if n == 0:
        raise ValueError("the randomization test needs at least one paired query")
    observed = differences.mean()
    tolerance = _RELATIVE_TOLERANCE * float(np.abs(differences).max())
    if n < 63 and 2**n <= permutations:  # exact: every sign assignment once
        patterns = np.arange(2**n, dtype=np.int64)[:, None] >> np.arange(n, dtype=np.int64) & 1
        means = ((2 * patterns - 1) @ differences) / n
        return float(np.count_nonzero(means <= observed + tolerance) / means.size)
    rng = np.random.default_rng(seed)
    hits, done, rows = 0, 0, max(1, _CHUNK_CELLS // n)
    while done < permutations:
        size = min(rows, permutations - done)
        signs = rng.integers(0, 2, size=(size, n), dtype=np.int8) * 2 - 1
        hits += int(np.count_nonzero((signs @ differences) / n <= observed + tolerance))
        done += size
    return (1 + hits) / (1 + permutations)


# -- multiple comparisons --------------------------------------------------------------------------
# A session that gates m checks at alpha each raises a false alarm with probability up to
# 1 - (1 - alpha)**m when nothing changed (54% for 15 checks at 0.05). Holm's step-down procedure
# keeps that family-wise rate at most alpha, for any dependence between the checks.


class Correction(StrEnum):
    """How a family of baseline checks is corrected (ini ``tempoeval_gate_correction``,
    ``tempoeval compare --correction``)."""

    NONE = "none"  # each check at its own alpha
    HOLM = "holm"  # Holm's step-down: family-wise error at most alpha


CORRECTIONS = tuple(Correction)


def holm_adjusted(p_values: list[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values, in the order given: with the p-values sorted ascending,
    ``adjusted[i] = max over j <= i of min(1, (m - j) * p[j])`` (0-based). A check is rejected at
    level alpha when its adjusted p-value is below alpha."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted
