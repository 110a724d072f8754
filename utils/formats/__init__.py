"""Reading original files: what a dataset's parser does, and the public helpers parsers use.

The helpers (defined in ``_io``, which a dataset folder does not import; the toy dataset's parser in
``book/contributing.md`` is the worked example):

- :func:`iter_json_lines` (``(line number, object)`` per line of a JSON Lines file),
  :func:`iter_json_list` (``(index, element)`` of a file holding one JSON list),
  :func:`iter_csv_rows` (``(line number, row)`` of a CSV file with a header), :func:`read_text`;
- :func:`require` (``mapping[key]`` checked to be of a type; ``optional`` fields may be absent) and
  :func:`require_items` (every element of a list field): each raises
  :class:`~utils.errors.DataError` naming the file, the record and the field;
- :func:`all_of_type`, :func:`deeper_than` and :data:`MAX_JSON_DEPTH` for parsers that check a whole
  column at once;
- for a fast path (below): :class:`EvidenceBatch`, :class:`PassageTable`, :class:`TurnColumns` and
  :class:`FastPathDeclined`.

A dataset's parser is named by its declaration (:attr:`utils.sources.DatasetSource.parse`, with its
``parser_version``, bumped whenever its output changes, so cached splits are rebuilt). ``parse(path,
*, split) -> Iterator[Dialogue]`` streams the file and raises :class:`~utils.errors.DataError` for
any malformed record. A parser that also reads files beside the one it parses (WISE reads
``document_line.json``) declares ``companion_files(path) -> list[Path]``, so the cache is rebuilt when
they change.

A parser whose files are large may also declare ``parse_columns(path, *, split)``, a fast path the
loader builds its cache with: it yields a :class:`PassageTable` and then
:class:`EvidenceBatch` items (evidence as Arrow columns, no object per row), and it
must give the same dialogues as ``parse``. It declines (raises
:class:`FastPathDeclined`) on anything unusual, and ``parse`` then builds the cache
and reports whatever is wrong with the file.

A dataset's ``record_ids`` (:class:`~utils.sources.RecordIds`, in its declaration) says which field
of a record is its id and whether the original data guarantees that no two records of a file share
one; the loader checks every split against it.
"""

from __future__ import annotations

from .._cache import EvidenceBatch, FastPathDeclined, PassageTable, TurnColumns
from ._io import (
    MAX_JSON_DEPTH,
    all_of_type,
    deeper_than,
    iter_csv_rows,
    iter_json_lines,
    iter_json_list,
    read_text,
    require,
    require_items,
)

__all__ = [
    "MAX_JSON_DEPTH",
    "EvidenceBatch",
    "FastPathDeclined",
    "PassageTable",
    "TurnColumns",
    "all_of_type",
    "deeper_than",
    "iter_csv_rows",
    "iter_json_lines",
    "iter_json_list",
    "read_text",
    "require",
    "require_items",
]
