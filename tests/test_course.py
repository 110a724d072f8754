"""The classroom course: the whole route with nbgrader's own commands on the demo samples (three
kinds of submission, see tests/nbgrader_route.py; the real files' route is
tests/test_course_real_files.py), and the rules of what a release may hold.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest
from nbgrader_route import CHAPTERS, STUDENTS, check_route, environment, nbgrader, route

from utils.teaching import course
from utils.teaching.learner import learner_notebook


@pytest.mark.slow
def test_a_class_is_graded_with_nbgrader_on_the_demo_samples(tmp_path: Path) -> None:
    result = route(tmp_path, data_dir=None)
    check_route(result)
    # 3 submissions of every assignment here; the guide promises 40 in under 10 minutes per assignment
    # on 2 cores: in CPU seconds, one core's worth is the stricter bound
    per_submission = result["seconds"] / (len(STUDENTS) * len(result["assignments"]))
    print(f"autograding: {per_submission:.1f} s of CPU per submission")
    assert per_submission * 40 < 600, per_submission


def test_no_released_notebook_holds_a_solution_a_test_an_expected_value_or_an_output(tmp_path: Path) -> None:
    env = environment(None, tmp_path)
    reports = course.write_course(tmp_path / "course", source_dir=CHAPTERS)
    assert reports and all(report.exercises for report in reports)
    for report in reports[:2]:  # nbgrader's release of two assignments; the source rules below hold for all
        nbgrader(tmp_path / "course", "generate_assignment", report.name, "--force", env=env)
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
            "import warnings\nimport utils\nfrom utils.teaching.exercises import check_mean_turns\n"
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
