"""HTML rendering of one BEGIN row: the message, the model's response with its label, the knowledge.

Words the response shares with the knowledge are marked in both, which shows at a glance what a
lexical critic sees (and what it cannot: a paraphrase shares few words, a wrong detail inside a
copied sentence shares many). Every dataset string is escaped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import pandas as pd

from utils.book.render.html import (
    SafeHTML,
    badge,
    bullet_list,
    dialogue_frame,
    esc,
    highlight_words,
    safe_href,
    stylesheet,
    turn_block,
)

from ...records import SEEKER, Dialogue
from .parser import knowledge, label, response_turn

_WORD = re.compile(r"\w+", re.UNICODE)

#: How the data sources read (the README's names).
SOURCES = {"wow": "Wizard of Wikipedia", "cmu": "CMU-DoG", "tc": "TopicalChat"}
#: How the models read (the README's names).
MODELS = {"gpt2": "GPT-2", "t5": "T5", "ctrl": "CTRL-Dialog", "doha": "DoHA"}


def _words(text: str) -> set[str]:
    return {word.lower() for word in _WORD.findall(text)}


def render(dialogue: Dialogue, *, note: str = "", highlight: bool = True, show_label: bool = True) -> SafeHTML:
    """One BEGIN row as safe HTML; ``note`` is shown under the title (for example the provenance).

    ``show_label=False`` leaves the human label out, for an annotator who must not see it."""
    response = response_turn(dialogue)
    snippet = knowledge(dialogue)
    model = str(dialogue.meta.get("model", response.speaker))
    source = str(dialogue.meta.get("source", ""))
    parts = []
    for turn in dialogue.turns:
        if turn.role == SEEKER:
            parts.append(turn_block(turn.role, "previous turn (message)", esc(turn.text)))
    if dialogue.meta.get("message_missing"):
        parts.append('<div class="atlas-note">The row\'s message cell is empty.</div>')
    shared = _words(snippet) & _words(response.text) if highlight else set()
    body = highlight_words(response.text, shared) if highlight else esc(response.text)
    if not response.text.strip():
        body = "<em>(empty response)</em>"
    label_badge = badge(f"BEGIN: {label(dialogue)}", "begin")
    labels = f'<div class="atlas-labels"><small>human label:</small> {label_badge}</div>' if show_label else ""
    evidence_text = highlight_words(snippet, shared) if highlight else esc(snippet)
    evidence = bullet_list(
        [f'<span class="atlas-selected"><span class="atlas-sr">selected </span>knowledge: '
         f"{evidence_text or '<em>(empty)</em>'}</span>"]
    )
    parts.append(turn_block(response.role, f"response of {MODELS.get(model, model)}", body, labels + evidence))
    title = (
        f"BEGIN {dialogue.split} · row {dialogue.meta.get('row', dialogue.id)} · "
        f"{SOURCES.get(source, source)}, {MODELS.get(model, model)}"
    )
    return dialogue_frame(title, "".join(parts), note)


def search_text(dialogue: Dialogue) -> str:
    """The text the data viewer's search box matches: message, response, knowledge, label, model, source."""
    response = response_turn(dialogue)
    return " ".join(
        [*(t.text for t in dialogue.turns), knowledge(dialogue), label(dialogue), response.speaker,
         str(dialogue.meta.get("source", ""))]
    )


def rows_html(split: Sequence[Dialogue], rows: pd.DataFrame) -> SafeHTML:
    """The rows of ``split`` that ``rows`` names (its ``row`` column, as
    :func:`utils.datasets.begin.stats.response_frame` gives it), each rendered with the split's
    provenance and its ``knowledge precision`` in the note, after the atlas's stylesheet."""
    provenance = getattr(split, "provenance", None)
    kind = f"{provenance.kind} · " if provenance is not None else ""
    parts = [
        render(split[int(row)], note=f"{kind}knowledge precision {precision:.0%}")
        for row, precision in zip(rows["row"], rows["knowledge precision"], strict=True)
    ]
    return SafeHTML(stylesheet() + "".join(parts))


def quote_html(quote: str, source: str, url: str) -> SafeHTML:
    """A quotation as a block with its source and link (all escaped; only an http(s) link is kept).

    ``quote`` is given exactly as the source has it, its own punctuation included: nothing is added
    inside the quotation marks (a cut is marked in ``quote`` itself, "[…]")."""
    href = safe_href(url)
    where = f'<a href="{esc(href)}">{esc(url)}</a>' if href else esc(url)
    return SafeHTML(f"<blockquote><p>“{esc(quote)}”</p><footer>{esc(source)}, {where}</footer></blockquote>")
