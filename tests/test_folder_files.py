"""What a dataset folder holds for the book (utils.folder_files): its citation, its section on getting
the files by hand and its CSS are in the folder, and the book finds them there. Names no dataset."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import REPO
from utils.book.render import stylesheet
from utils.errors import UnknownNameError
from utils.folder_files import (
    BY_HAND,
    CITATION,
    CSS,
    GENERAL_BIBLIOGRAPHY,
    bibliography_files,
    bibtex_entries,
    dataset_folders,
    folder_files,
)
from utils.sources import registry

CORE_CSS = REPO / "utils" / "book" / "render" / "atlas.css"


def test_each_dataset_s_citation_is_in_its_folder_and_the_general_file_holds_none() -> None:
    general = GENERAL_BIBLIOGRAPHY.read_text(encoding="utf-8")
    for source in registry().values():
        assert f"{{{source.citation_key}," in (source.folder / CITATION).read_text(encoding="utf-8"), source.name
        assert f"{{{source.citation_key}," not in general, f"{source.citation_key}: in book/references.bib"
    assert bibliography_files() == [GENERAL_BIBLIOGRAPHY, *(folder / CITATION for folder in dataset_folders())]


def test_an_entry_to_copy_is_quoted_from_its_file_with_the_year_as_published(tmp_path: Path) -> None:
    bib = tmp_path / CITATION
    bib.write_text("@misc{a,\n  title = {The {A} one},\n  year  = {2019b}\n}\n\n@book{b, year = \"2020\"}\n")
    assert bibtex_entries(["a"], [bib]) == "@misc{a,\n  title = {The {A} one},\n  year  = {2019}\n}\n"
    assert bibtex_entries(["b", "a"], [bib]).startswith('@book{b, year = "2020"}\n\n@misc{a,')
    with pytest.raises(UnknownNameError, match=r"unknown bibliography key 'c'; choose one of: a, b"):
        bibtex_entries(["c"], [bib])


def test_each_folder_s_by_hand_section_starts_with_its_label_and_the_data_page_includes_them() -> None:
    names = {source.folder: source.name for source in reversed(list(registry().values()))}  # a folder's first
    for path in folder_files(BY_HAND):
        assert path.read_text(encoding="utf-8").startswith(f"({'data-' + names[path.parent]})=\n### "), path
    page = (REPO / "book" / "data.md").read_text(encoding="utf-8")
    assert page.count("```{atlas-by-hand}\n```") == 1
    assert "```bibtex" not in page, "an entry to copy is quoted from a citation.bib: {atlas-bibtex} KEY"


def test_the_stylesheet_is_the_atlas_s_rules_then_each_folder_s() -> None:
    folders = "".join(
        f"\n/* {path.parent.name}/{CSS} */\n{path.read_text(encoding='utf-8')}" for path in folder_files(CSS)
    )
    assert folders, "no folder has a render.css: this test would hold nothing"
    assert stylesheet() == f"<style>{CORE_CSS.read_text(encoding='utf-8')}{folders}</style>"


def _mentions(paths: list[Path], name: str) -> bool:
    word = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")
    return any(word.search(path.read_text(encoding="utf-8")) for path in paths)


def test_a_class_that_one_folder_uses_alone_has_its_rules_in_that_folder() -> None:
    """atlas.css keeps the classes of the shared helpers and those several renderers use."""
    datasets = REPO / "utils" / "datasets"
    core = [path for path in (REPO / "utils").rglob("*.py") if datasets not in path.parents]
    folders = {folder: [p for p in folder.rglob("*.py") if "tests" not in p.parts] for folder in dataset_folders()}
    css = re.sub(r"/\*.*?\*/", "", CORE_CSS.read_text(encoding="utf-8"), flags=re.DOTALL)
    classes = sorted(set(re.findall(r"\.(atlas-[\w-]+)", css)))
    assert "atlas-dialogue" in classes
    alone = {}
    for name in classes:
        users = [folder.name for folder, paths in folders.items() if _mentions(paths, name)]
        if len(users) == 1 and not _mentions(core, name):
            alone[name] = users[0]
    assert not alone, f"move these rules from utils/book/render/atlas.css to the folder's {CSS}: {alone}"
