"""Plain loops over one ranking for the measures only trec_eval 10 (not pytrec_eval) or gdeval
compute: the independent reference the vectorised kernels are checked against to 1e-12, written
from the measures' definitions in trec_eval's m_*.c files and gdeval.pl, one document at a time.

A ranking is a list of grades in trec_eval's order: the grade (>= 0), -1 for a document the qrels
lack, -2 for one the qrels grade negative. ``judged`` is the list of the query's grades >= 0.
"""

from __future__ import annotations

import math
from pathlib import Path

NOT_IN_QRELS, POOLED = -1, -2


def rbp(ranking: list[int], judged: list[int], p: float, rel: int | None) -> float:
    """trec_eval's rbp (graded: a grade over the query's top grade when that is above 1) or, with
    rel, ir_measures' RBP(rel=...): 1 for a grade >= rel."""
    top = max(judged, default=0)
    total, weight = 0.0, 1.0
    for grade in ranking:
        if rel is not None:
            gain = 1.0 if grade >= rel else 0.0
        else:
            gain = max(grade, 0) / max(top, 1)
        total += gain * weight
        weight *= p
    return (1 - p) * total


def rbp_resid(ranking: list[int], p: float) -> float:
    total, weight, unjudged = 0.0, 1.0, 0
    for grade in ranking:
        if grade < 0:
            unjudged += 1
            total += weight
        weight *= p
    return weight + (1 - p) * total if unjudged else 0.0


def unj(ranking: list[int], k: int) -> float:
    return sum(grade < 0 for grade in ranking[:k]) / k


def err(ranking: list[int], k: int) -> float:
    """gdeval's ERR@k: the stopping chance of grade g is (2^g - 1) / 2^4."""
    total, still_looking = 0.0, 1.0
    for rank, grade in enumerate(ranking[:k], start=1):
        stop = (2 ** max(grade, 0) - 1) / 16
        total += stop * still_looking / rank
        still_looking *= 1 - stop
    return total


def inf_ap(ranking: list[int], n_relevant: int, rel: int) -> float:
    relevant = nonrelevant = pooled = 0
    total = 0.0
    for j, grade in enumerate(ranking):
        if grade == NOT_IN_QRELS:
            continue
        if grade == POOLED:
            pooled += 1
        elif grade < rel:
            nonrelevant += 1
        else:
            if j == 0:
                total += 1.0
            else:
                above = relevant + nonrelevant + pooled
                total += 1 / (j + 1) + j / (j + 1) * (above / j) * (
                    (relevant + 1e-5) / (relevant + nonrelevant + 2e-5)
                )
            relevant += 1
    return total / n_relevant if n_relevant else 0.0


def dcg(ranking: list[int]) -> float:
    """trec_eval's dcg (m_ndcg.c) at its default gains: grade level g gains g; -1 and -2 match no
    level and gain 0."""
    total = 0.0
    for i, grade in enumerate(ranking):
        gain = float(grade) if grade > 0 else 0.0
        if gain != 0:
            total += gain / math.log2(i + 2)
    return total


def ideal_dcg(judged: list[int], k: int | None = None) -> float:
    """trec_eval's ideal_dcg (m_ndcg.c): walk the grade levels from the highest gain down, each as
    many ranks as the level has judged documents, until the gain is 0; ``k``: the first k ranks
    only (IDCG@k)."""
    at_level = {grade: judged.count(grade) for grade in set(judged) if grade >= 0}
    total, rank = 0.0, 0
    for grade in sorted(at_level, reverse=True):
        if grade <= 0:
            break
        for _ in range(at_level[grade]):
            if k is not None and rank >= k:
                return total
            total += grade / math.log2(rank + 2)
            rank += 1
    return total


def yaap(ranking: list[int], n_relevant: int, rel: int) -> float:
    """trec_eval's yaap (m_yaap.c): log((1 + sum) / (1 + num_rel - sum)), sum adding rel_so_far /
    rank at each relevant document."""
    found, total = 0, 0.0
    for i, grade in enumerate(ranking):
        if grade >= rel:
            found += 1
            total += found / (i + 1)
    return math.log((1.0 + total) / (1.0 + n_relevant - total))


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    for line in path.read_text().splitlines():
        query, _, doc, grade = line.split()
        qrels.setdefault(query, {})[doc] = int(grade)
    return qrels


def ranked_grades(run: Path, qrels: dict[str, dict[str, int]]) -> dict[str, list[int]]:
    """Each run query's grades in trec_eval's order: score descending, doc id descending."""
    scored: dict[str, list[tuple[float, str]]] = {}
    for line in run.read_text().splitlines():
        query, _, doc, _, score, _ = line.split()
        scored.setdefault(query, []).append((float(score), doc))
    rankings = {}
    for query, docs in scored.items():
        ordered = sorted(docs, reverse=True)  # score, then doc id, both descending
        judged = qrels.get(query, {})
        rankings[query] = [
            (judged[doc] if judged[doc] >= 0 else POOLED) if doc in judged else NOT_IN_QRELS
            for _, doc in ordered
        ]
    return rankings


def close(value: float, expected: float) -> bool:
    return math.isclose(value, expected, rel_tol=0, abs_tol=1e-12)
