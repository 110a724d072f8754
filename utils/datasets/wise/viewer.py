"""What WISE adds to the book's data viewer (:mod:`utils.viewer`): example SQL."""

from __future__ import annotations

from ...viewer import Query

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


