"""``python -m pytest_tempoeval``: the ``tempoeval`` command."""

from pytest_tempoeval.cli import main

raise SystemExit(main())
