"""``tempoeval compare BASE RUN... GOLD``: every run against the base, Holm across the family.

The runs are built so that every value is known by hand: 12 queries, one relevant document each
(``d``, with ``x`` and ``y`` judged not relevant), and each run puts ``d`` at rank 1, 2 or 3. With
12 queries the randomization test enumerates all 4,096 sign assignments, so a p-value is exact:
a run worse on n queries by the same amount, and equal on the rest, has p = 2**-n.

First the ways a user could get a pass they should not: a regressed system in a table of good ones,
a family of the wrong size, the base compared with itself.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import warnings
from pathlib import Path

import pytest
from cli_helpers import run_main

from pytest_tempoeval.compare_cli import system_names
from pytest_tempoeval.gate.randomization import paired_randomization_p

QUERIES = 12

# Where each run ranks d, per query (1, 2 or 3): the per-query P@1 and R@2 follow by hand.
RANKS = {
    "base": [1] * 12,
    "a": [2] * 6 + [1] * 6,  # P@1 worse on 6 queries; R@2 unchanged
    "b": [2] * 3 + [3] * 5 + [1] * 4,  # P@1 worse on 8 queries, R@2 on 5
    "low": [3] * 12,  # worse than every other run
}


def p_at_1(run: str) -> list[float]:
    return [1.0 if rank == 1 else 0.0 for rank in RANKS[run]]


def r_at_2(run: str) -> list[float]:
    return [1.0 if rank <= 2 else 0.0 for rank in RANKS[run]]


def ranking(rank: int) -> str:
    return {1: "dxy", 2: "xdy", 3: "xyd"}[rank]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("compare")
    (folder / "qrels").write_text(
        "".join(f"q{i:02d} 0 d{i} 1\nq{i:02d} 0 x{i} 0\nq{i:02d} 0 y{i} 0\n" for i in range(12))
    )
    paths = {"qrels": str(folder / "qrels")}
    for name, ranks in RANKS.items():
        lines = [
            f"q{i:02d} Q0 {doc}{i} {position} {3 - position} r\n"
            for i, rank in enumerate(ranks)
            for position, doc in enumerate(ranking(rank), start=1)
        ]
        path = folder / f"{name}.trec"
        path.write_text("".join(lines))
        paths[name] = str(path)
    (folder / "copy").mkdir()
    (folder / "copy" / "base.trec").write_text((folder / "base.trec").read_text())
    paths["copy"] = str(folder / "copy" / "base.trec")  # the base's content, another file
    return paths


def compare_json(
    capsys: pytest.CaptureFixture[str], files: dict[str, str], *runs: str, options: tuple = ()
) -> tuple[int, dict]:
    argv = ["compare", *(files[run] for run in runs), files["qrels"], "-m", "P@1", "R@2"]
    code, out, err = run_main(capsys, *argv, *options, "--format", "json")
    assert code in (0, 1), err
    return code, json.loads(out)


def cells(data: dict) -> dict[tuple[str, str], dict]:
    return {(row["system"], row["measure"]): row for row in data["measures"]}


# -- a pass a user should not get ------------------------------------------------------------------


def test_holm_runs_over_every_system_and_measure(
    capsys: pytest.CaptureFixture[str], files: dict[str, str]
) -> None:
    """2 systems x 2 measures = a family of 4. Per system, per measure, or with the base compared
    with itself, the adjusted p-values would differ from Holm's by hand below."""
    code, data = compare_json(capsys, files, "base", "a", "b")
    raw = {
        (system, measure): paired_randomization_p(per_query("base"), per_query(system))
        for system in ("a", "b")
        for measure, per_query in (("P@1", p_at_1), ("R@2", r_at_2))
    }
    assert raw == {("a", "P@1"): 2**-6, ("a", "R@2"): 1.0, ("b", "P@1"): 2**-8, ("b", "R@2"): 2**-5}
    # Holm by hand: ascending b P@1, a P@1, b R@2, a R@2, times 4, 3, 2, 1, never decreasing.
    holm = {("b", "P@1"): 4 * raw["b", "P@1"]}
    holm["a", "P@1"] = max(holm["b", "P@1"], 3 * raw["a", "P@1"])
    holm["b", "R@2"] = max(holm["a", "P@1"], 2 * raw["b", "R@2"])
    holm["a", "R@2"] = max(holm["b", "R@2"], min(1.0, 1 * raw["a", "R@2"]))
    assert holm == {
        ("b", "P@1"): 1 / 64,
        ("a", "P@1"): 3 / 64,
        ("b", "R@2"): 4 / 64,
        ("a", "R@2"): 1,
    }
    found = cells(data)
    assert {key: row["p"] for key, row in found.items()} == raw
    assert {key: row["p_adjusted"] for key, row in found.items()} == holm
    assert data["tests"] == 4
    # 3/64 = 0.047 < 0.05: a's P@1 regressed; in a family of 5 it would be 4/64: not.
    assert {key for key, row in found.items() if row["verdict"] == "regressed"} == {
        ("a", "P@1"),
        ("b", "P@1"),
    }
    assert code == 1
    assert data["regressed"] == [
        {"system": "a", "measure": "P@1"},
        {"system": "b", "measure": "P@1"},
    ]
    code, data = compare_json(capsys, files, "base", "a", "b", options=("--correction", "none"))
    assert {key: row["p_adjusted"] for key, row in cells(data).items()} == raw
    assert len(data["regressed"]) == 3  # b's R@2 too: 1/32 < 0.05 uncorrected


def test_the_means_are_the_per_query_means(
    capsys: pytest.CaptureFixture[str], files: dict[str, str]
) -> None:
    _, data = compare_json(capsys, files, "base", "a", "b")
    means = {system["name"]: system["means"] for system in data["systems"]}
    assert means == {
        name: {"P@1": sum(p_at_1(name)) / QUERIES, "R@2": sum(r_at_2(name)) / QUERIES}
        for name in ("base", "a", "b")
    }
    assert means["b"] == {"P@1": 4 / 12, "R@2": 7 / 12}
    for (system, measure), row in cells(data).items():
        assert row["new"] == means[system][measure] and row["base"] == means["base"][measure]


@pytest.mark.parametrize("order", [("b", "copy"), ("copy", "b")])
def test_a_regressed_system_among_good_ones_fails_the_command(
    capsys: pytest.CaptureFixture[str], files: dict[str, str], order: tuple[str, str]
) -> None:
    """One system regressed, one as good as the base: exit 1 whichever comes first, the cell is
    marked in the table and named on the last line."""
    argv = [files["base"], *(files[run] for run in order), files["qrels"], "-m", "P@1", "R@2"]
    code, out, _ = run_main(capsys, "compare", *argv)
    assert code == 1
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[2:5]}
    assert rows["b"] == [f"{4 / 12:.4f}", "v", f"{7 / 12:.4f}"]
    assert rows["copy/base"] == ["1.0000", "1.0000"]  # stems clash with the base: folders name
    assert out.splitlines()[-1] == "regressed: b P@1 (drop > 0 and p < 0.05, Holm-corrected)"
    code, _, _ = run_main(capsys, "compare", *argv, "--max-drop", "0.7")
    assert code == 0  # the drops are 0.67 and 0.42


def test_verdicts_come_from_the_gates_rule_with_the_adjusted_p(
    capsys: pytest.CaptureFixture[str], files: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_tempoeval.gate import verdict

    asked: list[tuple[float, float | None]] = []

    def never(drop: float, max_drop: float, p_value: float | None, alpha: float) -> bool:
        asked.append((round(drop, 12), p_value))
        return False

    monkeypatch.setattr(verdict, "regressed", never)
    code, data = compare_json(capsys, files, "base", "a", "b")
    assert code == 0 and data["regressed"] == []
    expected = {
        (round(row["base"] - row["new"], 12), row["p_adjusted"]) for row in data["measures"]
    }
    assert expected <= set(asked)  # each cell asked with its Holm-adjusted p-value


def test_the_same_file_twice_is_refused_from_three_runs_on(
    capsys: pytest.CaptureFixture[str], files: dict[str, str], tmp_path: Path
) -> None:
    """The base again as a run is compared with itself (p = 1 on every measure): its tests join
    the family and raise every other adjusted p-value: a's P@1 (p = 1/64) regressed at 2/64 in its
    family of 2, and would pass at 4/64 with the base's 2 tests. Refused, however it is spelled."""
    link = tmp_path / "link.trec"
    os.symlink(files["base"], link)
    here = os.path.relpath(files["base"])
    for again in (files["base"], f"./{here}", str(link)):
        code, out, err = run_main(
            capsys, "compare", files["base"], files["a"], again, files["qrels"]
        )
        assert code == 2 and out == ""
        assert err.startswith(f"tempoeval: error: {again}: given twice (runs 1 and 3)")
        assert "the base given again as a run would be compared with itself" in err
    code, _, err = run_main(
        capsys, "compare", files["base"], files["a"], files["b"], files["a"], files["qrels"]
    )
    assert code == 2 and f"{files['a']}: given twice (runs 2 and 4)" in err
    # Two runs, one file: nothing else in the family to hide; an unchanged run must pass.
    code, _, _ = run_main(capsys, "compare", files["base"], files["base"], files["qrels"])
    assert code == 0
    # Another file with the same content is another system: allowed, but said on stderr, as its
    # tests raise a's adjusted p-value (4/64 in a family of 4: a passes).
    argv = [files["base"], files["copy"], files["a"], files["qrels"], "-m", "P@1", "R@2"]
    code, out, err = run_main(capsys, "compare", *argv, "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["tests"] == 4 and cells(data)["a", "P@1"]["p_adjusted"] == 4 / 64
    assert err == (
        f"tempoeval: note: {files['copy']} scores as the base on every query of every measure: its "
        "2 tests (p = 1) count in Holm's family and raise the others' adjusted p-values; leave it "
        "out if it is the base again\n"
    )


def test_a_measure_given_twice_counts_once_in_the_family(
    capsys: pytest.CaptureFixture[str], files: dict[str, str]
) -> None:
    argv = [files["base"], files["a"], files["b"], files["qrels"], "--format", "json"]
    code, out, err = run_main(capsys, "compare", *argv, "-m", "P@1", "P_1", "R@2", "P.1")
    data = json.loads(out)
    assert code == 1 and data["tests"] == 4 and data["measure_names"] == ["P@1", "R@2"]
    assert cells(data)["a", "P@1"]["p_adjusted"] == 3 / 64
    assert "P@1, P_1, P.1 are one measure, P@1: counted once" in err


def test_a_nan_score_in_any_run_is_an_error_naming_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The third run's nDCG is NaN (the overflowing exponential gain this package once had): NaN
    compares false with everything, so its cells would say ok."""
    from pytest_tempoeval.metrics import kernels

    monkeypatch.setattr(kernels, "_exponential", lambda relevance, _: 2.0**relevance - 1.0)
    (tmp_path / "qrels").write_text("q1 0 a 1100\nq1 0 b 1\nq2 0 a 1\n")
    safe = "q1 Q0 b 1 2 r\nq2 Q0 a 1 1 r\n"  # a's infinite gain only in the ideal: score 0
    (tmp_path / "one").write_text(safe)
    (tmp_path / "two").write_text(safe)
    (tmp_path / "nan").write_text("q1 Q0 b 1 2 r\nq1 Q0 a 2 1 r\nq2 Q0 a 1 1 r\n")
    paths = [str(tmp_path / name) for name in ("one", "two", "nan", "qrels")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's overflow warning
        code, out, err = run_main(capsys, "compare", *paths, "-m", "nDCG(gain=exp)@10")
    assert code == 2 and out == ""
    assert err.startswith(f"tempoeval: error: {paths[2]}: nDCG(gain=exp)@10 [gold] is NaN")


def test_a_run_of_ids_the_gold_set_does_not_know_is_refused_by_its_file(
    capsys: pytest.CaptureFixture[str], files: dict[str, str], tmp_path: Path
) -> None:
    foreign = tmp_path / "foreign.trec"
    foreign.write_text("".join(f"q{i:02d} Q0 u{i} 1 2 r\n" for i in range(12)))
    argv = [files["base"], files["a"], str(foreign), files["qrels"]]
    code, out, err = run_main(capsys, "compare", *argv)
    assert code == 2 and out == ""
    assert err.startswith(
        f"tempoeval: error: {foreign}: none of the 12 retrieved ids is known to the gold set"
    )


def test_fewer_than_two_runs_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], files: dict[str, str]
) -> None:
    code, out, err = run_main(capsys, "compare", files["base"], files["qrels"])
    assert code == 2 and out == "" and "usage: tempoeval compare" in err


# -- names -----------------------------------------------------------------------------------------


def test_a_run_is_named_by_its_stem_made_unique_by_its_folders() -> None:
    assert system_names(["runs/bm25.trec", "a/run.trec", "b/run.trec"]) == [
        "bm25",
        "a/run",
        "b/run",
    ]
    assert system_names(["x/a/run.trec", "y/a/run.trec"]) == ["x/a/run", "y/a/run"]
    assert system_names(["d/run.trec", "d/run.txt", "other"]) == ["run.trec", "run.txt", "other"]
    assert system_names(["run.trec", "run.trec"]) == ["run", "run#2"]  # the two-run form only


# -- the report ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gains(files: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """``low`` as the base: a and b score higher on many queries. Its file name has an
    underscore, which LaTeX and markdown must escape."""
    low = tmp_path_factory.mktemp("gains") / "low_base.trec"
    low.write_text(Path(files["low"]).read_text())
    return [str(low), files["a"], files["b"], files["qrels"], "-m", "P@1", "R@2"]


def test_a_significant_gain_is_marked_and_holm_corrected_on_its_own_family(
    capsys: pytest.CaptureFixture[str], gains: list[str]
) -> None:
    code, out, _ = run_main(capsys, "compare", *gains, "--format", "json")
    assert code == 0  # nothing dropped
    found = cells(json.loads(out))
    low = [0.0] * 12
    raw = {
        ("a", "P@1"): paired_randomization_p(p_at_1("a"), low),  # a higher on 6 queries
        ("a", "R@2"): paired_randomization_p(r_at_2("a"), low),  # on 12
        ("b", "P@1"): paired_randomization_p(p_at_1("b"), low),  # on 4
        ("b", "R@2"): paired_randomization_p(r_at_2("b"), low),  # on 7
    }
    assert raw == {
        ("a", "P@1"): 2**-6,
        ("a", "R@2"): 2**-12,
        ("b", "P@1"): 2**-4,
        ("b", "R@2"): 2**-7,
    }
    assert {key: row["p_gain"] for key, row in found.items()} == raw
    # Holm by hand: a R@2 x4, b R@2 x3, a P@1 x2, b P@1 x1.
    assert {key: row["p_gain_adjusted"] for key, row in found.items()} == {
        ("a", "R@2"): 4 / 4096,
        ("b", "R@2"): 3 / 128,
        ("a", "P@1"): 2 / 64,
        ("b", "P@1"): 2 / 32,
    }
    assert {key for key, row in found.items() if row["significant_gain"]} == {
        ("a", "R@2"),
        ("b", "R@2"),
        ("a", "P@1"),
    }
    assert {row["verdict"] for row in found.values()} == {"ok"}


def test_markdown_bolds_the_best_of_each_measure(
    capsys: pytest.CaptureFixture[str], gains: list[str], files: dict[str, str]
) -> None:
    code, out, _ = run_main(capsys, "compare", *gains, "--format", "markdown")
    assert code == 0
    lines = out.splitlines()
    start = lines.index("| system | P@1 | R@2 |")
    assert lines[start + 1 : start + 5] == [
        "|:--|--:|--:|",
        "| low\\_base (base) | 0.0000 | 0.0000 |",
        "| a | **0.5000** ^ | **1.0000** ^ |",
        "| b | 0.3333 | 0.5833 ^ |",
    ]
    # Ties are all the best: a and the base tie on R@2.
    code, out, _ = run_main(
        capsys, "compare", files["base"], files["a"], files["qrels"], "-m", "R@2", "P@1",
        "--format", "markdown",
    )  # fmt: skip
    assert "| base (base) | **1.0000** | **1.0000** |" in out.splitlines()
    assert "| a | **1.0000** | 0.5000 v |" in out.splitlines()
    assert code == 1


def test_latex_is_a_booktabs_tabular_with_the_best_in_bold(
    capsys: pytest.CaptureFixture[str], gains: list[str]
) -> None:
    code, out, _ = run_main(capsys, "compare", *gains, "--format", "latex")
    assert code == 0
    table = [line for line in out.splitlines() if not line.startswith("%")]
    assert table == [
        r"\begin{tabular}{lrr}",
        r"\toprule",
        r"System & P@1 & R@2 \\",
        r"\midrule",
        r"low\_base (base) & 0.0000 & 0.0000 \\",
        r"a & \textbf{0.5000}$^{\uparrow}$ & \textbf{1.0000}$^{\uparrow}$ \\",
        r"b & 0.3333 & 0.5833$^{\uparrow}$ \\",
        r"\bottomrule",
        r"\end{tabular}",
    ]
    comments = [line for line in out.splitlines() if line.startswith("% a P@1:")]
    assert comments == [
        (
            "% a P@1: delta, p, p (Holm), p gain, p gain (Holm), verdict = "
            "+0.5000, 1.0000, 1.0000, 0.0156, 0.0312, ok"
        )
    ]


def test_text_lists_the_worst_queries_of_each_regressed_cell(
    capsys: pytest.CaptureFixture[str], files: dict[str, str]
) -> None:
    code, out, _ = run_main(
        capsys, "compare", files["base"], files["a"], files["b"], files["qrels"], "-m", "P@1", "R@2"
    )
    assert code == 1
    lines = out.splitlines()
    assert lines[1].split() == ["system", "P@1", "R@2"]
    assert lines[2].split() == ["base", "(base)", "1.0000", "1.0000"]
    assert lines[3].split() == ["a", "0.5000", "v", "1.0000"]
    tests = {tuple(line.split()[:2]): line.split()[2:] for line in lines if line.startswith("b ")}
    assert tests["b", "R@2"] == ["-0.4167", "0.0312", "0.0625", "1.0000", "1.0000", "ok"]
    at = lines.index("b P@1: queries that got worse (base -> new), worst first; 3 more:")
    assert lines[at + 1 : at + 6] == [f"  q0{i}: 1.0000 -> 0.0000 (-1.0000)" for i in range(5)]
    assert "b R@2: queries that got worse" not in out  # not regressed: not listed
    assert lines[-1] == "regressed: a P@1, b P@1 (drop > 0 and p < 0.05, Holm-corrected)"
    argv = [files["base"], files["a"], files["b"], files["qrels"], "-m", "P@1", "R@2"]
    code, out, _ = run_main(capsys, "compare", *argv, "--correction", "none")
    assert code == 1 and "system  measure    delta       p  p gain  verdict" in out.splitlines()
    assert out.splitlines()[-1] == "regressed: a P@1, b P@1, b R@2 (drop > 0 and p < 0.05)"


def test_json_has_the_two_run_keys_and_one_shape_for_any_number_of_runs(
    capsys: pytest.CaptureFixture[str], files: dict[str, str]
) -> None:
    two_run_row = {
        "measure", "base", "new", "delta", "queries", "p", "p_adjusted", "verdict", "note",
        "worse", "worse_count",
    }  # fmt: skip
    for runs in (("base", "a"), ("base", "a", "b")):
        _, data = compare_json(capsys, files, *runs)
        assert set(data) == {
            "correction", "alpha", "measures", "max_drop", "gold", "measure_names", "systems",
            "tests", "regressed",
        }  # fmt: skip
        assert len(data["measures"]) == (len(runs) - 1) * 2
        for row in data["measures"]:
            assert set(row) == two_run_row | {
                "system", "run", "p_gain", "p_gain_adjusted", "significant_gain",
            }  # fmt: skip
        assert [system["name"] for system in data["systems"]] == list(runs)
        assert data["systems"][0]["base"] and not data["systems"][1]["base"]
        assert data["systems"][0]["best"] == ["P@1", "R@2"]
    row = cells(data)["b", "P@1"]
    assert row["worse_count"] == 8 and len(row["worse"]) == 8
    assert row["worse"][0] == {"query": "q00", "base": 1.0, "new": 0.0}
    assert row["delta"] == row["new"] - row["base"] and row["queries"] == 12


def test_the_docs_show_what_compare_prints(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/cli.md's many-systems example: 20 queries; bm25 ranks d second on q00-q09, dense
    first everywhere, rerank third on q00-q07."""
    page = (Path(__file__).parent.parent / "docs" / "cli.md").read_text(encoding="utf-8")
    section = page.split("## Many systems", 1)[1]
    command, shown = re.findall(r"```(?:bash|)\n(.*?)```", section, re.DOTALL)[:2]
    (tmp_path / "qrels.txt").write_text(
        "".join(f"q{i:02d} 0 d{i} 1\nq{i:02d} 0 x{i} 0\nq{i:02d} 0 y{i} 0\n" for i in range(20))
    )
    for name, ranks in (
        ("bm25", [2] * 10 + [1] * 10),
        ("dense", [1] * 20),
        ("rerank", [3] * 8 + [2] * 2 + [1] * 10),
    ):
        lines = [
            f"q{i:02d} Q0 {doc}{i} {position} {3 - position} r\n"
            for i, rank in enumerate(ranks)
            for position, doc in enumerate(ranking(rank), start=1)
        ]
        (tmp_path / f"{name}.trec").write_text("".join(lines))
    monkeypatch.chdir(tmp_path)
    argv = shlex.split(command)
    assert argv[:2] == ["tempoeval", "compare"]
    code, out, err = run_main(capsys, *argv[1:])
    assert (code, err) == (1, "") and out == shown


def test_under_10_queries_the_drop_alone_decides_as_in_the_gate(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """trec_eval's 3 test queries: no p-value, an empty family, and a drop is a regression."""
    data = Path(__file__).parent / "data" / "trec_eval"
    copy = tmp_path / "trunc2.trec"
    copy.write_text((data / "results.trunc").read_text())
    argv = [str(data / "results.test"), str(data / "results.trunc"), str(copy)]
    code, out, _ = run_main(capsys, "compare", *argv, str(data / "qrels.test"), "-m", "P@10")
    assert code == 1
    lines = out.splitlines()
    # results.test and results.trunc share the stem "results": named by their file names
    assert [line.split()[0] for line in lines[2:5]] == ["results.test", "results.trunc", "trunc2"]
    assert lines[5] == (
        "v regressed: drop > 0; under 10 paired queries (p shown as -) the drop alone decides: "
        "exit 1"
    )
    assert lines[8].split() == ["results.trunc", "P@10", "-0.1000", "-", "-", "-", "-", "regressed"]
    code, _, _ = run_main(
        capsys, "compare", *argv, str(data / "qrels.test"), "-m", "P@10", "--max-drop", "0.1"
    )
    assert code == 0  # a drop of exactly 0.1 is allowed


def test_the_two_run_text_runs_no_test_for_a_gain(
    capsys: pytest.CaptureFixture[str], files: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """It does not print one, and each costs as much as the test for a drop."""
    from pytest_tempoeval.gate import randomization

    calls: list[int] = []

    def counted(baseline: list[float], current: list[float], **options: int) -> float:
        calls.append(len(baseline))
        return paired_randomization_p(baseline, current, **options)

    monkeypatch.setattr(randomization, "paired_randomization_p", counted)
    argv = ["compare", files["base"], files["a"], files["qrels"], "-m", "P@1", "R@2"]
    for form, tests in (("text", 2), ("json", 4), ("markdown", 4)):
        calls.clear()
        code, _, _ = run_main(capsys, *argv, "--format", form)
        assert code == 1 and calls == [QUERIES] * tests, form
