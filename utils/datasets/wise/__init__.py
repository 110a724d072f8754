"""WISE, the Wizard of Search Engine (Ren et al. 2021): conversational information seeking in Chinese,
with intents, actions, queries and the passages a system selected.

The conversations are JSON Lines; ``document_line.json`` beside them holds the document collection
the passages come from (read by :mod:`.documents`). The chapter is ``notebooks/wise.ipynb``.

The five conversation files are in the authors' repository ("this dataset is available in
``./data/WISE``", its README says): they are fetched from a pinned commit and verified by their git
blob ids, as the repository's tree lists them. The document collection is only in the authors'
Google Drive folder (and on Baidu Pan), with no checksum published.
"""

from __future__ import annotations

from pathlib import Path

from ...declaration import ChapterFacts, DatasetProfile, DatasetSource, Loader, RecordIds, SourceFile, on_use
from . import card  # the parser, render.py and viewer.py: imported on first use
from .reported import REPORTED

#: Where this dataset stands in the book's lists (the chapters' order).
ORDER = 30

GDRIVE_FOLDER = "1KFo3OGvFjqC-cDL6_hULyZc5CANz2Rky"
#: The commit of PengjieRen/CaSE_WISE whose ``data/WISE`` folder the conversations are fetched from.
GITHUB_COMMIT = "9a0c56d9a83126e494e30a1317c363c338a204b4"
_GITHUB_RAW = f"https://raw.githubusercontent.com/PengjieRen/CaSE_WISE/{GITHUB_COMMIT}/data/WISE"
#: Git blob ids of the conversation files at :data:`GITHUB_COMMIT` (the repository's tree).
CONVERSATION_BLOBS = {
    "conversation_train_line.json": "a41e2741ce6736babd8131fb4b7f2ff894ff3c02",
    "conversation_valid_line.json": "2ce5a46fe85db7d805674cdb13dab4b4d511e625",
    "conversation_test_line.json": "66ede2df9bfec07f38981ebc2cd3fc23d60bc494",
    "conversation_testseen_line.json": "ebb86a45742e14d5731ff7c61e33093a24f8b48a",
    "conversation_testunseen_line.json": "6e0889421e4cd63e246ceb44083c9b2a2a9d0042",
}


def _drive(filename: str) -> SourceFile:
    return SourceFile(path=f"wise/{filename}", gdrive_folder=GDRIVE_FOLDER)


def _github(filename: str) -> SourceFile:
    return SourceFile(
        path=f"wise/{filename}", url=f"{_GITHUB_RAW}/{filename}", git_blob=CONVERSATION_BLOBS[filename]
    )


WISE = DatasetSource(
    name="wise",
    title="WISE (Wizard of Search Engine)",
    language="Chinese",
    format="JSON Lines (one conversation per line) plus a JSON Lines document collection",
    homepage="https://github.com/PengjieRen/CaSE_WISE",
    license="none stated: the authors' README and data description name no licence, and their "
    "repository has no licence file",
    license_statement="PengjieRen/CaSE_WISE: its README and WISE.md (no licence named), and no licence file",
    redistributable=False,
    redistribution="no licence is stated, so none grants redistribution",
    citation_key="ren2021wizard",
    folder=Path(__file__).parent,
    loader=Loader(
        card_formats=card.FORMATS,
        label_keys=("intent", "action"),
        joined_labels=("intent", "action"),
        # The authors' README: "conversation_id is the unique id of a conversation". (The test file is
        # test_seen plus test_unseen, so ids repeat across those files, never within one.)
        record_ids=RecordIds(field="conversation_id", unique=True),
        record_unit="conversations",
        parse=on_use(__name__, "parser:parse"),
        parser_version=on_use(__name__, "parser:PARSER_VERSION"),
        parse_columns=on_use(__name__, "parser:parse_columns"),
        companion_files=on_use(__name__, "parser:companion_files"),
        splits={
            "train": (_github("conversation_train_line.json"),),
            "valid": (_github("conversation_valid_line.json"),),
            "test": (_github("conversation_test_line.json"),),
            "test_seen": (_github("conversation_testseen_line.json"),),
            "test_unseen": (_github("conversation_testunseen_line.json"),),
        },
        original_split_names={"test_seen": "testseen", "test_unseen": "testunseen"},
        extra_files={"documents": _drive("document_line.json")},
    ),
    chapter=ChapterFacts(
        reported=REPORTED,
        synthetic="benchmarks.synthetic:write_wise",
        chapter_splits=("train", "valid", "test", "test_seen", "test_unseen"),
        profile=DatasetProfile(
            ("valid", "test"),
            "conversation (user and system in a conversational search session)",
            "passages of retrieved web documents (candidates per system turn)",
            "the system selects passages (and queries and documents) per turn",
        ),
        notes="Conversations from the authors' GitHub repository at a pinned commit, verified by git blob "
        "id; the document collection only in a Google Drive folder (and on Baidu Pan): place it in the "
        "data directory by hand if the download is refused.",
    ),
)

DATASETS = (WISE,)
