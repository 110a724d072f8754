"""What the static explorer knows about a dialogue besides its rendering: facets, columns, words.

For every dataset the explorer filters by the labels its annotators gave (:func:`facets`), draws
the distributions of a few numeric columns (:func:`columns`) and searches more than the text: label
names, their English glosses and the atlas's English translations of the text (:func:`search_words`).
All values are read from the common records (``Turn.labels``, ``Turn.raw``, ``Dialogue.meta``), so
a parser that changes which turn carries a label changes the facets with it.

Each dataset declares its own ``facets``, ``columns`` and ``search_words`` (in its folder's
``explorer.py``, named by its :class:`~utils.sources.DatasetSource`); the helpers below are theirs to
share. Facet values and search words are dataset strings: the explorer's script only ever shows
them as text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..records import Dialogue
from ..sources import get_source

#: Facet values are lists of strings; columns are numbers (``None`` when a dialogue has none).
Facets = dict[str, list[str]]
Columns = dict[str, float | None]

# -- helpers for the datasets' own fields --------------------------------------------------------


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


# -- what the explorer asks -------------------------------------------------------------------------


def facets(dialogue: Dialogue) -> Facets:
    """The dialogue's labels as facet values, by facet name (a dialogue matches a value when one of
    its turns carries it); an empty dict for datasets the explorer has no facets for."""
    found = get_source(dialogue.dataset).facets
    return found(dialogue) if found else {}


def columns(dialogue: Dialogue) -> Columns:
    """A few numbers per dialogue (turns, lengths) whose distributions the explorer draws."""
    function = get_source(dialogue.dataset).columns
    found = function(dialogue) if function else {"turns": len(dialogue.turns)}
    return {name: value for name, value in found.items() if value is not None}


def search_words(dialogue: Dialogue, glosses: Mapping[str, str] | None = None) -> list[str]:
    """Words the explorer's search matches besides the text: facet values (the labels), the English
    glosses of label names and, with ``glosses``, the English translations of the dialogue's text."""
    labels = [value for values in facets(dialogue).values() for value in values]
    function = get_source(dialogue.dataset).search_words
    extra = function(dialogue, glosses or {}) if function else []
    return [word for word in (*labels, *extra) if word]


__all__ = ["character_count", "columns", "facets", "rounded_mean", "search_words", "unique_values", "word_count"]
