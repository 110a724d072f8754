"""JWHR's original format for its Croissant card (:mod:`utils.croissant`): JSON Lines, one session a line."""

from __future__ import annotations

from ...declaration import INTEGER, JSON_LINES, TEXT, CardField, CardFormat

FORMATS = (
    CardFormat(
        name="jwhr_jsonl",
        description="One question-answering session per line: the question; the answer, an object with its text "
        "and its sentences, each with the indices of the references it cites; and the worker's search trail "
        "(references: per reference the search keywords, the page's title and URL, and a quote or summary of it). "
        "The record set types the top-level values that are not nested.",
        encoding=JSON_LINES,
        splits=("answered", "not_answered"),
        fields=(
            CardField("id", INTEGER, "the session's entry id (unique across both files)", column="id"),
            CardField("question", TEXT, "the question the worker answered", column="question"),
        ),
    ),
)
