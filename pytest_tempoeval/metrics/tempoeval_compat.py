"""Drop-in replacements for TempoEval's ``TemporalNDCG`` and ``TemporalPrecision``.

They take exactly the seed inputs (``qft``/``dfts``, ``retrieved_ids``/``gold_ids``,
``query``/``retrieved_docs``/``temporal_focus``, ``k``), so every example of the TempoEval pages
runs with only its import changed. Differences from TempoEval's code, all deliberate:

- nDCG uses linear gain by default (the documented formula); ``gain="exponential"`` gives
  TempoEval's.
- With ``qft``/``dfts`` the ideal ranking is over all ``dfts`` given, not only the top k retrieved.
- Precision divides by k (the documented formula), also in LLM mode (TempoEval's code weights by
  rank).
- A judge failure raises :class:`JudgeError`; it is never scored 0. Results are never rounded.
- A query with nothing relevant (IDCG 0) or no focus time gives a NaN :class:`MetricResult` whose
  comparisons raise with the reason, instead of a silent 0.0.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from pytest_tempoeval.data.focus_time import FocusTime
from pytest_tempoeval.data.values import check_k
from pytest_tempoeval.errors import MetricError, check_choice
from pytest_tempoeval.metrics import kernels
from pytest_tempoeval.metrics.focus_index import GRADE_SCALE
from pytest_tempoeval.metrics.llm_judgments import ask_strictly, read_grade, read_verdict
from pytest_tempoeval.metrics.llm_prompts import graded_prompt, verdict_prompt
from pytest_tempoeval.metrics.results import MetricResult
from pytest_tempoeval.metrics.specs import GAINS

_QUERY = "q"  # the one query a seed-style call is about


class _SeedMetric:
    name = "metric"

    def __init__(
        self, use_focus_time: bool = False, use_llm: bool = False, llm: Any = None
    ) -> None:
        self.use_focus_time = use_focus_time
        self.use_llm = use_llm
        self.llm = llm

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(use_focus_time={self.use_focus_time}, use_llm={self.use_llm})"
        )

    def compute(self, **inputs: Any) -> MetricResult:
        """Synchronous ``compute``. Inside a running event loop, use ``await acompute(...)``."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.acompute(**inputs))
        raise MetricError(
            f"{type(self).__name__}.compute() was called inside an event loop; "
            "use await .acompute(...)"
        )

    async def acompute(self, **inputs: Any) -> MetricResult:
        raise NotImplementedError

    def _llm_or_error(self) -> Any:
        if self.llm is None:
            raise MetricError(
                f"{type(self).__name__} in LLM mode needs a judge: set metric.llm = judge"
            )
        return self.llm


class TemporalNDCG(_SeedMetric):
    """Temporal nDCG@k for one query (focus time, gold or LLM mode)."""

    name = "temporal_ndcg"

    def __init__(
        self,
        use_focus_time: bool = False,
        use_llm: bool = False,
        gain: str = "linear",
        llm: Any = None,
    ) -> None:
        super().__init__(use_focus_time, use_llm, llm)
        self.gain = check_choice("gain", gain, GAINS, MetricError)

    async def acompute(
        self,
        retrieved_ids: Sequence[str] | None = None,
        gold_ids: Sequence[str] | Mapping[str, float] | None = None,
        retrieved_docs: Sequence[str] | None = None,
        query: str | None = None,
        qft: Iterable[int] | FocusTime | None = None,
        dfts: Sequence[Iterable[int] | FocusTime] | None = None,
        k: int = 10,
        **_: Any,
    ) -> MetricResult:
        k = check_k(k)
        if self.use_focus_time:
            query_time, doc_times = _focus_inputs(qft, dfts)
            if not query_time:
                return _single(self.name, k, "focus_time", None, "no focus time")
            relevance = [GRADE_SCALE * query_time.jaccard(dft) for dft in doc_times]
            return self._score(
                relevance[:k], relevance, k, "focus_time", "no document overlaps its focus time"
            )
        if self.use_llm:
            grades = await _judge_all(
                self._llm_or_error(), query, retrieved_docs, k, "graded", None
            )
            return self._score(
                grades, grades, k, "llm", "no retrieved document was judged relevant"
            )
        relevance, ideal = _gold_inputs(retrieved_ids, gold_ids)
        return self._score(relevance[:k], ideal, k, "gold", "no relevant document judged")

    def _score(
        self, relevance: Sequence[float], pool: Sequence[float], k: int, mode: str, reason: str
    ) -> MetricResult:
        ideal_values = sorted(pool, reverse=True)[:k]
        gains, ideal = kernels.gain_values(
            np.array([list(relevance) + [0.0] * (k - len(relevance))], dtype=np.float64),
            np.array([ideal_values + [0.0] * (k - len(ideal_values))], dtype=np.float64),
            self.gain,
        )
        scores, excluded = kernels.ndcg(gains, ideal, k)
        return _single(self.name, k, mode, None if excluded[0] else float(scores[0]), reason)


class TemporalPrecision(_SeedMetric):
    """Temporal Precision@k for one query (focus time or LLM mode)."""

    name = "temporal_precision"

    def __init__(
        self, use_focus_time: bool = False, relevance_threshold: float = 0.0, llm: Any = None
    ) -> None:
        super().__init__(use_focus_time, not use_focus_time, llm)
        if not 0.0 <= relevance_threshold < 1.0:
            raise MetricError(
                "relevance_threshold is a Jaccard similarity in [0, 1), "
                f"got {relevance_threshold!r}"
            )
        self.relevance_threshold = relevance_threshold

    async def acompute(
        self,
        query: str | None = None,
        retrieved_docs: Sequence[str] | None = None,
        temporal_focus: str = "specific_time",
        qft: Iterable[int] | FocusTime | None = None,
        dfts: Sequence[Iterable[int] | FocusTime] | None = None,
        k: int = 10,
        **_: Any,
    ) -> MetricResult:
        k = check_k(k)
        if self.use_focus_time:
            query_time, doc_times = _focus_inputs(qft, dfts)
            if not query_time:
                return _single(self.name, k, "focus_time", None, "no focus time")
            threshold = self.relevance_threshold
            hits = [
                (query_time.jaccard(dft) > threshold) if threshold > 0 else query_time.overlaps(dft)
                for dft in doc_times[:k]
            ]
            return _single(self.name, k, "focus_time", sum(hits) / k, "")
        verdicts = await _judge_all(
            self._llm_or_error(), query, retrieved_docs, k, "verdict", temporal_focus
        )
        return _single(self.name, k, "llm", sum(verdicts) / k, "")


# -- helpers ---------------------------------------------------------------------------------------


def _single(name: str, k: int, mode: str, score: float | None, reason: str) -> MetricResult:
    if score is None:
        return MetricResult(name=name, k=k, mode=mode, per_query={}, excluded={_QUERY: reason})
    return MetricResult(name=name, k=k, mode=mode, per_query={_QUERY: score})


def _focus_inputs(qft: Any, dfts: Any) -> tuple[FocusTime, list[FocusTime]]:
    if qft is None or dfts is None:
        raise MetricError(
            "focus-time mode needs qft= (the query's years) and dfts= (each document's years)"
        )
    return _focus_time(qft), [_focus_time(dft) for dft in dfts]


def _focus_time(value: Any) -> FocusTime:
    """A focus time as TempoEval's classes take one: ours, a list of years, or TempoEval's own
    ``FocusTime`` (what its ``FocusTime.from_years`` and ``extract_qft`` return: a ``years`` set;
    its optional weights do not enter the set-based metrics)."""
    years = getattr(value, "years", None)
    if not isinstance(value, FocusTime) and isinstance(years, (set, frozenset, list, tuple)):
        return FocusTime.parse(sorted(years))
    return FocusTime.parse(value)


def _gold_inputs(retrieved_ids: Any, gold_ids: Any) -> tuple[list[float], list[float]]:
    if retrieved_ids is None or gold_ids is None:
        raise MetricError(
            "gold mode needs retrieved_ids= and gold_ids= (a list, or a mapping id -> grade)"
        )
    grades: dict[str, float]
    if isinstance(gold_ids, Mapping):
        grades = {}
        for doc, grade in gold_ids.items():
            if isinstance(grade, bool) or not isinstance(grade, (int, float)) or not grade >= 0:
                raise MetricError(
                    f"grade {grade!r} of gold doc {doc!r} is not a non-negative number"
                )
            grades[str(doc)] = float(grade)
    else:
        grades = {str(doc): 1.0 for doc in gold_ids}
    # TempoEval reads each position on its own, so an id may repeat (its docs' example lists
    # "irrelevant" nine times); Run and the TREC readers refuse repeats, as trec_eval does.
    retrieved = [str(doc) for doc in retrieved_ids]
    return [grades.get(doc, 0.0) for doc in retrieved], list(grades.values())


async def _judge_all(
    llm: Any,
    query: str | None,
    docs: Sequence[str] | None,
    k: int,
    kind: str,
    temporal_focus: str | None,
) -> list[int]:
    """Judge the top k documents concurrently; any invalid answer raises (after one retry)."""
    if not query or docs is None:
        raise MetricError("LLM mode needs query= and retrieved_docs=")
    read = read_grade if kind == "graded" else read_verdict

    async def judge(rank: int, document: str) -> int:
        prompt = (
            graded_prompt(query, document)
            if kind == "graded"
            else verdict_prompt(query, document, temporal_focus)
        )
        return await ask_strictly(
            lambda: _ask(llm, prompt), read, f"judging document at rank {rank} for {query!r}"
        )

    return list(
        await asyncio.gather(*(judge(rank, doc) for rank, doc in enumerate(docs[:k], start=1)))
    )


async def _ask(llm: Any, prompt: str) -> Any:
    """Ask any judge with TempoEval's provider interface (``agenerate``/``generate``, or their
    ``_json`` forms)."""
    for method in ("agenerate", "agenerate_json", "generate", "generate_json"):
        function = getattr(llm, method, None)
        if function is not None:
            reply = function(prompt)
            return await reply if inspect.isawaitable(reply) else reply
    raise MetricError(
        f"the llm {llm!r} has none of agenerate/agenerate_json/generate/generate_json"
    )
