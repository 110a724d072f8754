"""Parser of the toy QA dataset's JSON Lines files (see the package docstring)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from utils.errors import DataError
from utils.formats import iter_json_lines, require, require_items
from utils.records import SEEKER, WIZARD, Dialogue, Evidence, Turn

PARSER_VERSION = 1


def parse(path: Path, *, split: str) -> Iterator[Dialogue]:
    """One two-turn :class:`Dialogue` per line (the question, then the answer with the passages shown);
    a bad line raises a :class:`~utils.errors.DataError` naming the file, the line and the field."""
    for line_number, record in iter_json_lines(Path(path)):
        where = f"line {line_number}"
        passages = require(record, "passages", list, path=path, record=where)
        cited = set(require_items(require(record, "cited", list, path=path, record=where), int,
                                  path=path, record=where, field="cited"))
        if not cited <= set(range(len(passages))):
            raise DataError(f"cites a passage that is not there ({sorted(cited)})", path=path, record=where,
                            field="cited")
        evidence = [
            Evidence(
                id=str(position),
                text=require(passage, "text", str, path=path, record=f"{where}, passages[{position}]"),
                title=require(passage, "title", str, path=path, record=f"{where}, passages[{position}]"),
                origin="passage",
                selected=position in cited,
            )
            for position, passage in enumerate(passages)
        ]
        question = require(record, "question", str, path=path, record=where)
        answer = require(record, "answer", str, path=path, record=where)
        yield Dialogue(
            id=require(record, "qid", str, path=path, record=where),
            dataset="toy_qa",
            split=split,
            turns=[Turn(0, SEEKER, "user", question), Turn(1, WIZARD, "system", answer, evidence)],
        )
