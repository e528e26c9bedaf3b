"""Test-suite setup.

pytester's in-process runs unload every module first imported during the inner run. numpy refuses
to load twice in one process, and PyYAML's C parser keeps references to the ``yaml.events`` classes
of its first import. Importing the package's modules here keeps them (and numpy, yaml) loaded for
the whole suite; a real pytest session never unloads them.
"""

import numpy  # noqa: F401
import yaml  # noqa: F401

import pytest_tempoeval.assertion
import pytest_tempoeval.baselines
import pytest_tempoeval.gold_file
import pytest_tempoeval.metrics
import pytest_tempoeval.report
import pytest_tempoeval.trec_qrels
import pytest_tempoeval.trec_run  # noqa: F401
