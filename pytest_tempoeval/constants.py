"""Named constants shared across layers. A constant used by one module lives at the top of it."""

from __future__ import annotations

DEFAULT_K = 10  # rank cutoff when neither the call nor the gold set gives one (trec_eval's P@10)

# Two scores closer than this are equal: means of the same per-query values summed in another
# order differ by a few ulps, and "improved"/"dropped" must not flip on that.
SCORE_TOLERANCE = 1e-12

WORST_NAMED = 3  # worst queries named on a failure's first line (pytest shows 8 lines outside -vv)
WORST_EXPLAINED = 5  # worst queries explained with what they retrieved (explain(), reports)
REGRESSED_LISTED = 10  # regressed queries listed in a baseline failure
