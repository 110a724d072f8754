"""Parser of the toy dataset's JSON Lines files (see the package docstring)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from utils.formats import iter_json_lines, require
from utils.records import SEEKER, WIZARD, Dialogue, Evidence, Turn

PARSER_VERSION = 1

ROLES = {"asker": SEEKER, "expert": WIZARD}


def parse(path: Path, *, split: str) -> Iterator[Dialogue]:
    """One :class:`Dialogue` per line; a bad line raises a :class:`~utils.errors.DataError`."""
    for line_number, record in iter_json_lines(Path(path)):
        where = f"line {line_number}"
        turns = []
        for index, item in enumerate(require(record, "turns", list, path=path, record=where)):
            speaker = require(item, "speaker", str, path=path, record=f"{where}, turns[{index}]")
            knowledge = item.get("knowledge")
            evidence = [Evidence(id="0", text=knowledge, origin="knowledge", selected=True)] if knowledge else []
            turns.append(Turn(index, ROLES.get(speaker, SEEKER), speaker, item.get("text", ""), evidence))
        yield Dialogue(
            id=require(record, "id", str, path=path, record=where),
            dataset="toy",
            split=split,
            turns=turns,
            topic=record.get("topic"),
        )
