"""Reading original files: what a dataset's parser does, and the helpers parsers share (``_io``).

A dataset's parser is named by its declaration (:attr:`utils.sources.DatasetSource.parse`, with its
``parser_version``, bumped whenever its output changes, so cached splits are rebuilt). ``parse(path,
*, split) -> Iterator[Dialogue]`` streams the file and raises :class:`~utils.errors.DataError` for
any malformed record. A parser that also reads files beside the one it parses (WISE reads
``document_line.json``) declares ``companion_files(path) -> list[Path]``, so the cache is rebuilt when
they change.

A parser whose files are large may also declare ``parse_columns(path, *, split)``, a fast path the
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

from collections.abc import Iterator
from pathlib import Path

from ..records import Dialogue


def parse_file(dataset: str, path: str | Path, split: str) -> Iterator[Dialogue]:
    """Parse one original file of ``dataset`` directly, without the loader or the cache."""
    from ..sources import get_source  # the registry imports the parsers, which import this package

    return get_source(dataset).parse(Path(path), split=split)
