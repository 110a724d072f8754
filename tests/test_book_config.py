"""The book's settings live in one place: the repository named in ``_config.yml`` is the one the
chapters' Colab cells and the teachers' guide install from."""

from __future__ import annotations

import json
import re
import subprocess

import yaml

from conftest import REPO, import_atlas_book

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


def test_the_viewer_pages_are_written_by_the_build_one_per_chapter_as_they_read() -> None:
    """No viewer page is kept by hand: the build writes each from its folder, the same text the pages
    had when they were hand-written (title, what the rows are, the datasets shown)."""
    atlas_book = import_atlas_book()
    assert not subprocess.run(["git", "ls-files", "book/viewer"], capture_output=True, text=True, cwd=REPO,
                              check=True).stdout.strip(), "a viewer page kept in git"
    _, pages = atlas_book.dataset_pages(yaml.safe_load((REPO / "_toc.yml").read_text(encoding="utf-8")), REPO)
    assert list(pages) == [f"book/viewer/{name}.md" for name in ("wow", "faithdial", "wise", "jwhr", "begin")]
    assert "# Wizard of Wikipedia: the data viewer" in pages["book/viewer/wow.md"]
    assert 'data-datasets="wow wow_kilt"' in pages["book/viewer/wow.md"]
    assert 'data-datasets="faithdial faithdial_audit"' in pages["book/viewer/faithdial.md"]
    assert "# WISE: the data viewer" in pages["book/viewer/wise.md"]
