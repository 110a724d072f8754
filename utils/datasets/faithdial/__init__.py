"""FaithDial (Dziri et al. 2022): Wizard of Wikipedia's responses edited to follow their knowledge, and the
hallucination audit (BEGIN/VRM labels on WoW, CMU-DoG and TopicalChat responses) that preceded it.

Two declarations share this folder: ``faithdial`` (the hub repository's JSON files) and
``faithdial_audit`` (the CSV files of the authors' ``data-audit`` folder). The chapter is
``notebooks/faithdial.ipynb``.
"""

from __future__ import annotations

from pathlib import Path

from ...declaration import ChapterFacts, DatasetProfile, DatasetSource, Loader, SourceFile, hub_file, on_use
from . import card  # the parsers, render.py and viewer.py: imported on first use
from .reported import QUANTITY_LABELS, REPORTED

#: Where this dataset stands in the book's lists (the chapters' order).
ORDER = 20

#: The FaithDial hub repository's commit the atlas downloads from: 7a414e8, "Fix task tags (#2)", the
#: last commit to the repository's README (as its page on the hub shows). The full hash is the one
#: another project pins to fetch ``data/<split>.json`` from this repository, so the data files are at
#: this commit; whether ``main`` has moved on since was not checked. No checksums are recorded for
#: these files (none were at hand from an unmodified download): they are checked by parsing.
REVISION = "7a414e80725eac766f2602676dc8b39f80b061e4"

#: The commit of McGill-NLP/FaithDial the audit's files are fetched from: 914a5ac, "initial release", the
#: last commit that changed a file of ``data-audit/`` (a later one edits only its README); every file's
#: git blob id there equals that of the copies whose sha256 is recorded below.
AUDIT_COMMIT = "914a5ace43612af0ce4a7a89d52892c4e48c1f7b"
_AUDIT_GITHUB = f"https://raw.githubusercontent.com/McGill-NLP/FaithDial/{AUDIT_COMMIT}/data-audit"

# split name -> (path under data-audit/, sha256, size in bytes)
_AUDIT_FILES = {
    "gold_wow": ("gold/wow.csv", "0237ccc1472e9426e3e6631bb3cb8dbbbc7c7083190f633a7db81672992127aa", 70445),
    "gold_cmu": ("gold/cmu.csv", "91aff154c342c1a9c4c74c24c6ef067efca17719e64aa0969419fdbb8d57c9cb", 275728),
    "gold_topical": ("gold/topical.csv", "4bd585d91e2c2e591220d3167fe6e1806c335d8870414833f32a0fd564f9fdec", 362859),
    "gpt2_wow": ("GPT2/gpt2_processed_wow.csv", "a74dcc1b8427fb91ce1b173b2ce98a6ed06560299dd9db544e8976d3b6237987", 69189),
    "gpt2_cmu": ("GPT2/gpt2_processed_cmu.csv", "a74c0a9ebfa1603a293b7ffae27b6498fd8f112079c5830b0ac7d48a59c3e5b6", 246479),
    "gpt2_topical": ("GPT2/gpt2_processed_topical.csv", "7d13fa3258783f76f63963e9aab0a2dc5668003d74b246a8fbda6da6f7be7255", 305611),
    "doha_wow": ("DoHA/doha_processed_wow.csv", "45fd23f61e77735169cf693dd7f4eabc0c07c0a855433584f88cd0f85e801929", 63144),
    "doha_cmu": ("DoHA/doha_processed_cmu.csv", "20f4e75021bd18f03fb3acc073acf90cde47250b6177ae2cdb1bef17604f2e77", 250546),
    "doha_topical": ("DoHA/doha_processed_topical.csv", "ac2f9a6edb1514b18ce034f1b3ea0f4e68f765cbde4d87f0b6c7ebdd6b5c44b6", 296984),
    "ctrl_wow": ("CTRL/ctrl_processed_wow.csv", "a547b236b5ab7bd64a93fe6aeb6e2886bd2239e370538563abdd3667c92b5700", 71046),
    "ctrl_cmu": ("CTRL/ctrl_processed_cmu.csv", "fdf6b4fd326cc9c0b7222f4a2c3a6a7b8943ec4feda195adc727b86e11a86664", 251638),
    "ctrl_topical": ("CTRL/ctrl_processed_topicalchat.csv", "b6c6ed1c3bfeb2578dab05ab694482047119b16ff0e3350b88f6a2f86605b201", 304084),
}

FAITHDIAL = DatasetSource(
    name="faithdial",
    title="FaithDial",
    language="English",
    format="JSON (a list of dialogues, each a list of wizard utterances with history)",
    homepage="https://mcgill-nlp.github.io/FaithDial/",
    license="MIT",
    license_statement="the Hugging Face dataset card of McGill-NLP/FaithDial (license: mit; Licensing Information: "
    "MIT) and the LICENSE of the authors' GitHub repository McGill-NLP/FaithDial (MIT)",
    redistributable=True,
    redistribution="MIT: copies may be redistributed with the licence notice",
    citation_key="dziri2022faithdial",
    folder=Path(__file__).parent,
    loader=Loader(
        card_formats=card.FAITHDIAL_FORMATS,
        label_keys=("BEGIN", "VRM"),
        parse=on_use(__name__, "parser:parse"),
        parser_version=on_use(__name__, "parser:PARSER_VERSION"),
        parse_columns=on_use(__name__, "parser:parse_columns"),
        splits={
            split: (
                hub_file(
                    "McGill-NLP/FaithDial",
                    f"data/{split_file}.json",
                    f"faithdial/{split_file}.json",
                    revision=REVISION,
                ),
            )
            for split, split_file in {
                "train": "train",
                "valid": "valid",
                "valid_seen": "valid_random_split",
                "valid_unseen": "valid_topic_split",
                "test": "test",
                "test_seen": "test_random_split",
                "test_unseen": "test_topic_split",
            }.items()
        },
        original_split_names={
            "valid_seen": "valid_random_split",
            "valid_unseen": "valid_topic_split",
            "test_seen": "test_random_split",
            "test_unseen": "test_topic_split",
        },
    ),
    chapter=ChapterFacts(
        reported=tuple(item for item in REPORTED if item.dataset == "faithdial"),
        quantity_labels=QUANTITY_LABELS,
        synthetic="benchmarks.synthetic:write_faithdial",
        chapter_splits=("train", "valid", "test"),
        profile=DatasetProfile(
            ("valid", "train"),
            "dialogue (WoW conversations with edited wizard responses)",
            "one Wikipedia sentence per wizard turn (the knowledge the response must follow)",
            "the one knowledge sentence is given; BEGIN and VRM labels describe the original response",
        ),
        notes="The hub repository's loading script does not run on current `datasets`; "
        f"the atlas downloads the JSON files from commit {REVISION[:7]} (not from `main`) "
        "and parses them itself.",
    ),
)

FAITHDIAL_AUDIT = DatasetSource(
    name="faithdial_audit",
    title="FaithDial hallucination audit (BEGIN/VRM labels on WoW, CMU-DoG, TopicalChat)",
    language="English",
    format="CSV (one labelled response per row; column names differ between files)",
    homepage="https://github.com/McGill-NLP/FaithDial/tree/main/data-audit",
    license="MIT",
    license_statement="the LICENSE of McGill-NLP/FaithDial, the repository that holds data-audit/ (MIT License, "
    "Copyright (c) 2022 Nouha Dziri)",
    redistributable=True,
    redistribution="MIT: copies may be redistributed with the licence notice",
    citation_key="dziri2022origin",
    folder=Path(__file__).parent,
    loader=Loader(
        card_formats=card.AUDIT_FORMATS,
        label_keys=("BEGIN", "VRM"),
        # a CSV row is a record, but not every row is a labelled response (blank rows, rows without a
        # BEGIN label): the status panel counts the labelled ones (record_kinds)
        record_unit="rows",
        record_kinds=on_use(__name__, "audit_parser:record_kinds"),
        parse=on_use(__name__, "audit_parser:parse"),
        parser_version=on_use(__name__, "audit_parser:PARSER_VERSION"),
        splits={
            name: (
                SourceFile(path=f"faithdial-audit/{rel}", url=f"{_AUDIT_GITHUB}/{rel}", sha256=sha, size=size),
            )
            for name, (rel, sha, size) in _AUDIT_FILES.items()
        },
    ),
    chapter=ChapterFacts(
        reported=tuple(item for item in REPORTED if item.dataset == "faithdial_audit"),
        quantity_labels=QUANTITY_LABELS,
    ),
)

DATASETS = (FAITHDIAL, FAITHDIAL_AUDIT)
