"""Ten trivial tests that never use pytest-tempoeval; the inert scenario copies this file as
``test_gen_NNN.py``. With ``BENCH_MODULES_FILE`` set (the warm-up pair) the first test writes
``sorted(sys.modules)`` there."""

import os
import sys


def test_0_modules():
    path = os.environ.get("BENCH_MODULES_FILE")
    if path:
        with open(path, "w", encoding="utf-8") as out:
            out.write("\n".join(sorted(sys.modules)) + "\n")


def test_1():
    assert 1 + 1 == 2


def test_2():
    assert 2 + 1 == 3


def test_3():
    assert 3 + 1 == 4


def test_4():
    assert 4 + 1 == 5


def test_5():
    assert 5 + 1 == 6


def test_6():
    assert 6 + 1 == 7


def test_7():
    assert 7 + 1 == 8


def test_8():
    assert 8 + 1 == 9


def test_9():
    assert 9 + 1 == 10
