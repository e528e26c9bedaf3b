"""pytest-tempoeval: retrieval regression testing with temporal relevance.

Names are resolved lazily (PEP 562): pytest imports this package whenever the plugin is installed,
and a suite that never uses it must not pay for numpy.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "AnthropicJudge": "judge",
    "FocusTime": "focus_time",
    "GoldSet": "goldset",
    "GoldQuery": "goldset",
    "GoldDocument": "goldset",
    "Run": "run",
    "MetricResult": "result",
    "temporal_ndcg": "metrics",
    "temporal_precision": "metrics",
    "temporal_recall": "metrics",
    "temporal_mrr": "metrics",
    "temporal_map": "metrics",
    "ndcg": "metrics",
    "precision": "metrics",
    "recall": "metrics",
    "mrr": "metrics",
    "average_precision": "metrics",
    "assert_temporal_ndcg": "metrics",
    "assert_temporal_precision": "metrics",
    "assert_temporal_recall": "metrics",
    "assert_temporal_mrr": "metrics",
    "assert_temporal_map": "metrics",
    "assert_ndcg": "metrics",
    "assert_precision": "metrics",
    "assert_recall": "metrics",
    "assert_mrr": "metrics",
    "assert_average_precision": "metrics",
    "TempoEvalError": "errors",
    "FocusTimeError": "errors",
    "GoldSetError": "errors",
    "RunError": "errors",
    "MetricError": "errors",
    "JudgeError": "errors",
    "assert_no_regression": "baselines",
    "BaselineError": "baselines",
    "BaselineRegression": "baselines",
    "BaselineStore": "baselines",
}

__all__ = sorted(_EXPORTS)  # noqa: PLE0605 (one list of names: the lazy table above)
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_tempoeval' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
