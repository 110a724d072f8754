"""Every reported number has a source the bibliography resolves, and names what it counts."""

from __future__ import annotations

import re

from utils.datasets.wow.stats import PARLAI_TEACHER_RULES, teachers_of
from utils.folder_files import bibliography_files
from utils.reported import all_reported, reported, reported_value
from utils.sources import get_split_files


def _bib_keys() -> list[str]:
    """The keys of the book's bibliography: book/references.bib and every dataset folder's citation.bib."""
    text = "\n".join(path.read_text(encoding="utf-8") for path in bibliography_files())
    return re.findall(r"^@\w+\s*\{\s*([^,\s]+)\s*,", text, flags=re.MULTILINE)


def test_every_citation_key_is_a_key_of_the_bibliography() -> None:
    keys = _bib_keys()
    assert len(keys) == len(set(keys)), "a key of the bibliography is in two of its files, or twice in one"
    missing = sorted({item.citation_key for item in all_reported()} - set(keys))
    assert not missing, f"citation keys missing from the bibliography: {missing}"


def test_the_key_check_would_catch_a_near_miss() -> None:
    # a key that only occurs inside another entry's text (here a url) is not a key
    assert "parl" not in _bib_keys() and "parlai2019wowproject" in _bib_keys()


def test_every_reported_number_says_where_it_stands() -> None:
    for item in all_reported():
        assert item.source.strip(), item
        assert (item.dataset, item.name, item.split) == (item.dataset.strip(), item.name.strip(), item.split.strip())
    keys = [(item.dataset, item.name, item.split) for item in all_reported()]
    assert len(keys) == len(set(keys)), "two reported numbers share dataset, name and split"


def test_parlai_counts_name_real_teachers() -> None:
    named = [item for item in all_reported() if item.teacher]
    assert named, "the ParlAI counts name their teacher"
    for item in named:
        assert teachers_of(item), item
        assert set(teachers_of(item)) <= set(PARLAI_TEACHER_RULES), item
    wizard = reported_value("wow", "wizard_examples", "train")
    assert teachers_of(wizard) == ["generator", "wizard_dialog_knowledge", "basic_wizard_dialog"]
    assert wizard.value == 74092 and wizard.citation_key == "parlai2021wowfixtures"
    assert reported_value("wow", "apprentice_examples", "valid_seen").value == 3989
    assert reported_value("wow", "basicdialog_examples", "test_seen").value == 4336
    assert "teacher" in reported("wow").columns


def test_know_chance_says_what_it_averages() -> None:
    item = reported_value("wow", "knowledge_chance", "valid_seen")
    assert item.value == 0.02625 and item.teacher == "generator"
    assert "no_passages_used" in item.note and "every sentence shown" in item.note


def test_jwhr_download_is_pinned_to_a_commit() -> None:
    for split in ("answered", "not_answered"):
        (item,) = get_split_files("jwhr", split)
        assert "/resolve/main/" not in item.url
        assert re.search(r"/resolve/[0-9a-f]{40}/data/", item.url), item.url
        assert item.sha256 and len(item.sha256) == 64
    (answered,) = get_split_files("jwhr", "answered")
    assert answered.sha256.startswith("3934eb171ebb26be")
