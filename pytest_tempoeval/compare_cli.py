"""``tempoeval compare BASE RUN... GOLD``: every run tested against the base, in one table.

``cli.py`` registers the command, loads the files and scores them; this module takes the scores of
each run (the base first) and does the rest: the family of tests, Holm's correction across it, the
verdict of each cell (:func:`.gate.verdict.regressed`, the gate's one rule), as a :class:`Report`
that ``compare_report.py`` prints.

- **The family** is every tested (system, measure) cell: systems x measures, the base not compared
  with itself. Holm's correction runs over all of it at once, so adding a system makes every drop
  need a smaller p-value, as adding a measure does.
- **A cell** pairs the system's per-query scores with the base's over the base's counted queries
  (the gate's :func:`.gate.baselines.compare`: a query the system does not count scores 0), so
  every mean in one column is over the same queries. Its p-value is the gate's one-sided paired
  randomization test for a drop; the verdict asks ``regressed`` with the Holm-adjusted p-value.
- **A significant gain** (``^``) is the same test the other way round, Holm-corrected across its
  own family of the same size. It is only a mark: it never changes the exit status.
- **Names**: a run is named by its file's stem (``runs/bm25.trec`` -> ``bm25``). Runs whose stems
  clash are named by their folders as far up as needed (``a/run``, ``b/run``), then by their file
  names (``run.trec``, ``run.txt``); a file given twice in the two-run form gets ``#2``.
- **The same file twice** is refused from three runs on: the base given again as a run would be
  compared with itself, and a run given twice tested twice; either adds tests to the family, which
  raises every other system's adjusted p-value and can hide its regression. In the two-run form it
  is allowed (a CI step comparing a run that did not change with the base's must pass), and hides
  nothing: there is no other system. Another file that scores as the base on every query is another
  system, allowed with a note on stderr: a copy of the base cannot be told from a system that did
  not change.

The report in each format: ``compare_report.py``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_tempoeval.constants import SCORE_TOLERANCE
from pytest_tempoeval.errors import MetricError, RunError
from pytest_tempoeval.gate.randomization import Correction

if TYPE_CHECKING:  # the gate's baselines module reads numpy-backed results: imported when run
    from pytest_tempoeval.gate.baselines import BaselineComparison


@dataclass(frozen=True, kw_only=True)
class Cell:
    """One system against the base on one measure."""

    system: str
    run: str
    measure: str
    comparison: BaselineComparison  # its p_value is the raw one
    p_gain: float | None  # one-sided: the system scores higher than the base
    p_adjusted: float | None
    p_gain_adjusted: float | None
    regressed: bool
    significant_gain: bool
    note: str  # the Judged@k note

    @property
    def mean(self) -> float:
        return self.comparison.current


@dataclass(frozen=True, kw_only=True)
class Report:
    paths: list[str]  # the base first
    names: list[str]
    gold: str
    measures: list[str]
    base_means: dict[str, float]
    cells: list[Cell]  # system-major, in the order given
    correction: str
    alpha: float
    max_drop: float

    @property
    def tests(self) -> int:
        """The size of Holm's family: the cells that were tested."""
        return sum(cell.comparison.p_value is not None for cell in self.cells)

    @property
    def regressed(self) -> list[Cell]:
        return [cell for cell in self.cells if cell.regressed]

    def mean(self, system: int, measure: str) -> float:
        """The mean of system ``system`` (0: the base) over the base's counted queries."""
        if system == 0:
            return self.base_means[measure]
        return self.cells[(system - 1) * len(self.measures) + self.measures.index(measure)].mean

    def best(self, measure: str) -> set[int]:
        """The systems with the highest mean of ``measure`` (ties within float noise: all)."""
        means = [self.mean(system, measure) for system in range(len(self.names))]
        top = max(means)
        return {system for system, mean in enumerate(means) if mean >= top - SCORE_TOLERANCE}

    def cell(self, system: int, measure: str) -> Cell | None:
        if system == 0:
            return None
        return self.cells[(system - 1) * len(self.measures) + self.measures.index(measure)]


# -- the runs given --------------------------------------------------------------------------------


def refuse_repeated(paths: Sequence[str]) -> None:
    """From three runs on, RunError when one file is given twice (see the module docstring)."""
    if len(paths) < 3:
        return
    seen: dict[object, int] = {}
    for position, path in enumerate(paths):
        key = _file_key(path)
        if key in seen:
            first = seen[key]
            what = (
                "the base given again as a run would be compared with itself"
                if first == 0
                else "a run given twice would be tested twice"
            )
            raise RunError(
                f"{path}: given twice (runs {first + 1} and {position + 1}), and {what}: its "
                "tests would join Holm's family and make every other system's drop harder to "
                "see. Give each run once."
            )
        seen[key] = position


def _file_key(path: str) -> object:
    """The file a path names: its device and inode when it exists (a symlink, ``./x`` and ``x``
    are one file), else its absolute path (the reader then says it is missing)."""
    try:
        status = os.stat(path)
    except OSError:
        return os.path.abspath(path)
    return (status.st_dev, status.st_ino)


def system_names(paths: Sequence[str]) -> list[str]:
    """Each run's name: its file's stem, made unique as the module docstring says."""
    names = [Path(path).stem or Path(path).name for path in paths]
    for stem in {name for name in names if names.count(name) > 1}:
        group = [index for index, name in enumerate(names) if name == stem]
        for labels in _candidate_labels([paths[index] for index in group]):
            if len(set(labels)) == len(labels):
                break
        else:  # the same file twice (the two-run form): by position
            labels = [stem if rank == 0 else f"{stem}#{rank + 1}" for rank in range(len(group))]
        for index, label in zip(group, labels, strict=True):
            names[index] = label
    return names


def _candidate_labels(paths: list[str]) -> list[list[str]]:
    """Labels from short to long: the stem under 1, 2, ... folders, then the file name under 0, 1,
    ... folders."""
    parts = [Path(os.path.abspath(path)).parts for path in paths]
    deepest = max(len(each) for each in parts)
    stems = [[*each[:-1], Path(each[-1]).stem] for each in parts]
    by_stem = [["/".join(each[-depth:]) for each in stems] for depth in range(2, deepest + 1)]
    by_name = [["/".join(each[-depth:]) for each in parts] for depth in range(1, deepest + 1)]
    return by_stem + by_name


# -- the family of tests ---------------------------------------------------------------------------


def compare_runs(
    paths: Sequence[str],
    results: Sequence[dict[str, Any]],
    measures: Sequence[str],
    *,
    gold: str,
    max_drop: float,
    alpha: float,
    correction: str,
    gains: bool = True,
) -> Report:
    """Every run after the first against the first, on every measure: ``results`` are
    ``evaluate``'s, one dict per path, NaN already refused. ``gains=False`` skips the tests for a
    gain (None): a second randomization test per cell that the two-run text does not print."""
    from pytest_tempoeval.gate import randomization, verdict
    from pytest_tempoeval.gate.baselines import compare, judged_measure, judged_note
    from pytest_tempoeval.metrics.explain import unknown_ids_problem

    names = system_names(paths)
    two_runs = len(paths) == 2
    base = results[0]
    for measure in measures:
        if not base[measure].per_query:
            raise MetricError(f"{measure}: no query of BASE is counted ({gold})")
        for position, (path, scored) in enumerate(zip(paths, results, strict=True)):
            if scored[measure].knows_no_retrieved_id():
                label = ("BASE", "NEW")[position] if two_runs else path
                raise MetricError(f"{label}: {unknown_ids_problem(scored[measure])}")
    found = []  # (system index, measure, comparison, gain p-value)
    for system in range(1, len(paths)):
        for measure in measures:
            before, now = base[measure].per_query, results[system][measure].per_query
            # The verdict is decided below, after the correction across the whole family.
            comparison = compare(measure, before, now, max_drop, alpha)
            p_gain = None
            if gains and comparison.p_value is not None:  # compare()'s pairing: missing is 0
                queries = sorted(before)
                old = [before[query] for query in queries]
                new = [now.get(query, 0.0) for query in queries]
                p_gain = randomization.paired_randomization_p(new, old)
            found.append((system, measure, comparison, p_gain))
        if not two_runs and all(
            results[system][m].per_query == base[m].per_query for m in measures
        ):
            print(
                f"tempoeval: note: {paths[system]} scores as the base on every query of every "
                f"measure: its {len(measures)} tests (p = 1) count in Holm's family and raise the "
                "others' adjusted p-values; leave it out if it is the base again",
                file=sys.stderr,
            )
    drops = _adjusted([c.p_value for _, _, c, _ in found], correction)
    gains_adjusted = _adjusted([p for _, _, _, p in found], correction)
    cells, base_means = [], {}
    for (system, measure, comparison, p_gain), p_adjusted, p_gain_adjusted in zip(
        found, drops, gains_adjusted, strict=True
    ):
        assert comparison.baseline is not None  # compare() was given the base's scores
        base_means[measure] = comparison.baseline  # the same for every system
        drop = comparison.baseline - comparison.current
        regressed = verdict.regressed(drop, max_drop, p_adjusted, alpha)
        note = ""
        judged_before, judged_now = base[measure].judged, results[system][measure].judged
        if judged_before is not None and judged_now is not None:
            note = judged_note(
                judged_before,
                judged_now,
                judged_measure(base[measure]),
                sorted(base[measure].per_query),
            )
        cells.append(
            Cell(
                system=names[system],
                run=paths[system],
                measure=measure,
                comparison=comparison,
                p_gain=p_gain,
                p_adjusted=p_adjusted,
                p_gain_adjusted=p_gain_adjusted,
                regressed=regressed,
                significant_gain=p_gain_adjusted is not None
                and p_gain_adjusted < alpha
                and -drop > SCORE_TOLERANCE,
                note=note,
            )
        )
    return Report(
        paths=list(paths),
        names=names,
        gold=gold,
        measures=list(measures),
        base_means=base_means,
        cells=cells,
        correction=correction,
        alpha=alpha,
        max_drop=max_drop,
    )


def _adjusted(p_values: list[float | None], correction: str) -> list[float | None]:
    """Holm-adjusted across the tested ones (None: untested), in the order given."""
    from pytest_tempoeval.gate.randomization import holm_adjusted

    tested = [p for p in p_values if p is not None]
    corrected = iter(holm_adjusted(tested) if correction == Correction.HOLM else tested)
    return [None if p is None else next(corrected) for p in p_values]
