"""The llm-mode prompts, word for word from the TempoEval metric pages (``shared/seeds``).

They are part of each metric's definition (a "Prompt (LLM mode)" section of its page), so they live
with the metrics; any judge (:mod:`pytest_tempoeval.judge`, or a TempoEval provider given to the
drop-in classes) asks them. Changing a prompt changes every recorded judgment's request body, so
cassettes miss on purpose.
"""

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


def graded_prompt(query: str, document: str) -> str:
    return GRADED_RELEVANCE_PROMPT.format(query=query, document=document)


def verdict_prompt(query: str, document: str, temporal_focus: str | None) -> str:
    return BINARY_VERDICT_PROMPT.format(
        query=query, document=document, temporal_focus=temporal_focus or "specific_time"
    )
