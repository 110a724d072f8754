"""A second new dataset, of another shape (question answering over passages, no labels, JSON Lines), is
one folder too: tests/second_dataset/toy_qa/ (declaration, parser, renderer), added with nothing else, as
book/contributing.md's steps say. The machinery asks its declaration what it has (no labels, evidence
with a citation) and needs no edit."""

from __future__ import annotations

import contextlib
import html
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_html_safety import INJECTIONS, audit, hostile

import utils
import utils.datasets
import utils.sources
from conftest import import_atlas_book
from utils.book.render import render_dialogue, stylesheet
from utils.book.render.chapter_view import chapter_view
from utils.cli import main as atlas
from utils.cli.split_stats import label_counts
from utils.errors import DataError
from utils.folder_files import bibliography_files

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


def test_the_book_takes_its_citation_its_by_hand_section_and_its_css_from_the_folder(toy_qa: Path) -> None:
    folder = TOY_FOLDERS / "toy_qa"
    assert bibliography_files()[-1] == folder / "citation.bib"  # after the atlas's own, in the book's order
    includes = import_atlas_book().by_hand_includes(REPO / "book" / "data.md")
    assert includes.endswith("```{include} ../tests/second_dataset/toy_qa/by_hand.md\n```")
    css = stylesheet()
    assert css.endswith((folder / "render.css").read_text(encoding="utf-8") + "</style>")
    assert 'class="toy-qa-cited"' in str(render_dialogue(utils.load("toy_qa", "test")[0]))  # what the CSS styles


BOOK_CONF = """\
extensions = ["myst_parser", "sphinxcontrib.bibtex", "sphinx_external_toc", "atlas_book"]
external_toc_path = "_toc.yml"
bibtex_bibfiles = []  # the folders' citation.bib files are added by atlas_book
bibtex_reference_style = "author_year"
bibtex_default_style = "atlas"
"""
#: A book whose table of contents has the toy's chapter line, as a contributor adds it to _toc.yml.
BOOK_PAGES = {
    "_toc.yml": "format: jb-book\nroot: data\nchapters:\n  - file: toy_qa\n  - file: bibliography\n",
    "data.md": "# Getting the data\n\n## Getting each dataset by hand\n\n```{atlas-by-hand}\n```\n",
    "toy_qa.md": "# Toy question answering\n\nGetting its file: {ref}`data-toy_qa`; the dataset {cite:p}`toyqa2024`.\n",
    "bibliography.md": "# Bibliography\n\n```{bibliography}\n```\n",
}


def test_a_book_with_its_toc_line_cites_it_and_shows_how_to_get_it_by_hand(
    toy_qa: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small Sphinx build with the book's extension and the toy as the one dataset folder: its
    citation resolves and its section is on the data page, with no setting naming the folder."""
    from sphinx.application import Sphinx

    monkeypatch.setattr(utils.datasets, "__path__", [str(TOY_FOLDERS)])  # the toy alone: a small book
    utils.sources.discovered.cache_clear()
    monkeypatch.setenv("ATLAS_VIEWER_DIR", str(tmp_path / "viewer"))  # the build sets it; put back after
    source = tmp_path / "book"
    source.mkdir()
    (source / "conf.py").write_text(BOOK_CONF, encoding="utf-8")
    monkeypatch.syspath_prepend(str(REPO / "book" / "_ext"))  # as _config.yml's local_extensions
    for name, text in BOOK_PAGES.items():
        (source / name).write_text(text, encoding="utf-8")
    warnings = io.StringIO()
    app = Sphinx(str(source), str(source), str(tmp_path / "html"), str(tmp_path / "doctrees"), "html",
                 status=None, warning=warnings, freshenv=True, warningiserror=True)
    app.build()
    assert not warnings.getvalue(), warnings.getvalue()

    def text_of(page: str) -> str:
        return html.unescape(re.sub(r"<[^>]+>", "", (tmp_path / "html" / page).read_text(encoding="utf-8")))

    data = (tmp_path / "html" / "data.html").read_text(encoding="utf-8")
    assert '<span id="data-toy-qa"></span><h3>Toy question answering' in data  # its label and heading
    entry = (TOY_FOLDERS / "toy_qa" / "citation.bib").read_text(encoding="utf-8").strip()
    assert entry in text_of("data.html")  # quoted from citation.bib, not copied into the page
    chapter = (tmp_path / "html" / "toy_qa.html").read_text(encoding="utf-8")
    assert 'href="data.html#data-toy-qa"' in chapter and "Atlas test suite, 2024" in text_of("toy_qa.html")
    assert "Toy question answering: sessions over retrieved passages" in text_of("bibliography.html")


def test_the_build_lists_its_chapter_and_writes_its_viewer_page(toy_qa: Path, tmp_path: Path) -> None:
    """The folder's chapter (``notebooks/toy_qa.ipynb``) needs no line in ``_toc.yml``: the build adds it
    after the chapters listed, and the viewer part gets one generated page per chapter, in their order."""
    import yaml

    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "toy_qa.ipynb").write_text("{}", encoding="utf-8")
    toc = yaml.safe_load((REPO / "_toc.yml").read_text(encoding="utf-8"))
    completed, pages = import_atlas_book().dataset_pages(toc, tmp_path)
    parts = {part["caption"]: [entry["file"] for entry in part["chapters"]] for part in completed["parts"]}
    chapters = parts["The datasets"]
    assert chapters[-1] == "notebooks/toy_qa" and chapters[:-1] == [
        entry["file"] for part in toc["parts"] if part["caption"] == "The datasets" for entry in part["chapters"]]
    assert parts["The data viewer"] == [f"book/viewer/{name.rpartition('/')[2]}" for name in chapters]
    page = pages["book/viewer/toy_qa.md"]
    assert 'data-datasets="toy_qa"' in page and "Every row of every split of" in page  # no PAGE_ROWS: the default
    captions = [part["caption"] for part in completed["parts"]]
    assert captions.index("The data viewer") == captions.index("The datasets") + 1


def test_the_contributor_s_check_says_what_the_folder_lacks(toy_qa: Path) -> None:
    from utils.folder_files import folder_check, main

    lacking = {part for part, present, _ in folder_check("toy_qa") if not present}
    assert {"exercises.py", "card.py", "scoring.py", "viewer.py"} <= lacking and "render.py" not in lacking
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        assert main(["toy_qa"]) == 0
    assert "lacks exercises.py" in shown.getvalue() and "(`atlas course`)" in shown.getvalue()
