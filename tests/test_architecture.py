"""The package's shape: layers that import only downward, no import cycle, one home for errors.

Layers, bottom to top (docs/architecture.md): foundations, data, metrics, judge, gate, pytest
surface. Every import counts, including those inside functions and under TYPE_CHECKING: a lazy
upward import is still a dependency on the layer above.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.metadata
import pkgutil
from pathlib import Path

import pytest

import pytest_tempoeval

PACKAGE = Path(pytest_tempoeval.__file__).parent
LAYERS = ("foundations", "data", "metrics", "judge", "gate", "surface")
FOUNDATIONS = {"pytest_tempoeval.errors", "pytest_tempoeval.files", "pytest_tempoeval.constants"}
SURFACE = {
    "pytest_tempoeval",
    "pytest_tempoeval.__main__",
    "pytest_tempoeval.cli",
    "pytest_tempoeval.compare_cli",
    "pytest_tempoeval.compare_report",
    "pytest_tempoeval.failures",
    "pytest_tempoeval.focus_time",  # an alias of data.focus_time, for an import path docs showed
    "pytest_tempoeval.gold_cli",
    "pytest_tempoeval.hooks",
    "pytest_tempoeval.options",
    "pytest_tempoeval.plugin",
    "pytest_tempoeval.pool_cli",
    "pytest_tempoeval.session",
    "pytest_tempoeval.testing",
    "pytest_tempoeval.trec_eval_cli",
    "pytest_tempoeval.trec_eval_measures",
    "pytest_tempoeval.trec_eval_output",
}


def module_names() -> dict[str, Path]:
    names = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


MODULES = module_names()


def layer_of(module: str) -> int:
    if module in FOUNDATIONS:
        return 0
    for index, name in enumerate(("data", "metrics", "judge", "gate"), start=1):
        if module == f"pytest_tempoeval.{name}" or module.startswith(f"pytest_tempoeval.{name}."):
            return index
    if module in SURFACE or module.startswith("pytest_tempoeval.reports"):
        return 5
    raise AssertionError(f"{module} is in no layer: add it to one (and to docs/architecture.md)")


@functools.cache  # read when a test asks: every xdist worker imports this module
def imports_of(module: str) -> set[str]:
    """Package modules ``module`` imports, anywhere in its source."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != module:
                found.add(target)
                break
    return found


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        layer_of(module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_only_go_down(module: str) -> None:
    upward = [
        f"{module} ({LAYERS[layer_of(module)]}) imports {target} ({LAYERS[layer_of(target)]})"
        for target in sorted(imports_of(module))
        if layer_of(target) > layer_of(module)
    ]
    assert not upward, upward


def test_no_import_cycle() -> None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []
    cycles = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(imports_of(module)):
            if state.get(target) == 1:
                cycles.append(" -> ".join(path[path.index(target) :] + [target]))
            elif target not in state:
                visit(target)
        path.pop()
        state[module] = 2

    for module in sorted(MODULES):
        if module not in state:
            visit(module)
    assert not cycles, cycles


def test_the_checker_sees_imports_inside_functions() -> None:
    """The graph must include lazy imports: the plugin imports the gate only inside a fixture."""
    assert "pytest_tempoeval.gate.baselines" in imports_of("pytest_tempoeval.plugin")
    assert "pytest_tempoeval.data.readers.trec" in imports_of("pytest_tempoeval.data.goldset")


def test_documented_import_paths_still_work() -> None:
    from pytest_tempoeval.focus_time import FocusTime
    from pytest_tempoeval.metrics import TemporalNDCG, TemporalPrecision
    from pytest_tempoeval.testing import FakeMessagesServer, Fault

    assert FocusTime is pytest_tempoeval.FocusTime
    assert TemporalNDCG.__module__ == TemporalPrecision.__module__
    assert FakeMessagesServer and Fault
    entry_points = importlib.metadata.entry_points(group="pytest11")
    assert {point.value for point in entry_points if point.name == "tempoeval"} == {
        "pytest_tempoeval.plugin"
    }


def test_every_exception_and_warning_lives_in_errors_and_is_exported() -> None:
    from pytest_tempoeval import errors

    defined = {
        name
        for name, value in vars(errors).items()
        if isinstance(value, type) and issubclass(value, BaseException)
    }
    for info in pkgutil.walk_packages([str(PACKAGE)], "pytest_tempoeval."):
        source = PACKAGE.parent / (
            info.name.replace(".", "/") + ("/__init__.py" if info.ispkg else ".py")
        )
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and info.name != "pytest_tempoeval.errors":
                bases = {getattr(base, "id", getattr(base, "attr", "")) for base in node.bases}
                assert not bases & (defined | {"Exception", "Warning", "ValueError"}), (
                    f"{info.name}.{node.name} is an exception class outside errors.py"
                )
    for name in defined - {"Exception"}:
        assert getattr(pytest_tempoeval, name) is getattr(errors, name), f"{name} is not exported"
        assert getattr(errors, name).__module__ == "pytest_tempoeval"  # its public name


# Past about 400 lines a module is hard to read in one sitting: a longer one says why it is whole.
LONG_MODULE_LINES = 430


def test_a_long_module_says_why_it_is_one_module() -> None:
    unexplained = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if source.count("\n") <= LONG_MODULE_LINES:
            continue
        docstring = ast.get_docstring(ast.parse(source)) or ""
        if "One module on purpose" not in docstring:
            unexplained.append(f"{path.relative_to(PACKAGE)} ({source.count(chr(10))} lines)")
    assert not unexplained, (
        "modules over ~400 lines whose docstring does not say why they stay one module "
        "('One module on purpose, ...'): split them or say why: " + ", ".join(unexplained)
    )
