"""``Judged`` without a cutoff now means the whole ranking (as in ir_measures); it meant Judged@10
(the default k). A baseline written under the old meaning is never compared with the new one: a
user cannot get a pass from the change."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_tempoeval import BaselineError, BaselineStore, GoldSet, Run, evaluate
from pytest_tempoeval.gate.baselines import compare

N_QUERIES = 12  # enough for the randomization test to decide


def collection(tmp_path: Path) -> GoldSet:
    """Each query judges d00 and d10..d19; a ranking holds d00..d19."""
    lines = [
        f"q{query} 0 d{doc:02d} {1 if doc == 0 else 0}"
        for query in range(N_QUERIES)
        for doc in [0, *range(10, 20)]
    ]
    (tmp_path / "qrels").write_text("\n".join(lines) + "\n")
    return GoldSet.from_trec_qrels(tmp_path / "qrels")


def ranking(judged_on_top: bool) -> list[str]:
    """20 documents; the judged d00 at rank 1, or pushed below the 10 unjudged ones."""
    unjudged = [f"u{i:02d}" for i in range(9)]
    if judged_on_top:
        return ["d00", *unjudged, *[f"d{doc}" for doc in range(10, 20)]]
    return [*unjudged, "u09", *[f"d{doc}" for doc in range(10, 20)]][:20]


@pytest.mark.parametrize("name", [None, "coverage"])
def test_a_judged_baseline_of_the_old_meaning_asks_for_a_re_baseline(
    tmp_path: Path, name: str | None
) -> None:
    gold = collection(tmp_path)
    before = Run({f"q{query}": ranking(judged_on_top=True) for query in range(N_QUERIES)})
    after = Run({f"q{query}": ranking(judged_on_top=False) for query in range(N_QUERIES)})
    # What evaluate(run, gold, ["Judged"]) scored before the change: Judged@10.
    old = evaluate(before, gold, ["Judged@10"])["Judged@10"]
    new = evaluate(after, gold, ["Judged"])["Judged"]
    assert float(old) == pytest.approx(0.1) and float(new) == 0.5  # the top 10 lost its judged one
    assert float(evaluate(after, gold, ["Judged@10"])["Judged@10"]) == 0.0
    # Compared, the new meaning would read as an improvement: a pass it should not be.
    assert compare("Judged", old.per_query, new.per_query, 0.01, 0.05, 0).passed

    writer = BaselineStore(tmp_path / "b.json", update=True, test_id="t.py::t")
    writer.check(old, name=name)
    assert writer.finish()
    reader = BaselineStore(tmp_path / "b.json", update=False, test_id="t.py::t")
    expected = (
        r"re-baseline: the baseline has Judged@10 but the test now checks Judged"
        if name is None
        else r"re-baseline: the measure changed since the baseline of coverage "
        r"\(Judged@10 -> Judged\)"
    )
    with pytest.raises(BaselineError, match=expected):
        reader.check(new, name=name)
