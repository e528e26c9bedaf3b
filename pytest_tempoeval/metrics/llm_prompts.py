"""The llm-mode prompts, word for word from the TempoEval metric pages (``shared/seeds``), and
T-Coverage's from TempoEval 0.1.0's ``TemporalCoverage`` (its pages have none).

They are part of each metric's definition (a "Prompt (LLM mode)" section of its page), so they live
with the metrics; any judge (:mod:`pytest_tempoeval.judge`, or a TempoEval provider given to the
drop-in classes) asks them. Changing a prompt changes every recorded judgment's request body, so
cassettes miss on purpose.
"""

import re

from pytest_tempoeval.errors import check_choice

GRADED_RELEVANCE_PROMPT = """## Task
Rate the temporal relevance of this document to the query on a scale of 0-4.

## Query
{query}

## Document
{document}

## Grading Scale (G-EVAL style)
- 4: Perfect - Contains exact temporal information needed to fully answer the query
- 3: Highly Relevant - Contains most temporal information, minor gaps
- 2: Partially Relevant - Contains some temporal context but incomplete
- 1: Marginally Relevant - Mentions related time periods but doesn't directly answer
- 0: Not Relevant - No useful temporal information for this query

## Output (JSON)
{{
    "relevance_score": 0 to 4,
    "reasoning": "brief explanation of temporal relevance"
}}
"""

BINARY_VERDICT_PROMPT = """Judge if a retrieved document helps answer the TEMPORAL aspects of a query.

Query: "{query}"
Temporal Focus: {temporal_focus}

Document:
{document}

Question: Does this document provide information that DIRECTLY helps answer the temporal aspects of the query?

Guidelines:
- Verdict = 1 if document contains temporal information (dates, durations, time periods, temporal sequences)
- Verdict = 0 if document lacks temporal information even if generally relevant
- For "when" queries: document must mention specific times/dates
- For "how long" queries: document must mention durations/time periods
- For "recent" queries: document must mention recency or recent dates
- Be STRICT: generic facts without temporal markers are NOT temporally relevant

Respond ONLY with valid JSON:
{{
    "temporal_expressions_found": ["list of temporal expressions found"],
    "relevance_to_query": "high|medium|low|none",
    "verdict": 1 or 0,
    "confidence": 0.0-1.0,
    "reason": "brief explanation"
}}
"""

# TempoEval's TemporalCoverage prompt (its TEMPORAL_EVIDENCE_PROMPT), word for word: T-Coverage
# reads covers_baseline and covers_comparison of the reply; the verdict is asked, as TempoEval
# asks it, and not read.
TEMPORAL_COVERAGE_PROMPT = """You are grading retrieved documents for a temporal trend/change query that needs cross-period evidence.

Query: "{query}"
Temporal Focus: {temporal_focus}

Baseline anchor period: {baseline_anchor}
Comparison/current anchor period: {comparison_anchor}

Document:
{document}

Decide:
1) verdict: 1 if the document DIRECTLY helps answer the temporal aspects of the query (contains relevant temporal info), else 0.
2) covers_baseline: true if the document contains evidence about the BASELINE anchor period.
3) covers_comparison: true if the document contains evidence about the COMPARISON/current anchor period.

Strictness rules:
- A random date not related to the anchors does NOT count.
- "Currently/as of 2023/recent years" can count for comparison coverage if relevant.
- Baseline coverage should connect to the baseline anchor period (e.g., around 2017).

Return ONLY valid JSON:
{{
  "verdict": 1 or 0,
  "reason": "brief explanation",
  "temporal_contribution": "what temporal information provided, or 'none'",
  "covers_baseline": true or false,
  "covers_comparison": true or false
}}
"""


# The longest document text a prompt carries; a longer one is cut, and the prompt says so. Far
# above a retrieved passage, and it bounds what one judgment can cost.
MAX_DOCUMENT_CHARS = 20_000
PROMPT_STYLES = ("seed", "delimited")


def graded_prompt(query: str, document: str, style: str = "seed") -> str:
    query, document = _prepared(query, document, style)
    return GRADED_RELEVANCE_PROMPT.format(query=query, document=document)


def verdict_prompt(
    query: str, document: str, temporal_focus: str | None, style: str = "seed"
) -> str:
    query, document = _prepared(query, document, style)
    return BINARY_VERDICT_PROMPT.format(
        query=query, document=document, temporal_focus=temporal_focus or "specific_time"
    )


# TempoEval's TemporalCoverage default: its prompt names the query's focus as a change over time.
CROSS_PERIOD_FOCUS = "change_over_time"


def coverage_prompt(
    query: str,
    document: str,
    temporal_focus: str | None,
    baseline: str,
    comparison: str,
    style: str = "seed",
) -> str:
    """The T-Coverage prompt: whether ``document`` holds evidence about the ``baseline`` and the
    ``comparison`` period (as :class:`~pytest_tempoeval.data.focus_time.FocusTime` writes them,
    ``"1990-1999"``) of a cross-period query."""
    query, document = _prepared(query, document, style)
    return TEMPORAL_COVERAGE_PROMPT.format(
        query=query,
        temporal_focus=temporal_focus or CROSS_PERIOD_FOCUS,
        baseline_anchor=baseline,
        comparison_anchor=comparison,
        document=document,
    )


def _prepared(query: str, document: str, style: str) -> tuple[str, str]:
    """The texts as the prompt carries them: the document cut at MAX_DOCUMENT_CHARS, and with
    ``style="delimited"`` both fenced, so that a heading or a quote inside them is text, not part
    of the prompt's structure. ``"seed"`` (the default) is the metric pages' prompt, word for word.
    """
    check_choice("prompt style", style, PROMPT_STYLES)  # ValueError
    if len(document) > MAX_DOCUMENT_CHARS:
        document = (
            document[:MAX_DOCUMENT_CHARS]
            + f"\n[document truncated: the first {MAX_DOCUMENT_CHARS:,} of {len(document):,} "
            "characters]"
        )
    if style == "delimited":
        query, document = _fenced(query), _fenced(document)
    return query, document


def _fenced(text: str) -> str:
    """``text`` in a fenced block whose fence is longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"
