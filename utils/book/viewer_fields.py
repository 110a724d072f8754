"""What a dataset adds to the book's data viewer (:mod:`utils.book.viewer_files`): row groupings and example SQL.

Every hook is found by convention in the dataset folder's ``viewer.py``, with no field of the
declaration (:meth:`~utils.declaration.DatasetSource.hook`; each is optional): ``rows(dialogues,
rows)`` (a grouping of the split's rows, read as ``viewer_rows``), ``QUERIES`` (example SQL, read
as ``viewer_queries``), ``IDENTIFYING`` (per level, the columns that name a row, shown first),
``SINGLE_LABELS`` (label columns holding one label per row, shown and queried as a value, not a
list), ``COLUMN_NOTES`` (what a column's statistics count, shown with them) and
``row_texts(dialogue)`` (texts that identify a dialogue row: a question, a message and its response;
by default the first turn). In a folder that declares two datasets, the one not named as
the folder puts its own part of its name in front of a hook it does not share with the other
(``audit_rows`` and ``AUDIT_QUERIES`` for ``news_audit`` in a folder ``news/``); a plain name is the folder's,
shared by both. This module applies them and adds the queries every split gets.

Every dataset's rows also carry the labels its annotators gave as facets (:func:`facets`), a few
numeric columns (:func:`columns`) and search words besides the text: label names, their English
glosses and the atlas's English translations of the text (:func:`search_words`); each dataset
declares its own ``facets``, ``columns`` and ``search_words`` (in its folder's ``viewer.py``, by the
same convention), with the helpers below to share. All values are
read from the common records (``Turn.labels``, ``Turn.raw``, ``Dialogue.meta``), so a parser that
changes which turn carries a label changes the facets with it. Facet values and search words are
dataset strings: the viewer only ever shows them as text.

Example queries read the tables ``dialogues``, ``turns`` and ``evidence`` the SQL console holds;
label columns holding lists are unnested. A query is offered only when the columns it reads are
present in the split.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pandas as pd

from utils.declaration import _folder_module
from utils.records import Dialogue
from utils.sources import get_source, source_of

if TYPE_CHECKING:
    from utils.book.viewer_files import Query, SplitRows

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


#: Facet values are lists of strings; columns are numbers (``None`` when a dialogue has none).
Facets = dict[str, list[str]]
Columns = dict[str, float | None]

# -- helpers for the datasets' own facets and columns ---------------------------------------------


def unique_values(values: Iterable[str]) -> list[str]:
    """``values`` without repeats or empty strings, in first-seen order."""
    return [value for value in dict.fromkeys(values) if value]


def word_count(text: str) -> int:
    """English length: the chapters count whitespace-separated words."""
    return len(text.split())


def character_count(text: str) -> int:
    """Chinese or Japanese length: characters, spaces left out (these languages put none between words)."""
    return sum(1 for char in text if not char.isspace())


def rounded_mean(values: list[int]) -> float | None:
    """The mean to one decimal, ``None`` for no values."""
    return round(sum(values) / len(values), 1) if values else None


# -- what the viewer asks ----------------------------------------------------------------------------


def facets(dialogue: Dialogue) -> Facets:
    """The dialogue's labels as facet values, by facet name (a dialogue matches a value when one of
    its turns carries it); an empty dict for datasets that declare no facets."""
    found = source_of(dialogue).facets
    return found(dialogue) if found else {}


def columns(dialogue: Dialogue) -> Columns:
    """A few numbers per dialogue (turns, lengths) whose distributions the viewer draws."""
    function = source_of(dialogue).columns
    found = function(dialogue) if function else {"turns": len(dialogue.turns)}
    return {name: value for name, value in found.items() if value is not None}


def search_words(dialogue: Dialogue, glosses: Mapping[str, str] | None = None) -> list[str]:
    """Words the viewer's search matches besides the text: facet values (the labels), the English
    glosses of label names and, with ``glosses``, the English translations of the dialogue's text."""
    labels = [value for values in facets(dialogue).values() for value in values]
    function = source_of(dialogue).search_words
    extra = function(dialogue, glosses or {}) if function else []
    return [word for word in (*labels, *extra) if word]


# -- dispatch ---------------------------------------------------------------------------------------


def viewer_hooks(dataset: str) -> ModuleType | None:
    """The ``viewer.py`` module of the dataset's folder (``None``: it has none)."""
    return _folder_module(get_source(dataset).folder, "viewer")


def _hook(dataset: str, name: str, default: Any) -> Any:
    # the dataset's own hook first in a folder of two (its part of its name in front), then the folder's
    return get_source(dataset).hook("viewer", name, default)


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


def column_notes(dataset: str) -> dict[str, str]:
    """What some of the dataset's columns count, shown with their statistics (its ``COLUMN_NOTES``: a
    length column and the length of a text column can count the same text differently)."""
    return dict(_hook(dataset, "COLUMN_NOTES", {}))


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
    "character_count",
    "column_notes",
    "columns",
    "dataset_rows",
    "example_queries",
    "facets",
    "first_turn",
    "identifying",
    "rounded_mean",
    "row_texts",
    "search_words",
    "single_labels",
    "unique_values",
    "viewer_hooks",
    "word_count",
]
