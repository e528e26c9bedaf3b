"""The ``tempoeval`` command (also ``python -m pytest_tempoeval``): scores outside pytest.

- ``tempoeval evaluate RUN GOLD -m nDCG@10 P@5``: a run's measures (``--format trec`` prints
  trec_eval's layout, so scripts written for trec_eval keep working);
- ``tempoeval compare BASE RUN... GOLD -m ...``: each run against the base, with the gate's paired
  randomization test, Holm-corrected across systems and measures; exit 1 on a significant drop,
  to gate a CI step (``compare_cli.py`` tests, ``compare_report.py`` prints);
- ``tempoeval check GOLD...``: validate gold sets (a pre-commit or CI lint);
- ``tempoeval trec_eval [flags] QRELS RESULTS``: trec_eval 10's own command line
  (``trec_eval_cli.py``, imported when it runs);
- ``tempoeval pool QUERIES CORPUS RUN... -o GOLD``: a gold set from the LLM judge's recorded
  judgments of the runs' pooled top documents (``pool_cli.py``);
- ``tempoeval gold merge GOLD PATCH -o OUT`` and ``tempoeval agree HUMAN_GOLD LLM_GOLD``: a reviewed
  gold patch merged, and the judge's agreement with people (``gold_cli.py``). The three are
  declared here and loaded only when they run.

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
from typing import Any, NamedTuple, NoReturn, TextIO

from pytest_tempoeval.errors import GoldSetWarning, MetricError, TempoEvalError
from pytest_tempoeval.gate.randomization import Correction
from pytest_tempoeval.gate.verdict import (
    DEFAULT_ALPHA,
    DEFAULT_MAX_DROP,
    alpha_from,
    max_drop_from,
)

EXIT_OK, EXIT_REGRESSED, EXIT_BAD_INPUT = 0, 1, 2
EXIT_PIPE_CLOSED = 141  # 128 + SIGPIPE: what a shell reports for a tool a closed pipe killed
COMPARED_MEASURES = ("nDCG@10", "P@10", "R@100", "AP", "RR")
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
    given = sys.argv[1:] if argv is None else list(argv)
    command = _COMMANDS.get(given[0]) if given else None
    if command is None:  # --help, a typo, no command: the whole parser says it
        args = _whole_parser().parse_args(given)
    else:
        args = _command_parser(command).parse_args(given[1:])
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
    runs = [getattr(args, name) for name in ("run", "base") if hasattr(args, name)]
    runs += getattr(args, "runs", [])  # compare's runs after the base
    clues = [
        f"{path}, given as a run, looks like {kind}"
        for path in runs
        if (kind := sniffed_kind(path)) not in (None, "a TREC run")
    ]
    if sniffed_kind(gold) == "a TREC run":
        clues.append(f"{gold}, given as GOLD, looks like a TREC run")
    return f" (RUN and GOLD swapped? {'; '.join(clues)})" if clues else ""


class _Command(NamedTuple):
    """A command of ``tempoeval``, declared once for the whole parser and for its own."""

    name: str
    help: str  # its line in ``tempoeval --help``
    description: str | None
    add_arguments: Callable[[argparse.ArgumentParser], None]
    getopt: bool = False  # its flags are read by trec_eval_cli as trec_eval's getopt reads them

    @property
    def parser_options(self) -> dict[str, Any]:
        if self.getopt:  # no flag for argparse, not even -h
            return {"description": self.description, "add_help": False, "prefix_chars": "\0"}
        return {"description": self.description}


def _command_parser(command: _Command) -> argparse.ArgumentParser:
    """The parser of one command, as the whole parser's subparser for it is (named ``tempoeval
    COMMAND``). ``tempoeval COMMAND ...`` builds only this one: argparse looks up a translation of
    each help string it adds, and the four others were 2% of a 1,000-query evaluate."""
    parser = argparse.ArgumentParser(prog=f"tempoeval {command.name}", **command.parser_options)
    command.add_arguments(parser)
    return parser


def _whole_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tempoeval",
        description="Retrieval measures, temporal relevance and regression gating, outside pytest.",
        epilog="Exit codes: 0 fine; 1 a significant regression (compare), an invalid gold set "
        "(check) or a kappa below --min-kappa (agree); 2 bad input, usage, or a NaN score; 141, "
        "quietly, when the reader of the "
        "output left (| head), as a tool killed by SIGPIPE.",
    )
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND")
    for command in _COMMANDS.values():
        subparser = commands.add_parser(command.name, help=command.help, **command.parser_options)
        command.add_arguments(subparser)
    return parser


def _evaluate_arguments(evaluate: argparse.ArgumentParser) -> None:
    evaluate.add_argument("run", metavar="RUN")
    evaluate.add_argument("gold", metavar="GOLD")
    _measures_option(evaluate, None)
    evaluate.add_argument("-q", action="store_true", help="also print every query's value")
    evaluate.add_argument(
        "--format",
        choices=("text", "json", "trec"),
        default="text",
        help="text (default), json, or trec: trec_eval's 'measure<TAB>query<TAB>value' lines",
    )
    _common_options(evaluate)
    evaluate.set_defaults(command=_evaluate)


def _compare_arguments(compare: argparse.ArgumentParser) -> None:
    compare.add_argument("base", metavar="BASE")
    compare.add_argument("runs", metavar="RUN", nargs="+")
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
        help="multiple-comparison correction across the systems and measures (default "
        f"{Correction.HOLM})",
    )
    compare.add_argument(
        "--format",
        choices=("text", "markdown", "json", "latex"),
        default="text",
        help="text (default), markdown (the best bolded), json, or latex (a booktabs tabular)",
    )
    _common_options(compare)
    compare.set_defaults(command=_compare)


def _check_arguments(check: argparse.ArgumentParser) -> None:
    check.add_argument("gold", metavar="GOLD", nargs="+")
    check.add_argument(
        "--strict", action="store_true", help="warnings fail too (and, with --years, doubts)"
    )
    check.add_argument(
        "--years",
        action="store_true",
        help="also print each query's focus time (read from its text, or given) and flag the "
        "readings to check",
    )
    check.add_argument("--split", default="test", help="BEIR folders: the qrels split")
    check.set_defaults(command=_check)


def _trec_eval_arguments(trec_eval: argparse.ArgumentParser) -> None:
    trec_eval.add_argument("argv", nargs=argparse.REMAINDER)
    trec_eval.set_defaults(command=_trec_eval)


# The judged-gold commands' arguments and code live in their own modules, imported when their
# parser is built (``tempoeval pool ...``, ``tempoeval --help``): light, standard library only.


def _pool_arguments(pool: argparse.ArgumentParser) -> None:
    from pytest_tempoeval.pool_cli import pool_arguments

    pool_arguments(pool)


def _gold_arguments(gold: argparse.ArgumentParser) -> None:
    from pytest_tempoeval.gold_cli import gold_arguments

    gold_arguments(gold)


def _agree_arguments(agree: argparse.ArgumentParser) -> None:
    from pytest_tempoeval.gold_cli import agree_arguments

    agree_arguments(agree)


_COMMANDS = {
    command.name: command
    for command in (
        _Command(
            "evaluate",
            "score a run against a gold set",
            "Score RUN against GOLD. GOLD: a YAML/JSON gold set, a TREC qrels file or a BEIR "
            "folder. RUN: a TREC run file, or JSON.",
            _evaluate_arguments,
        ),
        _Command(
            "compare",
            "compare runs with a base; exit 1 on a significant drop",
            "Compare each RUN with BASE on GOLD, per measure: the means, the delta, the "
            "one-sided paired randomization p-value (Holm-corrected across every system and "
            "measure), and the queries that got worse. Exits 1 when a system dropped on a "
            "measure by more than --max-drop with p < --alpha.",
            _compare_arguments,
        ),
        _Command(
            "check",
            "validate gold sets (a pre-commit lint)",
            "Load each GOLD and report its errors and warnings with file and line. With --years, "
            "also each query's focus time and the readings of years to check. Exits 1 when one "
            "has an error (with --strict, a warning or a doubtful reading too).",
            _check_arguments,
        ),
        _Command(
            "trec_eval",
            "trec_eval's command line: tempoeval trec_eval [flags] QRELS RESULTS",
            None,
            _trec_eval_arguments,
            getopt=True,
        ),
        _Command(
            "pool",
            "a gold set from the LLM judge's judgments of the runs' pooled top documents",
            "Pool the union of each RUN's top --depth documents per query (TREC pooling), judge "
            "each pooled pair once with the recorded LLM judge (--cassette), and write a gold "
            "set with every judgment's provenance to -o. QUERIES and CORPUS: a BEIR folder, a "
            "gold set (YAML/JSON) or a JSONL file (BEIR's queries.jsonl and corpus.jsonl "
            "lines). RUN: TREC run files.",
            _pool_arguments,
        ),
        _Command(
            "gold",
            "gold-set tools: tempoeval gold merge GOLD PATCH -o OUT",
            "Gold-set tools. merge: add a reviewed gold patch's judgments to a gold set.",
            _gold_arguments,
        ),
        _Command(
            "agree",
            "how the LLM judge's judgments agree with people's (kappa)",
            "How the judgments the LLM made in LLM_GOLD (source: llm:<model>) agree with those "
            "people made in HUMAN_GOLD, on the pairs both judged: quadratic-weighted kappa, the "
            "confusion matrix, the pairs they disagree on most, and the pairs only one side "
            "judged.",
            _agree_arguments,
        ),
    )
}


def _measures_option(parser: argparse.ArgumentParser, default: Sequence[str] | None) -> None:
    """``default`` None: trec_eval's default measures (evaluate prints trec_eval's default
    output)."""
    parser.add_argument(
        "-m",
        "--measures",
        nargs="+",
        metavar="MEASURE",
        default=None if default is None else list(default),
        help=f"{MEASURES_HELP} (default: "
        + (
            "trec_eval's default measures, its 'official' set"
            if default is None
            else " ".join(default)
        )
        + ")",
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
    # trec_eval_cli (the trec_eval command) only for trec_eval's default measures: -m ... prints
    # through trec_eval_output alone (start-up).
    from pytest_tempoeval.data.run import Run
    from pytest_tempoeval.metrics.by_name import evaluate

    trec = args.format == "trec"
    if args.measures is None and trec:  # trec_eval's default output, as trec_eval prints it
        from pytest_tempoeval import trec_eval_cli

        gold = _load_gold_warning(args.gold, args.split)
        run = Run.load(args.run)
        results = trec_eval_cli.default_output(args.run, run, gold, args.q, args.strict, out)
        return _known_ids_verdict(results)
    left_out = ""  # the default measures the package does not support: named after the scores
    if args.measures is None:
        from pytest_tempoeval.trec_eval_cli import default_measures

        measures, left_out = default_measures()
    else:
        measures = _measures(args.measures)  # a typo fails before loading
    gold = _load_gold_warning(args.gold, args.split)
    # trec: trec_eval's rule, a query with nothing relevant scores 0 and counts; text and JSON
    # leave it out of the mean and name it.
    empty = "zero" if trec else "exclude"
    results = evaluate(Run.load(args.run), gold, measures, strict=args.strict, empty=empty)
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
    elif trec:
        from pytest_tempoeval.trec_eval_output import write_results

        write_results(results, gold, args.q, out)
    else:
        _evaluate_text(args, measures, gold, results, out)
    if left_out:  # after the scores: a reader that left (| head) gets no note
        out.flush()
        print(f"tempoeval: note: {left_out}", file=sys.stderr)
    return _known_ids_verdict(results)


def _evaluate_text(
    args: argparse.Namespace, measures: list[str], gold: Any, results: Any, out: TextIO
) -> None:
    from pytest_tempoeval.metrics.explain import score_notes  # the text format's notes only

    # Columns as wide as their widest cell: DCG, NumRet and Utility have means of 10 and more.
    width = max(len("measure"), *(len(measure) for measure in measures))
    means = {measure: _value(result) for measure, result in results.items()}
    mean_width = max(len(mean) for mean in ("  mean", *means.values()))
    out.write(f"run {args.run}, gold {args.gold} ({len(gold.query_ids)} queries)\n")
    out.write(f"{'measure':<{width}}  {'mean':>{mean_width}}  queries  excluded\n")
    for measure, result in results.items():
        counted, mean = len(result.per_query), means[measure]
        out.write(
            f"{measure:<{width}}  {mean:>{mean_width}}  {counted:>7}  {len(result.excluded):>8}\n"
        )
    for measure, result in results.items():
        notes = score_notes(result)
        if notes:
            out.write(f"{measure}: {notes}\n")
    if args.q:
        for query in gold.query_ids:
            for measure, result in results.items():
                if query in result.per_query:
                    out.write(f"{measure:<{width}}  {query}  {result.per_query[query]:.4f}\n")


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


def _value(result: Any) -> str:
    return "     -" if not result.per_query else f"{float(result):.4f}"


# -- compare ---------------------------------------------------------------------------------------


def _compare(args: argparse.Namespace, out: TextIO) -> int:
    """The files loaded and scored here; the tests and the report in ``compare_cli``."""
    from pytest_tempoeval import compare_cli, compare_report
    from pytest_tempoeval.data.run import Run
    from pytest_tempoeval.metrics.by_name import evaluate

    measures = _measures(args.measures)  # once each: a repeated measure would weaken Holm
    paths = [args.base, *args.runs]
    compare_cli.refuse_repeated(paths)  # the same file twice would weaken Holm too
    gold = _load_gold_warning(args.gold, args.split)
    results = [evaluate(Run.load(path), gold, measures, strict=args.strict) for path in paths]
    for path, scored in zip(paths, results, strict=True):
        _refuse_nan(scored, path)
    report = compare_cli.compare_runs(
        paths,
        results,
        measures,
        gold=args.gold,
        max_drop=args.max_drop,
        alpha=args.alpha,
        correction=args.correction,
        gains=compare_report.shows_gains(args.format, len(paths)),
    )
    compare_report.write(report, args.format, out)
    return EXIT_REGRESSED if report.regressed else EXIT_OK


# -- trec_eval -------------------------------------------------------------------------------------


def _trec_eval(args: argparse.Namespace, out: TextIO) -> int:
    from pytest_tempoeval.trec_eval_cli import command  # imported only when it runs

    return command(args, out)


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
        if args.years:
            failed |= _check_years(gold, path, out) > 0 and args.strict
    return EXIT_REGRESSED if failed else EXIT_OK


SHOWN_TEXT = 80  # characters of a query's text in `check --years`


def _check_years(gold: Any, path: str, out: TextIO) -> int:
    """Each query's focus time, where it comes from, and the doubts about a reading of its text
    (``data/year_doubts.py``); the number of queries with a doubt."""
    from pytest_tempoeval.data.focus_time import FocusTime
    from pytest_tempoeval.data.year_doubts import year_doubts
    from pytest_tempoeval.errors import located

    read = given = unknown = doubtful = 0
    for query in gold:
        where = located(path, query.line, f"query {query.id!r}")
        text = query.text
        from_text = None if text is None else FocusTime.from_text(text)
        if query.focus_time is None and text is None:  # a qrels file's: nothing to show
            unknown += 1
            continue
        if text is None or query.focus_time_given or query.focus_time not in (None, from_text):
            given += 1
            differs = (
                ""
                if from_text in (None, query.focus_time)
                else f"; its text reads {from_text or 'no year'}"
            )
            out.write(f"{where}: {query.focus_time or 'no year'} (given{differs})\n")
            continue
        read += 1
        shown = " ".join(text.split())
        if len(shown) > SHOWN_TEXT:
            shown = f"{shown[: SHOWN_TEXT - 3]}..."
        out.write(f'{where}: {from_text or "no year"} (read from "{shown}")\n')
        doubts = year_doubts(text)
        out.writelines(f"doubtful ({d.kind}): {where}: {d.message}\n" for d in doubts)
        doubtful += bool(doubts)
    neither = f", {unknown} with no text and no focus_time (not shown)" if unknown else ""
    out.write(
        f"{path}: years of {read + given + unknown} queries: {read} read from their text, "
        f"{given} given{neither}; {doubtful} doubtful\n"
    )
    return doubtful


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
