"""What Japanese Wikipedia Human Retrieval adds to the book's data viewer (:mod:`utils.viewer`): the
question and the answer that name a session, and example SQL. (Hooks found by name: see
:mod:`utils.render.viewer_fields`.)"""

from __future__ import annotations

from ...records import WIZARD, Dialogue
from ...viewer import Query
from .parser import answered, question

#: A session is known by its question, then whether it was answered.
IDENTIFYING = {"dialogues": ("question", "answered", "answer"), "turns": ("role", "text")}
#: One label per session.
SINGLE_LABELS = ("answered",)


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


