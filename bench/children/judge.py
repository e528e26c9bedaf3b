"""The LLM judge: ``judge.py MODE N CASSETTE [BASE_URL CONCURRENCY]``, grading
``bench.data.judge_items(N)``.

MODE ``replay``: what the ``tempoeval_judge`` fixture does in record mode ``none`` (the cassette
read into a request-body index; no SDK, no HTTP, no vcrpy). ``miss``: the same with no cassette
file (``JudgeCassetteError`` expected). ``stock``: stock vcrpy's ``use_cassette`` around a judge
without a cassette. ``record``: record mode ``all`` against BASE_URL (``-``: a fake server in this
process) at max_concurrency CONCURRENCY, then save. Reports phase times, the judge's counts and a
digest of the judgments."""

import contextlib
import hashlib
import sys
import time

import _report

from bench.data import judge_items
from pytest_tempoeval.errors import JudgeCassetteError
from pytest_tempoeval.judge.anthropic_judge import AnthropicJudge
from pytest_tempoeval.judge.cassettes import JudgeCassette

MATCH_ON = ["method", "scheme", "host", "port", "path", "query", "body"]
mode, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
if mode in ("record", "stock"):  # the judge would import it at its first request; replay never
    import anthropic  # noqa: F401
phases = _report.Phases()
phases("import")
items = judge_items(n)
server, cassette, stock = None, None, contextlib.nullcontext()
if mode == "record":
    base_url, concurrency = sys.argv[4], int(sys.argv[5])
    if base_url == "-":
        from pytest_tempoeval.testing import FakeMessagesServer

        server = FakeMessagesServer().start()
        base_url = server.base_url
    cassette = JudgeCassette(path, "all", "bench")
    judge = AnthropicJudge(
        api_key="dummy", base_url=base_url, max_concurrency=concurrency, cassette=cassette
    )
elif mode in ("replay", "miss"):
    cassette = JudgeCassette(path, "none", "bench")
    judge = AnthropicJudge(cassette=cassette)
else:
    import vcr

    judge = AnthropicJudge(max_concurrency=16, api_key="replay-only", max_retries=0)
    stock = vcr.use_cassette(path, record_mode="none", match_on=MATCH_ON)
phases("setup")
block = time.perf_counter()
error = None
with stock:
    try:
        judgments = judge.grade_all(items)
    except JudgeCassetteError as miss:
        judgments, error = [], str(miss)
phases("grade_all")
if cassette is not None:
    cassette.save()  # as the fixture does at the end; writes only what was recorded
phases("save")
if server is not None:
    server.stop()
text = "\n".join(f"{j.query_id} {j.doc_id} {j.value}" for j in judgments)
_report.emit(
    phases=phases,
    block=time.perf_counter() - block,
    count=len(judgments),
    digest=hashlib.sha256(text.encode()).hexdigest(),
    answered=judge.stats.judgments,
    cache_hits=judge.stats.cache_hits,
    error=error,
)
