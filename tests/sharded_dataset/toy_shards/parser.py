"""Parser of the toy shards: one JSON Lines file, a shard of a split or a split's only file (see the
package docstring). The loader calls it once per shard, in order, and the split is all of them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from utils.errors import DataError
from utils.formats import iter_json_lines, require, require_items
from utils.records import SEEKER, WIZARD, Dialogue, Evidence, Turn

PARSER_VERSION = 1
#: the publisher's roles, as the atlas names them
ROLES = {"user": SEEKER, "expert": WIZARD}


def parse(path: Path, *, split: str) -> Iterator[Dialogue]:
    """The dialogues of one shard, in file order; a bad line raises a :class:`~utils.errors.DataError`
    naming the shard, the record and the field."""
    for number, record in iter_json_lines(path):
        where = f"line {number}"
        if not isinstance(record, dict):
            raise DataError("expected an object", path=path, record=where)
        utterances = require(record, "utterances", list, path=path, record=where)
        yield Dialogue(
            id=require(record, "dialogue_id", str, path=path, record=where),
            dataset="toy_shards",
            split=split,
            topic=require(record, "topic", str, path=path, record=where),
            turns=[_turn(utterance, index, path, where) for index, utterance in enumerate(utterances)],
        )


def _turn(utterance: Any, index: int, path: Path, where: str) -> Turn:
    """One utterance: its role (``user`` or ``expert``), its text and the knowledge sentences it used."""
    field = f"utterances[{index}]"
    if not isinstance(utterance, dict):
        raise DataError("expected an object", path=path, record=where, field=field)
    role = require(utterance, "role", str, path=path, record=where)
    if role not in ROLES:
        raise DataError(f"unknown role {role!r}; expected one of {sorted(ROLES)}", path=path, record=where,
                        field=f"{field}.role")
    knowledge = require_items(require(utterance, "knowledge", list, path=path, record=where), str, path=path,
                              record=where, field=f"{field}.knowledge")
    evidence = [Evidence(id=str(position), text=text, origin="knowledge", selected=True)
                for position, text in enumerate(knowledge)]
    return Turn(index, ROLES[role], role, require(utterance, "text", str, path=path, record=where), evidence)
