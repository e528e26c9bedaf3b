"""The README and docs/ hold together: links resolve, the index lists every page, and the options
table names every option and ini key the plugin adds, with its default."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_tempoeval import plugin

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted(
    [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md"]
    + list((ROOT / "docs").glob("*.md"))
)
FENCE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def prose(path: Path) -> str:
    """A page without its fenced blocks (a heading or a link inside one is an example)."""
    return FENCE.sub("", path.read_text(encoding="utf-8"))


def anchors(path: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces to
    hyphens, and a repeated heading numbered from -1."""
    seen: dict[str, int] = {}
    found = set()
    for heading in re.findall(r"^#+ (.+)$", prose(path), re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def relative_links(path: Path) -> list[str]:
    return [
        link
        for link in LINK.findall(prose(path))
        if not re.match(r"[a-z]+:", link)  # https:, mailto:
    ]


@pytest.mark.parametrize("path", PAGES, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_resolves_to_a_file_and_heading(path: Path) -> None:
    broken = []
    for link in relative_links(path):
        target, _, anchor = link.partition("#")
        file = (path.parent / target).resolve() if target else path
        if not file.exists():
            broken.append(f"{link}: no file {file}")
        elif anchor and (file.suffix != ".md" or anchor not in anchors(file)):
            broken.append(f"{link}: no heading #{anchor} in {file.name}")
    assert not broken, f"{path.name}: " + "; ".join(broken)


def test_the_link_check_sees_a_broken_file_and_a_broken_anchor(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# A `title`: here\n\n[ok](#a-title-here) [gone](missing.md) [bad](#nowhere)\n"
        "```\n[in a fence](ignored.md)\n```\n",
        encoding="utf-8",
    )
    assert relative_links(page) == ["#a-title-here", "missing.md", "#nowhere"]
    assert anchors(page) == {"a-title-here"}


def test_the_index_lists_every_docs_page() -> None:
    index = ROOT / "docs" / "index.md"
    listed = {link.partition("#")[0] for link in relative_links(index)}
    pages = {path.name for path in (ROOT / "docs").glob("*.md")} - {"index.md"}
    assert pages <= listed, f"docs/index.md does not list {sorted(pages - listed)}"


def test_every_test_file_the_docs_name_exists() -> None:
    named = {
        name
        for path in PAGES
        for name in re.findall(r"\btests/[\w/]+\.py\b", path.read_text(encoding="utf-8"))
    }
    missing = sorted(name for name in named if not (ROOT / name).exists())
    assert missing == ["tests/test_x.py"]  # the example test of a re-baseline command


class RecordingParser:
    """Stands in for pytest's parser: records each option and ini key with its default."""

    def __init__(self) -> None:
        self.defaults: dict[str, object] = {}

    def getgroup(self, *args: object, **kwargs: object) -> RecordingParser:
        return self

    def addoption(self, *names: str, **kwargs: object) -> None:
        for name in names:
            self.defaults[name] = kwargs.get("default")

    def addini(self, name: str, *args: object, **kwargs: object) -> None:
        self.defaults[name] = kwargs.get("default")


def options_table() -> dict[str, str]:
    """The README's options table: each name (without ``=VALUE``) -> its default cell."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## Options\n", 1)[1]
    rows = re.findall(r"^\| `([^`]+)` \| ([^|]+) \|", section.split("\n## ", 1)[0], re.MULTILINE)
    return {name.split("=", 1)[0]: default.strip() for name, default in rows}


def test_the_options_table_has_every_option_and_ini_key_with_its_default() -> None:
    registered = RecordingParser()
    plugin.pytest_addoption(registered)  # type: ignore[arg-type]
    table = options_table()
    assert sorted(table) == sorted(registered.defaults)
    for name, default in registered.defaults.items():
        if default not in (None, "", []):
            shown = str(default).lower() if isinstance(default, bool) else str(default)
            assert table[name] == f"`{shown}`", name
