"""One parser per original file format.

Each module exposes ``PARSER_VERSION`` (an integer bumped whenever its output changes, so cached
splits are rebuilt) and ``parse(path, *, split) -> Iterator[Dialogue]``, which streams the file and
raises :class:`~utils.errors.DataError` for any malformed record. A parser that also reads files
beside the one it parses (WISE reads ``document_line.json``) lists them in
``companion_files(path) -> list[Path]``, so the cache is rebuilt when they change.

:data:`RECORD_IDS` says, per dataset, which field of a record is its id and whether the original
data guarantees that no two records of a file share one; the loader checks every split against it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from ..records import Dialogue

#: dataset name -> parser module in this package
PARSER_MODULES = {
    "wow": "wow_raw",
    "wow_kilt": "wow_kilt",
    "faithdial": "faithdial",
    "faithdial_audit": "faithdial_audit",
    "wise": "wise",
    "jwhr": "jwhr",
}


@dataclass(frozen=True)
class RecordIds:
    """Where a dataset's records carry their id, and what a repeated id means."""

    #: The key of the id in each record (the files concerned hold one JSON record per line).
    field: str
    #: True: the publisher defines the id as unique, so a repeat means a damaged or doctored file
    #: (a :class:`~utils.errors.DataError`). False: repeats are known in the original data, so they
    #: are kept, with a warning naming them.
    unique: bool


#: Datasets whose files give each record an id of their own. The others (``wow``, ``faithdial``,
#: ``faithdial_audit``) have none: the atlas numbers their records by position, so ids cannot repeat.
RECORD_IDS = {
    # The dataset card calls ``id`` the "Entry ID" of a session; in the real files the 838 answered
    # and 433 not-answered ids are all distinct, and the two files share none.
    "jwhr": RecordIds(field="id", unique=True),
    # The authors' README: "conversation_id is the unique id of a conversation". (The test file is
    # test_seen plus test_unseen, so ids repeat across those files, never within one.)
    "wise": RecordIds(field="conversation_id", unique=True),
    # KILT's format means ids to be unique, but its WoW files are known to repeat examples
    # (facebookresearch/KILT issue #41 counts 94,577 train examples for 83,160 wizard turns of the
    # original, and 3,058 dev examples). The dev file here has 3,054 examples with distinct ids; no
    # train copy was at hand to check, so a repeat is kept with a warning rather than making an
    # official file unloadable.
    "wow_kilt": RecordIds(field="id", unique=False),
}


def parser_module(dataset: str) -> ModuleType:
    """The parser module of ``dataset`` (imported on first use)."""
    return importlib.import_module(f"{__name__}.{PARSER_MODULES[dataset]}")


def parser_for(dataset: str) -> tuple[Callable[..., Iterator[Dialogue]], int]:
    """``(parse, PARSER_VERSION)`` of ``dataset``."""
    module = parser_module(dataset)
    return module.parse, module.PARSER_VERSION


def companion_files(dataset: str, path: Path) -> list[Path]:
    """Other files the parser of ``dataset`` reads when it parses ``path`` (present or not)."""
    companions = getattr(parser_module(dataset), "companion_files", None)
    return list(companions(path)) if companions else []


def parse_file(dataset: str, path: str | Path, split: str) -> Iterator[Dialogue]:
    """Parse one original file of ``dataset`` directly, without the loader or the cache."""
    parse, _ = parser_for(dataset)
    return parse(Path(path), split=split)
