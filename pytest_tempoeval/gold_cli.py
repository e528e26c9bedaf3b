"""``tempoeval gold merge GOLD PATCH -o OUT`` and ``tempoeval agree HUMAN_GOLD LLM_GOLD``.

- ``gold merge`` adds the judgments left in a reviewed patch (``--tempoeval-propose-gold``) to a
  gold set, each with its provenance, and writes the result with the deterministic writer. The
  rules (a judgment the gold set has is kept, unknown ids are errors) are
  :mod:`~pytest_tempoeval.data.gold_merge`'s.
- ``agree`` prints how the LLM's judgments of one gold set agree with a person's in another:
  quadratic-weighted kappa, the confusion matrix, the pairs the two disagree on most, and the pairs
  only one side judged (:func:`~pytest_tempoeval.metrics.agreement.gold_agreement`).

Loaded only when one of them runs (``cli.py`` declares them): ``tempoeval --help`` imports neither
YAML nor numpy.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from pytest_tempoeval.errors import GoldSetError, MetricError

YAML_SUFFIXES = (".yaml", ".yml")
SHOWN_PAIRS = 10  # pairs named in the text output (the JSON has them all)


# -- gold merge ------------------------------------------------------------------------------------


def gold_arguments(gold: argparse.ArgumentParser) -> None:
    commands = gold.add_subparsers(title="commands", required=True, metavar="COMMAND")
    merge = commands.add_parser(
        "merge",
        help="add a reviewed gold patch's judgments to a gold set",
        description="Add the judgments left in PATCH (written by --tempoeval-propose-gold; delete "
        "the lines you reject first) to GOLD, each with its provenance (source: llm:<model>, "
        "the judge's reasoning and prompt hash), and write the result to OUT. A pair GOLD "
        "already judges keeps GOLD's judgment (named on stderr); an unknown query or document "
        "is an error naming the patch's line.",
    )
    merge.add_argument("gold_path", metavar="GOLD", help="the gold set (YAML or JSON)")
    merge.add_argument("patch", metavar="PATCH", help="the reviewed gold patch")
    merge.add_argument("-o", "--output", required=True, metavar="OUT", help="the gold set to write")
    merge.add_argument(
        "--force",
        action="store_true",
        help="replace OUT if it exists (OUT may then be GOLD itself: rewritten atomically)",
    )
    merge.set_defaults(command=merge_command)


def merge_command(args: argparse.Namespace, out: TextIO) -> int:
    from pytest_tempoeval.data.gold_merge import merge_patch
    from pytest_tempoeval.data.gold_patch import read_gold_patch
    from pytest_tempoeval.data.gold_writer import write_gold_yaml
    from pytest_tempoeval.data.goldset import GoldSet

    gold_path, output = Path(args.gold_path), Path(args.output)
    if gold_path.is_dir():
        raise GoldSetError(
            f"{gold_path}: a BEIR folder; merge into a YAML or JSON gold set (a corpus is not "
            "rewritten as YAML)"
        )
    _check_output(output, gold_path, args.force)
    gold = GoldSet.load(gold_path)
    patch = read_gold_patch(args.patch)
    if patch.gold is not None and not _same_file(Path(patch.gold), gold_path):
        _note(f"{args.patch} was written for {patch.gold}, and is merged into {gold_path}")
    outcome = merge_patch(gold, patch.judgments, str(args.patch))
    write_gold_yaml(outcome.gold, output, overwrite=args.force)
    for kept in outcome.not_merged:
        proposed = kept.proposed
        _note(
            f"{args.patch}:{proposed.line}: query {proposed.query_id!r}, doc {proposed.doc_id!r} "
            f"not merged: {gold_path} judges it already ({kept.source}, grade {kept.grade}; the "
            f"patch says {proposed.grade}); edit the gold set to change it"
        )
    if _has_comments(gold_path):
        _note(
            f"the comments of {gold_path} are not in {output}: it is written in the canonical "
            "layout"
        )
    out.write(
        f"{output}: merged {len(outcome.merged)} of {len(patch.judgments)} judgments from "
        f"{args.patch}"
        + (
            f"; {len(outcome.not_merged)} already judged in {gold_path}, kept"
            if outcome.not_merged
            else ""
        )
        + "\n"
    )
    return 0


def _check_output(output: Path, gold_path: Path, force: bool) -> None:
    if output.suffix.lower() not in YAML_SUFFIXES:
        raise GoldSetError(f"{output}: OUT is written as YAML: give it a .yaml or .yml name")
    if _same_file(output, gold_path) and not force:
        raise GoldSetError(
            f"{output} is GOLD: give --force to rewrite the gold set in place (atomically), or "
            "another OUT"
        )
    if os.path.lexists(output) and not force:
        raise GoldSetError(f"{output} exists: give --force to replace it, or another OUT")


def _same_file(first: Path, second: Path) -> bool:
    try:
        return os.path.samefile(first, second)
    except OSError:
        return os.path.abspath(first) == os.path.abspath(second)


def _has_comments(path: Path) -> bool:
    if path.suffix.lower() not in YAML_SUFFIXES:
        return False
    try:
        return any(line.lstrip().startswith("#") for line in path.read_text("utf-8").splitlines())
    except (OSError, UnicodeDecodeError):
        return False


def _note(message: str) -> None:
    print(f"tempoeval: note: {message}", file=sys.stderr)


# -- agree -----------------------------------------------------------------------------------------


def agree_arguments(agree: argparse.ArgumentParser) -> None:
    agree.add_argument("human", metavar="HUMAN_GOLD", help="a gold set judged by people")
    agree.add_argument("llm", metavar="LLM_GOLD", help="a gold set the LLM judged (tempoeval pool)")
    agree.add_argument(
        "--mode",
        choices=("graded", "binary"),
        default="graded",
        help="graded (default): quadratic-weighted kappa of the grades; binary: plain kappa of "
        "grade >= --rel",
    )
    agree.add_argument("--rel", type=int, default=1, help="binary mode: the lowest relevant grade")
    agree.add_argument(
        "--min-kappa",
        type=float,
        default=None,
        metavar="KAPPA",
        help="exit 1 when kappa is below this (a CI gate on the judge)",
    )
    agree.add_argument("--format", choices=("text", "json"), default="text")
    agree.add_argument("--split", default="test", help="BEIR folders: the qrels split")
    agree.set_defaults(command=agree_command)


def agree_command(args: argparse.Namespace, out: TextIO) -> int:
    from pytest_tempoeval.data.goldset import GoldSet
    from pytest_tempoeval.metrics.agreement import gold_agreement

    human, llm = (
        GoldSet.from_beir(path, split=args.split) if Path(path).is_dir() else GoldSet.load(path)
        for path in (args.human, args.llm)
    )
    agreement = gold_agreement(human, llm, mode=args.mode, rel=args.rel)
    result = agreement.result
    try:
        result.check_comparable()  # a NaN kappa is an error, never a figure
    except MetricError as error:
        raise MetricError(f"{args.human} and {args.llm}: {error}") from None
    if args.format == "json":
        _agree_json(args, agreement, out)
    else:
        out.write(result.explain(SHOWN_PAIRS) + "\n")
        for pairs, words in (
            (agreement.only_human, f"judged by a person in {args.human} only"),
            (agreement.only_llm, f"judged by the LLM in {args.llm} only"),
        ):
            if pairs:
                pairs_word = "pair" if len(pairs) == 1 else "pairs"
                out.write(f"{len(pairs)} {pairs_word} {words}: {_pairs(pairs)}\n")
        if agreement.people_in_llm:
            out.write(
                f"{agreement.people_in_llm} judgment(s) of {args.llm} made by a person "
                "(source human): not compared\n"
            )
    if args.min_kappa is not None and float(result) < args.min_kappa:
        print(
            f"tempoeval: kappa {float(result):.4f} is below --min-kappa {args.min_kappa:g}",
            file=sys.stderr,
        )
        return 1
    return 0


def _pairs(pairs: list[tuple[str, str]]) -> str:
    shown = ", ".join(f"{query}/{doc}" for query, doc in pairs[:SHOWN_PAIRS])
    return shown + (f", ... ({len(pairs)} in all)" if len(pairs) > SHOWN_PAIRS else "")


def _agree_json(args: argparse.Namespace, agreement: Any, out: TextIO) -> None:
    import json

    result = agreement.result
    data = {
        "human": args.human,
        "llm": args.llm,
        "mode": result.mode,
        "kappa": float(result),
        "weights": result.extra["kappa_weights"],
        "judge_model": result.extra["judge_model"],
        "pairs": len(result.per_query),
        "labels": result.labels,
        "confusion": result.confusion,
        "counts": {
            "human": {str(k): v for k, v in result.counts["gold"].items()},
            "llm": {str(k): v for k, v in result.counts["judge"].items()},
        },
        "disagreements": [
            {"query": q, "document": d, "human": h, "llm": j} for q, d, h, j in result.disagreements
        ],
        "only_human": [{"query": q, "document": d} for q, d in agreement.only_human],
        "only_llm": [{"query": q, "document": d} for q, d in agreement.only_llm],
        "human_judgments_in_llm": agreement.people_in_llm,
    }
    json.dump(data, out, indent=2)
    out.write("\n")
