"""The baseline lifecycle through pytest: create, check, regress, improve, re-baseline, corruption,
unused files and reports, each in one process and with -n 2.

A test whose subject is a check writes the baselines it starts from without xdist: writing them
under each mode is the subject of the update tests (and test_parallel_safety.py compares what -n 2
writes with a serial run, byte for byte), and each -n 2 session costs its two workers' start-up.
Likewise, a step that one test decides in its own process (an unchanged update rewrites nothing, a
test that fails halfway keeps its file, a changed k is refused) runs once without xdist when
another session of the same test, under each mode, carries that kind of result from the workers to
the controller."""

import json
from pathlib import Path

import pytest
from plugin_helpers import BASELINE_GOLD as GOLD
from plugin_helpers import BASELINE_TESTS as TESTS
from plugin_helpers import QUERIES, XDIST_MODES, make_baseline_suite

GATE = Path("base/test_module/test_gate.json")
OTHER = Path("base/test_module/test_other.json")
UPDATE = "--tempoeval-update-baseline"


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    return make_baseline_suite(pytester, monkeypatch)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_missing_baseline_fails_with_the_command_to_create_it(
    suite: pytest.Pytester, xdist: list[str]
) -> None:
    result = suite.runpytest(*xdist, "-k", "test_gate")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            (
                "*no baseline yet. Create it with: pytest 'test_module.py::test_gate'"
                " --tempoeval-update-baseline*"
            )
        ]
    )
    assert not (suite.path / GATE).exists()


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_update_writes_the_baselines_and_passes_then_an_unchanged_run_passes(
    suite: pytest.Pytester, xdist: list[str]
) -> None:
    suite.runpytest(*xdist, UPDATE).assert_outcomes(passed=2)
    stored = json.loads((suite.path / GATE).read_text())
    entry = stored["results"]["nDCG@2"]
    assert stored["test"] == "test_module.py::test_gate" and stored["version"] == 1
    assert (
        entry["k"] == 2
        and entry["mode"] == "gold"
        and entry["score"] == 1.0
        and entry["queries"] == QUERIES
    )
    assert len(entry["gold_fingerprint"]) == 64 and entry["judge_model"] is None
    assert entry["per_query"] == {f"q{i:02d}": 1.0 for i in range(QUERIES)}
    assert [p.name for p in (suite.path / GATE).parent.iterdir()] == [
        "test_gate.json",
        "test_other.json",
    ]  # no temp files
    written = (suite.path / GATE).stat().st_mtime_ns
    # Identical content is not rewritten: the writer's own decision, in the test's process (the
    # update above wrote from the workers), so once, without xdist.
    suite.runpytest(UPDATE).assert_outcomes(passed=2)
    assert (suite.path / GATE).stat().st_mtime_ns == written

    result = suite.runpytest(*xdist)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            (
                "test_module.py::test_gate * nDCG@2 * 1.0000 * drop <= 0 * 1.0000 * +0.0000"
                " * 1.0000 * pass*"
            )
        ]
    )


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_significant_drop_fails_listing_queries_and_p_value_without_a_summary_traceback(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, xdist: list[str]
) -> None:
    suite.runpytest(UPDATE).assert_outcomes(passed=2)
    monkeypatch.setenv("WORSE", "6")  # six queries 1.0 -> 0.631: exact p = 1/64
    result = suite.runpytest(*xdist, "--tempoeval-report=report.json")
    result.assert_outcomes(failed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    output = result.stdout.str()
    assert "1 baseline check of this test failed:" in output
    assert "test_module.py::test_gate: regression against" in output
    assert (
        "nDCG@2: 1.0000 -> 0.8155 (-0.1845; drop allowed 0), p = 0.01562 (paired randomization"
        in output
    )
    assert (
        "q00: 1.0000 -> 0.6309 (-0.3691)" in output
        and "q06" not in output.split("regressed queries")[1].split("\n\n")[0]
    )
    assert (
        "re-baseline with: pytest 'test_module.py::test_gate' --tempoeval-update-baseline" in output
    )
    assert "INTERNALERROR" not in output
    report = json.loads((suite.path / "report.json").read_text())
    row = next(row for row in report["checks"] if row["test"] == "test_module.py::test_gate")
    assert row["baseline"] == 1.0 and row["delta"] == pytest.approx(-0.1845, abs=1e-4)
    assert row["p_value"] == 1 / 64 and row["status"] == "FAIL" and row["note"] == "regressed"
    assert report["failed"] == 2
    assert (
        json.loads((suite.path / GATE).read_text())["results"]["nDCG@2"]["score"] == 1.0
    )  # never overwritten


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_an_improvement_passes_and_says_the_baseline_can_be_raised(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, xdist: list[str]
) -> None:
    monkeypatch.setenv("WORSE", "4")
    suite.runpytest(UPDATE).assert_outcomes(passed=2)
    monkeypatch.delenv("WORSE")
    result = suite.runpytest(*xdist, "--tempoeval-markdown=summary.md")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        ["*test_gate*nDCG@2*1.0000*0.8770*+0.1230*pass*baseline can be raised"]
    )
    markdown = (suite.path / "summary.md").read_text()
    assert "| threshold | baseline | delta | p | status | note |" in markdown
    assert "| 0.8770 | +0.1230 | 1.0000 | pass | baseline can be raised |" in markdown


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_changed_k_or_gold_set_asks_for_a_re_baseline_of_what_changed(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, xdist: list[str]
) -> None:
    """Four changes in two sessions: in each, the module's two tests meet different changes (K
    sets test_gate's k only; a baseline's format is its own file's), each change a test's own."""
    suite.runpytest(UPDATE).assert_outcomes(passed=2)
    monkeypatch.setenv("K", "1")
    # nDCG reads judgments, no document text: a text edit changes nothing it compares.
    (suite.path / "gold.yaml").write_text(
        GOLD.replace("Report of 2003.", "Report of the year 2003.")
    )
    # Each test's check decides this in its own process: without xdist. The session below, under
    # each mode, carries a warning, a report row and a failure from the workers.
    result = suite.runpytest()
    result.assert_outcomes(failed=1, passed=1)  # test_gate's k changed; test_other met the edit
    result.stdout.fnmatch_lines(
        [
            (
                "*re-baseline: the baseline has nDCG@2 but the test now checks nDCG@1"
                " (k or mode changed)*"
            )
        ]
    )
    assert "changed in the gold set" not in result.stdout.str()
    monkeypatch.delenv("K")
    # q03's judgment changed: test_gate compares the 11 other queries and names q03, never
    # compares it.
    (suite.path / "gold.yaml").write_text(GOLD.replace("relevant: {d3: 3}", "relevant: {d3: 2}"))
    # test_other's baseline as written before per-query hashes: the change voids its check, as it
    # did.
    legacy = json.loads((suite.path / OTHER).read_text())
    del legacy["results"]["nDCG@2"]["query_fingerprints"]
    (suite.path / OTHER).write_text(json.dumps(legacy))
    result = suite.runpytest(*xdist, "-W", "always", "--tempoeval-report=r.json")
    result.assert_outcomes(passed=1, failed=1)
    note = (
        "1 query changed in the gold set since the baseline, not compared: q03; re-baseline "
        "with: pytest 'test_module.py::test_gate' --tempoeval-update-baseline"
    )
    assert f"BaselineWarning: test_module.py::test_gate: nDCG@2: {note}" in result.stdout.str()
    rows = json.loads((suite.path / "r.json").read_text())["checks"]
    gate = next(row for row in rows if row["test"] == "test_module.py::test_gate")
    assert gate["note"] == note and gate["status"] == "pass"
    result.stdout.fnmatch_lines(
        [
            (
                "*test_other.json: re-baseline: the gold set changed since the baseline of nDCG@2"
                "*--tempoeval-update-baseline*"
            )
        ]
    )


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_corrupted_baseline_is_a_clear_error_and_only_the_flag_rewrites_it(
    suite: pytest.Pytester, xdist: list[str]
) -> None:
    corrupt = suite.path / GATE
    corrupt.parent.mkdir(parents=True)
    corrupt.write_text('{\n  "version": 1,\n  "results": {oops}\n}\n')
    result = suite.runpytest(*xdist, "-k", "test_gate")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            (
                "*test_gate.json:3: invalid JSON*The baseline was left as it is"
                "*--tempoeval-update-baseline*"
            )
        ]
    )
    assert corrupt.read_text() == '{\n  "version": 1,\n  "results": {oops}\n}\n'
    # The flag rewrites it (writing from workers is the update test's -n 2 session).
    suite.runpytest("-k", "test_gate", UPDATE).assert_outcomes(passed=1)
    assert json.loads(corrupt.read_text())["results"]["nDCG@2"]["score"] == 1.0


def test_a_hand_edited_baseline_with_a_duplicated_key_is_refused_not_read_last_wins(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second "nDCG@2" holds 0.0 everywhere: read last-wins, a real regression (8 of 12
    queries worse, p = 1/256) passed as "baseline can be raised"."""
    suite.runpytest(UPDATE, "-k", "test_gate").assert_outcomes(passed=1)
    stored = json.loads((suite.path / GATE).read_text())
    entry = stored["results"]["nDCG@2"]
    zeros = entry | {"per_query": dict.fromkeys(entry["per_query"], 0.0), "score": 0.0}
    (suite.path / GATE).write_text(
        f'{{"version": 1, "test": "{stored["test"]}", "results": {{\n'
        f'"nDCG@2": {json.dumps(entry)},\n"nDCG@2": {json.dumps(zeros)}\n}}}}\n'
    )
    monkeypatch.setenv("WORSE", "8")
    result = suite.runpytest("-k", "test_gate")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            (
                "*test_gate.json:3: duplicate key 'nDCG@2' (first at line 2). The baseline was "
                "left as it is: fix it (see git history), or rewrite it with: pytest "
                "'test_module.py::test_gate' --tempoeval-update-baseline*"
            )
        ]
    )
    assert "baseline can be raised" not in result.stdout.str()


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_unused_baselines_are_reported_never_deleted_and_k_narrows_them(
    suite: pytest.Pytester, xdist: list[str]
) -> None:
    suite.runpytest(UPDATE).assert_outcomes(passed=2)
    orphan = suite.path / "base" / "test_module" / "test_removed.json"
    orphan.write_text((suite.path / OTHER).read_text())

    result = suite.runpytest(*xdist, "--tempoeval-report=report.json")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "1 unused baseline (no selected test checked them*",
            "  base/test_module/test_removed.json",
        ]
    )
    assert json.loads((suite.path / "report.json").read_text())["unused_baselines"] == [
        "base/test_module/test_removed.json"
    ]

    # A selected test that no longer checks its baseline leaves it unused, and -k selects part
    # of the module: only the selected tests' files can be unused (the whole run above listed the
    # orphan; this one lists neither it nor the unselected test_gate's file).
    suite.makepyfile(
        test_module=TESTS.replace(
            "    tempoeval_baseline.check(ndcg(run_for(tempoeval_gold), tempoeval_gold, k=2))",
            "    pass",
        )
    )
    result = suite.runpytest(*xdist, "-k", "test_other")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["1 unused baseline*", "  base/test_module/test_other.json"])
    assert "test_removed.json" not in result.stdout.str()
    assert "test_gate.json" not in result.stdout.str()
    assert orphan.exists() and (suite.path / OTHER).exists()


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_same_test_names_in_two_classes_get_two_files_and_a_failed_update_writes_nothing(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, xdist: list[str]
) -> None:
    suite.makepyfile(
        test_classes="""
        import os
        import pytest
        from pytest_tempoeval import Run, ndcg, precision

        @pytest.mark.tempoeval(gold="gold.yaml")
        class TestA:
            def test_x(self, tempoeval_gold, tempoeval_baseline):
                run = Run({q: ["x0"] for q in tempoeval_gold.queries})
                tempoeval_baseline.check(ndcg(run, tempoeval_gold, k=2))

        @pytest.mark.tempoeval(gold="gold.yaml")
        class TestB:
            def test_x(self, tempoeval_gold, tempoeval_baseline):
                run = Run({q: [f"d{i}"] for i, q in enumerate(sorted(tempoeval_gold.queries))})
                tempoeval_baseline.check(ndcg(run, tempoeval_gold, k=2))
                if os.environ.get("BREAK"):
                    raise RuntimeError("broken halfway")
                tempoeval_baseline.check(precision(run, tempoeval_gold, k=2))
        """
    )
    suite.runpytest(*xdist, "test_classes.py", UPDATE).assert_outcomes(passed=2)
    files = sorted(p.name for p in (suite.path / "base" / "test_classes").iterdir())
    assert files == ["TestA.test_x.json", "TestB.test_x.json"]
    b_file = suite.path / "base" / "test_classes" / "TestB.test_x.json"
    before = b_file.read_text()
    assert sorted(json.loads(before)["results"]) == ["P@2", "nDCG@2"]
    monkeypatch.setenv("BREAK", "1")
    # What a test that fails halfway writes is decided in its own process: once, without xdist.
    result = suite.runpytest("test_classes.py", UPDATE)
    result.assert_outcomes(passed=1, failed=1)
    assert b_file.read_text() == before  # a test that failed halfway does not shrink its baseline


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_unused_baselines_are_not_reported_for_runs_that_prove_nothing(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, xdist: list[str]
) -> None:
    suite.runpytest(UPDATE).assert_outcomes(passed=2)
    (suite.path / "base" / "test_module" / "test_removed.json").write_text(
        (suite.path / OTHER).read_text()
    )
    # a whole run reports the orphan (under this mode too: the failing run below)
    assert "unused baseline" in suite.runpytest().stdout.str()
    assert "unused baseline" not in suite.runpytest(*xdist, "--collect-only").stdout.str()
    monkeypatch.setenv("WORSE", "12")  # both tests fail: -x stops after the first
    stopped = suite.runpytest(*xdist, "-x")
    assert stopped.ret != pytest.ExitCode.OK
    assert "unused baseline" not in stopped.stdout.str()
    # A failing test's own baseline is not "unused" either: only the orphan is listed.
    failing = suite.runpytest(*xdist)
    failing.assert_outcomes(failed=2)
    failing.stdout.fnmatch_lines(["1 unused baseline*", "  base/test_module/test_removed.json"])


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_test_that_failed_to_collect_leaves_its_baseline_unjudged(
    suite: pytest.Pytester, xdist: list[str]
) -> None:
    """TestOther cannot be collected (its parametrization is broken): the rest of its module runs
    (--continue-on-collection-errors), but its baseline is not called unused, nor is any other."""
    tests = TESTS + (
        "\n@pytest.mark.tempoeval(gold='gold.yaml')\nclass TestOther:\n"
        "    @pytest.mark.parametrize('x', [1], ids=IDS)\n"
        "    def test_x(self, tempoeval_gold, tempoeval_baseline, x):\n"
        "        tempoeval_baseline.check(ndcg(run_for(tempoeval_gold), tempoeval_gold, k=2))\n"
    )
    suite.makepyfile(test_module=tests.replace("import os", "import os\nIDS = ['a']"))
    suite.runpytest(UPDATE).assert_outcomes(passed=3)
    assert (suite.path / "base/test_module/TestOther.test_x[a].json").is_file()
    suite.makepyfile(test_module=tests.replace("import os", "import os\nIDS = ['a', 'b']"))
    result = suite.runpytest(*xdist, "--continue-on-collection-errors", "--tempoeval-report=r.json")
    outcomes = result.parseoutcomes()  # under xdist, each worker reports the collection error
    assert outcomes["passed"] == 2 and outcomes["errors"] >= 1
    assert "unused baseline" not in result.stdout.str()
    assert json.loads((suite.path / "r.json").read_text())["unused_baselines"] == []


@pytest.mark.parametrize("value", ["inf", "-0.1", "lots"])
def test_a_bad_max_drop_in_the_ini_is_a_usage_error(suite: pytest.Pytester, value: str) -> None:
    suite.makeini(f"[pytest]\ntempoeval_baseline_dir = base\ntempoeval_max_drop = {value}\n")
    result = suite.runpytest("-k", "test_gate")
    assert result.ret == pytest.ExitCode.USAGE_ERROR  # once, before collection: not per test
    assert "collected" not in result.stdout.str()
    result.stderr.fnmatch_lines(
        [f"*ini tempoeval_max_drop must be a finite number >= 0, got '{value}'*"]
    )
