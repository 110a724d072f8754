"""Renderer of the toy QA dataset: the question, the answer and its passages, built from
:mod:`utils.book.render.html` (every dataset string escaped)."""

from __future__ import annotations

from utils.book.render.html import SafeHTML, badge, bullet_list, dialogue_frame, esc, turn_block
from utils.records import Dialogue


def render(dialogue: Dialogue, **options: object) -> SafeHTML:
    """One session as safe HTML: each turn, and under the answer the passages shown, cited ones marked."""
    blocks = []
    for turn in dialogue.turns:
        passages = [
            # a cited passage's title is styled by the folder's render.css
            f"{badge('cited')}<strong class=\"toy-qa-cited\">{esc(item.title)}</strong>: {esc(item.text)}"
            if item.selected
            else f"<strong>{esc(item.title)}</strong>: {esc(item.text)}"
            for item in turn.evidence
        ]
        blocks.append(turn_block(turn.role, turn.speaker, esc(turn.text), bullet_list(passages) if passages else ""))
    return dialogue_frame(f"Session {dialogue.id}", "".join(blocks))
