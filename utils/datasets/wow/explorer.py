"""What the static explorer shows of a Wizard of Wikipedia dialogue besides its rendering (raw and KILT)."""

from __future__ import annotations

from ...records import WIZARD, Dialogue
from ...render.explorer_fields import Columns, Facets, rounded_mean, unique_values, word_count
from .parser import NO_PASSAGES_USED

#: ``checked_source`` as the file writes it, and as the explorer names it.
WOW_SOURCES = {
    "chosen": "topic passage (chosen)",
    "partner": "apprentice's turn (partner)",
    "self": "wizard's turn (self)",
    NO_PASSAGES_USED: "no passage used",
}


def facets(dialogue: Dialogue) -> Facets:
    """Which source the wizard checked on its turns, and whether it ever used no passage."""
    wizard = dialogue.turns_by(WIZARD)
    sources = [source for turn in wizard for source in turn.labels.get("checked_source", [])]
    if not sources:  # KILT examples carry a provenance, not the wizard's tick
        return {}
    return {
        "checked source": unique_values(WOW_SOURCES.get(source, source) for source in sources),
        "no passage used": ["on some turn" if NO_PASSAGES_USED in sources else "never"],
    }


def columns(dialogue: Dialogue) -> Columns:
    """Turns, the wizard's reply length in words and the knowledge shown per reply."""
    wizard = dialogue.turns_by(WIZARD)
    shown = [len(turn.evidence) for turn in wizard if any(item.origin != "provenance" for item in turn.evidence)]
    return {
        "turns": len(dialogue.turns),
        "reply length (words)": rounded_mean([word_count(turn.text) for turn in wizard]),
        "knowledge shown (sentences per reply)": rounded_mean(shown),
    }


def kilt_columns(dialogue: Dialogue) -> Columns:
    """A KILT example is one wizard turn with the dialogue before it, not a dialogue: its length is the
    context it carries, counted apart from whole dialogues' turns."""
    # The parser puts the answer, when the file has one (the test file has none), last, marked with
    # the index of the output it comes from.
    answered = bool(dialogue.turns) and "output_index" in dialogue.turns[-1].raw
    context = dialogue.turns[:-1] if answered else dialogue.turns
    return {
        "KILT example: turns of context": len(context),
        "reply length (words)": word_count(dialogue.turns[-1].text) if answered else None,
    }
