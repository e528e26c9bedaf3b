"""The baseline gate's statistics: exact on hand-computed cases, deterministic, about alpha false
positives on simulated no-change pairs, and able to see a real 0.05 drop over 50 queries."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_tempoeval.gate.baselines import MIN_QUERIES_FOR_TEST, compare
from pytest_tempoeval.gate.randomization import paired_randomization_p


def scores(values) -> dict[str, float]:
    return {f"q{i:03d}": float(v) for i, v in enumerate(values)}


def exact_p(baseline, current) -> float:
    """Every sign assignment, enumerated independently of the implementation."""
    differences = [c - b for b, c in zip(baseline, current, strict=True)]
    observed = sum(differences)
    sums = [
        sum(s * d for s, d in zip(signs, differences, strict=True))
        for signs in itertools.product((1, -1), repeat=len(differences))
    ]
    return sum(total <= observed + 1e-9 for total in sums) / len(sums)


# -- the p-value -----------------------------------------------------------------------------------


def test_hand_computed_three_queries() -> None:
    # differences -0.3, -0.1, +0.2 (sum -0.2); the 8 signed sums are 0.6, 0.2, 0.4, 0.0, 0.0, -0.4,
    # -0.2, -0.6, and 3 of them are <= -0.2.
    assert paired_randomization_p([0.5, 0.5, 0.5], [0.2, 0.4, 0.7]) == pytest.approx(3 / 8)


def test_every_query_worse_by_the_same_amount_is_the_smallest_exact_p() -> None:
    assert paired_randomization_p([0.5] * 10, [0.4] * 10) == 1 / 1024


def test_no_change_is_p_one() -> None:
    assert paired_randomization_p([0.3, 0.9, 0.5] * 5, [0.3, 0.9, 0.5] * 5) == 1.0


SCORE = st.integers(0, 100).map(
    lambda value: value / 100
)  # a grid: ties are real ties, not float noise


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(SCORE, SCORE), min_size=1, max_size=9))
def test_exact_mode_matches_enumeration(pairs) -> None:
    baseline, current = zip(*pairs, strict=True)
    assert paired_randomization_p(baseline, current) == pytest.approx(
        exact_p(baseline, current), abs=1e-12
    )


def test_sampled_p_is_close_to_exact_and_deterministic() -> None:
    rng = np.random.default_rng(7)
    baseline = rng.uniform(0.2, 1.0, 15)  # 2**15 > 10,000 permutations: sampled
    current = baseline + rng.normal(-0.03, 0.1, 15)
    sampled = paired_randomization_p(baseline, current)
    assert sampled == paired_randomization_p(baseline, current)  # seeded
    assert sampled == pytest.approx(
        exact_p(baseline.tolist(), current.tolist()), abs=0.01
    )  # 10,000 draws: sd ~0.005


# -- the gate --------------------------------------------------------------------------------------


def test_a_significant_drop_beyond_max_drop_regresses_and_lists_queries_worst_first() -> None:
    # Five queries drop, seven are unchanged: the observed sum is the lowest of the 2**5 distinct
    # signed sums, so p = 1/32. (With four dropped queries p would be 1/16 > 0.05: too few to tell.)
    before, after = [0.8] * 12, [0.8] * 7 + [0.5, 0.6, 0.7, 0.4, 0.75]
    comparison = compare("nDCG@10", scores(before), scores(after), max_drop=0.0, alpha=0.05)
    assert comparison.status == "regressed" and not comparison.passed
    assert comparison.delta == pytest.approx(-1.05 / 12)
    assert comparison.p_value == exact_p(before, after) == 1 / 32
    assert [query for query, _, _ in comparison.regressed] == [
        "q010",
        "q007",
        "q008",
        "q009",
        "q011",
    ]


def test_four_dropped_queries_are_too_few_to_be_significant() -> None:
    before, after = [0.8] * 12, [0.8] * 8 + [0.5, 0.6, 0.7, 0.4]
    comparison = compare("m", scores(before), scores(after), max_drop=0.0, alpha=0.05)
    assert comparison.p_value == 1 / 16 and comparison.status == "pass"


def test_a_drop_within_max_drop_passes_even_when_significant() -> None:
    comparison = compare("m", scores([0.8] * 20), scores([0.79] * 20), max_drop=0.02, alpha=0.05)
    assert comparison.status == "pass" and comparison.p_value < 0.05


def test_a_drop_that_is_not_significant_passes() -> None:
    baseline = scores([0.9, 0.1] * 10)
    current = scores([0.1, 0.85] * 10)  # mean 0.5 -> 0.475, but half the queries improved
    comparison = compare("m", baseline, current, max_drop=0.0, alpha=0.05)
    assert comparison.delta < 0 and comparison.p_value > 0.05 and comparison.status == "pass"


def test_under_ten_queries_max_drop_alone_decides() -> None:
    small = MIN_QUERIES_FOR_TEST - 1
    comparison = compare(
        "m", scores([0.8] * small), scores([0.7] * small), max_drop=0.05, alpha=0.05
    )
    assert comparison.p_value is None and comparison.status == "regressed"
    assert (
        compare(
            "m", scores([0.8] * small), scores([0.76] * small), max_drop=0.05, alpha=0.05
        ).status
        == "pass"
    )


def test_an_improvement_passes_and_says_the_baseline_can_be_raised() -> None:
    comparison = compare("m", scores([0.5] * 12), scores([0.6] * 12), max_drop=0.0, alpha=0.05)
    assert (
        comparison.status == "improved"
        and comparison.passed
        and comparison.note == "baseline can be raised"
    )


def test_queries_are_paired_by_id_not_position() -> None:
    baseline = scores([0.1 * i for i in range(12)])
    shuffled = dict(reversed(list(baseline.items())))  # same scores, opposite order
    comparison = compare("m", baseline, shuffled, max_drop=0.0, alpha=0.05)
    assert comparison.p_value == 1.0 and comparison.regressed == [] and comparison.status == "pass"


def test_a_query_the_result_no_longer_counts_scores_zero_not_nothing() -> None:
    """In llm mode a query with nothing judged relevant is excluded: the worst regression must not
    vanish from the comparison."""
    baseline = scores([0.9] * 12)
    current = {query: score for query, score in baseline.items() if query >= "q006"}
    comparison = compare("m", baseline, current, max_drop=0.0, alpha=0.05)
    assert comparison.status == "regressed" and comparison.queries == 12
    assert comparison.lost == [
        f"q{i:03d}" for i in range(6)
    ] and comparison.current == pytest.approx(0.45)
    assert comparison.p_value == 1 / 64


# -- simulated suites ------------------------------------------------------------------------------
# Per-query "difficulty" q ~ U(0.2, 0.95); a system's score is q plus its own noise, clipped to
# [0, 1]. Under no change, baseline and current are two independent runs of the same system:
# exchangeable.


def simulate(
    rng: np.random.Generator, queries: int, drop: float, noise: float
) -> tuple[dict, dict]:
    difficulty = rng.uniform(0.2, 0.95, queries)
    baseline = np.clip(difficulty + rng.normal(0, noise, queries), 0, 1)
    current = np.clip(difficulty - drop + rng.normal(0, noise, queries), 0, 1)
    return scores(baseline), scores(current)


def test_false_positive_rate_is_about_alpha_on_no_change_pairs() -> None:
    rng = np.random.default_rng(20261121)
    trials = 2000
    failures = sum(
        compare(
            "m", *simulate(rng, 50, 0.0, 0.1), max_drop=0.0, alpha=0.05, permutations=1000
        ).status
        == "regressed"
        for _ in range(trials)
    )
    # Binomial(2000, 0.05): sd 0.0049, so +-3 sd is [0.035, 0.065].
    assert 0.035 <= failures / trials <= 0.065


def test_a_real_drop_of_005_over_50_queries_is_detected() -> None:
    rng = np.random.default_rng(5)
    trials = 300
    detected = sum(
        compare(
            "m", *simulate(rng, 50, 0.05, 0.05), max_drop=0.0, alpha=0.05, permutations=1000
        ).status
        == "regressed"
        for _ in range(trials)
    )
    assert detected / trials >= 0.95  # per-query difference sd ~0.07: t ~ 5


def test_a_drop_of_005_concentrated_on_a_fifth_of_the_queries_is_detected() -> None:
    """The usual shape of a regression: most queries unchanged, some much worse."""
    rng = np.random.default_rng(6)
    baseline = rng.uniform(0.4, 1.0, 50)
    current = baseline + rng.normal(0, 0.02, 50)
    current[:10] -= 0.25  # mean drop 0.05
    comparison = compare("m", scores(baseline), scores(current), max_drop=0.0, alpha=0.05)
    assert comparison.status == "regressed" and comparison.p_value < 0.01
    assert {query for query, _, _ in comparison.regressed[:10]} == {f"q{i:03d}" for i in range(10)}


# -- BaselineStore's own error paths ---------------------------------------------------------------


def result_for(values: list[float], judge_model: str | None = None, metric: str = "temporal_ndcg"):
    from pytest_tempoeval import MetricResult

    return MetricResult(
        name=metric,
        k=10,
        mode="llm",
        per_query=scores(values),
        extra={"judge_model": judge_model} if judge_model else {},
    )


@pytest.mark.parametrize(
    ("written", "checked", "name", "message"),
    [
        (
            {"judge_model": "claude-haiku-5-5"},
            {"judge_model": "claude-opus-4-5"},
            None,
            (
                r"re-baseline: the judge model changed .*claude-haiku-5-5 -> claude-opus"
                r".*--tempoeval-update-baseline"
            ),
        ),
        # name= keys a check by hand, so it can outlive its measure: T-P@10 was compared with the
        # T-nDCG@10 baseline (same k and mode), and a drop to 0.4 passed as "improved" from 0.3.
        (
            {},
            {"metric": "temporal_precision"},
            "main",
            (
                r"b.json: re-baseline: the measure changed since the baseline of main "
                r"\(temporal_ndcg@10 -> temporal_precision@10\); scores are not comparable"
            ),
        ),
    ],
    ids=["judge-model", "measure-under-one-name"],
)
def test_a_changed_judge_model_or_measure_asks_for_a_re_baseline(
    tmp_path, written: dict, checked: dict, name: str | None, message: str
) -> None:
    from pytest_tempoeval import BaselineError, BaselineStore

    writer = BaselineStore(tmp_path / "b.json", update=True, test_id="t.py::t")
    writer.check(result_for([0.3] * 12, **written), name=name)
    assert writer.finish()
    reader = BaselineStore(tmp_path / "b.json", update=False, test_id="t.py::t")
    with pytest.raises(BaselineError, match=message):
        reader.check(result_for([0.4] * 12, **checked), name=name)


def test_checking_one_metric_twice_needs_a_name_and_bad_settings_are_refused(tmp_path) -> None:
    from pytest_tempoeval import BaselineError, BaselineStore

    store = BaselineStore(tmp_path / "b.json", update=True, test_id="t.py::t")
    store.check(result_for([0.5] * 3))
    with pytest.raises(
        BaselineError, match="temporal_ndcg@10 is checked twice in this test; pass name="
    ):
        store.check(result_for([0.6] * 3))
    store.check(result_for([0.6] * 3), name="reranker")  # told apart
    for max_drop, alpha in ((float("inf"), 0.05), (-0.1, 0.05), (0.0, 1.0)):
        with pytest.raises(ValueError, match="max_drop must be >= 0 and alpha in"):
            store.check(
                result_for([0.5] * 3),
                max_drop=max_drop,
                alpha=alpha,
                name=f"bad {max_drop} {alpha}",
            )


@pytest.mark.parametrize("score", [1e308, -2e6, 10**400])
def test_a_baseline_score_out_of_any_metric_range_is_refused_naming_the_file(
    tmp_path, score: float
) -> None:
    """1e308 would overflow the sums of the gate; no metric scores outside [-1, 1]."""
    import json

    from pytest_tempoeval import BaselineError
    from pytest_tempoeval.gate.baselines import FORMAT_VERSION, BaselineStore

    path = tmp_path / "test_m" / "test_x.json"
    path.parent.mkdir()
    document = {"version": FORMAT_VERSION, "results": {"nDCG@10": {"per_query": {"q": score}}}}
    path.write_text(json.dumps(document))
    with pytest.raises(BaselineError, match=rf"{path}: not a tempoeval baseline: .*query 'q'"):
        BaselineStore(path, update=False).read()


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ('{"version": 1,\n"version": 1, "results": {}}', 2, "duplicate key 'version'"),
        (
            (
                '{"version": 1, "results": {"nDCG@10": {"per_query":\n'
                '{"q1": 0.5,\n"q2": 0.5,\n"q1": 0.0}}}}'
            ),
            4,
            "duplicate key 'q1' (first at line 2)",
        ),
        ('{"version": 1, "results": {"nDCG@10": {"per_query":\n{"q1": NaN}}}}', 2, "NaN is not"),
        ("", 1, "the file is empty"),
    ],
    ids=["top-level", "per-query", "nan", "empty"],
)
def test_a_baseline_json_python_would_read_silently_is_refused_at_its_line(
    tmp_path, text: str, line: int, problem: str
) -> None:
    """json.loads keeps the last of two equal keys and reads NaN: either could make a regression
    pass. Both are errors naming the file, the line and the key, with what to do."""
    import re

    from pytest_tempoeval import BaselineError
    from pytest_tempoeval.gate.baselines import BaselineStore

    path = tmp_path / "b.json"
    path.write_text(text)
    with pytest.raises(BaselineError) as error:
        BaselineStore(path, update=False, test_id="t.py::t").read()
    assert str(error.value).startswith(f"{path}:{line}: {problem}")
    assert re.search(
        r"The baseline was left as it is: fix it \(see git history\), or rewrite it with: "
        r"pytest 't.py::t' --tempoeval-update-baseline$",
        str(error.value),
    )


@pytest.mark.parametrize("share", ["1e999", "-0.5", "2", '"all"'])
def test_a_judged_share_outside_0_1_is_refused_naming_the_query(tmp_path, share: str) -> None:
    from pytest_tempoeval import BaselineError
    from pytest_tempoeval.gate.baselines import BaselineStore

    path = tmp_path / "b.json"
    path.write_text(
        '{"version": 1, "results": {"nDCG@10": {"per_query": {"q": 0.5}, "judged": {"q": '
        + share
        + "}}}}"
    )
    with pytest.raises(
        BaselineError, match=rf"{path}: not a tempoeval baseline: result 'nDCG@10', query 'q': "
    ):
        BaselineStore(path, update=False).read()


@pytest.mark.parametrize("given", [0.5, "0.5", None])
def test_checking_anything_but_a_metric_result_is_a_type_error_naming_what_to_pass(
    tmp_path, given
) -> None:
    """float(result) has no per-query scores to pair: the error says what to pass instead."""
    from pytest_tempoeval import BaselineStore

    store = BaselineStore(tmp_path / "b.json", update=True, test_id="t.py::t")
    with pytest.raises(
        TypeError,
        match=r"^tempoeval_baseline\.check\(\) takes a MetricResult, .* evaluate\(\.\.\.\)"
        rf"\[measure\] returns, got {type(given).__name__} .*: pass the result itself",
    ):
        store.check(given)
    assert not store.checked and not store.finish()
