"""``tempoeval trec_eval``: trec_eval's flags as its getopt reads them, its measure names and their
errors, its query rules (-c, -M, -J, queries the other file lacks), runid, stdin, and the exit codes
when a measure is not supported. Values are checked against trec_eval's own output files, the
trec_eval binary's (tests/data/trec_eval/generated/) and pytrec_eval."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pytest_tempoeval.cli import main
from pytest_tempoeval.trec_eval_cli import Scored, unsupported_verdict
from pytest_tempoeval.trec_eval_measures import expand_measures

DATA = Path(__file__).parent / "data" / "trec_eval"
QRELS, RUN, TRUNC = (str(DATA / name) for name in ("qrels.test", "results.test", "results.trunc"))
REL_LEVEL = str(DATA / "qrels.rel_level")


def trec_eval(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(["trec_eval", *argv])
    except SystemExit as exit:
        code = int(exit.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def lines_of(name: str, *measures: str) -> str:
    """trec_eval's printed lines of some measures, as it printed them."""
    text = (DATA / name).read_text(encoding="utf-8").splitlines(keepends=True)
    return "".join(line for line in text if line.split()[0] in measures)


# -- flags -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["-m", "P.5,10", "-m", "map", "-q", "-c", "-M", "100", QRELS, TRUNC],
        ["-mP.5,10", "-mmap", "-qc", "-M100", QRELS, TRUNC],  # glued and grouped
        [QRELS, "-qcM100", TRUNC, "-mmap", "-m", "P.5,10"],  # after the files, -M glued in a group
        [
            "--measure=P.5,10",
            "--measure",
            "map",
            "--query_eval_wanted",
            "--complete_rel_info_wanted",
            "--Max_retrieved_per_topic=100",
            QRELS,
            TRUNC,
        ],
        ["--meas=map", "--mea", "P.5,10", "--query", "--comp", "--Max=100", QRELS, TRUNC],
        ["-q", "-c", "-M", "100", "-m", "map", "-m", "P.5,10", "--", QRELS, TRUNC],
    ],
)
def test_every_spelling_getopt_accepts_gives_trec_eval_s_output(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    """trec_eval -q -c -M100 -m map -m P.5,10 qrels.test results.trunc, written as its
    getopt_long reads it: the lines of out.test.aqcM (made with -m all_trec)."""
    code, out, err = trec_eval(capsys, *argv)
    assert (code, err) == (0, "")
    assert out == lines_of("out.test.aqcM", "map", "P_5", "P_10")


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["-x", QRELS, RUN], "trec_eval has no flag -x"),
        (["--frobnicate", QRELS, RUN], "trec_eval has no flag --frobnicate"),
        ([QRELS, RUN, "-m"], "trec_eval has no flag -m, or it lacks its value"),
        ([QRELS], "expected QRELS and RESULTS, got 1 file arguments"),
        ([QRELS, RUN, RUN], "expected QRELS and RESULTS, got 3 file arguments"),
        (["-l0", QRELS, RUN], "-l 0: the level must be 1 or more"),
        (["-M", "-1", QRELS, RUN], "-M -1: the number of documents kept must be 0 or more"),
        (["-R", "prefs", QRELS, RUN], "-R prefs: tempoeval trec_eval reads the qrels format only"),
        (["-T", "x", QRELS, RUN], "-T x: tempoeval trec_eval reads the trec_results format only"),
        (["-D", "1", QRELS, RUN], "-D (debug output) is not supported"),
    ],
)
def test_flags_trec_eval_does_not_take_are_usage_errors(
    capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    code, out, err = trec_eval(capsys, *argv)
    assert (code, out) == (2, "")
    assert err.startswith("usage: tempoeval trec_eval")
    assert f"tempoeval trec_eval: error: {said}" in err


def test_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = trec_eval(capsys, "-h")
    assert code == 0 and out.startswith("usage: tempoeval trec_eval") and "-m all_trec" not in out
    assert "official" in out and "docs/cli.md" in out
    code, out, err = trec_eval(capsys, "-v", "-m", "map")
    assert (code, out) == (0, "") and err.startswith("tempoeval trec_eval ")
    code, out, _ = trec_eval(capsys, "--help")
    assert code == 0 and out.startswith("usage: tempoeval trec_eval")


# -- measure names ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("measure", "said"),
    [
        ("bpreff", "-m bpreff: unknown trec_eval measure 'bpreff': did you mean 'bpref'?"),
        ("P_5", "-m P_5: trec_eval prints P_5 but is asked for it as -m P.5"),
        (
            "nDCG@10",
            (
                "-m nDCG@10: unknown trec_eval measure 'nDCG@10': trec_eval asks for it as "
                "-m ndcg_cut.10 ("
            ),
        ),
        ("AP", "-m AP: unknown trec_eval measure 'AP': trec_eval asks for it as -m map"),
        ("P.", "-m P.: the parameters after '.' are empty"),
        ("P.5,5", "-m P.5,5: a cutoff is given twice"),
        ("P.0,5", "-m P.0,5: cutoffs must be positive integers"),
        ("ndcg.1=2,3", "-m ndcg.1=2,3: expected name=value pairs"),
    ],
)
def test_a_measure_trec_eval_does_not_know_is_an_error_before_the_files_are_read(
    capsys: pytest.CaptureFixture[str], measure: str, said: str
) -> None:
    code, out, err = trec_eval(capsys, "-m", measure, "no-such-qrels", "no-such-results")
    assert (code, out) == (2, "")
    assert err.startswith(f"tempoeval: error: {said}") and err.count("\n") == 1


def test_a_measure_asked_by_its_own_m_and_not_supported_exits_2_after_the_others(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """trec_eval exits 1 on a name it lacks: a script that asks for one measure gets it or a
    failure, never exit 0 with its line missing. (prefs_simp reads trec_eval's preference files,
    which this package does not read.)"""
    code, out, err = trec_eval(capsys, "-m", "prefs_simp", "-m", "map", QRELS, RUN)
    assert code == 2 and out == lines_of("out.test", "map")
    assert err == (
        "tempoeval: error: not supported, not printed: prefs_simp (docs/measures.md lists what "
        "is supported and why)\n"
    )


def test_a_group_s_unsupported_members_are_named_and_the_exit_stays_0(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = trec_eval(capsys, "-m", "qrels_jg", "-m", "map", QRELS, RUN)
    assert code == 0 and out == lines_of("out.test", "runid", "num_q", "map")
    assert err.startswith("tempoeval: note: not supported, left out: ")
    assert "map_avgjg, P_avgjg_5," in err and "Rprec_mult_avgjg_2.00 (" in err


def test_a_group_of_which_nothing_but_runid_prints_exits_2() -> None:
    lines = expand_measures(["qrels_jg"])
    assert lines[0].name == "runid"
    assert unsupported_verdict(Scored(lines, [], {}, {}, lines[1:], {})) == 2
    assert unsupported_verdict(Scored(lines, [], {}, {}, lines[2:], {})) == 0  # num_q printed


# -- queries ---------------------------------------------------------------------------------------


def test_a_qrels_query_without_results_is_named_and_left_out_without_c(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """results.trunc lacks 302. trec_eval 9 and its help leave such a query out (trec_eval 10.0
    stops with exit 4): the mean is over 301 and 303, as pytrec_eval computes it; -c counts 302
    as 0 (out.test.aqc)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    code, out, err = trec_eval(capsys, "-q", "-m", "map", "-m", "P.10", QRELS, TRUNC)
    assert code == 0
    assert err == (
        f"tempoeval: note: 1 query of {QRELS} with no results not scored ('302'); -c scores them "
        "as empty rankings\n"
    )
    per_query = [line for line in out.splitlines(keepends=True) if "\tall\t" not in line]
    assert per_query == [
        line
        for line in lines_of("out.test.aqc", "map", "P_10").splitlines(True)
        if "\t302\t" not in line and "\tall\t" not in line
    ]
    qrels, run = read_qrels(QRELS), read_run(TRUNC)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_10"}).evaluate(run)
    assert sorted(theirs) == ["301", "303"]
    for measure in ("map", "P_10"):
        mean = sum(values[measure] for values in theirs.values()) / 2
        assert f"{measure:<22}\tall\t{mean:.4f}\n" in out


def read_qrels(path: str) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    for line in Path(path).read_text().splitlines():
        query, _, doc, grade = line.split()
        qrels.setdefault(query, {})[doc] = int(grade)
    return qrels


def read_run(path: str) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = {}
    for line in Path(path).read_text().splitlines():
        query, _, doc, _, score = line.split()[:5]  # trec_eval ignores words after the tag
        run.setdefault(query, {})[doc] = float(score)
    return run


def test_dcg_ideal_dcg_and_yaap_print_as_the_binary_prints_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """trec_eval 10's three measures no quicktest output prints (its m_ndcg.c, m_yaap.c), on the
    seeded files of generated/ (tests/metrics/test_trec_eval_dcg.py checks their values)."""
    qrels, results = (str(DATA / "generated" / name) for name in ("qrels.dcg", "results.dcg"))
    argv = ["-m", "dcg", "-m", "ideal_dcg", "-m", "yaap", "-q", qrels, results]
    code, out, err = trec_eval(capsys, *argv)
    assert code == 0 and "not supported" not in err
    assert out == (DATA / "generated" / "out.dcg").read_text(encoding="utf-8")


def test_results_queries_the_qrels_lack_are_named_and_change_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    extra = tmp_path / "results"
    extra.write_text(Path(RUN).read_text() + "999 Q0 FBIS3-10082 1 9.0 STANDARD\n")
    code, out, err = trec_eval(capsys, "-q", "-m", "map", QRELS, str(extra))
    assert code == 0 and out == lines_of("out.test.aq", "map")
    assert err == f"tempoeval: note: 1 query of {extra} not in {QRELS} ignored ('999')\n"


def test_no_query_in_both_files_is_an_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    other = tmp_path / "results"
    other.write_text("q1 Q0 d1 1 1.0 r\n")
    code, out, err = trec_eval(capsys, QRELS, str(other))
    assert (code, out) == (2, "")
    assert err.startswith(f"tempoeval: error: no query is in both {QRELS} and {other}")


def test_judged_only_cuts_the_ranking_for_every_measure_as_ndcg_judged_only_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """-J removes the unjudged documents and those with a negative grade from each ranking before
    any measure; nDCG's own judged_only parameter, on the whole run, is the same cut."""
    from pytest_tempoeval.metrics.by_name import score

    code, out, _ = trec_eval(capsys, "-J", "-q", "-n", "-m", "ndcg_cut.5,10", REL_LEVEL, RUN)
    assert code == 0
    for k in (5, 10):
        ours = score(f"nDCG(judged_only=True)@{k}", RUN, REL_LEVEL, empty="zero").per_query
        for query, value in ours.items():
            assert f"ndcg_cut_{k:<13}\t{query}\t{value:.4f}\n" in out
    assert out.count("\n") == 2 * 3


def test_runid_is_the_tag_of_the_last_line_as_trec_eval_keeps_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    run = tmp_path / "results"
    run.write_text("301 Q0 FBIS3-10082 1 2.0 first\n302 Q0 FBIS3-10082 1 1.0 last  \n# a note\n\n")
    code, out, _ = trec_eval(capsys, "-m", "runid", "-m", "map", QRELS, str(run))
    assert code == 0 and out.startswith("runid                 \tall\tlast\n")


def test_results_read_from_stdin(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "pytest_tempoeval", "trec_eval", "-q", "-m", "map", QRELS]
    done = subprocess.run(
        [*command, "-m", "runid", "-"],
        input=Path(RUN).read_bytes(),
        capture_output=True,
        check=False,
    )
    per_query = lines_of("out.test.aq", "map").rsplit("map", 1)[0]  # without its "all" line
    expected = per_query + lines_of("out.test", "runid", "map")
    assert (done.returncode, done.stdout.decode()) == (0, expected)
    bad = subprocess.run([*command, "-"], input=b"301 Q0 d1\n", capture_output=True, check=False)
    assert bad.returncode == 2 and bad.stderr.decode().startswith("tempoeval: error: <stdin>:1:")


def test_swapped_files_get_a_hint(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = trec_eval(capsys, RUN, QRELS)
    assert (code, out) == (2, "")
    assert err.rstrip("\n").endswith("(QRELS and RESULTS swapped? trec_eval takes the qrels first)")


def test_help_and_a_measure_name_error_import_no_numpy() -> None:
    """`tempoeval --help` does not load the command's modules, and the command loads numpy only
    once it scores: its help and a misspelled measure answer at the interpreter's speed."""
    code = (
        "import io, sys\n"
        "from contextlib import redirect_stderr, redirect_stdout\n"
        "from pytest_tempoeval.cli import main\n"
        "found = []\n"
        "for argv in (['--help'], ['trec_eval', '-h'], ['trec_eval', '-m', 'bpreff', 'q', 'r']):\n"
        "    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):\n"
        "        try:\n            main(argv)\n        except SystemExit:\n            pass\n"
        "    found.append(sorted({m for m in sys.modules if m.split('.')[0] in ('numpy', 'yaml')"
        " or m.endswith('trec_eval_cli')}))\n"
        "print(found)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = "pytest_tempoeval.trec_eval_cli"
    assert done.stdout.strip() == repr([[], [loaded], [loaded]])


def test_a_ranking_left_empty_scores_0_where_trec_eval_prints_nan(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """-M0 leaves every ranking empty: trec_eval 10.0 prints -nan for iprec_at_recall and
    11pt_avg (0 / 0 in its interpolation); nothing retrieved is precision 0 at every level."""
    code, out, _ = trec_eval(
        capsys, "-M0", "-q", "-m", "iprec_at_recall.0.5", "-m", "11pt_avg", QRELS, RUN
    )
    assert code == 0
    assert out.count("\n") == 8 and out.count("\t0.0000\n") == 8
