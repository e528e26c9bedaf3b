"""pytest-tempoeval: retrieval regression testing with temporal relevance.

Names are resolved lazily (PEP 562): pytest imports this package whenever the plugin is installed,
and a suite that never uses it must not pay for numpy.
"""

from __future__ import annotations

import importlib
from typing import Any

from pytest_tempoeval.metrics import FUNCTIONS as METRIC_FUNCTIONS

_ERRORS = (
    "TempoEvalError",
    "FocusTimeError",
    "GoldSetError",
    "RunError",
    "MetricError",
    "JudgeError",
    "InvalidReply",
    "NoValidAnswer",
    "JudgeCassetteError",
    "JudgeBudgetSpent",
    "JudgeDryRun",
    "BaselineError",
    "BaselineRegression",
    "BaselineWarning",
    "GoldSetWarning",
    "RunWarning",
)
# Public name -> the module that defines it.
_EXPORTS = {
    "FocusTime": "data.focus_time",
    "GoldSet": "data.goldset",
    "GoldQuery": "data.gold_schema",
    "GoldDocument": "data.gold_schema",
    "Run": "data.run",
    "MetricResult": "metrics.results",
    "evaluate": "metrics.evaluate",
    "judge_agreement": "metrics.agreement",
    "AgreementResult": "metrics.agreement",
    "CachedJudge": "judge.custom",
    "JudgeProvider": "judge.custom",
    "score": "metrics.evaluate",
    "assert_measure": "metrics.evaluate",
    "parse_measure": "metrics.measures",
    "Measure": "metrics.measures",
    **dict.fromkeys(METRIC_FUNCTIONS, "metrics.functions"),
    **{f"assert_{name}": "metrics.functions" for name in METRIC_FUNCTIONS},
    "AnthropicJudge": "judge.anthropic_judge",
    "BaselineStore": "gate.baselines",
    "assert_no_regression": "gate.baselines",
    **dict.fromkeys(_ERRORS, "errors"),
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
