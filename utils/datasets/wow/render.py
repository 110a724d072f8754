"""Render a Wizard of Wikipedia dialogue (raw or KILT) as safe HTML.

Turns show as a chat. Under each wizard turn: the checked sentence (highlighted, with where it came
from), or a "no passage used" badge, and the knowledge the wizard was shown, grouped by passage in a
collapsible block with the checked sentence marked. Words the response shares with the checked
sentence are highlighted on both sides. Every dataset string is escaped.
"""

from __future__ import annotations

from functools import cache, lru_cache
from itertools import groupby

from utils.book.render.html import (
    SafeHTML,
    badge,
    bullet_list,
    details,
    dialogue_frame,
    esc,
    highlight_words,
    sr_only,
    turn_block,
)

from ...records import WIZARD, Dialogue, Evidence, Turn
from ...text import word_tokens
from .parser import NO_PASSAGES_USED

_ORIGIN_LABELS = {
    "topic": "chosen topic",
    "retrieved:seeker": "retrieved for the apprentice's last turn",
    "retrieved:wizard": "retrieved for the wizard's previous turn",
    "provenance": "KILT provenance",
}


@cache
def _stop_words() -> frozenset[str]:
    # Imported on first use: scikit-learn takes seconds to import, and the registry imports every
    # renderer whether or not a WoW dialogue is ever drawn.
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


def shared_words(response: str, sentence: str) -> set[str]:
    """Content words (ParlAI-normalised, English stop words left out) found in both strings."""
    return (set(word_tokens(response)) & set(word_tokens(sentence))) - _stop_words()


def render(
    dialogue: Dialogue,
    *,
    show_knowledge: bool = True,
    highlight: bool = True,
    show_candidates: bool = False,
    max_turns: int | None = None,
) -> SafeHTML:
    """One dialogue as HTML: chat turns, knowledge shown, checked sentence and shared words marked.

    ``show_candidates`` adds the 100 candidate responses of valid/test wizard turns (collapsed);
    ``max_turns`` cuts long dialogues.
    """
    turns = dialogue.turns if max_turns is None else dialogue.turns[:max_turns]
    body = "".join(_turn(turn, show_knowledge, highlight, show_candidates) for turn in turns)
    title = f"{dialogue.topic or 'Wizard of Wikipedia'} · {dialogue.split} · {dialogue.id}"
    notes = []
    if dialogue.dataset == "wow_kilt":
        notes.append("KILT example: speakers are inferred from the order of the lines")
    if dialogue.meta.get("persona"):
        notes.append(f"persona: {dialogue.meta['persona']}")
    if dialogue.meta.get("wizard_eval") is not None:
        notes.append(f"apprentice's rating of the wizard: {dialogue.meta['wizard_eval']}")
    return dialogue_frame(title, body, note="; ".join(notes))


def _turn(turn: Turn, show_knowledge: bool, highlight: bool, show_candidates: bool) -> str:
    if turn.role != WIZARD:
        return turn_block(turn.role, turn.speaker, esc(turn.text))
    selected = turn.selected_evidence
    words = shared_words(turn.text, " ".join(item.text for item in selected)) if highlight and selected else set()
    text_html = highlight_words(turn.text, words) if words else esc(turn.text)
    extra = [_checked(turn, selected, words)]
    if show_knowledge and turn.evidence and any(item.origin != "provenance" for item in turn.evidence):
        extra.append(details(f"Knowledge shown ({len(turn.evidence)} sentences)", _knowledge(turn.evidence, words)))
    candidates = turn.raw.get("candidate_responses")
    if show_candidates and candidates:
        gold = badge("gold: the wizard's actual reply", "gold")
        items = [
            f'<span class="atlas-selected">{gold} {esc(c)}</span>' if c == turn.text else esc(c)
            for c in candidates
        ]
        extra.append(details(f"{len(candidates)} candidate responses (the gold reply is labelled)", bullet_list(items)))
    return turn_block(turn.role, turn.speaker, text_html, "".join(extra))


def _checked(turn: Turn, selected: list[Evidence], words: set[str]) -> str:
    if turn.labels.get("checked_source") == [NO_PASSAGES_USED]:
        return f'<div class="atlas-evidence">{badge("no passage used", "no-passage")}</div>'
    if selected:
        items = []
        for item in selected:
            where = _ORIGIN_LABELS.get(item.origin, item.origin)
            sentence = highlight_words(item.text, words) if item.origin != "provenance" else esc(item.text)
            span = _span(item)
            items.append(
                f"{badge('checked', 'checked')}{badge(where, 'origin')}<strong>{esc(item.title)}</strong>: "
                f'<span class="atlas-selected">{sentence}</span>{span}'
            )
        return bullet_list(items)
    sentence = turn.labels.get("checked_sentence", [""])[0]
    if sentence:  # the worker's sentence is not among the sentences rebuilt for this turn
        return bullet_list([f"{badge('checked, not among the sentences shown', 'warning')}{esc(sentence)}"])
    return ""


def _span(item: Evidence) -> str:
    if item.origin != "provenance":
        return ""
    meta = item.meta
    parts = [f"Wikipedia id {meta.get('wikipedia_id')}"]
    if "start_paragraph_id" in meta:
        start, end = meta.get("start_character"), meta.get("end_character")
        parts.append(f"paragraph {meta.get('start_paragraph_id')}, characters {start}–{end}")
    if "bleu_score" in meta:
        parts.append(f"BLEU {meta['bleu_score']:.2f}")
    return f' <span class="atlas-note">({esc("; ".join(parts))})</span>'


def _knowledge(evidence: list[Evidence], words: set[str]) -> str:
    blocks = []
    for (origin, title), group in groupby(evidence, key=lambda item: (item.origin, item.title)):
        items = list(group)
        if not any(item.selected for item in items):
            blocks.append(_passage_block(origin, title, tuple(item.text for item in items)))
            continue
        sentences = []
        for item in items:
            text = highlight_words(item.text, words) if item.selected else esc(item.text)
            if item.selected:  # said in words for screen readers too (on screen: the border)
                text = f'<span class="atlas-selected">{sr_only("checked: ")}{text}</span>'
            sentences.append(text)
        blocks.append(_block_html(origin, title, sentences))
    return bullet_list(blocks)


@lru_cache(maxsize=1 << 17)
def _passage_block(origin: str, title: str, texts: tuple[str, ...]) -> str:
    # A passage none of whose sentences the wizard checked reads the same wherever it is shown (the
    # topic's passages at every wizard turn), so it is built once: the full-size synthetic train shows
    # 924 thousand such blocks, 81 thousand distinct, all of which this cache holds (about 110 MB;
    # rendering that train took 15 s of CPU instead of 23.5 s with room for 16 thousand).
    return _block_html(origin, title, [esc(text) for text in texts])


def _block_html(origin: str, title: str, sentences: list[str]) -> str:
    label = _ORIGIN_LABELS.get(origin, origin)
    return f"{badge(label, 'origin')}<strong>{esc(title)}</strong>{bullet_list(sentences)}"
