"""What WISE adds to the book's data viewer (:mod:`utils.book.viewer_files`): its rows' facets, columns and
search words, and example SQL."""

from __future__ import annotations

from collections.abc import Mapping

from utils.book.glosses import english as gloss_english
from utils.book.viewer_fields import Columns, Facets, character_count, rounded_mean, unique_values
from utils.book.viewer_files import Query

from ...records import SEEKER, WIZARD, Dialogue
from .parser import ACTIONS, INTENTS, published_label

QUERIES: tuple[Query, ...] = (
    (
        "User intents and how often they occur",
        "SELECT intent, count(*) AS turns\nFROM (SELECT unnest(intent) AS intent FROM turns)\n"
        "GROUP BY intent ORDER BY turns DESC",
        ("turns.intent",),
    ),
    (
        "System turns with their English gloss",
        'SELECT "dialogue id", turn, text, "text (English)" FROM turns WHERE role = \'wizard\' LIMIT 100',
        ("turns.role", "turns.text (English)"),
    ),
)


# -- the facets, columns and search words of its rows (its declaration names them) ---------------

#: What the dataset's viewer page (``book/viewer/wise.md``, written by the build) says its rows are.
PAGE_ROWS = "Every row of every split of WISE"

def facets(dialogue: Dialogue) -> Facets:
    """The user's intents and the system's actions, as the authors name them."""
    intents = (published_label(turn.labels.get("intent", [])) for turn in dialogue.turns_by(SEEKER))
    actions = (published_label(turn.labels.get("action", [])) for turn in dialogue.turns_by(WIZARD))
    return {"user intent": unique_values(intents), "system action": unique_values(actions)}


def columns(dialogue: Dialogue) -> Columns:
    """Utterances, the system's reply length in characters, passages selected."""
    system = dialogue.turns_by(WIZARD)
    return {
        "utterances": len(dialogue.turns),
        "reply length (characters)": rounded_mean([character_count(turn.text) for turn in system]),
        "passages selected": sum(len(turn.selected_evidence) for turn in system),
    }


def search_words(dialogue: Dialogue, glosses: Mapping[str, str]) -> list[str]:
    """The English of the labels and the atlas's English glosses of the text."""
    labels = [value for values in facets(dialogue).values() for value in values]
    english = [INTENTS.get(label) or ACTIONS.get(label) or "" for label in labels]
    texts = [str(dialogue.meta.get("search_intent") or ""), *(turn.text for turn in dialogue.turns)]
    texts += [item.text for turn in dialogue.turns for item in turn.evidence if item.text]
    # glosses are keyed by a hash of the text they translate (utils.book.glosses), never by the text itself
    return [*english, *(gloss_english(text, glosses) or "" for text in texts)]
