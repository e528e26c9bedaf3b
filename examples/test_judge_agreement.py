r"""Gate the LLM judge itself: does it grade the way the assessors did?

``judge_agreement`` asks the judge about every judged (query, document) pair of the gold set and
compares its grades with the assessors' (quadratic-weighted Cohen's kappa). Run it when the judge
model or prompt changes: a drop means the judge no longer grades the way the team's assessors do,
and every llm-mode score built on it moves for that reason alone.

The cassette in fixtures/cassettes/examples/test_judge_agreement/ was recorded against the
loopback fake Messages API (grades = 4 x year overlap), not against Claude; see
examples/test_llm_judge.py for how to re-record it.
"""

import pytest

from pytest_tempoeval import judge_agreement

pytestmark = pytest.mark.tempoeval(gold="gold/assessor_grades.yaml")


def test_the_judge_grades_like_the_assessors(tempoeval_gold, tempoeval_judge) -> None:
    agreement = judge_agreement(tempoeval_gold, tempoeval_judge)
    # Measured when recorded: kappa 0.368 over 26 pairs. The fake judge grades year overlap only,
    # so it gives 4 to off-topic documents of the right year that the assessors graded 0 (the
    # failure message lists them). A judge that reads the topic, as Claude does, should agree
    # better: raise the threshold (0.6 is a common bar) once the cassette is recorded against it.
    assert agreement >= 0.3
