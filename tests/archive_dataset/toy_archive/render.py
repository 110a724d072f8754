"""Renderer of the toy archive's dialogues, built from :mod:`utils.book.render.html` (every string escaped)."""

from __future__ import annotations

from utils.book.render.html import SafeHTML, dialogue_frame, esc, turn_block
from utils.records import Dialogue


def render(dialogue: Dialogue, **options: object) -> SafeHTML:
    """One dialogue as safe HTML: each turn, with the fact an expert's turn rests on."""
    blocks = [
        turn_block(turn.role, turn.speaker, esc(turn.text),
                   "".join(f"<p>Fact: {esc(item.text)}</p>" for item in turn.evidence))
        for turn in dialogue.turns
    ]
    return dialogue_frame(f"{esc(dialogue.topic or '')} ({esc(dialogue.id)})", "".join(blocks))
