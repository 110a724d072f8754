"""Project exercises scored like a shared task: students get the inputs, the teacher keeps the labels.

A dataset's folder declares, in its ``exercises.py``, the project exercises whose test labels stay
with the teacher (``HELD_OUT``, a list of :class:`HeldOut`): which splits hold those labels and how to
build the inputs students predict for. ``atlas course`` then writes, into the course folder:

* ``source/<chapter>/heldout/<exercise>.jsonl``: the inputs, one JSON object per line, without the
  labels (nbgrader releases every file of the assignment's folder with its notebook);
* ``student-data/``: the class's data folder as students should get it, the teacher's own without the
  held-out splits' files (hard links where the file system allows, so it costs no space). The
  sandbox that runs each submission at grading time sees this folder, never the teacher's.

The chapter and the assignment call :func:`project_inputs` the same way: in the book it builds the
inputs from the loaded splits; in an assignment folder it reads the released file. The grader's
verdict (:mod:`utils.teaching.grading`) loads the labelled splits from the teacher's data folder.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from utils.loading import STUDENTS_COPY
from utils.sources import get_source, get_split_files, registry

#: Where an assignment's held-out inputs sit, beside its notebook.
INPUTS_FOLDER = "heldout"


@dataclass(frozen=True)
class HeldOut:
    """One project exercise whose test labels stay with the teacher.

    ``splits`` are the splits those labels are in (their files, and those of ``also_withheld``, are
    left out of the students' data);
    ``inputs(*loaded)`` builds, from those splits loaded in that order, one row per item to predict
    with an ``id`` column and nothing that gives a label away; ``labels`` names the columns of the
    labelled examples that must never be among the inputs (tests hold the inputs to it).
    """

    exercise: str
    dataset: str
    splits: tuple[str, ...]
    inputs: Callable[..., Any]
    labels: tuple[str, ...]
    #: further splits whose files hold the same labels (a test split published whole and in halves)
    also_withheld: tuple[str, ...] = ()
    #: for a file that holds fitting and held-out items alike: ``(relative path, bytes) -> bytes``, the
    #: students' copy of it without the held-out items (without one, such a file is left out whole)
    student_copy: Callable[[str, bytes], bytes] | None = None
    #: columns that repeat over the rows of one item (a turn's context over its candidates): the
    #: released file holds them once per item, the rest as a list, and :func:`project_inputs` unfolds it
    group_by: tuple[str, ...] = ()


def held_out_exercises() -> list[HeldOut]:
    """Every project exercise of every registered dataset whose labels stay with the teacher."""
    found: dict[str, HeldOut] = {}
    for name in registry():  # two datasets of one folder share its hook: each exercise once
        for spec in get_source(name).hook("exercises", "HELD_OUT", ()) or ():
            found.setdefault(spec.exercise, spec)
    return list(found.values())


def held_out(exercise: str) -> HeldOut:
    """The declaration of ``exercise`` (``KeyError`` naming the known ones otherwise)."""
    for spec in held_out_exercises():
        if spec.exercise == exercise:
            return spec
    known = ", ".join(spec.exercise for spec in held_out_exercises())
    raise KeyError(f"{exercise!r} is not a project exercise with held-out labels (those are: {known})")


def inputs_path(exercise: str, folder: Path | None = None) -> Path:
    """Where an assignment folder holds ``exercise``'s inputs."""
    return (folder or Path.cwd()) / INPUTS_FOLDER / f"{exercise}.jsonl"


def project_inputs(exercise: str, *splits: Any) -> Any:
    """The items ``exercise`` asks predictions for, without their labels, as a DataFrame with ``id``.

    In an assignment (``heldout/<exercise>.jsonl`` beside the notebook) they are read from that file,
    which the teacher's ``atlas course`` wrote from the full data; in the book they are built from the
    loaded ``splits``, exactly as that file was.
    """
    import pandas as pd

    released = inputs_path(exercise)
    if released.is_file():
        rows = [json.loads(line) for line in released.read_text(encoding="utf-8").splitlines() if line.strip()]
        if rows and "rows" in rows[0]:  # written grouped (HeldOut.group_by): one row per member again
            rows = [
                {**{key: value for key, value in group.items() if key != "rows"}, **member}
                for group in rows
                for member in group["rows"]
            ]
        frame = pd.DataFrame(rows)
        for column in frame.columns:  # lists were written as JSON arrays: tuples, as the examples hold them
            if len(frame) and isinstance(frame[column].iloc[0], list):
                frame[column] = frame[column].map(tuple)
        return frame
    spec = held_out(exercise)
    return spec.inputs(*splits)


def released_ids(exercise: str) -> list[Any] | None:
    """The ids of ``exercise``'s released inputs when the notebook runs in an assignment folder that
    holds them (the labels are then with the teacher), else None."""
    if not inputs_path(exercise).is_file():
        return None
    return list(project_inputs(exercise)["id"])


def check_released_scores(
    answer: Any,
    ids: Sequence[Any],
    what: str,
    *,
    id_example: str,
    numeric: bool = True,
    value: Callable[[Any, Any], Any] | None = None,
) -> None:
    """The practice check of a project in a course assignment: every released id has a prediction (a
    number when ``numeric``; one that ``value(prediction, id)`` accepts when given) and no other key
    does. The score itself is computed when the teacher grades, against labels the assignment does
    not hold."""
    from utils.teaching.checking import as_mapping, as_number, check_keys, passed

    given = as_mapping(answer, what)
    check_keys(
        given,
        list(ids),
        what,
        extra="{count} key(s) are not ids of the released inputs, for example {example!r}: use the `id` column "
        "of the inputs (such as {id_example!r}).",
        missing="{count} of the {total} released inputs have no prediction, for example {example!r}.",
        id_example=id_example,
    )
    for key in ids:
        if value is not None:
            value(given[key], key)
        elif numeric:
            as_number(given[key], f"{what} [{key!r}]")
    passed(
        what,
        f"{len(ids)} predictions, one per released input: they are scored against the labels your teacher "
        "keeps when the notebook is graded, as in a shared task",
    )


def in_assignment(exercise: str) -> bool:
    """Whether the notebook runs in a course assignment that holds ``exercise``'s released inputs
    (its test labels are then with the teacher, and a reference solution compares on other data)."""
    return inputs_path(exercise).is_file()


def write_inputs(spec: HeldOut, folder: Path, loaded: Sequence[Any]) -> Path:
    """Write ``spec``'s inputs, built from ``loaded`` (its splits, labelled), into an assignment folder."""
    frame = spec.inputs(*loaded)
    leaked = [column for column in spec.labels if column in frame.columns]
    if leaked:
        raise ValueError(f"{spec.exercise}: the inputs would hand out the labels {leaked}")
    frame = frame.astype(object).where(frame.notna(), None)  # a missing value is JSON's null, not NaN
    target = inputs_path(spec.exercise, folder)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial")
    with partial.open("w", encoding="utf-8") as handle:
        if spec.group_by:
            keys = list(spec.group_by)
            for values, group in frame.groupby(keys, sort=False, dropna=False):
                members = group.drop(columns=keys).to_dict(orient="records")
                head = {
                    key: None if isinstance(value, float) and value != value else value  # grouping made None NaN
                    for key, value in zip(keys, values if isinstance(values, tuple) else (values,), strict=True)
                }
                line = json.dumps({**head, "rows": members}, ensure_ascii=False, default=_plain, allow_nan=False)
                handle.write(line + "\n")
        else:
            for row in frame.to_dict(orient="records"):
                handle.write(json.dumps(row, ensure_ascii=False, default=_plain, allow_nan=False) + "\n")
    partial.replace(target)
    return target


def _plain(value: Any) -> Any:
    if isinstance(value, (tuple, set, frozenset)):
        return list(value)
    if hasattr(value, "item"):
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"a {type(value).__name__} in the inputs")


def withheld_files(specs: Iterable[HeldOut]) -> set[str]:
    """The data directory's relative paths of every held-out split's files."""
    return {
        file.path
        for spec in specs
        for split in (*spec.splits, *spec.also_withheld)
        for item in get_split_files(spec.dataset, split)
        for file in item.all_parts()
    }


def write_student_data(target: Path, source: Path, specs: Iterable[HeldOut]) -> list[str]:
    """The class's data folder for students: ``source`` without the held-out splits' files, hard-linked
    (copied where links cannot be made); a held-out file whose declaration can copy its fitting part
    (:attr:`HeldOut.student_copy`) holds that part. Returns the files left out whole or in part. An
    existing ``target`` is replaced."""
    from utils.config import cache_dir

    specs = list(specs)
    withheld = withheld_files(specs)
    copiers = {
        file.path: spec.student_copy
        for spec in specs
        if spec.student_copy is not None
        for split in (*spec.splits, *spec.also_withheld)
        for item in get_split_files(spec.dataset, split)
        for file in item.all_parts()
    }
    parsed = cache_dir().resolve()  # the parsed splits hold the held-out labels too: never linked
    staging = target.with_name(f".{target.name}.partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    left_out = []
    if source.is_dir():
        for path in sorted(source.rglob("*")):
            relative = path.relative_to(source).as_posix()
            if path.is_dir() or not path.is_file() or path.resolve().is_relative_to(parsed):
                continue
            destination = staging / relative
            if relative in withheld:
                left_out.append(relative)
                copier = copiers.get(relative)
                if copier is not None:  # the fitting items only
                    destination.parent.mkdir(parents=True, exist_ok=True)
                    destination.write_bytes(copier(relative, path.read_bytes()))
                continue
            destination.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(path, destination)
            except OSError:
                shutil.copy2(path, destination)
    partial = [relative for relative in left_out if (staging / relative).is_file()]
    (staging / STUDENTS_COPY).write_text(
        json.dumps({"partial": partial, "why": "a course's students' copy: the held-out items are with the teacher"}),
        encoding="utf-8",
    )
    shutil.rmtree(target, ignore_errors=True)
    staging.replace(target)
    return left_out
