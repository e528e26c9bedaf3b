"""Measure names: ir_measures' syntax (``nDCG@10``, ``P(rel=2)@5``, ``RR``), and the temporal
measures in the same grammar (``T-nDCG@10``, ``T-P(mode=llm)@5``).

Grammar::

    measure   := name [ "(" param ("," param)* ")" ] [ "@" cutoff ]
    param     := key "=" value          (value: an integer, a number, true/false, or a word,
                                         optionally quoted: dcg='exp-log2')
    cutoff    := a positive integer; for IPrec and Rprec_mult, the parameter "@" sets instead (a
                 number: IPrec@0.5 is the recall level 0.5); none for the measures that read the
                 whole ranking (Rprec, Bpref, NumRet, SetP, ...)

A :class:`Measure` prints in one canonical form: parameters at their default are left out, the
rest sorted by key. ``str(parse_measure(text))`` parses back to the same measure. This module only
reads and writes names; :mod:`.by_name` scores them. The names, their parameters, aliases and
trec_eval names come from the specs (:mod:`.specs`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_tempoeval.errors import MetricError, check_choice, closest_match
from pytest_tempoeval.metrics.not_supported import why_not_supported
from pytest_tempoeval.metrics.specs import GAIN, SPEC, SPECS, Family, Param, ParamValue

_BOOLEANS = {"true": True, "false": False}

FAMILIES: dict[str, Family] = SPEC  # canonical name -> its spec (its old name: a family)
# Other spellings users write, and the function names; they parse to the canonical name.
ALIASES = {
    **{alias: spec.name for spec in SPECS for alias in spec.aliases},
    **{spec.function: spec.name for spec in SPECS},  # temporal_ndcg, precision, ...
}
# The gain's names in the metric functions (``gain="exponential"``), by the word of a name.
FUNCTION_GAIN = {str(GAIN.word(value)): value for value in GAIN.choices}

# trec_eval's measure names (``P_5``, ``ndcg_cut_10``, ``map``), and the measure each one is.
_FROM_TREC_EVAL = {
    **{spec.trec_eval: spec.name for spec in SPECS if spec.trec_eval},
    **{spec.trec_eval_whole: spec.name for spec in SPECS if spec.trec_eval_whole},
}
_CUT_NAMES = {spec.trec_eval for spec in SPECS if spec.trec_eval and not spec.at}
_AT_NAMES = {spec.trec_eval for spec in SPECS if spec.trec_eval and spec.at}
_WHOLE_NAMES = {spec.trec_eval_whole for spec in SPECS if spec.trec_eval_whole}
# trec_eval's names that stand for parameters of their own (rbp: p=0.9): written with others,
# which defaults would the rest take? The measure's own name says it.
_TREC_EVAL_WITH_PARAMS = {
    name: spec
    for spec in SPECS
    if spec.trec_eval_params
    for name in (spec.trec_eval, spec.trec_eval_whole)
    if name
}
# A trec_eval name with a number: its root, "_" or ".", the number (P_5, P.5, ndcg_cut_10,
# iprec_at_recall_0.50). Numbers hold no "_", so the shortest root leaving a number is the split.
# (One alternation of every root was the costliest pattern compiled at start-up.)
_WITH_NUMBER = re.compile(r"(?P<root>\w+?)[_.](?P<number>\d*\.?\d+)")


def trec_eval_name(measure: Measure) -> str | None:
    """trec_eval's name for a measure it has at its default parameters (``P_5``,
    ``iprec_at_recall_0.50``; ``rbp`` for ``RBP(p=0.9)``, trec_eval's default p), else None."""
    spec = measure.family
    if measure.params != _trec_eval_measure(spec.name, None).params:
        return None
    if spec.at is not None:  # trec_eval prints the value with "%3.2f": only 2 decimals name it
        level = None if measure.cutoff is None else f"{measure.cutoff:.2f}"
        exact = level is not None and float(level) == measure.cutoff
        return f"{spec.trec_eval}_{level}" if spec.trec_eval and exact else None
    if measure.cutoff is None:
        return spec.trec_eval_whole
    return f"{spec.trec_eval}_{measure.cutoff}" if spec.trec_eval else None


# A name starts with a letter or a digit (11pt_avg).
_MEASURE = re.compile(
    r"\s*(?P<name>[A-Za-z0-9][\w-]*)\s*(?:\((?P<params>[^()]*)\))?\s*(?:@\s*(?P<cutoff>\S+))?\s*"
)


@dataclass(frozen=True)
class Measure:
    """A parsed measure: its family, its non-default parameters (sorted), and its cutoff."""

    name: str
    params: tuple[tuple[str, ParamValue], ...] = ()
    cutoff: int | float | None = None  # a float for IPrec@0.5 (its spec's ``at`` parameter)

    @property
    def family(self) -> Family:
        return FAMILIES[self.name]

    def param(self, key: str) -> ParamValue | None:
        """The parameter's value, or its default (None: not given)."""
        return dict(self.params).get(key, self.family.params[key])

    def __str__(self) -> str:
        text = self.name
        if self.params:
            text += "(" + ",".join(f"{key}={_format(value)}" for key, value in self.params) + ")"
        return text if self.cutoff is None else f"{text}@{_format(self.cutoff)}"


def measure_of(name: str, cutoff: float | None, **params: ParamValue | None) -> Measure:
    """The measure a metric function computed: ``measure_of("P", 5, rel=2)``. A parameter at
    its default, or not given (None), is left out."""
    family = FAMILIES[name]
    kept = tuple(
        sorted(
            (key, value)
            for key, value in params.items()
            if value is not None and value != family.params[key]
        )
    )
    return Measure(name, kept, cutoff)


def _trec_eval_form(name: str, text: str) -> Measure | None:
    """The measure of trec_eval's printed ``name`` (``map``, ``P_5``, ``iprec_at_recall_0.50``),
    or None when it is not one."""
    if name in _WHOLE_NAMES:
        return _trec_eval_measure(_FROM_TREC_EVAL[name], None)
    match = _WITH_NUMBER.fullmatch(name)
    if match is None:
        return None
    root, number = match.group("root", "number")
    if root in _AT_NAMES:
        family = FAMILIES[_FROM_TREC_EVAL[root]]
        return _trec_eval_measure(family.name, _cutoff(number, text, family))
    if root in _CUT_NAMES and number.isdigit():
        return _trec_eval_measure(_FROM_TREC_EVAL[root], int(number))
    return None


def _trec_eval_measure(name: str, cutoff: float | None) -> Measure:
    """The measure a trec_eval name stands for: its spec at trec_eval's parameters."""
    return measure_of(name, cutoff, **FAMILIES[name].trec_eval_params)


def parse_measure(text: str) -> Measure:
    """Read a measure name; a :class:`MetricError` says what is wrong and what was meant.

    trec_eval's names are read too, as it prints them: ``P_5``, ``ndcg_cut_10``, ``map``,
    ``recip_rank``, ``iprec_at_recall_0.50``."""
    if not isinstance(text, str):
        raise MetricError(f"a measure is a string such as 'nDCG@10', got {type(text).__name__}")
    trec = _trec_eval_form(text.strip(), text)
    if trec is not None:
        return trec
    _refuse_parameters_after_cutoff(text)
    match = _MEASURE.fullmatch(text)
    if match is None and (why := why_not_supported(text.strip())) is not None:
        raise MetricError(f"measure {text!r}: {why} (docs/measures.md lists every measure)")
    if match is None:
        raise MetricError(
            f"cannot read measure {text!r}: expected NAME, NAME@k or NAME(key=value,...)@k, "
            "e.g. 'nDCG@10', 'P(rel=2)@5', 'T-nDCG(mode=llm)@10'"
        )
    trec_name = _TREC_EVAL_WITH_PARAMS.get(match.group("name"))
    if trec_name is not None:
        stands_for = _trec_eval_measure(trec_name.name, None)
        raise MetricError(
            f"measure {text!r}: {match.group('name')} is trec_eval's name for {stands_for} and "
            f"takes no parameters or cutoff; write {trec_name.name}(key=value,...)@k"
        )
    family = _family(match.group("name"), text)
    params = _params(match.group("params"), family, text)
    cutoff = _cutoff(match.group("cutoff"), text, family)
    return measure_of(family.name, cutoff, **params)


# ``P@5(rel=2)``: parameters written after the cutoff (maybe some before it too).
_PARAMS_AFTER_CUTOFF = re.compile(
    r"\s*(?P<name>[A-Za-z0-9][\w-]*)\s*(?:\((?P<before>[^()]*)\))?\s*@\s*(?P<cutoff>\d*\.?\d+)"
    r"\s*\((?P<after>[^()]*)\)\s*"
)


def _refuse_parameters_after_cutoff(text: str) -> None:
    """The grammar puts parameters before the cutoff: say so with the measure as it should read."""
    match = _PARAMS_AFTER_CUTOFF.fullmatch(text)
    if match is None:
        return
    written = f"{match['before'] or ''},{match['after']}".split(",")
    params = ",".join(param.strip() for param in written if param.strip())
    meant = f"{match['name']}{f'({params})' if params else ''}@{match['cutoff']}"
    raise MetricError(
        f"measure {text!r}: parameters go before the cutoff: did you mean {meant!r}? "
        "(NAME(key=value,...)@k)"
    )


def _family(name: str, text: str) -> Family:
    canonical = name if name in FAMILIES else ALIASES.get(name)
    if canonical is None:  # NDCG, ndcg, p, success: case does not matter when unambiguous
        folded = [known for known in (*FAMILIES, *ALIASES) if known.lower() == name.lower()]
        canonical = ALIASES.get(folded[0], folded[0]) if folded else None
    if canonical is None and (why := why_not_supported(name)) is not None:
        raise MetricError(f"measure {text!r}: {why} (docs/measures.md lists every measure)")
    if canonical is None and name.lower() == "t-persistence":  # a ratio of periods: no name
        raise MetricError(
            f"measure {text!r}: T-Persistence is a ratio of two periods' scores, not a score per "
            "query: call temporal_persistence(evaluate(run, gold, ['T-nDCG@10'])['T-nDCG@10'], "
            "early='2000-2009', late='2010-2019') (docs/metrics.md)"
        )
    if canonical is None:
        known = [*FAMILIES, *ALIASES]
        close = closest_match(name, known, cutoff=0.5)
        message = f"unknown measure {name!r} in {text!r}"
        if close:
            message += f": did you mean {ALIASES.get(close, close)!r}?"
        raise MetricError(f"{message} (known measures: {', '.join(FAMILIES)})")
    return FAMILIES[canonical]


def _params(body: str | None, family: Family, text: str) -> dict[str, ParamValue]:
    params: dict[str, ParamValue] = {}
    if body is None or not body.strip():
        return params
    # Keys of other tools' spelling of a parameter: ir_measures' nDCG(dcg='exp-log2').
    foreign = {param.foreign[0]: param for param in family.all_params if param.foreign}
    for part in body.split(","):
        key, equals, raw = (piece.strip() for piece in part.partition("="))
        if not equals or not key or not raw:
            raise MetricError(f"measure {text!r}: expected key=value, got {part.strip()!r}")
        word = raw.strip("'\"")
        if key in foreign:
            param, words = foreign[key], foreign[key].foreign[1]  # type: ignore[index]
            word = words[check_choice(f"measure {text!r}: {key}", word, words, MetricError)]
            key = param.name
        if key not in family.params:
            allowed = ", ".join(family.params) or "none"
            close = closest_match(key, family.params)
            hint = f"; did you mean {close!r}?" if close else ""
            raise MetricError(
                f"measure {text!r}: {family.name} has no parameter {key!r}{hint} "
                f"({family.name}'s parameters: {allowed})"
            )
        if key in params:
            raise MetricError(f"measure {text!r}: parameter {key!r} is given twice")
        params[key] = _value(family.param(key), word, text)
    return params


def _value(param: Param, raw: str, text: str) -> ParamValue:
    """A parameter's value as a measure name writes it, read and checked."""
    if param.choices:
        return check_choice(
            f"measure {text!r}: {param.name}", raw, param.measure_choices, MetricError
        )
    try:
        value: ParamValue = _BOOLEANS[raw.lower()] if param.type is bool else param.type(raw)
    except (KeyError, ValueError):
        kind = {bool: "true or false", int: "an integer", float: "a number"}[param.type]
        raise MetricError(f"measure {text!r}: {param.name} must be {kind}, got {raw!r}") from None
    problem = param.check(value) if param.check is not None else None
    if problem is not None:
        raise MetricError(f"measure {text!r}: {problem}")
    return value


def _cutoff(raw: str | None, text: str, family: Family) -> int | float | None:
    if family.at is not None:  # IPrec@0.5: "@" gives a parameter, which every name gives
        if raw is None:
            raise MetricError(
                f"measure {text!r}: {family.name} needs its {family.at.name} after @ "
                f"({family.at.description})"
            )
        value = _value(family.at, raw, text)
        assert isinstance(value, (int, float))  # a number parameter (its type is float)
        return value
    if raw is None:
        return None
    if not family.rank_cutoff:
        raise MetricError(
            f"measure {text!r}: {family.name} reads the whole ranking and takes no cutoff; "
            f"write {family.name} without @"
        )
    if not raw.isdigit() or int(raw) < 1:
        raise MetricError(f"measure {text!r}: the cutoff after @ must be a positive integer")
    return int(raw)


def _format(value: ParamValue) -> str:
    # repr: a float prints the shortest text that reads back as the same float; True as ir_measures
    return repr(value) if isinstance(value, (bool, float)) else str(value)
