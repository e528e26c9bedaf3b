"""The measures ir_measures and trec_eval have that this package does not compute, each with why:
declared once, here.

The measure grammar names the reason when one is asked for (:mod:`.measures`), the table of
``docs/measures.md`` is generated from this one (:mod:`.spec_docs`), and ``tests/metrics/
test_coverage.py`` checks that every measure of ir_measures' registry and of trec_eval's measure
table is either read by the grammar or listed here. ``tempoeval trec_eval`` names a measure it
leaves out on stderr. trec_eval names with parameters the grammar cannot hold (``utility_2,-1,0,0``,
``ndcg_1=3,2=9``) are in docs/measures.md's prose, not here: their root names are supported.
"""

from __future__ import annotations

import re

_SUBTOPICS = (
    "an intent-aware (diversity) measure: it needs a judgment per subtopic of a query, and gold "
    "sets and TREC qrels as read here hold one judgment per document"
)
_PREFERENCES = (
    "a preference measure (trec_eval -R prefs, qrels_prefs): it reads pairwise preferences "
    "between documents, and a gold set holds graded judgments"
)
_JUDGMENT_GROUPS = (
    "a judgment-group measure (trec_eval -R qrels_jg): it averages over several assessors' "
    "judgments of a query, and a gold set holds one judgment per document"
)
_NERR = (
    "a Not-but-Nearly ERR variant (Azzopardi et al., ICTIR 2021) that only ir_measures' cwl "
    "provider computes; ERR@k is supported"
)

# Tool's measure name -> (tool, why it is not supported).
NOT_SUPPORTED: dict[str, tuple[str, str]] = {
    **{
        name: ("ir_measures", _SUBTOPICS)
        for name in (
            *("AP_IA", "MAP_IA", "P_IA", "ERR_IA", "nERR_IA", "alpha_DCG", "alpha_nDCG"),
            *("α_DCG", "α_nDCG", "NRBP", "nNRBP", "StRecall"),
        )
    },
    "Accuracy": (
        "ir_measures",
        (
            "a diagnostic (the chance that a retrieved relevant document ranks above a retrieved "
            "non-relevant one) its own provider defines; not a measure of trec_eval or of the gate"
        ),
    ),
    "BPM": (
        "ir_measures",
        (
            "the Bejeweled Player Model needs a cost per document and the user's budgets, which a "
            "gold set does not carry"
        ),
    ),
    "Compat": (
        "ir_measures",
        (
            "compatibility measures a ranking against an ideal ordering built from preferences "
            "(Clarke et al., TOIS 2021), not graded judgments"
        ),
    ),
    **{
        name: (
            "ir_measures",
            (
                "an adaptive C/W/L user model whose expected number of relevant documents (T) only "
                "ir_measures' cwl provider defines; RBP and ERR are supported"
            ),
        )
        for name in ("INSQ", "INST")
    },
    **{name: ("ir_measures", _NERR) for name in ("NERR8", "NERR9", "NERR10", "NERR11")},
    "SDCG": (
        "ir_measures",
        (
            "scaled DCG assumes fully relevant documents nobody judged (a collection-level guess); "
            "nDCG is supported"
        ),
    ),
    **{
        f"prefs_{name}": ("trec_eval", _PREFERENCES)
        for name in (
            *("num_prefs_poss", "num_prefs_ful", "num_prefs_ful_ret", "simp", "pair", "avgjg"),
            *("avgjg_Rnonrel", "simp_ret", "pair_ret", "avgjg_ret", "avgjg_Rnonrel_ret"),
            *("simp_imp", "pair_imp", "avgjg_imp"),
        )
    },
    **{
        name: ("trec_eval", _JUDGMENT_GROUPS)
        for name in ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg")
    },
}

_PARAMETERS = re.compile(r"_[0-9.]+$")  # trec_eval's printed parameters: P_avgjg_5


def why_not_supported(name: str) -> str | None:
    """Why ``name`` (as ir_measures or trec_eval writes it, parameters included) is not
    supported, or None when it is not listed."""
    entry = NOT_SUPPORTED.get(name) or NOT_SUPPORTED.get(_PARAMETERS.sub("", name))
    if entry is None:
        return None
    tool, why = entry
    owner = f"{tool}'" if tool.endswith("s") else f"{tool}'s"
    return f"{owner} {_PARAMETERS.sub('', name)} is not supported: {why}"
