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

#: Croissant RAI fields (:data:`utils.croissant.RAI_FIELDS`), each from the source it names.
RAI = {
    "dataCollection": "About 1.9K Chinese conversations (37K utterances, 9.2 turns on average) between a user given "
    "a search intent and a wizard who searched and selected passages, with the documents they came from (the "
    "authors' README and WISE.md; Ren et al. 2021).",
    "dataCollectionType": "Wizard-of-Oz collection with human participants",
    "dataAnnotationProtocol": "Each turn records its intents, actions, selected queries and passages as the "
    "participants chose them (the data description WISE.md).",
    "dataUseCases": "Conversational information seeking: intent and action prediction, query generation, passage "
    "selection and response generation (the paper; the atlas's chapter).",
    "dataLimitations": "The document collection is only on Google Drive and Baidu Pan, with no checksum; the test "
    "file is divided into seen and unseen parts (the README; the atlas's chapter).",
    "dataBiases": "The documents come from one search engine (each document's origin_link is a Baidu address), so "
    "what the wizard could select reflects that engine's results (the data description, document format).",
    "personalSensitiveInformation": "None stated (the README and WISE.md name none).",
    "dataReleaseMaintenancePlan": "No licence is stated; the conversations are in PengjieRen/CaSE_WISE (pinned "
    "by commit and git blob id) and no later version is announced.",
}
