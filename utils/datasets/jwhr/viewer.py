"""What Japanese Wikipedia Human Retrieval adds to the book's data viewer (:mod:`utils.viewer`): example SQL."""

from __future__ import annotations

from ...viewer import Query

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


