"""The ``tempoeval`` command: evaluate, compare and check, their formats, exit codes and errors.

Most cases call ``main()`` in-process; a few run the installed console script and
``python -m pytest_tempoeval`` as a user would.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import sysconfig
import warnings
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from cli_helpers import run_main

DATA = Path(__file__).parent / "data" / "trec_eval"
QRELS, RUN, TRUNC = (
    str(DATA / "qrels.test"),
    str(DATA / "results.test"),
    str(DATA / "results.trunc"),
)
GOLD_YAML = Path(__file__).parent.parent / "examples" / "gold" / "mini_elections.yaml"


def trec_eval_lines(name: str, measures: set[str]) -> list[str]:
    """trec_eval's printed lines of some measures, whitespace as trec_eval prints it."""
    return [line for line in (DATA / name).read_text().splitlines() if line.split()[0] in measures]


# -- evaluate --------------------------------------------------------------------------------------


def test_evaluate_in_trec_format_prints_what_trec_eval_printed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A script written for trec_eval's -q output reads the same lines: same names, same layout,
    same values, per query then `all`."""
    measures = ["map", "P_5", "P_10", "recall_100", "recip_rank", "ndcg_cut_10", "map_cut_100"]
    code, out, _ = run_main(
        capsys, "evaluate", RUN, QRELS, "-q", "--format", "trec", "-m", *measures
    )
    assert code == 0
    expected = trec_eval_lines("out.test.aq", set(measures))
    assert sorted(out.splitlines()) == sorted(expected)
    assert len(expected) == len(measures) * 4  # 3 queries and all


def test_evaluate_text_is_a_table_with_what_was_left_out(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    run = tmp_path / "run.trec"
    run.write_text(
        "us-2016 Q0 us2016 1 2.0 r\nus-2016 Q0 fr2017 2 1.0 r\nnot-judged Q0 x 1 1.0 r\n"
    )
    code, out, _ = run_main(capsys, "evaluate", str(run), str(GOLD_YAML), "-m", "P(rel=2)@2", "RR")
    assert code == 0
    lines = out.splitlines()
    assert lines[1].split() == ["measure", "mean", "queries", "excluded"]
    # P(rel=2)@2: us-2016 0.5, the 3 gold queries missing from the run 0 (as trec_eval -c).
    assert lines[2].split() == ["P(rel=2)@2", "0.1250", "4", "0"]
    assert lines[3].split() == ["RR", "0.2500", "4", "0"]
    assert "P(rel=2)@2: 1 run query not in the gold set (not-judged)" in out


def test_evaluate_text_columns_are_as_wide_as_their_widest_cell(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Means of 10 and more (DCG, NumRet) and names shorter than the header keep the columns.
    The values: trec_eval's recip_rank and num_ret (out.test.a) and the binary's dcg."""
    code, out, _ = run_main(capsys, "evaluate", RUN, QRELS, "-m", "RR", "DCG", "NumRet")
    assert code == 0
    table = out.splitlines()[1:5]
    assert table[0] == "measure       mean  queries  excluded"
    assert [len(line) for line in table] == [len(table[0])] * 4
    assert [line.split()[1] for line in table[1:]] == ["0.4064", "7.9927", "1500.0000"]


def test_evaluate_json_and_per_query(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "evaluate", RUN, QRELS, "-m", "AP", "--format", "json", "-q")
    assert code == 0
    data = json.loads(out)["measures"]["AP"]
    assert data["measure"] == "AP" and f"{data['score']:.4f}" == "0.1785"
    assert {query: f"{value:.4f}" for query, value in data["per_query"].items()} == {
        "301": "0.0324",
        "302": "0.4175",
        "303": "0.0858",
    }


def test_evaluate_reads_a_beir_folder_and_checks_a_split(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = Path(__file__).parent.parent / "fixtures" / "beir" / "temporal-news"
    run = tmp_path / "run.trec"
    run.write_text("q-us-election-2020 Q0 us-2020 1 1.0 r\n")
    code, out, _ = run_main(capsys, "evaluate", str(run), str(folder), "-m", "Success@1")
    assert code == 0 and out.splitlines()[0].endswith("(61 queries)")
    assert out.splitlines()[2].split() == ["Success@1", f"{1 / 61:.4f}", "61", "0"]
    code, out, _ = run_main(capsys, "check", str(folder), "--split", "dev")
    assert code == 1 and "dev.tsv" in out  # check reports a problem on stdout, and exits 1
    code, _, err = run_main(capsys, "evaluate", str(run), str(folder), "--split", "dev")
    assert code == 2 and "dev.tsv" in err


@pytest.mark.parametrize(
    ("form", "printed"),
    [("text", "nDCG@10  0.0000"), ("json", '"score": 0.0'), ("trec", "ndcg_cut_10")],
)
def test_evaluate_prints_the_scores_then_exits_2_when_the_gold_set_knows_no_retrieved_id(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, form: str, printed: str
) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\nq2 0 d2 1\n")
    positions = tmp_path / "run"  # row numbers where the gold set has ids
    positions.write_text("q1 Q0 0 1 2.0 r\nq1 Q0 1 2 1.0 r\nq2 Q0 0 1 2.0 r\n")
    code, out, err = run_main(
        capsys, "evaluate", str(positions), str(qrels), "-m", "nDCG@10", "--format", form
    )
    assert code == 2
    assert printed in out  # the scores are printed all the same
    assert err.startswith(
        "tempoeval: error: none of the 3 retrieved ids is known to the gold set (e.g. '0', '1'); "
        "the gold set's ids look like 'd1', 'd2'; a number id is read as its decimal text"
    )
    if form == "text":
        assert "nDCG@10: none of the 3 retrieved ids in the top 10 is known to the gold set" in out


def test_evaluate_names_ids_the_gold_set_does_not_know(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\n")
    run = tmp_path / "run"
    run.write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 other 2 1.0 r\n")
    code, out, _ = run_main(capsys, "evaluate", str(run), str(qrels), "-m", "P@2")
    assert code == 0
    assert "P@2: 1 of 2 retrieved ids in the top 2 unknown to the gold set (e.g. 'other')" in out


def unsupported_named(err: str) -> list[str]:
    """The measures a note on stderr names as not supported (our words)."""
    for line in err.splitlines():
        for lead in ("not supported, left out: ", "default measures not supported, left out: "):
            if lead in line:
                return line.split(lead, 1)[1].rsplit(" (", 1)[0].split(", ")
    return []


def test_evaluate_with_no_m_in_trec_format_is_trec_eval_s_default_output(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """trec_eval's 30 lines of out.test, but those of the measures named as not supported yet."""
    code, out, err = run_main(capsys, "evaluate", RUN, QRELS, "--format", "trec")
    assert code == 0
    left_out = unsupported_named(err)
    expected = (DATA / "out.test").read_text().splitlines(keepends=True)
    assert set(left_out) <= {line.split()[0] for line in expected}
    assert out.splitlines(keepends=True) == [
        line for line in expected if line.split()[0] not in left_out
    ]


@pytest.mark.parametrize("form", ["text", "json"])
def test_evaluate_with_no_m_in_text_and_json_scores_trec_eval_s_default_measures(
    capsys: pytest.CaptureFixture[str], form: str
) -> None:
    """The rows (keys) are the package's names of trec_eval's default measures (out.test, but
    runid); each one the package lacks is named after the scores."""
    from pytest_tempoeval.metrics.measures import parse_measure, trec_eval_name

    code, out, err = run_main(capsys, "evaluate", RUN, QRELS, "--format", form)
    assert code == 0
    if form == "json":
        shown = list(json.loads(out)["measures"])
    else:
        shown = [
            line.split()[0] for line in out.splitlines()[2:] if not line.split()[0].endswith(":")
        ]
    default = [line.split()[0] for line in (DATA / "out.test").read_text().splitlines()][1:]
    printed = [trec_eval_name(parse_measure(measure)) for measure in shown]
    assert sorted(printed + unsupported_named(err), key=default.index) == default
    assert "AP" in shown and "P@1000" in shown


def test_evaluate_trec_format_scores_a_query_with_nothing_relevant_as_trec_eval_does(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Issue 27: on trec_eval's comment files, query 2024-36302 (every judgment grade 0) was left
    out of the mean, printing 0.2779 / 0.8267 / 0.8881 where out.comment.test has 0.2689 / 0.8000 /
    0.8595. It scores 0 and counts, in trec_eval's -q lines too; text still names it."""
    import gzip

    run = tmp_path / "results.comment.test"
    run.write_bytes(gzip.decompress((DATA / "results.comment.test.gz").read_bytes()))
    qrels = str(DATA / "qrels.comment.test")
    code, out, _ = run_main(
        capsys, "evaluate", str(run), qrels, "-m", "map", "P_5", "recip_rank", "--format", "trec"
    )
    assert code == 0
    assert sorted(out.splitlines()) == sorted(
        trec_eval_lines("out.comment.test", {"map", "P_5", "recip_rank"})
    )
    code, out, _ = run_main(
        capsys, "evaluate", str(run), qrels, "-m", "map", "-q", "--format", "trec"
    )
    assert "map                   \t2024-36302\t0.0000\n" in out and out.count("\n") == 31 + 1
    code, out, _ = run_main(capsys, "evaluate", str(run), qrels, "-m", "map")
    assert "AP: 1 excluded: no relevant document judged (2024-36302)" in out


def test_evaluate_trec_format_prints_an_empty_mean_as_trec_eval(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """qrels.test grades are 0 and 1: at rel=2 no query has a relevant document. It printed
    `all nan`; trec_eval -l2 -m P.5 prints 0.0000 (every query scores 0, and counts)."""
    grades = {line.split()[3] for line in Path(QRELS).read_text().splitlines()}
    assert grades == {"0", "1"}
    code, out, _ = run_main(capsys, "evaluate", RUN, QRELS, "-m", "P(rel=2)@5", "--format", "trec")
    assert (code, out) == (0, f"{'P(rel=2)@5':<22}\tall\t0.0000\n")


def test_evaluate_trec_format_lists_queries_in_trec_eval_s_order(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Query ids 9, 10, 100, Q, q-é: trec_eval sorts them as strcmp does (10, 100, 9, Q, q-é),
    not in the gold file's order; the lines are the trec_eval binary's (generated/out.order)."""
    generated = DATA / "generated"
    code, out, _ = run_main(
        capsys,
        "evaluate",
        str(generated / "results.order"),
        str(generated / "qrels.order"),
        "-m",
        "map",
        "ndcg_cut_3",
        "-q",
        "--format",
        "trec",
    )
    assert code == 0
    expected = [
        line
        for line in (generated / "out.order").read_text(encoding="utf-8").splitlines()
        if line.split()[0] in ("map", "ndcg_cut_3") and "\tall\t" not in line
    ]
    assert out.splitlines()[:-2] == expected


# -- compare ---------------------------------------------------------------------------------------


def write_runs(tmp_path: Path, worse: int) -> tuple[str, str, str]:
    """A 12-query gold set; the new run puts the relevant document second on ``worse`` queries."""
    qrels = "".join(f"q{i:02d} 0 d{i} 2\n" for i in range(12))
    base = "".join(f"q{i:02d} Q0 d{i} 1 2 r\nq{i:02d} Q0 x{i} 2 1 r\n" for i in range(12))
    new = "".join(
        f"q{i:02d} Q0 x{i} 1 2 r\nq{i:02d} Q0 d{i} 2 1 r\n"
        if i < worse
        else f"q{i:02d} Q0 d{i} 1 2 r\nq{i:02d} Q0 x{i} 2 1 r\n"
        for i in range(12)
    )
    for name, text in (("qrels", qrels), ("base", base), ("new", new)):
        (tmp_path / name).write_text(text)
    return str(tmp_path / "base"), str(tmp_path / "new"), str(tmp_path / "qrels")


def test_compare_refuses_a_run_whose_ids_the_gold_set_does_not_know(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Two runs of foreign ids both score 0: no drop, exit 0, before."""
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"q{i:02d} 0 d{i} 2\n" for i in range(12)))
    foreign = tmp_path / "foreign"
    foreign.write_text("".join(f"q{i:02d} Q0 u{i} 1 2 r\n" for i in range(12)))
    code, _, err = run_main(
        capsys, "compare", str(foreign), str(foreign), str(qrels), "-m", "nDCG@10"
    )
    assert code == 2
    assert "BASE: none of the 12 retrieved ids is known to the gold set (e.g. 'u0', 'u1'" in err


def test_compare_exits_1_on_a_significant_drop_and_lists_the_queries(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    base, new, qrels = write_runs(tmp_path, worse=12)
    code, out, _ = run_main(capsys, "compare", base, new, qrels, "-m", "nDCG@2", "RR", "P@1")
    assert code == 1
    rows = {line.split()[0]: line.split() for line in out.splitlines()[2:5]}
    # Every query drops: exact p = 2**-12; Holm over 3 measures: 3 x 2**-12 = 0.0007.
    assert rows["nDCG@2"] == [
        "nDCG@2",
        "1.0000",
        "0.6309",
        "-0.3691",
        "0.0002",
        "0.0007",
        "regressed",
    ]
    assert rows["RR"][1:4] == ["1.0000", "0.5000", "-0.5000"]
    assert "nDCG@2: queries that got worse (base -> new), worst first; 2 more:" in out
    assert "  q00: 1.0000 -> 0.6309 (-0.3691)" in out
    assert "regressed: nDCG@2, RR, P@1 (drop > 0 and p < 0.05, Holm-corrected)" in out


def test_compare_corrects_across_measures_and_can_be_told_not_to(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """5 of 12 queries drop: p = 1/32 = 0.031 for each of 3 measures. Uncorrected that is a
    regression; Holm-corrected (3 x 0.031 = 0.094) it is not."""
    base, new, qrels = write_runs(tmp_path, worse=5)
    measures = ["-m", "nDCG@2", "RR", "P@1"]
    code, out, _ = run_main(capsys, "compare", base, new, qrels, *measures, "--format", "json")
    assert code == 0
    rows = json.loads(out)["measures"]
    assert [row["p"] for row in rows] == [0.03125] * 3
    assert [row["p_adjusted"] for row in rows] == [0.09375] * 3
    assert {row["verdict"] for row in rows} == {"ok"}
    code, _, _ = run_main(capsys, "compare", base, new, qrels, *measures, "--correction", "none")
    assert code == 1
    code, _, _ = run_main(capsys, "compare", base, new, qrels, *measures, "--max-drop", "0.5")
    assert code == 0


def test_compare_names_a_fall_of_judged_documents(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run_main(capsys, "compare", RUN, TRUNC, QRELS, "-m", "P@10")
    assert code == 1  # 3 queries: too few to test, so the drop alone decides
    assert "P@10: Judged@10 fell from 1.00 to 0.67: part of this drop may be unjudged" in out


def test_compare_sees_a_drop_under_exponential_gain_of_a_large_grade(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Grade 1100 is within the bound, and 2**1100 overflows a float: the scores were NaN, and the
    verdict ok. The new run puts the grade-1 document first: nDCG = 1/log2(3) to 2**-1100."""
    qrels = "".join(f"q{i:02d} 0 top{i} 1100\nq{i:02d} 0 low{i} 1\n" for i in range(12))
    base = "".join(f"q{i:02d} Q0 top{i} 1 2 r\nq{i:02d} Q0 low{i} 2 1 r\n" for i in range(12))
    new = "".join(f"q{i:02d} Q0 low{i} 1 2 r\nq{i:02d} Q0 top{i} 2 1 r\n" for i in range(12))
    for name, text in (("qrels", qrels), ("base", base), ("new", new)):
        (tmp_path / name).write_text(text)
    files = [str(tmp_path / name) for name in ("base", "new", "qrels")]
    code, out, _ = run_main(capsys, "compare", *files, "-m", "nDCG(gain=exp)@10")
    assert code == 1
    assert out.splitlines()[2].split()[:4] == [
        "nDCG(gain=exp)@10",
        "1.0000",
        f"{1 / math.log2(3):.4f}",
        f"{1 / math.log2(3) - 1:+.4f}",
    ]
    code, out, _ = run_main(capsys, "evaluate", files[1], files[2], "-m", "nDCG(gain=exp)@10")
    assert code == 0 and out.splitlines()[2].split()[1] == f"{1 / math.log2(3):.4f}"


def test_a_nan_score_is_an_error_never_a_verdict(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever makes a score NaN (here: the overflowing exponential gain this package had), NaN
    compares false with everything: compare would say ok, evaluate print nan. Both exit 2."""
    from pytest_tempoeval.metrics import kernels

    monkeypatch.setattr(kernels, "_exponential", lambda relevance, _: 2.0**relevance - 1.0)
    (tmp_path / "qrels").write_text("q1 0 a 1100\nq1 0 b 1\nq2 0 a 1\n")
    (tmp_path / "run").write_text("q1 Q0 b 1 2 r\nq1 Q0 a 2 1 r\nq2 Q0 a 1 1 r\n")
    run, qrels = str(tmp_path / "run"), str(tmp_path / "qrels")
    for argv in (["compare", run, run, qrels], ["evaluate", run, qrels]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # numpy's overflow warning
            code, out, err = run_main(capsys, *argv, "-m", "nDCG(gain=exp)@10", "P@1")
        assert code == 2 and out == ""
        assert err == (
            f"tempoeval: error: {run}: nDCG(gain=exp)@10 [gold] is NaN, so it cannot be compared: "
            "counted queries with a NaN score: 1 ('q1')\n"
        )


def test_one_measure_given_in_several_spellings_is_counted_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """6 of 12 queries drop: p = 2**-6 = 0.0156. Counted 4 times, Holm made it 0.0625: ok."""
    base, new, qrels = write_runs(tmp_path, worse=6)
    spellings = ["nDCG@2", "ndcg_cut_2", "nDCG@2", "ndcg_cut.2"]
    code, out, err = run_main(capsys, "compare", base, new, qrels, "-m", *spellings)
    assert code == 1
    assert [line.split()[0] for line in out.splitlines()[2:]].count("nDCG@2") == 1
    assert out.splitlines()[2].split()[4:] == ["0.0156", "0.0156", "regressed"]
    note = "tempoeval: note: nDCG@2, ndcg_cut_2, nDCG@2, ndcg_cut.2 are one measure, nDCG@2"
    assert err.startswith(note)
    code, out, err = run_main(capsys, "evaluate", RUN, QRELS, "-m", "P@5", "P_5", "AP")
    rows = [line.split()[0] for line in out.splitlines()[2:] if not line.split()[0].endswith(":")]
    assert code == 0 and rows == ["P@5", "AP"]  # the notes below the table are "AP: ..."
    assert err.startswith("tempoeval: note: P@5, P_5 are one measure, P@5: counted once")


# -- check -----------------------------------------------------------------------------------------


def test_check_validates_gold_sets_like_a_linter(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run_main(capsys, "check", QRELS, str(GOLD_YAML))
    assert code == 0
    assert out.splitlines() == [
        f"{QRELS}: ok (3 queries, 3681 judgments, 0 documents)",
        f"{GOLD_YAML}: ok (4 queries, 5 judgments, 8 documents)",
    ]
    typo = tmp_path / "typo.yaml"
    typo.write_text(
        "version: 1\ndocuments:\n  d1: {text: a}\nqueries:\n"
        "  - id: q1\n    text: t\n    relevant: {d2: 1}\n"
    )
    broken = tmp_path / "broken.yaml"
    broken.write_text("version: 1\nqueries:\n  - id: q1\n    relevnt: {d1: 1}\n")
    code, out, _ = run_main(capsys, "check", str(typo), str(broken))
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith(f"warning: {typo}:7: query 'q1' judges doc 'd2', which is not")
    assert lines[1] == f"{typo}: ok (1 queries, 1 judgments, 1 documents, 1 warnings)"
    assert lines[2].startswith(f"{broken}:4:") and "did you mean 'relevant'" in lines[2]
    code, _, _ = run_main(capsys, "check", str(typo), "--strict")
    assert code == 1
    code, _, _ = run_main(capsys, "check", str(typo))
    assert code == 0


YEARS_GOLD = """version: 1
queries:
  - id: possessive
    text: "Who won 2020's election?"
  - id: counted
    text: "top 1000 companies in 2010"
  - id: relative
    text: "Who won last year's election?"
  - id: given
    text: "Grunge in the 1990s"
    focus_time: "1990-1999"
  - id: none
    text: "best pizza in town"
  - id: settled
    text: "Who won 2020's election?"
    focus_time: 2020
  - id: no-text
    focus_time: 2001
  - id: differs
    text: "Elections in 2016 and 2020"
    focus_time: 2020
"""


def test_check_years_prints_each_querys_years_and_flags_doubtful_readings(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    gold = tmp_path / "gold.yaml"
    gold.write_text(YEARS_GOLD)
    code, out, err = run_main(capsys, "check", str(gold), "--years")
    assert code == 0 and err == ""  # doubts are warnings
    assert out.splitlines() == [
        f"{gold}: ok (8 queries, 0 judgments, 0 documents)",
        f"{gold}:3: query 'possessive': 2020 (read from \"Who won 2020's election?\")",
        (
            f"doubtful (possessive): {gold}:3: query 'possessive': \"2020's\" is read as the year "
            '2020 (a possessive); if the decade 2020-2029 is meant, write "2020s" or give the '
            "query a focus_time"
        ),
        f"{gold}:5: query 'counted': 2010 (read from \"top 1000 companies in 2010\")",
        f"{gold}:7: query 'relative': no year (read from \"Who won last year's election?\")",
        (
            f"doubtful (relative): {gold}:7: query 'relative': \"last year\" is relative to a "
            "date a gold set does not give: it adds no year: give the query a focus_time"
        ),
        f"{gold}:9: query 'given': 1990-1999 (given)",
        f"{gold}:12: query 'none': no year (read from \"best pizza in town\")",
        f"{gold}:14: query 'settled': 2020 (given)",  # given: its text's doubt is settled
        f"{gold}:17: query 'no-text': 2001 (given)",
        f"{gold}:19: query 'differs': 2020 (given; its text reads 2016, 2020)",
        f"{gold}: years of 8 queries: 4 read from their text, 4 given; 2 doubtful",
    ]
    code, strict, _ = run_main(capsys, "check", str(gold), "--years", "--strict")
    assert code == 1 and strict == out  # a doubt fails under --strict, as a warning does
    code, _, _ = run_main(capsys, "check", str(gold), "--strict")
    assert code == 0  # without --years, check is what it was
    settled = tmp_path / "settled.yaml"
    settled.write_text(
        YEARS_GOLD.replace("Who won 2020's", "Who won the 2020").replace("last year's", "the 2023")
    )
    code, out, _ = run_main(capsys, "check", str(settled), str(gold), "--years", "--strict")
    assert code == 1 and out.count("doubtful (") == 2  # the second file fails alone
    code, out, _ = run_main(capsys, "check", str(settled), "--years", "--strict")
    assert code == 0 and out.endswith("4 read from their text, 4 given; 0 doubtful\n")


def test_check_years_prints_what_the_docs_show(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (Path(__file__).parent.parent / "docs" / "focus-time.md").read_text(encoding="utf-8")
    section = text[text.index("## Checking the years") :]
    gold = section[section.index("```yaml\n") + 8 : section.index("```\n\n```\n$ ")]
    shown = section[section.index("```\n$ ") + 4 :]
    shown = shown[: shown.index("```")].splitlines()
    assert shown[0] == "$ tempoeval check gold.yaml --years"
    (tmp_path / "gold.yaml").write_text(gold)
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_main(capsys, "check", "gold.yaml", "--years")
    assert code == 0 and out.splitlines() == shown[1:]


def test_check_years_of_a_gold_set_without_texts_and_of_a_broken_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run_main(capsys, "check", QRELS, "--years")
    assert code == 0
    assert out.splitlines()[1:] == [
        (
            f"{QRELS}: years of 3 queries: 0 read from their text, 0 given, 3 with no text and no "
            "focus_time (not shown); 0 doubtful"
        )
    ]
    broken = tmp_path / "broken.yaml"
    broken.write_text("version: 1\nqueries:\n  - id: q1\n    text: last year\n    relevnt: {}\n")
    code, out, _ = run_main(capsys, "check", str(broken), "--years")
    assert code == 1 and "years of" not in out and "did you mean 'relevant'" in out


# -- bad input -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["evaluate", "missing.trec", QRELS], "tempoeval: error: missing.trec: no such run file"),
        (["evaluate", RUN, "missing.yaml"], "missing.yaml: no such gold set file"),
        (["evaluate", RUN, QRELS, "-m", "nDGC@10"], "did you mean 'nDCG'?"),
        (["evaluate", RUN, QRELS, "--strict", "-m", "P@5"], None),
        (["compare", RUN, "missing", QRELS], "missing: no such run file"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str | None
) -> None:
    code, out, err = run_main(capsys, *argv)
    if message is None:
        assert code == 0
        return
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_a_qrels_file_that_is_off_gets_the_qrels_error_not_the_yaml_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    three = tmp_path / "three.qrels"
    three.write_text("".join(f"30{i} FBIS3-1000{i} 1\n" for i in range(60)))
    header = tmp_path / "test.tsv"
    header.write_text("query-id\tcorpus-id\tscore\n301\tFBIS3-10082\t1\n")
    code, out, err = run_main(capsys, "evaluate", RUN, str(three))
    assert code == 2 and out == ""
    assert err == (
        f"tempoeval: error: {three}:1: expected 4 whitespace-separated fields "
        "(TREC qrels: qid iter docid grade), found 3\n"
    )
    code, out, _ = run_main(capsys, "check", str(three), str(header))
    assert code == 1 and len(out.splitlines()) == 2
    assert out.splitlines()[1].startswith(f"{header}:1: the first line 'query-id corpus-id score'")
    assert "GoldSet.from_beir" in out


def test_a_malformed_run_line_names_the_file_and_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    run = tmp_path / "run.trec"
    run.write_text("301 Q0 d1 1 1.0 r\n301 Q0 d2 2 nan r\n")
    code, _, err = run_main(capsys, "evaluate", str(run), QRELS)
    assert code == 2 and err.startswith(f"tempoeval: error: {run}:2:")


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["frobnicate"],
        ["evaluate", RUN],
        ["compare", RUN, RUN, QRELS, "--alpha", "2"],
        ["compare", RUN, RUN, QRELS, "--max-drop", "-1"],
        ["evaluate", RUN, QRELS, "--format", "xml"],
    ],
)
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, _, err = run_main(capsys, *argv)
    assert code == 2 and "usage: tempoeval" in err


@pytest.mark.parametrize(
    "command",
    [[], ["evaluate"], ["compare"], ["check"], ["trec_eval"], ["pool"], ["gold"], ["gold", "merge"]]
    + [["agree"]],
)
def test_every_command_has_help(capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    code, out, _ = run_main(capsys, *command, "--help")
    assert code == 0 and out.startswith("usage: tempoeval")


# -- as installed ----------------------------------------------------------------------------------


def installed_script(name: str) -> str | None:
    """The console script installed with this interpreter (a venv not activated: not on PATH)."""
    for scheme in (sysconfig.get_default_scheme(), f"{os.name}_user"):
        script = shutil.which(name, path=sysconfig.get_path("scripts", scheme))
        if script is not None:
            return script
    return None


def test_the_console_script_and_python_m(tmp_path: Path) -> None:
    script = installed_script("tempoeval")
    assert script is not None, "pip install -e . installs the tempoeval console script"
    for command in ([script], [sys.executable, "-m", "pytest_tempoeval"]):
        done = subprocess.run(
            [*command, "evaluate", RUN, QRELS, "-m", "map", "--format", "trec"],
            capture_output=True,
            text=True,
            check=False,
        )
        # TempoEval (a dev extra) installs a tempoeval script too: the one installed last wins
        owners = [e.value for e in entry_points(group="console_scripts", name="tempoeval")]
        assert (done.returncode, done.stdout) == (0, "map                   \tall\t0.1785\n"), (
            f"{command[0]} runs one of {owners}: reinstall pytest-tempoeval last"
        )
        bad = subprocess.run(
            [*command, "evaluate", "missing", QRELS], capture_output=True, text=True, check=False
        )
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1


def test_help_imports_no_numpy_or_anthropic() -> None:
    code = (
        "import sys\n"
        "from pytest_tempoeval.cli import main\n"
        "for argv in (['--help'], ['pool', '--help'], ['gold', 'merge', '--help'], "
        "['agree', '--help']):\n"
        "    try:\n        main(argv)\n    except SystemExit:\n        pass\n"
        "heavy = {'numpy', 'anthropic', 'yaml', 'vcr'}\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & heavy))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "[]"


# -- issue 25: pipes, swapped arguments, long values, files that are not regular


def test_a_reader_that_leaves_ends_the_command_quietly_as_sigpipe_would(tmp_path: Path) -> None:
    """`tempoeval evaluate ... -q | head -1` exited 2 with '[Errno 32] Broken pipe'. It exits
    141 (a shell's status for a tool killed by SIGPIPE), saying nothing: never 0, so a cut
    pipeline under `set -o pipefail` is not a pass."""
    run, qrels = tmp_path / "run.trec", tmp_path / "qrels"
    run.write_text("".join(f"q{q} Q0 d{q} 1 1.0 r\n" for q in range(3000)))
    qrels.write_text("".join(f"q{q} 0 d{q} 1\n" for q in range(3000)))
    process = subprocess.Popen(  # -q prints ~18 lines a query: far more than a pipe holds
        [sys.executable, "-m", "pytest_tempoeval", "evaluate", str(run), str(qrels), "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline().startswith(b"run ")
    process.stdout.close()  # what `head -1` does once it has its line
    error = process.stderr.read()
    assert process.wait(timeout=120) == 141 and error == b""


def test_swapped_run_and_gold_get_a_hint(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_main(capsys, "evaluate", QRELS, RUN)
    assert code == 2
    assert err.rstrip("\n").endswith(
        f" (RUN and GOLD swapped? {QRELS}, given as a run, looks like TREC qrels; {RUN}, given "
        "as GOLD, looks like a TREC run)"
    )
    code, _, err = run_main(capsys, "compare", str(GOLD_YAML), RUN, str(GOLD_YAML))
    assert code == 2 and f"(RUN and GOLD swapped? {GOLD_YAML}, given as a run, looks like a " in err
    code, _, err = run_main(capsys, "evaluate", "missing", QRELS)  # nothing looks swapped
    assert code == 2 and "swapped" not in err


def test_an_error_quoting_a_huge_value_stays_a_short_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A JSON gold set given as the run: its 'queries' list read as a ranking of doc ids, the
    first "id" quoted whole (4.8 MB in issue 25). The line keeps its start and its end."""
    gold = tmp_path / "gold.json"
    queries = [{"id": "q1", "text": "x" * 1_000_000, "relevant": {"d1": 1}}]
    gold.write_text(json.dumps({"queries": queries, "version": 1}))
    code, out, err = run_main(capsys, "evaluate", str(gold), QRELS)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert len(err) < 1000
    assert err.startswith(f"tempoeval: error: {gold}:1: query 'queries', rank 1: doc id must be")
    assert err.rstrip("\n").endswith(f"{gold}, given as a run, looks like a gold set)")
    huge_key = tmp_path / "run.json"  # a value no reader cuts: the line is cut in its middle
    huge_key.write_text(json.dumps({"q" * 1_000_000: 5}))
    code, _, err = run_main(capsys, "evaluate", str(huge_key), QRELS)
    assert code == 2 and len(err) < 1000 and "characters cut" in err
    assert err.startswith(f"tempoeval: error: {huge_key}:1: query 'qqq")
    assert err.rstrip("\n").endswith("got int")


def test_a_fifo_or_a_folder_given_as_a_file_is_not_a_regular_file(tmp_path: Path) -> None:
    """Said 'no such run file'; a FIFO as GOLD waited for a writer forever (the format sniff
    opened it). A subprocess, so that a regression times out instead of hanging the suite."""
    fifo = tmp_path / "stream"
    os.mkfifo(fifo)
    cases = [
        (["evaluate", str(tmp_path), QRELS], f"{tmp_path}: not a regular file (a folder)"),
        (["evaluate", str(fifo), QRELS], f"{fifo}: not a regular file (a FIFO, a named pipe)"),
        (["evaluate", RUN, str(fifo)], f"{fifo}: not a regular file (a FIFO, a named pipe)"),
        (["check", str(fifo)], f"{fifo}: not a regular file (a FIFO, a named pipe)"),
    ]
    for argv, message in cases:
        done = subprocess.run(
            [sys.executable, "-m", "pytest_tempoeval", *argv],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode in (1, 2) and message in done.stdout + done.stderr, argv


def test_compare_decides_with_the_gates_one_verdict(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """tempoeval compare asks gate.verdict.regressed, as the pytest gate does: a rule changed
    there changes compare's exit status (identical runs: nothing dropped)."""
    from pytest_tempoeval.gate import verdict

    code, out, _ = run_main(capsys, "compare", RUN, RUN, QRELS, "-m", "P@5", "--format", "json")
    assert code == 0 and json.loads(out)["measures"][0]["verdict"] == "ok"
    asked: list[tuple[float, float, float | None, float]] = []

    def always(drop: float, max_drop: float, p_value: float | None, alpha: float) -> bool:
        asked.append((drop, max_drop, p_value, alpha))
        return True

    monkeypatch.setattr(verdict, "regressed", always)
    code, out, _ = run_main(
        capsys, "compare", RUN, RUN, QRELS, "-m", "P@5", "--format", "json", "--alpha", "0.2"
    )
    assert code == 1 and json.loads(out)["measures"][0]["verdict"] == "regressed"
    # asked by the gate's compare() (raw p) and then by compare's correction across the measures
    assert {(drop, alpha) for drop, _, _, alpha in asked} == {(0.0, 0.2)}


@pytest.mark.parametrize(
    "argv",
    [
        ["evaluate", "run.trec", "qrels.trec"],
        ["evaluate", "run.trec", "gold.yaml", "-m", "P@5", "nDCG@10", "-q", "--format", "trec"],
        ["evaluate", "run.trec", "beir", "--split", "dev", "--strict", "--format", "json"],
        ["compare", "a.trec", "b.trec", "c.trec", "gold.yaml", "--max-drop", "0.1"],
        ["compare", "a.trec", "b.trec", "gold.yaml", "--alpha", "0.01", "--format", "latex"],
        ["check", "a.yaml", "b.yaml", "--strict"],
        ["check", "a.yaml", "--years", "--strict"],
        ["trec_eval", "-q", "-m", "all_trec", "-c", "qrels", "results"],
        ["trec_eval", "-h"],
        ["pool", "q.jsonl", "c.jsonl", "a.trec", "b.trec", "-o", "g.yaml", "--cassette", "c.yaml"],
        ["pool", "beir", "beir", "a.trec", "--depth", "5", "-o", "g.yaml", "--cassette", "c.yaml"]
        + ["--dry-run", "--batch", "--max-requests", "3", "--grade-scale", "0", "3"],
        ["gold", "merge", "gold.yaml", "patch.yaml", "-o", "out.yaml", "--force"],
        ["agree", "human.yaml", "llm.yaml", "--mode", "binary", "--rel", "2", "--format", "json"],
    ],
)
def test_one_command_parser_reads_a_command_line_as_the_whole_parser_does(argv: list[str]) -> None:
    """``tempoeval COMMAND`` builds only its command's parser (start-up); it must read every
    command line, and print the help and usage, exactly as the subcommand of the whole parser."""
    from pytest_tempoeval import cli

    whole = cli._whole_parser()
    command = cli._COMMANDS[argv[0]]
    alone = cli._command_parser(command)
    assert vars(alone.parse_args(argv[1:])) == vars(whole.parse_args(argv))
    subparsers = next(a for a in whole._actions if isinstance(a, argparse._SubParsersAction))
    assert alone.format_help() == subparsers.choices[argv[0]].format_help()
