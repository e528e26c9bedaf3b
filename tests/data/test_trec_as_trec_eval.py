"""TREC files read as trec_eval 10 reads them: comment lines, negative grades, extra run fields,
and run queries the gold set lacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_tempoeval import GoldSet, Run, RunError, ndcg, precision, temporal_ndcg


def write(tmp_path: Path, text: str, name: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_comment_lines_are_skipped_and_keep_line_numbers(tmp_path: Path) -> None:
    qrels = write(tmp_path, "# judged by 2\nq1 0 d1 1\n\n#x\nq1 0 d2 oops\n", "c.qrels")
    with pytest.raises(Exception, match=r"c\.qrels:5: grade 'oops'"):  # lines still counted
        GoldSet.from_trec_qrels(qrels)
    qrels.write_text("# judged by 2\nq1 0 d1 1\n# a comment of four\nq2 0 d2 2\n")
    gold = GoldSet.from_trec_qrels(qrels)
    assert gold.query_ids == ("q1", "q2")  # '# judged by 2' is not a query named '#'
    assert gold.line_of("q2") == 4


def test_a_hash_inside_a_line_or_after_blanks_is_data(tmp_path: Path) -> None:
    """trec_eval 10 reads '#' as a comment in the first column only (MS MARCO v2.1 ids hold '#')."""
    gold = GoldSet.from_trec_qrels(write(tmp_path, "q1 0 doc#4_12 1\n #q 0 d 1\n", "h.qrels"))
    assert gold.query_ids == ("q1", "#q")
    assert gold.queries["q1"].relevant == {"doc#4_12": 1}


def test_run_comment_lines_and_extra_fields(tmp_path: Path) -> None:
    run = Run.load(
        write(
            tmp_path,
            "# run of 2026\nq1 Q0 d1 1 2.0 tag extra fields\nq1 Q0 d2 2 1.0 tag\n",
            "r.trec",
        )
    )
    assert run["q1"] == ["d1", "d2"] and run.scores("q1") == [2.0, 1.0]


def test_fields_past_the_sixth_on_every_line_of_a_long_run(tmp_path: Path) -> None:
    lines = "".join(f"q{i % 7} Q0 d{i} {i} {1000 - i} tag x\n" for i in range(500))
    run = Run.load(write(tmp_path, lines, "wide.trec"))
    assert len(run) == 7 and run["q0"][0] == "d0"


def test_negative_grades_are_judged_but_never_relevant(tmp_path: Path) -> None:
    gold = GoldSet.from_trec_qrels(write(tmp_path, "q 0 a -2\nq 0 b 1\nq 0 c -1\n", "n.qrels"))
    assert gold.queries["q"].relevant == {"a": -2, "b": 1, "c": -1}
    run = Run({"q": ["a", "c", "b"]})
    result = precision(run, gold, k=3)
    assert result.per_query["q"] == pytest.approx(1 / 3)
    assert result.extra["unjudged"] == 0  # -2 and -1 are judgments
    graded = ndcg(run, gold, k=3)  # gain 0 for negative grades: DCG = 1 / log2(4)
    assert graded.per_query["q"] == pytest.approx(0.5)
    assert graded.explain_query("q").retrieved == [("a", 0.0), ("c", 0.0), ("b", 1.0)]


def test_run_queries_the_gold_set_lacks_are_ignored_counted_and_can_be_refused(
    tmp_path: Path,
) -> None:
    gold = GoldSet.from_trec_qrels(write(tmp_path, "q1 0 d1 1\n", "g.qrels"))
    run = Run.load(write(tmp_path, "q1 Q0 d1 1 2 t\nq8 Q0 d1 1 2 t\nq9 Q0 d1 1 2 t\n", "r.trec"))
    result = ndcg(run, gold, k=5)
    assert float(result) == 1.0 and result.extra["ignored_run_queries"] == ["q8", "q9"]
    assert "2 run queries not in the gold set (ignored)" in result.summary()
    assert (
        "ignored (run queries not in the gold set; strict=True refuses): q8, q9" in result.explain()
    )
    with pytest.raises(
        RunError, match=r"r\.trec:2: query 'q8' \(and 1 more\) is not in the gold set"
    ):
        ndcg(run, gold, k=5, strict=True)
    with pytest.raises(RunError, match="strict=True"):
        temporal_ndcg(run, gold, k=5, mode="gold", strict=True)
