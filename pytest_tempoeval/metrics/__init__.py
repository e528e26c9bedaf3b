"""Layer 3, metrics: from a run and a gold set to scores that explain themselves.

alignment (run <-> gold set) -> relevance per mode -> kernels (pure functions over matrices) ->
MetricResult (a float with per-query scores and explanations). Imports only data and foundations.

The public functions and TempoEval's drop-in classes are importable from here
(``from pytest_tempoeval.metrics import TemporalNDCG``), resolved lazily: the plugin imports
:mod:`.checks` at start-up, which must not pull in numpy (nor must :mod:`.specs`, which names
the functions).
"""

from __future__ import annotations

import importlib
from typing import Any

# The metric functions, one per measure spec; each also has an ``assert_`` form.
from pytest_tempoeval.metrics.specs import FUNCTIONS

_EXPORTS = {
    "TemporalNDCG": "tempoeval_compat",
    "TemporalPrecision": "tempoeval_compat",
    "MetricResult": "results",
    "evaluate": "evaluate",
    "judge_agreement": "agreement",
    "AgreementResult": "agreement",
    "score": "evaluate",
    "assert_measure": "evaluate",
    "parse_measure": "measures",
    "Measure": "measures",
    **dict.fromkeys(FUNCTIONS, "functions"),
    **{f"assert_{name}": "functions" for name in FUNCTIONS},
}

__all__ = sorted(_EXPORTS)  # noqa: PLE0605 (one list of names: the lazy table above)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_tempoeval.metrics' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
