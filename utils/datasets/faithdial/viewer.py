"""What FaithDial and the hallucination audit adds to the book's data viewer (:mod:`utils.viewer`): example SQL."""

from __future__ import annotations

from ...viewer import Query

#: The audit's class of a row is one label. (Hooks found by name: see :mod:`utils.render.viewer_fields`.)
SINGLE_LABELS = ("BEGIN class of the audit row",)

QUERIES: tuple[Query, ...] = (
    (
        "BEGIN labels as written, by role",
        "SELECT role, label, count(*) AS turns\nFROM (SELECT role, unnest(BEGIN) AS label FROM turns)\n"
        "GROUP BY role, label ORDER BY turns DESC",
        ("turns.role", "turns.BEGIN"),
    ),
    (
        "Responses labelled Hallucination, with their text",
        "SELECT \"dialogue id\", turn, text FROM turns\nWHERE list_contains(BEGIN, 'Hallucination') LIMIT 100",
        ("turns.BEGIN", "turns.text"),
    ),
)


