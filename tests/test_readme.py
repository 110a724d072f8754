"""The README's first look: what the atlas is and where to read it, then the two commands, then the caveats.

The addresses (the published site, its screenshot, Binder and Colab) are derived from ``_config.yml``'s
``repository`` by ``atlas_book.published_links``, the one place they are made; the README must name those.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
CONFIG = yaml.safe_load((REPO / "_config.yml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def links() -> dict[str, str]:
    sys.path.insert(0, str(REPO / "book" / "_ext"))
    try:
        import atlas_book
    finally:
        sys.path.remove(str(REPO / "book" / "_ext"))
    return atlas_book.published_links(CONFIG)


def _blocks(text: str) -> list[str]:
    """The README's paragraphs and fenced blocks, in order, without the title."""
    body = text.split("\n", 1)[1]
    return [block.strip() for block in re.split(r"\n\s*\n", body) if block.strip()]


def test_first_paragraph_says_what_the_atlas_is_and_links_the_site(links: dict[str, str]) -> None:
    first = _blocks(README)[0]
    assert first.startswith("The Grounded Dialogue Atlas is a "), first[:80]
    assert "dialogue datasets" in first and "Jupyter Book" in first
    assert links["site"] in first, f"the first paragraph does not link the site, {links['site']}"
    assert links["site"].startswith("https://") and "github.io" in links["site"]


def test_the_two_commands_come_first_then_badges_picture_and_caveats(links: dict[str, str]) -> None:
    blocks = _blocks(README)
    commands = blocks[1]
    assert commands.startswith("```bash\n"), "the block after the first paragraph is not the commands"
    lines = [line.split("#")[0].strip() for line in commands.splitlines()[1:-1]]
    assert lines[:2] == ["make book", "make test"]
    head = README.split("\n## ", 1)[0]
    for name in ("binder", "colab"):
        if name in links:  # a badge for each launch service _config.yml names
            assert f"]({links[name]})" in head, f"no {name} badge linking {links[name]}"
    assert f"]({links['screenshot']})" in head, "the README does not show the build's screenshot"
    # the caveats sit under a heading of their own, right after the first look
    assert README.split("\n## ", 2)[1].startswith("Before you build\n")


def test_the_screenshot_is_written_by_the_site_test(links: dict[str, str]) -> None:
    """The picture the README shows is the one tests/test_site.py takes of the built site (and the publishing
    workflow deploys the site it checked)."""
    import test_site

    assert links["screenshot"].endswith("/" + test_site.README_SCREENSHOT)
    workflow = (REPO / ".github" / "workflows" / "publish.yml").read_text(encoding="utf-8")
    assert "artifact_name: github-pages-checked" in workflow and "name: github-pages-checked" in workflow


def _shell_block() -> str:
    section = README.split("\n## From the shell\n", 1)[1]
    return section.split("```bash\n", 1)[1].split("```", 1)[0]


def test_the_shell_block_lists_every_command() -> None:
    from utils.cli import build_parser

    listed = {line.split()[1] for line in _shell_block().splitlines() if line.startswith("atlas ")}
    commands = set(_subcommands(build_parser()))
    assert commands <= listed, f"commands the README's shell block does not show: {commands - listed}"


def _subcommands(parser: Any) -> list[str]:
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices)
    return []


def test_the_search_example_finds_a_dialogue_on_the_demo_sample(tmp_path: Path) -> None:
    line = next(line for line in _shell_block().splitlines() if "--search" in line)
    arguments = line.split("#")[0].split()[1:]
    env = {**os.environ, "ATLAS_OFFLINE": "1", "ATLAS_DATA_DIR": str(tmp_path / "data"),
           "ATLAS_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(REPO)}
    (tmp_path / "data").mkdir()
    done = subprocess.run([sys.executable, "-m", "utils", *arguments], env=env, capture_output=True, text=True,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    found = re.search(r"(\d+) of (\d+) dialogues match", done.stdout)
    assert found is not None, done.stdout[-500:]
    assert int(found.group(1)) > 0, f"the README's example {line.strip()!r} finds nothing on the demo sample"


def test_a_repository_that_is_not_on_github_is_refused_by_name(links: dict[str, str]) -> None:
    import atlas_book  # imported by the fixture

    with pytest.raises(ValueError, match=r"_config.yml: repository.url 'https://example.org/x'"):
        atlas_book.published_links({"repository": {"url": "https://example.org/x"}})
