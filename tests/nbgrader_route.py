"""The classroom route with nbgrader's own commands, shared by tests/test_course.py (the demo
samples) and tests/test_course_real_files.py (``$ATLAS_DATA_DIR``): ``atlas course``, then
``generate_assignment``, submissions, ``autograde`` and ``export``.

The three students of every assignment: ``reference`` hands in the source notebook (the reference
solutions), ``untouched`` the release as it was handed out, ``crash`` the reference with its first
answer replaced by code that raises. Autograding must give them every autograded point, none, and
every point but the first exercise's; ``export`` must write one row per student and assignment.
"""

from __future__ import annotations

import csv
import os
import resource
import subprocess
import sys
from pathlib import Path

import nbformat

from utils.teaching import course

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = ROOT / "notebooks"
STUDENTS = ("reference", "untouched", "crash")


def nbgrader(course_dir: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=course_dir,
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
        check=False,
    )
    assert done.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}"
    return done


def environment(data_dir: Path | None, tmp: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("ATLAS_", "JUPYTER_"))}
    # nbgrader runs alembic, a script beside the interpreter: the environment's bin/ comes first.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["ATLAS_OFFLINE"] = "1"
    env["ATLAS_CACHE_DIR"] = str(tmp / "cache")
    env["ATLAS_DATA_DIR"] = str(data_dir if data_dir is not None else tmp / "no-data")
    return env


def _crashing(source: nbformat.NotebookNode) -> tuple[nbformat.NotebookNode, str]:
    """The reference notebook with its first answer cell raising, and that exercise's label."""
    crashed = nbformat.from_dict(source)
    for cell in crashed.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution") and cell.cell_type == "code":
            cell.source = 'raise RuntimeError("a bug in the student\'s answer")'
            return crashed, meta["grade_id"].removesuffix("-answer")
    raise AssertionError("no answer cell")


def route(tmp: Path, data_dir: Path | None, students: tuple[str, ...] = STUDENTS) -> dict[str, object]:
    """The whole route in ``tmp`` for ``students`` (some of :data:`STUDENTS`): what autograding and
    the export gave, and how long they took."""
    env = environment(data_dir, tmp)
    course_dir = tmp / "course"
    atlas = subprocess.run(
        [sys.executable, "-m", "utils", "course", "--out", str(course_dir)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
    )
    assert atlas.returncode == 0, atlas.stderr
    assignments = sorted(path.name for path in (course_dir / "source").iterdir())
    assert assignments == sorted(
        path.stem for path in CHAPTERS.glob("*.ipynb") if course.assignment_notebook(
            nbformat.read(path, as_version=4), path.stem)[1].exercises
    )
    points: dict[str, dict[str, int]] = {}
    crashed_exercise: dict[str, str] = {}
    for name in assignments:
        nbgrader(course_dir, "generate_assignment", name, "--force", env=env)
        source = nbformat.read(course_dir / "source" / name / f"{name}.ipynb", as_version=4)
        release = nbformat.read(course_dir / "release" / name / f"{name}.ipynb", as_version=4)
        points[name] = {
            cell.metadata["nbgrader"]["grade_id"]: cell.metadata["nbgrader"]["points"]
            for cell in source.cells
            if cell.metadata.get("nbgrader", {}).get("grade") and cell.cell_type == "code"
        }
        crashed, crashed_exercise[name] = _crashing(source)
        submissions = dict(zip(STUDENTS, (source, release, crashed), strict=True))
        for student in students:
            notebook = submissions[student]
            target = course_dir / "submitted" / student / name / f"{name}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(notebook, target)
    # CPU time of nbgrader and the kernels it runs (children it waits for): unlike the wall clock, it
    # does not grow when other work shares the machine.
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for name in assignments:
        nbgrader(course_dir, "autograde", name, "--create", "--force", env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    autograde_seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    nbgrader(course_dir, "export", env=env)
    with open(course_dir / "grades.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return {
        "course": course_dir,
        "assignments": assignments,
        "points": points,
        "crashed": crashed_exercise,
        "rows": rows,
        "seconds": autograde_seconds,
        "students": students,
    }


def _autograded_scores(course_dir: Path, student: str, name: str) -> dict[str, float]:
    """The points each autograded test gave, as nbgrader's gradebook holds them."""
    from nbgrader.api import Gradebook

    source = nbformat.read(course_dir / "source" / name / f"{name}.ipynb", as_version=4)
    tests = [
        cell.metadata["nbgrader"]["grade_id"]
        for cell in source.cells
        if cell.metadata.get("nbgrader", {}).get("grade") and cell.cell_type == "code"
    ]
    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gradebook:
        return {grade_id: gradebook.find_grade(grade_id, name, name, student).score for grade_id in tests}


def check_route(result: dict[str, object]) -> None:
    course_dir = result["course"]
    assert isinstance(course_dir, Path)
    rows = result["rows"]
    assert isinstance(rows, list)
    assignments = result["assignments"]
    points = result["points"]
    crashed = result["crashed"]
    assert isinstance(assignments, list) and isinstance(points, dict) and isinstance(crashed, dict)
    # one row per student and assignment, nothing else
    students = result["students"]
    assert isinstance(students, tuple)
    assert sorted((row["assignment"], row["student_id"]) for row in rows) == sorted(
        (name, student) for name in assignments for student in students
    )
    for name in assignments:
        total = sum(points[name].values())
        by_student = {row["student_id"]: row for row in rows if row["assignment"] == name}
        reference = _autograded_scores(course_dir, "reference", name)
        assert reference == points[name], (name, reference)
        # the CSV holds the same scores (written parts still ungraded count 0 until a teacher grades them)
        assert float(by_student["reference"]["score"]) == total, (name, by_student["reference"])
        if "untouched" in students:
            untouched = _autograded_scores(course_dir, "untouched", name)
            assert set(untouched.values()) == {0}, (name, untouched)
            assert float(by_student["untouched"]["score"]) == 0
        if "crash" in students:
            crash = _autograded_scores(course_dir, "crash", name)
            lost = {grade_id: value for grade_id, value in points[name].items() if grade_id.startswith(crashed[name])}
            assert crash == {**points[name], **dict.fromkeys(lost, 0)}, (name, crash)
            assert float(by_student["crash"]["score"]) == total - sum(lost.values())
