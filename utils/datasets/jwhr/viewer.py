"""What Japanese Wikipedia Human Retrieval adds to the book's data viewer (:mod:`utils.book.viewer_files`): its
rows' facets, columns and search words, the question and the answer that name a session, and example
SQL. (Hooks found by name: see :mod:`utils.book.viewer_fields`.)"""

from __future__ import annotations

from collections.abc import Mapping

from utils.book.glosses import gloss_key
from utils.book.viewer_fields import Columns, Facets, character_count, unique_values
from utils.book.viewer_files import Query

from ...records import WIZARD, Dialogue
from .parser import NO_PAGE, NOT_FOUND, NOTHING, QUOTE, SUMMARY, answered, question, sentences, trail

#: What the dataset's viewer page (``book/viewer/jwhr.md``, written by the build) says its rows are.
PAGE_ROWS = "Every row of the answered and the not-answered sessions"

#: A session is known by its question, then whether it was answered.
IDENTIFYING = {"dialogues": ("question", "answered", "answer"), "turns": ("role", "text")}
#: One label per session.
SINGLE_LABELS = ("answered",)
#: What a column's statistics count, where two panels would otherwise seem to disagree: the length columns
#: count as the chapter does (:func:`~utils.book.viewer_fields.character_count`, spaces and line breaks
#: left out), the text columns' panels every character of the text.
COLUMN_NOTES = {
    "answer length (characters)": "characters of the answer without its spaces and line breaks, as the chapter "
    "counts them; the panel of answer (text) counts every character, so no length there is lower",
    "question length (characters)": "characters of the question without its spaces and line breaks, as the "
    "chapter counts them; the panel of question (text) counts every character",
}


def row_texts(dialogue: Dialogue) -> dict[str, str | None]:
    """The session's question and its answer (none for a question not answered)."""
    answer = dialogue.turns_by(WIZARD)[0].text if answered(dialogue) else None
    return {"question": question(dialogue) or None, "answer": answer or None}

QUERIES: tuple[Query, ...] = (
    (
        "Sessions by number of search steps",
        "SELECT steps, count(*) AS sessions FROM dialogues GROUP BY steps ORDER BY steps",
        ("dialogues.steps",),
    ),
    (
        "The longest answers",
        'SELECT id, "answer length (characters)" FROM dialogues\n'
        'WHERE "answer length (characters)" IS NOT NULL ORDER BY 2 DESC LIMIT 20',
        ("dialogues.answer length (characters)",),
    ),
)


# -- the facets, columns and search words of its rows (its declaration names them) ---------------

_JWHR_CONTENT = {QUOTE: "quote", SUMMARY: "summary", NOTHING: "nothing", NOT_FOUND: "not found", NO_PAGE: "no page"}


def facets(dialogue: Dialogue) -> Facets:
    """Answered or not, how each trail step was reached, what each reference holds."""
    steps = trail(dialogue)
    return {
        "answered": ["answered" if answered(dialogue) else "not answered"],
        "search / link": unique_values(step.origin for step in steps),
        "quote / summary": unique_values(_JWHR_CONTENT.get(step.content, step.content) for step in steps),
    }


def columns(dialogue: Dialogue) -> Columns:
    """Trail steps, question and answer lengths in characters."""
    answer = dialogue.turns_by(WIZARD)[0].text if answered(dialogue) else ""
    return {
        "steps": len(trail(dialogue)),
        "question length (characters)": character_count(question(dialogue)),
        "answer length (characters)": character_count(answer) if answer else None,
    }


def search_words(dialogue: Dialogue, glosses: Mapping[str, str]) -> list[str]:
    """The atlas's English glosses of the question, the answer and the trail."""
    if not glosses:
        return []
    texts = [question(dialogue), *(sentence.text for sentence in sentences(dialogue))]
    for step in trail(dialogue):
        texts.extend([step.title or "", step.text, step.summary_method or "", *step.keywords])
    return [glosses.get(gloss_key(text), "") for text in texts if text]
