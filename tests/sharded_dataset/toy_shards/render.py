"""Renderer of the toy shards' dialogues, built from :mod:`utils.book.render.html` (every string escaped)."""

from __future__ import annotations

from utils.book.render.html import SafeHTML, bullet_list, dialogue_frame, esc, turn_block
from utils.records import Dialogue


def render(dialogue: Dialogue, **options: object) -> SafeHTML:
    """One dialogue as safe HTML: each utterance, with the knowledge sentences it used as a list."""
    body = "".join(
        turn_block(turn.role, turn.speaker, esc(turn.text),
                   bullet_list(esc(item.text) for item in turn.evidence) if turn.evidence else "")
        for turn in dialogue.turns
    )
    return dialogue_frame(f"{esc(dialogue.topic or '')} ({esc(dialogue.id)})", body)
