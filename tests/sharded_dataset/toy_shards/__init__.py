"""A toy dataset of the fourth shape: a split the publisher spreads over several loose files (shards),
as the Hugging Face Hub's exports do. tests/test_adding_a_sharded_dataset.py adds this one folder and
nothing else.

The train split is three JSON Lines shards, ``train-00000-of-00003.jsonl`` to
``train-00002-of-00003.jsonl``, read in that order as one split; the valid split is one file,
``valid.jsonl``. One dialogue per line::

    {"dialogue_id": "...", "topic": "...",
     "utterances": [{"role": "user", "text": "...", "knowledge": []},
                    {"role": "expert", "text": "...", "knowledge": ["..."]}]}

The split's first shard is its ``SourceFile``; the others are its ``parts``, each with its own address,
sha256 and size.
"""

from __future__ import annotations

from pathlib import Path

from utils.declaration import DatasetSource, Loader, RecordIds, SourceFile, on_use

#: where the publisher's files are, at one fixed version
BASE = "https://example.org/toy-shards/v1"


def _file(name: str, sha256: str, size: int, parts: tuple[SourceFile, ...] = ()) -> SourceFile:
    return SourceFile(path=f"toy_shards/{name}", url=f"{BASE}/{name}", sha256=sha256, size=size, parts=parts)


#: the train split: its first shard, with the others as its parts, in the order they are read
TRAIN = _file(
    "train-00000-of-00003.jsonl", "f7507bc04e6196f7ea44e4e703db498cbd0d7bed3f8f594007d5fb63a5280e4f", 468,
    parts=(
        _file("train-00001-of-00003.jsonl", "1b4c5d04ddd1b09630df97990b56831ae8a7db066ff2ae04fece60cfbf923335", 244),
        _file("train-00002-of-00003.jsonl", "ec832ea0c3741f3a84189d39ffc74e1cdec2f27dff317419bfc28e73f256d1ac", 472),
    ),
)
VALID = _file("valid.jsonl", "07c2e44a927ef6d1c85587756dc7d1233d4d70780d9ca596cff0407d26d24619", 232)

TOY_SHARDS = DatasetSource(
    name="toy_shards",
    title="Toy sharded dialogues",
    language="English",
    format="JSON Lines, the train split in three shards",
    homepage="https://example.org/toy-shards",
    license="CC0",
    citation_key="toyshards2025",
    folder=Path(__file__).parent,
    loader=Loader(
        parse=on_use(__name__, "parser:parse"),
        parser_version=on_use(__name__, "parser:PARSER_VERSION"),
        splits={"train": (TRAIN,), "valid": (VALID,)},
        record_ids=RecordIds(field="dialogue_id", unique=True),
    ),
)

DATASETS = (TOY_SHARDS,)
