"""A sixth dataset shaped as its publisher ships it, one archive holding every split (as CMU-DoG's),
is one folder too: tests/archive_dataset/toy_archive/ (declaration, parser, renderer, a demo archive),
added with nothing else. Its chapter gets its viewer link and page and its table-of-contents entry,
its Croissant card lists the archive once, every ``atlas`` command knows it, the fuzz properties take
its demo archive as their seed, and the data status counts it: with zero files edited outside it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import test_fuzz
import test_status
import yaml

import utils
import utils.sources
from conftest import dataset_folders_added, import_atlas_book
from utils.book.render import render_dialogue
from utils.book.render.chapter_view import chapter_view
from utils.cli import main as atlas

REPO = Path(__file__).resolve().parents[1]
FOLDERS = REPO / "tests" / "archive_dataset"
SPLITS = ("train", "valid", "test")


@pytest.fixture
def toy_archive(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The folder beside the atlas's own; the data directory holds nothing of it (the demo route)."""
    monkeypatch.setenv("ATLAS_OFFLINE", "1")
    with dataset_folders_added(FOLDERS, monkeypatch):
        yield FOLDERS / "toy_archive"


def test_each_split_is_read_from_its_member_of_the_one_archive(toy_archive: Path) -> None:
    with pytest.warns(utils.DemoDataWarning):
        splits = {name: utils.load("toy_archive", name) for name in SPLITS}
    assert {name: [d.id for d in split] for name, split in splits.items()} == {
        "train": ["demo-t1", "demo-t2"], "valid": ["demo-v1"], "test": ["demo-s1"]}
    assert all(split.provenance.is_demo for split in splits.values())
    html = str(render_dialogue(splits["train"][1]))
    assert "And &lt;b&gt;black&lt;/b&gt; tea?" in html and "<b>black" not in html


def test_its_chapter_gets_a_viewer_link_a_viewer_page_and_a_toc_entry(toy_archive: Path, tmp_path: Path) -> None:
    with pytest.warns(utils.DemoDataWarning):
        split = utils.load("toy_archive", "train")
    view = str(chapter_view(split, pinned={"train": [0]}))
    assert "../book/viewer/toy_archive.html#viewer=toy_archive/train&amp;level=dialogues" in view
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "toy_archive.ipynb").write_text("{}", encoding="utf-8")
    written = yaml.safe_load((REPO / "_toc.yml").read_text(encoding="utf-8"))
    toc, pages = import_atlas_book().dataset_pages(written, tmp_path)
    entries = {part["caption"]: [entry["file"] for entry in part["chapters"]] for part in toc["parts"]}
    assert entries["The datasets"][-1] == "notebooks/toy_archive"
    assert entries["The data viewer"][-1] == "book/viewer/toy_archive"
    assert 'data-datasets="toy_archive"' in pages["book/viewer/toy_archive.md"]


def test_its_card_lists_the_archive_once(toy_archive: Path, tmp_path: Path) -> None:
    out = tmp_path / "card.json"
    assert atlas(["croissant", "toy_archive", "--out", str(out)]) == 0
    card = json.loads(out.read_text(encoding="utf-8"))
    ids = [node["@id"] for node in card["distribution"]]
    assert len(ids) == len(set(ids)) == 1 and card["distribution"][0]["encodingFormat"] == "application/zip"


def test_every_command_of_atlas_knows_it(toy_archive: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert atlas(["status", "--json"]) == 0
    listed = [entry for entry in json.loads(capsys.readouterr().out)["splits"] if entry["dataset"] == "toy_archive"]
    assert [entry["split"] for entry in listed] == list(SPLITS)
    assert atlas(["show", "toy_archive", "valid", "0"]) == 0
    assert "Around 90 degrees." in capsys.readouterr().out
    assert atlas(["stats", "toy_archive", "train", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dialogues"] == 2


def test_the_fuzz_properties_seed_from_its_demo_archive(toy_archive: Path) -> None:
    """The fuzz module reads a seed's kind from its bytes (it once failed to collect on a zip): an archive
    is fuzzed as bytes, and every damaged archive parses or raises a DataError naming the file."""
    seeds = test_fuzz._seed_files("toy_archive")
    assert {split for _, split in seeds} == set(SPLITS) and test_fuzz._kind(seeds[0][0]) == "archive"
    parse = utils.sources.get_source("toy_archive").parse
    target = test_fuzz.Target("toy_archive", lambda path, split: parse(path, split=split), seeds, "archive")
    original = test_fuzz.demo_file(seeds[0][0]).read_bytes()
    for cut in range(0, len(original), max(1, len(original) // 40)):  # every fortieth truncation
        test_fuzz.check(target, "truncated", original[:cut], None, *seeds[0])
    for offset in range(len(original)):  # every byte flipped, one at a time
        damaged = bytearray(original)
        damaged[offset] ^= 0xFF
        test_fuzz.check(target, "bytes", bytes(damaged), None, *seeds[0])


def test_the_data_status_counts_its_demo_archive(toy_archive: Path, data_dir: Path) -> None:
    """The status test reads a file's records by its format, and knows an archive for what it is
    (it once counted records by a file's suffix, and failed on a zip)."""
    checked, archives = test_status._check_panel(data_dir)
    assert archives == len(SPLITS) and checked + archives == len(utils.data_status(data_dir))
    status = utils.data_status(data_dir)
    assert set(status[status["dataset"] == "toy_archive"]["split"]) == set(SPLITS)
