"""A toy dataset for tests/test_adding_a_dataset.py: the whole of a new dataset is this one folder.

Its file is JSON Lines, one dialogue per line::

    {"id": "d1", "topic": "tea", "turns": [{"speaker": "asker", "text": "..."},
                                           {"speaker": "expert", "text": "...", "knowledge": "..."}]}

``knowledge`` (expert turns only) is the one sentence the expert used. The test puts this folder
beside the atlas's own (``utils.datasets.__path__``), as a contributor adds one under ``utils/datasets/``.
"""

from __future__ import annotations

from pathlib import Path

from utils.declaration import ChapterFacts, DatasetProfile, DatasetSource, Loader, SourceFile

from . import parser  # its renderer is found by convention: render.py

TOY = DatasetSource(
    name="toy",
    title="Toy dialogues",
    language="English",
    format="JSON Lines (one dialogue per line)",
    homepage="https://example.org/toy",
    license="CC0",
    citation_key="toy2024",
    folder=Path(__file__).parent,
    loader=Loader(
        parse=parser.parse,
        parser_version=parser.PARSER_VERSION,
        splits={"train": (SourceFile(path="toy/train.jsonl", url="https://example.org/toy/train.jsonl"),)},
    ),
    chapter=ChapterFacts(
        chapter_splits=("train",),
        profile=DatasetProfile(
            ("train",),
            "dialogue (an asker and an expert)",
            "one sentence per expert turn",
            "the expert's sentence is given",
        ),
    ),
)

DATASETS = (TOY,)
