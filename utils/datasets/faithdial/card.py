"""FaithDial's and its hallucination audit's original formats for their Croissant cards
(:mod:`utils.croissant`): the hub repository's JSON lists, and the audit's CSV files, whose columns
differ between the gold files and each model's files."""

from __future__ import annotations

from ...declaration import CSV, JSON, TEXT, CardField, CardFormat

#: The label vocabularies (the audit parser normalises the files' spellings to them). Declared here,
#: not in the parser, so that the registry reads them without importing a parser.
BEGIN_CLASSES = ("Hallucination", "Partial Hallucination", "Entailment", "Generic", "Uncooperative")
VRM_CLASSES = ("Disclosure", "Edification", "Advisement", "Confirmation", "Question", "Acknowledgment")

_LABEL_CELL = (
    "written as in the file: one or more labels separated by commas or newlines, in varying case and spelling "
    "(the atlas normalises them to the vocabulary)"
)

FAITHDIAL_FORMATS = (
    CardFormat(
        name="faithdial_json",
        description="A JSON list of dialogues, each a list of wizard utterances (utterances) with the history "
        "before them, the speaker, the knowledge, the original and the edited response, and the labels of the "
        f"original: BEGIN (a list of {', '.join(BEGIN_CLASSES)}) and VRM (a list of {', '.join(VRM_CLASSES)}).",
        encoding=JSON,
        splits=("train", "valid", "valid_seen", "valid_unseen", "test", "test_seen", "test_unseen"),
        # one record per utterance: every value is in a dialogue's list of utterances
        fields=(
            CardField("knowledge", TEXT, "the knowledge sentence the response must follow",
                      json_path="$[*].utterances[*].knowledge"),
            CardField("original_response", TEXT, "the wizard's response in Wizard of Wikipedia (the one the BEGIN "
                      "and VRM labels describe)", json_path="$[*].utterances[*].original_response"),
            CardField("response", TEXT, "the response as edited to follow the knowledge",
                      json_path="$[*].utterances[*].response"),
        ),
    ),
)


def _audit_format(
    name: str, splits: tuple[str, ...], knowledge: str, response: str, begin: str, vrm: str
) -> CardFormat:
    return CardFormat(
        name=name,
        description=f"One response per CSV row with its labels (columns {knowledge}, history, {response}, "
        f"{begin}, {vrm}); some rows are blank and some have no BEGIN label.",
        encoding=CSV,
        splits=splits,
        fields=(
            CardField("knowledge", TEXT, "the knowledge the response should rest on", column=knowledge),
            CardField("history", TEXT, "the dialogue history before the response", column="history"),
            CardField("response", TEXT, "the response that was labelled", column=response),
            CardField("begin", TEXT, f"BEGIN labels, {_LABEL_CELL}", column=begin, labels=BEGIN_CLASSES),
            CardField("vrm", TEXT, f"verbal response modes (VRM), {_LABEL_CELL}", column=vrm, labels=VRM_CLASSES),
        ),
    )


AUDIT_FORMATS = (
    _audit_format("audit_gold_csv", ("gold_wow", "gold_cmu", "gold_topical"), "evidence", "response", "BEGIN", "VRM"),
    *(
        _audit_format(
            f"audit_{model}_csv",
            (f"{model}_wow", f"{model}_cmu", f"{model}_topical"),
            "knowledge",
            model,
            "begin_label",
            "vrm_label",
        )
        for model in ("gpt2", "doha", "ctrl")
    ),
)

_WOW = ("Wizard of Wikipedia", "https://parl.ai/projects/wizard_of_wikipedia/")
_CMU_DOG = ("CMU-DoG", "https://github.com/festvox/datasets-CMU_DoG")
_TOPICAL_CHAT = ("Topical-Chat", "https://github.com/alexa/Topical-Chat")

#: Croissant RAI fields (:data:`utils.croissant.RAI_FIELDS`), each from the source it names.
RAI = {
    "dataCollection": "Amazon Mechanical Turk workers edited Wizard of Wikipedia wizard responses that were found "
    "to be unfaithful to their knowledge, so that the new response is attributable to the knowledge and "
    "conversational (the Hugging Face dataset card; Dziri et al. 2022).",
    "dataCollectionType": "Crowdsourcing (editing an existing dataset's responses)",
    "dataAnnotationProtocol": "Workers in the United States and Canada passed a 20-question qualification test and "
    "a pilot round; each original response carries BEGIN labels (in the scheme of BEGIN's first release) and VRM "
    "labels of what it does (the dataset card, 'Who are the annotators?'; the atlas's chapter).",
    "dataUseCases": "Training and evaluating faithful information-seeking dialogue models and hallucination critics "
    "(FaithCritic) (the dataset card; the paper).",
    "dataLimitations": "The BEGIN and VRM labels describe original_response, not the edited response; the split "
    "files are published without checksums and the hub's loading script no longer runs (the atlas's chapter, "
    "pitfalls).",
    "dataBiases": "Only the wizard turns of Wizard of Wikipedia that were judged unfaithful were edited, so the "
    "label shares describe that selection, not Wizard of Wikipedia as a whole (the dataset card: annotators amended "
    "hallucinated utterances).",
    "personalSensitiveInformation": "Seeker utterances may contain personal and sensitive information (the dataset "
    "card, 'Personal and Sensitive Information').",
    "dataReleaseMaintenancePlan": "Published on the Hugging Face Hub (McGill-NLP/FaithDial) and the authors' GitHub "
    "repository; the atlas reads the hub at a pinned commit; no later version is announced.",
}
DERIVED_FROM = (_WOW,)

AUDIT_RAI = {
    "dataCollection": "Responses of three benchmarks (gold responses) and of GPT-2, DoHA and CTRL trained on each, "
    "200 examples per file, labelled by people (McGill-NLP/FaithDial data-audit/README.md; Dziri et al. 2022, "
    "'On the origin of hallucinations').",
    "dataCollectionType": "Human annotation of existing and model-generated responses",
    "dataAnnotationProtocol": "Each response carries BEGIN labels (Hallucination, Partial Hallucination, "
    "Entailment, Generic, Uncooperative) and verbal response modes (VRM) (data-audit/README.md, Data Fields).",
    "dataUseCases": "Measuring how often benchmarks' gold responses and models' responses hallucinate, and how "
    "models amplify it (the paper; the atlas's chapter).",
    "dataLimitations": "Column names differ between the gold and the model files, labels vary in case and spelling, "
    "some rows are blank and some have no BEGIN label (the atlas's audit parser and chapter).",
    "dataBiases": "200 responses per benchmark and model: shares are estimates from small samples, and the models' "
    "shares differ by benchmark (the atlas's chapter, with intervals).",
    "personalSensitiveInformation": "None stated (data-audit/README.md names none); the knowledge and histories come "
    "from the three benchmarks' crowdsourced dialogues.",
    "dataReleaseMaintenancePlan": "The data-audit folder of McGill-NLP/FaithDial, unchanged since its initial "
    "release commit 914a5ac (the repository's history); no later version is announced.",
}
AUDIT_DERIVED_FROM = (_WOW, _CMU_DOG, _TOPICAL_CHAT)
