"""No tracked file holds an API key or account headers (cassettes above all)."""

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Built from parts so that this file does not match itself.
SECRET_VALUES = [  # anywhere in the repository
    re.compile("sk-" + r"ant-[A-Za-z0-9_\-]{10,}"),
    re.compile(r"\bBearer\s+[A-Za-z0-9_\-]{10,}"),
]
CASSETTE_HEADERS = [  # in cassettes, even the header names must be gone
    re.compile(r"\b" + "x-api" + r"-key\b", re.IGNORECASE),
    re.compile(r"\b" + "authori" + r"zation\b", re.IGNORECASE),
    re.compile("anthropic-" + "organization-id", re.IGNORECASE),
    re.compile(r"\brequest-id\b", re.IGNORECASE),
    re.compile(r"\bset-cookie\b", re.IGNORECASE),
]
ALLOWED = {"tests/test_no_secrets.py"}


def tracked_files() -> list[str]:
    try:
        listing = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: nothing to scan")
    return [name for name in listing.stdout.splitlines() if name not in ALLOWED]


def test_no_tracked_file_holds_a_key_or_account_header() -> None:
    found = []
    for name in tracked_files():
        path = ROOT / name
        if not path.is_file() or path.stat().st_size > 5_000_000:
            continue
        text = path.read_text(encoding="utf-8", errors="ignore")
        patterns = SECRET_VALUES + (CASSETTE_HEADERS if name.startswith("fixtures/cassettes/") else [])
        for pattern in patterns:
            for match in pattern.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{name}:{line}: {match.group(0)[:40]}")
    assert found == []


def test_cassettes_are_scanned() -> None:
    assert any(name.startswith("fixtures/cassettes/") for name in tracked_files())
