"""``tempoeval trec_eval [flags] QRELS RESULTS``: trec_eval 10's command line, so that
``alias trec_eval='tempoeval trec_eval'`` keeps scripts working.

What is trec_eval's here, read from its sources (version 10.0): its flags, parsed as its getopt
parses them (``-l2``, ``-mP.5``, ``-qc``, flags after the files, the long forms); which queries
are scored and in what order (``trec_eval.c``: the qrels queries, sorted by ``strcmp``; with
``-c`` also those the results lack, as an empty ranking); how ``-M`` and ``-J`` cut each ranking
(``form_res_rels.c``); its runid and relstring. Its measure table, groups, ``-m`` syntax and line
layout are in :mod:`.trec_eval_measures`.

What the package supports is never listed here: each printed name goes to ``parse_measure`` (the
measure specs), and a name it cannot read is named on stderr as not supported. Scores come from
``evaluate(..., empty="zero")``, trec_eval's rule for a query with nothing relevant.
``evaluate --format trec`` prints through the same code.

One module on purpose, though longer than most: the flags, the query rules, the scoring and the
notes of one command, each a few lines over the package's loaders and ``evaluate``.
"""

from __future__ import annotations

import argparse
import getopt
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple, TextIO

from pytest_tempoeval.errors import MetricError, RunError, TempoEvalError
from pytest_tempoeval.trec_eval_measures import (
    PER_QUERY,
    Line,
    Printed,
    c_long,
    expand_measures,
    formatted,
    trec_line,
)
from pytest_tempoeval.trec_eval_output import (
    formatted_all,
    query_arrays,
    trec_eval_aggregate,
    write_per_query,
)

if TYPE_CHECKING:
    import numpy as np

    from pytest_tempoeval.data.goldset import GoldSet
    from pytest_tempoeval.data.run import Run
    from pytest_tempoeval.metrics.measures import Measure
    from pytest_tempoeval.metrics.results import MetricResult

EXIT_OK, EXIT_BAD_INPUT = 0, 2  # as the rest of the command line (cli.py)
DOCS = "docs/measures.md lists what is supported and why"


# -- flags -----------------------------------------------------------------------------------------

_SHORT = "hvqm:cl:nD:JN:M:R:T:oZ:"  # trec_eval.c's getopt string
_LONG = {  # trec_eval.c's long options -> their short letter
    "help": "h",
    "version": "v",
    "query_eval_wanted": "q",
    "measure=": "m",
    "complete_rel_info_wanted": "c",
    "level_for_rel=": "l",
    "nosummary": "n",
    "Debug_level=": "D",
    "Judged_docs_only": "J",
    "Number_docs_in_coll=": "N",
    "Max_retrieved_per_topic=": "M",
    "Rel_info_format=": "R",
    "Results_format=": "T",
    "Output_old_results_format=": "o",
    "Zscore=": "Z",
}
USAGE = "usage: tempoeval trec_eval [-hqcnJ] [-l N] [-M N] {-m MEASURE}* QRELS RESULTS"


@dataclass
class Options:
    per_query: bool = False  # -q
    complete: bool = False  # -c
    summary: bool = True  # -n clears it
    judged_only: bool = False  # -J
    level: int = 1  # -l
    max_docs: int | None = None  # -M
    collection_size: int = 0  # -N
    measures: list[str] = field(default_factory=list)  # each -m, as given
    qrels: str = ""
    results: str = ""


def parse_flags(argv: Sequence[str]) -> Options | str:
    """trec_eval's flags as its getopt_long reads them (GNU rules: flags may follow the files,
    ``-l2`` and ``-mP.5`` glued, ``-qc`` grouped, long forms abbreviated). Returns the options, or
    ``"help"``/``"version"``; a flag or argument trec_eval does not take is a ValueError (usage,
    exit 2)."""
    try:
        flags, files = getopt.gnu_getopt(list(argv), _SHORT, list(_LONG))
    except getopt.GetoptError as error:
        flag = f"-{error.opt}" if len(error.opt) == 1 else f"--{error.opt}"
        raise ValueError(f"trec_eval has no flag {flag}, or it lacks its value") from None
    options = Options()
    letters = [
        (flag[1] if len(flag) == 2 else _LONG_LETTER[flag[2:]], value) for flag, value in flags
    ]
    if ("v", "") in letters:
        return "version"  # trec_eval prints its version and exits as it meets -v
    for letter, value in letters:
        if letter == "m":
            options.measures.append(value)
        elif letter in "qcnJ":
            setattr(options, _SWITCHES[letter][0], _SWITCHES[letter][1])
        elif letter == "l":
            options.level = c_long(value)
            if options.level < 1:
                raise ValueError(
                    f"-l {value}: the level must be 1 or more (trec_eval takes {options.level}, "
                    "counting judged non-relevant documents as relevant; tempoeval refuses it)"
                )
        elif letter == "M":
            options.max_docs = c_long(value)
            if options.max_docs < 0:
                raise ValueError(f"-M {value}: the number of documents kept must be 0 or more")
        elif letter == "N":
            options.collection_size = c_long(value)
        elif letter in "RT":
            wanted = "qrels" if letter == "R" else "trec_results"
            if value != wanted:
                raise ValueError(
                    f"-{letter} {value}: tempoeval trec_eval reads the {wanted} format only "
                    "(trec_eval's preference and judgment-group formats are not supported)"
                )
        elif letter in "DZ":
            what = "debug output" if letter == "D" else "Z scores"
            raise ValueError(f"-{letter} ({what}) is not supported by tempoeval trec_eval")
        # -o: obsolete, and ignored by trec_eval too
    if ("h", "") in letters:
        return "help"
    if len(files) != 2:
        raise ValueError(f"expected QRELS and RESULTS, got {len(files)} file arguments")
    options.qrels, options.results = files
    return options


_LONG_LETTER = {name.rstrip("="): letter for name, letter in _LONG.items()}
_SWITCHES = {  # flag -> the option it sets, and to what
    "q": ("per_query", True),
    "c": ("complete", True),
    "n": ("summary", False),
    "J": ("judged_only", True),
}


# -- scoring ---------------------------------------------------------------------------------------


class Scored(NamedTuple):
    """What is printed: per line, each query's value (aligned with ``queries``) and the summary;
    and what is not."""

    lines: list[Line]
    queries: list[str]  # in trec_eval's order
    per_query: dict[str, np.ndarray | list[str]]  # line name -> a value per query
    summary: dict[str, float | str]  # line name -> the "all" value
    unsupported: list[Line]
    results: dict[str, MetricResult]  # by measure: what evaluate returned


def supported_measure(line: Line, options: Options) -> Measure | None:
    """The package's measure for a printed name, or None when the package cannot compute it
    (parse_measure refuses the name, or reads it as a measure trec_eval names otherwise)."""
    from pytest_tempoeval.metrics.measures import measure_of, parse_measure, trec_eval_name

    try:
        measure = parse_measure(line.name)
    except MetricError:
        return None
    if trec_eval_name(measure) != line.name:
        return None  # read as another measure: printing it under this name would be wrong
    if options.level != 1 and measure.family.params.get("rel") is not None:
        # -l is the measures' rel; one without it (nDCG) or whose rel is unset by default (RBP:
        # graded) ignores -l, as trec_eval's ndcg and rbp do
        measure = measure_of(
            measure.name, measure.cutoff, **dict(measure.params), rel=options.level
        )
    if options.collection_size and "collection_size" in measure.family.params:
        # -N is the collection size of the measures that read one (utility's 4th coefficient)
        given = {**dict(measure.params), "collection_size": options.collection_size}
        measure = measure_of(measure.name, measure.cutoff, **given)
    return measure


def score(
    lines: list[Line],
    options: Options,
    run: Run,
    gold: GoldSet,
    *,
    bogus: Run | None = None,
    tag: str = "",
    strict: bool = False,
) -> Scored:
    """Every supported line's values on trec_eval's queries (``-c``: every qrels query). A qrels
    query the run lacks is scored on ``bogus`` (:func:`bogus_run`) when given, else as an empty
    ranking. ``tag``: the runid. ``strict``: results queries the qrels lack are an error
    (``evaluate --strict``)."""
    import numpy as np

    from pytest_tempoeval.metrics.by_name import evaluate

    in_run = set(run.query_ids)
    queries = sorted(q for q in gold.query_ids if options.complete or q in in_run)  # as strcmp
    if not queries:
        raise MetricError(
            f"no query is in both {options.qrels} and {options.results} (their query ids look "
            f"like {_examples(gold.query_ids)} and {_examples(run.query_ids)})"
        )
    positions = np.array([gold.query_position[q] for q in queries], dtype=np.int64)
    missing = np.array([q not in in_run for q in queries]) & (bogus is not None)
    measures = {line.name: supported_measure(line, options) for line in lines}
    unique = list({str(m): m for m in measures.values() if m is not None}.values())
    results, on_bogus = {}, {}
    if unique:
        results = evaluate(run, gold, unique, strict=strict, empty="zero")
        if bogus is not None and missing.any():
            on_bogus = evaluate(bogus, gold, unique, empty="zero")
    scored = Scored(lines, queries, {}, {}, [], results)
    for line in lines:
        measure = measures[line.name]
        if line.root.printed == Printed.RUNID:
            scored.summary[line.name] = tag
        elif line.root.printed == Printed.RELSTRING:
            length = int(line.values[0])
            strings = relstrings(run, gold, positions, length)
            if missing.any():
                assert bogus is not None
                on_bogus_strings = relstrings(bogus, gold, positions, length)
                strings = [
                    b if gone else s for s, b, gone in zip(strings, on_bogus_strings, missing)
                ]
            if missing.any() and _bogus_reset(line.name):
                strings = ["" if gone else s for s, gone in zip(strings, missing)]
            scored.per_query[line.name] = strings
        elif measure is None:
            scored.unsupported.append(line)
        else:
            values = _gathered(line.name, results[str(measure)], gold, positions)
            if missing.any():
                on_bogus_values = _gathered(line.name, on_bogus[str(measure)], gold, positions)
                reset = 0.0 if _bogus_reset(line.name) else on_bogus_values
                values = np.where(missing, reset, values)
            scored.per_query[line.name] = values
            aggregate = str(measure.family.aggregate)
            scored.summary[line.name] = _summary(line, aggregate, values, options, gold)
    return scored


BOGUS_DOC = "ceci_nest_pas_un_docno"  # trec_eval.c's document of a query the results lack


def bogus_run(queries: Sequence[str]) -> Run:
    """trec_eval -c's ranking of a qrels query the results lack: one document it has not judged,
    scored like any ranking (-M and -J cut it too); :func:`_bogus_fixed` then resets what
    trec_eval resets. An empty ranking would differ on the measures that count a retrieved
    non-relevant document (utility with parameters, relstring.N shows ``-``)."""
    from pytest_tempoeval.data.run import Run

    return Run({query: [(BOGUS_DOC, 1.0)] for query in queries})


def _bogus_reset(name: str) -> bool:
    """trec_eval.c's clean-up after the bogus ranking: these names (exactly, or unj*) go back to 0
    or the empty string; relstring.N, utility.P... keep the bogus document's values, as there."""
    return name in ("num_ret", "utility", "relstring", "rbp_resid") or name.startswith("unj")


def _examples(ids: Sequence[str]) -> str:
    return ", ".join(repr(i) for i in ids[:3])


def _gathered(name: str, result: MetricResult, gold: GoldSet, positions: np.ndarray) -> np.ndarray:
    """The values of the gold queries at ``positions``; a query left out (only a non-gold reason
    can leave one out with empty="zero") or scored NaN is an error, never a silent 0."""
    import numpy as np

    every, counted = query_arrays(result, gold)
    values: np.ndarray = every[positions]
    counted = counted[positions]
    bad = np.flatnonzero(~counted | np.isnan(values))
    if bad.size:
        query = gold.query_ids[int(positions[bad[0]])]
        why = result.excluded.get(query, "scores NaN")
        raise MetricError(f"{name}: query {query!r} cannot be scored as trec_eval does: {why}")
    return values


def _summary(
    line: Line, aggregate: str, values: np.ndarray, options: Options, gold: GoldSet
) -> float:
    """The "all" value: the spec's aggregate of the printed queries, in trec_eval's arithmetic."""
    import numpy as np

    if line.name == "num_rel" and options.complete:
        # trec_eval -c sums num_rel from the qrels, counting grades above 0 whatever -l says
        return float((np.asarray(gold.judgments.values) > 0).sum())
    return trec_eval_aggregate(values, aggregate)


def relstrings(run: Run, gold: GoldSet, positions: np.ndarray, length: int) -> list[str]:
    """trec_eval's relstring of the gold queries at ``positions``: each rank's grade of the top
    ``length`` (0-9; > for more, - not judged, . a negative grade: in the pool, unjudged)."""
    from pytest_tempoeval.metrics.relevance import gold_relevance
    from pytest_tempoeval.metrics.scoring import NOT_JUDGED, POOLED_UNJUDGED, trec_grades

    relevance = gold_relevance(run, gold, max(length, 1), need_ideal=False)
    grades = trec_grades(relevance)[positions, :length]
    shown = (relevance.rows[positions, :length] >= 0).sum(axis=1)
    signs = {NOT_JUDGED: "-", POOLED_UNJUDGED: "."}
    return [
        "".join(str(g) if 0 <= g <= 9 else ">" if g > 9 else signs.get(g, "<") for g in row[:n])
        for row, n in zip(grades.tolist(), shown.tolist())
    ]


def run_tag(path: str) -> str:
    """The tag of the results file's last line: trec_eval's runid (it keeps the last line's)."""
    with open(path, "rb") as file:
        end = file.seek(0, 2)
        tail, start = b"", end
        while start > 0:
            start = max(0, start - 65536)
            file.seek(start)
            tail = file.read(end - start)
            lines = [line.split() for line in tail.splitlines()[1 if start else 0 :]]
            data = [fields for fields in lines if fields and not fields[0].startswith(b"#")]
            if data:
                return data[-1][5].decode("utf-8", "replace") if len(data[-1]) > 5 else ""
        return ""


# -- printing --------------------------------------------------------------------------------------


def write(scored: Scored, options: Options, out: TextIO) -> None:
    """trec_eval's output: with -q each query's lines (queries in trec_eval's order, measures in
    its table's), then unless -n the summary ("all")."""
    shown = [line for line in scored.lines if line not in scored.unsupported]
    if options.per_query:
        columns = [
            (line.name, formatted_all(line.root.printed, scored.per_query[line.name]))
            for line in shown
            if line.root.printed in PER_QUERY
        ]
        write_per_query(scored.queries, columns, out)
    if options.summary:
        out.writelines(
            trec_line(line.name, "all", formatted(line.root.printed, scored.summary[line.name]))
            for line in shown
            if line.root.printed != Printed.RELSTRING
        )


# -- the command -----------------------------------------------------------------------------------

HELP = f"""{USAGE}

trec_eval 10's command line: the same flags, measure names, output and query rules, so that
alias trec_eval='tempoeval trec_eval' keeps scripts working. RESULTS '-' is read from stdin.

  -q                 also print every query's values (queries in trec_eval's order)
  -m MEASURE[.PARAMS]  a measure (P, map, ndcg_cut.10, iprec_at_recall..10,.20, relstring.20) or a
                     group (official, all_trec, set); repeatable; default: official
  -c                 also score the qrels queries the results lack, as empty rankings
  -n                 no summary ("all") lines
  -l N               the lowest grade that counts as relevant (default 1)
  -M N               keep each query's first N documents (after trec_eval's ordering)
  -J                 remove the documents without a judgment (and negative grades) first
  -N N               the collection size (read by utility's 4th coefficient only)
  -v, -h             version, this help

A trec_eval measure the package does not support is named on stderr and left out: exit 0 when it
came with a group (official, all_trec, ...), 2 when it was asked for by its own -m. An unknown
name is an error. Not supported: -R other than qrels, -T other than trec_results, -D, -Z.
Differences from trec_eval and the supported measures: docs/cli.md#trec_eval-drop-in.
"""


def command(args: argparse.Namespace, out: TextIO) -> int:
    try:
        parsed = parse_flags(args.argv)
    except ValueError as error:
        print(f"{USAGE}\ntempoeval trec_eval: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if parsed == "help":
        out.write(HELP)
        return EXIT_OK
    if parsed == "version":
        from pytest_tempoeval import __version__

        print(f"tempoeval trec_eval {__version__} (trec_eval 10.0's command line)", file=sys.stderr)
        return EXIT_OK
    assert isinstance(parsed, Options)
    options = parsed
    lines = expand_measures(options.measures)  # a typo fails before the files are read
    gold, run, bogus, tag = load(options)
    scored = score(lines, options, run, gold, bogus=bogus, tag=tag)
    write(scored, options, out)
    out.flush()  # stdout before the notes: a terminal shows them after the scores
    for note in query_notes(options, run, gold):
        print(f"tempoeval: note: {note}", file=sys.stderr)
    return unsupported_verdict(scored)


def unsupported_verdict(scored: Scored) -> int:
    """Name the lines not printed on one stderr line. A trec_eval user who asks for a measure by
    its own -m gets it or a failure from trec_eval (which exits 1 on a name it lacks), so one this
    package cannot compute exits 2, after the lines it could print: a script must not read exit 0
    with its line missing. A group (official, all_trec) is "every measure of the set": its
    unsupported members are named and the exit stays 0, so the default output and -m all_trec
    stay usable while measures are being added. Nothing but runid printable: exit 2."""
    if not scored.unsupported:
        return EXIT_OK
    names = ", ".join(line.name for line in scored.unsupported)
    printed = [line for line in scored.lines if line not in scored.unsupported]
    explicit = [line.name for line in scored.unsupported if line.explicit]
    if explicit or all(line.root.printed == Printed.RUNID for line in printed):
        print(f"tempoeval: error: not supported, not printed: {names} ({DOCS})", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(f"tempoeval: note: not supported, left out: {names} ({DOCS})", file=sys.stderr)
    return EXIT_OK


def query_notes(options: Options, run: Run, gold: GoldSet) -> list[str]:
    """What trec_eval leaves out without a word, named: qrels queries the results lack (trec_eval
    10.0 stops there with exit 4 unless -c; its help and 9.x leave them out, as here), and results
    queries the qrels lack (trec_eval ignores them)."""
    notes = []
    in_run, in_gold = set(run.query_ids), set(gold.query_ids)
    lacking = [q for q in gold.query_ids if q not in in_run]
    if lacking and not options.complete:
        notes.append(
            f"{_count(lacking, 'query')} of {options.qrels} with no results not scored "
            f"({_examples(lacking)}); -c scores them as empty rankings"
        )
    ignored = [q for q in run.query_ids if q not in in_gold]
    if ignored:
        notes.append(
            f"{_count(ignored, 'query')} of {options.results} not in {options.qrels} ignored "
            f"({_examples(ignored)})"
        )
    return notes


def _count(ids: Sequence[str], what: str) -> str:
    return f"1 {what}" if len(ids) == 1 else f"{len(ids)} {what.replace('y', 'ie')}s"


def load(options: Options) -> tuple[GoldSet, Run, Run | None, str]:
    """The qrels and the results as trec_eval reads them (qrels and TREC run formats only), with
    -c the bogus ranking of the qrels queries the results lack, and the runid; each ranking cut as
    -M and -J cut it: its first N documents in trec_eval's order, then without the unjudged
    ones."""
    import warnings

    from pytest_tempoeval.data.goldset import GoldSet
    from pytest_tempoeval.data.run import Run
    from pytest_tempoeval.errors import GoldSetWarning

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", GoldSetWarning)
            gold = GoldSet.from_trec_qrels(options.qrels)
        for warning in caught:
            print(f"tempoeval: warning: {' '.join(str(warning.message).split())}", file=sys.stderr)
        if options.results == "-":
            run, tag = _stdin_run()
        else:
            run, tag = Run.from_trec(options.results), run_tag(options.results)
    except TempoEvalError as error:
        raise type(error)(f"{error}{_swap_hint(options)}") from None
    in_run = set(run.query_ids)
    lacking = [q for q in gold.query_ids if q not in in_run]
    bogus = bogus_run(lacking) if options.complete and lacking else None
    return gold, _cut(run, options, gold), bogus and _cut(bogus, options, gold), tag


def _cut(run: Run, options: Options, gold: GoldSet) -> Run:
    if options.max_docs is not None:
        run = _first_documents(run, options.max_docs)
    if options.judged_only:
        run = _judged_documents(run, gold)
    return run


def _swap_hint(options: Options) -> str:
    from pytest_tempoeval.data.readers.lines import sniffed_kind

    if sniffed_kind(options.qrels) == "a TREC run" or sniffed_kind(options.results) == "TREC qrels":
        return " (QRELS and RESULTS swapped? trec_eval takes the qrels first)"
    return ""


def _stdin_run() -> tuple[Run, str]:
    """RESULTS ``-``: the run read from stdin (trec_eval 10 reads it so), through a temporary file
    the TREC reader can map, and its runid; its errors name <stdin>."""
    import shutil
    import tempfile

    from pytest_tempoeval.data.run import Run

    with tempfile.TemporaryDirectory() as folder:
        path = f"{folder}/stdin.run"
        with open(path, "wb") as file:
            shutil.copyfileobj(sys.stdin.buffer, file)
        try:
            return Run.from_trec(path), run_tag(path)
        except RunError as error:
            raise RunError(str(error).replace(path, "<stdin>")) from None


def _first_documents(run: Run, kept: int) -> Run:
    import numpy as np

    table = run.table
    rank = np.arange(table.n_rows) - np.repeat(table.offsets[:-1], table.lengths)
    return run.without_rows(rank >= kept)


def _judged_documents(run: Run, gold: GoldSet) -> Run:
    """The run without the documents trec_eval -J removes: not in the qrels, or with a negative
    grade (trec_eval's "in the pool, unjudged"). Cutting the run, not a measure parameter, applies
    it to every measure, as trec_eval does before any is computed."""
    import numpy as np

    from pytest_tempoeval.metrics.relevance import gold_relevance

    depth = max(1, int(run.table.lengths.max(initial=0)))
    relevance = gold_relevance(run, gold, depth, need_ideal=False)
    assert relevance.negative is not None  # gold mode has it
    drop = np.ones(run.table.n_rows, dtype=bool)
    drop[relevance.rows[relevance.known & ~relevance.negative]] = False
    return run.without_rows(drop)


# -- evaluate --format trec ------------------------------------------------------------------------


def default_measures() -> tuple[list[str], str]:
    """The package's names of trec_eval's default measures it supports (``evaluate`` with no -m,
    text and JSON), and the note naming the others ("" when there is none)."""
    options, unsupported = Options(), []
    seen: dict[str, None] = {}  # canonical names, once each, in trec_eval's order
    for line in expand_measures([]):
        if line.root.printed == Printed.RUNID:
            continue
        measure = supported_measure(line, options)
        if measure is None:
            unsupported.append(line.name)
        else:
            seen.setdefault(str(measure), None)
    note = ""
    if unsupported:
        note = f"trec_eval's default measures not supported, left out: {', '.join(unsupported)}"
    return list(seen), f"{note} ({DOCS})" if note else ""


def default_output(
    run_path: str, run: Run, gold: GoldSet, per_query: bool, strict: bool, out: TextIO
) -> dict[str, MetricResult]:
    """``evaluate RUN GOLD --format trec`` with no -m: trec_eval's default output, every gold query
    scored (one the run lacks as an empty ranking, as trec_eval -c); runid only for a TREC run."""
    from pytest_tempoeval.data.readers.lines import sniffed_kind

    options = Options(per_query=per_query, complete=True, qrels=gold.path, results=run_path)
    lines = expand_measures([])
    trec_run = sniffed_kind(run_path) == "a TREC run"
    if not trec_run:
        lines = [line for line in lines if line.root.printed != Printed.RUNID]
    tag = run_tag(run_path) if trec_run else ""
    scored = score(lines, options, run, gold, tag=tag, strict=strict)
    write(scored, options, out)
    out.flush()  # the scores first: a reader that left (| head) gets no note
    if scored.unsupported:
        names = ", ".join(line.name for line in scored.unsupported)
        print(f"tempoeval: note: not supported, left out: {names} ({DOCS})", file=sys.stderr)
    return scored.results
