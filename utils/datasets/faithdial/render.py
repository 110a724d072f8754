"""HTML rendering of FaithDial dialogues and of rows of the hallucination audit.

A FaithDial dialogue shows the conversation in order; each wizard response carries its knowledge
(words shared with the response marked) and its BEGIN and VRM labels as badges. The labels sit with
the text they describe (:func:`utils.datasets.faithdial.parser.labelled_text`): for an edited turn that is
the original WoW response, shown beside "the faithful rewrite" (the FaithDial ``response``, which
the conversation goes on with) and followed by a word-level diff; for a kept turn, the response
itself. An audit row shows the history, the knowledge, the labelled response and what normalising
its labels changed. Every dataset string is escaped.

Two things the audit files write as code rather than text are shown as what they mean: a history
cell holding an empty list (``[]``: the row has no earlier turn) and a TopicalChat knowledge cell
that ends with the article's fun facts as a JSON or Python list (``"fun_facts": [...]``), which is
shown as a list of facts under the article's text (:func:`split_fun_facts`).
"""

from __future__ import annotations

import ast
import json
import re

from utils.book.render.html import (
    SafeHTML,
    badge,
    bullet_list,
    details,
    dialogue_frame,
    diff_html,
    esc,
    highlight_words,
    turn_block,
)

from ...records import WIZARD, Dialogue, Turn
from ...text import word_diff
from .audit_parser import audit_file_label
from .parser import DESCRIBES_ORIGINAL, begin_class, labels_describe

_WORD = re.compile(r"\w+", re.UNICODE)


def render(dialogue: Dialogue, *, note: str = "", highlight: bool = True, max_turns: int | None = None) -> SafeHTML:
    """One FaithDial dialogue or one audit row as safe HTML.

    ``note`` is shown under the title (for example the split's provenance); ``highlight`` marks the
    words a response shares with its knowledge; ``max_turns`` cuts a long dialogue short.
    """
    if dialogue.dataset == "faithdial_audit":
        return _render_audit(dialogue, note=note, highlight=highlight)
    turns = dialogue.turns if max_turns is None else dialogue.turns[:max_turns]
    edited = sum(1 for t in dialogue.turns if t.role == WIZARD and _original(t))
    body = "".join(_turn_html(turn, highlight) for turn in turns)
    if max_turns is not None and len(dialogue.turns) > max_turns:
        body += f'<div class="atlas-note">… {len(dialogue.turns) - max_turns} more turns not shown.</div>'
    title = f"FaithDial {dialogue.split} · dialogue {dialogue.id} · {len(dialogue.turns)} turns, {edited} edited"
    return dialogue_frame(title, body, note)


def _knowledge_words(turn: Turn) -> set[str]:
    return {word.lower() for item in turn.selected_evidence for word in _WORD.findall(item.text)}


def _original(turn: Turn) -> str:
    """The turn's ``original_response`` when it holds text (the labels then describe it), else ``""``."""
    original = turn.raw.get("original_response")
    original = original if isinstance(original, str) else ""
    return original if labels_describe(original) == DESCRIBES_ORIGINAL else ""


def _labels_html(turn: Turn, lead: str = "", *, one_class: bool = False) -> str:
    """BEGIN and VRM badges. With ``one_class`` (FaithDial records) the BEGIN list is read as the one
    class it means: ``["Hallucination", "Entailment"]`` shows as a Partial Hallucination badge, with
    the list as written beside it."""
    parts = []
    begin = list(turn.labels.get("BEGIN", []))
    found = begin_class(begin) if one_class else None
    if found is not None and [found] != begin:
        parts.append(badge(f"BEGIN: {found}", f"begin-{found}"))
        parts.append(f"<small>(written {esc(' + '.join(begin))})</small> ")
        begin = []
    for label in begin:
        parts.append(badge(f"BEGIN: {label}", f"begin-{label}"))
    for label in turn.labels.get("VRM", []):
        parts.append(badge(f"VRM: {label}", "vrm"))
    if not parts:
        return ""
    lead_html = f"<small>{esc(lead)}</small> " if lead else ""
    return f'<div class="atlas-labels">{lead_html}{"".join(parts)}</div>'


def _knowledge_html(turn: Turn, words: set[str], highlight: bool) -> str:
    items = []
    for item in turn.evidence:
        text = highlight_words(item.text, words) if highlight else esc(item.text)
        # Said in words for screen readers too (the class only draws a border).
        said = '<span class="atlas-sr">selected </span>' if item.selected else ""
        css = ' class="atlas-selected"' if item.selected else ""
        items.append(f"<span{css}>{said}knowledge: {text or '<em>(empty)</em>'}</span>")
    return bullet_list(items) if items else ""


def _edited_html(turn: Turn, original: str, knowledge_words: set[str], highlight: bool) -> str:
    """The labelled original (with its badges) beside the faithful rewrite, then the word diff."""

    def text(value: str) -> str:
        return highlight_words(value, knowledge_words) if highlight else esc(value)

    labels = _labels_html(turn, "labels of this original:", one_class=True)
    side = (
        '<div class="atlas-sidebyside">'
        '<div><div class="atlas-speaker">original WoW response (labelled)</div>'
        f"{text(original)}{labels}</div>"
        f'<div><div class="atlas-speaker">the faithful rewrite (FaithDial response)</div>{text(turn.text)}</div>'
        "</div>"
    )
    diff = f'<div class="atlas-diff">word diff: {diff_html(word_diff(original, turn.text))}</div>'
    return side + diff


def _turn_html(turn: Turn, highlight: bool) -> str:
    if turn.role != WIZARD or not turn.evidence:
        return turn_block(turn.role, turn.speaker, esc(turn.text))
    knowledge_words = _knowledge_words(turn)
    original = _original(turn)
    shown = {word.lower() for text in (original, turn.text) for word in _WORD.findall(text)}
    knowledge = _knowledge_html(turn, shown, highlight)
    if original:
        return turn_block(turn.role, turn.speaker, _edited_html(turn, original, knowledge_words, highlight), knowledge)
    body = highlight_words(turn.text, knowledge_words) if highlight else esc(turn.text)
    labels = _labels_html(turn, "labels of this response:", one_class=True)
    kept = "kept from WoW (empty original_response: judged faithful)"
    note = f'<div class="atlas-note">{kept}{"; the labels describe this response" if labels else ""}</div>'
    return turn_block(turn.role, turn.speaker, body, labels + note + knowledge)


def _cell(value: object) -> str:
    """A CSV cell as written, for readers: in quotes, a line break shown as ⏎, an empty cell said so."""
    text = "" if value is None else str(value)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "“" + " ⏎ ".join(lines) + "”" if text.strip() else "(empty)"


#: Where a TopicalChat knowledge cell's fun facts start: the key, quoted either way, and its colon.
_FUN_FACTS = re.compile(r"""[\s,'"]*(["'])fun_facts\1\s*:\s*(?=\[)""")
#: A quoted item of a list written as Python or JSON ('fact' or "fact", escapes kept as written).
_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'" + r'|"((?:[^"\\]|\\.)*)"')
#: History cells that hold an empty list as code: the row has no earlier turn.
_EMPTY_HISTORY = {"[]", "['']", '[""]'}


def split_fun_facts(knowledge: str) -> tuple[str, list[str]]:
    """``knowledge`` without the fun-facts list it may end with, and that list's facts.

    Some audit rows of TopicalChat append the article's fun facts as written in TopicalChat's JSON
    (``... page . "fun_facts": ["fact", ...]``, sometimes followed by the closing ``},`` of the
    record) or as a Python list (``... page .', 'fun_facts': ['fact', ...]``), in one row cut short
    before its closing bracket (its complete items are kept). A cell whose list cannot be read is
    returned whole, with no facts, so nothing is lost.
    """
    match = _FUN_FACTS.search(knowledge)
    if match is None:
        return knowledge, []
    rest = knowledge[match.end():]
    facts: object = None
    try:
        facts, _ = json.JSONDecoder().raw_decode(rest)
    except ValueError:
        try:
            facts = ast.literal_eval(rest[: rest.rfind("]") + 1])
        except (ValueError, SyntaxError):  # a list the file cuts short: its complete quoted items
            facts = [single or double for single, double in _QUOTED.findall(rest)]
    if not isinstance(facts, list) or not all(isinstance(fact, str) for fact in facts):
        return knowledge, []
    return knowledge[: match.start()].rstrip(" ,'\""), [fact.strip() for fact in facts if fact.strip()]


def _audit_knowledge_html(turn: Turn, words: set[str], highlight: bool) -> str:
    """The knowledge of an audit row: its text, and its fun facts as a list where it has them."""
    items = []
    for item in turn.evidence:
        text, facts = split_fun_facts(item.text)

        def shown(value: str) -> str:
            return highlight_words(value, words) if highlight else esc(value)

        said = '<span class="atlas-sr">selected </span>' if item.selected else ""
        css = ' class="atlas-selected"' if item.selected else ""
        listed = f"<div>fun facts given with the article:{bullet_list([shown(fact) for fact in facts])}</div>"
        items.append(
            f"<span{css}>{said}knowledge: {shown(text) or '<em>(empty)</em>'}</span>" + (listed if facts else "")
        )
    return bullet_list(items) if items else ""


def _render_audit(dialogue: Dialogue, *, note: str, highlight: bool) -> SafeHTML:
    meta = dialogue.meta
    status = meta.get("status", "")
    which = audit_file_label(f"{meta.get('system', '')}_{meta.get('benchmark', '')}")
    begin = f" · BEGIN class: {meta['begin_class']}" if meta.get("begin_class") else ""
    title = f"Audit of {which} · row {meta.get('row', '')} · {status}{begin}"
    if not dialogue.turns:
        body = '<div class="atlas-note">Blank row in the file: left out of the distributions.</div>'
        return dialogue_frame(title, body, note)
    parts = []
    if meta.get("history_as_written") is not None:  # the parser's record of an empty-list history
        parts.append('<div class="atlas-note">No earlier turn: the file gives this row an empty history.</div>')
    for turn in dialogue.turns:
        if turn.role != WIZARD:
            if turn.text.strip() in _EMPTY_HISTORY:  # the file writes "no earlier turn" as an empty list
                parts.append('<div class="atlas-note">No earlier turn: the file gives this row an empty history.</div>')
            else:
                parts.append(turn_block(turn.role, turn.speaker, esc(turn.text)))
            continue
        response_words = {word.lower() for word in _WORD.findall(turn.text)}
        body = highlight_words(turn.text, _knowledge_words(turn)) if highlight else esc(turn.text)
        if not turn.text.strip():
            body = "<em>(empty response)</em>"
        extra = _audit_knowledge_html(turn, response_words, highlight) + _labels_html(turn)
        written = f"BEGIN cell: {_cell(turn.raw.get('begin_raw'))} · VRM cell: {_cell(turn.raw.get('vrm_raw'))}"
        changes = [esc(item) for item in turn.raw.get("label_notes", [])]
        extra += details(
            "labels as written in the file", f"<div>{esc(written)}</div>" + (bullet_list(changes) if changes else "")
        )
        parts.append(turn_block(turn.role, turn.speaker, body, extra))
    return dialogue_frame(title, "".join(parts), note)


def search_text(dialogue: Dialogue) -> str:
    """What the data viewer's search box matches for a FaithDial dialogue: every turn's text and
    every labelled original WoW response, so a search finds the text the labels describe too."""
    originals = [_original(turn) for turn in dialogue.turns if turn.role == WIZARD]
    return " ".join(text for text in [*(turn.text for turn in dialogue.turns), *originals] if text)
