"""What a user's type checker sees of the public API.

The packages resolve their names lazily (PEP 562 ``__getattr__``), which a type checker cannot
follow: it reads them from the ``if TYPE_CHECKING:`` imports instead. The tests here check that
those imports name exactly the lazy tables' names, from the same modules. mypy checks this file too
(``[tool.mypy] files``, run by ``.ci/run``): each ``assert_type`` below fails the type check when
the checker sees a public name as ``Any``, and each ``type: ignore`` fails it (an unused ignore)
when a misspelt name is not an error.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path
from types import ModuleType
from typing import assert_type

import pytest

import pytest_tempoeval
import pytest_tempoeval.metrics
from pytest_tempoeval.data.goldset import GoldSet
from pytest_tempoeval.data.run import Run
from pytest_tempoeval.errors import RunError
from pytest_tempoeval.metrics.results import MetricResult
from pytest_tempoeval.metrics.tempoeval_compat import TemporalNDCG

PACKAGES = [pytest_tempoeval, pytest_tempoeval.metrics]


def type_checking_imports(package: ModuleType) -> dict[str, str]:
    """Name -> module of each import under ``if TYPE_CHECKING:`` in ``package``'s ``__init__``."""
    assert package.__file__ is not None
    tree = ast.parse(Path(package.__file__).read_text(encoding="utf-8"))
    found: dict[str, str] = {}
    for node in tree.body:
        if not (isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"):
            continue
        for statement in node.body:
            assert isinstance(statement, ast.ImportFrom) and statement.module, ast.unparse(
                statement
            )
            for alias in statement.names:
                # Only ``X as X`` re-exports a name to a checker that reads it strictly.
                assert alias.asname == alias.name, f"import it as {alias.name} as {alias.name}"
                found[alias.name] = statement.module
    return found


@pytest.mark.parametrize("package", PACKAGES, ids=lambda package: package.__name__)
def test_the_type_checker_sees_every_lazy_export_from_its_module(package: ModuleType) -> None:
    lazy = {name: f"{package.__name__}.{module}" for name, module in package._EXPORTS.items()}
    seen = type_checking_imports(package)
    missing = {name: module for name, module in lazy.items() if seen.get(name) != module}
    assert not missing, (
        f"{package.__name__}/__init__.py: add `from MODULE import NAME as NAME` under "
        f"`if TYPE_CHECKING:` for each of {missing}"
    )
    assert set(seen) <= set(lazy), f"not lazily exported: {set(seen) - set(lazy)}"


@pytest.mark.parametrize("package", PACKAGES, ids=lambda package: package.__name__)
def test_no_submodule_shadows_a_lazy_export(package: ModuleType) -> None:
    """Importing a submodule sets it as its package's attribute: one named like an exported
    function (metrics/evaluate.py once) would replace the function after its first import."""
    submodules = {info.name for info in pkgutil.iter_modules(package.__path__)}
    assert not submodules & set(package._EXPORTS)


@pytest.mark.parametrize(
    ("package", "name"),
    [
        pytest.param(package, name, id=f"{package.__name__}.{name}")
        for package in PACKAGES
        for name in sorted(package._EXPORTS)
    ],
)
def test_each_lazy_export_is_the_object_the_checker_names(package: ModuleType, name: str) -> None:
    module = type_checking_imports(package)[name]
    importlib.import_module(module)  # as any other import of it may have, first
    assert getattr(package, name) is getattr(importlib.import_module(module), name)


def test_public_names_have_their_real_types() -> None:
    assert_type(pytest_tempoeval.Run, type[Run])
    assert_type(pytest_tempoeval.GoldSet, type[GoldSet])
    assert_type(pytest_tempoeval.RunError, type[RunError])
    assert_type(pytest_tempoeval.metrics.TemporalNDCG, type[TemporalNDCG])
    with pytest.raises(AttributeError):
        _ = pytest_tempoeval.Rnu  # type: ignore[attr-defined]  # a misspelt name is a type error
    with pytest.raises(AttributeError):
        _ = pytest_tempoeval.metrics.ndgc  # type: ignore[attr-defined]


def _checked_only(run: Run, gold: GoldSet) -> None:
    """Not run (mypy checks it): what the public functions return, as a checker sees it."""
    assert_type(pytest_tempoeval.temporal_ndcg(run, gold, k=10), MetricResult)
    assert_type(pytest_tempoeval.assert_ndcg(run, gold, k=10), MetricResult)
    assert_type(pytest_tempoeval.metrics.precision(run, gold, k=10), MetricResult)
