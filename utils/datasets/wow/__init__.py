"""Wizard of Wikipedia (Dinan et al. 2019): ParlAI's raw JSON, and the KILT version of the same dialogues.

Two declarations share this folder: ``wow`` (ParlAI's files, the chapter's main data) and ``wow_kilt``
(KILT's JSON Lines, one example per wizard turn). The chapter is ``notebooks/wow.ipynb``.
"""

from __future__ import annotations

from pathlib import Path

from ...declaration import (
    Archive,
    ChapterFacts,
    DatasetProfile,
    DatasetSource,
    Loader,
    RecordIds,
    SourceFile,
    on_use,
)
from . import card  # the parsers, render.py and viewer.py: imported on first use
from .reported import QUANTITY_LABELS, REPORTED

#: Where this dataset stands in the book's lists (the chapters' order).
ORDER = 10

_KILT = "https://dl.fbaipublicfiles.com/KILT"

ARCHIVE = Archive(
    url="http://parl.ai/downloads/wizard_of_wikipedia/wizard_of_wikipedia.tgz",
    filename="wizard_of_wikipedia.tgz",
    sha256="2a549627a83fea745efa2076a41d1c0078ad002ab2b54eae6a4e3d3d66ae24b7",
)

#: The members of the ParlAI archive, all extracted next to each other under ``wow/raw/``.
ARCHIVE_MEMBERS = (
    "train.json",
    "valid_random_split.json",
    "valid_topic_split.json",
    "test_random_split.json",
    "test_topic_split.json",
    "data.json",
    "topic_splits.json",
)


def _raw(member: str) -> SourceFile:
    return SourceFile(path=f"wow/raw/{member}", archive=ARCHIVE)


WOW = DatasetSource(
    name="wow",
    title="Wizard of Wikipedia",
    language="English",
    format="ParlAI raw JSON (one list of dialogues per file)",
    homepage="https://parl.ai/projects/wizard_of_wikipedia/",
    license="CC BY 4.0",
    license_statement="ParlAI's parlai/tasks/wizard_of_wikipedia/README.md, which since December 2021 says the "
    "dataset is released under CC-BY-4.0, with the licence text in LICENSE_DOCUMENTATION beside it",
    redistributable=True,
    redistribution="CC BY 4.0: copies may be redistributed with credit to the authors and a link to the licence",
    citation_key="dinan2019wizard",
    folder=Path(__file__).parent,
    loader=Loader(
        card_formats=card.RAW_FORMATS,
        label_keys=("checked_source", "knowledge"),
        parse=on_use(__name__, "parser:parse"),
        parse_columns=on_use(__name__, "parser:parse_columns"),
        parser_version=on_use(__name__, "parser:PARSER_VERSION"),
        splits={
            "train": (
                _raw("train.json"),
                SourceFile(
                    path="wow/raw/train_sample.json",
                    partial=True,
                    description="5 dialogues of train.json in the raw format, published with "
                    "the DialogStudio collection",
                ),
            ),
            "valid_seen": (_raw("valid_random_split.json"),),
            "valid_unseen": (_raw("valid_topic_split.json"),),
            "test_seen": (_raw("test_random_split.json"),),
            "test_unseen": (_raw("test_topic_split.json"),),
        },
        original_split_names={
            "valid_seen": "valid_random_split",
            "valid_unseen": "valid_topic_split",
            "test_seen": "test_random_split",
            "test_unseen": "test_topic_split",
        },
        extra_files={
            "data": _raw("data.json"),
            "topic_splits": _raw("topic_splits.json"),
        },
    ),
    chapter=ChapterFacts(
        reported=tuple(item for item in REPORTED if item.dataset == "wow"),
        quantity_labels=QUANTITY_LABELS,
        synthetic="benchmarks.synthetic:write_wow",
        chapter_splits=("train", "valid_seen", "valid_unseen", "test_seen", "test_unseen"),
        profile=DatasetProfile(
            ("valid_seen", "train"),
            "dialogue (wizard and apprentice chat about a topic)",
            "Wikipedia sentences: the topic's lead passage and passages retrieved for each turn",
            "the wizard checks one sentence per turn (or 'no passage used')",
        ),
    ),
)

WOW_KILT = DatasetSource(
    name="wow_kilt",
    title="Wizard of Wikipedia (KILT version)",
    language="English",
    format="KILT JSON Lines (one example per line: input, output answers with provenance)",
    homepage="https://github.com/facebookresearch/KILT",
    license="MIT",
    license_statement="the README of facebookresearch/KILT ('KILT is MIT licensed', pointing to its LICENSE), "
    "which names no separate licence for the data files",
    redistributable=True,
    redistribution="MIT: copies may be redistributed with the licence notice",
    citation_key="petroni2021kilt",
    folder=Path(__file__).parent,
    loader=Loader(
        card_formats=card.KILT_FORMATS,
        label_keys=("target",),
        # KILT's format means ids to be unique, but its WoW files are known to repeat examples
        # (facebookresearch/KILT issue #41 counts 94,577 train examples for 83,160 wizard turns of the
        # original, and 3,058 dev examples). The dev file here has 3,054 examples with distinct ids; no
        # train copy was at hand to check, so a repeat is kept with a warning rather than making an
        # official file unloadable.
        record_ids=RecordIds(field="id", unique=False),
        record_unit="examples",
        parse=on_use(__name__, "kilt_parser:parse"),
        parse_columns=on_use(__name__, "kilt_parser:parse_columns"),
        parser_version=on_use(__name__, "kilt_parser:PARSER_VERSION"),
        splits={
            "train": (SourceFile(path="wow/kilt/wow-train-kilt.jsonl", url=f"{_KILT}/wow-train-kilt.jsonl"),),
            "dev": (
                SourceFile(
                    path="wow/kilt/wow-dev-kilt.jsonl",
                    url=f"{_KILT}/wow-dev-kilt.jsonl",
                    sha256="bbf98ea3841f3454e189e69829d6c03149c2e7482b3feda0ea73acf547654c7b",
                    size=2418285,
                ),
            ),
            "test": (
                SourceFile(
                    path="wow/kilt/wow-test_without_answers-kilt.jsonl",
                    url=f"{_KILT}/wow-test_without_answers-kilt.jsonl",
                ),
            ),
        },
        original_split_names={"test": "test_without_answers"},
    ),
    chapter=ChapterFacts(
        reported=tuple(item for item in REPORTED if item.dataset == "wow_kilt"),
    ),
)

DATASETS = (WOW, WOW_KILT)
