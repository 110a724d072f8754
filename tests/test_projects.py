"""Projects scored like a shared task: the held-out labels are in nothing a student receives.

``atlas course`` writes each project's inputs beside its assignment (released with it) and the
students' data folder; both are searched here for the held-out labels: no file identical to a
held-out split's file, no input column that is a label, and no line that holds a held-out item's
text beside its label. On the demo samples, and on ``$ATLAS_DATA_DIR``'s files where the test runs
with real data (BEGIN's CMU-DoG and TopicalChat dev files on ``../shared/data``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

import utils
from conftest import _real_data_dir
from utils.config import data_dir
from utils.teaching import course, projects

CHAPTERS = ("begin", "faithdial", "wise", "jwhr", "wow")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


REAL = _real_data_dir()


@pytest.fixture(autouse=True)
def _the_data(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real files where the suite has them (the course is written from the teacher's data)."""
    if REAL is not None:
        monkeypatch.setenv("ATLAS_DATA_DIR", str(REAL))


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("projects") / "course"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ATLAS_OFFLINE", "1")
        patch.setenv("ATLAS_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        patch.setenv("ATLAS_DATA_DIR", str(REAL) if REAL is not None else str(tmp_path_factory.mktemp("no-data")))
        course.write_course(folder, names=CHAPTERS)
    return folder


def test_every_project_with_held_out_labels_is_declared() -> None:
    declared = {spec.exercise for spec in projects.held_out_exercises()}
    assert {"begin-ex-4", "faithdial-ex-4", "wise-ex-4", "jwhr-ex-4", "wow-ex-4"} <= declared


@pytest.mark.parametrize("exercise", ["begin-ex-4", "faithdial-ex-4", "wise-ex-4", "jwhr-ex-4", "wow-ex-4"])
def test_the_inputs_hold_ids_and_no_label(exercise: str) -> None:
    spec = projects.held_out(exercise)
    inputs = projects.project_inputs(exercise, *(utils.load(spec.dataset, split) for split in spec.splits))
    assert "id" in inputs.columns and inputs["id"].is_unique and len(inputs)
    assert not set(spec.labels) & set(inputs.columns)


def test_the_course_writes_the_inputs_and_a_students_data_folder(written: Path) -> None:
    for spec in projects.held_out_exercises():
        chapter = spec.exercise.split("-ex-")[0]
        released = written / "source" / chapter / projects.INPUTS_FOLDER / f"{spec.exercise}.jsonl"
        rows = [json.loads(line) for line in released.read_text(encoding="utf-8").splitlines()]
        assert rows and not set(spec.labels) & set(rows[0])
    assert (written / "student-data").is_dir()
    assert 'c.IsolatedExecute.data_dir = "student-data"' in (written / "nbgrader_config.py").read_text()


def test_no_held_out_label_is_in_what_students_receive(written: Path) -> None:
    source_data = data_dir()
    received = [p for p in (written / "source").rglob("*") if p.is_file() and p.suffix != ".ipynb"]
    received += [p for p in (written / "student-data").rglob("*") if p.is_file()]
    withheld = projects.withheld_files(projects.held_out_exercises())
    held_digests = {_digest(source_data / path) for path in withheld if (source_data / path).is_file()}
    for path in received:
        assert _digest(path) not in held_digests, path
        if path.is_relative_to(written / "student-data"):
            relative = path.relative_to(written / "student-data").as_posix()
            # a file of fitting and held-out items alike is there only as its fitting part
            assert relative not in withheld or relative.startswith("jwhr/"), path
    # JWHR's chunks, one session a line: no held-out session is in the students' copies
    from utils.datasets.jwhr.exercises import split_sessions

    _, held_sessions = split_sessions(utils.load("jwhr", "answered"), utils.load("jwhr", "not_answered"))
    held_ids = {str(session.id) for session in held_sessions}
    for chunk in (written / "student-data" / "jwhr").glob("*.jsonl"):
        kept = {str(json.loads(line)["id"]) for line in chunk.read_text(encoding="utf-8").splitlines() if line}
        assert kept and not kept & held_ids, chunk
    # each held-out item's text never stands on one line with its label
    from utils.datasets.begin.exercises import scored_responses

    labelled = scored_responses(utils.load("begin", "cmu_dev"), utils.load("begin", "tc_dev"))
    pairs = [(row.response, row.label) for row in labelled.itertuples() if len(row.response) > 20]
    texts = [path.read_text(encoding="utf-8", errors="replace") for path in received]
    for response, label in pairs:
        for text in texts:
            for line in (line for line in text.splitlines() if response in line):
                assert label not in line, (response, label)


def test_in_an_assignment_the_practice_check_checks_the_form(written: Path, monkeypatch, capsys) -> None:
    from utils.datasets.begin.exercises import check_transfer_scores

    monkeypatch.chdir(written / "source" / "begin")
    ids = [json.loads(line)["id"] for line in (Path(projects.INPUTS_FOLDER) / "begin-ex-4.jsonl").open()]
    dev = utils.load("begin", "wow_dev")
    check_transfer_scores({key: 0.5 for key in ids}, dev)
    assert "scored against the labels your teacher keeps" in capsys.readouterr().out
    check_transfer_scores({key: 0.5 for key in ids[1:]}, dev)
    assert "have no prediction" in capsys.readouterr().out
    from utils.teaching.exercises import graded

    with pytest.raises(AssertionError, match="not ids of the released inputs"):
        graded(check_transfer_scores, {"x": 1.0}, dev)
