"""Write an nbgrader course from the chapters: one assignment per chapter with exercises.

Run from the repository root::

    atlas course --out course

The folder is an nbgrader course (``nbgrader_config.py`` and ``source/<chapter>/<chapter>.ipynb``);
everything after this command is nbgrader's own: ``nbgrader generate_assignment``, ``autograde``,
``formgrader``, ``generate_feedback``, ``export``. Each assignment holds what its exercises need,
not the whole chapter:

* the chapter's title and a note on the assignment, then the chapter's code cells the exercises
  depend on (found by the names they define and read), as locked cells;
* for each exercise: its statement (locked), the answer cell (an nbgrader solution cell whose
  reference solution sits between ``### BEGIN SOLUTION`` and ``### END SOLUTION``), the practice
  check (locked; it prints a verdict and grades nothing), the autograded test with its points (its
  grading code between ``### BEGIN HIDDEN TESTS`` and ``### END HIDDEN TESTS``: it loads the data
  itself and calls :func:`utils.teaching.exercises.graded`), and, where the exercise has a written part, its
  criteria (locked) and a manually graded answer cell whose reference text is the chapter's model
  answer.

The chapters carry the grading (see ``book/teaching.md``): after each exercise's check cell, a code
cell tagged ``grade`` holds the hidden test and a markdown cell tagged ``written`` the criteria of the
written part, each with ``{"atlas": {"exercise": <label>, "points": <n>}}`` in its metadata. The book
hides the tests and runs them on every build, so a test that no longer passes on the reference
solution fails the build. Learner copies (:mod:`utils.teaching.learner`) drop them.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import nbformat
from nbformat.corpus.words import generate_corpus_id

from utils.teaching.learner import (
    ANSWER_TAG,
    CHECK_TAG,
    GRADE_TAG,
    SOLUTION_TAG,
    WRITTEN_TAG,
    assigned_names,
    chapter_paths,
    default_notebooks,
    used_names,
)

COURSE_ID = "grounded-dialogue-atlas"
_SCHEMA_VERSION = 3  # nbgrader's cell metadata schema
_EXERCISE = re.compile(
    r"^\s*(?P<fence>```+|:::+)\{exercise\}\s*(?P<title>[^\n]*)\n(?P<options>(?:\s*:[\w-]+:[^\n]*\n)*)(?P<body>.*?)^\s*(?P=fence)\s*$",
    re.MULTILINE | re.DOTALL,
)
_LABEL = re.compile(r":label:\s*(\S+)")
_SOLUTION_START = re.compile(r"^\s*(```+|:::+)\{solution-start\}\s*(?P<label>\S+)", re.MULTILINE)
_SOLUTION_END = re.compile(r"^\s*(```+|:::+)\{solution-end\}", re.MULTILINE)
_ROLE = re.compile(r"\{[\w:+-]+\}`(?P<text>[^`]*)`")
_HIDDEN = re.compile(r"^### BEGIN HIDDEN TESTS$.*?^### END HIDDEN TESTS$", re.MULTILINE | re.DOTALL)
_HEADING = re.compile(r"^##\s+(?P<title>.+)$", re.MULTILINE)

CONFIG = '''\
# nbgrader configuration of the Grounded Dialogue Atlas course, written by `atlas course`.
# Every step from here on is nbgrader's own command, run in this folder:
#   nbgrader generate_assignment <chapter>   (release/<chapter>/ holds what students get)
#   atlas grade <chapter>                    (runs `nbgrader autograde <chapter>` and lists what went wrong)
#   nbgrader generate_feedback / export      (and the form grader, in JupyterLab's Nbgrader menu)
c = get_config()  # noqa: F821 (nbgrader provides it)
c.CourseDirectory.course_id = "{course_id}"

# Autograding runs each submission in a sandbox (bubblewrap) that sees neither this folder nor the
# network, and computes the hidden tests' verdicts here, outside the student's kernel
# (utils.teaching.grading; the teachers' guide, "What grading guards"). It replaces nbgrader's own Execute
# step: remove this block to grade as stock nbgrader does, in the student's kernel, as you.
c.Autograde.autograde_preprocessors = [
    "utils.teaching.grading.IsolatedExecute",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]
# A submission's budget: a cell that runs longer is stopped (the kernel is restarted and the notebook
# goes on); a notebook that runs longer in all is stopped there; memory is address space, in GiB.
c.IsolatedExecute.cell_timeout = {cell_timeout}
c.IsolatedExecute.notebook_timeout = {notebook_timeout}
c.IsolatedExecute.memory_limit = 8
# What the submissions see as their data: the class's data folder without the splits whose labels
# the projects hold out (share this folder with students, not your own). The verdicts read yours.
c.IsolatedExecute.data_dir = "student-data"
# The parsed cache the submissions read: of that folder only (atlas grade fills it), never yours.
c.IsolatedExecute.cache_dir = ".student-cache"
# A test cell of the release lacks its hidden tests, so nbgrader's own step warns that its checksum
# changed on every submission; this one warns only about cells a student changed.
c.Autograde.sanitize_preprocessors = [
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "utils.teaching.gradebook.QuietOverwriteCells",
    "nbgrader.preprocessors.CheckCellMetadata",
]

# Late work: due dates are in the gradebook (`atlas course --due ASSIGNMENT=DATE`, or
# `nbgrader db assignment add ASSIGNMENT --duedate=DATE`); a submission's time is its timestamp.txt.
# This takes the given share of the score per day, or part of a day, late (0 takes nothing).
c.AssignLatePenalties.plugin_class = "utils.teaching.gradebook.LatePenaltyPerDay"
c.LatePenaltyPerDay.per_day = {late_per_day}

# `nbgrader export` writes nbgrader's CSV with a grading_problems column. For an LMS:
#   nbgrader export --exporter=utils.teaching.gradebook.CanvasExport --to canvas.csv
#   nbgrader export --exporter=utils.teaching.gradebook.MoodleExport --assignment=<chapter> --to moodle.csv
c.ExportApp.plugin_class = "utils.teaching.gradebook.FlaggedCsvExport"

# `nbgrader zip_collect <chapter>` reads the file names of {lms_name}'s "download all submissions"
# (put the downloaded archive in downloaded/<chapter>/archive/).
# Other patterns: utils.teaching.course.ZIP_COLLECT_PATTERNS.
c.ZipCollectApp.collector_plugin = "nbgrader.plugins.FileNameCollectorPlugin"
c.FileNameCollectorPlugin.named_regexp = {zip_pattern!r}
'''


#: ``nbgrader zip_collect``'s file-name patterns for what each LMS's "download all submissions" gives
#: (matched against the extracted file's whole path). Canvas: ``doejane_12345_678901_wow.ipynb`` (with
#: ``LATE_`` before the user id when late, and ``-1``, ``-2`` after a resubmitted file's name); Moodle:
#: ``Jane Doe_1234567_assignsubmission_file_/wow.ipynb``.
ZIP_COLLECT_PATTERNS = {
    "canvas": r".*/[^/_]+_(?:LATE_)?(?P<student_id>\d+)_\d+_(?P<file_id>[^/]+?)(?:-\d+)?\.ipynb$",
    "moodle": r".*/[^/]*?_(?P<student_id>\d+)_assignsubmission_file_/(?P<file_id>[^/]+?)\.ipynb$",
}


def parse_due(text: str) -> tuple[str, datetime]:
    """``ASSIGNMENT=DATE`` as the assignment and an aware datetime (a date without a zone is UTC)."""
    name, sep, when = text.partition("=")
    if not sep or not name.strip() or not when.strip():
        raise ValueError(f"expected ASSIGNMENT=DATE (for example CHAPTER=2027-03-01T23:59+01:00), got {text!r}")
    try:
        moment = datetime.fromisoformat(when.strip())
    except ValueError:
        raise ValueError(
            f"{when.strip()!r} is not a date: write it as 2027-03-01T23:59 or 2027-03-01T23:59+01:00"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return name.strip(), moment


class CourseError(ValueError):
    """A chapter's exercises do not follow the convention the course is built from."""


@dataclass
class AssignmentReport:
    """What one assignment holds."""

    name: str
    path: Path
    exercises: list[str] = field(default_factory=list)
    code_points: int = 0
    written_points: int = 0
    setup_cells: int = 0

    @property
    def points(self) -> int:
        return self.code_points + self.written_points


def _tags(cell: nbformat.NotebookNode) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def _points(cell: nbformat.NotebookNode, name: str) -> tuple[str, int]:
    """The exercise label and points of a ``grade`` or ``written`` cell."""
    atlas = cell.get("metadata", {}).get("atlas", {})
    label, points = atlas.get("exercise"), atlas.get("points")
    if not isinstance(label, str) or not isinstance(points, int) or isinstance(points, bool) or points < 1:
        raise CourseError(
            f"{name}: a cell tagged {'/'.join(sorted(set(_tags(cell)) & {GRADE_TAG, WRITTEN_TAG}))} needs "
            f'metadata {{"atlas": {{"exercise": "<label>", "points": <whole number ≥ 1>}}}}, found {atlas!r}'
        )
    return label, points


def plain_markdown(text: str) -> str:
    """MyST roles as their text (``{ref}`x-ex-1``` -> ``x-ex-1``): nbgrader's form grader and a
    plain Jupyter render Markdown, not MyST. A value glued in by the book exists only there (a
    chapter writes it as an inline expression, ``{eval}`name```, which the assignment cannot run)."""

    def role_text(match: re.Match[str]) -> str:
        if match.group(0).startswith(("{glue", "{eval")):
            return "(a number the book's chapter shows)"
        text = match.group("text")
        shown = re.match(r"(?P<shown>.*?)\s*<[^>]*>$", text)
        return shown.group("shown") if shown else text

    return _ROLE.sub(role_text, text)


def _exercise_markdown(cell_source: str, number: int, points: tuple[int, int]) -> tuple[str, str]:
    """The label of an ``{exercise}`` cell and the cell as plain Markdown with its points."""
    match = _EXERCISE.search(cell_source)
    if match is None:
        raise CourseError(f"an exercise cell does not parse: {cell_source[:80]!r}")
    label_match = _LABEL.search(match.group("options"))
    if label_match is None:
        raise CourseError(f"the exercise {match.group('title')!r} has no :label:")
    code, written = points
    shares = [f"{code} points autograded"] + ([f"{written} points for the written answer"] if written else [])
    text = (
        f"### Exercise {number}: {plain_markdown(match.group('title').strip())}\n\n"
        f"*{', '.join(shares)}.*\n\n{plain_markdown(match.group('body').strip())}"
    )
    return label_match.group(1), text


def _python(source: str) -> str:
    """A cell's code as plain Python (IPython magics turned into calls), for reading its names."""
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(source)


def _defined_names(source: str) -> set[str]:
    """Every top-level name a cell binds: assignments, imports, functions and classes."""
    try:
        tree = ast.parse(_python(source))
    except SyntaxError:
        return set()
    names = set(assigned_names([ast.unparse(tree)]))
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.For, ast.With)):
            names.update(assigned_names([ast.unparse(node)]))
    return names


def _free_names(source: str) -> set[str]:
    """The names a cell reads that it does not bind itself anywhere (loop variables, parameters and
    comprehension variables included): what it needs from the cells before it."""
    try:
        tree = ast.parse(_python(source))
    except SyntaxError:
        return set()
    bound = _defined_names(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return used_names(_python(source)) - bound


def _needed_setup(before: Sequence[nbformat.NotebookNode], exercise_code: Sequence[str]) -> list[int]:
    """Indices of the code cells of ``before`` that the exercises' code needs, directly or through
    another needed cell; the cells the book hides (``remove-cell``: timing, Colab) are not needed."""
    defined_later: set[str] = set()
    needed: set[str] = set()
    for source in exercise_code:
        needed |= _free_names(source) - defined_later
        defined_later |= _defined_names(source)
    chosen: list[int] = []
    for index in range(len(before) - 1, -1, -1):
        cell = before[index]
        if cell.cell_type != "code" or "remove-cell" in _tags(cell):
            continue
        if _defined_names(cell.source) & needed:
            chosen.append(index)
            needed |= _free_names(cell.source)
    return sorted(chosen)


def _nbgrader(cell: nbformat.NotebookNode, grade_id: str, *, solution: bool, grade: bool, points: int = 0) -> None:
    metadata = {
        "grade": grade,
        "grade_id": grade_id,
        "locked": not solution,
        "schema_version": _SCHEMA_VERSION,
        "solution": solution,
    }
    if grade:
        metadata["points"] = points
    cell.metadata["nbgrader"] = metadata


def _locked(cell: nbformat.NotebookNode, grade_id: str) -> nbformat.NotebookNode:
    copy = nbformat.from_dict(cell)
    copy.metadata = {key: value for key, value in copy.metadata.items() if key in ("tags",)}
    copy.metadata["tags"] = [tag for tag in _tags(copy) if tag != "remove-cell"] or []
    if not copy.metadata["tags"]:
        del copy.metadata["tags"]
    if copy.cell_type == "code":
        copy.outputs, copy.execution_count = [], None
    else:
        copy.source = plain_markdown(copy.source)
    _nbgrader(copy, grade_id, solution=False, grade=False)
    return copy


def _exercise_section(cells: Sequence[nbformat.NotebookNode], name: str) -> tuple[int, int]:
    """Where the chapter's exercises start (their ``##`` heading) and end (the next ``##`` heading)."""
    first = next((i for i, c in enumerate(cells) if c.cell_type == "markdown" and _EXERCISE.search(c.source)), None)
    if first is None:
        return len(cells), len(cells)
    start = first
    for index in range(first - 1, -1, -1):
        cell = cells[index]
        if cell.cell_type == "markdown" and _HEADING.search(cell.source):
            start = index
            break
    end = next(
        (
            i
            for i in range(first + 1, len(cells))
            if cells[i].cell_type == "markdown"
            and _HEADING.search(cells[i].source)
            and not _EXERCISE.search(cells[i].source)
        ),
        len(cells),
    )
    return start, end


def assignment_notebook(notebook: nbformat.NotebookNode, name: str) -> tuple[nbformat.NotebookNode, AssignmentReport]:
    """The nbgrader source notebook of the chapter ``name`` and a report of what it holds."""
    cells = list(notebook.cells)
    report = AssignmentReport(name=name, path=Path(name))
    start, end = _exercise_section(cells, name)
    if start == len(cells):
        return nbformat.v4.new_notebook(), report
    section = cells[start:end]
    points = _section_points(section, name)

    # A cell tagged "answer" computes answers for the teachers' guide, and the other cells the book
    # hides (glue for the prose) serve the book alone: neither is part of an assignment.
    section = [
        cell
        for cell in section
        if ANSWER_TAG not in _tags(cell) and ("remove-cell" not in _tags(cell) or GRADE_TAG in _tags(cell))
    ]
    exercise_code = [c.source for c in section if c.cell_type == "code" and GRADE_TAG not in _tags(c)]
    setup = _needed_setup(cells[:start], exercise_code)
    report.setup_cells = len(setup)
    builder = _AssignmentCells(name, points, report)
    builder.out.extend(_opening_cells(cells, setup, name))
    for cell in section:
        builder.add(cell)
    if builder.in_solution is not None:
        raise CourseError(f"{name}: the solution of {builder.in_solution} has no {{solution-end}} cell")

    assignment = nbformat.v4.new_notebook()
    assignment.metadata = {
        "kernelspec": notebook.metadata.get(
            "kernelspec", {"display_name": "Python 3", "language": "python", "name": "python3"}
        ),
        "language_info": {"name": "python"},
    }
    assignment.cells = builder.out
    for cell in assignment.cells:
        cell.setdefault("id", generate_corpus_id())
    return assignment, report


def _section_points(section: Sequence[nbformat.NotebookNode], name: str) -> dict[str, list[int]]:
    """Each exercise's ``[autograded, written]`` points, summed over its cells tagged ``grade`` and ``written``."""
    points: dict[str, list[int]] = {}
    for cell in section:
        if GRADE_TAG in _tags(cell):
            grade_label, value = _points(cell, name)
            points.setdefault(grade_label, [0, 0])[0] += value
        elif WRITTEN_TAG in _tags(cell):
            grade_label, value = _points(cell, name)
            points.setdefault(grade_label, [0, 0])[1] += value
    return points


def _opening_cells(
    cells: Sequence[nbformat.NotebookNode], setup: Sequence[int], name: str
) -> list[nbformat.NotebookNode]:
    """The assignment's first cells: its introduction, the setup heading, Colab's install and the setup cells."""
    first_line = cells[0].source.split("\n", 1)[0] if cells and cells[0].cell_type == "markdown" else ""
    title = first_line.lstrip("# ").strip() or name
    out: list[nbformat.NotebookNode] = []
    intro = nbformat.v4.new_markdown_cell(
        f"# Exercises: {plain_markdown(title)}\n\n"
        f"An assignment of the Grounded Dialogue Atlas, drawn from its chapter *{plain_markdown(title)}* "
        "(read the chapter for the figures, tables and explanations this notebook leaves out).\n\n"
        "Run the cells in order. For each exercise, write your code in the cell that says "
        "`YOUR CODE HERE` (remove the `raise NotImplementedError()` line), run the practice check below "
        "it as often as you like, and write your answer to a written part in the cell that says "
        "`YOUR ANSWER HERE`. The practice checks grade nothing: your grade comes from tests that run "
        "when your teacher grades the notebook, on the data they load themselves. Do not rename the "
        "variables an exercise asks for, and do not delete or copy cells."
    )
    _nbgrader(intro, f"{name}-intro", solution=False, grade=False)
    out.append(intro)
    heading = nbformat.v4.new_markdown_cell(
        "## Setup\n\nThe chapter's code that the exercises build on: it imports the atlas and loads the splits "
        "they use. Each banner says which data the split was built on (the full official file, a partial "
        "copy, or the atlas's demo sample)."
    )
    _nbgrader(heading, f"{name}-setup", solution=False, grade=False)
    out.append(heading)
    colab = _colab_install(cells)
    # a chapter's one setup cell holds its Colab lines: copied among the setup, they install on Colab
    if colab and not any("google.colab" in cells[index].source for index in setup):
        install = nbformat.v4.new_code_cell(colab)
        _nbgrader(install, f"{name}-colab", solution=False, grade=False)
        out.append(install)
    for position, index in enumerate(setup):
        out.append(_locked(cells[index], f"{name}-setup-{position + 1}"))
    return out


class _AssignmentCells:
    """The assignment's cells as the chapter's exercise section is read, one cell at a time."""

    def __init__(self, name: str, points: dict[str, list[int]], report: AssignmentReport) -> None:
        self.name = name
        self.points = points
        self.report = report
        self.out: list[nbformat.NotebookNode] = []
        self.number = 0
        self.label: str | None = None
        self.in_solution: str | None = None
        self.solution_code: list[str] = []
        self.model_answer: dict[str, list[str]] = {}
        self.counter = 0
        self.open_answer: tuple[nbformat.NotebookNode, list[str]] | None = None  # names it defines: from its check
        self.tests_of: dict[str, int] = {}

    def next_id(self, kind: str) -> str:
        self.counter += 1
        return f"{self.label or self.name}-{kind}-{self.counter}"

    def add(self, cell: nbformat.NotebookNode) -> None:
        """Add what ``cell``, the next of the section, becomes in the assignment."""
        source, tags = cell.source, _tags(cell)
        if self.in_solution is not None:
            self._add_to_solution(cell, self.in_solution)
        elif cell.cell_type == "markdown" and (start_match := _SOLUTION_START.search(source)):
            self.in_solution = start_match.group("label")
        elif cell.cell_type == "markdown" and _EXERCISE.search(source):
            self._add_statement(source)
        elif GRADE_TAG in tags:
            self._add_test(cell)
        elif WRITTEN_TAG in tags:
            self._add_written(cell)
        else:
            if cell.cell_type == "code" and SOLUTION_TAG in tags:
                raise CourseError(
                    f"{self.name}: a solution cell outside a {{solution-start}} block (exercise {self.label})"
                )
            if CHECK_TAG in tags and self.open_answer is not None:
                answer, code = self.open_answer
                answer.source = _solution_source(code, wanted=used_names(source))
                self.open_answer = None
            self.out.append(_locked(cell, self.next_id("check" if CHECK_TAG in tags else "cell")))

    def _add_to_solution(self, cell: nbformat.NotebookNode, exercise: str) -> None:
        """Take a cell of ``exercise``'s solution block; at its end, add the answer cell it makes."""
        source = cell.source
        if cell.cell_type == "markdown" and _SOLUTION_END.search(source):
            answer = nbformat.v4.new_code_cell(_solution_source(self.solution_code))
            _nbgrader(answer, f"{exercise}-answer", solution=True, grade=False)
            self.out.append(answer)
            self.open_answer = (answer, list(self.solution_code))
            self.in_solution, self.solution_code = None, []
        elif cell.cell_type == "code":
            self.solution_code.append(source)
        else:
            self.model_answer.setdefault(exercise, []).append(plain_markdown(source))

    def _add_statement(self, source: str) -> None:
        points = self.points
        self.number += 1
        found = _label_of(source)
        graded = points.get(found, [0, 0]) if found is not None else [0, 0]
        label, text = _exercise_markdown(source, self.number, (graded[0], graded[1]))
        self.label = label
        if label not in points or not points[label][0]:
            raise CourseError(f"{self.name}: exercise {label} has no autograded test (a cell tagged {GRADE_TAG!r})")
        self.report.exercises.append(label)
        self.report.code_points += points[label][0]
        self.report.written_points += points[label][1]
        statement = nbformat.v4.new_markdown_cell(text)
        _nbgrader(statement, f"{label}-statement", solution=False, grade=False)
        self.out.append(statement)

    def _add_test(self, cell: nbformat.NotebookNode) -> None:
        exercise, value = _points(cell, self.name)
        hidden = _HIDDEN.search(cell.source)
        if hidden is None:
            raise CourseError(f"{self.name}: the test of {exercise} has no ### BEGIN/END HIDDEN TESTS block")
        test = nbformat.v4.new_code_cell(
            f"# The autograded test of exercise {exercise} ({value} points). Its code is hidden until your\n"
            "# teacher grades the notebook: it checks your answer on data it loads itself.\n" + hidden.group(0)
        )
        # an exercise may split its points over several tests (partial credit): each its own id
        self.tests_of[exercise] = self.tests_of.get(exercise, 0) + 1
        suffix = "" if self.tests_of[exercise] == 1 else f"-{self.tests_of[exercise]}"
        _nbgrader(test, f"{exercise}-test{suffix}", solution=False, grade=True, points=value)
        self.out.append(test)

    def _add_written(self, cell: nbformat.NotebookNode) -> None:
        exercise, value = _points(cell, self.name)
        criteria = nbformat.v4.new_markdown_cell(
            f"#### Written answer to exercise {exercise} ({value} points)\n\n"
            + plain_markdown(cell.source).split("\n", 1)[-1].strip()
        )
        _nbgrader(criteria, f"{exercise}-criteria", solution=False, grade=False)
        self.out.append(criteria)
        reference = "\n\n".join(self.model_answer.get(exercise, [])) or "(The chapter gives no model answer.)"
        answer = nbformat.v4.new_markdown_cell(reference)
        _nbgrader(answer, f"{exercise}-written", solution=True, grade=True, points=value)
        self.out.append(answer)


_MINUTES = re.compile(r"\((?:[^()]*,\s*)?(?P<minutes>\d+)\s+minutes\)\s*$")


@dataclass(frozen=True)
class ExerciseInfo:
    """One exercise of a chapter as its ``{exercise}`` cell states it: label, title and minutes."""

    label: str
    title: str
    minutes: int | None


def chapter_exercises(notebook: nbformat.NotebookNode) -> list[ExerciseInfo]:
    """The exercises of a chapter in order, with the minutes their titles give (``(project, 60 minutes)``)."""
    found = []
    for cell in notebook.cells:
        if cell.cell_type != "markdown":
            continue
        for match in _EXERCISE.finditer(cell.source):
            label = _LABEL.search(match.group("options"))
            if label is None:
                continue
            title = plain_markdown(match.group("title").strip())
            minutes = _MINUTES.search(title)
            found.append(ExerciseInfo(label.group(1), title, int(minutes.group("minutes")) if minutes else None))
    return found


def _colab_install(cells: Sequence[nbformat.NotebookNode]) -> str:
    """The chapter's Colab install lines (its setup cell's ``if "google.colab" in sys.modules:`` block),
    for the assignment: a release opened on Colab installs the atlas as a learner copy does."""
    for cell in cells:
        if cell.cell_type != "code" or "google.colab" not in cell.source:
            continue
        lines = cell.source.splitlines()
        start = next(i for i, line in enumerate(lines) if "google.colab" in line)
        block = [lines[start]]
        block += [line for line in lines[start + 1 :] if line.startswith((" ", "\t"))][:3]
        return "import sys\n\n" + "\n".join(block)
    return ""


def _label_of(source: str) -> str | None:
    match = _EXERCISE.search(source)
    label = _LABEL.search(match.group("options")) if match else None
    return label.group(1) if label else None


def _solution_source(code: Sequence[str], wanted: set[str] | None = None) -> str:
    """An answer cell: the names to define (those its check reads, else the last one the solution
    assigns), then the reference solution between nbgrader's markers."""
    assigned = assigned_names(code)
    names = [name for name in assigned if wanted is None or name in wanted] or assigned[-1:]
    lines = []
    if names:
        listed = ", ".join(f"`{name}`" for name in names)
        lines.append(f"# Define {listed} here (the exercise above says what each holds).")
    lines += ["### BEGIN SOLUTION", "\n\n".join(part.strip() for part in code), "### END SOLUTION"]
    return "\n".join(lines)


def write_course(
    out_dir: Path,
    *,
    source_dir: Path | None = None,
    names: Sequence[str] = (),
    cell_timeout: int = 60,
    notebook_timeout: int = 900,
    late_per_day: float = 0.1,
    lms: str = "canvas",
    due: Mapping[str, datetime] | None = None,
) -> list[AssignmentReport]:
    """Write the nbgrader course folder ``out_dir`` from the chapters in ``source_dir``.

    Only chapters with exercises become assignments; ``names`` picks some of them. An existing
    ``source/<chapter>`` notebook is replaced; nothing else in ``out_dir`` (the gradebook, releases,
    submissions) is touched.
    """
    source_dir = source_dir or default_notebooks()
    paths = chapter_paths(source_dir, names)
    reports = []
    built = []
    for path in paths:
        assignment, report = assignment_notebook(nbformat.read(path, as_version=4), path.stem)
        if report.exercises:
            built.append((assignment, report))
    if not built:
        raise FileNotFoundError(f"no chapter with exercises in {source_dir}")
    out_dir.mkdir(parents=True, exist_ok=True)
    config = out_dir / "nbgrader_config.py"
    if lms not in ZIP_COLLECT_PATTERNS:
        raise CourseError(f"unknown LMS {lms!r}: one of {', '.join(ZIP_COLLECT_PATTERNS)}")
    if not 0 <= late_per_day <= 1:
        raise CourseError(f"the late penalty per day is a share between 0 and 1, not {late_per_day!r}")
    text = CONFIG.format(
        course_id=COURSE_ID,
        cell_timeout=cell_timeout,
        notebook_timeout=notebook_timeout,
        late_per_day=late_per_day,
        lms_name={"canvas": "Canvas", "moodle": "Moodle"}[lms],
        zip_pattern=ZIP_COLLECT_PATTERNS[lms],
    )
    _write_text(config, text)
    if due:
        from utils.teaching.gradebook import set_due_dates  # nbgrader's gradebook: only for a course with due dates

        set_due_dates(out_dir, due, COURSE_ID)
    _write_held_out(out_dir, [report for _, report in built])
    for assignment, report in built:
        target = out_dir / "source" / report.name / f"{report.name}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        _write_text(target, nbformat.writes(assignment))
        report.path = target
        reports.append(report)
    return reports


def _write_held_out(out_dir: Path, reports: Sequence[AssignmentReport]) -> None:
    """The projects' inputs without labels, beside their assignments, and the students' data folder
    without the held-out splits (:mod:`utils.teaching.projects`)."""
    import warnings

    from utils import load
    from utils.config import data_dir
    from utils.teaching.projects import held_out_exercises, write_inputs, write_student_data

    exercises = {label: report.name for report in reports for label in report.exercises}
    specs = [spec for spec in held_out_exercises() if spec.exercise in exercises]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a demo sample says so in the assignment's own banners
        for spec in specs:
            loaded = [load(spec.dataset, split) for split in spec.splits]
            write_inputs(spec, out_dir / "source" / exercises[spec.exercise], loaded)
    write_student_data(out_dir / "student-data", data_dir(), held_out_exercises())


def _write_text(path: Path, text: str) -> None:
    """Write through a temporary file, so an interrupted run leaves the old file or the new one."""
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)
