"""The built book tells at a glance what is real.

* The intro page's status panel lists every dataset and split (a chip each) as :func:`utils.data_status` sees the
  data directory the tests run with (the same one the book was built with, as in ``.ci/run``).
* No "Reproduced" cell of a comparison table holds a number when its split was a demo sample or a
  partial copy in that build: the panel is the witness of what each split was built on, the
  cell's ``atlas-data--<dataset>--<split>`` class says which split the row is about.
* Every figure whose caption says it was drawn on a demo sample or a partial copy carries the mark
  inside its image (the PNG's ``Description`` chunk, written where the mark is drawn), and no
  figure on official data carries one.

Reads the HTML of ``_build/html`` (skipped when the book is not built).
"""

from __future__ import annotations

import base64
import html
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

import utils
from utils import config
from utils.book.built_on import BUILT_ON
from utils.book.figures import png_description

REPO = Path(__file__).resolve().parents[1]
SITE = Path(os.environ.get("ATLAS_SITE_DIR") or REPO / "_build" / "html")
INTRO = SITE / "book" / "intro.html"
CHAPTERS = sorted(SITE.glob("notebooks/*.html")) if SITE.is_dir() else []
PANEL_CAPTION = "What each split of this book was built on."
#: The data directory this run was started with (read before the tests' autouse fixture swaps in an
#: empty one): the book is built and tested with the same one, as in ``.ci/run``.
BUILT_WITH = config.data_dir()

pytestmark = pytest.mark.skipif(not INTRO.is_file(), reason=f"{SITE} has no built book: run `make book` first")


class _Tables(HTMLParser):
    """Every ``<table>`` of a page: its classes, the caption line before it, and its rows of cells
    (each cell its text and its classes)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[dict] = []
        self._caption = ""
        self._in_caption = False
        self._cell: list[str] | None = None
        self._cell_classes = ""
        self._row: list[tuple[str, str]] | None = None
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = dict(attrs).get("class") or ""
        if tag == "p" and "atlas-table-caption" in classes:
            self._in_caption, self._caption = True, ""
        elif tag == "table":
            self._depth += 1
            self.tables.append({"classes": classes, "caption": self._caption, "rows": []})
            self._caption = ""
        elif tag == "tr" and self._depth:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell, self._cell_classes = [], classes

    def handle_endtag(self, tag: str) -> None:
        if tag == "p" and self._in_caption:
            self._in_caption = False
        elif tag == "table":
            self._depth -= 1
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append((" ".join("".join(self._cell).split()), self._cell_classes))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.tables[-1]["rows"].append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._in_caption:
            self._caption += data
        if self._cell is not None:
            self._cell.append(data)


def tables_of(page: Path) -> list[dict]:
    parser = _Tables()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.tables


_CHIP = re.compile(r'<li class="atlas-chip [^"]*" data-dataset="([^"]*)" data-split="([^"]*)" data-built-on="([^"]*)"')


def status_panel() -> dict[tuple[str, str], str]:
    """``(dataset, split) -> built on`` as the intro page's panel shows it (one chip per split)."""
    page = INTRO.read_text(encoding="utf-8")
    assert page.count(PANEL_CAPTION) == 1, "the intro page has no status panel"
    return {(html.unescape(d), html.unescape(s)): html.unescape(b) for d, s, b in _CHIP.findall(page)}


def test_the_status_panel_matches_data_status() -> None:
    shown = status_panel()
    status = utils.data_status(BUILT_WITH)
    expected = {(row.dataset, row.split): BUILT_ON[row.status] for row in status.itertuples()}
    assert shown == expected, (
        "the intro page's panel differs from utils.data_status(): was the book built with another "
        "ATLAS_DATA_DIR than the tests run with?"
    )


_NUMBER = re.compile(r"\d")


@pytest.mark.parametrize("page", CHAPTERS, ids=[page.name for page in CHAPTERS])
def test_no_reproduced_cell_holds_a_number_computed_on_a_demo_sample_or_partial_copy(page: Path) -> None:
    built_on = status_panel()
    for table in tables_of(page):
        if "atlas-comparison" not in table["classes"]:
            continue
        header, *rows = table["rows"]
        column = [text for text, _ in header].index("Reproduced")
        for row in rows:
            text, classes = row[column]
            marker = next(c for c in classes.split() if c.startswith("atlas-data--"))
            dataset, split = marker.removeprefix("atlas-data--").split("--")
            splits = [key for key in built_on if key[0] == dataset and (split == "all" or key[1] == split)]
            not_official = [key for key in splits if built_on[key] != "official"]
            if not_official:
                assert not _NUMBER.search(text), (
                    f"{page.name}: Reproduced shows {text!r} for {dataset}/{split}, built on "
                    f"{', '.join(built_on[key] for key in not_official)}"
                )


_FIGURE = re.compile(
    r'<figure class="atlas-figure"(?P<attrs>[^>]*)><img src="data:image/png;base64,(?P<png>[^"]+)"'
    r".*?<figcaption>(?P<caption>.*?)</figcaption>",
    re.S,
)


@pytest.mark.parametrize("page", CHAPTERS, ids=[page.name for page in CHAPTERS])
def test_every_figure_on_demo_or_partial_data_carries_the_mark_in_its_image(page: Path) -> None:
    figures = list(_FIGURE.finditer(page.read_text(encoding="utf-8")))
    for found in figures:
        caption = found["caption"]
        on_demo = "demo sample" in caption and caption.startswith("Computed on")
        on_partial = "computed on a partial copy" in caption.lower()
        mark = png_description(base64.b64decode(found["png"]))
        if on_demo:
            assert "DEMO SAMPLE" in mark, f"{page.name}: a figure on a demo sample lacks the mark: {caption[:80]}"
        if on_partial:
            assert "PARTIAL COPY" in mark, f"{page.name}: a figure on a partial copy lacks the mark: {caption[:80]}"
        if not on_demo and not on_partial:
            assert mark == "", f"{page.name}: a figure on official data is marked {mark!r}"


def test_a_threshold_fitted_on_a_demo_sample_scores_no_real_data() -> None:
    """FaithDial's lexical critic: fitted on a demo training split, it is scored on demo data only."""
    page = SITE / "notebooks" / "faithdial.html"
    if status_panel()[("faithdial", "train")] == "official":
        pytest.skip("built on the official FaithDial training split: its threshold may score any data")
    caption = "lexical critic with the threshold chosen on FaithDial"
    critic_tables = [table for table in tables_of(page) if caption in table["caption"]]
    assert len(critic_tables) == 1, "the FaithDial chapter's critic table is missing"
    rows = critic_tables[0]["rows"][1:]  # after the header
    assert rows, "the critic table has no row"
    for row in rows:
        assert "demo sample" in row[0][0], f"a demo-fitted threshold scores real data: {row[0][0]!r}"
