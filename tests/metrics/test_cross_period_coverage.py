"""T-Coverage@k (llm mode): of a cross-period query's baseline and comparison periods, the share the
top k covers, by the judge's reading of each document (TempoEval's TemporalCoverage).

Values are checked by hand and against TempoEval 0.1.0's own ``TemporalCoverage`` given the same
judge answers (a stub LLM): seeded random verdicts, and the fake Messages API's judgments of the
same prompts."""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest

from pytest_tempoeval import (
    AnthropicJudge,
    FocusTime,
    GoldQuery,
    GoldSet,
    MetricError,
    Run,
    assert_temporal_coverage,
    evaluate,
    parse_measure,
    temporal_coverage,
)
from pytest_tempoeval.metrics.llm_judgments import (
    COVERS_BASELINE,
    COVERS_COMPARISON,
    CrossPeriod,
    Judgment,
    JudgmentRequest,
)
from pytest_tempoeval.metrics.relevance import CROSS_PERIOD_READS, NOT_CROSS_PERIOD
from pytest_tempoeval.testing import FakeMessagesServer

FLAGS = {
    (False, False): 0,
    (True, False): COVERS_BASELINE,
    (False, True): COVERS_COMPARISON,
    (True, True): COVERS_BASELINE | COVERS_COMPARISON,
}


class Scripted:
    """A judge answering coverage from a table (query id, doc id) -> (baseline, comparison), and
    remembering what it was asked."""

    model = "scripted-coverage"

    def __init__(self, table: Mapping[tuple[str, str], tuple[bool, bool]]) -> None:
        self.table = table
        self.asked: list[JudgmentRequest] = []
        self.periods: dict[str, CrossPeriod] = {}

    def coverage_all(
        self, items: Sequence[JudgmentRequest], periods: Mapping[str, CrossPeriod]
    ) -> list[Judgment]:
        self.asked += items
        self.periods.update(periods)
        return [
            Judgment(q, d, FLAGS[self.table.get((q, d), (False, False))]) for q, _, d, _ in items
        ]


GOLD = GoldSet.from_dict(
    {
        "documents": {
            "b": {"text": "Turnout in 1996 was 49%."},
            "c": {"text": "Turnout in 2020 was 66%."},
            "bc": {"text": "From 49% in 1996 to 66% in 2020."},
            "x": {"text": "Unrelated."},
            "mute": {},  # no text: cannot be judged
        },
        "queries": [
            {
                "id": "turnout",
                "text": "How has turnout changed since the 1990s?",
                "baseline_period": "1990s",
                "comparison_period": "2020-2024",
            },
            {
                "id": "trend",
                "text": "Turnout, then and now",
                "temporal_focus": "trends_changes",
                "baseline_period": 1996,
                "comparison_period": 2020,
            },
            {"id": "plain", "text": "Turnout in 2020?"},
            {"id": "silent", "baseline_period": 1996, "comparison_period": 2020},
        ],
    }
)
TABLE = {
    ("turnout", "b"): (True, False),
    ("turnout", "c"): (False, True),
    ("turnout", "bc"): (True, True),
    ("trend", "b"): (True, False),
    ("trend", "c"): (False, True),
    ("trend", "bc"): (True, True),
}


def test_hand_computed_values_at_several_cutoffs() -> None:
    run = Run({"turnout": ["x", "b", "c"], "trend": ["c", "x", "mute"], "plain": ["c"]})
    judge = Scripted(TABLE)
    # turnout: rank 2 covers the baseline, rank 3 the comparison; trend: rank 1 the comparison.
    assert temporal_coverage(run, GOLD, k=1, judge=judge).per_query == {"turnout": 0, "trend": 0.5}
    assert temporal_coverage(run, GOLD, k=2, judge=judge).per_query == {
        "turnout": 0.5,
        "trend": 0.5,
    }
    result = temporal_coverage(run, GOLD, k=3, judge=judge)
    assert result.per_query == {"turnout": 1.0, "trend": 0.5} and result == 0.75
    assert result.measure == "T-Coverage@3" and result.mode == "llm"


def test_one_document_covering_both_periods_scores_1() -> None:
    result = temporal_coverage(Run({"turnout": ["bc"], "trend": ["x", "bc"]}), GOLD, k=2,
                               judge=Scripted(TABLE))  # fmt: skip
    assert result.per_query == {"turnout": 1.0, "trend": 1.0}


def test_queries_without_periods_or_text_are_excluded_and_named_never_scored_0() -> None:
    result = temporal_coverage(Run({"turnout": ["b"], "plain": ["c"]}), GOLD, k=1,
                               judge=Scripted(TABLE))  # fmt: skip
    assert result.excluded == {
        "plain": NOT_CROSS_PERIOD,
        "silent": "no query text for the judge",
    }
    assert "plain" not in result.per_query and "silent" not in result.per_query
    # trend is absent from the run: an empty ranking covers nothing (0), and is reported
    assert result.per_query == {"turnout": 0.5, "trend": 0.0}
    assert result.extra["missing_queries"] == 2  # trend and silent
    assert "excluded (no baseline_period and comparison_period" in result.explain()


def test_a_gold_set_with_no_cross_period_query_passes_no_threshold() -> None:
    """How a user could pass who should not: every query excluded would give a mean of nothing.
    The result is NaN and comparing it raises, naming why."""
    gold = GoldSet.from_dict({"queries": [{"id": "plain", "text": "Turnout in 2020?"}]})
    result = temporal_coverage(Run({"plain": ["c"]}), gold, k=1, judge=Scripted(TABLE))
    with pytest.raises(MetricError, match="not a cross-period query"):
        assert result >= 0.0
    checked = assert_temporal_coverage(Run({"plain": ["c"]}), gold, k=1, judge=Scripted(TABLE))
    with pytest.raises(MetricError, match="not a cross-period query"):
        checked.__ge__(0.0)  # the bare-statement form raises too


def test_the_judge_is_asked_about_every_ranked_document_with_its_query_periods() -> None:
    judge = Scripted(TABLE)
    temporal_coverage(Run({"turnout": ["x", "mute", "b"], "trend": ["c"], "plain": ["c"]}), GOLD,
                      k=3, judge=judge)  # fmt: skip
    # every document with a text, past the first that covers a period; none of the excluded queries
    assert [(q, d) for q, _, d, _ in judge.asked] == [
        ("turnout", "x"),
        ("turnout", "b"),
        ("trend", "c"),
    ]
    assert judge.periods == {
        "turnout": CrossPeriod("1990-1999", "2020-2024", None),
        "trend": CrossPeriod("1996", "2020", "trends_changes"),
    }


def test_a_document_without_text_covers_nothing_or_is_an_error_with_strict() -> None:
    run = Run({"turnout": ["mute", "b"]})
    result = temporal_coverage(run, GOLD, k=2, judge=Scripted(TABLE))
    assert result.per_query["turnout"] == 0.5 and result.extra["unjudged"] >= 1
    assert result.explain_query("turnout").retrieved == [("mute", None), ("b", 1.0)]
    with pytest.raises(MetricError, match=r"doc 'mute' \(query 'turnout', rank 1\) has no text"):
        temporal_coverage(run, GOLD, k=2, judge=Scripted(TABLE), strict=True)


def test_the_explanation_names_which_documents_cover_which_period() -> None:
    result = temporal_coverage(Run({"turnout": ["x", "b", "bc"]}), GOLD, k=3,
                               judge=Scripted(TABLE))  # fmt: skip
    detail = result.explain_query("turnout")
    assert detail.retrieved == [("x", 0.0), ("b", 1.0), ("bc", 2.0)]
    assert detail.ideal == [("bc", 2.0), ("b", 1.0)]
    assert detail.note == "baseline period 1990-1999: b, bc; comparison period 2020-2024: bc"
    trend = result.explain_query("trend")  # not in the run
    assert trend.note.startswith("not in the run") and "comparison period 2020: not covered" in (
        trend.note
    )


@pytest.mark.parametrize(
    ("judge", "message"),
    [
        (None, r"^T-Coverage needs judge=: a judge with coverage_all\(items, periods\)"),
        (object(), r"^T-Coverage needs judge=: .*; <object object at .*> has none$"),
    ],
    ids=["none", "no coverage_all"],
)
def test_a_judge_that_cannot_judge_coverage_is_a_clear_error(judge: object, message: str) -> None:
    with pytest.raises(MetricError, match=message):
        temporal_coverage(Run({"turnout": ["b"]}), GOLD, k=1, judge=judge)  # type: ignore[arg-type]


class Broken(Scripted):
    def __init__(self, answer: object, drop: bool = False) -> None:
        super().__init__({})
        self.answer, self.drop = answer, drop

    def coverage_all(
        self, items: Sequence[JudgmentRequest], periods: Mapping[str, CrossPeriod]
    ) -> list[Judgment]:
        answers = [Judgment(q, d, self.answer) for q, _, d, _ in items]  # type: ignore[arg-type]
        return answers[1:] if self.drop else answers


@pytest.mark.parametrize(
    ("judge", "message"),
    [
        (Broken(4), r"answered \('turnout', 'b', 4\) for doc 'b' of query 'turnout'"),
        (Broken(-1), r"answered \('turnout', 'b', -1\)"),
        (Broken(True), r"answered \('turnout', 'b', True\)"),
        (Broken(0.5), r"answered \('turnout', 'b', 0.5\)"),
        (Broken(3, drop=True), r"gave 1 coverage judgments for 2 documents"),
    ],
    ids=["4", "negative", "bool", "float", "one missing"],
)
def test_a_judge_answer_that_is_not_coverage_flags_is_an_error_never_a_score(
    judge: Broken, message: str
) -> None:
    with pytest.raises(MetricError, match=message):
        temporal_coverage(Run({"turnout": ["b", "c"]}), GOLD, k=2, judge=judge)


def test_a_python_gold_query_with_one_period_is_named() -> None:
    gold = GoldSet([GoldQuery("q", "since 2017", baseline_period=FocusTime.parse(2017))])
    with pytest.raises(MetricError, match=r"^query 'q': baseline_period is given without compari"):
        temporal_coverage(Run({"q": ["d"]}), gold, k=1, judge=Scripted({}))


def test_by_name_is_the_function_and_only_llm_mode_exists() -> None:
    run = Run({"turnout": ["x", "b", "c"], "trend": ["c"]})
    by_name = evaluate(run, GOLD, ["T-Coverage@3", "T-Coverage(mode=llm)@2"], judge=Scripted(TABLE))
    assert (
        by_name["T-Coverage@3"].per_query
        == temporal_coverage(run, GOLD, k=3, judge=Scripted(TABLE)).per_query
    )
    assert by_name["T-Coverage(mode=llm)@2"].per_query == {"turnout": 0.5, "trend": 0.5}
    assert parse_measure("temporal_coverage@5").name == "T-Coverage"
    with pytest.raises(MetricError, match="mode"):
        parse_measure("T-Coverage(mode=focus_time)@5")
    with pytest.raises(MetricError, match="mode"):
        temporal_coverage(run, GOLD, k=3, mode="gold", judge=Scripted(TABLE))


def test_a_baseline_of_t_coverage_reads_the_periods() -> None:
    """A query whose period changed since the baseline measured something else: the gate leaves
    it out of the comparison, as it does a query whose text changed."""
    from pytest_tempoeval.gate.baselines import GoldChanges, entry_for

    run = Run({"turnout": ["b"], "trend": ["c"]})
    result = temporal_coverage(run, GOLD, k=1, judge=Scripted(TABLE))
    assert result.gold_fingerprints == GOLD.fingerprints(*CROSS_PERIOD_READS)
    moved = GoldSet([replace(GOLD.queries["trend"], comparison_period=FocusTime.parse(2021))]
                    + [query for query in GOLD if query.id != "trend"], GOLD.documents)  # fmt: skip
    after = temporal_coverage(run, moved, k=1, judge=Scripted(TABLE))
    assert GoldChanges.between(entry_for(result), entry_for(after)).changed == ["trend"]


# -- against TempoEval 0.1.0's TemporalCoverage ----------------------------------------------------

tempoeval_coverage = pytest.importorskip("tempoeval.metrics.retrieval.temporal_coverage")
_DOCUMENT = re.compile(r"\nDocument:\n(.*?)\n\nDecide:", re.DOTALL)
_QUERY = re.compile(r'\nQuery: "(.*?)"\n')


class StubLLM:
    """TempoEval's provider interface (``generate_json``/``agenerate_json``), answering each prompt
    with ``answer(prompt)`` and remembering the prompts."""

    def __init__(self, answer: Callable[[str], dict]) -> None:
        self.answer = answer
        self.prompts: list[str] = []

    def generate_json(self, prompt: str) -> dict:
        self.prompts.append(prompt)
        return self.answer(prompt)

    async def agenerate_json(self, prompt: str) -> dict:
        return self.generate_json(prompt)


def their_inputs(query: GoldQuery, texts: list[str], k: int) -> dict[str, object]:
    """What TemporalCoverage.compute takes for a gold query: its periods as our prompt writes
    them, its temporal focus (TempoEval's default when none)."""
    return {
        "query": query.text,
        "retrieved_docs": texts,
        "temporal_focus": query.temporal_focus or "change_over_time",
        "baseline_anchor": str(query.baseline_period),
        "comparison_anchor": str(query.comparison_period),
        "k": k,
    }


def their_metric(llm: StubLLM) -> Any:
    metric = tempoeval_coverage.TemporalCoverage()
    metric.llm = llm
    return metric


def random_case(seed: int) -> tuple[GoldSet, Run, dict[tuple[str, str], tuple[bool, bool]], int]:
    """Queries with random periods, rankings of 0-8 documents of 12, random coverage answers."""
    draw = random.Random(seed)
    documents = {f"d{i}": {"text": f"document d{i} of case {seed}"} for i in range(12)}
    queries, rankings, table = [], {}, {}
    for q in range(draw.randint(1, 6)):
        start = draw.randint(1900, 2000)
        queries.append(
            {
                "id": f"q{q}",
                "text": f"How has it changed since {start}? (case {seed}, query {q})",
                "baseline_period": start,
                "comparison_period": f"{start + 10}-{start + draw.randint(10, 30)}",
                "temporal_focus": draw.choice(["change_over_time", "trends_changes", None]),
            }
        )
        rankings[f"q{q}"] = draw.sample(sorted(documents), draw.randint(0, 8))
        for doc in documents:
            table[(f"q{q}", doc)] = (draw.random() < 0.2, draw.random() < 0.2)
    return (GoldSet.from_dict({"documents": documents, "queries": queries}), Run(rankings), table,
            draw.randint(1, 10))  # fmt: skip


def answering_from(
    table: Mapping[tuple[str, str], tuple[bool, bool]], gold: GoldSet
) -> Callable[[str], dict]:
    """A stub LLM's answers: the table's, for the query and the document its prompt names."""
    query_of = {query.text: query.id for query in gold}
    doc_of = {document.text: doc for doc, document in gold.documents.items()}

    def answer(prompt: str) -> dict:
        query = query_of[_QUERY.search(prompt)[1]]  # type: ignore[index]
        doc = doc_of[_DOCUMENT.search(prompt)[1]]  # type: ignore[index]
        baseline, comparison = table[(query, doc)]
        return {"verdict": 1, "covers_baseline": baseline, "covers_comparison": comparison}

    return answer


async def each_async(metric: Any, inputs: Mapping[str, dict]) -> list[float]:
    return [await metric.acompute(**given) for given in inputs.values()]


def test_equal_to_tempoeval_given_the_same_answers_on_random_cases() -> None:
    """Both its compute (which stops asking once both periods are covered) and its acompute."""
    seen = set()
    for seed in range(120):
        gold, run, table, k = random_case(seed)
        ours = temporal_coverage(run, gold, k=k, judge=Scripted(table))
        assert not ours.excluded
        metric = their_metric(StubLLM(answering_from(table, gold)))
        inputs = {
            query.id: their_inputs(
                query, [gold.documents[d].text for d in run.get(query.id, [])], k
            )
            for query in gold
        }
        for query_id, late in zip(inputs, asyncio.run(each_async(metric, inputs)), strict=True):
            early = metric.compute(**inputs[query_id])
            assert ours.per_query[query_id] == early == late, (seed, query_id)
            seen.add(ours.per_query[query_id])
    assert seen == {0.0, 0.5, 1.0}  # every outcome was compared


def test_equal_to_tempoeval_with_the_fake_apis_judgments_of_the_same_prompts() -> None:
    """Our judge asks the fake Messages API; TempoEval's stub LLM answers its own prompts with the
    fake's judgment. Same prompts (asserted), same scores."""
    from pytest_tempoeval.testing import fake_judgment

    draw = random.Random(10)
    documents = {
        f"d{year}": {"text": f"In {year} the figure was {draw.randint(1, 99)}%."}
        for year in range(1990, 2025, 3)
    }
    queries = []
    for q in range(10):
        start = draw.randint(1988, 2005)
        queries.append(
            {
                "id": f"q{q}",
                "text": f"How has the figure changed since {start}?",
                "baseline_period": f"{start}-{start + 2}",
                "comparison_period": draw.choice(["2020-2021", "2018-2024", "2010s"]),
            }
        )
    gold = GoldSet.from_dict({"documents": documents, "queries": queries})
    run = Run({query["id"]: draw.sample(sorted(documents), 5) for query in queries})
    llm = StubLLM(lambda prompt: json.loads(fake_judgment(prompt)))
    metric = their_metric(llm)
    with FakeMessagesServer() as server:
        ours = temporal_coverage(
            run, gold, k=4, judge=AnthropicJudge(api_key="test", base_url=server.base_url)
        )
        asked = {body["messages"][0]["content"] for body in server.requests}
    for query in gold:
        texts = [gold.documents[doc].text for doc in run[query.id]]
        assert ours.per_query[query.id] == asyncio.run(
            metric.acompute(**their_inputs(query, texts, 4))
        )
    assert set(llm.prompts) == asked  # the same prompts, word for word
    assert set(ours.per_query.values()) == {0.0, 0.5, 1.0}
