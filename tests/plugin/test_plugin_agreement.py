"""The judge's agreement with gold grades, checked in a suite: a summary row and a report entry."""

from __future__ import annotations

import json

import pytest
from plugin_helpers import XDIST_MODES

# its pytester sessions record in-process: the SDK is imported once, not per session
pytestmark = pytest.mark.usefixtures("judge_sdk_stays_loaded")


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_agreement_checks_are_in_the_summary_and_the_report(
    pytester: pytest.Pytester, xdist: list[str]
) -> None:
    """judge_agreement through a provider, recorded then replayed: a row like any metric's."""
    pytester.makefile(
        ".yaml",
        gold="version: 1\ndocuments:\n"
        + "".join(f'  d{year}: {{text: "A report from {year}."}}\n' for year in (2019, 2020, 2021))
        + 'queries:\n  - id: q\n    text: "What happened in 2020?"\n'
        "    relevant: {d2019: 0, d2020: 4, d2021: 1}\n",
    )
    pytester.makepyfile(
        test_agree="""
        import re
        import pytest
        from pytest_tempoeval import judge_agreement

        class Provider:  # 4 when the document's year is the query's, else 0
            model = "year-match"
            async def grade(self, query, document):
                return 4 if re.findall(r"\\d{4}", query) == re.findall(r"\\d{4}", document) else 0
            async def verdict(self, query, document, temporal_focus=None):
                return True

        @pytest.mark.tempoeval("gold.yaml")
        def test_agree(tempoeval_gold, tempoeval_judge_for):
            agreement = judge_agreement(tempoeval_gold, tempoeval_judge_for(Provider()))
            assert agreement >= 0.9
        """
    )
    pytester.runpytest("--tempoeval-record-mode=once").assert_outcomes(passed=1)
    result = pytester.runpytest(*xdist, "--tempoeval-report=report.json")
    result.assert_outcomes(passed=1)
    # quadratic-weighted kappa by hand, on the judge's whole 0..4 scale: gold (0, 4, 1), judge
    # (0, 4, 0). Observed disagreement: (1 - 0)^2 / 3 pairs. Expected, from all 9 pairings of gold
    # {0, 4, 1} with judge {0, 4, 0}: (0 + 16 + 0) + (16 + 0 + 16) + (1 + 9 + 1) = 59, / 9.
    kappa = 1 - (1 / 3) / (59 / 9)
    result.stdout.fnmatch_lines([f"*test_agree*judge_agreement(graded)*{kappa:.4f}*>= 0.9*pass*"])
    check = json.loads((pytester.path / "report.json").read_text())["checks"][0]
    assert check["metric"] == "judge_agreement(graded)" and check["score"] == pytest.approx(kappa)
