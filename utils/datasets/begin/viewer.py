"""What BEGIN adds to the book's data viewer (:mod:`utils.viewer`): example SQL."""

from __future__ import annotations

from ...viewer import Query

QUERIES: tuple[Query, ...] = (
    (
        "Attribution labels by model",
        "SELECT speaker AS model, label, count(*) AS responses\n"
        "FROM (SELECT speaker, unnest(BEGIN) AS label FROM turns WHERE role = 'wizard')\n"
        "GROUP BY model, label ORDER BY model, responses DESC",
        ("turns.speaker", "turns.BEGIN"),
    ),
    (
        "Responses labelled Generic, with their message",
        "SELECT r.\"dialogue id\", m.text AS message, r.text AS response\n"
        "FROM turns r JOIN turns m ON m.\"dialogue id\" = r.\"dialogue id\" AND m.role = 'seeker'\n"
        "WHERE r.role = 'wizard' AND list_contains(r.BEGIN, 'Generic') LIMIT 100",
        ("turns.BEGIN", "turns.text"),
    ),
)
