"""What the publishing workflow puts online is the student edition, and it holds no answer.

Reads ``.github/workflows/publish.yml``: the command its build step runs, the folder it uploads as
the site, and the order of its jobs. Then reads that folder as ``make book EDITION=student`` writes it
(``.ci/run`` builds it before the tests; skipped where it is not built) and looks for every line of
every reference solution, hidden test and model answer.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from tests.test_site_student import CHAPTERS, STUDENT, _solution_lines, _text

REPO = Path(__file__).resolve().parents[1]
WORKFLOW = yaml.safe_load((REPO / ".github" / "workflows" / "publish.yml").read_text(encoding="utf-8"))


def _step(job: str, name_start: str) -> dict:
    return next(step for step in WORKFLOW["jobs"][job]["steps"] if step.get("name", "").startswith(name_start))


def test_the_workflow_builds_and_uploads_the_student_edition() -> None:
    build = _step("build", "Build")
    assert re.search(r"\bmake book EDITION=student\b", build["run"])
    uploaded = _step("build", "Upload the site")["with"]["path"]
    # where `make book EDITION=student` writes the site (the Makefile's BOOK_OUTPUT)
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    output = re.search(r"BOOK_OUTPUT := \$\(if \$\(filter student,\$\(EDITION\)\),--path-output (\S+),\)", makefile)
    assert output is not None
    assert uploaded == f"{output.group(1)}/_build/html"
    assert STUDENT.relative_to(REPO).as_posix() == uploaded


def test_the_site_goes_live_after_the_learner_copies_its_buttons_open() -> None:
    assert "learner-copies" in WORKFLOW["jobs"]["deploy"]["needs"]


@pytest.mark.skipif(not (STUDENT / "index.html").is_file(), reason=f"{STUDENT}: the student edition is not built")
def test_the_published_folder_holds_no_solution() -> None:
    pages = sorted(STUDENT.rglob("*.html"))
    assert pages
    lines = set().union(*(_solution_lines(chapter) for chapter in CHAPTERS))
    assert len(lines) > 50
    for page in pages:
        raw = page.read_text(encoding="utf-8")
        assert 'class="solution' not in raw, page
        text = _text(page)
        for marker in ("BEGIN HIDDEN TESTS", "### BEGIN SOLUTION", "Model answer"):
            assert marker not in text, (page, marker)
        found = [line for line in lines if line in raw or line in text]
        assert not found, (page, found[:3])
