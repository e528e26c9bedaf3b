"""Layer 4, the LLM judge: Claude through the ``anthropic`` SDK, its cassettes, and the loopback
fake Messages API the tests record against. It asks the prompts the metrics define
(:mod:`pytest_tempoeval.metrics.llm_prompts`) and reads replies as they do
(:mod:`pytest_tempoeval.metrics.llm_judgments`).
"""
