"""Measure names: ir_measures' syntax (``nDCG@10``, ``P(rel=2)@5``, ``RR``), and the temporal
measures in the same grammar (``T-nDCG@10``, ``T-P(mode=llm)@5``).

Grammar::

    measure   := name [ "(" param ("," param)* ")" ] [ "@" cutoff ]
    param     := key "=" value          (value: an integer, a number, true/false, or a word,
                                         optionally quoted: dcg='exp-log2')
    cutoff    := a positive integer

A :class:`Measure` prints in one canonical form: parameters at their default are left out, the
rest sorted by key. ``str(parse_measure(text))`` parses back to the same measure. This module only
reads and writes names; :mod:`.evaluate` scores them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pytest_tempoeval.data.values import rel_problem
from pytest_tempoeval.errors import MetricError, closest_match

_BOOLEANS = {"true": True, "false": False}


@dataclass(frozen=True)
class Family:
    """One measure family: its canonical name, the function that scores it, its parameters with
    their defaults, and what a missing cutoff means."""

    name: str
    function: str  # the name of its function in metrics.functions
    params: dict[str, Any]  # key -> default (its type is the default's type)
    whole_ranking: bool  # no cutoff: the whole ranking (AP, RR) rather than the default k (P@10)
    choices: dict[str, tuple[str, ...]]  # keys whose values are words, and the words allowed
    summary: str


_FAMILIES = (
    Family(
        "nDCG",
        "ndcg",
        {"gain": "linear", "judged_only": False},
        True,
        {"gain": ("linear", "exp")},
        "nDCG over graded judgments (trec_eval ndcg, ndcg_cut)",
    ),
    Family("P", "precision", {"rel": 1}, False, {}, "precision at k (trec_eval P)"),
    Family("R", "recall", {"rel": 1}, True, {}, "recall (trec_eval recall)"),
    Family("AP", "average_precision", {"rel": 1}, True, {}, "average precision (map, map_cut)"),
    Family("RR", "mrr", {"rel": 1}, True, {}, "reciprocal rank (recip_rank)"),
    Family("Success", "success", {"rel": 1}, False, {}, "1 if a relevant document is in the top k"),
    Family("Judged", "judged", {}, False, {}, "share of the top k that carry a judgment"),
    Family(
        "T-nDCG",
        "temporal_ndcg",
        {"mode": "focus_time", "gain": "linear"},
        False,
        {"mode": ("focus_time", "gold", "llm"), "gain": ("linear", "exp")},
        "temporal nDCG",
    ),
    Family(
        "T-P",
        "temporal_precision",
        {"mode": "focus_time", "threshold": 0.0},
        False,
        {"mode": ("focus_time", "llm")},
        "temporal precision",
    ),
    Family(
        "T-R",
        "temporal_recall",
        {"mode": "focus_time", "threshold": 0.0},
        False,
        {"mode": ("focus_time",)},
        "temporal recall",
    ),
    Family(
        "T-RR",
        "temporal_mrr",
        {"mode": "focus_time", "threshold": 0.0},
        True,
        {"mode": ("focus_time",)},
        "reciprocal rank of the first temporally relevant document",
    ),
    Family(
        "T-AP",
        "temporal_map",
        {"mode": "focus_time", "threshold": 0.0},
        True,
        {"mode": ("focus_time",)},
        "temporal average precision",
    ),
)
FAMILIES = {family.name: family for family in _FAMILIES}
# Other spellings users write; they parse to the canonical family.
ALIASES = {
    "NDCG": "nDCG",
    "ndcg": "nDCG",
    "MRR": "RR",
    "MAP": "AP",
    "map": "AP",
    "Precision": "P",
    "Recall": "R",
    "recip_rank": "RR",
    "T-NDCG": "T-nDCG",
    "T-MRR": "T-RR",
    "T-MAP": "T-AP",
    **{family.function: family.name for family in _FAMILIES},  # temporal_ndcg, precision, ...
}
# ir_measures' nDCG(dcg=...) spelling of the gain.
_DCG_GAINS = {"log2": "linear", "exp-log2": "exp"}
# The gain's names in the metric functions (``gain="exponential"``).
FUNCTION_GAIN = {"linear": "linear", "exp": "exponential"}

# trec_eval's measure names (``P_5``, ``ndcg_cut_10``), and the family each one is.
_FROM_TREC_EVAL = {
    "P": "P",
    "recall": "R",
    "map": "AP",
    "map_cut": "AP",
    "recip_rank": "RR",
    "ndcg": "nDCG",
    "ndcg_cut": "nDCG",
    "success": "Success",
}
_TREC_EVAL_NAME = re.compile(
    r"(?P<name>P|recall|map_cut|ndcg_cut|success)[_.](?P<cutoff>\d+)|(?P<whole>map|ndcg|recip_rank)"
)


def trec_eval_name(measure: Measure) -> str | None:
    """trec_eval's name for a measure it has at its default parameters (``P_5``), else None."""
    if measure.params:
        return None
    names = {"P": "P", "R": "recall", "Success": "success"}
    cut = {"AP": ("map", "map_cut"), "nDCG": ("ndcg", "ndcg_cut"), "RR": ("recip_rank", None)}
    if measure.name in names and measure.cutoff is not None:
        return f"{names[measure.name]}_{measure.cutoff}"
    if measure.name in cut:
        whole, cutoff = cut[measure.name]
        if measure.cutoff is None:
            return whole
        return f"{cutoff}_{measure.cutoff}" if cutoff else None
    return None


_MEASURE = re.compile(
    r"\s*(?P<name>[A-Za-z][\w-]*)\s*(?:\((?P<params>[^()]*)\))?\s*(?:@\s*(?P<cutoff>\S+))?\s*"
)


@dataclass(frozen=True)
class Measure:
    """A parsed measure: its family, its non-default parameters (sorted), and its cutoff."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()
    cutoff: int | None = None

    @property
    def family(self) -> Family:
        return FAMILIES[self.name]

    def param(self, key: str) -> Any:
        """The parameter's value, or its default."""
        return dict(self.params).get(key, self.family.params[key])

    def __str__(self) -> str:
        text = self.name
        if self.params:
            text += "(" + ",".join(f"{key}={_format(value)}" for key, value in self.params) + ")"
        return text if self.cutoff is None else f"{text}@{self.cutoff}"


def measure_of(name: str, cutoff: int | None, **params: Any) -> Measure:
    """The measure a metric function computed: ``measure_of("P", 5, rel=2)``."""
    family = FAMILIES[name]
    kept = tuple(
        sorted((key, value) for key, value in params.items() if value != family.params[key])
    )
    return Measure(name, kept, cutoff)


def parse_measure(text: str) -> Measure:
    """Read a measure name; a :class:`MetricError` says what is wrong and what was meant.

    trec_eval's names are read too: ``P_5``, ``ndcg_cut_10``, ``map``, ``recip_rank``."""
    if not isinstance(text, str):
        raise MetricError(f"a measure is a string such as 'nDCG@10', got {type(text).__name__}")
    trec = _TREC_EVAL_NAME.fullmatch(text.strip())
    if trec is not None:
        if trec.group("whole"):
            return Measure(_FROM_TREC_EVAL[trec.group("whole")])
        return Measure(_FROM_TREC_EVAL[trec.group("name")], (), int(trec.group("cutoff")))
    _refuse_parameters_after_cutoff(text)
    match = _MEASURE.fullmatch(text)
    if match is None:
        raise MetricError(
            f"cannot read measure {text!r}: expected NAME, NAME@k or NAME(key=value,...)@k, "
            "e.g. 'nDCG@10', 'P(rel=2)@5', 'T-nDCG(mode=llm)@10'"
        )
    family = _family(match.group("name"), text)
    params = _params(match.group("params"), family, text)
    cutoff = _cutoff(match.group("cutoff"), text)
    return measure_of(family.name, cutoff, **params)


# ``P@5(rel=2)``: parameters written after the cutoff (maybe some before it too).
_PARAMS_AFTER_CUTOFF = re.compile(
    r"\s*(?P<name>[A-Za-z][\w-]*)\s*(?:\((?P<before>[^()]*)\))?\s*@\s*(?P<cutoff>\d+)"
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
    if canonical is None:
        known = [*FAMILIES, *ALIASES]
        close = closest_match(name, known, cutoff=0.5)
        message = f"unknown measure {name!r} in {text!r}"
        if close:
            message += f": did you mean {ALIASES.get(close, close)!r}?"
        raise MetricError(f"{message} (known measures: {', '.join(FAMILIES)})")
    return FAMILIES[canonical]


def _params(body: str | None, family: Family, text: str) -> dict[str, Any]:
    params: dict[str, Any] = {}
    if body is None or not body.strip():
        return params
    for part in body.split(","):
        key, equals, raw = (piece.strip() for piece in part.partition("="))
        if not equals or not key or not raw:
            raise MetricError(f"measure {text!r}: expected key=value, got {part.strip()!r}")
        value: Any = raw.strip("'\"")
        if family.name == "nDCG" and key == "dcg":  # ir_measures: nDCG(dcg='exp-log2')
            if value not in _DCG_GAINS:
                raise MetricError(
                    f"measure {text!r}: dcg must be one of {', '.join(_DCG_GAINS)}, got {value!r}"
                )
            key, value = "gain", _DCG_GAINS[value]
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
        params[key] = _value(key, value, family, text)
        problem = rel_problem(params[key]) if key == "rel" else None
        if problem is not None:
            raise MetricError(f"measure {text!r}: {problem}")
    return params


def _value(key: str, raw: str, family: Family, text: str) -> Any:
    default = family.params[key]
    try:
        if isinstance(default, bool):
            return _BOOLEANS[raw.lower()]
        if isinstance(default, int):
            return int(raw)
        if isinstance(default, float):
            return float(raw)
    except (KeyError, ValueError):
        kind = {bool: "true or false", int: "an integer", float: "a number"}[type(default)]
        raise MetricError(f"measure {text!r}: {key} must be {kind}, got {raw!r}") from None
    choices = family.choices.get(key, ())
    if raw not in choices:
        raise MetricError(
            f"measure {text!r}: {key} must be one of {', '.join(choices)}, got {raw!r}"
        )
    return raw


def _cutoff(raw: str | None, text: str) -> int | None:
    if raw is None:
        return None
    if not raw.isdigit() or int(raw) < 1:
        raise MetricError(f"measure {text!r}: the cutoff after @ must be a positive integer")
    return int(raw)


def _format(value: Any) -> str:
    # repr: a float prints the shortest text that reads back as the same float; True as ir_measures
    return repr(value) if isinstance(value, (bool, float)) else str(value)
