"""How trec_eval prints scores: each query's lines in its order, and the "all" line in its
arithmetic. ``tempoeval evaluate --format trec -m ...`` writes through this module alone;
``tempoeval trec_eval`` (:mod:`.trec_eval_cli`) prints through it too. Its measure table and line
layout are in :mod:`.trec_eval_measures`.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TextIO

from pytest_tempoeval.trec_eval_measures import (
    PER_QUERY,
    PRINTED_NAME,
    ROOT,
    Printed,
    formatted,
    trec_line,
)

if TYPE_CHECKING:
    import numpy as np

    from pytest_tempoeval.data.goldset import GoldSet
    from pytest_tempoeval.metrics.results import MetricResult


def write_results(
    results: Mapping[str, MetricResult], gold: GoldSet, per_query: bool, out: TextIO
) -> None:
    """``evaluate --format trec -m ...``: the measures in the order given, trec_eval's name when it
    has one, printed as trec_eval prints that measure (counts as integers, gm_map only in the
    summary); with -q each query in trec_eval's order first. A measure with no query counted
    (none left after its own exclusions) prints 0.0000, as trec_eval prints an empty mean, with
    a note saying why."""
    from pytest_tempoeval.metrics.measures import parse_measure, trec_eval_name

    rows = []
    for text, result in results.items():
        measure = parse_measure(text)
        name = trec_eval_name(measure) or text
        cut = re.fullmatch(PRINTED_NAME, name)
        root = ROOT.get(cut["root"] if cut else name)
        printed = root.printed if root else _PRINTED_BY_AGGREGATE[measure.family.aggregate]
        rows.append((name, printed, str(measure.family.aggregate), result))
    import numpy as np

    order = np.argsort(np.array(gold.query_ids, dtype=str), kind="stable")  # strcmp's order
    queries = [gold.query_ids[i] for i in order.tolist()]
    columns = []
    for _, printed, _, result in rows:
        values, counted = query_arrays(result, gold)
        columns.append((values[order], counted[order]))
    if per_query:
        write_per_query(
            queries,
            [
                (name, [v if c else None for v, c in zip(formatted_all(printed, values), counted)])
                for (name, printed, _, _), (values, counted) in zip(rows, columns)
                if printed in PER_QUERY
            ],
            out,
        )
    notes = []
    for (name, printed, aggregate, result), (values, counted) in zip(rows, columns):
        if not counted.any():
            why = "; ".join(sorted(set(result.excluded.values()))) or "no query"
            notes.append(f"{name}: no query counted ({why}); printed 0, as trec_eval prints it")
        value = trec_eval_aggregate(values[counted], aggregate)
        out.write(trec_line(name, "all", formatted(printed, value)))
    out.flush()  # the scores first: a reader that left (| head) gets no note
    for note in notes:
        print(f"tempoeval: note: {note}", file=sys.stderr)


_PRINTED_BY_AGGREGATE: dict[str, Printed] = {
    "mean": Printed.VALUE,
    "geometric": Printed.VALUE_SUMMARY,
    "sum": Printed.COUNT,
}


def query_arrays(result: MetricResult, gold: GoldSet) -> tuple[np.ndarray, np.ndarray]:
    """[gold queries] each query's value and whether it is counted, in the gold set's order,
    read from the result's arrays (a dict of 100,000 queries would be most of the time)."""
    import numpy as np

    arrays = result.query_arrays()
    if arrays is not None:
        ids, scores, counted = arrays
        if ids is gold.query_ids or tuple(ids) == gold.query_ids:
            return scores.astype(np.float64), counted
    per_query = result.per_query
    values = np.array([float(per_query.get(q, math.nan)) for q in gold.query_ids])
    return values, np.array([q in per_query for q in gold.query_ids], dtype=bool)


def trec_eval_aggregate(values: np.ndarray, aggregate: str) -> float:
    """trec_eval's "all": the values added one by one in its query order, in doubles, then divided
    (meas_acc.c, meas_avg.c), so that a mean on a rounding boundary prints its last digit as
    trec_eval does (an exactly rounded sum can print 0.0027 where trec_eval prints 0.0028). Its
    geometric mean adds the logs (C's log) of the values floored at 1e-5; a sum is not divided.
    Nothing to average: trec_eval prints its 0."""
    import numpy as np

    from pytest_tempoeval.metrics.kernels import GEOMETRIC_FLOOR

    if values.size == 0:
        return 0.0
    if aggregate == "geometric":
        values = np.array([math.log(max(value, GEOMETRIC_FLOOR)) for value in values.tolist()])
    total = float(np.cumsum(values)[-1])  # a running sum: numpy's sum adds pairwise
    if aggregate == "sum":
        return total
    mean = total / values.size
    return math.exp(mean) if aggregate == "geometric" else mean


def formatted_all(printed: Printed, values: np.ndarray | list[str]) -> list[str]:
    """Every query's value as trec_eval prints it (one format per column: 100,000 queries)."""
    if isinstance(values, list):  # relstring
        return [f"'{value}'" for value in values]
    listed: list[float] = values.tolist()
    if printed in (Printed.COUNT, Printed.COUNT_SUMMARY):
        return [str(int(value)) for value in listed]
    return [f"{value:6.4f}" for value in listed]


def write_per_query(
    queries: Sequence[str], columns: Sequence[tuple[str, Sequence[str | None]]], out: TextIO
) -> None:
    """Each query's lines, its columns in order (a column's None: no line for that query)."""
    padded = [(f"{name:<22}\t", values) for name, values in columns]
    out.writelines(
        f"{name}{query}\t{values[index]}\n"
        for index, query in enumerate(queries)
        for name, values in padded
        if values[index] is not None
    )
