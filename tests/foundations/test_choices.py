"""check_choice: the one wording of a closed-set setting or parameter."""

import pytest

from pytest_tempoeval.errors import MetricError, check_choice


def test_a_listed_value_comes_back_unchanged() -> None:
    assert check_choice("gain", "exp", ("linear", "exp")) == "exp"


def test_an_unlisted_value_names_the_setting_the_choices_and_a_close_one() -> None:
    with pytest.raises(MetricError) as raised:
        check_choice("ini tempoeval_gate_correction", "hlm", ("none", "holm"), MetricError)
    assert str(raised.value) == (
        "ini tempoeval_gate_correction must be one of none, holm, got 'hlm' (did you mean 'holm'?)"
    )


def test_a_value_of_another_type_is_refused_without_a_hint() -> None:
    with pytest.raises(ValueError, match=r"^mode must be one of a, b, got 3$"):
        check_choice("mode", 3, ("a", "b"))
