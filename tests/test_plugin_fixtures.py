"""The tempoeval_gold and tempoeval_baseline fixtures."""

import json

import pytest
from plugin_helpers import XDIST_MODES, write_gold


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_gold_from_marker_and_from_ini(pytester: pytest.Pytester, xdist: list[str]) -> None:
    write_gold(pytester)
    pytester.mkdir("sub")
    write_gold(pytester, "sub/other.yaml")
    pytester.makeini("[pytest]\ntempoeval_gold = sub/other.yaml\n")
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.tempoeval(gold="gold.yaml")
        def test_marker(tempoeval_gold):
            assert tempoeval_gold.path.endswith("gold.yaml") and len(tempoeval_gold) == 2

        def test_ini(tempoeval_gold):
            assert tempoeval_gold.path.endswith("other.yaml")
        """
    )
    pytester.runpytest(*xdist).assert_outcomes(passed=2)


def test_gold_path_relative_to_the_test_file(pytester: pytest.Pytester) -> None:
    pytester.mkdir("suite")
    write_gold(pytester, "suite/local.yaml")
    (pytester.path / "suite" / "test_here.py").write_text(
        "import pytest\n\n@pytest.mark.tempoeval(gold='local.yaml')\n"
        "def test_it(tempoeval_gold):\n    assert len(tempoeval_gold) == 2\n"
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_missing_gold_file_is_a_clear_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.tempoeval(gold="nowhere.yaml")
        def test_it(tempoeval_gold):
            pass
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*test_it: tempoeval gold set 'nowhere.yaml' not found (looked at *nowhere.yaml*"])
    assert "Traceback" not in result.stdout.str() and "def tempoeval_gold" not in result.stdout.str()
    assert "During handling" not in result.stdout.str()


def test_gold_file_with_errors_names_test_file_and_line(pytester: pytest.Pytester) -> None:
    write_gold(pytester, text="version: 1\nqueries:\n  - id: q1\n    relevent: {d1: 1}\n")
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.tempoeval(gold="gold.yaml")
        def test_it(tempoeval_gold):
            pass
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*test_it: cannot use gold set *gold.yaml:", "*gold.yaml:4: query 'q1': unknown key 'relevent'; did you mean 'relevant'?*"])
    assert "Traceback" not in result.stdout.str()


def test_no_gold_configured_is_a_clear_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_it(tempoeval_gold):\n    pass\n")
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*test_it: the tempoeval_gold fixture needs a gold set*"])


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_baseline_storage_path_and_atomic_write(pytester: pytest.Pytester, xdist: list[str]) -> None:
    pytester.makeini("[pytest]\ntempoeval_baseline_dir = base\n")
    pytester.makepyfile(
        test_module="""
        import pytest

        @pytest.mark.parametrize("case", ["a/b"])
        def test_store(tempoeval_baseline, case):
            assert tempoeval_baseline.path.parts[-3:] == ("base", "test_module", "test_store[a_b].json")
            assert not tempoeval_baseline.exists() and not tempoeval_baseline.update
            tempoeval_baseline.write({"score": 0.5})
            assert tempoeval_baseline.read() == {"score": 0.5}
        """
    )
    pytester.runpytest(*xdist).assert_outcomes(passed=1)
    stored = pytester.path / "base" / "test_module" / "test_store[a_b].json"
    assert json.loads(stored.read_text()) == {"score": 0.5}
    assert [p.name for p in stored.parent.iterdir()] == [stored.name]  # no temporary files left


def test_corrupt_baseline_is_a_clear_error_and_is_kept(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntempoeval_baseline_dir = base\n")
    (pytester.mkdir("base") / "test_module").mkdir()
    corrupt = pytester.path / "base" / "test_module" / "test_read.json"
    corrupt.write_text("{not json")
    pytester.makepyfile(
        test_module="""
        import pytest
        from pytest_tempoeval.baselines import BaselineError

        def test_read(tempoeval_baseline):
            with pytest.raises(BaselineError, match=r"test_read.json:1: the baseline is not valid JSON"):
                tempoeval_baseline.read()
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)
    assert corrupt.read_text() == "{not json"
