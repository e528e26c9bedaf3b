"""``tempoeval pool QUERIES CORPUS RUN [RUN ...] --depth 10 -o gold.yaml --cassette pool.yaml``.

A gold set from nothing but queries, a corpus and runs: the union of each run's top ``--depth`` per
query (TREC pooling, :mod:`~pytest_tempoeval.data.pooling`) is judged once per pair by the
recorded Anthropic judge (the ``tempoeval_judge`` fixture's:
:func:`~pytest_tempoeval.judge.recorded.recorded_judge`),
each grade mapped from the judge's 0-4 onto ``--grade-scale``, and written with every judgment's
provenance by the deterministic writer. The cassette makes it repeatable: a second run with the
same inputs replays offline and writes the same bytes.

- ``--record-mode`` is the plugin's: ``none`` (default) replays only; ``once``, ``new_episodes``,
  ``all`` record (``ANTHROPIC_API_KEY``). ``--dry-run`` asks nothing and prints the judgments to
  ask, those held, and the estimated cost live and through ``--batch``.
- ``--human GOLD`` keeps GOLD's judgments (and their provenance) and judges only the other pooled
  pairs; the grade scale is then GOLD's.
- A pooled pair whose document the corpus lacks or that has no text (or whose query has no text)
  is not judged: it is left out of the gold set, counted and named in the summary, never given a
  grade.

Loaded only when it runs (``cli.py`` declares it).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from pytest_tempoeval.errors import GoldSetError, JudgeBudgetSpent, JudgeDryRun

if TYPE_CHECKING:
    from pytest_tempoeval.data.goldset import GoldSet
    from pytest_tempoeval.data.pooling import Pool, Unjudgeable

DEFAULT_DEPTH = 10
DEFAULT_SCALE = (0, 4)  # the judge's own: its grades are written as they are
SHOWN = 10  # pairs named per line of the summary


def pool_arguments(pool: argparse.ArgumentParser) -> None:
    pool.add_argument("queries", metavar="QUERIES", help="BEIR folder, gold set, or queries.jsonl")
    pool.add_argument("corpus", metavar="CORPUS", help="BEIR folder, gold set, or corpus.jsonl")
    pool.add_argument("runs", metavar="RUN", nargs="+", help="TREC run files")
    pool.add_argument(
        "--depth",
        type=_positive,
        default=DEFAULT_DEPTH,
        help=f"each run's top documents pooled per query (default {DEFAULT_DEPTH})",
    )
    pool.add_argument("-o", "--output", required=True, metavar="GOLD", help="the gold set to write")
    pool.add_argument(
        "--cassette",
        required=True,
        metavar="PATH",
        help="the judge's cassette (.yaml, or .json for vcrpy's JSON serializer)",
    )
    pool.add_argument(
        "--record-mode",
        choices=("none", "once", "new_episodes", "all"),
        default="none",
        help="none (default): replay only; once, new_episodes, all: record what the cassette "
        "lacks, as in the plugin (needs ANTHROPIC_API_KEY)",
    )
    pool.add_argument(
        "--dry-run",
        action="store_true",
        help="ask nothing: print the judgments to ask, those held, and their estimated cost",
    )
    pool.add_argument(
        "--batch", action="store_true", help="record through the Message Batches API (half price)"
    )
    pool.add_argument(
        "--batch-poll",
        type=float,
        default=None,
        metavar="SECONDS",
        help="seconds between polls of a batch (default 30)",
    )
    pool.add_argument(
        "--max-requests",
        type=_non_negative,
        default=None,
        metavar="N",
        help="at most N new requests to the judge",
    )
    pool.add_argument(
        "--human",
        metavar="GOLD",
        help="a gold set whose judgments are kept (with their provenance); only the other "
        "pooled pairs are judged",
    )
    pool.add_argument(
        "--grade-scale",
        type=int,
        nargs=2,
        metavar=("LOW", "HIGH"),
        default=None,
        help="the scale the judge's 0-4 grades are mapped onto, low + round((high-low)*g/4), "
        "halves up (default: --human's scale, else 0 4)",
    )
    pool.add_argument("--model", default=None, help="the judge's model (default claude-haiku-5-5)")
    pool.add_argument("--prompt-style", choices=("seed", "delimited"), default="seed")
    pool.add_argument("--max-concurrency", type=_positive, default=8)
    pool.add_argument("--force", action="store_true", help="replace the output if it exists")
    pool.set_defaults(command=pool_command)


def _positive(text: str) -> int:
    value = _non_negative(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be a positive integer")
    return value


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must not be negative")
    return value


def pool_command(args: argparse.Namespace, out: TextIO) -> int:
    from pytest_tempoeval.data.pooling import (
        judgeable,
        pool_runs,
        read_pool_corpus,
        read_pool_queries,
    )
    from pytest_tempoeval.data.run import Run

    output = Path(args.output)
    if not args.dry_run:
        _check_output(output, args.force)
    pooled_queries, dropped = read_pool_queries(args.queries)
    queries = {query.id: query for query in pooled_queries}
    if dropped and not args.human:
        _note(
            f"{_count(dropped, 'judgment')} of {args.queries} not kept (QUERIES gives the "
            "queries); give it as --human too to keep them and judge only the rest"
        )
    corpus = read_pool_corpus(args.corpus)
    runs = [Run.load(path) for path in args.runs]
    human = _load_human(args.human) if args.human else None
    scale = _grade_scale(args.grade_scale, human)
    if human is not None:
        _check_human(human, queries, args.human, args.queries)
    pool = pool_runs(runs, list(queries), args.depth)
    for index, ignored in pool.ignored_queries.items():
        _note(
            f"{args.runs[index]}: {_count(len(ignored), 'query', 'queries')} not in "
            f"{args.queries}, not pooled: {_ids(ignored)}"
        )
    held = {query.id: query.relevant for query in human} if human is not None else {}
    items, unjudgeable = judgeable(pool, queries, corpus, held)
    if not items and not held and not args.dry_run:
        raise GoldSetError(
            f"no pooled pair can be judged ({len(pool)} pooled, {len(unjudgeable)} without a "
            f"text): is {args.corpus} the corpus the runs retrieved from?"
        )
    judge = _judge(args)
    finished = False
    try:
        judgments = judge.grade_all(items) if items else []
        finished = True
    except JudgeDryRun:
        _dry_run_summary(args, judge, len(items), pool, unjudgeable, out)
        return 0
    except JudgeBudgetSpent:
        missing = len(items) - judge.stats.judgments
        raise JudgeBudgetSpent(
            f"the judge's request budget (--max-requests {args.max_requests}) is spent, and "
            f"{missing} of the {len(items)} pooled judgments are still missing; what was "
            f"recorded is saved in {args.cassette}: run again with a larger --max-requests and "
            "--record-mode new_episodes to ask only the rest"
        ) from None
    finally:
        assert judge.cassette is not None
        judge.cassette.save(complete=finished)  # what was paid for is kept, whatever happened
    if args.dry_run:  # everything held: nothing to ask
        _dry_run_summary(args, judge, len(items), pool, unjudgeable, out)
        return 0
    gold = _pooled_gold(args, queries, corpus, judgments, human, scale, judge.model)
    from pytest_tempoeval.data.gold_writer import write_gold_yaml

    write_gold_yaml(gold, output, overwrite=args.force, header=_header(args, judge.model))
    _summary(args, pool, judge, unjudgeable, gold, human, scale, out)
    return 0


def _check_output(output: Path, force: bool) -> None:
    import os

    if output.suffix.lower() not in (".yaml", ".yml"):
        raise GoldSetError(f"{output}: the gold set is written as YAML: give a .yaml or .yml name")
    if os.path.lexists(output) and not force:
        raise GoldSetError(f"{output} exists: give --force to replace it, or another -o")


def _load_human(path: str) -> GoldSet:
    from pytest_tempoeval.data.goldset import GoldSet

    return GoldSet.from_beir(path) if Path(path).is_dir() else GoldSet.load(path)


def _grade_scale(given: list[int] | None, human: GoldSet | None) -> tuple[int, int]:
    from pytest_tempoeval.data.provenance import grade_scale_problem

    if given is not None:
        problem = grade_scale_problem(given)
        if problem is not None:
            raise GoldSetError(f"--grade-scale: {problem}")
        scale = (given[0], given[1])
        if human is not None and human.grade_scale != scale:
            low, high = human.grade_scale
            raise GoldSetError(
                f"--grade-scale {scale[0]} {scale[1]} is not the scale of {human.path}, "
                f"[{low}, {high}]: the judge's grades must be on the scale of the judgments "
                "kept; declare grade_scale in that gold set, or leave --grade-scale out"
            )
        return scale
    if human is None:
        return DEFAULT_SCALE
    if human.declared_grade_scale is None:
        low, high = human.grade_scale
        _note(
            f"grade scale [{low}, {high}]: {human.path} declares no grade_scale, so its largest "
            "grade is the top; give --grade-scale (and declare it there) if its scale is wider"
        )
    return human.grade_scale


def _check_human(human: GoldSet, queries: dict[str, Any], human_path: str, source: str) -> None:
    """Every judgment kept must have its query in QUERIES: the gold set written is QUERIES'."""
    for query in human:
        if query.relevant and query.id not in queries:
            raise GoldSetError(
                f"{human_path}: query {query.id!r} has judgments but is not in {source}; add it "
                "to QUERIES, or remove it from the --human gold set (its judgments would be lost)"
            )


def _judge(args: argparse.Namespace) -> Any:
    from pytest_tempoeval.judge.budget import RequestBudget
    from pytest_tempoeval.judge.cassettes import JudgeCassette
    from pytest_tempoeval.judge.modes import BATCH_POLL_SECONDS
    from pytest_tempoeval.judge.recorded import recorded_judge
    from pytest_tempoeval.reports.progress import stream_progress

    command = "the same tempoeval pool command with --record-mode new_episodes"
    cassette = JudgeCassette(Path(args.cassette), args.record_mode, command)
    return recorded_judge(
        cassette,
        model=args.model,
        prompt_style=args.prompt_style,
        dry_run=args.dry_run,
        budget=None if args.max_requests is None else RequestBudget(args.max_requests),
        batch=args.batch,
        batch_poll=BATCH_POLL_SECONDS if args.batch_poll is None else args.batch_poll,
        progress=stream_progress(sys.stderr),
        batch_status=lambda text: print(text, file=sys.stderr, flush=True),
        max_concurrency=args.max_concurrency,
    )


def _pooled_gold(
    args: argparse.Namespace,
    queries: dict[str, Any],
    corpus: Any,
    judgments: list[Any],
    human: GoldSet | None,
    scale: tuple[int, int],
    model: str,
) -> GoldSet:
    from pytest_tempoeval.data.pooling import pooled_gold
    from pytest_tempoeval.data.provenance import Provenance, judge_grade_on_scale, llm_source

    source = llm_source(model)
    judged = {
        (j.query_id, j.doc_id): (
            judge_grade_on_scale(j.value, scale),
            Provenance(source, j.reasoning, j.prompt_hash),
        )
        for j in judgments
    }
    return pooled_gold(list(queries.values()), corpus, judged, human, scale)


def _header(args: argparse.Namespace, model: str) -> str:
    """Where the judgments came from: names only (no paths, no date), so the same inputs give the
    same bytes wherever they are."""
    runs = ", ".join(Path(path).name for path in args.runs)
    human = f"; judgments kept from {Path(args.human).name}" if args.human else ""
    return (
        f"Written by tempoeval pool: the top {args.depth} of {runs} per query, judged by "
        f"{model}{human}.\n"
        f"Replay (offline): tempoeval pool ... --cassette {Path(args.cassette).name}; "
        "review the llm: judgments before you trust them (tempoeval agree)."
    )


def _summary(
    args: argparse.Namespace,
    pool: Pool,
    judge: Any,
    unjudgeable: list[Unjudgeable],
    gold: GoldSet,
    human: GoldSet | None,
    scale: tuple[int, int],
    out: TextIO,
) -> None:
    from pytest_tempoeval.reports.text import judge_line

    out.write(
        f"pool: {_count(len(pool), 'pair')} from {_count(len(args.runs), 'run')} at depth "
        f"{args.depth}, over {_count(len(pool.pairs), 'query', 'queries')}\n"
    )
    out.writelines(
        f"  {Path(path).name}: {_count(pool.only_by(index), 'pair')} only this run pooled\n"
        for index, path in enumerate(args.runs)
    )
    llm = human_kept = 0
    grades: Counter[int] = Counter()
    for query in gold:
        for doc_id, grade in query.relevant.items():
            grades[grade] += 1
            judged_by = query.provenance.get(doc_id)
            llm += judged_by is not None and not judged_by.is_human
    if human is not None:
        human_kept = sum(len(query.relevant) for query in gold) - llm
        out.write(f"  kept from {args.human}: {human_kept} judgments\n")
    distribution = ", ".join(f"{grade}: {grades[grade]}" for grade in sorted(grades))
    out.write(
        f"  judged by {judge.model}: {_count(llm, 'pair')}; grades on [{scale[0]}, {scale[1]}]: "
        f"{distribution}\n"
    )
    _unjudgeable_lines(unjudgeable, out)
    left = len(pool.pairs) - sum(1 for query in gold if query.id in pool.pairs)
    if left:
        out.write(f"  {left} pooled queries have no judgment and are not in {args.output}\n")
    line = judge_line({judge.model: _counters(judge.stats)}, {})
    if line:
        out.write(f"  {line}\n")
    out.write(f"wrote {args.output} ({len(gold)} queries, {len(gold.documents)} documents)\n")


def _unjudgeable_lines(unjudgeable: list[Unjudgeable], out: TextIO) -> None:
    if not unjudgeable:
        return
    by_reason: dict[str, list[str]] = {}
    for pair in unjudgeable:
        by_reason.setdefault(pair.reason, []).append(f"{pair.query_id}/{pair.doc_id}")
    out.write(f"  not judged, left out: {_count(len(unjudgeable), 'pair')}\n")
    out.writelines(
        f"    {reason}: {len(pairs)} ({_ids(pairs)})\n" for reason, pairs in by_reason.items()
    )


def _dry_run_summary(
    args: argparse.Namespace,
    judge: Any,
    asked: int,
    pool: Pool,
    unjudgeable: list[Unjudgeable],
    out: TextIO,
) -> None:
    from pytest_tempoeval.judge.prices import dollars, price_of

    stats = judge.stats
    # Counted per prompt, as a recording asks: a stopped dry run counted what it would ask and
    # what is held; one that asked nothing replayed everything.
    to_ask, held = stats.to_ask, stats.held if stats.to_ask else stats.replayed
    out.write(
        f"pool: {_count(len(pool), 'pair')} from {_count(len(args.runs), 'run')} at depth "
        f"{args.depth}, over {_count(len(pool.pairs), 'query', 'queries')}; {asked} to judge\n"
    )
    price = price_of(judge.model)
    tokens = (stats.estimated_input_tokens, stats.estimated_output_tokens)
    if price is None:
        cost = f"; cost unknown: no price for {judge.model}"
    else:
        assumed = " (assumed)" if price.assumed else ""
        cost = (
            f", about {dollars(price.cost(*tokens))} live or "
            f"{dollars(price.cost(*tokens, batch=True))} through --batch at {judge.model} "
            f"prices{assumed}"
        )
    out.write(
        f"dry run (nothing asked): {to_ask} judgments to ask, {held} held in {args.cassette}; "
        f"estimated {tokens[0]} input / {tokens[1]} output tokens{cost}\n"
    )
    _unjudgeable_lines(unjudgeable, out)


def _counters(stats: Any) -> dict[str, int]:
    import dataclasses

    return {
        key: value for key, value in dataclasses.asdict(stats).items() if isinstance(value, int)
    }


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def _ids(ids: list[str]) -> str:
    more = f", ... ({len(ids)} in all)" if len(ids) > SHOWN else ""
    return ", ".join(ids[:SHOWN]) + more


def _note(message: str) -> None:
    print(f"tempoeval: note: {message}", file=sys.stderr)
