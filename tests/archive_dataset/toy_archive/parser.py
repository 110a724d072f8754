"""Parser of the toy archive: the split's JSON Lines member of the zip (see the package docstring)."""

from __future__ import annotations

import json
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path

from utils.errors import DataError
from utils.formats import require
from utils.records import SEEKER, WIZARD, Dialogue, Evidence, Turn

PARSER_VERSION = 1


def parse(path: Path, *, split: str) -> Iterator[Dialogue]:
    """The dialogues of ``<split>.jsonl`` inside the archive at ``path``; a damaged archive, a missing
    member or a bad line raises a :class:`~utils.errors.DataError` naming the file, the record and the field."""
    member = f"{split}.jsonl"
    try:
        with zipfile.ZipFile(path) as archive:
            info = archive.getinfo(member)
            # a damaged header can claim more bytes than the archive holds, or than deflate can expand
            # to (about 1,032 times): read as it claims, one flipped byte once cost a gigabyte
            if info.compress_size > Path(path).stat().st_size or info.file_size > 1100 * max(info.compress_size, 1):
                raise DataError(f"the archive's {member} claims {info.file_size:,} bytes from "
                                f"{info.compress_size:,}: a damaged header", path=path)
            with archive.open(info) as handle:
                lines = handle.read(info.file_size + 1).decode("utf-8").splitlines()
    # what a damaged archive raises: a bad header, a bad deflate stream, an unknown compression method
    except (zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError, KeyError, OSError, EOFError,
            UnicodeDecodeError, ValueError) as error:
        raise DataError(f"cannot read the archive's {member}: {error}", path=path) from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{member} line {number}"
        try:
            record = json.loads(line)
        except ValueError as error:
            raise DataError(f"not JSON: {error}", path=path, record=where) from None
        if not isinstance(record, dict):
            raise DataError("expected an object", path=path, record=where)
        turns = []
        for index, turn in enumerate(require(record, "turns", list, path=path, record=where)):
            if not isinstance(turn, dict):
                raise DataError("expected an object", path=path, record=where, field=f"turns[{index}]")
            speaker = require(turn, "speaker", str, path=path, record=where)
            fact = turn.get("fact")
            if fact is not None and not isinstance(fact, str):
                raise DataError("expected a string", path=path, record=where, field=f"turns[{index}].fact")
            evidence = [Evidence(id="0", text=fact, origin="fact", selected=True)] if fact else []
            turns.append(Turn(index, WIZARD if speaker == "expert" else SEEKER, speaker,
                              require(turn, "text", str, path=path, record=where), evidence))
        yield Dialogue(id=require(record, "id", str, path=path, record=where), dataset="toy_archive", split=split,
                       turns=turns, topic=require(record, "topic", str, path=path, record=where))
