"""What a dataset adds to the book's data viewer (:mod:`utils.viewer`): row groupings and example SQL.

Each dataset declares its own (``viewer_rows`` and ``viewer_queries`` of its
:class:`~utils.sources.DatasetSource`, written in its folder's ``viewer.py``); this module applies
them and adds the queries every split gets.

Example queries read the tables ``dialogues``, ``turns`` and ``evidence`` the SQL console holds;
label columns holding lists are unnested. A query is offered only when the columns it reads are
present in the split.
"""

from __future__ import annotations

from collections.abc import Sequence

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


__all__ = ["COMMON_QUERIES", "dataset_rows", "example_queries"]
