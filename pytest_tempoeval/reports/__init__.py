"""The session's reports: terminal and markdown tables, JSON, HTML and JUnit properties. They read
:class:`~pytest_tempoeval.session.CheckRow` rows only, so they work the same on xdist's
controller."""
