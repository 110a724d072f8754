"""The student edition (``make book EDITION=student``) and the learner-copy routes of both editions.

Reads the HTML of ``_build/student/_build/html`` (skipped when the student edition is not built;
``.ci/run`` builds it): no chapter page holds a solution, a model answer, a hidden test or a line of
any reference solution; the teachers' guide is reduced to what a student needs; the launch buttons
open the learner copies. In the teachers' edition (``_build/html``) each chapter links its learner
copy for download, and no Markdown page has a launch button.
"""

from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
STUDENT = Path(os.environ.get("ATLAS_STUDENT_SITE_DIR") or REPO / "_build" / "student" / "_build" / "html")
TEACHER = Path(os.environ.get("ATLAS_SITE_DIR") or REPO / "_build" / "html")
CHAPTERS = sorted((REPO / "notebooks").glob("*.ipynb"))


def _text(page: Path) -> str:
    """A page's words as a reader sees them (scripts, styles and tags gone)."""
    source = page.read_text(encoding="utf-8")
    source = re.sub(r"(?s)<(script|style)[^>]*>.*?</\1>", " ", source)
    return html.unescape(re.sub(r"<[^>]+>", " ", source))


def _solution_lines(chapter: Path) -> set[str]:
    """Distinctive lines of a chapter's reference solutions, hidden tests and model answers."""
    cells = json.loads(chapter.read_text(encoding="utf-8"))["cells"]
    lines: set[str] = set()
    inside = False
    for cell in cells:
        source = "".join(cell["source"])
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] == "markdown" and "{solution-start}" in source:
            inside = True
            continue
        if cell["cell_type"] == "markdown" and "{solution-end}" in source:
            inside = False
            continue
        if inside or {"solution", "grade", "answer"} & set(tags):
            for line in source.splitlines():
                line = line.strip()
                # long, specific lines only: short ones ("import utils") occur in any chapter
                if len(line) > 40 and not line.startswith(("#", "from ", "import ", "```", ":")):
                    lines.add(line if cell["cell_type"] == "code" else re.sub(r"[*`]", "", line)[:60])
    return lines


@pytest.mark.skipif(not (STUDENT / "book" / "teaching.html").is_file(), reason=f"{STUDENT}: no student edition built")
class TestStudentEdition:
    def test_no_chapter_page_holds_a_solution_a_test_or_a_model_answer(self) -> None:
        checked = 0
        for chapter in CHAPTERS:
            page = STUDENT / "notebooks" / f"{chapter.stem}.html"
            raw = page.read_text(encoding="utf-8")
            text = _text(page)
            assert 'class="solution' not in raw and "Solution to" not in text, chapter.stem
            for marker in ("Model answer", "BEGIN HIDDEN TESTS", "graded(", "raise NotImplementedError"):
                assert marker not in text, (chapter.stem, marker)
            code = html.unescape(re.sub(r"<[^>]+>", "", raw))
            for line in _solution_lines(chapter):
                assert line not in code, (chapter.stem, line)
                checked += 1
            # the tasks are there, numbered as in the teachers' edition
            assert len(re.findall(r'class="exercise admonition"', raw)) == len(
                re.findall(r":label:\s*\S+-ex-\d+", chapter.read_text(encoding="utf-8"))
            ), chapter.stem
        assert checked > 50  # the check looked for many lines of solutions

    def test_the_teachers_guide_is_left_out(self) -> None:
        text = _text(STUDENT / "book" / "teaching.html")
        assert "student edition" in text
        for teachers_only in ("Model answers and rubrics", "Grading a class", "What the data this book was built on"):
            assert teachers_only not in text

    def test_launch_buttons_open_the_learner_copies(self) -> None:
        for chapter in CHAPTERS:
            raw = (STUDENT / "notebooks" / f"{chapter.stem}.html").read_text(encoding="utf-8")
            launches = re.findall(r'href="(https://(?:mybinder\.org|colab\.research\.google\.com)[^"]+)"', raw)
            assert launches, chapter.stem
            for url in launches:
                assert "learner-copies" in url and f"{chapter.stem}.ipynb" in url, url
                assert "notebooks/" not in url, url


@pytest.mark.skipif(not (TEACHER / "book" / "teaching.html").is_file(), reason=f"{TEACHER}: no book built")
class TestLearnerCopyRoutes:
    def test_each_chapter_links_its_learner_copy_and_the_copy_is_in_the_site(self) -> None:
        for chapter in CHAPTERS:
            raw = (TEACHER / "notebooks" / f"{chapter.stem}.html").read_text(encoding="utf-8")
            assert f'href="../learner/{chapter.stem}.ipynb"' in raw, chapter.stem
            copy = json.loads((TEACHER / "learner" / f"{chapter.stem}.ipynb").read_text(encoding="utf-8"))
            sources = "\n".join("".join(cell["source"]) for cell in copy["cells"])
            assert "{solution-start}" not in sources and "BEGIN HIDDEN TESTS" not in sources

    def test_markdown_pages_have_no_launch_buttons(self) -> None:
        for page in sorted((TEACHER / "book").glob("*.html")):
            raw = page.read_text(encoding="utf-8")
            # a launch link (Binder's /v2/ route, Colab's /github/ route), not a mention in the prose
            assert "mybinder.org/v2/" not in raw and "colab.research.google.com/github/" not in raw, page.name
