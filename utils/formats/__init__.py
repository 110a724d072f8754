"""One parser per original file format.

A dataset's parser is named by its source entry (:attr:`utils.sources.DatasetSource.parser`). Each
parser module exposes ``PARSER_VERSION`` (an integer bumped whenever its output changes, so cached
splits are rebuilt) and ``parse(path, *, split) -> Iterator[Dialogue]``, which streams the file and
raises :class:`~utils.errors.DataError` for any malformed record. A parser that also reads files
beside the one it parses (WISE reads ``document_line.json``) lists them in
``companion_files(path) -> list[Path]``, so the cache is rebuilt when they change.

A parser whose files are large may also offer ``parse_columns(path, *, split)``, a fast path the
loader builds its cache with: it yields a :class:`~utils._cache.PassageTable` and then
:class:`~utils._cache.EvidenceBatch` items (evidence as Arrow columns, no object per row), and it
must give the same dialogues as ``parse``. It declines (raises
:class:`~utils._cache.FastPathDeclined`) on anything unusual, and ``parse`` then builds the cache
and reports whatever is wrong with the file.

A dataset's ``record_ids`` (:class:`~utils.sources.RecordIds`, in its declaration) says which field
of a record is its id and whether the original data guarantees that no two records of a file share
one; the loader checks every split against it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from ..records import Dialogue
from ..sources import get_source


def parser_module(dataset: str) -> ModuleType:
    """The parser module of ``dataset`` (imported on first use)."""
    return importlib.import_module(get_source(dataset).parser)


def parser_for(dataset: str) -> tuple[Callable[..., Iterator[Dialogue]], int]:
    """``(parse, PARSER_VERSION)`` of ``dataset``."""
    module = parser_module(dataset)
    return module.parse, module.PARSER_VERSION


def fast_parser_for(dataset: str) -> Callable[..., Iterator[Any]] | None:
    """The ``parse_columns`` fast path of ``dataset``'s parser, or ``None`` when it has none."""
    return getattr(parser_module(dataset), "parse_columns", None)


def companion_files(dataset: str, path: Path) -> list[Path]:
    """Other files the parser of ``dataset`` reads when it parses ``path`` (present or not)."""
    companions = getattr(parser_module(dataset), "companion_files", None)
    return list(companions(path)) if companions else []


def parse_file(dataset: str, path: str | Path, split: str) -> Iterator[Dialogue]:
    """Parse one original file of ``dataset`` directly, without the loader or the cache."""
    parse, _ = parser_for(dataset)
    return parse(Path(path), split=split)
