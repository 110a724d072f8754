"""The book's data viewer: every row of every split, written beside the built page as data files.

:func:`write_split` turns one split into the files the viewer's modules (``book/_static/viewer/``)
read: three row levels (``dialogues``, ``turns``, ``evidence``), the HTML rendering of every dialogue
(opened when the reader opens a row), and ``manifest.json`` naming the columns, their kinds and the
files. A rendering repeats what the dialogue's neighbours show (the same passages at every turn of
a Wizard of Wikipedia dialogue, and in other dialogues on the topic), so it is stored as the cache
stores passages: cut into fragments at its block elements (each ``<li>``, ``<div>``, ``<p>``...),
each distinct fragment written once (in chunks of :data:`FRAGMENT_CHUNK`), and per dialogue the
list of its fragments' codes, in shards of :data:`HTML_SHARD` dialogues. The browser fetches a
level only when the reader opens that split and level, so the chapter page itself carries none of it.

A level is stored column by column, each column dictionary-encoded: its distinct values, sorted, in
gzip-compressed JSON chunks of :data:`DICTIONARY_CHUNK` values, and per row the position of its value
in that list (a code; the list's length stands for a missing value), as little-endian unsigned
integers of 1, 2 or 4 bytes in binary shards of :data:`SHARD_ROWS` rows, every column of a shard in
one gzip file. Dataset text repeats massively at the evidence level (the full-size WoW train shows
about 216,000 distinct sentences in 5.4 million rows), so each text is written and held once; since
the codes follow the sorted values, the browser sorts by a column by sorting integers, and filters
or searches a column by testing each distinct value once. A column with more than
:data:`PAGED_ABOVE` distinct values (the WoW train's 4.2 million evidence ids) is *paged*: the
browser holds its codes and fetches a chunk of values only to show the rows on screen; its length
statistics over the split are computed here.

This module knows no dataset by name: what a dataset adds (label columns, a grouping of its rows,
example SQL) comes from its hooks (:mod:`utils.book.viewer_fields`). Every value written is
data, never markup, except the renderings, which the atlas's renderers escape.

Column kinds: ``number``; ``label`` (one category per row, filtered by facet chips); ``labels`` (a
list of categories); ``text`` and ``id`` (strings, searched; statistics are their lengths). Columns
whose name starts with ``_`` are for the viewer only (the row's dialogue, its search text).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import os
import re
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from utils.loading import TURN_TABLE_COLUMNS
from utils.records import Dialogue

#: Version of the file layout, written into each manifest; the viewer (book/_static/viewer/data.js, whose
#: FORMAT tests/test_viewer_js.py holds to this one) refuses any other.
FORMAT = 3
LEVELS = ("dialogues", "turns", "evidence")
#: Rows per binary shard of a level (a shard of the full WoW train's evidence is about 0.5 MB compressed).
SHARD_ROWS = 100_000
#: Rows per shard of a column read only for the rows on screen (a paged column, the row's dialogue):
#: 50,000 rows of 4 bytes are about 100 kB compressed, and the full-size WoW train's evidence ids and
#: dialogues take 216 files, not the 1,080 of 10,000-row shards (a static host counts files too).
COLUMN_SHARD_ROWS = 50_000
#: Distinct values per chunk of a column's dictionary.
DICTIONARY_CHUNK = 25_000
#: A column with more distinct values than this is paged (see the module's docstring).
PAGED_ABOVE = 500_000
#: Dialogues per shard of renderings (each a list of fragment codes).
HTML_SHARD = 500
#: Distinct fragments of renderings per file (a row opened fetches the chunks holding its fragments).
#: On the benchmark's full-size synthetic WoW train the viewer's files are 133 MB in 672 files for a
#: 1,023 MB input (0.13x; renderings 49 MB of it); the renderings written whole, at gzip's level 1,
#: were 101 MB of the quarter-size split's 133 MB (0.52x its 256 MB input; now 24 of 56 MB, 0.22x).
FRAGMENT_CHUNK = 5_000
#: Where a rendering is cut into fragments: before a block element's start tag, after a list item's
#: end tag (a match starting "</"). The pattern starts with a literal "<", which the regex engine
#: searches for quickly: splitting at a lookahead or a lookbehind instead tried both at every character,
#: 4.3 s of the 21.9 s (under cProfile) of writing the quarter-size synthetic WoW train's viewer files.
_FRAGMENT_CUT = re.compile(r"<(?:(?:li|ul|ol|div|details|summary|p|table|tr)[\s>]|/li>)")
#: A string column with at most this many distinct values (and repeats) is a label column.
LABEL_LIMIT = 60
#: Rows of an Arrow string column looked at together when judging its kind (:func:`column_kind`).
_KIND_SLICE = 65_536
#: Arrow's memory pool for the columns encoded here: the C library's allocator, which hands freed
#: memory back (see :func:`utils._cache.encoding._spelt_out_pool`).
_POOL = pa.system_memory_pool()
#: gzip's level for the level files: on the full-size WoW train's, level 6 took 8.0 s of CPU and level 5
#: 5.0 s, for 0.5 % more bytes (86.9 MB, not 86.4 MB); level 4 adds 4 %.
GZIP_LEVEL = 5
#: The environment variable the book's build sets to the directory the data files go to.
VIEWER_DIR_VARIABLE = "ATLAS_VIEWER_DIR"
#: Hidden columns: the dialogue a row belongs to (its position in the split) and the search text.
DIALOGUE = "_dialogue"
SEARCH = "_search"
#: An example SQL query of a dataset: (title, SQL, the columns it reads as "table.column").
Query = tuple[str, str, tuple[str, ...]]


@dataclass
class SplitRows:
    """One split as the viewer shows it: a frame per level, and which column names a row by its id."""

    frames: dict[str, pd.DataFrame]
    #: per level, the column holding the dataset's own id of a row
    id_columns: dict[str, str]
    #: per level, column name -> kind, where the automatic choice would be wrong
    kinds: dict[str, dict[str, str]] = field(default_factory=dict)
    #: a sentence saying how the rows relate to the file's records (KILT's grouping)
    note: str = ""


def viewer_dir() -> Path | None:
    """The directory the data files go to during a book build (``None``: not building the book)."""
    value = os.environ.get(VIEWER_DIR_VARIABLE)
    return Path(value) if value else None


def column_kind(series: pd.Series, name: str, forced: Mapping[str, str] | None = None) -> str:
    """The kind of a column (see the module's docstring), as the viewer filters and summarises it."""
    if forced and name in forced:
        return forced[name]
    if (arrow := _arrow_strings(series)) is not None:
        return _arrow_string_kind(arrow)
    values = series.dropna()
    if pd.api.types.is_bool_dtype(series) or (len(values) and all(isinstance(v, bool) for v in values[:50])):
        return "label"
    if pd.api.types.is_numeric_dtype(series):
        return "number"
    if len(values) and all(isinstance(v, list | tuple) for v in values[:200]):
        return "labels"
    if isinstance(series.dtype, pd.CategoricalDtype):  # judged on its distinct values, not row by row
        codes = series.cat.codes.to_numpy()
        used = series.cat.categories[np.unique(codes[codes >= 0])]
        strings = pd.Series([str(value) for value in used], dtype=object)
        if len(strings) <= LABEL_LIMIT and len(strings) < max(len(values), 1) and strings.str.len().max() <= 80:
            return "label"
        return "text"
    strings = values.astype(str)
    distinct = strings.nunique()
    if distinct <= LABEL_LIMIT and distinct < max(len(strings), 1) and strings.str.len().max() <= 80:
        return "label"
    return "text"


def _arrow_string_kind(strings: pa.ChunkedArray) -> str:
    """:func:`column_kind` of Arrow strings, their distinct values gathered a slice at a time and no
    further than :data:`LABEL_LIMIT`: pandas' ``nunique`` of the quarter-size synthetic WoW train's
    1.35 million evidence ids took 300 MB, Arrow's ``count_distinct`` 260 MB."""
    seen: set[str] = set()
    for start in range(0, len(strings), _KIND_SLICE):
        found = pc.unique(strings.slice(start, _KIND_SLICE), memory_pool=_POOL).drop_null()
        if len(found) > LABEL_LIMIT:
            return "text"
        seen.update(found.to_pylist())
        if len(seen) > LABEL_LIMIT:
            return "text"
    present = len(strings) - strings.null_count
    if len(seen) < max(present, 1):
        longest = pc.max(pc.utf8_length(strings, memory_pool=_POOL)).as_py()
        if longest is not None and longest <= 80:
            return "label"
    return "text"


def _plain(value: Any, kind: str) -> Any:
    """A value as JSON: numbers as numbers (``None`` for missing), labels as strings, lists as lists."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if kind == "number":
        number = float(value)
        return int(number) if number.is_integer() else round(number, 6)
    if kind == "labels":
        return [str(item) for item in value]
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _write_gzip_json(path: Path, data: Any, level: int = GZIP_LEVEL) -> int:
    # msgspec writes the same JSON values three times as fast as json (a full-size WoW train's
    # renderings are 400 MB of text). A NaN or an infinity it writes as null, which JSON.parse reads
    # (json would write NaN, which JSON.parse refuses).
    raw = msgspec.json.encode(data)
    packed = gzip.compress(raw, compresslevel=level, mtime=0)
    path.write_bytes(packed)
    return len(packed)


def _missing(values: pd.Series) -> np.ndarray:
    return values.isna().to_numpy(dtype=bool, copy=True)


def dictionary_encode(series: pd.Series, kind: str) -> tuple[np.ndarray, list[Any]]:
    """A column as (codes, sorted distinct values); the code of a missing value is the values' count.

    Numbers sort by value, strings as Python compares them (by code point), lists by their items
    joined with ", " (as the grid shows them).
    """
    codes, values = _encode_column(series, kind)
    return codes, values if isinstance(values, list) else values.to_pylist()


def _encode_column(series: pd.Series, kind: str) -> tuple[np.ndarray, list[Any] | _DistinctStrings]:
    """:func:`dictionary_encode`, the distinct values of Arrow-backed strings left in Arrow: a full-size
    WoW train's 4.2 million distinct evidence ids took 300 MB as Python strings, at the chapter's peak."""
    missing = _missing(series)
    codes: np.ndarray
    values: list[Any] | _DistinctStrings
    if kind == "number":
        numbers = pd.to_numeric(series, errors="coerce").to_numpy(dtype="float64")
        missing |= np.isnan(numbers)
        codes, values = _encode_numbers(numbers[~missing] if missing.any() else numbers)  # no copy of them all
    elif kind == "labels":
        codes, values = _encode_label_lists(series, missing)
    elif isinstance(series.dtype, pd.CategoricalDtype):
        codes, values = _encode_categories(series, missing)
    elif pd.api.types.is_bool_dtype(series.dtype) and not missing.any():
        codes, values = _encode_flags(series)
    elif (strings := _arrow_strings(series)) is not None:
        codes, values = _encode_arrow_strings(strings, missing)
    else:
        codes, values = _encode_other(series[~missing])
    # 32 bits, not 64, where they hold the codes: the codes of the full-size WoW train's 5.4 million evidence
    # rows are 22 MB, not 43 MB, held with the other transients of coding a column (at the write's peak)
    full = np.full(len(series), len(values), dtype=np.int32 if len(values) < 2**31 else np.int64)
    full[~missing] = codes
    return full, values


def _encode_numbers(numbers: np.ndarray) -> tuple[np.ndarray, list[Any]]:
    """Present numbers as (codes, distinct values sorted by value)."""
    counted = _encode_counts(numbers)
    if counted is not None:
        return counted
    distinct, codes = np.unique(numbers, return_inverse=True)
    return codes, [_plain(value, "number") for value in distinct.tolist()]


def _encode_counts(numbers: np.ndarray) -> tuple[np.ndarray, list[Any]] | None:
    """:func:`_encode_numbers` of whole numbers in a range at most about the rows' count (a turn's
    position, a row's dialogue), by marking the values present rather than sorting the rows: for the
    half-size synthetic WoW train's 2.7 million evidence rows ``np.unique`` peaked 80 to 100 MB above them.
    ``None`` for other numbers."""
    if not len(numbers) or not np.isfinite(numbers).all():
        return None
    low, high = numbers.min(), numbers.max()
    if high - low > 2 * len(numbers) + 1024 or max(-low, high) > 2.0**62:  # 64-bit integers hold them
        return None
    offsets = numbers.astype(np.int64)
    if not np.array_equal(offsets, numbers):
        return None
    offsets -= int(low)
    present = np.zeros(int(high - low) + 1, dtype=bool)
    present[offsets] = True
    rank = np.cumsum(present, dtype=np.int32 if len(present) < 2**31 else np.int64) - 1  # codes of 32 bits
    distinct = (np.flatnonzero(present) + int(low)).astype(np.float64)
    return rank[offsets], [_plain(value, "number") for value in distinct.tolist()]


def _encode_label_lists(series: pd.Series, missing: np.ndarray) -> tuple[np.ndarray, list[Any]]:
    """Lists of labels as (codes of the present rows, distinct lists sorted by their items joined with ", ")."""
    keys = [None if gone else json.dumps([str(item) for item in value], ensure_ascii=False)
            for value, gone in zip(series.tolist(), missing, strict=True)]
    found, uniques = pd.factorize(pd.Series(keys, dtype=object))
    lists = [json.loads(key) for key in uniques]
    order = sorted(range(len(lists)), key=lambda k: ", ".join(lists[k]))
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    codes = rank[found[found >= 0]] if len(order) else np.zeros(0, dtype=np.int64)
    return codes, [lists[k] for k in order]


def _encode_categories(series: pd.Series, missing: np.ndarray) -> tuple[np.ndarray, list[Any]]:
    """A categorical column, sorted once per distinct value, not per row."""
    categories = [str(value) for value in series.cat.categories]
    row_codes = series.cat.codes.to_numpy()
    used = np.unique(row_codes[~missing])
    order = sorted(used.tolist(), key=categories.__getitem__)
    rank = np.zeros(len(categories), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank[row_codes[~missing]], [categories[k] for k in order]


def _encode_flags(series: pd.Series) -> tuple[np.ndarray, list[Any]]:
    """A boolean column without missing values: "false" sorts before "true"."""
    flags = series.to_numpy(dtype=bool)
    used = np.unique(flags)
    return np.searchsorted(used, flags), ["true" if flag else "false" for flag in used.tolist()]


def _encode_other(present: pd.Series) -> tuple[np.ndarray, list[Any]]:
    """Any other column's present values as strings (booleans as "true" and "false"), sorted."""
    if pd.api.types.is_bool_dtype(present) or (len(present) and isinstance(present.iloc[0], bool | np.bool_)):
        present = present.map(lambda value: "true" if value else "false")
    found, uniques = pd.factorize(present.astype(str), sort=True)
    return found, [str(value) for value in uniques]


def _arrow_strings(series: pd.Series) -> pa.ChunkedArray | None:
    """The Arrow strings behind a column of pandas' Arrow-backed strings (``None`` for other columns)."""
    try:
        strings = pa.chunked_array(pa.array(series.array)) if isinstance(series.dtype, pd.StringDtype) else None
    except (TypeError, pa.ArrowInvalid):
        return None
    if strings is None or not (pa.types.is_string(strings.type) or pa.types.is_large_string(strings.type)):
        return None
    return strings


def _encode_arrow_strings(strings: pa.ChunkedArray, missing: np.ndarray) -> tuple[np.ndarray, _DistinctStrings]:
    """:func:`dictionary_encode` of Arrow strings, in Arrow: a column of millions of evidence ids took
    seconds row by row. Arrow sorts UTF-8 bytes, which is the code point order Python sorts by.

    A row's code is its value's dense rank (Arrow's ``rank``, which sorts, rather than hashing with
    ``unique`` then ``index_in``: for the quarter-size synthetic WoW train's 1.18 million distinct
    evidence ids Arrow's hash tables peaked 336 MB above the column and took 1.2 s of CPU), and the
    values stay in the column (:class:`_DistinctStrings`). Taking the column in sorted order to find
    its runs of equal values, then the runs' first values, held two copies of it: coding the full-size
    synthetic WoW train's 5.4 million evidence ids peaked 460 MB above the frame, at the viewer files'
    peak (1,115 MB); ranked, 200 MB (120 MB of it the column's mapped pages, which the sort reads).
    """
    codes = pc.rank(strings, tiebreaker="dense", memory_pool=_POOL).to_numpy()  # nulls rank last, as one
    narrow = np.int32 if len(strings) < 2**31 else np.int64
    codes = codes.astype(narrow)
    codes -= 1
    held = np.arange(len(codes), dtype=narrow)  # the rows holding a value
    if strings.null_count:  # a missing row's code is the caller's to write
        held = held[~missing]
    present = codes[held] if strings.null_count else codes
    rows = np.empty(int(present.max()) + 1 if len(present) else 0, dtype=narrow)
    rows[present] = held  # a row holding each value (the last)
    return present, _DistinctStrings(strings, rows)


class _DistinctStrings:
    """The sorted distinct values of a column of Arrow strings, each known by a row holding it: read a
    slice at a time (a chunk of the dictionary), they are never a copy of the column's text."""

    def __init__(self, strings: pa.ChunkedArray, rows: np.ndarray) -> None:
        self.strings, self.rows = strings, rows
        self.starts = np.cumsum([0, *(len(chunk) for chunk in strings.chunks)])

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, part: slice) -> pa.Array:
        """The values of ``part``, taken from each of the column's chunks in turn: Arrow's ``take`` from a
        chunked array joins its chunks first, at each call (150 MB for the full-size WoW train's evidence
        ids, and 12 s of CPU for their dictionary's 166 chunks)."""
        wanted = self.rows[part]
        by_row = np.argsort(wanted, kind="stable")
        ordered = wanted[by_row]
        bounds = np.searchsorted(ordered, self.starts)
        pieces = [pc.take(chunk, ordered[bounds[k] : bounds[k + 1]] - self.starts[k], memory_pool=_POOL)
                  for k, chunk in enumerate(self.strings.chunks) if bounds[k + 1] > bounds[k]]
        if not pieces:
            return pa.array([], self.strings.type)
        back = np.empty_like(by_row)
        back[by_row] = np.arange(len(by_row))
        return pc.take(pa.concat_arrays(pieces, memory_pool=_POOL), back, memory_pool=_POOL)

    def to_pylist(self) -> list[Any]:
        return self[:].to_pylist()

    def row_lengths(self) -> np.ndarray:
        """The length in code points of each row's value, the rows without one left out, in the rows' order."""
        lengths = pc.drop_null(pc.utf8_length(self.strings, memory_pool=_POOL), memory_pool=_POOL)
        return lengths.to_numpy().astype(np.float64) if len(lengths) else np.zeros(0, np.float64)


def _code_type(size: int) -> np.dtype:
    """The narrowest unsigned integer holding codes ``0 .. size`` (``size`` itself: missing)."""
    for width in (np.uint8, np.uint16, np.uint32):
        if size <= np.iinfo(width).max:
            return np.dtype(width).newbyteorder("<")
    raise ValueError(f"a column with {size:,} distinct values is more than the viewer's format holds")


def _length_statistics(codes: np.ndarray, values: list[Any] | _DistinctStrings) -> dict[str, float]:
    """What the browser shows for a text column's lengths (code points), computed on every row here."""
    if isinstance(values, _DistinctStrings):
        # the same lengths in the same order, read off the rows: not a value's length per value, then
        # per row, then the present rows' (152 MB above the full-size WoW train's evidence ids)
        lengths = values.row_lengths()
    else:
        counted = np.array([len(value) for value in values], dtype=np.float64)
        lengths = np.append(counted, -1.0)[codes]
        lengths = lengths[lengths >= 0]
    if not len(lengths):
        return {"count": 0}
    stats = {"count": len(lengths), "min": float(lengths.min()), "max": float(lengths.max()),
             "mean": float(lengths.mean()), "median": float(np.median(lengths))}
    if len(lengths) > 1:
        stats["std"] = float(lengths.std(ddof=1))
    return stats


def write_level(
    frame: pd.DataFrame, directory: Path, level: str, *, id_column: str, kinds: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """Write one level's rows (dictionaries and binary shards); returns its entry of the manifest."""
    columns = []
    encoded = []
    for number, name in enumerate(frame.columns):
        stored_as = column_kind(frame[name], name, kinds)  # hidden columns keep their own kind's form
        kind = "hidden" if name.startswith("_") else "id" if name == id_column else stored_as
        codes, values = _encode_column(frame[name], stored_as)
        dtype = _code_type(len(values))
        chunks = []
        for chunk, start in enumerate(range(0, len(values), DICTIONARY_CHUNK)):
            file = f"{level}-c{number:02d}-{chunk:04d}.json.gz"
            part = values[start : start + DICTIONARY_CHUNK]
            _write_gzip_json(directory / file, part if isinstance(part, list) else part.to_pylist())
            chunks.append(file)
        column: dict[str, Any] = {"name": name, "kind": kind, "stored": stored_as, "size": len(values),
                                  "bytes": dtype.itemsize, "dictionary": chunks, "chunk": DICTIONARY_CHUNK}
        codes = codes.astype(dtype)
        if len(values) > PAGED_ABOVE and stored_as != "number":
            column["paged"] = True
            column["split_lengths"] = _length_statistics(codes, values)
        if column.get("paged") or (kind == "hidden" and stored_as == "number"):
            # read for the rows on screen only (or every row, to sort by it): in shards of its own
            column["shards"] = _write_shards(directory, f"{level}-c{number:02d}", [codes], COLUMN_SHARD_ROWS)
        else:
            encoded.append(codes)
        columns.append(column)
    shards = _write_shards(directory, level, encoded, SHARD_ROWS)
    return {"rows": len(frame), "id": id_column, "columns": columns, "shards": shards}


def _write_shards(directory: Path, stem: str, encoded: Sequence[np.ndarray], size: int) -> list[dict[str, Any]]:
    """Binary shards of ``size`` rows: each column's codes in turn, each block padded to 4 bytes."""
    rows_in_all = len(encoded[0]) if encoded else 0
    shards = []
    for number, start in enumerate(range(0, max(rows_in_all, 1), size)):
        rows = min(size, rows_in_all - start)
        parts = []
        for codes in encoded:
            block = codes[start : start + rows].tobytes()
            parts.append(block + b"\0" * (-len(block) % 4))  # each column's block starts at a multiple of 4
        name = f"{stem}-{number:04d}.bin.gz"
        packed = gzip.compress(b"".join(parts), compresslevel=GZIP_LEVEL, mtime=0)
        (directory / name).write_bytes(packed)
        shards.append({"file": name, "rows": rows, "bytes": len(packed)})
    return shards


def rendering_fragments(html: str) -> list[str]:
    """``html`` cut before each block element's start tag and after each list item (joined again,
    the fragments are ``html``)."""
    parts, start = [], 0
    for match in _FRAGMENT_CUT.finditer(html):
        cut = match.end() if html[match.start() + 1] == "/" else match.start()
        if cut > start:  # no empty fragment where an end tag is followed by a start tag
            parts.append(html[start:cut])
            start = cut
    if start < len(html):
        parts.append(html[start:])
    return parts


class _Renderings:
    """Writes the renderings of a split's dialogues as they come: their fragments' codes in shards of
    :data:`HTML_SHARD` dialogues, each distinct fragment once (see the module's docstring).

    A fragment of :data:`_DIGEST_FROM` characters or more is known by a 128-bit BLAKE2b digest of its
    text, and each fragment is written in its chunk of :data:`FRAGMENT_CHUNK` as soon as the chunk is
    full, so the fragments' text is not held for the rest of the walk (the half-size synthetic WoW
    train's 473 thousand fragments are 104 million characters). Measured when the renderings were
    still written during the walk that made the rows: keyed by the text, writing that split's files
    peaked at 1,163 MB of RSS; by digest, 1,082 MB, for about 1 s more CPU at quarter size (hashing
    1,200 dialogues' 622 thousand fragments took 0.26 s more). Two fragments with one digest would be
    shown as one: for a billion distinct fragments the chance is below 10^-20."""

    def __init__(self, directory: Path, render: Callable[[Dialogue], str]) -> None:
        self.directory, self.render = directory, render
        self.shards: list[str] = []
        self.batch: list[list[int]] = []
        self.codes: dict[str | bytes, int] = {}  # a short fragment by its text, a longer one by its digest
        # fragments coded but not yet written, in the order first seen: a dialogue's new ones sit together
        self.fresh: list[str] = []
        self.chunks: list[str] = []

    def add(self, dialogue: Dialogue) -> None:
        parts = rendering_fragments(str(self.render(dialogue)))
        codes, before = self.codes, len(self.codes)
        row = [codes.setdefault(part if len(part) < _DIGEST_FROM else _digest(part), len(codes)) for part in parts]
        if len(codes) > before:  # a new fragment's code is the next one at its first occurrence
            for part, code in zip(parts, row, strict=True):
                if code == before:
                    self.fresh.append(part)
                    before += 1
        self.batch.append(row)
        if len(self.batch) == HTML_SHARD:
            self._write()
        if len(self.fresh) >= FRAGMENT_CHUNK:
            self._write_fragments()

    def finish(self) -> dict[str, Any]:
        if self.batch:
            self._write()
        while self.fresh:
            self._write_fragments()
        self.codes = {}
        return {"per_shard": HTML_SHARD, "shards": self.shards, "fragments": self.chunks, "chunk": FRAGMENT_CHUNK}

    def _write(self) -> None:
        name = f"html-{len(self.shards):04d}.json.gz"
        _write_gzip_json(self.directory / name, self.batch)
        self.shards.append(name)
        self.batch = []

    def _write_fragments(self) -> None:
        name = f"html-f{len(self.chunks):04d}.json.gz"
        _write_gzip_json(self.directory / name, self.fresh[:FRAGMENT_CHUNK])
        self.chunks.append(name)
        del self.fresh[:FRAGMENT_CHUNK]


#: A fragment this long or longer is known by its digest; a shorter one (30 % of the WoW renderings'
#: fragments: list ends, badges) by its text, which takes no more room and no hashing (18 % of the time).
_DIGEST_FROM = 64


def _digest(fragment: str) -> bytes:
    # "surrogatepass": a lone surrogate in a dataset's text has bytes too, each text its own
    return hashlib.blake2b(fragment.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def write_split(
    directory: Path,
    dialogues: Sequence[Dialogue],
    rows: SplitRows | Callable[[], SplitRows],
    *,
    render: Callable[[Dialogue], str],
    meta: Mapping[str, Any] | Callable[[SplitRows], Mapping[str, Any]],
) -> dict[str, Any]:
    """Write a split's levels, its renderings and ``manifest.json`` into ``directory`` (emptied first).

    ``rows`` gives the frames (each with :data:`DIALOGUE`, the position of the row's dialogue), or
    is a function making them: its frames are then this function's own, and each level's is let go
    once written. ``render`` renders one dialogue; ``meta`` (or ``meta(rows)``) is copied into the manifest
    (dataset, split, label, provenance, example queries). Files are written to a temporary directory
    and moved into place, so a failure leaves the previous files, not half of new ones.

    The renderings are written last, in a walk of their own over the split. Written during the walk
    that made the rows, what rendering holds (the renderer's caches, the fragments' codes, the
    allocator's pages the walk freed) stayed beside the evidence level while it was coded: writing
    the full-size synthetic WoW train's files peaked at 1,523 MB of RSS that way, 1,210 to 1,236 MB
    this way, for a second walk over its dialogues (about 1 s more than 49 s of CPU). Since Arrow strings
    are coded by rank (:func:`_encode_arrow_strings`) and codes are 32-bit, 854 to 906 MB.
    """
    temporary = directory.with_name(directory.name + ".writing")
    shutil.rmtree(temporary, ignore_errors=True)
    temporary.mkdir(parents=True)
    try:
        owned = not isinstance(rows, SplitRows)
        if not isinstance(rows, SplitRows):
            rows = rows()
        if not isinstance(meta, Mapping):
            meta = meta(rows)
        levels = {}
        for level in LEVELS:
            frame = rows.frames.pop(level, None) if owned else rows.frames.get(level)
            if frame is None:
                continue
            levels[level] = write_level(
                frame, temporary, level, id_column=rows.id_columns[level], kinds=rows.kinds.get(level)
            )
            del frame  # the evidence level's frame is hundreds of MB at full size
        renderings = _Renderings(temporary, render)
        for dialogue in dialogues:
            renderings.add(dialogue)
        html = renderings.finish()
        manifest = {
            "format": FORMAT,
            **meta,
            "note": rows.note,
            "dialogues": len(dialogues),
            "levels": levels,
            "html": html,
        }
        (temporary / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1), encoding="utf-8")
        shutil.rmtree(directory, ignore_errors=True)
        temporary.rename(directory)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    return manifest


def _is_loaded(dialogues: Sequence[Dialogue]) -> bool:
    return all(hasattr(dialogues, name) for name in ("turns", "evidence", "dialogues_frame"))


def _records_turns(dialogues: Sequence[Dialogue]) -> pd.DataFrame:
    rows = []
    for index, dialogue in enumerate(dialogues):
        for turn in dialogue.turns:
            rows.append(
                {
                    "dialogue_index": index,
                    "dialogue_id": str(dialogue.id),
                    "topic": dialogue.topic,
                    "turn_index": turn.index,
                    "role": turn.role,
                    "speaker": turn.speaker,
                    "text": turn.text,
                    "evidence_count": len(turn.evidence),
                    "selected_count": len(turn.selected_evidence),
                    "labels": dict(turn.labels),
                }
            )
    # the columns of LoadedSplit.turns(), in its order
    names = [*TURN_TABLE_COLUMNS[:2], "topic", *TURN_TABLE_COLUMNS[2:], "labels"]
    return pd.DataFrame(rows, columns=names)


def _records_evidence(dialogues: Sequence[Dialogue]) -> pd.DataFrame:
    rows = [
        {
            "dialogue_index": index,
            "dialogue_id": str(dialogue.id),
            "turn_index": turn.index,
            "id": item.id,
            "title": item.title,
            "text": item.text,
            "origin": item.origin,
            "selected": item.selected,
        }
        for index, dialogue in enumerate(dialogues)
        for turn in dialogue.turns
        for item in turn.evidence
    ]
    return pd.DataFrame(
        rows, columns=["dialogue_index", "dialogue_id", "turn_index", "id", "title", "text", "origin", "selected"]
    )


def _evidence_frame(split: Any) -> pd.DataFrame:
    """The evidence rows of a loaded split, their repeated values as categories.

    A full-size split has millions of rows showing far fewer distinct texts (Wizard of Wikipedia's
    train: 5.4 million rows, 216 thousand passages): the cache stores each passage once, and so does
    this frame, with a code per row. Spelt out, the texts alone took 1.6 GB of the chapter's kernel.
    """
    table = split.arrow("evidence", ["dialogue_index", "turn_index", "id", "passage", "origin", "selected"])
    passages = split.arrow("passages", ["title", "text"])
    passage = table.column("passage").to_numpy()
    dialogue_index = table.column("dialogue_index").to_numpy()
    origin = table.column("origin").combine_chunks()
    if not pa.types.is_dictionary(origin.type):
        origin = origin.dictionary_encode()
    frame = pd.DataFrame(
        {
            "dialogue_index": dialogue_index,
            "dialogue_id": _categorical(split.arrow("dialogues", ["id"]).column("id"), dialogue_index),
            "turn_index": table.column("turn_index").to_numpy(),
            "id": table.column("id").to_pandas(),
            "title": _categorical(passages.column("title"), passage),
            "text": _categorical(passages.column("text"), passage),
            "origin": _categorical(origin.dictionary, origin.indices.to_numpy(zero_copy_only=False)),
            "selected": table.column("selected").to_numpy(),
        }
    )
    split.release_pages()  # the pages of the cache read to build it (they stay in the page cache)
    return frame


def _categorical(values: pa.Array | pa.ChunkedArray, positions: np.ndarray) -> pd.Categorical:
    """``values[positions]`` as a pandas Categorical: each distinct value held once (a null is missing).

    Strings are told apart in Arrow, and their categories stay Arrow strings, not spelt out as Python
    strings first. The categories, their order (as first seen) and the codes are the same.
    """
    codes: np.ndarray
    if pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
        joined = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
        encoded = pc.dictionary_encode(joined, memory_pool=_POOL)
        codes = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False)
        distinct: Any = pd.Index(encoded.dictionary.to_pandas())
    else:
        codes, distinct = pd.factorize(values.to_numpy(zero_copy_only=False))
    return pd.Categorical.from_codes(codes[positions] if len(positions) else codes[:0], categories=distinct)


def _mapped(series: pd.Series, function: Callable[[Any], Any]) -> pd.Categorical | list[Any]:
    """``function`` of each value of ``series``; a categorical column's each distinct value once (the
    evidence texts of a full-size split: millions of rows, a few hundred thousand texts)."""
    if not isinstance(series.dtype, pd.CategoricalDtype):
        return [function(value) for value in series.tolist()]
    found, distinct = pd.factorize(pd.Series([function(value) for value in series.cat.categories], dtype=object))
    found = np.append(found, -1)  # a missing row (code -1) stays missing
    return pd.Categorical.from_codes(found[series.cat.codes.to_numpy()], categories=distinct)


def split_rows(
    dialogues: Sequence[Dialogue],
    *,
    label_keys: Sequence[str] = (),
    facets: Callable[[Dialogue], Mapping[str, list[str]]] | None = None,
    columns: Callable[[Dialogue], Mapping[str, float | None]] | None = None,
    search_text: Callable[[Dialogue], str] | None = None,
    english: Callable[[str | None], str | None] | None = None,
    texts: Callable[[Dialogue], Mapping[str, str | None]] | None = None,
    single_labels: Sequence[str] = (),
) -> SplitRows:
    """The three levels of a split, read from its tables where it is a loaded split.

    ``label_keys`` are the turn labels that are categories (a column of lists each); the other turn
    labels become text columns. ``facets``, ``columns`` and ``search_text`` add a dialogue's label
    values, numbers and search text to its row; ``english`` gives the English gloss of a text
    (a ``text (English)`` column at the turn and evidence levels, searched too).
    ``texts`` gives the texts that name a dialogue row (a question; a message and its response),
    shown after its id and topic. ``single_labels`` names label columns (facets or turn labels)
    holding one label per row: they hold that label, not a list of one.

    The dialogue's facets are carried to its turns (and those holding one label to its evidence
    rows), under the same names, so that a filter survives a change of level.
    """
    single = set(single_labels)
    dialogue_frame = pd.DataFrame(
        _dialogue_rows(dialogues, facets=facets, columns=columns, search_text=search_text, texts=texts)
    )
    facet_names = _facets_as_lists(dialogue_frame, single, dialogues)
    turns = _turns_frame(dialogues, label_keys, single, english)
    evidence = _evidence_level(dialogues, english)
    for name in facet_names:
        facet = dialogue_frame[name]
        if name not in turns.columns:
            turns[name] = _carried(facet, turns[DIALOGUE].to_numpy())
        # evidence rows are millions in a full-size split: only a facet of one label per row is
        # carried there, as a category (a code per row), not as a list per row
        if name in single and name not in evidence.columns:
            evidence[name] = _carried(facet, evidence[DIALOGUE].to_numpy())
    return SplitRows(
        frames={"dialogues": dialogue_frame, "turns": turns, "evidence": evidence},
        id_columns={"dialogues": "id", "turns": "dialogue id", "evidence": "dialogue id"},
        kinds={"turns": {"text": "text"}, "evidence": {"text": "text", "title": "text"}},
    )


def _dialogue_rows(
    dialogues: Sequence[Dialogue],
    *,
    facets: Callable[[Dialogue], Mapping[str, list[str]]] | None,
    columns: Callable[[Dialogue], Mapping[str, float | None]] | None,
    search_text: Callable[[Dialogue], str] | None,
    texts: Callable[[Dialogue], Mapping[str, str | None]] | None,
) -> list[dict[str, Any]]:
    """One row per dialogue for :func:`split_rows`."""
    rows = []
    for index, dialogue in enumerate(dialogues):
        row: dict[str, Any] = {"id": str(dialogue.id), "topic": dialogue.topic}
        row.update(texts(dialogue) if texts else {})
        row["turns"] = len(dialogue.turns)
        row.update({name: list(values) for name, values in (facets(dialogue) if facets else {}).items()})
        row.update(dict(columns(dialogue)) if columns else {})
        row[DIALOGUE] = index
        if search_text:
            row[SEARCH] = " ".join(search_text(dialogue).split())
        rows.append(row)
    return rows


def _facets_as_lists(frame: pd.DataFrame, single: set[str], dialogues: Sequence[Dialogue]) -> list[str]:
    """The names of the dialogue level's label columns (those holding lists), each made a list in every
    row (or its one label, for a column in ``single``)."""
    facet_names: list[str] = []
    if len(frame):
        # a facet a dialogue has no value for is an empty list, not a missing cell
        for name in frame.columns:
            cells = frame[name].tolist()
            if any(isinstance(cell, list) for cell in cells):
                facet_names.append(name)
                lists = [cell if isinstance(cell, list) else [] for cell in cells]
                frame[name] = _one_label(lists, name, dialogues) if name in single else lists
    return facet_names


def _turns_frame(
    dialogues: Sequence[Dialogue],
    label_keys: Sequence[str],
    single: set[str],
    english: Callable[[str | None], str | None] | None,
) -> pd.DataFrame:
    """The turn level of :func:`split_rows`: a column per turn label (lists for ``label_keys``, text for others)."""
    turns = dialogues.turns() if _is_loaded(dialogues) else _records_turns(dialogues)  # type: ignore[attr-defined]
    labels = turns.pop("labels").tolist()
    turns = turns.rename(
        columns={
            "dialogue_id": "dialogue id",
            "turn_index": "turn",
            "evidence_count": "evidence shown",
            "selected_count": "evidence selected",
        }
    )
    keys = list(dict.fromkeys(key for found in labels for key in found))
    for key in keys:
        values = [found.get(key, []) for found in labels]
        if key in label_keys and key in single:
            turns[key] = _one_label([list(value) for value in values], key, dialogues)
        elif key in label_keys:
            turns[key] = [list(value) for value in values]
        else:
            turns[key] = [" | ".join(str(item) for item in value) if value else None for value in values]
    if english is not None:
        turns["text (English)"] = [english(text) for text in turns["text"].tolist()]
    turns[DIALOGUE] = turns.pop("dialogue_index")
    return turns


def _evidence_level(dialogues: Sequence[Dialogue], english: Callable[[str | None], str | None] | None) -> pd.DataFrame:
    """The evidence level of :func:`split_rows`."""
    evidence = _evidence_frame(dialogues) if _is_loaded(dialogues) else _records_evidence(dialogues)
    evidence = evidence.rename(columns={"dialogue_id": "dialogue id", "turn_index": "turn", "id": "evidence id"})
    if english is not None:
        evidence["text (English)"] = _mapped(evidence["text"], english)
    evidence[DIALOGUE] = evidence.pop("dialogue_index")
    return evidence


def _one_label(lists: Sequence[list[Any]], name: str, dialogues: Sequence[Dialogue]) -> list[str | None]:
    """Lists of at most one label as that label (``None`` for none); a row with more is an error
    naming the dataset, the column and the row's dialogue."""
    out: list[str | None] = []
    for position, labels in enumerate(lists):
        if len(labels) > 1:
            dialogue = _dialogue_near(dialogues, position, len(lists))
            raise ValueError(
                f"{name!r} is declared to hold one label per row (SINGLE_LABELS of its dataset's viewer.py), "
                f"but a row{dialogue} holds {len(labels)}: {labels!r}"
            )
        out.append(str(labels[0]) if labels else None)
    return out


def _dialogue_near(dialogues: Sequence[Dialogue], position: int, rows: int) -> str:
    if rows == len(dialogues):
        dialogue = dialogues[position]
        return f" of {dialogue.dataset} {dialogue.split}, dialogue {dialogue.id}"
    return f" (row {position:,})"


def _carried(values: pd.Series, positions: np.ndarray) -> pd.Categorical | list[Any]:
    """A dialogue-level column's value at each row of a lower level (``positions``: its dialogue)."""
    cells = values.tolist()
    if any(isinstance(cell, list) for cell in cells):
        return [cells[position] for position in positions.tolist()]
    codes, distinct = pd.factorize(pd.Series(cells, dtype=object))
    return pd.Categorical.from_codes(codes[positions] if len(positions) else codes[:0], categories=distinct)


def read_rendering(directory: Path, dialogue: int) -> str:
    """The rendering of the split's ``dialogue``-th dialogue back from its files (as the browser joins it)."""
    manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
    html = manifest["html"]
    shard = json.loads(gzip.decompress((directory / html["shards"][dialogue // html["per_shard"]]).read_bytes()))
    codes = shard[dialogue % html["per_shard"]]
    chunks: dict[int, list[str]] = {}
    for code in {code // html["chunk"] for code in codes}:
        chunks[code] = json.loads(gzip.decompress((directory / html["fragments"][code]).read_bytes()))
    return "".join(chunks[code // html["chunk"]][code % html["chunk"]] for code in codes)


def read_level(directory: Path, level: str) -> pd.DataFrame:
    """A level's rows back from its files (what the browser loads), as a DataFrame."""
    manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
    entry = manifest["levels"][level]
    shards = [gzip.decompress((directory / shard["file"]).read_bytes()) for shard in entry["shards"]]
    data = {}
    for position, column in enumerate(entry["columns"]):
        values: list[Any] = []
        for file in column["dictionary"]:
            values.extend(json.loads(gzip.decompress((directory / file).read_bytes())))
        values.append(None)
        dtype = _code_type(column["size"])
        codes = []
        if "shards" in column:  # a column in shards of its own
            for shard in column["shards"]:
                raw = gzip.decompress((directory / shard["file"]).read_bytes())
                codes.append(np.frombuffer(raw, dtype=dtype, count=shard["rows"]))
        for shard, raw in zip(entry["shards"], shards, strict=True):
            if "shards" in column:
                break
            before = [c for c in entry["columns"][:position] if "shards" not in c]
            offset = sum(-(-shard["rows"] * c["bytes"] // 4) * 4 for c in before)
            codes.append(np.frombuffer(raw, dtype=dtype, count=shard["rows"], offset=offset))
        joined = np.concatenate(codes) if codes else np.zeros(0, dtype=dtype)
        data[column["name"]] = [values[code] for code in joined.tolist()]
    return pd.DataFrame(data, columns=[c["name"] for c in entry["columns"]])


__all__ = [
    "COLUMN_SHARD_ROWS",
    "DIALOGUE",
    "DICTIONARY_CHUNK",
    "FORMAT",
    "FRAGMENT_CHUNK",
    "HTML_SHARD",
    "LEVELS",
    "PAGED_ABOVE",
    "SEARCH",
    "SHARD_ROWS",
    "VIEWER_DIR_VARIABLE",
    "Query",
    "SplitRows",
    "column_kind",
    "dictionary_encode",
    "read_level",
    "read_rendering",
    "rendering_fragments",
    "split_rows",
    "viewer_dir",
    "write_level",
    "write_split",
]
