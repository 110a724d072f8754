"""What the static explorer knows about a dialogue besides its rendering: facets, columns, words.

For every dataset the explorer filters by the labels its annotators gave (:func:`facets`), draws
the distributions of a few numeric columns (:func:`columns`) and searches more than the text: label
names, their English glosses and the atlas's English translations of the text (:func:`search_words`).
All values are read from the common records (``Turn.labels``, ``Turn.raw``, ``Dialogue.meta``), so
a parser that changes which turn carries a label changes the facets with it.

Facet values and search words are dataset strings: the explorer's script only ever shows them as
text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from ..formats.jwhr import NO_PAGE, NOT_FOUND, NOTHING, QUOTE, SUMMARY, answered, question, sentences, trail
from ..formats.wise import ACTIONS, INTENTS, published_label
from ..formats.wow_raw import NO_PASSAGES_USED
from ..glosses import english as gloss_english
from ..records import SEEKER, WIZARD, Dialogue
from ..sources import get_source
from .jwhr import gloss_key

#: Facet values are lists of strings; columns are numbers (``None`` when a dialogue has none).
Facets = dict[str, list[str]]
Columns = dict[str, float | None]

# -- shared helpers -------------------------------------------------------------------------------


def _unique(values: Iterable[str]) -> list[str]:
    return [value for value in dict.fromkeys(values) if value]


def _words(text: str) -> int:
    # The chapters count English lengths in whitespace-separated words.
    return len(text.split())


def _characters(text: str) -> int:
    # Chinese and Japanese have no spaces between words: lengths are in characters, spaces left out.
    return sum(1 for char in text if not char.isspace())


def _mean(values: list[int]) -> float | None:
    return round(sum(values) / len(values), 1) if values else None


# -- Wizard of Wikipedia (raw and KILT) -----------------------------------------------------------

#: ``checked_source`` as the file writes it, and as the explorer names it.
WOW_SOURCES = {
    "chosen": "topic passage (chosen)",
    "partner": "apprentice's turn (partner)",
    "self": "wizard's turn (self)",
    NO_PASSAGES_USED: "no passage used",
}


def _wow_facets(dialogue: Dialogue) -> Facets:
    wizard = dialogue.turns_by(WIZARD)
    sources = [source for turn in wizard for source in turn.labels.get("checked_source", [])]
    if not sources:  # KILT examples carry a provenance, not the wizard's tick
        return {}
    return {
        "checked source": _unique(WOW_SOURCES.get(source, source) for source in sources),
        "no passage used": ["on some turn" if NO_PASSAGES_USED in sources else "never"],
    }


def _wow_columns(dialogue: Dialogue) -> Columns:
    wizard = dialogue.turns_by(WIZARD)
    shown = [len(turn.evidence) for turn in wizard if any(item.origin != "provenance" for item in turn.evidence)]
    return {
        "turns": len(dialogue.turns),
        "reply length (words)": _mean([_words(turn.text) for turn in wizard]),
        "knowledge shown (sentences per reply)": _mean(shown),
    }


# -- FaithDial and the hallucination audit ----------------------------------------------------------


def _faithdial_facets(dialogue: Dialogue) -> Facets:
    # Read from every turn's labels: whichever turn the parser gives them to, the facet follows.
    # Named for what they count: a dialogue can carry several labels (one per turn, or two on one
    # turn), so their chip counts differ from those of the one class of an audit row.
    found: Facets = {
        f"{name} labels": _unique(label for turn in dialogue.turns for label in turn.labels.get(name, []))
        for name in ("BEGIN", "VRM")
    }
    if dialogue.dataset == "faithdial_audit":
        # The one class the chapter counts per row: the model files write Partial Hallucination as
        # the two labels Entailment and Hallucination, which the labels facet shows as written.
        found["BEGIN class of the audit row"] = [str(dialogue.meta.get("begin_class") or "no BEGIN label")]
    if dialogue.dataset == "faithdial":
        responses = [turn for turn in dialogue.turns_by(WIZARD) if not turn.raw.get("from_history")]
        found["edited"] = _unique(
            "edited" if (turn.raw.get("original_response") or "").strip() else "not edited" for turn in responses
        )
    return {name: values for name, values in found.items() if values}


#: What a facet counts, shown under its name where two facets could be read as the same count.
FACET_NOTES = {
    "BEGIN labels": "every BEGIN label a row's turns carry, as written (a Partial Hallucination is written as "
    "the two labels Entailment and Hallucination): a row counts once under each of its labels",
    "BEGIN class of the audit row": "the one class the chapter counts per audit row (Partial Hallucination "
    "as itself): a row counts once",
}


def _faithdial_columns(dialogue: Dialogue) -> Columns:
    wizard = [turn for turn in dialogue.turns_by(WIZARD) if turn.text.strip()]
    knowledge = [_words(" ".join(item.text for item in turn.evidence)) for turn in wizard if turn.evidence]
    found: Columns = {
        "response length (words)": _mean([_words(turn.text) for turn in wizard]),
        "knowledge length (words)": _mean(knowledge),
    }
    if dialogue.dataset == "faithdial":
        found = {"turns": len(dialogue.turns), **found}
    return found


# -- WISE -------------------------------------------------------------------------------------------


def _wise_facets(dialogue: Dialogue) -> Facets:
    return {
        "user intent": _unique(published_label(turn.labels.get("intent", [])) for turn in dialogue.turns_by(SEEKER)),
        "system action": _unique(published_label(turn.labels.get("action", [])) for turn in dialogue.turns_by(WIZARD)),
    }


def _wise_columns(dialogue: Dialogue) -> Columns:
    system = dialogue.turns_by(WIZARD)
    return {
        "utterances": len(dialogue.turns),
        "reply length (characters)": _mean([_characters(turn.text) for turn in system]),
        "passages selected": sum(len(turn.selected_evidence) for turn in system),
    }


def _wise_words(dialogue: Dialogue, glosses: Mapping[str, str]) -> list[str]:
    labels = [value for values in _wise_facets(dialogue).values() for value in values]
    english = [INTENTS.get(label) or ACTIONS.get(label) or "" for label in labels]
    texts = [str(dialogue.meta.get("search_intent") or ""), *(turn.text for turn in dialogue.turns)]
    texts += [item.text for turn in dialogue.turns for item in turn.evidence if item.text]
    # glosses are keyed by a hash of the text they translate (utils.glosses), never by the text itself
    return [*english, *(gloss_english(text, glosses) or "" for text in texts)]


# -- Japanese Wikipedia Human Retrieval -----------------------------------------------------------------

_JWHR_CONTENT = {QUOTE: "quote", SUMMARY: "summary", NOTHING: "nothing", NOT_FOUND: "not found", NO_PAGE: "no page"}


def _jwhr_facets(dialogue: Dialogue) -> Facets:
    steps = trail(dialogue)
    return {
        "answered": ["answered" if answered(dialogue) else "not answered"],
        "search / link": _unique(step.origin for step in steps),
        "quote / summary": _unique(_JWHR_CONTENT.get(step.content, step.content) for step in steps),
    }


def _jwhr_columns(dialogue: Dialogue) -> Columns:
    answer = dialogue.turns_by(WIZARD)[0].text if answered(dialogue) else ""
    return {
        "steps": len(trail(dialogue)),
        "question length (characters)": _characters(question(dialogue)),
        "answer length (characters)": _characters(answer) if answer else None,
    }


def _jwhr_words(dialogue: Dialogue, glosses: Mapping[str, str]) -> list[str]:
    if not glosses:
        return []
    texts = [question(dialogue), *(sentence.text for sentence in sentences(dialogue))]
    for step in trail(dialogue):
        texts.extend([step.title or "", step.text, step.summary_method or "", *step.keywords])
    return [glosses.get(gloss_key(text), "") for text in texts if text]


# -- dispatch -------------------------------------------------------------------------------------------


def _field_function(dataset: str, kind: str) -> Callable[..., object] | None:
    """The dataset's ``kind`` function (``facets``, ``columns``, ``words``), found from its declaration.

    A renderer module may define its own (``facets(dialogue)``, ``columns(dialogue)``,
    ``search_words(dialogue, glosses)``); otherwise the function here named after the renderer
    (``_wow_facets`` for ``utils.render.wow``) serves every dataset that renderer shows.
    """
    from . import renderer_module

    own = getattr(renderer_module(dataset), {"words": "search_words"}.get(kind, kind), None)
    if callable(own):
        return own
    short = get_source(dataset).renderer.rsplit(".", 1)[-1]
    return globals().get(f"_{short}_{kind}")


def facets(dialogue: Dialogue) -> Facets:
    """The dialogue's labels as facet values, by facet name (a dialogue matches a value when one of
    its turns carries it); an empty dict for datasets the explorer has no facets for."""
    found = _field_function(dialogue.dataset, "facets")
    return found(dialogue) if found else {}  # type: ignore[return-value]


def columns(dialogue: Dialogue) -> Columns:
    """A few numbers per dialogue (turns, lengths) whose distributions the explorer draws."""
    function = _field_function(dialogue.dataset, "columns")
    found: Columns = function(dialogue) if function else {"turns": len(dialogue.turns)}  # type: ignore[assignment]
    return {name: value for name, value in found.items() if value is not None}


def search_words(dialogue: Dialogue, glosses: Mapping[str, str] | None = None) -> list[str]:
    """Words the explorer's search matches besides the text: facet values (the labels), the English
    glosses of label names and, with ``glosses``, the English translations of the dialogue's text."""
    labels = [value for values in facets(dialogue).values() for value in values]
    function = _field_function(dialogue.dataset, "words")
    extra: list[str] = function(dialogue, glosses or {}) if function else []  # type: ignore[assignment]
    return [word for word in (*labels, *extra) if word]


__all__ = ["FACET_NOTES", "WOW_SOURCES", "columns", "facets", "search_words"]
