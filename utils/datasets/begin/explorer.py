"""What the static explorer shows of a BEGIN row besides its rendering."""

from __future__ import annotations

from ...records import Dialogue
from ...render.explorer_fields import Columns, Facets, word_count
from .parser import knowledge, label, message, response_turn
from .render import MODELS, SOURCES


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
