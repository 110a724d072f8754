"""WISE's original format for its Croissant card (:mod:`utils.croissant`): JSON Lines, a conversation a line."""

from __future__ import annotations

from ...declaration import INTEGER, JSON_LINES, TEXT, CardField, CardFormat

FORMATS = (
    CardFormat(
        name="wise_conversation_jsonl",
        description="One conversation per line: its id, the user's search intent and the turns, each with its "
        "intents, actions, selected queries and passages (conversations: a list of turns). The record set types the "
        "top-level values that are not nested.",
        encoding=JSON_LINES,
        splits=("train", "valid", "test", "test_seen", "test_unseen"),
        fields=(
            CardField("conversation_id", INTEGER, "the conversation's id (unique within a file)",
                      column="conversation_id"),
            CardField("intent", TEXT, "the search intent the user was given (in Chinese)", column="intent"),
        ),
    ),
)
