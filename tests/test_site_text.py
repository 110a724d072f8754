"""The built book as a reader reads it: no machine paths, no reprs, no float counts, no NaN, real alt text.

Reads the HTML of every content page of ``_build/html`` (skipped when the book is not built). The
text checked is what a reader sees: scripts, styles and tags are stripped, entities decoded.
"""

from __future__ import annotations

import html
import os
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SITE = Path(os.environ.get("ATLAS_SITE_DIR") or REPO / "_build" / "html")
CONTENT = sorted([*SITE.glob("notebooks/*.html"), *SITE.glob("book/*.html")]) if SITE.is_dir() else []

pytestmark = pytest.mark.skipif(not CONTENT, reason=f"{SITE} has no built book: run `make book` first")

_HIDDEN = re.compile(r"(?s)<(script|style)\b[^>]*>.*?</\1>")
_TAG = re.compile(r"<[^>]+>")


def _visible_text(page: Path) -> str:
    return html.unescape(_TAG.sub(" ", _HIDDEN.sub(" ", page.read_text(encoding="utf-8"))))


def _ids(pages: list[Path]) -> list[str]:
    return [page.relative_to(SITE).as_posix() for page in pages]


@pytest.mark.parametrize("page", CONTENT, ids=_ids(CONTENT))
def test_no_absolute_path_of_the_build_machine(page: Path) -> None:
    text = _visible_text(page)
    found = re.findall(r"(?<![\w$.])/(?:work|tmp|root|home|Users|var/folders)/[^\s\"'<>]*", text)
    assert not found, found[:5]
    assert str(REPO) not in text


@pytest.mark.parametrize("page", CONTENT, ids=_ids(CONTENT))
def test_no_python_repr(page: Path) -> None:
    text = _visible_text(page)
    found = re.findall(
        r"np\.(?:float|int|bool)_?\d*\(|object at 0x[0-9a-f]+|\b[A-Z]\w+\((?:\w+=)[^)]{0,40}|"
        r"\[(?:Sentence|Step|Turn|Evidence|Dialogue)\(|<utils\.\w+",
        text,
    )
    assert not found, found[:5]


@pytest.mark.parametrize("page", CONTENT, ids=_ids(CONTENT))
def test_no_count_rendered_with_a_decimal_part(page: Path) -> None:
    # a count has three or more digits; 838.000 or 18430.0 is a count printed as a float. 100.0 is the one
    # such number a percentage can be (an accuracy's interval reaching 100.0 on a small demo sample).
    found = re.findall(r"(?<![\d.,])\d{1,3}(?:,\d{3})+\.0+\b|(?<![\d.,])(?!100\.0+\b)\d{3,}\.0+\b", _visible_text(page))
    assert not found, found[:5]


@pytest.mark.parametrize("page", CONTENT, ids=_ids(CONTENT))
def test_no_nan_in_a_rendered_table(page: Path) -> None:
    source = page.read_text(encoding="utf-8")
    cells = re.findall(r"(?s)<t[dh]\b[^>]*>(.*?)</t[dh]>", source)
    empty = re.compile(r"\s*(?:NaN|nan|None|<NA>|NaT)\s*")
    bad = [cell for cell in cells if empty.fullmatch(html.unescape(_TAG.sub("", cell)))]
    assert not bad, bad[:5]


@pytest.mark.parametrize("page", CONTENT, ids=_ids(CONTENT))
def test_every_image_has_real_alt_text(page: Path) -> None:
    source = page.read_text(encoding="utf-8")
    for tag in re.findall(r"<img\b[^>]*>", source):
        match = re.search(r'\balt="([^"]*)"', tag)
        alt = html.unescape(match.group(1)).strip() if match else ""
        assert alt, f"image without alt text: {tag[:120]}"
        assert not re.fullmatch(r"[\w./-]+\.(?:png|svg|jpe?g|gif)", alt), f"alt text is a file name: {alt}"


@pytest.mark.parametrize("page", CONTENT, ids=_ids(CONTENT))
def test_no_raw_latex(page: Path) -> None:
    text = _visible_text(page)
    assert not re.search(r"\\(?:texttt|emph|textbf|url)\b", text)
