"""The benchmark harness's own logic, on a fake scenario; and every real scenario imports.

No real benchmark runs here (``python -m bench.harness run NAME --quick`` is the smoke test of
one), and nothing asserts a time.
"""

from __future__ import annotations

import importlib
import json
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def harness(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """``bench.harness``, imported as ``python -m bench.harness`` does: from the repository root."""
    monkeypatch.syspath_prepend(str(ROOT))
    return importlib.import_module("bench.harness")


def test_spread_gives_median_extremes_and_quartiles(harness: types.ModuleType) -> None:
    cell = harness.spread([3.0, 1.0, 10.0, 2.0])
    # sorted 1, 2, 3, 10: median (2 + 3) / 2; inclusive quartiles 1 + 0.75 * 1 and 3 + 0.25 * 7
    assert cell == {
        "median": 2.5,
        "min": 1.0,
        "max": 10.0,
        "q1": 1.75,
        "q3": 4.75,
        "n": 4,
        "unit": "s",
    }
    assert harness.spread([0.002, 0.004], "ms", 1000)["median"] == pytest.approx(3.0)
    assert harness.spread([5.0])["q1"] == harness.spread([5.0])["q3"] == 5.0


def test_alternate_interleaves_the_sides(harness: types.ModuleType) -> None:
    calls: list[str] = []

    def side(name: str, value: float) -> object:
        return lambda: calls.append(name) or value

    results = harness.alternate({"a": side("a", 1.0), "b": side("b", 2.0)}, 3)
    assert calls == ["a", "b", "a", "b", "a", "b"]
    assert results == {"a": [1.0, 1.0, 1.0], "b": [2.0, 2.0, 2.0]}


def test_run_child_reads_the_report_and_rusage(harness: types.ModuleType, tmp_path: Path) -> None:
    code = "import json; print('progress'); print(json.dumps({'answer': 42}))"
    sample = harness.run_child([sys.executable, "-c", code], {}, tmp_path)
    assert sample.report == {"answer": 42}
    assert sample.wall > 0 and sample.rss_mib > 0 and not sample.timed_out
    with pytest.raises(RuntimeError, match="exit 3"):
        harness.run_child([sys.executable, "-c", "raise SystemExit(3)"], {}, tmp_path)
    slow = [sys.executable, "-c", "import time; time.sleep(60)"]
    assert harness.run_child(slow, {}, tmp_path, timeout=0.3).timed_out


FAKE_DOC = """A fake scenario: two sides that return fixed samples.

More text that is not the purpose.
"""


def fake_run(ctx: object) -> dict:
    from bench.harness import Sample, alternate, spread

    samples = alternate(
        {"ours": lambda: Sample(1.0, 0.5, 30.0), "theirs": lambda: Sample(3.0, 0.5, 60.0)},
        ctx.repeats,  # type: ignore[attr-defined]
    )
    rows = [
        [name, spread([s.wall for s in runs]), 0.5, True, None] for name, runs in samples.items()
    ]
    table = {"title": "Fake", "columns": ["side", "wall", "ratio", "ok", "gap"], "rows": rows}
    target = {"what": "ours faster", "value": "3x", "met": True}
    return {"params": {"quick": ctx.quick}, "tables": [table], "targets": [target]}  # type: ignore[attr-defined]


@pytest.fixture
def fake(harness: types.ModuleType, monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    module = types.ModuleType("bench.scenarios.fake", FAKE_DOC)
    module.run = fake_run  # type: ignore[attr-defined]
    module.REPEATS = 2  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bench.scenarios.fake", module)
    return module


def test_a_scenario_run_writes_json_and_renders(
    harness: types.ModuleType, fake: types.ModuleType, tmp_path: Path
) -> None:
    path = harness.run_scenario("fake", quick=False, repeats=None, out_dir=tmp_path, note="n")
    result = json.loads(path.read_text())
    assert path == tmp_path / "fake.json"
    assert (result["scenario"], result["repeats"], result["quick"]) == ("fake", 2, False)
    assert result["purpose"] == "A fake scenario: two sides that return fixed samples."
    assert set(result["stamp"]) >= {"date", "python", "cpus", "git", "versions", "note"}
    assert result["stamp"]["versions"]["pytest"] == pytest.__version__
    assert result["tables"][0]["rows"][1][1]["median"] == 3.0
    text = harness.render([result])
    assert "| ours | 1.00 s [1.00, 1.00] | 0.500 | yes | - |" in text
    assert "- target ours faster: 3x (met)" in text
    quick = harness.run_scenario("fake", quick=True, repeats=None, out_dir=tmp_path)
    assert json.loads(quick.read_text())["repeats"] == 1  # --quick: one round by default


def test_a_skipped_scenario_writes_nothing(
    harness: types.ModuleType, fake: types.ModuleType, tmp_path: Path
) -> None:
    def skip(ctx: object) -> dict:
        raise harness.Skip("no tool")

    fake.run = skip  # type: ignore[attr-defined]
    assert harness.run_scenario("fake", quick=True, repeats=1, out_dir=tmp_path) is None
    assert not list(tmp_path.iterdir())


def test_numbers_keep_three_significant_digits(harness: types.ModuleType) -> None:
    shown = [harness.number(x) for x in (0.09998, 1.5, 12.34, 123.4, 12345.6, 0.0)]
    assert shown == ["0.100", "1.50", "12.3", "123", "12346", "0"]


def test_the_readme_block_is_replaced_between_the_markers(harness: types.ModuleType) -> None:
    readme = f"head\n{harness.BEGIN}\nold\n{harness.END}\ntail\n"
    assert (
        harness.with_generated(readme, "new\n")
        == f"head\n{harness.BEGIN}\nnew\n{harness.END}\ntail\n"
    )
    with pytest.raises(SystemExit, match="lacks the markers"):
        harness.with_generated("no markers", "new\n")


def test_every_scenario_imports_and_is_short(harness: types.ModuleType) -> None:
    names = harness.scenario_names()
    assert len(names) >= 10
    readme = harness.README.read_text()
    for name in names:
        module = harness.load_scenario(name)
        assert callable(module.run) and harness.purpose(module), name
        assert len(Path(module.__file__).read_text().splitlines()) <= 150, name
        assert f"`{name}`" in readme, f"bench/README.md does not describe {name}"


def test_the_readme_tables_are_generated_from_the_stored_results(
    harness: types.ModuleType,
) -> None:
    results = harness.load_results()
    readme = harness.README.read_text()
    details = (harness.RESULTS / "README.md").read_text()
    out_of_date = "out of date: run python -m bench.harness table --write"
    assert harness.with_generated(readme, harness.render_summary(results)) == readme, out_of_date
    assert details == harness.DETAILS + harness.render(results), out_of_date


def test_the_gold_scenario_knows_the_data_shapes(harness: types.ModuleType) -> None:
    data = importlib.import_module("bench.data")
    gold = harness.load_scenario("gold_vs_pytrec")
    assert gold.SHAPES == {name: shape.docs_per_query for name, shape in data.SHAPES.items()}


def test_the_command_line_lists_every_scenario(
    harness: types.ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    assert harness.main(["list"]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert listed == harness.scenario_names()
    with pytest.raises(SystemExit):
        harness.main(["run", "no_such_scenario"])
    assert "unknown scenario no_such_scenario" in capsys.readouterr().err
