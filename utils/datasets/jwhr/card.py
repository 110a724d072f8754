"""JWHR's original format for its Croissant card (:mod:`utils.croissant`): JSON Lines, one session a line."""

from __future__ import annotations

from ...declaration import INTEGER, JSON_LINES, TEXT, CardField, CardFormat

FORMATS = (
    CardFormat(
        name="jwhr_jsonl",
        description="One question-answering session per line: the question; the answer, an object with its text "
        "and its sentences, each with the indices of the references it cites; and the worker's search trail "
        "(references: per reference the search keywords, the page's title and URL, and a quote or summary of it). "
        "The record set types the top-level values that are not nested.",
        encoding=JSON_LINES,
        splits=("answered", "not_answered"),
        fields=(
            CardField("id", INTEGER, "the session's entry id (unique across both files)", column="id"),
            CardField("question", TEXT, "the question the worker answered", column="question"),
        ),
    ),
)

#: Croissant RAI fields (:data:`utils.croissant.RAI_FIELDS`), each from the source it names.
RAI = {
    "dataCollection": "Trained workers, given a question, searched Japanese Wikipedia (the search box and inner "
    "links) and wrote an answer from what they found; each recorded their own search process, and failed sessions "
    "were kept without an answer (the Hugging Face dataset card).",
    "dataCollectionType": "Human workers (trained, not crowdsourced)",
    "dataAnnotationProtocol": "No separate annotation: the worker who answered records, per step, the search "
    "keywords, the page and a quote or a summary of it, and cites references per answer sentence (the dataset "
    "card, data structure).",
    "dataUseCases": "Studying and training retrieval-augmented question answering in Japanese, with the human "
    "search trail as supervision (the dataset card).",
    "dataLimitations": "Not every step yields a quote (some give a summary or nothing), and the not_answered chunk "
    "has no answer; both chunks are one release with no train/test split (the dataset card; the atlas's chapter).",
    "dataBiases": "838 answered and 433 not answered sessions: answered ones are the majority, and all sources are "
    "Japanese Wikipedia (the dataset card).",
    "personalSensitiveInformation": "None stated; the quotes are Wikipedia text and the questions were written for "
    "the task (the dataset card).",
    "dataReleaseMaintenancePlan": "Published on the Hugging Face Hub (baobab-trees/wikipedia-human-retrieval-ja); "
    "the atlas reads it at a pinned commit; no later version is announced.",
}
