"""trec_eval 10's measures as its command line knows them: its measure table (``measures.c``: the
print order, each measure's parameters and how it prints), its groups (``official``,
``all_trec``, ...), the ``-m NAME.PARAMS`` syntax (``meas_init.c``: cutoffs read as C's atol and
sorted, printed names ``P_5``, ``iprec_at_recall_0.10``, ``utility_2,-1,0,0``) and its line
layout (``meas_print_*.c``). Read from trec_eval's sources and written out once.

Nothing here says what the package supports: :mod:`.trec_eval_cli` asks ``parse_measure`` for each
printed name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from enum import Enum
from typing import NamedTuple

from pytest_tempoeval.errors import MetricError, closest_match

# -- trec_eval's measure table ---------------------------------------------------------------------


class Printed(Enum):
    """How trec_eval prints a measure (its print_single and print_final functions)."""

    RUNID = "runid"  # the summary only: the run's tag
    COUNT_SUMMARY = "count, summary only"  # num_q: %ld
    COUNT = "count"  # %ld per query and in the summary (a sum)
    VALUE = "value"  # %6.4f per query and in the summary
    VALUE_SUMMARY = "value, summary only"  # gm_map, gm_bpref
    RELSTRING = "relstring"  # per query only: the grades of the top N, quoted


class Params(Enum):
    """How a measure reads ``-m NAME.PARAMS`` (meas_init.c)."""

    NONE = "none"  # parameters are accepted and ignored
    CUTOFFS = "integer cutoffs"  # one value per cutoff, named NAME_%ld
    LEVELS = "number cutoffs"  # one value per cutoff, named NAME_%3.2f
    LIST = "numbers"  # one value, named NAME_<parameters as written>
    PAIRS = "name=value pairs"  # one value, named NAME_<parameters as written>


class Root(NamedTuple):
    """One entry of trec_eval's measure table."""

    name: str
    printed: Printed = Printed.VALUE
    params: Params = Params.NONE
    defaults: tuple[float, ...] = ()  # the cutoffs printed when -m gives none


_CUTS = (5.0, 10.0, 15.0, 20.0, 30.0, 100.0, 200.0, 500.0, 1000.0)
_TENTHS = tuple(i / 10 for i in range(11))
_RPREC_MULTS = tuple(i / 5 for i in range(1, 11))
_C, _S, _VS = Printed.COUNT, Printed.VALUE, Printed.VALUE_SUMMARY
_PREFS = (
    *("simp", "pair", "avgjg", "avgjg_Rnonrel", "simp_ret", "pair_ret", "avgjg_ret"),
    *("avgjg_Rnonrel_ret", "simp_imp", "pair_imp", "avgjg_imp"),
)

ROOTS: tuple[Root, ...] = (  # measures.c's te_trec_measures, in its order (the print order)
    Root("runid", Printed.RUNID),
    Root("num_q", Printed.COUNT_SUMMARY),
    Root("num_ret", _C),
    Root("num_rel", _C),
    Root("num_rel_ret", _C),
    Root("map"),
    Root("gm_map", _VS),
    Root("Rprec"),
    Root("bpref"),
    Root("recip_rank"),
    Root("iprec_at_recall", _S, Params.LEVELS, _TENTHS),
    Root("P", _S, Params.CUTOFFS, _CUTS),
    Root("relstring", Printed.RELSTRING, Params.LIST, (10.0,)),
    Root("recall", _S, Params.CUTOFFS, _CUTS),
    Root("infAP"),
    Root("gm_bpref", _VS),
    Root("Rprec_mult", _S, Params.LEVELS, _RPREC_MULTS),
    Root("utility", _S, Params.LIST, (1.0, -1.0, 0.0, 0.0)),
    Root("11pt_avg", _S, Params.LIST, _TENTHS),
    Root("binG"),
    Root("G", _S, Params.PAIRS),
    Root("dcg", _S, Params.PAIRS),
    Root("ideal_dcg", _S, Params.PAIRS),
    Root("ndcg", _S, Params.PAIRS),
    Root("ndcg_rel", _S, Params.PAIRS),
    Root("Rndcg", _S, Params.PAIRS),
    Root("ndcg_cut", _S, Params.CUTOFFS, _CUTS),
    Root("map_cut", _S, Params.CUTOFFS, _CUTS),
    Root("relative_P", _S, Params.CUTOFFS, _CUTS),
    Root("success", _S, Params.CUTOFFS, (1.0, 5.0, 10.0)),
    Root("set_P"),
    Root("set_relative_P"),
    Root("set_recall"),
    Root("set_map"),
    Root("set_F", _S, Params.LIST, (1.0,)),
    Root("num_nonrel_judged_ret", _C),
    Root("prefs_num_prefs_poss", _C),
    Root("prefs_num_prefs_ful", _C),
    Root("prefs_num_prefs_ful_ret", _C),
    *(Root(f"prefs_{name}") for name in _PREFS),
    Root("map_avgjg"),
    Root("P_avgjg", _S, Params.CUTOFFS, _CUTS),
    Root("Rprec_mult_avgjg", _S, Params.LEVELS, _RPREC_MULTS),
    Root("yaap"),
    Root("rbp", _S, Params.PAIRS),
    Root("rbp_resid", _S, Params.PAIRS),
    Root("unj", _S, Params.CUTOFFS, (5.0, 10.0, 20.0)),
)
ROOT = {root.name: root for root in ROOTS}
_OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec")
_OFFICIAL_REST = ("bpref", "recip_rank", "iprec_at_recall", "P")
GROUPS: dict[str, tuple[str, ...]] = {  # measures.c's nicknames
    "official": (*_OFFICIAL, *_OFFICIAL_REST),
    "set": (
        *("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P"),
        *("set_recall", "set_relative_P", "set_map", "set_F"),
    ),
    "all_trec": (
        *_OFFICIAL,
        *_OFFICIAL_REST,
        *("relstring", "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility"),
        *("11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut"),
        *("ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map"),
        *("set_F", "num_nonrel_judged_ret"),
    ),
    "all_prefs": (
        "runid",
        "num_q",
        *(root.name for root in ROOTS if root.name.startswith("prefs_")),
    ),
    "prefs": (
        *("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful"),
        *("prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg"),
    ),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}


class Line(NamedTuple):
    """One name trec_eval prints (``P_5``, ``relstring_20``), of one root."""

    name: str
    root: Root
    explicit: bool  # asked for by its own -m, not only through a group
    values: tuple[float, ...] = ()  # LIST parameters: relstring's length, utility's coefficients


# -- -m: names, groups and parameters --------------------------------------------------------------


def expand_measures(asked: Sequence[str]) -> list[Line]:
    """The names trec_eval prints for the ``-m`` values ``asked`` (none: ``official``), in its
    table's order. An unknown name is a MetricError with a did-you-mean, before any file is read."""
    marked: dict[str, bool] = {}  # root -> asked by its own -m (not only through a group)
    params: dict[str, str] = {}  # root -> its parameters: the first -m that gives some (as C)
    for text in asked or ["official"]:
        name, dot, given = text.partition(".")
        if dot and not given:
            raise MetricError(f"-m {text}: the parameters after '.' are empty")
        if name in GROUPS:
            for member in GROUPS[name]:
                marked.setdefault(member, False)
            continue
        if name not in ROOT:
            raise MetricError(_unknown_measure(text, name))
        marked[name] = True
        if dot:
            params.setdefault(name, given)
    lines = []
    for root in ROOTS:
        if root.name in marked:
            lines += _lines_of(root, params.get(root.name), marked[root.name])
    return lines


def _lines_of(root: Root, given: str | None, explicit: bool) -> list[Line]:
    if root.params == Params.CUTOFFS:
        cutoffs = _cutoffs(root, given, c_long)
        if cutoffs[0] <= 0:
            raise MetricError(f"-m {root.name}.{given}: cutoffs must be positive integers")
        return [Line(f"{root.name}_{int(c)}", root, explicit) for c in cutoffs]
    if root.params == Params.LEVELS:
        levels = _cutoffs(root, given, c_double)
        return [Line(f"{root.name}_{c:3.2f}", root, explicit) for c in levels]
    if root.params == Params.PAIRS and given is not None and not re.fullmatch(_PAIRS, given):
        raise MetricError(f"-m {root.name}.{given}: expected name=value pairs, e.g. 1=3,2=9")
    if root.params in (Params.LIST, Params.PAIRS) and given is not None:
        values = tuple(c_double(part) for part in given.split(","))
        return [Line(f"{root.name}_{given}", root, explicit, values)]
    return [Line(root.name, root, explicit, root.defaults)]


# Patterns are kept as text, compiled by re (and cached) when first used: most commands never
# read a -m parameter or a trec_eval number, and a compile is ~0.5 M instructions at start-up.
_PAIRS = r"[^,=]*=[^,=]*(?:,[^,=]*=[^,=]*)*"  # get_param_pairs' check


def _cutoffs(root: Root, given: str | None, read: Callable[[str], float]) -> list[float]:
    if given is None:
        return list(root.defaults)
    cutoffs = sorted(read(part) for part in given.split(","))
    if len(set(cutoffs)) < len(cutoffs):
        raise MetricError(f"-m {root.name}.{given}: a cutoff is given twice")
    return cutoffs


PRINTED_NAME = r"(?P<root>.+?)_(?P<cutoff>\d+(?:\.\d+)?)"


def _unknown_measure(text: str, name: str) -> str:
    """What ``-m text`` should have been: trec_eval writes P_5 as ``-m P.5``; an ir_measures
    name gets its trec_eval spelling; a typo the closest name."""
    printed = re.fullmatch(PRINTED_NAME, name)
    if printed and printed["root"] in ROOT:
        return (
            f"-m {text}: trec_eval prints {name} but is asked for it as "
            f"-m {printed['root']}.{printed['cutoff']}"
        )
    message = f"-m {text}: unknown trec_eval measure {name!r}"
    spelled = _trec_eval_spelling(text)
    close = closest_match(name, [*ROOT, *GROUPS], cutoff=0.6)
    if spelled:
        message += f": trec_eval asks for it as -m {spelled}"
    elif close:
        message += f": did you mean {close!r}?"
    return f"{message} (trec_eval's measures: {', '.join(ROOT)}; groups: {', '.join(GROUPS)})"


def _trec_eval_spelling(text: str) -> str | None:
    """``-m P.5`` for ``P@5``: a measure the package reads whose trec_eval name is known."""
    from pytest_tempoeval.metrics.measures import parse_measure, trec_eval_name

    try:
        name = trec_eval_name(parse_measure(text))
    except MetricError:
        return None
    printed = re.fullmatch(PRINTED_NAME, name or "")
    if printed and printed["root"] in ROOT:
        return f"{printed['root']}.{printed['cutoff']}"
    return name if name in ROOT else None


_C_LONG = r"\s*[+-]?\d+"
_C_DOUBLE = r"\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"


def c_long(text: str) -> int:
    """C's atol: the leading integer, 0 when there is none (trec_eval reads -l, -M, cutoffs so)."""
    match = re.match(_C_LONG, text)
    return int(match.group()) if match else 0


def c_double(text: str) -> float:
    """C's atof: the leading number, 0.0 when there is none."""
    match = re.match(_C_DOUBLE, text)
    return float(match.group()) if match else 0.0


# -- printing --------------------------------------------------------------------------------------


def formatted(printed: Printed, value: float | str) -> str:
    if isinstance(value, str):
        return f"'{value}'" if printed == Printed.RELSTRING else value
    if printed in (Printed.COUNT, Printed.COUNT_SUMMARY):
        return str(int(value))  # C's (long) cast: toward zero
    return f"{value:6.4f}"


def trec_line(name: str, query: str, value: str) -> str:
    return f"{name:<22}\t{query}\t{value}\n"  # trec_eval's "%-22s\t%s\t..."


PER_QUERY = (Printed.COUNT, Printed.VALUE, Printed.RELSTRING)  # printed for each query (-q)
