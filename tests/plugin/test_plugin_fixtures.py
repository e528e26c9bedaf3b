"""The tempoeval_gold fixture (tempoeval_baseline: test_plugin_baselines.py)."""

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


def gold_error(pytester: pytest.Pytester, gold: str) -> pytest.RunResult:
    """A test whose marker names ``gold``, run: loading it errors the test."""
    pytester.makepyfile(
        f"""
        import pytest

        @pytest.mark.tempoeval(gold="{gold}")
        def test_it(tempoeval_gold):
            pass
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    return result


def test_missing_gold_file_is_a_clear_error(pytester: pytest.Pytester) -> None:
    result = gold_error(pytester, "nowhere.yaml")
    result.stdout.fnmatch_lines(
        ["*test_it: tempoeval gold set 'nowhere.yaml' not found (looked at *nowhere.yaml*"]
    )
    assert (
        "Traceback" not in result.stdout.str() and "def tempoeval_gold" not in result.stdout.str()
    )
    assert "During handling" not in result.stdout.str()


def test_a_three_column_qrels_gold_fails_with_the_qrels_error_not_the_file(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(".qrels", judgments="".join(f"q{i} d{i} 1\n" for i in range(60)))
    output = gold_error(pytester, "judgments.qrels").stdout.str()
    expected = "expected 4 whitespace-separated fields (TREC qrels: qid iter docid grade), found 3"
    assert f"judgments.qrels:1: {expected}" in output
    assert "q50" not in output  # it was read as YAML, and the error pasted the file


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
    result.stdout.fnmatch_lines(
        [
            "*test_it: cannot use gold set *gold.yaml:",
            "*gold.yaml:4: query 'q1': unknown key 'relevent'; did you mean 'relevant'?*",
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_no_gold_configured_is_a_clear_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_it(tempoeval_gold):\n    pass\n")
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*test_it: the tempoeval_gold fixture needs a gold set*"])
