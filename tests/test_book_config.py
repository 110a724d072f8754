"""The book's settings live in one place: the repository named in ``_config.yml`` is the one the
chapters' Colab cells and the teachers' guide install from."""

from __future__ import annotations

import json
import re

import yaml

from conftest import REPO

CONFIG = yaml.safe_load((REPO / "_config.yml").read_text(encoding="utf-8"))
GITHUB = re.compile(r"https://github\.com/[\w.-]+/[\w.-]+")


def _chapter_sources() -> dict[str, str]:
    sources = {}
    for path in sorted((REPO / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        sources[path.name] = "\n".join("".join(cell["source"]) for cell in cells)
    return sources


def test_colab_cells_and_the_guide_install_the_configured_repository() -> None:
    repository = CONFIG["repository"]["url"]
    texts = {**_chapter_sources(), "book/teaching.md": (REPO / "book" / "teaching.md").read_text(encoding="utf-8")}
    for name, text in texts.items():
        urls = set(GITHUB.findall(text))
        assert repository in urls or "google.colab" not in text, f"{name} does not install {repository}"
        others = {url for url in urls if url.startswith("https://github.com/grounded-dialogue-atlas")} - {repository}
        assert not others, f"{name} names another atlas repository: {others}"
    assert all("google.colab" in text for text in _chapter_sources().values()), "every chapter runs on Colab"


def test_launch_buttons_are_configured() -> None:
    buttons = CONFIG["launch_buttons"]
    assert buttons["binderhub_url"] == "https://mybinder.org"
    assert buttons["colab_url"] == "https://colab.research.google.com"
