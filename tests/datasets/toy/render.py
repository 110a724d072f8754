"""Renderer of the toy dataset: one line per turn, every dataset string escaped."""

from __future__ import annotations

from utils.book.render.html import SafeHTML, esc
from utils.records import Dialogue


def render(dialogue: Dialogue, *, note: str = "") -> SafeHTML:
    """One toy dialogue as safe HTML."""
    turns = "".join(f'<p class="toy-turn">{esc(turn.speaker)}: {esc(turn.text)}</p>' for turn in dialogue.turns)
    return SafeHTML(f'<div class="toy-dialogue">{esc(note)}{turns}</div>')
