"""What BEGIN adds to the book's data viewer (:mod:`utils.book.viewer_files`): its rows' facets, columns and
search words, the message and the response that name a row, its labels as single values, and example
SQL. (Hooks found by name: see :mod:`utils.book.viewer_fields`.)"""

from __future__ import annotations

from utils.book.viewer_fields import Columns, Facets, word_count
from utils.book.viewer_files import Query

from ...records import Dialogue
from .parser import knowledge, label, message, response_turn
from .render import MODELS, SOURCES

#: What the dataset's viewer page (``book/viewer/begin.md``, written by the build) says its rows are.
PAGE_ROWS = "Every row of every benchmark's responses with their attribution labels"

#: A row is known by the message and the response, then the model and its label.
IDENTIFYING = {
    "dialogues": ("message", "response", "model", "attribution label (BEGIN)"),
    "turns": ("model", "role", "text", "BEGIN"),
}
#: Each response has one label, one model and one benchmark.
SINGLE_LABELS = ("attribution label (BEGIN)", "model", "benchmark", "BEGIN")


def row_texts(dialogue: Dialogue) -> dict[str, str | None]:
    """The message answered (none for a response without one) and the response."""
    return {"message": message(dialogue) or None, "response": response_turn(dialogue).text}

QUERIES: tuple[Query, ...] = (
    (
        "Attribution labels by model",
        "SELECT model, BEGIN AS label, count(*) AS responses\nFROM turns WHERE role = 'wizard'\n"
        "GROUP BY model, label ORDER BY model, responses DESC",
        ("turns.model", "turns.BEGIN"),
    ),
    (
        "Responses labelled Generic, with their message",
        "SELECT r.\"dialogue id\", m.text AS message, r.text AS response\n"
        "FROM turns r JOIN turns m ON m.\"dialogue id\" = r.\"dialogue id\" AND m.role = 'seeker'\n"
        "WHERE r.role = 'wizard' AND r.BEGIN = 'Generic' LIMIT 100",
        ("turns.BEGIN", "turns.text"),
    ),
)


# -- the facets, columns and search words of its rows (its declaration names them) ---------------

def facets(dialogue: Dialogue) -> Facets:
    """The row's BEGIN label, model and benchmark (as the README names them)."""
    model, source = str(dialogue.meta.get("model", "")), str(dialogue.meta.get("source", ""))
    return {
        "attribution label (BEGIN)": [label(dialogue)],
        "model": [MODELS.get(model, model)],
        "benchmark": [SOURCES.get(source, source)],
    }


def columns(dialogue: Dialogue) -> Columns:
    """Response, message and knowledge lengths, in words."""
    previous = message(dialogue)
    return {
        "response length (words)": word_count(response_turn(dialogue).text),
        "message length (words)": word_count(previous) if previous else None,
        "knowledge length (words)": word_count(knowledge(dialogue)),
    }
