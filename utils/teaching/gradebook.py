"""The atlas's pieces of an nbgrader course's term: due dates, late penalties, exports for an LMS.

Each is an nbgrader plugin or preprocessor, named in the course's ``nbgrader_config.py`` (written by
``atlas course``), so every step stays nbgrader's own command:

* :class:`LatePenaltyPerDay`: ``nbgrader autograde`` takes a share of the points per day (or part
  of a day) late, from the ``timestamp.txt`` of a submission and the assignment's due date;
* :func:`set_due_dates`: ``atlas course --due CHAPTER=2027-03-01T23:59+01:00`` writes due dates into the gradebook;
* :class:`FlaggedCsvExport`, :class:`CanvasExport`, :class:`MoodleExport`: ``nbgrader export`` writes
  nbgrader's CSV with a column of grading problems, a Canvas gradebook import file, or a Moodle
  grading worksheet;
* :class:`QuietOverwriteCells`: nbgrader's ``OverwriteCells``, without the "checksum has changed"
  warning for an untouched test cell (its hidden tests were removed from the release, so its checksum
  always differs): the warning is left for a cell a student really changed.

The column layouts follow each system's own import code or documentation, named at each class.
"""

from __future__ import annotations

import csv
import json
import math
import re
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins import ExportPlugin, LateSubmissionPlugin
from nbgrader.preprocessors import OverwriteCells
from traitlets import Float, Unicode

from utils.teaching.grading import printable, safe_name

_HIDDEN = re.compile(r"^### BEGIN HIDDEN TESTS$.*?^### END HIDDEN TESTS$\n?", re.MULTILINE | re.DOTALL)
_DAY = 24 * 3600


class LatePenaltyPerDay(LateSubmissionPlugin):
    """A share of the score per day late, each day begun counting whole, up to the whole score.

    ``c.LatePenaltyPerDay.per_day = 0.1`` takes 10 % a day: one second late costs 10 %, a day and a
    second 20 %; ten days or more, everything. ``per_day = 0`` takes nothing.
    """

    per_day = Float(0.1, help="Share of the score taken per day (or part of one) late, between 0 and 1.").tag(
        config=True
    )

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float) -> float | None:
        if total_seconds_late <= 0 or self.per_day <= 0:
            return 0.0
        days = math.ceil(total_seconds_late / _DAY)
        penalty = min(1.0, self.per_day * days) * score
        self.log.info("%s is %d day(s) late: %.2f of %.2f points taken", student_id, days, penalty, score)
        return penalty


def set_due_dates(course: Path, due: Mapping[str, datetime], course_id: str) -> None:
    """Write each assignment's due date into the course's gradebook (creating the assignment's row)."""
    url = f"sqlite:///{(course / 'gradebook.db').resolve()}"
    with Gradebook(url, course_id) as gradebook:
        for name, moment in due.items():
            # nbgrader stores naive UTC
            gradebook.update_or_create_assignment(name, duedate=moment.astimezone(UTC).replace(tzinfo=None))


class QuietOverwriteCells(OverwriteCells):
    """nbgrader's ``OverwriteCells``, warning only about cells a student changed."""

    _released = ""

    def preprocess_cell(self, cell: Any, resources: Any, cell_index: int) -> tuple[Any, Any]:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        self._released, self._untouched = "", False
        if grade_id is not None:
            try:
                source = self.gradebook.find_source_cell(grade_id, self.notebook_id, self.assignment_id).source
            except MissingEntry:
                source = None
            if source is not None:
                self._released = _HIDDEN.sub("", source)
                given = cell.source.rstrip()
                self._untouched = given in (self._released.rstrip(), source.rstrip())
        return super().preprocess_cell(cell, resources, cell_index)

    def report_change(self, name: str, attr: str, old: Any, new: Any) -> None:
        if attr == "checksum" and getattr(self, "_untouched", False):
            return  # the release's copy of a test cell, as nbgrader made it: nothing changed
        super().report_change(name, attr, old, new)


# -- exports ---------------------------------------------------------------------------------------------


def _rows(gradebook: Gradebook, assignments: list[str], students: list[str]) -> Iterator[dict[str, Any]]:
    """One row per assignment and student, as nbgrader's own CSV export computes it."""
    for assignment in gradebook.assignments:
        if assignments and assignment.name not in assignments:
            continue
        for student in gradebook.students:
            if students and student.id not in students:
                continue
            row: dict[str, Any] = {
                "assignment": assignment.name,
                "duedate": assignment.duedate or "",
                "student_id": student.id,
                "last_name": student.last_name or "",
                "first_name": student.first_name or "",
                "email": student.email or "",
                "max_score": assignment.max_score,
                "timestamp": "",
                "raw_score": 0.0,
                "late_submission_penalty": 0.0,
                "score": 0.0,
                "submitted": False,
            }
            try:
                submission = gradebook.find_submission(assignment.name, student.id)
            except MissingEntry:
                pass
            else:
                penalty = submission.late_submission_penalty or 0.0
                row.update(
                    timestamp=submission.timestamp or "",
                    raw_score=submission.score,
                    late_submission_penalty=penalty,
                    score=max(0.0, submission.score - penalty),
                    submitted=True,
                )
            yield row


def grading_problems(course: Path, assignment: str, student: str) -> list[str]:
    """The problems ``atlas grade`` recorded for one submission (``grading/<assignment>/<student>.json``)."""
    path = course / "grading" / safe_name(assignment) / f"{safe_name(student)}.json"
    try:
        return [str(problem) for problem in json.loads(path.read_text(encoding="utf-8")).get("problems", [])]
    except (OSError, ValueError, AttributeError):
        return []


def _cell(value: Any) -> Any:
    """A cell a spreadsheet shows as text: a student's text that starts like a formula (``=HYPERLINK(...)``)
    is quoted with an apostrophe, and control characters are replaced."""
    if not isinstance(value, str):
        return value
    text = printable(value)
    return f"'{text}" if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _write_csv(destination: str, header: list[str], rows: list[list[Any]]) -> None:
    rows = [[_cell(value) for value in row] for row in rows]
    target = Path(destination)
    partial = target.with_name(f".{target.name}.partial")
    with partial.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    partial.replace(target)


def _points(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


class FlaggedCsvExport(ExportPlugin):
    """nbgrader's CSV (the same columns) plus ``grading_problems``: what went wrong grading each submission."""

    def export(self, gradebook: Gradebook) -> None:
        keys = [
            "assignment",
            "duedate",
            "timestamp",
            "student_id",
            "last_name",
            "first_name",
            "email",
            "raw_score",
            "late_submission_penalty",
            "score",
            "max_score",
        ]
        course = Path.cwd()
        rows = [
            [row[key] for key in keys] + [" | ".join(grading_problems(course, row["assignment"], row["student_id"]))]
            for row in _rows(gradebook, list(map(str, self.assignment)), list(map(str, self.student)))
        ]
        _write_csv(self.to or "grades.csv", [*keys, "grading_problems"], rows)
        self.log.info("Exported grades to %s", self.to or "grades.csv")


class CanvasExport(ExportPlugin):
    """A Canvas gradebook import file: ``Student, ID, SIS User ID, SIS Login ID, Section``, then one
    column per assignment (Canvas's own gradebook export layout, which its import reads back).

    ``ID`` is the nbgrader student id: collect Canvas downloads with ``nbgrader zip_collect`` as the
    course's configuration does, and it is the Canvas user id the file names carry. A column whose
    name Canvas does not know becomes a new assignment on import: rename a column to the Canvas
    assignment's name, or set ``c.CanvasExport.column = "{assignment} ({canvas_id})"``-style names.
    """

    section = Unicode("", help="The Section column's value for every row (Canvas matches on ID).").tag(config=True)

    def export(self, gradebook: Gradebook) -> None:
        table: dict[str, dict[str, Any]] = {}
        names: list[str] = []
        for row in _rows(gradebook, list(map(str, self.assignment)), list(map(str, self.student))):
            if row["assignment"] not in names:
                names.append(row["assignment"])
            entry = table.setdefault(
                row["student_id"],
                {"name": ", ".join(p for p in (row["last_name"], row["first_name"]) if p) or row["student_id"]},
            )
            entry[row["assignment"]] = _points(row["score"]) if row["submitted"] else ""
        header = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *names]
        rows = [
            [entry["name"], student, "", "", self.section, *(entry.get(name, "") for name in names)]
            for student, entry in table.items()
        ]
        _write_csv(self.to or "canvas.csv", header, rows)
        self.log.info("Exported a Canvas gradebook import file to %s", self.to or "canvas.csv")


class MoodleExport(ExportPlugin):
    """A Moodle assignment's offline grading worksheet, one assignment a file: the columns Moodle's
    importer requires (``Identifier``, ``Grade``, ``Last modified (grade)``; moodle/moodle
    ``mod/assign/feedback/offline/importgradeslib.php``), with ``Full name`` and ``Feedback comments``.

    ``Identifier`` is ``Participant <id>``, the number in the folder names of Moodle's "Download all
    submissions", which the course's ``zip_collect`` configuration takes as the nbgrader student id.
    """

    def export(self, gradebook: Gradebook) -> None:
        chosen = list(map(str, self.assignment))
        rows = list(_rows(gradebook, chosen, list(map(str, self.student))))
        assignments = {row["assignment"] for row in rows}
        if len(assignments) > 1:
            raise ValueError(
                "a Moodle grading worksheet holds one assignment: run nbgrader export with --assignment NAME "
                f"(this gradebook has {', '.join(sorted(assignments))})"
            )
        now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")
        course = Path.cwd()
        lines = []
        for row in rows:
            if not row["submitted"]:
                continue
            problems = grading_problems(course, row["assignment"], row["student_id"])
            comment = f"{_points(row['score'])} of {_points(row['max_score'])} points"
            if row["late_submission_penalty"]:
                comment += f" ({_points(row['late_submission_penalty'])} taken for lateness)"
            if problems:
                comment += ". Grading problems: " + "; ".join(problems)
            name = " ".join(p for p in (row["first_name"], row["last_name"]) if p) or row["student_id"]
            lines.append(
                [
                    f"Participant {row['student_id']}",
                    name,
                    _points(row["score"]),
                    _points(row["max_score"]),
                    now,
                    comment,
                ]
            )
        header = ["Identifier", "Full name", "Grade", "Maximum Grade", "Last modified (grade)", "Feedback comments"]
        _write_csv(self.to or "moodle.csv", header, lines)
        self.log.info("Exported a Moodle grading worksheet to %s", self.to or "moodle.csv")
