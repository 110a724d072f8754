"""Wizard of Wikipedia's original formats for their Croissant cards (:mod:`utils.croissant`): ParlAI's raw
JSON (a list of dialogues per file) and KILT's JSON Lines (one example per wizard turn)."""

from __future__ import annotations

from ...declaration import INTEGER, JSON, JSON_LINES, TEXT, CardField, CardFormat

RAW_FORMATS = (
    CardFormat(
        name="parlai_raw_json",
        description="A JSON list of dialogues: the topic, the apprentice's persona, the wizard's rating and the "
        "dialogue (dialog: a list of turns, each with speaker 0_Wizard, 1_Apprentice, ..., text, the passages "
        "retrieved for it and, on wizard turns, checked_sentence and checked_passage). The record set types the "
        "top-level values that are not nested.",
        encoding=JSON,
        splits=("train", "valid_seen", "valid_unseen", "test_seen", "test_unseen"),
        fields=(
            CardField("chosen_topic", TEXT, "the dialogue's topic (a Wikipedia article title)",
                      json_path="$[*].chosen_topic"),
            CardField("persona", TEXT, "the persona sentence the apprentice was given", json_path="$[*].persona"),
            CardField("wizard_eval", INTEGER, "the apprentice's rating of the wizard (1 to 5)",
                      json_path="$[*].wizard_eval"),
        ),
    ),
)

KILT_FORMATS = (
    CardFormat(
        name="kilt_jsonl",
        description="One example per line: the dialogue so far as input (turns separated by newlines) and the "
        "wizard's response as output (a list of answers with the Wikipedia provenance of the checked sentence; "
        "absent from the test file). The record set types the top-level values that are not nested.",
        encoding=JSON_LINES,
        splits=("train", "dev", "test"),
        fields=(
            CardField("id", TEXT, "the example's id (a dialogue id and the turn's position)", column="id"),
            CardField("input", TEXT, "the dialogue history, one turn per line", column="input"),
        ),
    ),
)
