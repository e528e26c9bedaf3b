"""Layer 3, metrics: from a run and a gold set to scores that explain themselves.

alignment (run <-> gold set) -> relevance per mode -> kernels (pure functions over matrices) ->
MetricResult (a float with per-query scores and explanations). Imports only data and foundations.

The public functions and TempoEval's drop-in classes are importable from here
(``from pytest_tempoeval.metrics import TemporalNDCG``), resolved lazily: the plugin imports
:mod:`.checks` at start-up, which must not pull in numpy. A type checker reads them from the
``TYPE_CHECKING`` imports below (``tests/test_typing.py`` checks they match ``_EXPORTS``).

``FUNCTIONS`` is written out rather than read from :mod:`.specs` so that importing this package
(which pytest does whenever the plugin is installed) builds no spec; ``tests/metrics/test_specs.py``
checks it names exactly the specs' functions, in their order.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
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
    from pytest_tempoeval.metrics.tempoeval_compat import TemporalNDCG as TemporalNDCG
    from pytest_tempoeval.metrics.tempoeval_compat import TemporalPrecision as TemporalPrecision

# The metric functions, one per measure spec (``specs.FUNCTIONS``); each has an ``assert_`` form.
FUNCTIONS = (
    "temporal_ndcg",
    "temporal_precision",
    "temporal_recall",
    "temporal_mrr",
    "temporal_map",
    "temporal_coverage",
    "temporal_year_precision",
    "temporal_year_recall",
    "temporal_diversity",
    "temporal_anchor_f1",
    "ndcg",
    "precision",
    "recall",
    "average_precision",
    "mrr",
    "success",
    "judged",
    "inferred_average_precision",
    "expected_reciprocal_rank",
    "rank_biased_precision",
    "rbp_residual",
    "ndcg_rel",
    "rndcg",
    "binary_normalized_gain",
    "normalized_gain",
    "unjudged",
    "dcg",
    "ideal_dcg",
    "r_precision",
    "r_precision_multiple",
    "bpref",
    "gm_bpref",
    "gm_map",
    "interpolated_precision",
    "eleven_point_average",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "num_nonrel_judged_ret",
    "set_precision",
    "set_recall",
    "set_f",
    "set_average_precision",
    "set_relative_precision",
    "relative_precision",
    "utility",
    "yaap",
)
_EXPORTS = {
    "TemporalNDCG": "tempoeval_compat",
    "TemporalPrecision": "tempoeval_compat",
    "MetricResult": "results",
    "Periods": "periods",
    "PersistenceResult": "persistence",
    "temporal_persistence": "persistence",
    "evaluate": "by_name",
    "judge_agreement": "agreement",
    "AgreementResult": "agreement",
    "score": "by_name",
    "assert_measure": "by_name",
    "parse_measure": "measures",
    "Measure": "measures",
    **dict.fromkeys(FUNCTIONS, "functions"),
    **{f"assert_{name}": "functions" for name in FUNCTIONS},
}

__all__ = sorted(_EXPORTS)  # noqa: PLE0605 (one list of names: the lazy table above)


if not TYPE_CHECKING:  # a checker sees the imports above: a name not among them is an error

    def __getattr__(name: str) -> object:
        module = _EXPORTS.get(name)
        if module is None:
            raise AttributeError(f"module 'pytest_tempoeval.metrics' has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
