"""The ``tempoeval`` command (also ``python -m pytest_tempoeval``): scores outside pytest.

- ``tempoeval evaluate RUN GOLD -m nDCG@10 P@5``: a run's measures (``--format trec`` prints
  trec_eval's layout, so scripts written for trec_eval keep working);
- ``tempoeval compare BASE NEW GOLD -m ...``: two runs, with the gate's paired randomization test,
  Holm-corrected across the measures; exit 1 on a significant drop, to gate a CI step;
- ``tempoeval check GOLD...``: validate gold sets (a pre-commit or CI lint).

Exit codes: 0 fine; 1 a regression (compare) or an invalid gold set (check); 2 bad input or usage,
or a NaN score (it would compare false with everything, so never regress), as one line naming the
file and line, never a traceback; 141 (as a tool killed by SIGPIPE) quietly when the reader of its
output left (``| head``). A measure given in two spellings (``nDCG@10``, ``ndcg_cut_10``)
is scored once. Heavy modules (numpy) are imported by the
commands, not here: ``tempoeval --help`` stays fast.

One module on purpose, though longer than most: the argument parser and the two commands it runs,
each a thin layer over ``evaluate`` and the gate; what they share (options, exit codes, trec_eval's
layout) is here once.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TextIO

from pytest_tempoeval.errors import GoldSetWarning, MetricError, TempoEvalError
from pytest_tempoeval.gate.randomization import Correction
from pytest_tempoeval.gate.verdict import (
    DEFAULT_ALPHA,
    DEFAULT_MAX_DROP,
    Verdict,
    alpha_from,
    max_drop_from,
)

EXIT_OK, EXIT_REGRESSED, EXIT_BAD_INPUT = 0, 1, 2
EXIT_PIPE_CLOSED = 141  # 128 + SIGPIPE: what a shell reports for a tool a closed pipe killed
DEFAULT_MEASURES = ("nDCG@10", "P@10", "R@100", "AP", "RR", "Judged@10")
COMPARED_MEASURES = ("nDCG@10", "P@10", "R@100", "AP", "RR")
REGRESSED_SHOWN = 10  # regressed queries listed per measure by compare
MEASURES_HELP = (
    "measures in ir_measures syntax: nDCG@10, P(rel=2)@5, R@100, AP, RR, Success@5, Judged@10; "
    "temporal: T-nDCG@10, T-P(threshold=0.5)@5; trec_eval names work too (P_5, ndcg_cut_10, map)"
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; its exit status. The cyclic garbage collector is off meanwhile: a command
    makes arrays and modules, not garbage cycles, and at 1,000 queries the collector's passes over
    every imported object cost 2% of the run (~15 M instructions). Back on when it returns.

    With ``argv`` None (the process's own command line, as ``tempoeval`` and ``python -m
    pytest_tempoeval`` call it), the process ends here: see :func:`_end_process`."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        if argv is None:
            _one_blas_thread()
            try:
                status = _command(None)
            except SystemExit as exit:  # usage errors, --help, bad input: their status
                if not isinstance(exit.code, int | None):
                    raise
                status = exit.code or 0
            _end_process(status)
            return status
        return _command(argv)
    finally:
        if collecting:
            # What the command made joins the oldest generation (a caller's next full collection
            # sees it): left young, it would all be traversed at the first allocation after this.
            gc.freeze()
            gc.unfreeze()
            gc.enable()


def _one_blas_thread() -> None:
    """Unless the user chose a number: numpy's OpenBLAS starts a thread per core when numpy is
    imported, which spin for a while. At 1,000 queries that was 90 ms of CPU (a third of the
    command's) and, on a busy 2-core machine, 20 ms of wall; the command's matrix products (nDCG's
    discounts, the randomization test's chunks of a million cells) are too small to share."""
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _end_process(status: int) -> None:
    """End the process with ``status`` as a normal exit would, without its teardown of every
    module and object (5% of a 1,000-query evaluation, ~38 M instructions): the output is flushed
    and the exit handlers run (``atexit``: coverage, the tests' probes) first. Returns, for the
    normal exit, only when another thread is running or the output cannot be flushed."""
    import atexit

    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:  # a closed pipe: the interpreter's own exit says it as it always has
        return
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):  # what the exit handlers wrote
        try:
            stream.flush()
        except OSError:
            pass
    os._exit(status)


def _command(argv: Sequence[str] | None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    problem = None
    try:
        status = int(args.command(args, sys.stdout))
        sys.stdout.flush()  # a reader that left shows here, not in the interpreter's last flush
        return status
    except BrokenPipeError:  # `tempoeval evaluate ... | head -1`: the reader has what it wanted
        return _pipe_closed()
    except TempoEvalError as error:  # anything else is a bug: a traceback
        problem = str(error) + _swap_hint(args)
    except OSError as error:
        problem = str(error)
    _fail(problem)  # outside the handler: no chained traceback


def _fail(message: str) -> NoReturn:
    print(f"tempoeval: error: {_one_line(message)}", file=sys.stderr)
    raise SystemExit(EXIT_BAD_INPUT)


SHOWN_MESSAGE = 600  # characters of an error line: its start (file, line, what) and its end (hint)


def _one_line(message: str) -> str:
    """The message on one line, its middle cut when long: a value it quotes (a whole file read as
    one value, a megabyte id) must not bury the file name and the hint."""
    text = " ".join(message.split())
    if len(text) <= SHOWN_MESSAGE:
        return text
    head, tail = SHOWN_MESSAGE * 2 // 3, SHOWN_MESSAGE // 3
    return f"{text[:head]} [... {len(text) - head - tail:,} characters cut ...] {text[-tail:]}"


def _pipe_closed() -> int:
    """Exit as a Unix tool killed by SIGPIPE is seen (128 + 13), quietly: never 0, so that with
    ``set -o pipefail`` a cut pipeline is not a pass, and never 1, which is a regression."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # the interpreter's last flush must not fail again
    return EXIT_PIPE_CLOSED


def _swap_hint(args: argparse.Namespace) -> str:
    """``(RUN and GOLD swapped? ...)`` when a run argument looks like a gold set or qrels, or the
    gold argument like a run (a sniff of each file's first line)."""
    from pytest_tempoeval.data.readers.lines import sniffed_kind

    gold = getattr(args, "gold", None)
    if not isinstance(gold, str):  # `check` takes gold sets only
        return ""
    runs = [getattr(args, name) for name in ("run", "base", "new") if hasattr(args, name)]
    clues = [
        f"{path}, given as a run, looks like {kind}"
        for path in runs
        if (kind := sniffed_kind(path)) not in (None, "a TREC run")
    ]
    if sniffed_kind(gold) == "a TREC run":
        clues.append(f"{gold}, given as GOLD, looks like a TREC run")
    return f" (RUN and GOLD swapped? {'; '.join(clues)})" if clues else ""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tempoeval",
        description="Retrieval measures, temporal relevance and regression gating, outside pytest.",
        epilog="Exit codes: 0 fine; 1 a significant regression (compare) or an invalid gold set "
        "(check); 2 bad input, usage, or a NaN score; 141, quietly, when the reader of the "
        "output left (| head), as a tool killed by SIGPIPE.",
    )
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND")

    evaluate = commands.add_parser(
        "evaluate",
        help="score a run against a gold set",
        description="Score RUN against GOLD. GOLD: a YAML/JSON gold set, a TREC qrels file or a "
        "BEIR folder. RUN: a TREC run file, or JSON.",
    )
    evaluate.add_argument("run", metavar="RUN")
    evaluate.add_argument("gold", metavar="GOLD")
    _measures_option(evaluate, DEFAULT_MEASURES)
    evaluate.add_argument("-q", action="store_true", help="also print every query's value")
    evaluate.add_argument(
        "--format",
        choices=("text", "json", "trec"),
        default="text",
        help="text (default), json, or trec: trec_eval's 'measure<TAB>query<TAB>value' lines",
    )
    _common_options(evaluate)
    evaluate.set_defaults(command=_evaluate)

    compare = commands.add_parser(
        "compare",
        help="compare two runs; exit 1 on a significant drop",
        description="Compare NEW with BASE on GOLD, per measure: the means, the delta, the "
        "one-sided paired randomization p-value (Holm-corrected across the measures), and the "
        "queries that got worse. Exits 1 when a measure dropped by more than --max-drop with "
        "p < --alpha.",
    )
    compare.add_argument("base", metavar="BASE")
    compare.add_argument("new", metavar="NEW")
    compare.add_argument("gold", metavar="GOLD")
    _measures_option(compare, COMPARED_MEASURES)
    compare.add_argument(
        "--max-drop",
        type=_argument(max_drop_from),
        default=DEFAULT_MAX_DROP,
        help=f"default {DEFAULT_MAX_DROP:g}",
    )
    compare.add_argument(
        "--alpha",
        type=_argument(alpha_from),
        default=DEFAULT_ALPHA,
        help=f"default {DEFAULT_ALPHA:g}",
    )
    compare.add_argument(
        "--correction",
        choices=tuple(Correction),
        default=Correction.HOLM,
        help=f"multiple-comparison correction across the measures (default {Correction.HOLM})",
    )
    compare.add_argument("--format", choices=("text", "json"), default="text")
    _common_options(compare)
    compare.set_defaults(command=_compare)

    check = commands.add_parser(
        "check",
        help="validate gold sets (a pre-commit lint)",
        description="Load each GOLD and report its errors and warnings with file and line. Exits "
        "1 when one has an error (with --strict, a warning too).",
    )
    check.add_argument("gold", metavar="GOLD", nargs="+")
    check.add_argument("--strict", action="store_true", help="warnings fail too")
    check.add_argument("--split", default="test", help="BEIR folders: the qrels split")
    check.set_defaults(command=_check)
    return parser


def _measures_option(parser: argparse.ArgumentParser, default: Sequence[str]) -> None:
    parser.add_argument(
        "-m",
        "--measures",
        nargs="+",
        metavar="MEASURE",
        default=list(default),
        help=f"{MEASURES_HELP} (default: {' '.join(default)})",
    )


def _common_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--split", default="test", help="BEIR folders: the qrels split")
    parser.add_argument(
        "--strict", action="store_true", help="run queries the gold set lacks are an error"
    )


def _argument(parse: Callable[[str], float]) -> Callable[[str], float]:
    """The gate's parser of a setting as an argparse type: its words in the usage error."""

    def parsed(text: str) -> float:
        try:
            return parse(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return parsed


def _measures(texts: Sequence[str]) -> list[str]:
    """The measures' canonical names, each once. Spellings of one measure (``nDCG@10``,
    ``ndcg_cut_10``) are merged, with a note on stderr: counted twice, a measure would be printed
    twice and weigh twice in the correction across measures."""
    from pytest_tempoeval.metrics.measures import parse_measure

    spellings: dict[str, list[str]] = {}
    for text in texts:
        spellings.setdefault(str(parse_measure(text)), []).append(text)
    for measure, given in spellings.items():
        if len(given) > 1:
            print(
                f"tempoeval: note: {', '.join(given)} are one measure, {measure}: counted once",
                file=sys.stderr,
            )
    return list(spellings)


def _refuse_nan(results: Any, path: str) -> None:
    """A NaN score is an error, never a row: NaN compares false with everything, so a NaN mean
    would neither regress nor fail. (A measure with no counted query prints ``-`` with why.)"""
    for result in results.values():
        if result.per_query and math.isnan(result):
            try:
                result.check_comparable()
            except MetricError as error:
                raise MetricError(f"{path}: {error}") from None


# -- evaluate --------------------------------------------------------------------------------------


def _evaluate(args: argparse.Namespace, out: TextIO) -> int:
    from pytest_tempoeval.data.run import Run
    from pytest_tempoeval.metrics.by_name import evaluate
    from pytest_tempoeval.metrics.measures import parse_measure, trec_eval_name

    measures = _measures(args.measures)  # a typo fails before loading
    gold = _load_gold_warning(args.gold, args.split)
    results = evaluate(Run.load(args.run), gold, measures, strict=args.strict)
    _refuse_nan(results, args.run)
    if args.format == "json":
        import json

        json.dump(
            {
                "run": args.run,
                "gold": args.gold,
                "measures": {m: _json_result(r, args.q) for m, r in results.items()},
            },
            out,
            indent=2,
        )
        out.write("\n")
        return _known_ids_verdict(results)
    if args.format == "trec":
        names = {m: trec_eval_name(parse_measure(m)) or m for m in measures}
        if args.q:
            for query in gold.query_ids:
                for measure, result in results.items():
                    if query in result.per_query:
                        out.write(_trec_line(names[measure], query, result.per_query[query]))
        for measure, result in results.items():
            out.write(_trec_line(names[measure], "all", float(result)))
        return _known_ids_verdict(results)
    width = max(len(measure) for measure in measures)
    out.write(f"run {args.run}, gold {args.gold} ({len(gold.query_ids)} queries)\n")
    out.write(f"{'measure':<{width}}  {'mean':>6}  queries  excluded\n")
    for measure, result in results.items():
        counted = len(result.per_query)
        out.write(
            f"{measure:<{width}}  {_value(result)}  {counted:>7}  {len(result.excluded):>8}\n"
        )
    from pytest_tempoeval.metrics.explain import score_notes  # the text format's notes only

    for measure, result in results.items():
        notes = score_notes(result)
        if notes:
            out.write(f"{measure}: {notes}\n")
    if args.q:
        for query in gold.query_ids:
            for measure, result in results.items():
                if query in result.per_query:
                    out.write(f"{measure:<{width}}  {query}  {result.per_query[query]:.4f}\n")
    return _known_ids_verdict(results)


def _known_ids_verdict(results: dict[str, Any]) -> int:
    """EXIT_OK, or after one line on stderr EXIT_BAD_INPUT when the gold set knows none of the
    run's retrieved ids: the scores were printed, and measure nothing."""
    for result in results.values():
        if result.knows_no_retrieved_id():
            from pytest_tempoeval.metrics.explain import unknown_ids_problem

            print(f"tempoeval: error: {unknown_ids_problem(result)}", file=sys.stderr)
            return EXIT_BAD_INPUT
    return EXIT_OK


def _json_result(result: Any, per_query: bool) -> dict[str, Any]:
    data: dict[str, Any] = result.to_dict()
    if not per_query:
        data.pop("per_query")
    return data


def _trec_line(measure: str, query: str, value: float) -> str:
    return f"{measure:<22}\t{query}\t{value:.4f}\n"  # trec_eval's layout


def _value(result: Any) -> str:
    return "     -" if not result.per_query else f"{float(result):.4f}"


# -- compare ---------------------------------------------------------------------------------------


def _compare(args: argparse.Namespace, out: TextIO) -> int:
    from pytest_tempoeval.data.run import Run
    from pytest_tempoeval.gate import verdict
    from pytest_tempoeval.gate.baselines import compare, judged_measure, judged_note
    from pytest_tempoeval.gate.randomization import holm_adjusted
    from pytest_tempoeval.metrics.by_name import evaluate
    from pytest_tempoeval.metrics.explain import unknown_ids_problem

    measures = _measures(args.measures)  # once each: a repeated measure would weaken Holm
    gold = _load_gold_warning(args.gold, args.split)
    base = evaluate(Run.load(args.base), gold, measures, strict=args.strict)
    new = evaluate(Run.load(args.new), gold, measures, strict=args.strict)
    _refuse_nan(base, args.base)
    _refuse_nan(new, args.new)
    comparisons = {}
    for measure in measures:
        if not base[measure].per_query:
            raise MetricError(f"{measure}: no query of BASE is counted ({args.gold})")
        for name, result in (("BASE", base[measure]), ("NEW", new[measure])):
            if result.knows_no_retrieved_id():
                raise MetricError(f"{name}: {unknown_ids_problem(result)}")
        # The verdict is decided below, after the correction across the measures.
        comparisons[measure] = compare(
            measure, base[measure].per_query, new[measure].per_query, args.max_drop, args.alpha
        )
    p_values = {m: p for m in measures if (p := comparisons[m].p_value) is not None}
    tested, raw = list(p_values), list(p_values.values())
    holm = args.correction == Correction.HOLM
    adjusted = dict(zip(tested, holm_adjusted(raw) if holm else raw))
    rows, regressed_any = [], False
    for measure in measures:
        comparison = comparisons[measure]
        p_adjusted = adjusted.get(measure)
        baseline = comparison.baseline
        assert baseline is not None  # compare() was given the base run's scores
        drop = baseline - comparison.current
        regressed = verdict.regressed(drop, args.max_drop, p_adjusted, args.alpha)
        regressed_any |= regressed
        note = ""
        judged_before, judged_now = base[measure].judged, new[measure].judged
        if judged_before is not None and judged_now is not None:
            note = judged_note(
                judged_before,
                judged_now,
                judged_measure(base[measure]),
                sorted(base[measure].per_query),
            )
        rows.append(
            {
                "measure": measure,
                "base": comparison.baseline,
                "new": comparison.current,
                "delta": comparison.delta,
                "queries": comparison.queries,
                "p": comparison.p_value,
                "p_adjusted": p_adjusted,
                "verdict": Verdict.REGRESSED if regressed else Verdict.OK,
                "note": note,
                "worse": [
                    {"query": q, "base": old, "new": now}
                    for q, old, now in comparison.regressed[:REGRESSED_SHOWN]
                ],
                "worse_count": len(comparison.regressed),
            }
        )
    if args.format == "json":
        import json

        json.dump(
            {"correction": args.correction, "alpha": args.alpha, "measures": rows}, out, indent=2
        )
        out.write("\n")
    else:
        _compare_text(rows, args, out)
    return EXIT_REGRESSED if regressed_any else EXIT_OK


def _compare_text(rows: list[dict[str, Any]], args: argparse.Namespace, out: TextIO) -> None:
    def p(value: float | None) -> str:
        return f"{value:.4f}" if value is not None else "-"

    width = max(len("measure"), *(len(row["measure"]) for row in rows))
    holm = args.correction == Correction.HOLM
    adjusted = "p (Holm)" if holm else "p"
    out.write(f"base {args.base}, new {args.new}, gold {args.gold}\n")
    out.write(
        f"{'measure':<{width}}  {'base':>6}  {'new':>6}  {'delta':>7}  {'p':>6}  "
        f"{adjusted:>8}  verdict\n"
    )
    out.writelines(
        f"{row['measure']:<{width}}  {row['base']:.4f}  {row['new']:.4f}  {row['delta']:+.4f}  "
        f"{p(row['p']):>6}  {p(row['p_adjusted']):>8}  {row['verdict']}\n"
        for row in rows
    )
    for row in rows:
        if row["note"]:
            out.write(f"{row['measure']}: {row['note']}\n")
        if row["worse"]:
            more = row["worse_count"] - len(row["worse"])
            tail = f"; {more} more" if more else ""
            out.write(
                f"{row['measure']}: queries that got worse (base -> new), worst first{tail}:\n"
            )
            for worse in row["worse"]:
                old, now = worse["base"], worse["new"]
                out.write(f"  {worse['query']}: {old:.4f} -> {now:.4f} ({now - old:+.4f})\n")
    regressed = [row["measure"] for row in rows if row["verdict"] == Verdict.REGRESSED]
    if regressed:
        out.write(
            f"regressed: {', '.join(regressed)} (drop > {args.max_drop:g} and p < {args.alpha:g}"
            f"{', Holm-corrected' if holm else ''})\n"
        )


# -- check -----------------------------------------------------------------------------------------


def _check(args: argparse.Namespace, out: TextIO) -> int:
    failed = False
    for path in args.gold:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", GoldSetWarning)
            try:
                gold = _load_gold(path, args.split)
            except (TempoEvalError, OSError) as error:
                out.write(f"{_one_line(str(error))}\n")
                failed = True
                continue
        found = [w for w in caught if issubclass(w.category, GoldSetWarning)]
        out.writelines(f"warning: {_one_line(str(warning.message))}\n" for warning in found)
        failed |= bool(found) and args.strict
        judgments = sum(len(query.relevant) for query in gold)
        out.write(
            f"{path}: ok ({len(gold.query_ids)} queries, {judgments} judgments, "
            f"{len(gold.documents)} documents{f', {len(found)} warnings' if found else ''})\n"
        )
    return EXIT_REGRESSED if failed else EXIT_OK


def _load_gold_warning(path: str, split: str) -> Any:
    """The gold set, with each GoldSetWarning printed as one line on stderr."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", GoldSetWarning)
        gold = _load_gold(path, split)
    for warning in caught:
        print(f"tempoeval: warning: {_one_line(str(warning.message))}", file=sys.stderr)
    return gold


def _load_gold(path: str, split: str) -> Any:
    from pathlib import Path

    from pytest_tempoeval.data.goldset import GoldSet

    if Path(path).is_dir():
        return GoldSet.from_beir(path, split=split)
    return GoldSet.load(path)
