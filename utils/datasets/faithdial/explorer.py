"""What the static explorer shows of a FaithDial dialogue or an audit row besides its rendering."""

from __future__ import annotations

from ...records import WIZARD, Dialogue
from ...render.explorer_fields import Columns, Facets, rounded_mean, unique_values, word_count

#: What a facet counts, shown under its name: the two BEGIN facets count different things.
FACET_NOTES = {
    "BEGIN labels": "every BEGIN label a row's turns carry, as written (a Partial Hallucination is written as "
    "the two labels Entailment and Hallucination): a row counts once under each of its labels",
    "BEGIN class of the audit row": "the one class the chapter counts per audit row (Partial Hallucination "
    "as itself): a row counts once",
}


def _label_facets(dialogue: Dialogue) -> Facets:
    # Read from every turn's labels: whichever turn the parser gives them to, the facet follows.
    # Named for what they count: a dialogue can carry several labels (one per turn, or two on one
    # turn), so their chip counts differ from those of the one class of an audit row.
    return {
        f"{name} labels": unique_values(label for turn in dialogue.turns for label in turn.labels.get(name, []))
        for name in ("BEGIN", "VRM")
    }


def facets(dialogue: Dialogue) -> Facets:
    """A FaithDial dialogue's BEGIN and VRM labels, and whether its responses were edited."""
    found = _label_facets(dialogue)
    responses = [turn for turn in dialogue.turns_by(WIZARD) if not turn.raw.get("from_history")]
    found["edited"] = unique_values(
        "edited" if (turn.raw.get("original_response") or "").strip() else "not edited" for turn in responses
    )
    return {name: values for name, values in found.items() if values}


def audit_facets(dialogue: Dialogue) -> Facets:
    """An audit row's BEGIN and VRM labels as written, and the one BEGIN class the chapter counts."""
    found = _label_facets(dialogue)
    # The model files write Partial Hallucination as the two labels Entailment and Hallucination,
    # which the labels facet shows as written.
    found["BEGIN class of the audit row"] = [str(dialogue.meta.get("begin_class") or "no BEGIN label")]
    return {name: values for name, values in found.items() if values}


def audit_columns(dialogue: Dialogue) -> Columns:
    """Response and knowledge lengths, in words."""
    wizard = [turn for turn in dialogue.turns_by(WIZARD) if turn.text.strip()]
    knowledge = [word_count(" ".join(item.text for item in turn.evidence)) for turn in wizard if turn.evidence]
    return {
        "response length (words)": rounded_mean([word_count(turn.text) for turn in wizard]),
        "knowledge length (words)": rounded_mean(knowledge),
    }


def columns(dialogue: Dialogue) -> Columns:
    """Turns, and response and knowledge lengths in words."""
    return {"turns": len(dialogue.turns), **audit_columns(dialogue)}
