"""The teachers' guide matches the course: every exercise of every chapter is in its schedule table
and its rubrics, the minutes are computed from the chapters' exercise titles, and the grading route it
gives is the one the course folder runs."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from utils.teaching import course

REPO = Path(__file__).resolve().parents[1]
GUIDE = (REPO / "book" / "teaching.md").read_text(encoding="utf-8")
CHAPTERS = sorted((REPO / "notebooks").glob("*.ipynb"))


def _section(start: str, end: str) -> str:
    return GUIDE[GUIDE.index(start) : GUIDE.index(end, GUIDE.index(start))]


def test_every_exercise_is_in_the_schedule_with_minutes_from_the_chapters() -> None:
    table = _section("## The chapters at a glance", "Exercises are numbered per chapter")
    for chapter in CHAPTERS:
        exercises = course.chapter_exercises(nbformat.read(chapter, as_version=4))
        if not exercises:
            continue
        row = next(line for line in table.splitlines() if f"notebooks/{chapter.stem}`" in line)
        for exercise in exercises:
            assert f"{{ref}}`{exercise.label}`" in row, exercise.label
            assert exercise.minutes, f"{exercise.label}: its title gives no minutes"
        # the total is glued from the chapter when the page is built, never typed in
        assert f"{{glue:text}}`teach_minutes_{chapter.stem}`" in row
        assert not re.search(r"\| \d+ min:", row)


def test_every_exercise_has_a_rubric() -> None:
    rubrics = _section("## Model answers and rubrics", "## What the data this book was built on gives")
    for chapter in CHAPTERS:
        for exercise in course.chapter_exercises(nbformat.read(chapter, as_version=4)):
            assert f"{{ref}}`{exercise.label}`" in rubrics, exercise.label


def test_the_grading_route_is_the_course_s_own() -> None:
    grading = _section("### Grading a class with nbgrader", "(grading-guards)=")
    assert "atlas grade wow" in grading and "nbgrader formgrader" not in grading
    config = course.CONFIG
    for exporter in ("utils.teaching.gradebook.MoodleExport", "utils.teaching.gradebook.CanvasExport"):
        assert exporter in grading and exporter in config
    assert "zip_collect" in grading and "named_regexp" in config
    assert "bubblewrap" in grading and "PATH" in grading


def test_the_threat_model_names_every_attack_the_suite_runs() -> None:
    from tests.grading_attacks import ATTACKS

    guards = _section("(grading-guards)=", "(jupyterhub)=")
    words = {
        "monkeypatch_graded": "utils.teaching.exercises.graded",
        "monkeypatch_checks": "every check",
        "rebind_builtins": "builtins",
        "exec_source_solutions": "source/",
        "gradebook_write": "gradebook",
        "read_other_submission": "another student",
        "delete_canary": "deletes",
        "detached_process": "outlives",
        "network_call": "network",
        "print_correct": "Correct",
        "kill_the_runner": "accounted for",
        "read_the_cache": "parsed cache",
        "slow_hand_in": "slow to read",
        "link_the_output": "links",
    }
    assert set(words) == set(ATTACKS)
    for attack, word in words.items():
        assert word in (guards if attack != "kill_the_runner" else GUIDE), attack
