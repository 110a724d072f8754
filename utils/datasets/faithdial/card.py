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
        # every value is nested in the list of utterances: the format has no flat field to type
        fields=(),
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
