"""A toy dataset of the third shape: a publisher's archive holding every split, as CMU-DoG ships its
conversations. tests/test_adding_an_archive_dataset.py adds this one folder and nothing else.

``toy_archive/dialogues.zip`` holds one JSON Lines member per split (``train.jsonl``, ``valid.jsonl``,
``test.jsonl``), one dialogue per line::

    {"id": "...", "topic": "...", "turns": [{"speaker": "user", "text": "..."},
                                             {"speaker": "expert", "text": "...", "fact": "..."}]}

The archive is declared as the file of each split: the parser reads the split's member.
"""

from __future__ import annotations

from pathlib import Path

from utils.declaration import DatasetSource, Loader, SourceFile, on_use

#: The publisher's one archive, the file of every split.
ARCHIVE = SourceFile(path="toy_archive/dialogues.zip", url="https://example.org/toy-archive/dialogues.zip",
                     sha256="0" * 64, size=1)

TOY_ARCHIVE = DatasetSource(
    name="toy_archive",
    title="Toy archive dialogues",
    language="English",
    format="a zip archive of JSON Lines members, one per split",
    homepage="https://example.org/toy-archive",
    license="CC0",
    citation_key="toyarchive2025",
    folder=Path(__file__).parent,
    loader=Loader(
        parse=on_use(__name__, "parser:parse"),
        parser_version=on_use(__name__, "parser:PARSER_VERSION"),
        splits={name: (ARCHIVE,) for name in ("train", "valid", "test")},
    ),
)

DATASETS = (TOY_ARCHIVE,)
