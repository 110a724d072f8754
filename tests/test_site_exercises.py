"""Exercises are numbered per chapter, the same way in the chapter and in the teachers' guide.

Reads the HTML of ``_build/html`` (skipped when the book is not built): in every chapter the
exercises read Exercise 1, 2, 3 in order, each solution names its exercise by the same number, and
every link to an exercise on the teachers' guide shows that number.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SITE = Path(os.environ.get("ATLAS_SITE_DIR") or REPO / "_build" / "html")
CHAPTERS = sorted(SITE.glob("notebooks/*.html")) if SITE.is_dir() else []
GUIDE = SITE / "book" / "teaching.html"

pytestmark = pytest.mark.skipif(not GUIDE.is_file(), reason=f"{SITE} has no built book: run `make book` first")

_EXERCISE = re.compile(
    r'<div class="exercise admonition" id="(?P<label>[\w-]+)">\s*<p class="admonition-title">'
    r'<span class="caption-number">Exercise (?P<number>\d+) </span>'
)
_SOLUTION = re.compile(
    r'Solution to<a class="reference internal" href="#(?P<label>[\w-]+)"> Exercise (?P<number>\d+) '
)
_GUIDE_LINK = re.compile(
    r'href="\.\./notebooks/[\w-]+\.html#(?P<label>[\w-]+-ex-\d+)">'
    r'<span class="std std-numref">Exercise (?P<number>\d+)<'
)


def _numbers() -> dict[str, int]:
    numbers = {}
    for page in CHAPTERS:
        found = [(m["label"], int(m["number"])) for m in _EXERCISE.finditer(page.read_text(encoding="utf-8"))]
        assert [number for _, number in found] == list(range(1, len(found) + 1)), f"{page.name}: {found}"
        numbers.update(found)
    return numbers


def test_each_chapter_numbers_its_exercises_from_one() -> None:
    numbers = _numbers()
    assert numbers, "no exercise found in the chapters"
    for label, number in numbers.items():
        assert label.endswith(f"-ex-{number}"), f"{label} is shown as Exercise {number}"
    for page in CHAPTERS:
        for solution in _SOLUTION.finditer(page.read_text(encoding="utf-8")):
            assert numbers[solution["label"]] == int(solution["number"]), f"{page.name}: {solution.group(0)}"


def test_the_teachers_guide_names_each_exercise_by_its_chapter_number() -> None:
    numbers = _numbers()
    links = list(_GUIDE_LINK.finditer(GUIDE.read_text(encoding="utf-8")))
    assert links, "the teachers' guide links to no exercise"
    for link in links:
        assert numbers[link["label"]] == int(link["number"]), link.group(0)
