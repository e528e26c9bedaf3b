"""trec_eval 10's own tests, run with ``tempoeval trec_eval``: each command of its Makefile's
``quicktest`` target that reads qrels, with the same arguments, against the expected ``out.*``
file trec_eval ships (tests/data/trec_eval/, NIST licence), line for line.

Every line whose measure the package supports must equal trec_eval's, byte for byte and in
trec_eval's order; the lines left out must be exactly the measures named on stderr as not
supported. The quicktest commands that read other formats are refused with a clear error:
``-R prefs``, ``-R qrels_prefs``, ``-R qrels_jg`` and ``-Z``. The outputs under ``generated/``
come from the trec_eval binary on cases the quicktest lacks (-J, -n, -c with -l3, query ids whose
``strcmp`` order is not numeric, the measures no quicktest output prints: dcg, ideal_dcg, yaap).
"""

from __future__ import annotations

import gzip
import io
import re
import shlex
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

from pytest_tempoeval.cli import main
from pytest_tempoeval.trec_eval_cli import Options, Scored, parse_flags, write
from pytest_tempoeval.trec_eval_measures import GROUPS, ROOT, expand_measures

DATA = Path(__file__).parent / "data" / "trec_eval"

# trec_eval 10.0's Makefile, target quicktest, verbatim (``./trec_eval`` is ``tempoeval trec_eval``
# here, and ``| diff - test/OUT`` the expected file): the commands that read qrels.
QUICKTEST = [
    ("test/qrels.test test/results.test", "out.test"),
    ("test/qrels.test.with-comments test/results.test", "out.test"),
    ("test/qrels.comment.test test/results.comment.test", "out.comment.test"),
    ("-m all_trec test/qrels.test test/results.test", "out.test.a"),
    ("-m all_trec -q test/qrels.test test/results.test", "out.test.aq"),
    ("-m all_trec -q -c test/qrels.test test/results.trunc", "out.test.aqc"),
    ("-m all_trec -q -c -M100 test/qrels.test test/results.trunc", "out.test.aqcM"),
    (
        "-m all_trec -mrelstring.20 -q -l2 test/qrels.rel_level test/results.test",
        "out.test.aql",
    ),
    (
        (
            "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
            "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
            "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 "
            "test/qrels.test test/results.test"
        ),
        "out.test.meas_params",
    ),
]
# The trec_eval binary's outputs on cases the quicktest lacks (generated/README in the data README).
GENERATED = [
    (
        (
            "-q -m official -m ndcg_cut.2,3 -m relstring.5 -m recall.3 -m success.1 "
            "test/generated/qrels.order test/generated/results.order"
        ),
        "generated/out.order",
    ),
    (
        "-q -J -m all_trec test/qrels.rel_level test/results.test",
        "generated/out.test.aqJ_rel_level",
    ),
    (
        "-q -n -m map -m P.5,10 -m relstring test/qrels.test test/results.test",
        "generated/out.test.qn",
    ),
    (
        "-q -c -l3 -m official test/qrels.rel_level test/results.trunc",
        "generated/out.test.qcl3_rel_level",
    ),
    (
        "-q -c -m relstring.3 -m P.5 -m utility.2,-1,0.5,0 test/qrels.test test/results.trunc",
        "generated/out.test.qc_bogus",
    ),
    (
        (
            "-q -c -J -M50 -l2 -m relstring.8 -m P.5,10 -m map -m ndcg_cut.10 -m recip_rank "
            "test/qrels.rel_level test/results.trunc"
        ),
        "generated/out.test.qcJM_rel_level",
    ),
    (
        "-c -m P.200,1000 -m map test/generated/qrels.rounding test/generated/results.rounding",
        "generated/out.rounding",
    ),
    (
        "-q -m dcg -m ideal_dcg -m yaap test/generated/qrels.dcg test/generated/results.dcg",
        "generated/out.dcg",
    ),
    (
        "-q -l2 -m dcg -m ideal_dcg -m yaap test/generated/qrels.dcg test/generated/results.dcg",
        "generated/out.dcg_l2",
    ),
    (
        (
            "-q -J -M8 -m dcg -m ideal_dcg -m yaap "
            "test/generated/qrels.dcg test/generated/results.dcg"
        ),
        "generated/out.dcg_JM",
    ),
    (
        "-q -c -l2 -m dcg -m ideal_dcg -m yaap test/qrels.rel_level test/results.trunc",
        "generated/out.test.qcl2_dcg_rel_level",
    ),
]
# The lines reproduced, a floor each change must keep: every line but those of trec_eval's
# parameterised names the measure grammar does not read (utility_2,-1,0,0, 11pt_avg_.25,.5,.75,
# ndcg_1=3,2=9,4=4.5).
REPRODUCED_AT_LEAST = {
    "out.test": 30,
    "out.comment.test": 30,
    "out.test.a": 99,
    "out.test.aq": 387,
    "out.test.aqc": 387,
    "out.test.aqcM": 387,
    "out.test.aql": 387,
    "out.test.meas_params": 76,
    "generated/out.order": 194,
    "generated/out.test.aqJ_rel_level": 387,
    "generated/out.test.qn": 12,
    "generated/out.test.qcl3_rel_level": 111,
    "generated/out.test.qc_bogus": 7,
    "generated/out.test.qcJM_rel_level": 23,
    "generated/out.rounding": 3,
    "generated/out.dcg": 39,
    "generated/out.dcg_l2": 39,
    "generated/out.dcg_JM": 39,
    "generated/out.test.qcl2_dcg_rel_level": 12,
}
ALL_TREC = ["out.test.a", "out.test.aq", "out.test.aqc", "out.test.aqcM", "out.test.aql"]


@pytest.fixture(scope="module")
def test_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """trec_eval's test/ folder: the shipped files, results.comment.test unzipped."""
    folder = tmp_path_factory.mktemp("trec_eval_test")
    for path in DATA.rglob("*"):
        if path.is_file():
            target = folder / path.relative_to(DATA)
            target.parent.mkdir(exist_ok=True)
            target.write_bytes(path.read_bytes())
    with gzip.open(DATA / "results.comment.test.gz") as packed:
        (folder / "results.comment.test").write_bytes(packed.read())
    return folder


class Output(NamedTuple):
    code: int
    lines: list[str]
    unsupported: list[str]
    explicit_unsupported: bool


NAMED = re.compile(r"tempoeval: (note|error): not supported, (?:left out|not printed): (.*) \(")


def trec_eval(capsys: pytest.CaptureFixture[str], command: str, folder: Path) -> Output:
    """``tempoeval trec_eval`` with a quicktest command's arguments (test/ is ``folder``)."""
    argv = [word.replace("test/", f"{folder}/", 1) for word in shlex.split(command)]
    try:
        code = main(["trec_eval", *argv])
    except SystemExit as exit:
        code = int(exit.code or 0)
    captured = capsys.readouterr()
    named = NAMED.search(captured.err)
    unsupported = named.group(2).split(", ") if named else []
    explicit = bool(named) and named.group(1) == "error"
    return Output(code, captured.out.splitlines(keepends=True), unsupported, explicit)


def expected_lines(name: str) -> list[str]:
    return (DATA / name).read_text(encoding="utf-8").splitlines(keepends=True)


def asked_roots(command: str) -> set[str]:
    """The measures a command asks for by their own -m (not through a group)."""
    words = shlex.split(command)
    asked = [w[2:] if w.startswith("-m") and w != "-m" else "" for w in words]
    asked += [words[i + 1] for i, w in enumerate(words) if w == "-m"]
    return {a.partition(".")[0] for a in asked if a and a.partition(".")[0] not in GROUPS}


def root_of(name: str) -> str:
    return max((r for r in ROOT if name == r or name.startswith(f"{r}_")), key=len)


@pytest.mark.parametrize(("command", "expected"), QUICKTEST + GENERATED)
def test_every_supported_line_is_trec_eval_s_and_the_rest_are_named(
    capsys: pytest.CaptureFixture[str], test_folder: Path, command: str, expected: str
) -> None:
    output = trec_eval(capsys, command, test_folder)
    lines = expected_lines(expected)
    names = {line.split()[0] for line in lines}
    assert set(output.unsupported) <= names  # nothing named that trec_eval does not print
    assert output.lines == [line for line in lines if line.split()[0] not in output.unsupported]
    assert len(output.lines) >= REPRODUCED_AT_LEAST[expected]
    # exit 2 exactly when a measure asked by its own -m is left out (a group's may be)
    explicit = {root_of(name) for name in output.unsupported} & asked_roots(command)
    assert output.explicit_unsupported == bool(explicit)
    assert output.code == (2 if explicit else 0)


@pytest.mark.parametrize(("command", "expected"), QUICKTEST[:3])
def test_default_output_and_the_comment_files_reproduce_byte_for_byte(
    capsys: pytest.CaptureFixture[str], test_folder: Path, command: str, expected: str
) -> None:
    """out.test (twice: qrels with and without comment lines) and out.comment.test in full."""
    output = trec_eval(capsys, command, test_folder)
    assert (output.code, output.unsupported) == (0, [])
    assert "".join(output.lines) == (DATA / expected).read_text(encoding="utf-8")


@pytest.mark.parametrize("expected", ALL_TREC)
def test_at_least_90_percent_of_each_all_trec_output(
    capsys: pytest.CaptureFixture[str], test_folder: Path, expected: str
) -> None:
    command = next(command for command, output in QUICKTEST if output == expected)
    output = trec_eval(capsys, command, test_folder)
    assert len(output.lines) >= 0.9 * len(expected_lines(expected))


@pytest.mark.parametrize(("command", "expected"), QUICKTEST + GENERATED)
def test_names_order_and_layout_are_trec_eval_s_for_every_line(command: str, expected: str) -> None:
    """Whatever the package supports: the names -m expands to (groups, cutoffs sorted, parameters
    in names), their order, the queries' order, what is printed per query and in the summary,
    and each value's format reproduce the whole expected file, given trec_eval's values."""
    options = parse_flags(shlex.split(command))
    assert isinstance(options, Options)
    by_query: dict[str, dict[str, str]] = {}
    summary: dict[str, float | str] = {}
    for line in expected_lines(expected):
        name, query, value = (part.strip() for part in line.split("\t"))
        if query != "all":
            by_query.setdefault(name, {})[query] = value
        else:
            summary[name] = value if name == "runid" else float(value)
    queries = sorted({q for values in by_query.values() for q in values}, key=str.encode)
    per_query: dict[str, np.ndarray | list[str]] = {
        name: [values[q].strip("'") for q in queries]
        if next(iter(values.values())).startswith("'")
        else np.array([float(values[q]) for q in queries])
        for name, values in by_query.items()
    }
    scored = Scored(expand_measures(options.measures), queries, per_query, summary, [], {})
    out = io.StringIO()
    write(scored, options, out)
    assert out.getvalue() == (DATA / expected).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("command", "refused"),
    [  # the rest of the quicktest: other relevance formats, and Z scores
        ("-m all_prefs -q -R prefs test/prefs.test test/prefs.results.test", "-R prefs"),
        ("-m all_prefs -q -R qrels_prefs test/qrels.test test/results.test", "-R qrels_prefs"),
        ("-m qrels_jg -q -R qrels_jg test/qrels.123 test/results.test", "-R qrels_jg"),
        ("-q -m all_trec -Z test/zscores_file test/qrels.test test/results.test", "-Z (Z scores)"),
    ],
)
def test_the_other_quicktest_commands_are_refused_not_misread(
    capsys: pytest.CaptureFixture[str], test_folder: Path, command: str, refused: str
) -> None:
    argv = [word.replace("test/", f"{test_folder}/", 1) for word in shlex.split(command)]
    try:
        code = main(["trec_eval", *argv])
    except SystemExit as exit:
        code = int(exit.code or 0)
    captured = capsys.readouterr()
    assert (code, captured.out) == (2, "")
    assert f"tempoeval trec_eval: error: {refused}" in captured.err
