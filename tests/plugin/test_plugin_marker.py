"""The tempoeval marker: its argument is checked before anything runs."""

import pytest
from plugin_helpers import XDIST_MODES, write_gold


@pytest.mark.parametrize(
    "marker",
    [
        "gold=3",
        'gold="gold.yaml", k=10',
        "",
        'golden="gold.yaml"',
        '"a.yaml", gold="b.yaml"',
        '"a.yaml", "b.yaml"',
    ],
)
def test_bad_marker_argument_is_a_usage_error_naming_the_test(
    pytester: pytest.Pytester, marker: str
) -> None:
    write_gold(pytester)
    pytester.makepyfile(
        f"import pytest\n\n@pytest.mark.tempoeval({marker})\ndef test_it():\n    pass\n"
    )
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    expected = (
        "*test_bad_marker_argument_is_a_usage_error_naming_the_test.py::test_it: "
        "@pytest.mark.tempoeval takes one gold set path, as tempoeval('gold.yaml') or "
        "tempoeval(gold='gold.yaml')*"
    )
    result.stderr.fnmatch_lines([expected])


def test_marker_on_a_class_applies_to_its_tests(pytester: pytest.Pytester) -> None:
    write_gold(pytester)
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.tempoeval(gold="gold.yaml")
        class TestSuite:
            def test_one(self, tempoeval_gold):
                assert len(tempoeval_gold) == 2
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)


@pytest.mark.parametrize("marker", ['"gold.yaml"', 'gold="gold.yaml"'])
def test_the_path_may_be_positional_or_a_keyword(pytester: pytest.Pytester, marker: str) -> None:
    write_gold(pytester)
    pytester.makepyfile(
        f"""
        import pytest

        @pytest.mark.tempoeval({marker})
        def test_it(tempoeval_gold):
            assert tempoeval_gold.name == "tiny"
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_bad_marker_is_the_same_usage_error_under_xdist(
    pytester: pytest.Pytester, xdist: list[str]
) -> None:
    """A worker's usage error used to crash the session (INTERNALERROR, exit 3, message lost)."""
    write_gold(pytester)
    pytester.makepyfile(
        test_bad="import pytest\n\n@pytest.mark.tempoeval(gold=3)\ndef test_x():\n    pass\n",
        test_good="def test_fine():\n    pass\n",
    )
    result = pytester.runpytest(*xdist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*test_bad.py::test_x: @pytest.mark.tempoeval takes one gold*"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
