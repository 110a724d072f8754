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

#: Croissant RAI fields (:data:`utils.croissant.RAI_FIELDS`), each from the source it names.
RAI = {
    "dataCollection": "Crowdworkers held dialogues on 1,365 crowd-sourced topics, each linked to a Wikipedia "
    "article: one played the wizard, who saw passages retrieved from Wikipedia for the last turns and marked the "
    "sentence used, the other the apprentice (the Hugging Face dataset card; Dinan et al. 2019, section 3).",
    "dataCollectionType": "Crowdsourcing",
    "dataAnnotationProtocol": "No annotation after collection: the wizard's own choice of a knowledge sentence per "
    "turn (or 'no passage used') is the label, and the apprentice rated the wizard from 1 to 5 (the paper's "
    "collection procedure, quoted in the dataset card).",
    "dataUseCases": "Training and evaluating knowledge-grounded dialogue models: knowledge selection and response "
    "generation, on test topics seen in training and unseen ones (the paper; the atlas's chapter).",
    "dataLimitations": "A wizard may mark 'no passage used', and the checked sentence records what the wizard "
    "marked, not whether the reply rests on it: FaithDial's authors found and edited hallucinated wizard responses "
    "(Dziri et al. 2022). The seen and unseen halves of the validation and test splits measure different things: "
    "topics shared with train, and topics never seen (the dataset card).",
    "dataBiases": "The topics are crowdsourced and may be relevant to only some communities, and crowdworkers' "
    "dialogues may carry biased opinions (the dataset card's 'Discussion of Biases').",
    "personalSensitiveInformation": "None stated: the dataset card answers N/A; the knowledge is Wikipedia text "
    "(the dataset card).",
    "dataReleaseMaintenancePlan": "Distributed by ParlAI as one archive (wizard_of_wikipedia.tgz, checked by its "
    "sha256 in ParlAI's build.py); questions go to ParlAI's GitHub issues (the dataset card's point of contact). "
    "No later version is announced.",
}

KILT_RAI = {
    "dataCollection": "Derived, not collected: KILT maps each wizard turn of Wizard of Wikipedia to one example "
    "whose output is the wizard's response with the Wikipedia provenance of the checked sentence, located in KILT's "
    "2019 Wikipedia snapshot (Petroni et al. 2021).",
    "dataCollectionType": "Derived from an existing dataset",
    "dataAnnotationProtocol": "Automatic: the checked sentence is matched to a passage of the snapshot, with a "
    "BLEU score recorded when the match is not exact (KILT's README, data format).",
    "dataUseCases": "Evaluating retrieval and grounded generation on the KILT benchmark (Petroni et al. 2021).",
    "dataLimitations": "The test file has no answers; the files repeat examples (facebookresearch/KILT issue 41 "
    "counts 94,577 train examples for 83,160 wizard turns), so ids are not unique (the atlas's declaration).",
    "dataBiases": "Those of Wizard of Wikipedia (crowdsourced topics and opinions), restricted to turns whose "
    "checked sentence was found in the snapshot (KILT's construction).",
    "personalSensitiveInformation": "None stated (Wizard of Wikipedia's card answers N/A).",
    "dataReleaseMaintenancePlan": "Files served at dl.fbaipublicfiles.com/KILT, listed in the facebookresearch/KILT "
    "README; no later version is announced.",
}

#: PROV-O lineage (``prov:wasDerivedFrom``): (name, URL) of each dataset a card's data was made from.
KILT_DERIVED_FROM = (("Wizard of Wikipedia", "https://parl.ai/projects/wizard_of_wikipedia/"),)
