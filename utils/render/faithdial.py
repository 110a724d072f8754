"""HTML rendering of FaithDial dialogues and of rows of the hallucination audit.

A FaithDial dialogue shows the conversation in order; each wizard response carries its knowledge
(words shared with the response marked), its BEGIN and VRM labels as badges and, when annotators
edited it, the original WoW response and the edited one side by side with a word-level diff. An
audit row shows the history, the knowledge, the labelled response and what normalising its labels
changed. Every dataset string is escaped.
"""

from __future__ import annotations

import re

from ..records import WIZARD, Dialogue, Turn
from ..text import word_diff
from ._html import SafeHTML, badge, bullet_list, details, dialogue_frame, diff_html, esc, highlight_words, turn_block

_WORD = re.compile(r"\w+", re.UNICODE)


def render(dialogue: Dialogue, *, note: str = "", highlight: bool = True, max_turns: int | None = None) -> SafeHTML:
    """One FaithDial dialogue or one audit row as safe HTML.

    ``note`` is shown under the title (for example the split's provenance); ``highlight`` marks the
    words a response shares with its knowledge; ``max_turns`` cuts a long dialogue short.
    """
    if dialogue.dataset == "faithdial_audit":
        return _render_audit(dialogue, note=note, highlight=highlight)
    turns = dialogue.turns if max_turns is None else dialogue.turns[:max_turns]
    edited = sum(1 for t in dialogue.turns if t.role == WIZARD and (t.raw.get("original_response") or "").strip())
    body = "".join(_turn_html(turn, highlight) for turn in turns)
    if max_turns is not None and len(dialogue.turns) > max_turns:
        body += f'<div class="atlas-note">… {len(dialogue.turns) - max_turns} more turns not shown.</div>'
    title = f"FaithDial {dialogue.split} · dialogue {dialogue.id} · {len(dialogue.turns)} turns, {edited} edited"
    return dialogue_frame(title, body, note)


def _knowledge_words(turn: Turn) -> set[str]:
    return {word.lower() for item in turn.selected_evidence for word in _WORD.findall(item.text)}


def _labels_html(turn: Turn) -> str:
    parts = []
    for label in turn.labels.get("BEGIN", []):
        parts.append(badge(f"BEGIN: {label}", f"begin-{label}"))
    for label in turn.labels.get("VRM", []):
        parts.append(badge(f"VRM: {label}", "vrm"))
    return f'<div class="atlas-labels">{"".join(parts)}</div>' if parts else ""


def _knowledge_html(turn: Turn, words: set[str], highlight: bool) -> str:
    items = []
    for item in turn.evidence:
        text = highlight_words(item.text, words) if highlight else esc(item.text)
        # Said in words for screen readers too (the class only draws a border).
        said = '<span class="atlas-sr">selected </span>' if item.selected else ""
        css = ' class="atlas-selected"' if item.selected else ""
        items.append(f"<span{css}>{said}knowledge: {text or '<em>(empty)</em>'}</span>")
    return bullet_list(items) if items else ""


def _edit_html(original: str, response: str) -> str:
    side = (
        '<div class="atlas-sidebyside">'
        f'<div><div class="atlas-speaker">original WoW response</div>{esc(original)}</div>'
        f'<div><div class="atlas-speaker">edited FaithDial response</div>{esc(response)}</div>'
        "</div>"
    )
    diff = f'<div class="atlas-diff">word diff: {diff_html(word_diff(original, response))}</div>'
    return side + diff


def _turn_html(turn: Turn, highlight: bool) -> str:
    if turn.role != WIZARD or not turn.evidence:
        return turn_block(turn.role, turn.speaker, esc(turn.text))
    response_words = {word.lower() for word in _WORD.findall(turn.text)}
    knowledge_words = _knowledge_words(turn)
    body = highlight_words(turn.text, knowledge_words) if highlight else esc(turn.text)
    extra = _knowledge_html(turn, response_words, highlight) + _labels_html(turn)
    original = turn.raw.get("original_response") or ""
    if original.strip():
        extra += _edit_html(original, turn.text)
    else:
        extra += '<div class="atlas-note">kept from WoW (no original_response: judged faithful)</div>'
    return turn_block(turn.role, turn.speaker, body, extra)


def _render_audit(dialogue: Dialogue, *, note: str, highlight: bool) -> SafeHTML:
    meta = dialogue.meta
    status = meta.get("status", "")
    title = (
        f"Audit {meta.get('system', '')} on {meta.get('benchmark', '')} · row {meta.get('row', '')} · "
        f"{status} · BEGIN class: {meta.get('begin_class') or 'none'}"
    )
    if not dialogue.turns:
        body = '<div class="atlas-note">Blank row in the file: left out of the distributions.</div>'
        return dialogue_frame(title, body, note)
    parts = []
    for turn in dialogue.turns:
        if turn.role != WIZARD:
            parts.append(turn_block(turn.role, turn.speaker, esc(turn.text)))
            continue
        response_words = {word.lower() for word in _WORD.findall(turn.text)}
        body = highlight_words(turn.text, _knowledge_words(turn)) if highlight else esc(turn.text)
        if not turn.text.strip():
            body = "<em>(empty response)</em>"
        extra = _knowledge_html(turn, response_words, highlight) + _labels_html(turn)
        written = f"BEGIN cell: {turn.raw.get('begin_raw', '')!r} · VRM cell: {turn.raw.get('vrm_raw', '')!r}"
        changes = [esc(item) for item in turn.raw.get("label_notes", [])]
        extra += details(
            "labels as written in the file", f"<div>{esc(written)}</div>" + (bullet_list(changes) if changes else "")
        )
        parts.append(turn_block(turn.role, turn.speaker, body, extra))
    return dialogue_frame(title, "".join(parts), note)
