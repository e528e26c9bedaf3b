"""Gold mode's holes filled by the judge (issue 29): ``fill_unjudged=judge``, ``fill=llm``.

Against the loopback fake Messages API (it grades round(4 x year Jaccard) of query and document),
and a stub judge for the cross-checks with pytrec_eval on the qrels with the filled lines added.
The ways a user could get a pass they should not come first.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from pathlib import Path

import pytest

from pytest_tempoeval import (
    GoldSet,
    JudgeError,
    MetricError,
    Run,
    evaluate,
    judged,
    ndcg,
    num_q,
    precision,
    temporal_ndcg,
)
from pytest_tempoeval.data.gold_schema import GoldDocument, GoldQuery
from pytest_tempoeval.data.provenance import judge_grade_on_scale
from pytest_tempoeval.errors import JudgeBudgetSpent, JudgeDryRun
from pytest_tempoeval.judge.anthropic_judge import AnthropicJudge
from pytest_tempoeval.judge.budget import RequestBudget
from pytest_tempoeval.judge.cassettes import JudgeCassette
from pytest_tempoeval.metrics.filling import grade_map
from pytest_tempoeval.metrics.llm_judgments import Judgment, JudgmentRequest
from pytest_tempoeval.testing import FakeMessagesServer, Fault

KEY = "test-key-not-a-secret"
L = math.log2

# Grades 0-3 (its largest is 3), a negative grade (judged non-relevant), a document without text.
GOLD = GoldSet(
    [
        GoldQuery("q1", "Who won in 2020?", relevant={"d1": 3, "d3": 0, "dneg": -1}),
        GoldQuery("q2", "What happened in 1990?", relevant={"d3": 2}),
        GoldQuery("q3", None, relevant={"d4": 1}),  # no text: its holes cannot be asked
    ],
    [
        GoldDocument("d1", "The 2020 election results"),
        GoldDocument("d2", "Polls from 2019 and 2020"),
        GoldDocument("d3", "A 1990 recession"),
        GoldDocument("d4", "The 2016 vote"),
        GoldDocument("d5", "Events of 2020"),
        GoldDocument("d6", "in 2021"),
        GoldDocument("dneg", "2020 vote counts"),
        GoldDocument("dnotext"),
    ],
)
RUN = Run(
    {
        # top 5: d5 and d2 are holes, dnotext a hole without text; d6 (rank 7) is past k
        "q1": ["d5", "d1", "dneg", "d2", "dnotext", "d3", "d6"],
        "q2": ["d1", "d3", "d4"],
        "q3": ["d5", "d4"],
    }
)
# The fake's grades, round(4 x Jaccard of the years): q1 (2020): d5 (2020) 4, d2 (2019-2020) 2;
# q2 (1990): d1 0, d4 0. On the scale 0..3, rounded half up: 4 -> 3, 2 -> 2 (1.5), 0 -> 0.
ASKED = {("q1", "d5"), ("q1", "d2"), ("q2", "d1"), ("q2", "d4")}
FILLED = {"q1": {"d5": 3, "d2": 2}, "q2": {"d1": 0, "d4": 0}}


@pytest.fixture(scope="module")
def server() -> FakeMessagesServer:
    with FakeMessagesServer() as fake:
        yield fake


@pytest.fixture
def fake(server: FakeMessagesServer) -> FakeMessagesServer:
    server.requests.clear()
    return server


def judge_for(server: FakeMessagesServer, **options: object) -> AnthropicJudge:
    return AnthropicJudge(api_key=KEY, base_url=server.base_url, **options)  # type: ignore[arg-type]


def asked(server: FakeMessagesServer) -> set[tuple[str, str]]:
    """The (query, document) of every prompt the fake received, read from the prompt's texts."""
    queries = {query.text: query.id for query in GOLD if query.text}
    documents = {document.text: document.id for document in GOLD.documents.values()}
    pairs = set()
    for body in server.requests:
        prompt = body["messages"][0]["content"]
        query = next(text for text in queries if f"## Query\n{text}\n" in prompt)
        document = next(text for text in documents if text and f"## Document\n{text}\n" in prompt)
        pairs.add((queries[query], documents[document]))
    return pairs


# -- how a user could pass when they should not ----------------------------------------------------


def test_only_unjudged_documents_of_the_top_k_are_asked(fake: FakeMessagesServer) -> None:
    result = ndcg(RUN, GOLD, k=5, fill_unjudged=judge_for(fake))
    # judged ones (a negative grade too), holes past k, holes without text: never asked
    assert len(fake.requests) == 4 and asked(fake) == ASKED
    assert result.filled is not None and result.filled.per_query == FILLED
    assert (result.filled.asked, result.filled.filled, result.filled.without_text) == (4, 4, 2)
    # k=2: only q1's d5 and q2's d1 are holes in the top 2
    fake.requests.clear()
    two = precision(RUN, GOLD, k=2, fill_unjudged=judge_for(fake))
    assert asked(fake) == {("q1", "d5"), ("q2", "d1")}
    assert two.filled is not None and two.filled.per_query == {"q1": {"d5": 3}, "q2": {"d1": 0}}
    # the holes past k are not counted either: only q3's d5 (its query has no text) is left
    assert (two.filled.asked, two.filled.without_text, two.extra["unjudged"]) == (2, 1, 1)


def test_the_score_is_the_hand_computation_with_the_mapped_grades(
    fake: FakeMessagesServer,
) -> None:
    result = ndcg(RUN, GOLD, k=5, fill_unjudged=judge_for(fake))
    # q1 ranks d5 3, d1 3, dneg 0 (negative: no gain), d2 2, dnotext 0 (unjudged); the ideal
    # holds the human and the filled grades together: 3, 3, 2 (d3's 0 and dneg's -1 gain nothing)
    dcg = 3 + 3 / L(3) + 2 / L(5)
    ideal = 3 + 3 / L(3) + 2 / L(4)
    assert result.per_query["q1"] == pytest.approx(dcg / ideal, rel=1e-15)
    # q2: d1 0, d3 2, d4 0; ideal d3 2
    assert result.per_query["q2"] == pytest.approx((2 / L(3)) / 2, rel=1e-15)
    # q3 has no text: d5 stays unjudged; d4 (1) at rank 2
    assert result.per_query["q3"] == pytest.approx(1 / L(3), rel=1e-15)
    plain = ndcg(RUN, GOLD, k=5)
    assert plain.per_query["q1"] == pytest.approx((3 / L(3)) / 3, rel=1e-15)  # no fill: d1 only


def test_a_failed_judge_reply_is_an_error_naming_query_and_document_never_a_zero(
    fake: FakeMessagesServer,
) -> None:
    fake.inject(Fault.out_of_range(), Fault.out_of_range())  # the one hole's two tries
    with pytest.raises(JudgeError, match=r"doc 'd5' for query 'q1'.*outside 0..4.*raw reply"):
        ndcg(Run({"q1": ["d5", "d1"]}), GOLD, k=2, fill_unjudged=judge_for(fake))
    assert len(fake.requests) == 2


class StubJudge:
    """A judge of the user's: answers what ``answer(query id, doc id)`` says, and keeps what it
    was asked."""

    model = "stub-judge-1"

    def __init__(self, answer: object = None) -> None:
        self.answer = answer
        self.items: list[JudgmentRequest] = []

    def grade_all(self, items: Sequence[JudgmentRequest]) -> list[Judgment]:
        self.items.extend(items)
        return [self.judgment(query, doc) for query, _, doc, _ in items]

    def judgment(self, query: str, doc: str) -> Judgment:
        if callable(self.answer):
            return self.answer(query, doc)  # type: ignore[no-any-return]
        return Judgment(query, doc, stub_grade(query, doc))

    def verdict_all(self, items: Sequence[JudgmentRequest], temporal_focus: object = None) -> list:
        raise AssertionError("filling asks for grades only")


def stub_grade(query: str, doc: str) -> int:
    return hashlib.sha256(f"{query}|{doc}".encode()).digest()[0] % 5


@pytest.mark.parametrize(
    "answer",
    [
        lambda q, d: Judgment(q, d, None),  # type: ignore[arg-type]
        lambda q, d: Judgment(q, d, 5),
        lambda q, d: Judgment(q, d, -1),
        lambda q, d: Judgment(q, d, True),  # type: ignore[arg-type]
        lambda q, d: Judgment(q, d, 2.5),  # type: ignore[arg-type]
        lambda q, d: Judgment(q, "another", 2),
    ],
    ids=["None", "5", "-1", "True", "2.5", "another doc"],
)
def test_a_bad_answer_of_a_users_judge_is_an_error_naming_query_and_document(
    answer: object,
) -> None:
    with pytest.raises(MetricError, match=r"for unjudged doc 'd5' of query 'q1'.*never a 0"):
        ndcg(RUN, GOLD, k=5, fill_unjudged=StubJudge(answer))


def test_a_judge_answering_fewer_items_is_an_error() -> None:
    class Short(StubJudge):
        def grade_all(self, items: Sequence[JudgmentRequest]) -> list[Judgment]:
            return super().grade_all(items)[:-1]

    with pytest.raises(MetricError, match=r"gave 3 grades for 4 unjudged documents"):
        ndcg(RUN, GOLD, k=5, fill_unjudged=Short())


def test_a_hole_without_text_is_not_guessed_but_counted_and_named() -> None:
    result = ndcg(RUN, GOLD, k=5, fill_unjudged=StubJudge())
    assert result.filled is not None
    q1, q3 = result.filled.queries["q1"], result.filled.queries["q3"]
    assert q1.without_text == ("dnotext",) and q3.no_query_text == ("d5",)
    assert result.extra["unjudged"] == 2  # still unjudged: the score counts them non-relevant
    assert result.extra["unjudged_without_text"] == 2
    text = result.explain(n=3)
    assert "2 unjudged without text (not guessed)" in text.splitlines()[0]
    assert "1 unjudged without text: dnotext" in text
    assert "1 unjudged: the query has no text for the judge" in text
    with pytest.raises(MetricError, match=r"doc 'dnotext' \(query 'q1', rank 5\) is unjudged"):
        ndcg(RUN, GOLD, k=5, fill_unjudged=StubJudge(), strict=True)


def test_filled_grades_never_reach_the_gold_set_another_judge_or_a_call_without_fill() -> None:
    before = ndcg(RUN, GOLD, k=5)
    fours = StubJudge(lambda q, d: Judgment(q, d, 4))
    zeros = StubJudge(lambda q, d: Judgment(q, d, 0))
    high = ndcg(RUN, GOLD, k=5, fill_unjudged=fours)
    low = ndcg(RUN, GOLD, k=5, fill_unjudged=zeros)
    after = ndcg(RUN, GOLD, k=5)
    # d5 and d2 filled 4 (-> 3) lift q1; filled 0 they gain nothing and the ideal keeps d1 alone
    assert high.per_query["q1"] > before.per_query["q1"] == low.per_query["q1"]
    assert high.filled is not None and low.filled is not None
    assert high.filled.per_query["q1"] == {"d5": 3, "d2": 3}
    assert low.filled.per_query["q1"] == {"d5": 0, "d2": 0}
    assert after.per_query == before.per_query and after.filled is None
    assert GOLD.queries["q1"].relevant == {"d1": 3, "d3": 0, "dneg": -1}
    # a second gold set on the same run sees none of the first's filled grades
    other = GoldSet([GoldQuery("q1", "Who won in 2020?", relevant={"d1": 3})], GOLD.documents)
    assert ndcg(RUN, other, k=5).per_query["q1"] == pytest.approx(1 / L(3))
    assert (high.gold_fingerprint, low.gold_fingerprint) == (GOLD.fingerprint,) * 2


def test_filled_grades_stay_in_the_scale() -> None:
    # every judge grade onto every scale up to 0..8, and from a low of 1
    for low, high in [(0, top) for top in range(1, 9)] + [(1, 3), (2, 7)]:
        mapped = [judge_grade_on_scale(grade, (low, high)) for grade in range(5)]
        assert mapped[0] == low and mapped[-1] == high and mapped == sorted(mapped)
    assert grade_map(GOLD) == (0, 1, 2, 2, 3)  # 0.75 -> 1, 1.5 -> 2, 2.25 -> 2
    binary = GoldSet([GoldQuery("q1", "in 2020", relevant={"d1": 1})])
    assert grade_map(binary) == (0, 0, 1, 1, 1)  # 0.5 rounds half up to 1 (round() gives 0)
    two = GoldSet([GoldQuery("q1", "in 2020", relevant={"d1": 2})])
    assert grade_map(two) == (0, 1, 1, 2, 2)  # 0.5 -> 1 and 1.5 -> 2


@pytest.mark.parametrize(
    ("fill_grades", "message"),
    [
        ({0: 0, 1: 0, 2: 1, 3: 2}, "judge grade 4 not mapped"),
        ({0: 0, 1: 0, 2: 1, 3: 2, 4: 3, 5: 3}, "5 is no judge grade"),
        (
            {0: 0, 1: 0, 2: 1, 3: 2, 4: 4},
            r"fill_grades\[4\] = 4 is not an integer of the gold set's ",
        ),
        ({0: 0, 1: 0, 2: 1, 3: 2, 4: 2.5}, r"fill_grades\[4\] = 2.5 is not an integer"),
        ({0: -1, 1: 0, 2: 1, 3: 2, 4: 3}, r"fill_grades\[0\] = -1 is not an integer"),
        ({0: 0, 1: 0, 2: 1, 3: 2, "4": 3}, r"judge grade 4 not mapped"),
        ([0, 0, 1, 2, 3], "fill_grades maps each judge grade 0-4"),
    ],
)
def test_a_grade_mapping_outside_the_scale_is_refused(fill_grades: object, message: str) -> None:
    with pytest.raises(MetricError, match=message):
        ndcg(RUN, GOLD, k=5, fill_unjudged=StubJudge(), fill_grades=fill_grades)  # type: ignore[arg-type]


def test_a_grade_mapping_is_applied() -> None:
    lenient = {0: 0, 1: 1, 2: 2, 3: 3, 4: 3}
    result = ndcg(RUN, GOLD, k=5, fill_unjudged=StubJudge(), fill_grades=lenient)
    assert result.filled is not None
    for query, grades in result.filled.per_query.items():
        for doc, grade in grades.items():
            assert grade == lenient[stub_grade(query, doc)]


def test_the_declared_scale_maps_the_grades_and_bounds_the_mapping() -> None:
    scaled = GoldSet(GOLD.queries, GOLD.documents, grade_scale=(0, 4))
    assert grade_map(scaled) == (0, 1, 2, 3, 4)
    with pytest.raises(
        MetricError,
        match=r"fill_grades\[4\] = 5 is not an integer of the gold set's "
        r"scale 0..4 \(its grade_scale\)",
    ):
        ndcg(
            RUN, scaled, k=5, fill_unjudged=StubJudge(), fill_grades={0: 0, 1: 1, 2: 2, 3: 3, 4: 5}
        )
    # a set whose largest grade is 0 is on 0..1 (GoldSet.grade_scale): 2, 3, 4 fill a 1
    flat = GoldSet([GoldQuery("q1", "in 2020", relevant={"d1": 0})], GOLD.documents)
    assert grade_map(flat) == (0, 0, 1, 1, 1)


def test_fill_is_refused_where_it_means_nothing() -> None:
    with pytest.raises(MetricError, match=r"needs mode='gold', got mode='focus_time'"):
        temporal_ndcg(RUN, GOLD, k=5, fill_unjudged=StubJudge())
    with pytest.raises(TypeError):
        num_q(RUN, GOLD, fill_unjudged=StubJudge())  # type: ignore[call-arg]
    with pytest.raises(MetricError, match=r"NumQ has no parameter 'fill'"):
        evaluate(RUN, GOLD, ["NumQ(fill=llm)"], judge=StubJudge())  # type: ignore[arg-type]
    with pytest.raises(MetricError, match=r"fill=llm has the judge grade.*give evaluate"):
        evaluate(RUN, GOLD, ["nDCG(fill=llm)@5"])
    with pytest.raises(MetricError, match=r"fill_grades maps the grades the judge fills"):
        ndcg(RUN, GOLD, k=5, fill_grades={0: 0, 1: 0, 2: 1, 3: 2, 4: 3})
    with pytest.raises(MetricError, match=r"fill_unjudged takes a judge with grade_all"):
        ndcg(RUN, GOLD, k=5, fill_unjudged="claude")  # type: ignore[arg-type]


def test_the_measure_name_and_the_function_agree(fake: FakeMessagesServer) -> None:
    judge = judge_for(fake)
    named = evaluate(RUN, GOLD, ["nDCG(fill=llm)@5", "P(fill=llm,rel=2)@5"], judge=judge)
    direct = ndcg(RUN, GOLD, k=5, fill_unjudged=judge)
    assert named["nDCG(fill=llm)@5"].per_query == direct.per_query
    assert named["nDCG(fill=llm)@5"].measure == direct.measure == "nDCG(fill=llm)@5"
    # rel=2: q1's d5 (3), d1 (3), d2 (2); q2's d3 (2); q3 judges nothing >= 2 (left out)
    assert named["P(fill=llm,rel=2)@5"].per_query == {"q1": 3 / 5, "q2": 1 / 5}
    assert len(fake.requests) == 4  # the same prompts, asked once by this judge
    # the filled grades count as judgments for Judged@k; holes without text do not
    shares = judged(RUN, GOLD, k=5, fill_unjudged=judge).per_query
    assert shares == {"q1": 4 / 5, "q2": 1.0, "q3": 1 / 2}
    mode_gold = temporal_ndcg(RUN, GOLD, k=5, mode="gold", fill_unjudged=judge)
    assert mode_gold.per_query == direct.per_query
    assert mode_gold.measure == "T-nDCG(fill=llm,mode=gold)@5"


# -- replay, dry run, budget, batches -------------------------------------------------------------


def test_replay_from_the_cassette_is_offline_and_identical(
    fake: FakeMessagesServer, tmp_path: Path
) -> None:
    path = tmp_path / "fill.yaml"
    recording = JudgeCassette(path, "once")
    recorded = ndcg(RUN, GOLD, k=5, fill_unjudged=judge_for(fake, cassette=recording))
    recording.save()
    fake.requests.clear()
    # replay: no server, no key, no SDK call; a miss would raise
    offline = AnthropicJudge(base_url="http://127.0.0.1:9", cassette=JudgeCassette(path, "none"))
    replayed = ndcg(RUN, GOLD, k=5, fill_unjudged=offline)
    assert replayed.per_query == recorded.per_query and not fake.requests
    assert replayed.filled == recorded.filled and offline.stats.replayed == 4


def test_a_dry_run_counts_exactly_the_hole_requests(fake: FakeMessagesServer) -> None:
    with pytest.raises(JudgeDryRun) as stop:
        ndcg(RUN, GOLD, k=5, fill_unjudged=judge_for(fake, dry_run=True))
    assert (stop.value.needed, stop.value.held) == (4, 0) and not fake.requests


def test_a_budget_smaller_than_the_holes_fails_without_spending_past_it(
    fake: FakeMessagesServer,
) -> None:
    judge = judge_for(fake, budget=RequestBudget(2), max_concurrency=1)
    with pytest.raises(JudgeBudgetSpent):
        ndcg(RUN, GOLD, k=5, fill_unjudged=judge)
    assert len(fake.requests) == 2


def test_holes_recorded_through_batches_give_the_live_cassette(
    fake: FakeMessagesServer, tmp_path: Path
) -> None:
    cassettes = {}
    for batch in (False, True):
        path = tmp_path / f"batch-{batch}.yaml"
        cassette = JudgeCassette(path, "once")
        judge = judge_for(fake, cassette=cassette, batch=batch, batch_poll=0.001)
        result = ndcg(RUN, GOLD, k=5, fill_unjudged=judge)
        cassette.save()
        assert result.filled is not None and result.filled.per_query == FILLED
        cassettes[batch] = path.read_bytes()
    assert cassettes[True] == cassettes[False]


# -- the score trec_eval gives on the qrels with the filled lines added ----------------------------

pytrec_eval = pytest.importorskip("pytrec_eval")

SCALE_0_3 = {0: 0, 1: 1, 2: 2, 3: 2, 4: 3}  # round half up of g x 3 / 4, by hand
AT_5 = {
    "ndcg_cut_5": "nDCG(fill=llm)@5",
    "P_5": "P(fill=llm)@5",
    "recall_5": "R(fill=llm)@5",
    "map_cut_5": "AP(fill=llm)@5",
    "success_5": "Success(fill=llm)@5",
}
WHOLE = {
    "ndcg": "nDCG(fill=llm)",
    "map": "AP(fill=llm)",
    "recip_rank": "RR(fill=llm)",
    "bpref": "Bpref(fill=llm)",
    "Rprec": "Rprec(fill=llm)",
    "num_rel": "NumRel(fill=llm)",
    "num_rel_ret": "NumRelRet(fill=llm)",
}


@pytest.fixture(scope="module")
def collection() -> tuple[Run, GoldSet, dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """40 queries ranking 12 of 60 documents (distinct scores), 5 judged of each ranking and 2 not
    retrieved, grades -1 to 3; documents 50-59 have no text, query 7 no text."""
    import numpy as np

    rng = np.random.default_rng(29)
    qrels: dict[str, dict[str, int]] = {}
    runs: dict[str, dict[str, float]] = {}
    queries = []
    for number in range(40):
        query = f"q{number}"
        docs = [f"d{doc}" for doc in rng.choice(60, size=14, replace=False)]
        runs[query] = {doc: float(12 - rank) for rank, doc in enumerate(docs[:12])}
        judged = [*rng.choice(docs[:12], size=5, replace=False), *docs[12:]]
        qrels[query] = {str(doc): int(rng.integers(-1, 4)) for doc in judged}
        queries.append(
            GoldQuery(query, None if number == 7 else f"query {number}", relevant=qrels[query])
        )
    documents = [GoldDocument(f"d{n}", f"document {n}" if n < 50 else None) for n in range(60)]
    run = Run({query: list(ranking.items()) for query, ranking in runs.items()})
    return run, GoldSet(queries, documents), qrels, runs


def filled_qrels(
    qrels: dict[str, dict[str, int]], runs: dict[str, dict[str, float]], depth: int
) -> tuple[dict[str, dict[str, int]], set[tuple[str, str]]]:
    """The qrels with every hole of the top ``depth`` that has a text (and a query text) graded
    as the stub grades it, mapped by hand; and the holes that should be asked."""
    added = {query: dict(grades) for query, grades in qrels.items()}
    holes = set()
    for query, ranking in runs.items():
        for doc in sorted(ranking, key=lambda d: -ranking[d])[:depth]:
            if doc not in qrels[query] and int(doc[1:]) < 50 and query != "q7":
                added[query][doc] = SCALE_0_3[stub_grade(query, doc)]
                holes.add((query, doc))
    return added, holes


@pytest.mark.parametrize(("depth", "names"), [(5, AT_5), (12, WHOLE)], ids=["at 5", "whole"])
def test_every_query_equals_trec_eval_on_the_qrels_with_the_filled_lines(
    collection: tuple[Run, GoldSet, dict[str, dict[str, int]], dict[str, dict[str, float]]],
    depth: int,
    names: dict[str, str],
) -> None:
    run, gold, qrels, runs = collection
    added, holes = filled_qrels(qrels, runs, depth)
    expected = pytrec_eval.RelevanceEvaluator(added, set(names)).evaluate(runs)
    judge = StubJudge()
    results = evaluate(run, gold, list(names.values()), judge=judge, empty="zero")  # type: ignore[arg-type]
    for trec_name, measure in names.items():
        result = results[measure]
        assert set(result.per_query) == set(expected)
        for query, values in expected.items():
            assert result.per_query[query] == pytest.approx(values[trec_name], abs=1e-12), (
                measure,
                query,
            )
    # every measure asked exactly the holes with texts, never a judged document
    asked_by_call = [(q, d) for q, _, d, _ in judge.items]
    assert set(asked_by_call) == holes and len(asked_by_call) == len(holes) * len(names)


def test_judgments_are_added_to_a_copy_and_only_for_holes() -> None:
    from pytest_tempoeval import GoldSetError

    filled = GOLD.with_judgments({"q1": {"d5": 3}})
    assert filled.queries["q1"].relevant == {"d1": 3, "d3": 0, "dneg": -1, "d5": 3}
    assert GOLD.queries["q1"].relevant == {"d1": 3, "d3": 0, "dneg": -1}
    assert filled.fingerprint != GOLD.fingerprint and filled.documents is GOLD.documents
    assert filled.memo("x", lambda: 1) == 1 and GOLD.memo("x", lambda: 2) == 2
    with pytest.raises(GoldSetError, match=r"query 'q1' already judges 'dneg': only holes"):
        GOLD.with_judgments({"q1": {"dneg": 2}})
