"""A second new dataset, of another shape (question answering over passages, no labels, JSON Lines), is
one folder too: tests/second_dataset/toy_qa/ (declaration, parser, renderer), added with nothing else, as
book/contributing.md's steps say. The machinery asks its declaration what it has (no labels, evidence
with a citation) and needs no edit."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_html_safety import INJECTIONS, audit, hostile

import utils
import utils.datasets
import utils.sources
from utils.cli import main as atlas
from utils.errors import DataError
from utils.render import render_dialogue
from utils.render.chapter_view import chapter_view
from utils.summary import label_counts

REPO = Path(__file__).resolve().parents[1]
# its own parent folder: tests/datasets/ holds the first toy, which its test expects to find last
TOY_FOLDERS = REPO / "tests" / "second_dataset"

RECORDS = [
    {
        "qid": "q1",
        "question": "How hot should water be for green tea?",
        "answer": "About 80 degrees.",
        "passages": [
            {"title": "Green tea", "text": "Green tea is brewed at about 80 degrees."},
            {"title": "Black tea", "text": "Black tea is brewed with boiling water."},
        ],
        "cited": [0],
    },
    {
        "qid": "q2",
        "question": "And <b>black</b> tea?",
        "answer": "Boiling water.",
        "passages": [{"title": "Black tea", "text": "Black tea is brewed with boiling water."}],
        "cited": [0],
    },
]


def _write(path: Path, records: list[dict[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")


@pytest.fixture
def toy_qa(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The folder beside the atlas's own, and its file in the data directory."""
    monkeypatch.setattr(utils.datasets, "__path__", [*utils.datasets.__path__, str(TOY_FOLDERS)])
    utils.sources.discovered.cache_clear()
    path = data_dir / "toy_qa" / "test.jsonl"
    _write(path, RECORDS)
    yield path
    utils.sources.discovered.cache_clear()


def test_the_second_dataset_is_loaded_rendered_and_counted(toy_qa: Path) -> None:
    assert "toy_qa" in utils.dataset_names()
    status = utils.data_status().set_index(["dataset", "split"])
    assert status.loc[("toy_qa", "test"), "status"] == "official file present"

    split = utils.load("toy_qa", "test")
    assert len(split) == 2 and split.provenance.is_full and split.source.name == "toy_qa"
    assert [item.selected for item in split[0].turns[1].evidence] == [True, False]
    assert label_counts(split) == []  # no labels declared, none counted
    utils.check_ids("toy_qa")  # nothing to compare across splits: passes

    html = str(render_dialogue(split[1]))  # the renderer found by convention, in render.py
    assert "And &lt;b&gt;black&lt;/b&gt; tea?" in html and "cited" in html
    view = str(chapter_view(split, pinned={"test": [1]}))  # a chapter's view: the pinned dialogue, linked
    assert "And &lt;b&gt;black&lt;/b&gt; tea?" in view
    assert "../book/viewer/toy_qa.html#viewer=toy_qa/test&amp;level=dialogues&amp;row=" in view


def test_its_text_stays_inert_in_html(toy_qa: Path) -> None:
    dialogues = list(utils.load("toy_qa", "test"))
    for payload in INJECTIONS:
        for dialogue in dialogues:
            audit(str(render_dialogue(hostile(dialogue, payload, "append"))), f"toy_qa {payload!r}")


def test_a_malformed_line_names_the_file_the_line_and_the_field(toy_qa: Path) -> None:
    _write(toy_qa, [RECORDS[0], {**RECORDS[1], "cited": [3]}])
    with pytest.raises(DataError, match=r"line 2.*cited|cited.*line 2") as raised:
        list(utils.get_source("toy_qa").parse(toy_qa, split="test"))
    assert str(toy_qa) in str(raised.value)


def test_every_command_of_atlas_knows_it(toy_qa: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert atlas(["status", "--json"]) == 0
    splits = json.loads(capsys.readouterr().out)["splits"]
    assert any(row["dataset"] == "toy_qa" for row in splits)
    assert atlas(["show", "toy_qa", "test", "1"]) == 0
    assert "Boiling water." in capsys.readouterr().out
    assert atlas(["stats", "toy_qa", "test", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dialogues"] == 2
    out = tmp_path / "toy_qa.jsonl"
    assert atlas(["export", "toy_qa", "test", "--to", "jsonl", "--out", str(out)]) == 0
    assert [json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()] == ["q1", "q2"]
