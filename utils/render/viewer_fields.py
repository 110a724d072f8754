"""What a dataset adds to the book's data viewer (:mod:`utils.viewer`): row groupings and example SQL.

Each dataset declares its own (``viewer_rows`` and ``viewer_queries`` of its
:class:`~utils.sources.DatasetSource`, written in its folder's ``viewer.py``); this module applies
them and adds the queries every split gets. Other hooks are found by convention in the folder's
``viewer.py`` module, with no field of the declaration: ``IDENTIFYING`` (per level, the columns
that name a row, shown first), ``SINGLE_LABELS`` (label columns holding one label per row, shown
and queried as a value, not a list) and ``row_texts(dialogue)`` (texts that identify a dialogue
row: a question, a message and its response; by default the first turn).

Example queries read the tables ``dialogues``, ``turns`` and ``evidence`` the SQL console holds;
label columns holding lists are unnested. A query is offered only when the columns it reads are
present in the split.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

import pandas as pd

from ..records import Dialogue
from ..sources import get_source
from ..viewer import Query, SplitRows

#: Queries every split gets.
COMMON_QUERIES: tuple[Query, ...] = (
    (
        "Turns and their mean length by role",
        "SELECT role, count(*) AS turns, round(avg(length(text)), 1) AS mean_characters\n"
        "FROM turns GROUP BY role ORDER BY turns DESC",
        ("turns.role", "turns.text"),
    ),
    (
        "The longest dialogues",
        "SELECT id, topic, turns FROM dialogues ORDER BY turns DESC, id LIMIT 20",
        ("dialogues.id", "dialogues.turns"),
    ),
)


# -- dispatch ---------------------------------------------------------------------------------------


def viewer_hooks(dataset: str) -> ModuleType | None:
    """The ``viewer.py`` module of the dataset's folder (``None``: it has none)."""
    folder = get_source(dataset).folder
    try:
        return importlib.import_module(f"utils.datasets.{folder.name}.viewer")
    except ModuleNotFoundError as error:
        if error.name != f"utils.datasets.{folder.name}.viewer":
            raise
        return None


def _hook(dataset: str, name: str, default: Any) -> Any:
    return getattr(viewer_hooks(dataset), name, default)


def first_turn(dialogue: Dialogue) -> dict[str, str | None]:
    """The default identifying text of a dialogue row: its first turn with any text."""
    return {"first turn": next((turn.text for turn in dialogue.turns if turn.text.strip()), None)}


def row_texts(dataset: str) -> Callable[[Dialogue], Mapping[str, str | None]]:
    """The dataset's ``row_texts`` hook, else :func:`first_turn`."""
    return _hook(dataset, "row_texts", first_turn)


def identifying(dataset: str) -> dict[str, list[str]]:
    """Per level, the columns that name a row (the dataset's ``IDENTIFYING``; by default the row
    texts of :func:`first_turn` and the topic)."""
    declared = _hook(dataset, "IDENTIFYING", {"dialogues": ("topic", "first turn")})
    return {level: list(names) for level, names in declared.items()}


def single_labels(dataset: str) -> tuple[str, ...]:
    """Label columns of the dataset that hold one label per row (its ``SINGLE_LABELS``)."""
    return tuple(_hook(dataset, "SINGLE_LABELS", ()))


def dataset_rows(dataset: str, dialogues: Sequence[Dialogue], rows: SplitRows) -> SplitRows:
    """The split's rows as the dataset shows them (unchanged when it has no grouping of its own)."""
    hook = get_source(dataset).viewer_rows
    return hook(dialogues, rows) if hook else rows


def example_queries(dataset: str, rows: SplitRows) -> list[dict[str, str]]:
    """The example SQL offered for a split: the dataset's own, then the common ones, where their columns exist."""
    present = {f"{level}.{name}" for level, frame in rows.frames.items() for name in _columns(frame)}
    return [
        {"title": title, "sql": sql}
        for title, sql, needs in (*get_source(dataset).viewer_queries, *COMMON_QUERIES)
        if all(need in present for need in needs)
    ]


def _columns(frame: pd.DataFrame) -> list[str]:
    # a column with no value at all (a label no turn of this split carries) is not offered
    return [name for name in frame.columns if frame[name].notna().any()]


__all__ = [
    "COMMON_QUERIES",
    "dataset_rows",
    "example_queries",
    "first_turn",
    "identifying",
    "row_texts",
    "single_labels",
    "viewer_hooks",
]
