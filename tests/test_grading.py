"""Grading that a submission cannot game: the attack corpus, the slips that must cost one exercise, and
the term's files (due dates, late penalties, Canvas and Moodle exports), through nbgrader's own commands.

The course is the ``begin`` assignment (its reference solutions take seconds on any data), built with
``atlas course`` and released with ``nbgrader generate_assignment``; each submission is graded with
``atlas grade`` (``nbgrader autograde`` with the course's isolation). On the demo samples without a data
directory, and on ``$ATLAS_DATA_DIR`` when the tests run with one (``make test`` on the real files).
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import nbformat
import pytest

from benchmarks.grade_class import answered
from tests.grading_attacks import ATTACKS, REAL_DATA_ONLY, SLIPS
from utils.teaching import answers, grading

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading needs bubblewrap (make system-deps)")

ASSIGNMENT = "begin"
ATLAS = [sys.executable, "-m", "utils"]
NBGRADER = [sys.executable, "-m", "nbgrader"]


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ)
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment.get('PATH', '')}"
    return subprocess.run(command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=1200, check=False)


def _answer_cells(notebook: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [c for c in notebook.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")]


def _submit(course: Path, student: str, notebook: nbformat.NotebookNode, timestamp: str | None = None) -> None:
    folder = course / "submitted" / student / ASSIGNMENT
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, folder / f"{ASSIGNMENT}.ipynb")
    if timestamp:
        (folder / "timestamp.txt").write_text(timestamp)


def _gradebook(course: Path):
    from nbgrader.api import Gradebook

    return Gradebook(f"sqlite:///{course / 'gradebook.db'}", "grounded-dialogue-atlas")


def _scores(course: Path) -> dict[str, float]:
    """Each student's autograded points (before any late penalty), from nbgrader's gradebook."""
    with _gradebook(course) as gradebook:
        return {
            student.id: float(gradebook.find_submission(ASSIGNMENT, student.id).code_score)
            for student in gradebook.students
        }


def _grade_rows(course: Path, student: str) -> list[tuple]:
    with _gradebook(course) as gradebook:
        notebook = gradebook.find_submission(ASSIGNMENT, student).notebooks[0]
        return sorted((grade.name, grade.auto_score, grade.manual_score) for grade in notebook.grades)


def _tree_digest(folder: Path, skip: tuple[str, ...]) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not str(path.relative_to(folder)).startswith(skip)
    }


def _survivors(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


class _Listener:
    """A TCP listener on the grader's loopback: anything a sandbox sends it is a leak."""

    def __init__(self) -> None:
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen()
        self.socket.settimeout(0.5)
        self.port = self.socket.getsockname()[1]
        self.received: list[bytes] = []
        self._stop = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self._stop:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                continue
            self.received.append(connection.recv(100) or b"(connected)")
            connection.close()

    def close(self) -> None:
        self._stop = True
        self.thread.join(timeout=5)
        self.socket.close()


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A released ``begin`` course with an honest student graded first, then every attack and slip."""
    root = tmp_path_factory.mktemp("grading")
    folder = root / "course"
    made = _run([*ATLAS, "course", "--out", str(folder), "--due", f"{ASSIGNMENT}=2030-01-01T12:00", ASSIGNMENT], root)
    assert made.returncode == 0, made.stderr
    config = folder / "nbgrader_config.py"
    config.write_text(config.read_text().replace("cell_timeout = 60", "cell_timeout = 20"))
    released = _run([*NBGRADER, "generate_assignment", ASSIGNMENT], folder)
    assert released.returncode == 0, released.stderr
    release = nbformat.read(folder / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    source = nbformat.read(folder / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    reference = answered(release, source)

    _submit(folder, "alice", reference)
    _submit(folder, "bob", release)
    _submit(folder, "late", reference, timestamp="2030-01-02 12:00:01 UTC")  # a day and a second late
    honest = _run([*ATLAS, "grade", ASSIGNMENT], folder)
    assert honest.returncode == 0, honest.stdout + honest.stderr
    before = {"scores": _scores(folder), "alice": _grade_rows(folder, "alice"), "honest_log": honest.stdout}

    canary = root / "canary.txt"
    canary.write_text("the teacher's file")
    listener = _Listener()
    markers = {}
    on_real_files = bool(os.environ.get("ATLAS_DATA_DIR"))
    for name, code in ATTACKS.items():
        if name in REAL_DATA_ONLY and not on_real_files:
            continue
        marker = f"atlas-attack-{name}-{os.getpid()}"
        markers[name] = marker
        attack = nbformat.from_dict(json.loads(json.dumps(release)))
        first = _answer_cells(attack)[0]
        first.source = (
            code.format(course=folder, canary=canary, port=listener.port, marker=marker) + "\n" + first.source
        )
        _submit(folder, f"attack-{name}", attack)
    for name, code in SLIPS.items():
        slipped = nbformat.from_dict(json.loads(json.dumps(reference)))
        second = _answer_cells(slipped)[1]  # begin-ex-2's answer: its value is assigned before the slip
        second.source += "\n" + code
        _submit(folder, f"slip-{name}", slipped)
    # a link in the submitted folder, which nbgrader's own copy would follow into source/
    linked = nbformat.from_dict(json.loads(json.dumps(release)))
    first = _answer_cells(linked)[0]
    first.source = (
        "import json, re\n"
        "for cell in json.load(open('notes.txt'))['cells']:\n"
        "    found = re.search(r'### BEGIN SOLUTION\\n(.*?)### END SOLUTION', ''.join(cell['source']), re.S)\n"
        "    if found and cell['metadata'].get('nbgrader', {}).get('solution'):\n"
        "        exec(found.group(1), globals())\n" + first.source
    )
    _submit(folder, "attack-symlink_to_source", linked)
    (folder / "submitted" / "attack-symlink_to_source" / ASSIGNMENT / "notes.txt").symlink_to(
        Path("../../../source") / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    )
    digest_before = _tree_digest(
        folder, skip=("autograded", "grading", "gradebook.db", "submitted", "feedback", ".student-cache")
    )
    started = time.monotonic()
    attacked = _run([*ATLAS, "grade", ASSIGNMENT], folder)
    seconds = time.monotonic() - started
    time.sleep(10)  # the detached process's delay: had it survived, it would have written by now
    listener.close()
    return {
        "folder": folder,
        "before": before,
        "after": _scores(folder),
        "log": attacked.stdout + attacked.stderr,
        "status": attacked.returncode,
        "canary": canary,
        "markers": markers,
        "listener": listener,
        "digest_before": digest_before,
        "seconds": seconds,
    }


def test_the_reference_solutions_get_every_autograded_point(course: dict) -> None:
    source = nbformat.read(course["folder"] / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    total = sum(c.metadata["nbgrader"]["points"] for c in source.cells if grading._is_test(c))
    assert course["before"]["scores"]["alice"] == total
    assert course["before"]["scores"]["bob"] == 0


@pytest.mark.parametrize("attack", [*sorted(ATTACKS), "symlink_to_source"])
def test_an_attack_scores_what_an_untouched_release_scores(course: dict, attack: str) -> None:
    if attack in REAL_DATA_ONLY and f"attack-{attack}" not in course["after"]:
        pytest.skip(f"{attack} attacks the real files' held-out labels; this run has the demo samples")
    assert course["after"][f"attack-{attack}"] == course["before"]["scores"]["bob"] == 0, course["log"]


def test_what_a_submission_writes_reaches_no_terminal_or_spreadsheet_as_code(course: dict) -> None:
    assert "\x1b" not in course["log"]
    exported = _run([*NBGRADER, "export", "--to", "grades.csv"], course["folder"])
    assert exported.returncode == 0, exported.stderr
    for row in csv.DictReader((course["folder"] / "grades.csv").open()):
        for value in row.values():
            assert not value.startswith(("=", "+", "@")) and "\x1b" not in value, row


def test_no_attack_changes_another_students_grade(course: dict) -> None:
    folder = course["folder"]
    assert _grade_rows(folder, "alice") == course["before"]["alice"]
    assert course["after"]["alice"] == course["before"]["scores"]["alice"]


def test_no_attack_changes_a_file_or_leaves_a_process_or_reaches_the_network(course: dict) -> None:
    assert course["canary"].read_text() == "the teacher's file"
    # what grading and the exports write are the grader's own files
    skip = (
        "autograded",
        "grading",
        "gradebook.db",
        "submitted",
        "feedback",
        ".student-cache",
        "grades.csv",
        "canvas.csv",
        "moodle.csv",
    )
    assert _tree_digest(course["folder"], skip=skip) == course["digest_before"]
    assert not [name for name, marker in course["markers"].items() if _survivors(marker)]
    assert course["listener"].received == []


def test_a_killed_runner_is_listed_with_its_reason(course: dict) -> None:
    problems = json.loads((course["folder"] / "grading" / ASSIGNMENT / "attack-kill_the_runner.json").read_text())[
        "problems"
    ]
    assert problems, "a notebook that killed its runner must be reported"
    assert "to look at" in course["log"] and "attack-kill_the_runner" in course["log"]


def test_a_hang_that_swallows_ctrl_c_costs_only_its_exercise(course: dict) -> None:
    report = json.loads((course["folder"] / "grading" / ASSIGNMENT / "slip-hang_ignoring_interrupt.json").read_text())
    assert any("begin-ex-2" in problem and "stopped" in problem for problem in report["problems"]), report
    assert report["passed"] == report["tests"] - 1
    assert course["after"]["slip-hang_ignoring_interrupt"] == course["before"]["scores"]["alice"] - 3


def test_a_100mb_line_costs_nothing_but_its_output(course: dict) -> None:
    assert course["after"]["slip-flood_100mb_line"] == course["before"]["scores"]["alice"]
    graded = nbformat.read(
        course["folder"] / "autograded" / "slip-flood_100mb_line" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4
    )
    assert max(len(json.dumps(cell.get("outputs", []))) for cell in graded.cells if cell.cell_type == "code") < 100_000


def test_feedback_shows_no_machine_path(course: dict) -> None:
    folder = course["folder"]
    feedback = _run([*NBGRADER, "generate_feedback", ASSIGNMENT, "--force"], folder)
    assert feedback.returncode == 0, feedback.stderr
    # an attacker's own code may hold any path it likes: the pages of the others must show none
    pages = [page for page in (folder / "feedback").rglob("*.html") if not page.parts[-3].startswith("attack-")]
    assert len(pages) >= 3
    places = {str(Path(sys.prefix)), str(Path(grading.__file__).parents[1]), str(folder), str(Path.home())}  # utils/
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert not [place for place in places if place in text], page


def test_no_spurious_checksum_warning(course: dict) -> None:
    assert "checksum" not in course["before"]["honest_log"]


def test_a_late_submission_loses_the_configured_share(course: dict) -> None:
    scores = course["before"]["scores"]
    assert scores["late"] == scores["alice"]  # the raw score; the penalty is applied in the export
    folder = course["folder"]
    exported = _run([*NBGRADER, "export", "--to", "grades.csv"], folder)
    assert exported.returncode == 0, exported.stderr
    rows = {row["student_id"]: row for row in csv.DictReader((folder / "grades.csv").open())}
    # two days begun late at 10 % a day (the course's default): 20 % of the score taken
    assert float(rows["late"]["late_submission_penalty"]) == pytest.approx(0.2 * scores["alice"])
    assert float(rows["late"]["score"]) == pytest.approx(0.8 * scores["alice"])
    assert float(rows["alice"]["late_submission_penalty"]) == 0
    assert "grading_problems" in rows["alice"]
    assert rows["attack-kill_the_runner"]["grading_problems"]


def test_canvas_and_moodle_files_have_their_import_layouts(course: dict) -> None:
    folder = course["folder"]
    exporter = "--exporter=utils.teaching.gradebook.CanvasExport"
    canvas = _run([*NBGRADER, "export", exporter, "--to", "canvas.csv"], folder)
    assert canvas.returncode == 0, canvas.stderr
    header, *rows = list(csv.reader((folder / "canvas.csv").open()))
    # Canvas's gradebook export layout, which its import reads back: five identity columns, then assignments
    assert header[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"] and header[5:] == [ASSIGNMENT]
    by_id = {row[1]: row for row in rows}
    assert float(by_id["late"][5]) == pytest.approx(0.8 * course["before"]["scores"]["alice"])
    moodle = _run(
        [
            *NBGRADER,
            "export",
            "--exporter=utils.teaching.gradebook.MoodleExport",
            "--assignment",
            ASSIGNMENT,
            "--to",
            "moodle.csv",
        ],
        folder,
    )
    assert moodle.returncode == 0, moodle.stderr
    table = list(csv.DictReader((folder / "moodle.csv").open()))
    # the columns Moodle's offline-grading importer requires (mod/assign/feedback/offline/importgradeslib.php)
    assert {"Identifier", "Grade", "Last modified (grade)"} <= set(table[0])
    assert all(row["Identifier"].startswith("Participant ") for row in table)
    by_participant = {row["Identifier"].removeprefix("Participant "): row for row in table}
    assert float(by_participant["alice"]["Grade"]) == course["before"]["scores"]["alice"]


def test_the_class_grades_within_its_budget(course: dict) -> None:
    # 13 attacks and 2 slips, one of which hangs for a cell's budget: a few seconds each
    assert course["seconds"] < 20 * (len(ATTACKS) + len(SLIPS)) + 60


# -- the parts, without a course -----------------------------------------------------------------------


def test_answers_round_trip_the_kinds_exercises_ask_for() -> None:
    import numpy as np
    import pandas as pd

    values = {
        "count": 3,
        "share": 0.25,
        "labels": {"Fully attributable": 4, "Generic": 2},
        "series": pd.Series({"a": 0.5, "b": 0.25}),
        "frame": pd.DataFrame({"x": [1, 2]}, index=["p", "q"]),
        "keys": {("d1", 2): "no_passages_used"},
        "array": np.array([1.5, 2.5]),
        "flag": True,
        "nan": float("nan"),
    }
    decoded = answers.decode(json.dumps(answers.encode(values)))
    assert decoded["count"] == 3 and decoded["labels"] == values["labels"] and decoded["keys"] == values["keys"]
    pd.testing.assert_series_equal(decoded["series"], values["series"])
    pd.testing.assert_frame_equal(decoded["frame"], values["frame"])
    assert list(decoded["array"]) == [1.5, 2.5] and decoded["flag"] is True and decoded["nan"] != decoded["nan"]


def test_a_hostile_hand_in_is_data_or_refused() -> None:
    encoded = answers.encode({"function": len, "missing": answers.Missing("x")})
    decoded = answers.decode(json.dumps(encoded))
    assert isinstance(decoded["function"], answers.Unreadable) and isinstance(decoded["missing"], answers.Missing)
    for text in ("[1, 2]", '{"a": {"__atlas_kind__": "pickle", "items": []}}', "not json", '{"a": ' * 5000):
        try:
            result = answers.decode(text)
        except answers.AnswerFormatError:
            continue
        assert all(isinstance(value, answers.Unreadable) for value in result.values())


def test_a_verdict_is_the_tests_own_and_names_no_expected_value() -> None:
    test = "from utils.teaching.exercises import graded\nassert answer == 42, 'ex: not yet, re-read the task'\n"
    assert grading.names_handed_in(test) == ["answer"]
    assert grading.verdict_of(test, {"answer": 42}).passed
    failed = grading.verdict_of(test, {"answer": 41}, exercise="ex")
    assert not failed.passed and "42" not in failed.message
    assert "not defined" in grading.verdict_of(test, {"answer": answers.Missing("answer")}).message


def test_answers_copied_from_the_solutions_or_each_other_are_listed(course: dict) -> None:
    rows = list(csv.DictReader((course["folder"] / "grading" / ASSIGNMENT / "similarity.csv").open()))
    assert {"alice", "late"} <= {row["student"] for row in rows if row["like"] == "the reference solution"}
    assert any(row["student"] == "alice" and row["like"] == "late" for row in rows)
    assert not any(row["student"] == "bob" for row in rows)  # an untouched release copies nothing
    assert "to read for copying" in course["log"] or "to read for copying" in course["before"]["honest_log"]


def test_an_answer_that_calls_the_chapters_answering_helper_is_listed(tmp_path: Path) -> None:
    def notebook(code: str) -> nbformat.NotebookNode:
        cell = nbformat.v4.new_code_cell(f"### BEGIN SOLUTION\n{code}\n### END SOLUTION")
        cell.metadata["nbgrader"] = {"solution": True, "grade_id": "jwhr-ex-1-answer", "grade": False, "locked": False}
        return nbformat.v4.new_notebook(cells=[cell])

    (tmp_path / "source" / "jwhr").mkdir(parents=True)
    nbformat.write(notebook("step_origins = counts / total"), tmp_path / "source" / "jwhr" / "jwhr.ipynb")
    for student, code in (
        ("eve", "frame = stats.summary_frame(splits)\nstep_origins = frame.loc['x']"),
        ("ann", "x = 1"),
    ):
        (tmp_path / "submitted" / student / "jwhr").mkdir(parents=True)
        nbformat.write(notebook(code), tmp_path / "submitted" / student / "jwhr" / "jwhr.ipynb")
    listed = grading.similarity_report(tmp_path, "jwhr")
    assert [(item.student, item.like) for item in listed] == [
        ("eve", "the chapter's helper summary_frame(), which computes the answer")
    ]


@pytest.mark.parametrize(
    ("lms", "names"),
    [
        (
            "canvas",
            {
                "doejane_1001_555001_begin.ipynb": "1001",
                "smithjohn_LATE_1002_555002_begin.ipynb": "1002",
                "leeann_1003_555003_begin-1.ipynb": "1003",
            },
        ),
        (
            "moodle",
            {
                "Jane Doe_2001_assignsubmission_file_/begin.ipynb": "2001",
                "John Smith_2002_assignsubmission_file_/begin.ipynb": "2002",
                "Ann Lee_2003_assignsubmission_file_/begin.ipynb": "2003",
            },
        ),
    ],
)
def test_zip_collect_reads_the_file_names_of_the_lms_download(tmp_path: Path, lms: str, names: dict[str, str]) -> None:
    import zipfile

    folder = tmp_path / "course"
    made = _run([*ATLAS, "course", "--out", str(folder), "--lms", lms, ASSIGNMENT], tmp_path)
    assert made.returncode == 0, made.stderr
    assert _run([*NBGRADER, "generate_assignment", ASSIGNMENT], folder).returncode == 0
    release = (folder / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_bytes()
    archive = folder / "downloaded" / ASSIGNMENT / "archive"
    archive.mkdir(parents=True)
    with zipfile.ZipFile(archive / "submissions.zip", "w") as bundle:
        for name in names:
            bundle.writestr(name, release)
    collected = _run([*NBGRADER, "zip_collect", ASSIGNMENT], folder)
    assert collected.returncode == 0, collected.stdout + collected.stderr
    for student in names.values():
        assert (folder / "submitted" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").is_file(), collected.stderr


@pytest.mark.parametrize(
    ("config", "said"),
    [
        (None, "has no nbgrader_config.py"),
        ("c.Autograde.sanitize_ingested = True\n", "does not isolate submissions"),
        ('c.AutogradeApp.preprocessors = ["utils.grading.IsolatedExecute"]\n', "was written by an earlier atlas"),
    ],
)
def test_a_course_folder_that_would_not_isolate_is_refused_before_grading(
    tmp_path: Path, config: str | None, said: str
) -> None:
    if config is not None:
        (tmp_path / "nbgrader_config.py").write_text(config, encoding="utf-8")
    with pytest.raises(grading.GradingSetupError, match=said):
        grading._check_course_config(tmp_path)
