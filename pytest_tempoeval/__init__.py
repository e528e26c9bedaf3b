"""pytest-tempoeval: retrieval regression testing with temporal relevance.

Names are resolved lazily (PEP 562): pytest imports this package whenever the plugin is installed,
and a suite that never uses it must not pay for numpy. A type checker reads the same names from the
``TYPE_CHECKING`` imports below instead, with their real types (``X as X``: an explicit re-export);
``tests/test_typing.py`` checks that they match ``_EXPORTS``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from pytest_tempoeval.metrics import FUNCTIONS as METRIC_FUNCTIONS

if TYPE_CHECKING:
    from pytest_tempoeval.data.focus_time import FocusTime as FocusTime
    from pytest_tempoeval.data.gold_schema import GoldDocument as GoldDocument
    from pytest_tempoeval.data.gold_schema import GoldQuery as GoldQuery
    from pytest_tempoeval.data.goldset import GoldSet as GoldSet
    from pytest_tempoeval.data.run import Run as Run
    from pytest_tempoeval.errors import BaselineError as BaselineError
    from pytest_tempoeval.errors import BaselineRegression as BaselineRegression
    from pytest_tempoeval.errors import BaselineWarning as BaselineWarning
    from pytest_tempoeval.errors import FocusTimeError as FocusTimeError
    from pytest_tempoeval.errors import GoldSetError as GoldSetError
    from pytest_tempoeval.errors import GoldSetWarning as GoldSetWarning
    from pytest_tempoeval.errors import InvalidReply as InvalidReply
    from pytest_tempoeval.errors import JudgeBudgetSpent as JudgeBudgetSpent
    from pytest_tempoeval.errors import JudgeCassetteError as JudgeCassetteError
    from pytest_tempoeval.errors import JudgeDryRun as JudgeDryRun
    from pytest_tempoeval.errors import JudgeError as JudgeError
    from pytest_tempoeval.errors import MetricError as MetricError
    from pytest_tempoeval.errors import NoValidAnswer as NoValidAnswer
    from pytest_tempoeval.errors import RunError as RunError
    from pytest_tempoeval.errors import RunWarning as RunWarning
    from pytest_tempoeval.errors import TempoEvalError as TempoEvalError
    from pytest_tempoeval.gate.baselines import BaselineStore as BaselineStore
    from pytest_tempoeval.gate.baselines import assert_no_regression as assert_no_regression
    from pytest_tempoeval.judge.anthropic_judge import AnthropicJudge as AnthropicJudge
    from pytest_tempoeval.judge.custom import CachedJudge as CachedJudge
    from pytest_tempoeval.judge.custom import CoverageProvider as CoverageProvider
    from pytest_tempoeval.judge.custom import JudgeProvider as JudgeProvider
    from pytest_tempoeval.metrics.agreement import AgreementResult as AgreementResult
    from pytest_tempoeval.metrics.agreement import judge_agreement as judge_agreement
    from pytest_tempoeval.metrics.by_name import assert_measure as assert_measure
    from pytest_tempoeval.metrics.by_name import evaluate as evaluate
    from pytest_tempoeval.metrics.by_name import score as score
    from pytest_tempoeval.metrics.functions import (
        assert_average_precision as assert_average_precision,
    )
    from pytest_tempoeval.metrics.functions import (
        assert_binary_normalized_gain as assert_binary_normalized_gain,
    )
    from pytest_tempoeval.metrics.functions import assert_bpref as assert_bpref
    from pytest_tempoeval.metrics.functions import assert_dcg as assert_dcg
    from pytest_tempoeval.metrics.functions import (
        assert_eleven_point_average as assert_eleven_point_average,
    )
    from pytest_tempoeval.metrics.functions import (
        assert_expected_reciprocal_rank as assert_expected_reciprocal_rank,
    )
    from pytest_tempoeval.metrics.functions import assert_gm_bpref as assert_gm_bpref
    from pytest_tempoeval.metrics.functions import assert_gm_map as assert_gm_map
    from pytest_tempoeval.metrics.functions import assert_ideal_dcg as assert_ideal_dcg
    from pytest_tempoeval.metrics.functions import (
        assert_inferred_average_precision as assert_inferred_average_precision,
    )
    from pytest_tempoeval.metrics.functions import (
        assert_interpolated_precision as assert_interpolated_precision,
    )
    from pytest_tempoeval.metrics.functions import assert_judged as assert_judged
    from pytest_tempoeval.metrics.functions import assert_mrr as assert_mrr
    from pytest_tempoeval.metrics.functions import assert_ndcg as assert_ndcg
    from pytest_tempoeval.metrics.functions import assert_ndcg_rel as assert_ndcg_rel
    from pytest_tempoeval.metrics.functions import assert_normalized_gain as assert_normalized_gain
    from pytest_tempoeval.metrics.functions import (
        assert_num_nonrel_judged_ret as assert_num_nonrel_judged_ret,
    )
    from pytest_tempoeval.metrics.functions import assert_num_q as assert_num_q
    from pytest_tempoeval.metrics.functions import assert_num_rel as assert_num_rel
    from pytest_tempoeval.metrics.functions import assert_num_rel_ret as assert_num_rel_ret
    from pytest_tempoeval.metrics.functions import assert_num_ret as assert_num_ret
    from pytest_tempoeval.metrics.functions import assert_precision as assert_precision
    from pytest_tempoeval.metrics.functions import assert_r_precision as assert_r_precision
    from pytest_tempoeval.metrics.functions import (
        assert_r_precision_multiple as assert_r_precision_multiple,
    )
    from pytest_tempoeval.metrics.functions import (
        assert_rank_biased_precision as assert_rank_biased_precision,
    )
    from pytest_tempoeval.metrics.functions import assert_rbp_residual as assert_rbp_residual
    from pytest_tempoeval.metrics.functions import assert_recall as assert_recall
    from pytest_tempoeval.metrics.functions import (
        assert_relative_precision as assert_relative_precision,
    )
    from pytest_tempoeval.metrics.functions import assert_rndcg as assert_rndcg
    from pytest_tempoeval.metrics.functions import (
        assert_set_average_precision as assert_set_average_precision,
    )
    from pytest_tempoeval.metrics.functions import assert_set_f as assert_set_f
    from pytest_tempoeval.metrics.functions import assert_set_precision as assert_set_precision
    from pytest_tempoeval.metrics.functions import assert_set_recall as assert_set_recall
    from pytest_tempoeval.metrics.functions import (
        assert_set_relative_precision as assert_set_relative_precision,
    )
    from pytest_tempoeval.metrics.functions import assert_success as assert_success
    from pytest_tempoeval.metrics.functions import (
        assert_temporal_anchor_f1 as assert_temporal_anchor_f1,
    )
    from pytest_tempoeval.metrics.functions import (
        assert_temporal_coverage as assert_temporal_coverage,
    )
    from pytest_tempoeval.metrics.functions import (
        assert_temporal_diversity as assert_temporal_diversity,
    )
    from pytest_tempoeval.metrics.functions import assert_temporal_map as assert_temporal_map
    from pytest_tempoeval.metrics.functions import assert_temporal_mrr as assert_temporal_mrr
    from pytest_tempoeval.metrics.functions import assert_temporal_ndcg as assert_temporal_ndcg
    from pytest_tempoeval.metrics.functions import (
        assert_temporal_precision as assert_temporal_precision,
    )
    from pytest_tempoeval.metrics.functions import assert_temporal_recall as assert_temporal_recall
    from pytest_tempoeval.metrics.functions import (
        assert_temporal_year_precision as assert_temporal_year_precision,
    )
    from pytest_tempoeval.metrics.functions import (
        assert_temporal_year_recall as assert_temporal_year_recall,
    )
    from pytest_tempoeval.metrics.functions import assert_unjudged as assert_unjudged
    from pytest_tempoeval.metrics.functions import assert_utility as assert_utility
    from pytest_tempoeval.metrics.functions import assert_yaap as assert_yaap
    from pytest_tempoeval.metrics.functions import average_precision as average_precision
    from pytest_tempoeval.metrics.functions import binary_normalized_gain as binary_normalized_gain
    from pytest_tempoeval.metrics.functions import bpref as bpref
    from pytest_tempoeval.metrics.functions import dcg as dcg
    from pytest_tempoeval.metrics.functions import eleven_point_average as eleven_point_average
    from pytest_tempoeval.metrics.functions import (
        expected_reciprocal_rank as expected_reciprocal_rank,
    )
    from pytest_tempoeval.metrics.functions import gm_bpref as gm_bpref
    from pytest_tempoeval.metrics.functions import gm_map as gm_map
    from pytest_tempoeval.metrics.functions import ideal_dcg as ideal_dcg
    from pytest_tempoeval.metrics.functions import (
        inferred_average_precision as inferred_average_precision,
    )
    from pytest_tempoeval.metrics.functions import interpolated_precision as interpolated_precision
    from pytest_tempoeval.metrics.functions import judged as judged
    from pytest_tempoeval.metrics.functions import mrr as mrr
    from pytest_tempoeval.metrics.functions import ndcg as ndcg
    from pytest_tempoeval.metrics.functions import ndcg_rel as ndcg_rel
    from pytest_tempoeval.metrics.functions import normalized_gain as normalized_gain
    from pytest_tempoeval.metrics.functions import num_nonrel_judged_ret as num_nonrel_judged_ret
    from pytest_tempoeval.metrics.functions import num_q as num_q
    from pytest_tempoeval.metrics.functions import num_rel as num_rel
    from pytest_tempoeval.metrics.functions import num_rel_ret as num_rel_ret
    from pytest_tempoeval.metrics.functions import num_ret as num_ret
    from pytest_tempoeval.metrics.functions import precision as precision
    from pytest_tempoeval.metrics.functions import r_precision as r_precision
    from pytest_tempoeval.metrics.functions import r_precision_multiple as r_precision_multiple
    from pytest_tempoeval.metrics.functions import rank_biased_precision as rank_biased_precision
    from pytest_tempoeval.metrics.functions import rbp_residual as rbp_residual
    from pytest_tempoeval.metrics.functions import recall as recall
    from pytest_tempoeval.metrics.functions import relative_precision as relative_precision
    from pytest_tempoeval.metrics.functions import rndcg as rndcg
    from pytest_tempoeval.metrics.functions import set_average_precision as set_average_precision
    from pytest_tempoeval.metrics.functions import set_f as set_f
    from pytest_tempoeval.metrics.functions import set_precision as set_precision
    from pytest_tempoeval.metrics.functions import set_recall as set_recall
    from pytest_tempoeval.metrics.functions import set_relative_precision as set_relative_precision
    from pytest_tempoeval.metrics.functions import success as success
    from pytest_tempoeval.metrics.functions import temporal_anchor_f1 as temporal_anchor_f1
    from pytest_tempoeval.metrics.functions import temporal_coverage as temporal_coverage
    from pytest_tempoeval.metrics.functions import temporal_diversity as temporal_diversity
    from pytest_tempoeval.metrics.functions import temporal_map as temporal_map
    from pytest_tempoeval.metrics.functions import temporal_mrr as temporal_mrr
    from pytest_tempoeval.metrics.functions import temporal_ndcg as temporal_ndcg
    from pytest_tempoeval.metrics.functions import temporal_precision as temporal_precision
    from pytest_tempoeval.metrics.functions import temporal_recall as temporal_recall
    from pytest_tempoeval.metrics.functions import (
        temporal_year_precision as temporal_year_precision,
    )
    from pytest_tempoeval.metrics.functions import temporal_year_recall as temporal_year_recall
    from pytest_tempoeval.metrics.functions import unjudged as unjudged
    from pytest_tempoeval.metrics.functions import utility as utility
    from pytest_tempoeval.metrics.functions import yaap as yaap
    from pytest_tempoeval.metrics.measures import Measure as Measure
    from pytest_tempoeval.metrics.measures import parse_measure as parse_measure
    from pytest_tempoeval.metrics.periods import Periods as Periods
    from pytest_tempoeval.metrics.persistence import PersistenceResult as PersistenceResult
    from pytest_tempoeval.metrics.persistence import temporal_persistence as temporal_persistence
    from pytest_tempoeval.metrics.results import MetricResult as MetricResult

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
    "Periods": "metrics.periods",
    "PersistenceResult": "metrics.persistence",
    "temporal_persistence": "metrics.persistence",
    "evaluate": "metrics.by_name",
    "judge_agreement": "metrics.agreement",
    "AgreementResult": "metrics.agreement",
    "CachedJudge": "judge.custom",
    "JudgeProvider": "judge.custom",
    "CoverageProvider": "judge.custom",
    "score": "metrics.by_name",
    "assert_measure": "metrics.by_name",
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


if not TYPE_CHECKING:  # a checker sees the imports above: a name not among them is an error

    def __getattr__(name: str) -> object:
        module = _EXPORTS.get(name)
        if module is None:
            raise AttributeError(f"module 'pytest_tempoeval' has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{module}", __name__), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
