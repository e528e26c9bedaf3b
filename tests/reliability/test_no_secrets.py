"""No tracked file holds an API key or account headers (cassettes above all)."""

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Built from parts so that this file does not match itself.
SECRET_VALUES = [  # anywhere in the repository
    re.compile("sk-" + r"ant-[A-Za-z0-9_\-]{10,}"),
    re.compile(r"\bBearer\s+[A-Za-z0-9_\-]{10,}"),
    # A header written with its value (a log pasted into a fixture, a hand-made cassette).
    re.compile("x-api" + r"-key[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9_\-]{20,}", re.IGNORECASE),
    re.compile(
        "anthropic-" + r"organization-id[\"']?\s*[:=]\s*[\"'\[\s-]*[0-9a-f]{8}-[0-9a-f]{4}",
        re.IGNORECASE,
    ),
]
CASSETTE_HEADERS = [  # in cassettes, even the header names must be gone
    re.compile(r"\b" + "x-api" + r"-key\b", re.IGNORECASE),
    re.compile(r"\b" + "authori" + r"zation\b", re.IGNORECASE),
    re.compile("anthropic-" + "organization-id", re.IGNORECASE),
    re.compile(r"\brequest-id\b", re.IGNORECASE),
    re.compile(r"\bset-cookie\b", re.IGNORECASE),
]
ALLOWED = {"tests/reliability/test_no_secrets.py"}


def tracked_files() -> list[str]:
    try:
        listing = subprocess.run(
            ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
        )
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
        patterns = SECRET_VALUES + (
            CASSETTE_HEADERS if name.startswith("fixtures/cassettes/") else []
        )
        for pattern in patterns:
            for match in pattern.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{name}:{line}: {match.group(0)[:40]}")
    assert found == []


def test_cassettes_are_scanned() -> None:
    assert any(name.startswith("fixtures/cassettes/") for name in tracked_files())


@pytest.mark.parametrize(
    "leak",
    [
        "sk-" + "ant-api03-" + "Q" * 40,
        "Authorization: Bearer " + "tok" * 8,
        '"x-api' + '-key": "' + "k" * 24 + '"',
        "anthropic-" + "organization-id:\n      - " + "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b",
    ],
)
def test_the_scan_finds_each_kind_of_leak(leak: str) -> None:
    """The patterns above really match what they are for (built at run time, so no file holds
    one)."""
    assert any(pattern.search(leak) for pattern in SECRET_VALUES)


@pytest.mark.parametrize(
    ("text", "hidden"),
    [
        # assembled here: no tracked file may hold anything that looks like a real key
        (
            "Error code: 401 - {'error': 'bad key " + "sk-ant-" + "api03-abcDEF_123-xyz'}",
            "abcDEF_123",
        ),
        ("Authorization: Bearer abc.def-123", "abc.def-123"),
        ("x-api-key: s3cret-value", "s3cret-value"),
        ("POST http://gw.example/v1/messages?token=s3cret&x=1 failed", "s3cret"),
        ("{'api_key': 's3cret-value'}", "s3cret-value"),
    ],
)
def test_every_judge_error_passes_through_the_scrubber(text: str, hidden: str) -> None:
    from pytest_tempoeval import JudgeCassetteError, JudgeError, NoValidAnswer

    for error in (JudgeError, NoValidAnswer, JudgeCassetteError):
        assert hidden not in str(error(f"the judge failed: {text}"))
    from pytest_tempoeval.errors import scrub_secrets

    assert "<hidden>" in scrub_secrets(text)
    path = "the cassette fixtures/cassettes/t/test_x[a%20b].yaml does not exist"
    assert scrub_secrets(path) == path  # nothing else is touched


@pytest.mark.parametrize(
    ("text", "scrubbed"),
    [
        ("AnthropicJudge(api_key=s3cret)", "AnthropicJudge(api_key=<hidden>)"),
        ("Judge(api_key=s3cret, model='m')", "Judge(api_key=<hidden>, model='m')"),
        ("{'api_key': 's3cret'}", "{'api_key': '<hidden>'}"),
        ('{"x-api-key": "s3cret"}', '{"x-api-key": "<hidden>"}'),
        ("api_key=s3cret next", "api_key=<hidden> next"),
        ("token=s3cret;path=/", "token=<hidden>;path=/"),
        ("headers [x-api-key: s3cret]", "headers [x-api-key: <hidden>]"),
        ("x-api-key: s3cret\nnext line", "x-api-key: <hidden>\nnext line"),
        ("api_key=s3cret", "api_key=<hidden>"),
    ],
    ids=["paren", "comma", "single-quotes", "double-quotes", "space", "semicolon", "bracket",
         "newline", "end"],
)  # fmt: skip
def test_the_scrubber_hides_the_value_and_only_the_value(text: str, scrubbed: str) -> None:
    from pytest_tempoeval.errors import scrub_secrets

    assert scrub_secrets(text) == scrubbed


def test_the_api_key_hint_keeps_its_placeholder_and_parentheses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """It read 'AnthropicJudge(api_key=<hidden> to record': the scrubber ate '...))'."""
    from pytest_tempoeval import AnthropicJudge, JudgeError

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(JudgeError) as error:
        AnthropicJudge().grade_all([("q", "in 2020", "d", "in 2020")])
    assert str(error.value).endswith(
        ": the LLM judge needs ANTHROPIC_API_KEY (or AnthropicJudge(api_key=...)) to record "
        "judgments"
    )


GATEWAY_PATH = "/gw/acct-7731/tok_" + "live5f3a9c"  # a gateway's path holding an account and a key


def test_a_secret_in_the_base_url_path_never_reaches_the_terminal_or_the_junit_xml(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 404 that echoes the request path put the gateway's path, account and key into the error,
    the terminal and the JUnit XML; every error now shows the base URL as <base URL>."""
    from pytest_tempoeval.testing import FakeMessagesServer, Fault

    pytester.makefile(
        ".yaml",
        gold='version: 1\ndocuments:\n  d: {text: "The 2020 result."}\n'
        'queries:\n  - id: q\n    text: "What happened in 2020?"\n',
    )
    pytester.makepyfile(
        test_gateway="""
        import pytest
        from pytest_tempoeval import Run, temporal_ndcg

        @pytest.mark.tempoeval("gold.yaml")
        def test_judged(tempoeval_gold, tempoeval_judge):
            temporal_ndcg(Run({"q": ["d"]}), tempoeval_gold, k=1, mode="llm",
                          judge=tempoeval_judge)
        """
    )
    with FakeMessagesServer() as server:
        server.inject(*[Fault.not_found()] * 4)  # not retried by the SDK; spares for a retry
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        base_url = server.base_url
        monkeypatch.setenv("ANTHROPIC_BASE_URL", base_url + GATEWAY_PATH)
        result = pytester.runpytest_subprocess(
            "--tempoeval-record-mode=once", "--junitxml=junit.xml", "--tb=long", "-l", "-rA"
        )
    result.assert_outcomes(failed=1)
    terminal = result.stdout.str() + result.stderr.str()
    junit = (pytester.path / "junit.xml").read_text()
    assert "<base URL>/v1/messages" in terminal  # the 404's echo, scrubbed
    for text in (terminal, junit):
        for part in ("acct-7731", "live5f3a9c", "/gw/"):
            assert part not in text
        assert base_url not in text


def test_a_base_url_is_hidden_whole_and_its_path_as_a_whole() -> None:
    from pytest_tempoeval.errors import hide_base_url, scrub_secrets

    hide_base_url("http://gateway.test:8443/gw/acct-42/tok%2Fk/")
    assert scrub_secrets(
        "POST http://gateway.test:8443/gw/acct-42/tok%2Fk/v1/messages: 404 "
        "{'message': '/gw/acct-42/tok/k/v1/messages'} /gw/acct-42/tok%2Fkx"
    ) == ("POST <base URL>/v1/messages: 404 {'message': '<base URL>/v1/messages'} "
          "/gw/acct-42/tok%2Fkx")  # fmt: skip
