"""Every measure is declared once (metrics/specs.py): what is derived from the specs cannot drift
from them, the docs table included."""

from __future__ import annotations

import inspect
import pickle
import re
from pathlib import Path

import numpy as np
import pytest

import pytest_tempoeval
from pytest_tempoeval import GoldSet, MetricError, Run, parse_measure, temporal_precision
from pytest_tempoeval.metrics import FUNCTIONS, functions, kernels, spec_docs, specs
from pytest_tempoeval.metrics.measures import ALIASES, FAMILIES, Family
from pytest_tempoeval.metrics.not_supported import NOT_SUPPORTED
from pytest_tempoeval.metrics.relevance import Relevance
from pytest_tempoeval.metrics.results import MetricResult
from pytest_tempoeval.metrics.scoring import _KERNEL_INPUTS, compute
from pytest_tempoeval.metrics.specs import SPEC, SPECS, MeasureSpec, Mode

ROOT = Path(__file__).parents[2]
COMMON = {"run", "gold", "k", "strict", "fail_on_excluded", "empty"}
GOLD = GoldSet.load(ROOT / "examples/gold/mini_elections.yaml")
RUN = Run({"us-2020": ["us2020", "us2016"], "uk-2019": ["uk2019", "fr2017"]})


def test_docs_measures_md_shows_the_specs() -> None:
    """Regenerate with ``python -m pytest_tempoeval.metrics.spec_docs`` (docs/measures.md)."""
    text = (ROOT / "docs/measures.md").read_text(encoding="utf-8")
    blocks = re.findall(r"<!-- specs:(\w+) -->", text)
    assert blocks == ["standard", "not_supported", "temporal", "parameters"]
    assert spec_docs.updated_docs(text) == text, "run python -m pytest_tempoeval.metrics.spec_docs"
    for spec in SPECS:
        assert f"| `{spec.name}` | {spec.summary} |" in text
    for name, (tool, why) in NOT_SUPPORTED.items():  # metrics/not_supported.py's table
        assert f"`{name}`" in text and f"| {tool} |" in text and why in text


def test_a_changed_spec_changes_the_docs_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (ROOT / "docs/measures.md").read_text(encoding="utf-8")
    changed = MeasureSpec(name="X", function="x", kernel="precision", summary="a new measure")
    monkeypatch.setattr(spec_docs, "SPECS", (*SPECS, changed))
    assert "| `X` | a new measure |" in spec_docs.updated_docs(text)


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_the_function_signature_is_the_spec(spec: MeasureSpec) -> None:
    """Each declared default is the public function's; the function takes exactly the spec's
    parameters (and judge= when the measure has an llm mode). The parameter "@" gives (IPrec's
    recall) has no default: every call gives it. A parameter the functions take as an object
    (fill=llm: fill_unjudged=judge) is their keyword for it, unset (None); fill_grades goes with
    it."""
    signature = inspect.signature(getattr(functions, spec.function)).parameters
    declared = {
        name
        for param in spec.all_params
        for name in (param.argument or param.name, param.also)
        if name
    }
    if spec.at is not None:
        declared.add(spec.at.name)
        assert signature[spec.at.name].default is inspect.Parameter.empty
    takes_judge = Mode.LLM in spec.modes
    fills = {"fill_grades"} if spec.fillable else set()
    assert set(signature) == COMMON | declared | fills | ({"judge"} if takes_judge else set())
    assert ("fill_unjudged" in signature) == (Mode.GOLD in spec.modes and spec.reads_judgments)
    for param in spec.all_params:
        if param.argument is not None:
            assert signature[param.argument].default is None
            assert signature[param.argument].kind is inspect.Parameter.KEYWORD_ONLY
            continue
        default = signature[param.name].default
        if param.also is not None:  # unset (None): so that rel= and relevance_level= can agree
            assert default is None and signature[param.also].default is None
        else:
            assert default == param.default and type(default) is type(param.default)
    assert callable(getattr(functions, f"assert_{spec.function}"))


def test_the_functions_and_the_grammar_are_derived_from_the_specs() -> None:
    assert FUNCTIONS == specs.FUNCTIONS  # the lazy export table names exactly the specs' functions
    assert set(FUNCTIONS) == {spec.function for spec in SPECS}
    for name in FUNCTIONS:
        assert getattr(pytest_tempoeval, name) is getattr(functions, name)
        assert getattr(pytest_tempoeval, f"assert_{name}") is getattr(functions, f"assert_{name}")
    assert list(FAMILIES) == [spec.name for spec in SPECS] and Family is MeasureSpec
    for spec in SPECS:
        # "@" is a rank cutoff, the parameter the spec's ``at`` names (IPrec@0.5), or absent
        at = "@3" if spec.rank_cutoff else "@0.5" if spec.at is not None else ""
        for alias in (*spec.aliases, spec.function):
            assert ALIASES[alias] == spec.name
            assert parse_measure(f"{alias}{at}").name == spec.name


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_every_kernel_exists_and_takes_inputs_the_engine_gives(spec: MeasureSpec) -> None:
    """A kernel reads the engine's arrays by name, and its spec's parameters by theirs."""
    kernel = getattr(kernels, spec.kernel)
    params = {param.name for param in spec.all_params} | ({spec.at.name} if spec.at else set())
    assert set(inspect.signature(kernel).parameters) <= set(_KERNEL_INPUTS) | params


def test_modes_compare_equal_to_their_strings() -> None:
    assert Mode.FOCUS_TIME == "focus_time" and Mode.GOLD == "gold" and Mode.LLM == "llm"
    assert SPEC["T-P"].modes == ("focus_time", "llm")
    assert temporal_precision(RUN, GOLD, k=2, mode=Mode.FOCUS_TIME).mode == "focus_time"


def test_a_threshold_outside_0_1_is_refused_by_the_function_and_in_a_name() -> None:
    with pytest.raises(MetricError, match=r"^threshold is a Jaccard similarity in \[0, 1\), got 1"):
        temporal_precision(RUN, GOLD, k=2, threshold=1)
    # Before the specs, the name parsed and only scoring it failed.
    with pytest.raises(MetricError, match=r"^measure 'T-P\(threshold=1.5\)@5': threshold is a"):
        parse_measure("T-P(threshold=1.5)@5")


def test_an_argument_the_spec_does_not_declare_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"precision\(\) got arguments its spec lacks: \['gain'\]"):
        compute(SPEC["P"], RUN, GOLD, 2, gain="linear")


def test_records_are_built_by_keyword() -> None:
    with pytest.raises(TypeError):
        MetricResult("ndcg", 10, "gold", {"q": 0.5})  # type: ignore[misc]
    with pytest.raises(TypeError):
        MeasureSpec("X", "x", "precision", "a measure")  # type: ignore[misc]
    empty = np.zeros((0, 0))
    with pytest.raises(TypeError):
        Relevance((), empty, empty, empty, empty, empty, empty, {}, empty, None)  # type: ignore[misc]
    result = MetricResult(name="ndcg", k=10, mode="gold", per_query={"q": 0.5}, measure="nDCG@10")
    again = pickle.loads(pickle.dumps(result))
    assert (again.measure, again.per_query, float(again)) == ("nDCG@10", {"q": 0.5}, 0.5)


def test_no_closed_set_message_is_written_out_in_the_metrics() -> None:
    """One wording (errors.check_choice) for every "must be one of"."""
    package = Path(pytest_tempoeval.__file__).parent / "metrics"
    written = [
        f"{path.name}:{number}"
        for path in sorted(package.glob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "must be one of" in line or "choose one of" in line
    ]
    assert not written
