"""WISE, the Wizard of Search Engine (Ren et al. 2021): conversational information seeking in Chinese,
with intents, actions, queries and the passages a system selected.

The conversations are JSON Lines; ``document_line.json`` beside them holds the document collection
the passages come from (read by :mod:`.documents`). The chapter is ``notebooks/wise.ipynb``.
"""

from __future__ import annotations

from pathlib import Path

from ...sources import DatasetProfile, DatasetSource, RecordIds, SourceFile
from . import explorer, parser, render, viewer
from .reported import REPORTED

#: Where this dataset stands in the book's lists (the chapters' order).
ORDER = 30

GDRIVE_FOLDER = "1KFo3OGvFjqC-cDL6_hULyZc5CANz2Rky"


def _drive(filename: str) -> SourceFile:
    return SourceFile(path=f"wise/{filename}", gdrive_folder=GDRIVE_FOLDER)


WISE = DatasetSource(
    name="wise",
    label_keys=("intent", "action"),
    joined_labels=("intent", "action"),
    # The authors' README: "conversation_id is the unique id of a conversation". (The test file is
    # test_seen plus test_unseen, so ids repeat across those files, never within one.)
    record_ids=RecordIds(field="conversation_id", unique=True),
    record_unit="conversations",
    title="WISE (Wizard of Search Engine)",
    language="Chinese",
    format="JSON Lines (one conversation per line) plus a JSON Lines document collection",
    homepage="https://github.com/PengjieRen/CaSE_WISE",
    license="see the authors' repository (research use)",
    redistributable=False,
    redistribution="research-use terms in the authors' repository; no licence grants redistribution",
    citation_key="ren2021wizard",
    folder=Path(__file__).parent,
    parse=parser.parse,
    parser_version=parser.PARSER_VERSION,
    parse_columns=parser.parse_columns,
    companion_files=parser.companion_files,
    render=render.render,
    search_text=render.search_text,
    facets=explorer.facets,
    viewer_queries=viewer.QUERIES,
    columns=explorer.columns,
    search_words=explorer.search_words,
    reported=REPORTED,
    synthetic="benchmarks.synthetic:write_wise",
    chapter_splits=("train", "valid", "test", "test_seen", "test_unseen"),
    profile=DatasetProfile(
        ("valid", "test"),
        "conversation (user and system in a conversational search session)",
        "passages of retrieved web documents (candidates per system turn)",
        "the system selects passages (and queries and documents) per turn",
    ),
    splits={
        "train": (_drive("conversation_train_line.json"),),
        "valid": (_drive("conversation_valid_line.json"),),
        "test": (_drive("conversation_test_line.json"),),
        "test_seen": (_drive("conversation_testseen_line.json"),),
        "test_unseen": (_drive("conversation_testunseen_line.json"),),
    },
    original_split_names={"test_seen": "testseen", "test_unseen": "testunseen"},
    extra_files={"documents": _drive("document_line.json")},
    notes="Published in a Google Drive folder (and on Baidu Pan); place the files in the "
    "data directory by hand if the download is refused.",
)

DATASETS = (WISE,)
