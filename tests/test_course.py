"""The classroom route, with nbgrader's own commands: ``atlas course``, then ``generate_assignment``,
three kinds of submission, ``autograde`` and ``export``.

The three students of every assignment: ``reference`` hands in the source notebook (the reference
solutions), ``untouched`` the release as it was handed out, ``crash`` the reference with its first
answer replaced by code that raises. Autograding must give them every autograded point, none, and
every point but the first exercise's; ``export`` must write one row per student and assignment.
The route runs on the demo samples, and again on ``$ATLAS_DATA_DIR`` when the real files are there.
"""

from __future__ import annotations

import csv
import json
import os
import re
import resource
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from utils import course
from utils.learner import learner_notebook

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = ROOT / "notebooks"
STUDENTS = ("reference", "untouched", "crash")


def _nbgrader(course_dir: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
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


def _environment(data_dir: Path | None, tmp: Path) -> dict[str, str]:
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


def _route(tmp: Path, data_dir: Path | None) -> dict[str, object]:
    """The whole route in ``tmp``: what autograding and the export gave, and how long they took."""
    env = _environment(data_dir, tmp)
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
        _nbgrader(course_dir, "generate_assignment", name, "--force", env=env)
        source = nbformat.read(course_dir / "source" / name / f"{name}.ipynb", as_version=4)
        release = nbformat.read(course_dir / "release" / name / f"{name}.ipynb", as_version=4)
        points[name] = {
            cell.metadata["nbgrader"]["grade_id"]: cell.metadata["nbgrader"]["points"]
            for cell in source.cells
            if cell.metadata.get("nbgrader", {}).get("grade") and cell.cell_type == "code"
        }
        crashed, crashed_exercise[name] = _crashing(source)
        for student, notebook in zip(STUDENTS, (source, release, crashed), strict=True):
            target = course_dir / "submitted" / student / name / f"{name}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(notebook, target)
    # CPU time of nbgrader and the kernels it runs (children it waits for): unlike the wall clock, it
    # does not grow when other work shares the machine.
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for name in assignments:
        _nbgrader(course_dir, "autograde", name, "--create", "--force", env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    autograde_seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    _nbgrader(course_dir, "export", env=env)
    with open(course_dir / "grades.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return {
        "course": course_dir,
        "assignments": assignments,
        "points": points,
        "crashed": crashed_exercise,
        "rows": rows,
        "seconds": autograde_seconds,
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


def _check_route(result: dict[str, object]) -> None:
    course_dir = result["course"]
    assert isinstance(course_dir, Path)
    rows = result["rows"]
    assert isinstance(rows, list)
    assignments = result["assignments"]
    points = result["points"]
    crashed = result["crashed"]
    assert isinstance(assignments, list) and isinstance(points, dict) and isinstance(crashed, dict)
    # one row per student and assignment, nothing else
    assert sorted((row["assignment"], row["student_id"]) for row in rows) == sorted(
        (name, student) for name in assignments for student in STUDENTS
    )
    for name in assignments:
        total = sum(points[name].values())
        by_student = {row["student_id"]: row for row in rows if row["assignment"] == name}
        reference = _autograded_scores(course_dir, "reference", name)
        assert reference == points[name], (name, reference)
        untouched = _autograded_scores(course_dir, "untouched", name)
        assert set(untouched.values()) == {0}, (name, untouched)
        crash = _autograded_scores(course_dir, "crash", name)
        lost = {grade_id: value for grade_id, value in points[name].items() if grade_id.startswith(crashed[name])}
        assert crash == {**points[name], **dict.fromkeys(lost, 0)}, (name, crash)
        # the CSV holds the same scores (written parts still ungraded count 0 until a teacher grades them)
        assert float(by_student["reference"]["score"]) == total, (name, by_student["reference"])
        assert float(by_student["untouched"]["score"]) == 0
        assert float(by_student["crash"]["score"]) == total - sum(lost.values())


@pytest.mark.slow
def test_a_class_is_graded_with_nbgrader_on_the_demo_samples(tmp_path: Path) -> None:
    result = _route(tmp_path, data_dir=None)
    _check_route(result)
    # 3 submissions of every assignment here; the guide promises 40 in under 10 minutes per assignment
    # on 2 cores: in CPU seconds, one core's worth is the stricter bound
    per_submission = result["seconds"] / (3 * len(result["assignments"]))
    print(f"autograding: {per_submission:.1f} s of CPU per submission")
    assert per_submission * 40 < 600, per_submission


@pytest.mark.realdata
@pytest.mark.slow
def test_a_class_is_graded_with_nbgrader_on_the_real_files(tmp_path: Path, real_data_dir: Path) -> None:
    _check_route(_route(tmp_path, data_dir=real_data_dir))


def test_no_released_notebook_holds_a_solution_a_test_an_expected_value_or_an_output(tmp_path: Path) -> None:
    env = _environment(None, tmp_path)
    reports = course.write_course(tmp_path / "course", source_dir=CHAPTERS)
    assert reports and all(report.exercises for report in reports)
    for report in reports[:2]:  # nbgrader's release of two assignments; the source rules below hold for all
        _nbgrader(tmp_path / "course", "generate_assignment", report.name, "--force", env=env)
        release = (tmp_path / "course" / "release" / report.name / f"{report.name}.ipynb").read_text(encoding="utf-8")
        for forbidden in ("BEGIN SOLUTION", "HIDDEN TESTS", "graded(", "Model answer", "utils.load("):
            if forbidden == "utils.load(":  # the setup loads splits; only a test would load them again
                assert release.count(forbidden) == _source_loads(report), report.name
                continue
            assert forbidden not in release, (report.name, forbidden)
        notebook = nbformat.reads(release, as_version=4)
        assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code")
    for report in reports:
        source = nbformat.read(report.path, as_version=4)
        tests = [c for c in source.cells if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code"]
        tested = {re.sub(r"-test(-\d+)?$", "", t.metadata["nbgrader"]["grade_id"]) for t in tests}
        assert tested == set(report.exercises)
        for test in tests:
            # everything that grades sits in the hidden block; what stays visible is a comment
            visible = re.sub(r"### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS", "", test.source, flags=re.S)
            assert all(line.startswith("#") or not line.strip() for line in visible.splitlines()), test.source
            hidden = test.source.split("### BEGIN HIDDEN TESTS", 1)[1]
            assert "utils.load(" in hidden or "load_common()" in hidden, test.source  # its own data
            assert "graded(" in hidden


def _source_loads(report: course.AssignmentReport) -> int:
    source = nbformat.read(report.path, as_version=4)
    return sum(
        cell.source.count("utils.load(")
        for cell in source.cells
        if cell.cell_type == "code" and not cell.metadata.get("nbgrader", {}).get("grade")
    )


def test_every_exercise_has_points_and_every_written_part_a_cell() -> None:
    for path in sorted(CHAPTERS.glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        assignment, report = course.assignment_notebook(notebook, path.stem)
        if not report.exercises:
            continue
        labels = re.findall(r":label:\s*(\S+-ex-\d+)", "\n".join(c.source for c in notebook.cells))
        assert report.exercises == labels, path.name
        written = [c for c in assignment.cells if c.metadata["nbgrader"]["grade_id"].endswith("-written")]
        assert report.written_points == sum(c.metadata["nbgrader"]["points"] for c in written)
        # a written part in the exercise text ("answer in two sentences") has its graded cell
        by_id = {c.metadata["nbgrader"]["grade_id"]: c for c in assignment.cells}
        for label in labels:
            statement = by_id[f"{label}-statement"].source
            asks = re.search(r"\b(answer|explain|say|compare|discuss)\b.*\bsentences?\b|\bThen answer\b", statement)
            has_cell = any(c.metadata["nbgrader"]["grade_id"] == f"{label}-written" for c in written)
            assert has_cell or not asks, (label, statement[:200])


def test_a_chapter_off_the_convention_is_refused_naming_the_exercise() -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell("# T"),
        nbformat.v4.new_markdown_cell("## Exercises"),
        nbformat.v4.new_markdown_cell("```{exercise} One\n:label: t-ex-1\n\nDo it.\n```"),
        nbformat.v4.new_markdown_cell("```{solution-start} t-ex-1\n:class: dropdown\n```"),
        nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_markdown_cell("```{solution-end}\n```"),
    ]
    with pytest.raises(course.CourseError, match="t-ex-1 has no autograded test"):
        course.assignment_notebook(notebook, "t")
    grade = nbformat.v4.new_code_cell("### BEGIN HIDDEN TESTS\nassert x == 1\n### END HIDDEN TESTS")
    grade.metadata.update(tags=["grade"], atlas={"exercise": "t-ex-1", "points": "two"})
    notebook.cells.append(grade)
    with pytest.raises(course.CourseError, match="whole number"):
        course.assignment_notebook(notebook, "t")
    # two tests of one exercise (partial credit): two ids, the points added up
    grade.metadata["atlas"]["points"] = 2
    second = nbformat.from_dict(grade)
    second.metadata["atlas"] = {"exercise": "t-ex-1", "points": 1}
    notebook.cells.append(second)
    assignment, report = course.assignment_notebook(notebook, "t")
    ids = [c.metadata["nbgrader"]["grade_id"] for c in assignment.cells if c.metadata["nbgrader"].get("grade")]
    assert ids == ["t-ex-1-test", "t-ex-1-test-2"] and report.code_points == 3


def test_learner_copies_drop_the_tests_and_give_written_answers_a_cell() -> None:
    for path in sorted(CHAPTERS.glob("*.ipynb")):
        copy, report = learner_notebook(nbformat.read(path, as_version=4), name=path.name)
        text = nbformat.writes(copy)
        assert "HIDDEN TESTS" not in text and "graded(" not in text, path.name
        written = [c for c in copy.cells if "written" in c.metadata.get("tags", [])]
        answers = [c for c in copy.cells if "written-answer" in c.metadata.get("tags", [])]
        assert len(written) == len(answers) == report.written, path.name


def test_no_practice_check_shows_its_expected_value_in_any_traceback_mode(tmp_path: Path) -> None:
    """A student who turns on ``%xmode Verbose`` (every local of every frame in a traceback) or runs
    ``%debug`` after a check learns nothing: the check prints its verdict and raises nothing."""
    from nbclient import NotebookClient

    import utils

    split = utils.load("jwhr", "answered")
    expected = sum(len(dialogue.turns) for dialogue in split) / len(split)
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("%xmode Verbose"),
        nbformat.v4.new_code_cell(
            "import warnings\nimport utils\nfrom utils.exercises import check_mean_turns\n"
            "warnings.simplefilter('ignore')\nsplit = utils.load('jwhr', 'answered')"
        ),
        nbformat.v4.new_code_cell(f"check_mean_turns({expected + 0.25!r}, split)"),
        nbformat.v4.new_code_cell("check_mean_turns('not a number', split)"),
        nbformat.v4.new_code_cell("%debug"),
    ]
    NotebookClient(notebook, timeout=120, allow_errors=True, resources={"metadata": {"path": str(tmp_path)}}).execute()
    shown = json.dumps([cell.get("outputs", []) for cell in notebook.cells])
    assert "Not yet" in shown
    assert "Traceback" not in shown and '"error"' not in shown.replace('"output_type": "stream"', "")
    for form in {repr(expected), f"{expected:g}", f"{expected:.2f}", f"{expected:.3f}"}:
        assert form not in shown, form
