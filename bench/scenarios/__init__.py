"""The benchmark scenarios: one module each, run by ``python -m bench.harness run NAME``."""
