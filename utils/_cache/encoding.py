"""The encoding of the parsed-split cache: records laid out as four Arrow tables (dialogues, turns,
evidence, passages) and the turns' ``raw`` texts, written a batch at a time, and rebuilt from them.

Evidence text lives in the ``passages`` table (text, title and the row's metadata), each distinct
one stored once per split, and an evidence row holds the position of its own (``passage``). WISE
lists about a hundred passages of one document collection per system turn, and Wizard of Wikipedia
shows the same sentences again and again (the topic's passage at every wizard turn, popular articles
in many dialogues: 5.4 million rows, 216 thousand distinct sentences in its full-size synthetic train
file); stored per row, they made its cache 1.6 times the size of the JSON file. A parser whose
evidence comes from a collection hands it over whole (:class:`PassageTable`) and its evidence as
columns pointing into it (:class:`EvidenceBatch`); evidence that arrives as
:class:`~utils.records.Evidence` objects is looked up in a dict of the distinct ``(text, title,
meta)`` already written (bounded: past :data:`_DISTINCT_PASSAGES` it starts afresh, costing only
some sharing). Reading shares the payoff: a chunk of rows turns each distinct passage into one
Python string. The evidence table keeps no copy of what the turns already say: its dialogue id is
looked up from its dialogue index when asked for, and its ``origin`` (a handful of channel names) is
dictionary-encoded.

Labels, metadata and ``raw`` stay JSON text, measured against Arrow types (CPU, best of three, garbage
collector paused as in a build). Labels as ``map<string, list<string>>`` write and read faster (WoW,
41,697 turns: 0.04 s against 0.10 s to write, 0.06 s against 0.10 s to read; WISE, 27,300 turns: 0.10
against 0.12, 0.07 against 0.11), about 1% of a first load or a full iteration, and they would change
the ``labels`` column of ``to_hf_dataset()``. Metadata cannot be a struct without losing information: a
key absent from some rows comes back as ``None`` in them (WISE's ``in_candidates``), and a key whose
value changes type between rows (an int here, a string there) is refused. So the memo of JSON texts
stays (without it a quarter-size WoW iteration takes 3.75 s instead of 2.44 s of CPU, its
first load 4.78 s instead of 4.45 s), and so does the paused collector (without it 4.19 s and 6.26 s).

Where the tables are stored, and how an entry is keyed, checked and written, is :mod:`utils._cache.storage`.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import json
import mmap
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..records import RECORD_SCHEMA, Dialogue, Evidence, Turn

CACHE_FORMAT_VERSION = 4  # 3: a CRC-32 of every table; 4: passages stored once, raw apart, origin encoded
# A batch is held in memory as parsed objects until it is written. Small batches (tens of MB of
# objects) let the allocators reuse the memory of the last one: with batches four times larger, the
# kernel's work of freeing and faulting pages in took about a tenth of a full-size WoW build's CPU.
#: Dialogues per record batch, at most: a batch has some hundred bytes of metadata per table and
#: the raw file compresses each batch apart, so batches of 128 tiny dialogues (a question and an
#: answer each) made that overhead a tenth of the cache.
_BATCH_DIALOGUES = 4096
#: Dialogues held as parsed objects before they become columns (at most :data:`_BATCH_DIALOGUES`).
_OBJECT_BATCH = 128
_BATCH_ROWS = 50_000  # rows of all three tables held before a batch is written
#: Distinct passages remembered while writing, at most (WoW's full-size train has 216 thousand).
_DISTINCT_PASSAGES = 1 << 21
_TABLES = ("dialogues", "turns", "evidence", "passages")
#: The files of a cache entry: the tables, and the turns' ``raw`` texts compressed (:class:`RawTexts`).
_FILES = (*_TABLES, "raw")

# The cache's tables are the record schema (:data:`utils.records.RECORD_SCHEMA`, what ``atlas export``
# writes and ``to_hf_dataset("records")`` gives) laid out flat: a record's own fields, taken from it
# with their types, plus the links and offsets that put dialogues, turns and evidence back together.
# Two fields are stored as JSON text here, where the record has a structure: a turn's ``labels``
# (read back as a dict) and its ``raw`` original fields (which the record leaves out).
_RECORD_TURN = RECORD_SCHEMA.field("turns").type.value_type
_RECORD_EVIDENCE = _RECORD_TURN.field("evidence").type.value_type


def _from_record(struct: pa.StructType | pa.Schema, name: str, rename: str | None = None) -> pa.Field:
    """The field ``name`` of the record schema, under the cache's column name ``rename``."""
    found = struct.field(name)
    return pa.field(rename or name, found.type)


DIALOGUE_SCHEMA = pa.schema(
    [
        *(_from_record(RECORD_SCHEMA, name) for name in ("id", "dataset", "split", "topic", "meta")),
        ("turn_start", pa.int64()),
        ("turn_count", pa.int32()),
    ]
)
TURN_SCHEMA = pa.schema(
    [
        ("dialogue_index", pa.int32()),
        _from_record(RECORD_SCHEMA, "id", "dialogue_id"),
        _from_record(_RECORD_TURN, "index", "turn_index"),
        *(_from_record(_RECORD_TURN, name) for name in ("role", "speaker", "text")),
        ("labels", pa.string()),
        ("evidence_start", pa.int64()),
        ("evidence_count", pa.int32()),
        ("selected_count", pa.int32()),
    ]
)
_ORIGIN_INDEX = pa.int16()
_MAX_ORIGINS = 2**15 - 1
EVIDENCE_SCHEMA = pa.schema(
    [
        # The dialogue and turn of a row are not stored: its turn's row says them (evidence rows lie in
        # turn order, ``evidence_count`` per turn), and 5.4 million rows of two int32 would be 43 MB of
        # a full-size WoW cache. :func:`evidence_table` spells them out.
        _from_record(_RECORD_EVIDENCE, "id"),
        ("passage", pa.int32()),  # the row of the passages table with this evidence's text, title and meta
        # A handful of channel names: dictionary-encoded, not a string per row.
        ("origin", pa.dictionary(_ORIGIN_INDEX, _RECORD_EVIDENCE.field("origin").type)),
        _from_record(_RECORD_EVIDENCE, "selected"),
    ]
)
PASSAGE_SCHEMA = pa.schema([_from_record(_RECORD_EVIDENCE, name) for name in ("text", "title", "meta")])
#: The turns' ``raw`` (JSON text), one record batch per batch of turns, compressed.
RAW_SCHEMA = pa.schema([("raw", pa.string())])
_RAW_OPTIONS = pa.ipc.IpcWriteOptions(compression="zstd")
#: A split whose files add up to less than this has its four tables zstd-compressed when, as written,
#: they outgrow those files (:func:`compress_tables`). Read back, they are decompressed into memory whole
#: rather than memory-mapped: for a small split that costs a few milliseconds and a few MB, and its cache
#: shrinks to well under its file (BEGIN's WoW test, 1.2 MB of TSV: 2.0 MB of tables, 0.5 MB compressed;
#: KILT's dev, 2.4 MB: 4.1 MB, 0.9 MB). A split whose tables are smaller than its files anyway (JWHR's,
#: BEGIN's CMU-DoG dev) is not compressed: 4 ms of a cold load of 30 ms, for nothing the goal asks. A
#: large split stays uncompressed, so that a reload maps it in no time and a walk holds no copy of it.
COMPRESSED_BELOW = 16 * 2**20
_SCHEMAS = {
    "dialogues": DIALOGUE_SCHEMA,
    "turns": TURN_SCHEMA,
    "evidence": EVIDENCE_SCHEMA,
    "passages": PASSAGE_SCHEMA,
}
_STRING = pa.string()
#: The columns of an evidence row as :meth:`utils.loading.LoadedSplit.evidence` shows them: the stored
#: ones, with ``passage`` resolved to its text, title and metadata (JSON text) and the dialogue's id.
EVIDENCE_COLUMNS = ("dialogue_index", "dialogue_id", "turn_index", "id", "text", "title", "origin", "selected", "meta")


@dataclass(frozen=True)
class PassageTable:
    """Texts, with their titles and the metadata (JSON text) of the evidence showing them, that
    evidence rows point to by position (row ``i`` is passage ``i``).

    A parser's fast path yields one, first, before its :class:`EvidenceBatch` items.
    """

    text: pa.Array | pa.ChunkedArray
    title: pa.Array | pa.ChunkedArray
    meta: pa.Array | pa.ChunkedArray


@dataclass(frozen=True)
class TurnColumns:
    """Dialogues and their turns as columns, for a parser that makes no Dialogue or Turn objects.

    The dialogue columns (``ids`` to ``turn_counts``) hold one value per dialogue, the turn columns
    (``turn_index`` to ``raws``) one per turn, the turns of each dialogue in turn (``turn_counts``
    says how many). ``metas``, ``labels`` and ``raws`` are the JSON text of a dialogue's ``meta`` and
    a turn's ``labels`` and ``raw`` objects, as the cache stores them. A column is a list, a NumPy
    array or an Arrow array (of strings, for the text columns): whatever ``pa.array`` takes.
    """

    ids: Sequence[str]
    datasets: Sequence[str]
    splits: Sequence[str]
    topics: Sequence[str | None]
    metas: Sequence[str] | pa.Array
    turn_counts: Sequence[int] | np.ndarray
    turn_index: Sequence[int] | np.ndarray
    roles: Sequence[str] | pa.Array
    speakers: Sequence[str] | pa.Array
    texts: Sequence[str] | pa.Array
    labels: Sequence[str] | pa.Array
    raws: Sequence[str] | pa.Array


@dataclass(frozen=True)
class EvidenceBatch:
    """Dialogues whose evidence arrives as columns; the ``evidence`` lists of their turns stay empty.

    ``dialogues`` are objects, or columns (:class:`TurnColumns`) when the parser makes no objects at
    all. ``counts`` gives the evidence rows of every turn of ``dialogues`` in order; ``ids``,
    ``passage``, ``origin`` and ``selected`` are the rows' columns, ``passage`` holding positions in
    the passages written so far: the :class:`PassageTable`, then the ``passages`` of earlier batches
    and of this one, which are appended before its rows.
    """

    dialogues: list[Dialogue] | TurnColumns
    counts: Sequence[int] | np.ndarray
    ids: pa.Array
    passage: pa.Array
    origin: pa.Array
    selected: pa.Array
    passages: PassageTable | None = None


class FastPathDeclined(Exception):
    """A parser's fast path met something only its record-by-record path handles (or reports)."""


class RawTexts:
    """The ``raw`` JSON text of every turn, stored apart from the turns table and compressed (zstd).

    ``raw`` keeps every field of the original record that the common fields do not cover; for Wizard
    of Wikipedia that is mostly the passages retrieved for the last turns, which no turn shows: 85% of
    the turns table, and, uncompressed, the largest part of the cache. Read a record batch at a time
    (a rebuilt chunk of dialogues needs a few), so neither a reload nor a walk decompresses it all.
    """

    def __init__(self, source: Any, batch_rows: Sequence[int]) -> None:
        self._reader = pa.ipc.open_file(source)
        if self._reader.num_record_batches != len(batch_rows):
            raise ValueError(f"{self._reader.num_record_batches} record batches where {len(batch_rows)} were written")
        self._starts = np.concatenate(([0], np.cumsum(batch_rows, dtype=np.int64)))
        self.num_rows = int(self._starts[-1])
        # The batch read last, decompressed: a walk's chunks of dialogues end in the middle of a
        # batch, which the next chunk would otherwise decompress again.
        self._last: tuple[int, pa.Array] | None = None

    def forget(self) -> None:
        """Drop the batch read last: for a reader done with the texts, so that it does not stay with them."""
        self._last = None

    def _batch(self, number: int) -> pa.Array:
        if self._last is None or self._last[0] != number:
            self._last = (number, self._reader.get_batch(number).column(0))
        return self._last[1]

    def texts(self, start: int, stop: int) -> list[bytes]:
        """The ``raw`` texts of turns ``start`` to ``stop - 1``, UTF-8 encoded (as JSON decoders read them)."""
        texts: list[bytes] = []
        batch = max(int(np.searchsorted(self._starts, start, side="right")) - 1, 0)
        while start < stop:
            first, last = self._starts[batch], self._starts[batch + 1]
            if last > start:
                column = self._batch(batch)
                texts += column.slice(start - first, min(stop, last) - start).view(pa.binary()).to_pylist()
                start = int(min(stop, last))
            batch += 1
        return texts

    def column(self) -> pa.ChunkedArray:
        """All the ``raw`` texts, decompressed (as much memory as the texts themselves)."""
        batches = [self._reader.get_batch(i).column(0) for i in range(self._reader.num_record_batches)]
        return pa.chunked_array(batches, pa.string())


@dataclass(frozen=True)
class CachedTables:
    """The three tables of one parsed split: memory-mapped from the cache, or held in memory."""

    dialogues: pa.Table
    turns: pa.Table
    evidence: pa.Table
    #: The texts, titles and metadata the evidence rows point to by position.
    passages: pa.Table
    #: The ``raw`` JSON text of every turn, read a batch at a time.
    raw: RawTexts
    #: The cache entry the tables are mapped from; ``None`` when the cache could not be written.
    directory: Path | None
    rebuilt: bool
    #: The memory maps the tables point into (none when held in memory): see :func:`release_pages`.
    mappings: tuple[mmap.mmap, ...] = ()


# One encoder for the whole module: ``json.dumps`` with options builds a new encoder on every call,
# which costs more than encoding a small dict.
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _dumps(value: object) -> str:
    return _encode(value)


_encode_bytes = msgspec.json.Encoder().encode
_decode_bytes = msgspec.json.Decoder().decode


def _json_column(values: Iterable[Any]) -> pa.Array:
    """The JSON texts of ``values`` (a parser's ``raw``, ``labels`` or ``meta``) as a string column.

    msgspec writes JSON three times as fast as ``json`` (a tenth of a WoW train's build went to
    encoding ``raw``). ``json`` writes what msgspec cannot, and every value whose text has ``null``:
    msgspec writes a NaN as ``null``, where ``json`` writes ``NaN``, which :func:`_loads` reads back.
    """
    texts = []
    for value in values:
        try:
            text = _encode_bytes(value)
        except (TypeError, ValueError, OverflowError, msgspec.EncodeError):
            text = b"null"
        if b"null" in text:
            text = _encode(value).encode("utf-8")
        texts.append(text)
    # UTF-8 by construction (both encoders refuse lone surrogates): viewed as text, not checked again.
    return pa.array(texts, pa.binary()).view(pa.string())


def json_values(column: pa.ChunkedArray) -> list[Any]:
    """The values of a column of JSON texts (``labels``, ``meta``), each decoded afresh."""
    texts: list[bytes] = []
    for chunk in column.chunks:  # as UTF-8 bytes, which msgspec reads without making a str first
        texts += chunk.view(pa.large_binary() if pa.types.is_large_string(chunk.type) else pa.binary()).to_pylist()
    return [_loads(text) for text in texts]


def _loads(text: str | bytes) -> Any:
    """A value stored by :func:`_json_column`: msgspec reads it, ``json`` what msgspec refuses (``NaN``)."""
    try:
        return _decode_bytes(text)
    except msgspec.DecodeError:
        return json.loads(text)


def build_in_memory(
    dialogues: Iterable[Dialogue | PassageTable | EvidenceBatch], *, compress_raw: bool = True
) -> CachedTables:
    """The tables of ``dialogues`` held in memory, for a split not cached (small, or the cache unwritable).

    The four tables keep the record batches as built (:class:`_Collected`): written to Arrow IPC bytes
    and read back, as they once were, every byte was copied once more, and in a fresh process the
    pages for those copies cost as much as parsing a small file. ``raw`` is compressed as in the cache,
    unless ``compress_raw`` is false (a small split's few texts: compressing them costs more than it saves).
    """
    sinks: dict[str, Any] = {name: _Collected(_SCHEMAS[name]) for name in _TABLES}
    sinks["raw"] = pa.BufferOutputStream()
    _, raw_batches = _write_tables(sinks, dialogues, compress_raw=compress_raw)
    tables = {name: sinks[name].table() for name in _TABLES}
    raw = RawTexts(sinks["raw"].getvalue(), raw_batches)
    dialogues, turns, evidence, passages = (tables[name] for name in _TABLES)
    return CachedTables(dialogues, turns, evidence, passages, raw, None, True)


class _Collected:
    """A table's record batches kept as they are written, in place of an IPC file writer."""

    def __init__(self, schema: pa.Schema) -> None:
        self.schema = schema
        self.batches: list[pa.RecordBatch] = []

    def write_batch(self, batch: pa.RecordBatch) -> None:
        self.batches.append(batch)

    def write_table(self, table: pa.Table) -> None:
        self.batches += table.to_batches()

    def close(self) -> None:
        """Nothing to finish: no footer to write."""

    def table(self) -> pa.Table:
        return pa.Table.from_batches(self.batches, schema=self.schema)


class _Writers:
    """The table writers of one build, with what a batch needs to know of the batches before it:
    the rows written so far, the distinct passages (their positions) and the origin names.

    Rows are appended with :meth:`write` and reach the files at :meth:`flush`, one record batch per
    table: a parser's fast path hands over a few dialogues at a time (WoW's decoded JSON is still in
    the processor's cache then: holding 128 dialogues' objects instead of 16 cost a sixth of a build),
    while a file of many small record batches makes a reader touch a page of metadata per batch
    (reopening a WoW train cache written 16 dialogues a batch took 280 MB instead of 140 MB).
    """

    def __init__(self) -> None:
        self.counts = dict.fromkeys(_FILES, 0)
        self.raw_batches: list[int] = []  # turns per record batch of the raw file
        self.files: dict[str, pa.ipc.RecordBatchFileWriter | _Collected] = {}
        self.pending: dict[str, list[pa.RecordBatch | pa.Table]] = {name: [] for name in _FILES}
        self.pending_dialogues = 0
        self.pending_rows = 0  # of the dialogues, turns and evidence tables
        self.encode_meta = _MetaEncoder()
        self._passages: dict[tuple[str, str | None, str], int] = {}
        self._passages_base = 0  # the position of the first passage in ``_passages``
        self._origins: dict[str, int] = {}

    def open(self, sinks: dict[str, Any], compress_raw: bool = True) -> None:
        # The origin dictionary grows as new names appear: written as deltas, which the file format allows.
        options = pa.ipc.IpcWriteOptions(emit_dictionary_deltas=True)
        for name in _TABLES:
            sink = sinks[name]
            collected = isinstance(sink, _Collected)
            self.files[name] = sink if collected else pa.ipc.new_file(sink, _SCHEMAS[name], options=options)
        self.files["raw"] = pa.ipc.new_file(sinks["raw"], RAW_SCHEMA, options=_RAW_OPTIONS if compress_raw else None)

    def write(self, name: str, rows: pa.RecordBatch | pa.Table) -> None:
        """Append rows to a table; they are written at the next :meth:`flush`."""
        self.pending[name].append(rows)
        if name != "passages":
            self.pending_rows += rows.num_rows
        if name == "dialogues":
            self.pending_dialogues += rows.num_rows

    def flush(self) -> None:
        """Write the rows appended since the last flush: one record batch per table."""
        for name, parts in self.pending.items():
            if not parts:
                continue
            if len(parts) == 1:  # as it is: a parser's whole passage table is not copied
                rows = parts[0]
            elif all(isinstance(part, pa.RecordBatch) for part in parts):
                rows = pa.concat_batches(parts)  # dictionaries unified (the origin names grow)
            else:
                rows = pa.concat_tables(parts).combine_chunks()
            if isinstance(rows, pa.Table):
                self.files[name].write_table(rows)
            else:
                self.files[name].write_batch(rows)
            if name == "raw":
                self.raw_batches.append(rows.num_rows)
            parts.clear()
        self.pending_dialogues = self.pending_rows = 0

    def full(self) -> bool:
        """Whether the rows appended since the last flush make a batch of the usual size."""
        return self.pending_dialogues >= _BATCH_DIALOGUES or self.pending_rows >= _BATCH_ROWS

    def close(self) -> None:
        self.flush()
        for name in _FILES:
            self.files.pop(name).close()  # writes the footer: on a full disk, this is where it fails

    def abandon(self) -> None:
        for writer in self.files.values():
            with contextlib.suppress(Exception):
                writer.close()

    def passage_positions(self, texts: list[str], titles: list[str | None], metas: list[str]) -> pa.Array:
        """The passages row of each ``(text, title, meta)``; the ones not seen before are appended.

        A batch repeats a few distinct passages many times (WoW: 5.4M rows, 216k distinct): Arrow
        finds the batch's distinct triples in C, and only those are looked up in the memory of
        earlier batches, rather than hashing every row's strings in Python.
        """
        memo = self._passages
        if not memo or len(memo) > _DISTINCT_PASSAGES:
            memo.clear()
            self._passages_base = self.counts["passages"]
        codes = np.zeros(len(texts), dtype=np.int64)
        for values in (texts, titles, metas):
            encoded = pa.array(values, pa.string()).dictionary_encode(null_encoding="encode")
            if (int(codes.max(initial=0)) + 1) * len(encoded.dictionary) >= 1 << 62:  # numbered afresh
                codes = np.unique(codes, return_inverse=True)[1].reshape(-1).astype(np.int64)
            codes *= len(encoded.dictionary)
            codes += encoded.indices.to_numpy(zero_copy_only=False)
        _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")  # new passages are stored in the order they first appear
        rows = first[order].tolist()
        keys = list(zip([texts[i] for i in rows], [titles[i] for i in rows], [metas[i] for i in rows], strict=True))
        base = self._passages_base
        # Every loop below runs in C (map, compress, update), and each key is hashed once more only
        # when it is new: the keys are distinct within the batch, so the new ones are numbered in one
        # go, in the order they first appear.
        found = np.array(list(map(memo.get, keys, itertools.repeat(-1))), dtype=np.int64)
        missing = found < 0
        new = list(itertools.compress(keys, missing.tolist()))
        numbers = range(base + len(memo), base + len(memo) + len(new))
        found[missing] = numbers
        memo.update(zip(new, numbers, strict=True))
        positions = np.empty(len(rows), dtype=np.int32)
        positions[order] = found
        if new:
            self.append_passages(
                PassageTable(
                    pa.array([key[0] for key in new], pa.string()),
                    pa.array([key[1] for key in new], pa.string()),
                    pa.array([key[2] for key in new], pa.string()),
                )
            )
        return pa.array(positions[inverse.reshape(-1)], pa.int32())

    def append_passages(self, table: PassageTable) -> None:
        """Append passages as they are (the evidence rows to come know their positions)."""
        self.write("passages", pa.Table.from_arrays([table.text, table.title, table.meta], schema=PASSAGE_SCHEMA))
        self.counts["passages"] += len(table.text)

    def _origin_code(self, name: str) -> int:
        code = self._origins.setdefault(name, len(self._origins))
        if code > _MAX_ORIGINS:
            raise ValueError(f"more than {_MAX_ORIGINS:,} distinct evidence origins: an origin names a channel")
        return code

    def _origin_names(self) -> pa.Array:
        return pa.array(list(self._origins), pa.string())

    def origin_column(self, origin: pa.Array) -> pa.DictionaryArray:
        """``origin`` encoded against the names of every batch so far (new names go at the end)."""
        if pa.types.is_dictionary(origin.type):  # a parser's own codes: renumbered, not looked up per row
            codes = np.array([self._origin_code(name) for name in origin.dictionary.to_pylist()], dtype=np.int16)
            indices = codes[origin.indices.to_numpy(zero_copy_only=False)] if len(codes) else origin.indices
            return pa.DictionaryArray.from_arrays(pa.array(indices, _ORIGIN_INDEX), self._origin_names())
        for name in pc.unique(origin).to_pylist():
            self._origin_code(name)
        names = self._origin_names()
        indices = pc.index_in(origin, value_set=names).cast(_ORIGIN_INDEX)
        return pa.DictionaryArray.from_arrays(indices, names)


def _write_tables(
    sinks: dict[str, Any], items: Iterable[Dialogue | PassageTable | EvidenceBatch], *, compress_raw: bool = True
) -> tuple[dict[str, int], list[int]]:
    """Stream ``items`` into one Arrow IPC file per table (``sinks``, left open); return the row counts
    and the turns in each record batch of the ``raw`` file.

    ``items`` are dialogues, or (a parser's fast path) one :class:`PassageTable` followed by
    :class:`EvidenceBatch` items.
    """
    # The parser's objects form no reference cycles, but millions of them make the cyclic collector
    # rescan the survivors again and again: pausing it saves a fifth of the time of a large build.
    collecting = gc.isenabled()
    gc.disable()
    writers = _Writers()
    try:
        writers.open(sinks, compress_raw)
        batch: list[Dialogue] = []
        rows = 0
        for item in items:
            if isinstance(item, (PassageTable, EvidenceBatch)):
                if batch:
                    _write_batch(batch, writers)
                    batch, rows = [], 0
                if isinstance(item, PassageTable):
                    writers.append_passages(item)
                else:
                    if item.passages is not None:
                        writers.append_passages(item.passages)
                    _write_evidence_batch(item, writers)
                    if writers.full():
                        writers.flush()
                continue
            batch.append(item)
            rows += 1 + len(item.turns) + sum([len(turn.evidence) for turn in item.turns])
            # Bounded by rows, not dialogues, so that memory stays flat whatever a dialogue holds.
            if len(batch) >= min(_OBJECT_BATCH, _BATCH_DIALOGUES) or rows >= _BATCH_ROWS:
                _write_batch(batch, writers)
                batch, rows = [], 0
        if batch:
            _write_batch(batch, writers)
        writers.close()
    finally:
        if collecting:
            gc.enable()
        # Only after a failure: the first error is the one to report, not the next writer's.
        writers.abandon()
    return writers.counts, writers.raw_batches


def compress_tables(directory: Path) -> None:
    """Rewrite the four table files in ``directory`` (an entry being built) with zstd-compressed buffers:
    the same record batches and dictionaries (their deltas too), a third to a fifth of the bytes for
    text. Read back whole into memory (see :data:`COMPRESSED_BELOW`)."""
    options = pa.ipc.IpcWriteOptions(emit_dictionary_deltas=True, compression="zstd")
    for name in _TABLES:
        path = directory / f"{name}.arrow"
        packed = directory / f".{name}.arrow.zst"
        with pa.memory_map(str(path)) as source:
            reader = pa.ipc.open_file(source)
            with pa.OSFile(str(packed), "wb") as sink, pa.ipc.new_file(sink, reader.schema, options=options) as out:
                for number in range(reader.num_record_batches):
                    out.write_batch(reader.get_batch(number))
        os.replace(packed, path)


class _MetaEncoder:
    """JSON text of small metadata dicts, remembered: WoW's millions of evidence rows repeat a few
    thousand ``meta`` values (turn, passage, sentence), and encoding each afresh dominated a build."""

    # Types whose equal values always encode the same (not float: -0.0 == 0.0). The key keeps each
    # value's type, because True == 1 would otherwise share a memo entry with 1.
    _SCALARS = frozenset({int, str, bool, type(None)})

    def __init__(self, limit: int = 1 << 16) -> None:
        self._memo: dict[tuple, str] = {}
        self._limit = limit

    def __call__(self, meta: dict[str, Any]) -> str:
        if not meta:
            return "{}"
        values = tuple(meta.values())
        types = tuple(map(type, values))
        if not self._SCALARS.issuperset(types):
            return _encode(meta)
        key = (tuple(meta), values, types)
        text = self._memo.get(key)
        if text is None:
            text = _encode(meta)
            if len(self._memo) >= self._limit:
                self._memo.clear()
            self._memo[key] = text
        return text


def _offsets(counts: np.ndarray, first: int) -> np.ndarray:
    """Start offsets (from ``first``) of consecutive runs of the given lengths."""
    starts = np.empty(len(counts), dtype=np.int64)
    if len(counts):
        starts[0] = 0
        np.cumsum(counts[:-1], out=starts[1:])
    return starts + first


def _meta_texts(metas: list[dict[str, Any]], encode_meta: _MetaEncoder) -> list[str]:
    """The ``meta`` of evidence rows as JSON text: in most datasets every one is empty, so say so at once."""
    if not any(metas):
        return ["{}"] * len(metas)
    return [encode_meta(meta) for meta in metas]


def _write_batch(batch: list[Dialogue], writers: _Writers) -> None:
    """Append one batch of dialogues to the tables, column by column; each new passage once.

    Columns are built with one comprehension each, rather than appending to lists per evidence row.
    """
    turns = [turn for dialogue in batch for turn in dialogue.turns]
    evidence = [item for turn in turns for item in turn.evidence]
    evidence_counts = [len(turn.evidence) for turn in turns]
    selected = np.array([item.selected for item in evidence], dtype=np.bool_)
    _write_turn_columns(_turn_columns(batch, turns), evidence_counts, selected, writers)
    if evidence:
        positions = writers.passage_positions(
            [item.text for item in evidence],
            [item.title for item in evidence],
            _meta_texts([item.meta for item in evidence], writers.encode_meta),
        )
        columns = [
            pa.array([item.id for item in evidence], pa.string()),
            positions,
            pa.array([item.origin for item in evidence], pa.string()),
            pa.array(selected, pa.bool_()),
        ]
        _append_evidence(columns, writers)
    if writers.full():
        writers.flush()


def _write_evidence_batch(batch: EvidenceBatch, writers: _Writers) -> None:
    """Append a parser's columnar batch: its dialogues and turns, then its evidence columns as they are."""
    if isinstance(batch.dialogues, TurnColumns):
        columns = batch.dialogues
    else:
        columns = _turn_columns(batch.dialogues, [turn for dialogue in batch.dialogues for turn in dialogue.turns])
    evidence_counts = np.asarray(batch.counts, dtype=np.int64)
    if len(evidence_counts) != len(columns.texts) or int(evidence_counts.sum()) != len(batch.ids):
        raise ValueError("an EvidenceBatch must give one count per turn, adding up to its rows")
    if len(batch.passage) and pc.max(batch.passage).as_py() >= writers.counts["passages"]:
        raise ValueError("an EvidenceBatch points past the passages written so far")
    selected = batch.selected.to_numpy(zero_copy_only=False).astype(np.bool_, copy=False)
    _write_turn_columns(columns, evidence_counts, selected, writers)
    if len(batch.ids):
        _append_evidence([batch.ids, batch.passage, batch.origin, batch.selected], writers)


def _turn_columns(dialogues: Sequence[Dialogue], turns: list[Turn]) -> TurnColumns:
    """The columns of ``dialogues`` and of their ``turns`` (all of them, in order)."""
    return TurnColumns(
        ids=[dialogue.id for dialogue in dialogues],
        datasets=[dialogue.dataset for dialogue in dialogues],
        splits=[dialogue.split for dialogue in dialogues],
        topics=[dialogue.topic for dialogue in dialogues],
        metas=_json_column([dialogue.meta for dialogue in dialogues]),
        turn_counts=[len(dialogue.turns) for dialogue in dialogues],
        turn_index=np.fromiter((turn.index for turn in turns), dtype=np.int32, count=len(turns)),
        roles=[turn.role for turn in turns],
        speakers=[turn.speaker for turn in turns],
        texts=[turn.text for turn in turns],
        labels=_json_column([turn.labels for turn in turns]),
        raws=_json_column([turn.raw for turn in turns]),
    )


def _string_column(values: Sequence[str] | pa.Array) -> pa.Array:
    return values if isinstance(values, pa.Array) and pa.types.is_string(values.type) else pa.array(values, pa.string())


def _write_turn_columns(
    columns: TurnColumns, evidence_counts: Sequence[int] | np.ndarray, selected: np.ndarray, writers: _Writers
) -> None:
    """Append the dialogues and turns of a batch; the counts move on for dialogues and turns only."""
    counts = writers.counts
    # Made arrays once: a list of counts was converted again by every NumPy and Arrow call below.
    turn_counts = np.asarray(columns.turn_counts, dtype=np.int64)
    evidence_counts = np.asarray(evidence_counts, dtype=np.int64)
    sizes = {len(getattr(columns, name)) for name in ("ids", "datasets", "splits", "topics", "metas")}
    turn_sizes = {len(getattr(columns, name)) for name in ("turn_index", "roles", "speakers", "labels", "raws")}
    if sizes != {len(turn_counts)} or turn_sizes | {int(turn_counts.sum())} != {len(columns.texts)}:
        raise ValueError("TurnColumns must give one value per dialogue and per turn (turn_counts adding up)")
    dialogue_ids = pa.array(columns.ids, pa.string())
    dialogue_index = np.arange(counts["dialogues"], counts["dialogues"] + len(turn_counts), dtype=np.int32)
    writers.write(
        "dialogues",
        pa.RecordBatch.from_arrays(
            [
                dialogue_ids,
                pa.array(columns.datasets, pa.string()),
                pa.array(columns.splits, pa.string()),
                pa.array(columns.topics, pa.string()),
                _string_column(columns.metas),
                pa.array(_offsets(turn_counts, counts["turns"]), pa.int64()),
                pa.array(turn_counts, pa.int32()),
            ],
            schema=DIALOGUE_SCHEMA,
        )
    )

    turn_dialogue = np.repeat(np.arange(len(turn_counts)), turn_counts)
    running = np.concatenate(([0], np.cumsum(selected, dtype=np.int64)))
    ends = np.cumsum(evidence_counts, dtype=np.int64)
    selected_counts = running[ends] - running[ends - evidence_counts]
    writers.write(
        "turns",
        pa.RecordBatch.from_arrays(
            [
                pa.array(dialogue_index[turn_dialogue], pa.int32()),
                dialogue_ids.take(pa.array(turn_dialogue)),
                pa.array(columns.turn_index, pa.int32()),
                pa.array(columns.roles, pa.string()),
                pa.array(columns.speakers, pa.string()),
                pa.array(columns.texts, pa.string()),
                _string_column(columns.labels),
                pa.array(_offsets(evidence_counts, counts["evidence"]), pa.int64()),
                pa.array(evidence_counts, pa.int32()),
                pa.array(selected_counts.astype(np.int32), pa.int32()),
            ],
            schema=TURN_SCHEMA,
        )
    )
    turn_total = len(columns.texts)
    if turn_total:
        raws = _string_column(columns.raws)
        writers.write("raw", pa.RecordBatch.from_arrays([raws], schema=RAW_SCHEMA))
        counts["raw"] += turn_total
    counts["dialogues"] += len(turn_counts)
    counts["turns"] += turn_total


def _append_evidence(columns: list[pa.Array], writers: _Writers) -> None:
    """Append evidence rows (``id``, ``passage``, ``origin``, ``selected``), in the order of their turns."""
    ids, passage, origin, selected = columns
    writers.write(
        "evidence",
        pa.RecordBatch.from_arrays([ids, passage, writers.origin_column(origin), selected], schema=EVIDENCE_SCHEMA)
    )
    writers.counts["evidence"] += len(ids)


# -- reading ---------------------------------------------------------------------------------------


class _JsonMemo:
    """``json.loads`` of the cached ``meta``/``labels`` strings, remembering small flat objects.

    Each call returns a fresh dict (callers may change it); only objects whose values are all scalars
    are remembered, so a shallow copy is a full copy.
    """

    _SCALARS = (int, str, bool, float, type(None))

    def __init__(self, limit: int = 1 << 16) -> None:
        self._memo: dict[str, dict[str, Any] | None] = {}
        self._limit = limit

    def __call__(self, text: str) -> Any:
        if text == "{}":
            return {}
        cached = self._memo.get(text)
        if cached is not None:
            return cached.copy()
        value = _loads(text)
        if (
            len(text) <= 200
            and isinstance(value, dict)
            and all(isinstance(item, self._SCALARS) for item in value.values())
        ):
            if len(self._memo) >= self._limit:
                self._memo.clear()
            self._memo[text] = value
            return value.copy()
        return value


def _columns(table: pa.Table, names: Sequence[str]) -> list[list[Any]]:
    return [table.column(name).to_pylist() for name in names]


def objects_and_missing(values: pa.Array) -> np.ndarray:
    """An object array of ``values`` as Python objects, one each, and a missing value (``None``) after
    them, which position ``-1`` takes: indexed by per-row positions, every row of a value shares its object."""
    shared = np.empty(len(values) + 1, dtype=object)
    shared[:-1] = values.to_pylist()
    return shared


def shared_values(column: pa.ChunkedArray) -> list[Any]:
    """A column's values as a list, one Python object per distinct value of a chunk, shared by its repeats.

    For columns of few distinct values (a role, an origin, a title): far less time and memory than a
    string per row. Dictionary-encoded columns are decoded through their dictionary.
    """
    values: list[Any] = []
    for chunk in column.chunks:
        encoded = chunk if pa.types.is_dictionary(chunk.type) else chunk.dictionary_encode()
        words = objects_and_missing(encoded.dictionary)
        indices = encoded.indices.fill_null(-1) if encoded.null_count else encoded.indices
        values += words[indices.to_numpy()].tolist()  # in C: half the time of a list comprehension
    return values


class PassageMemo:
    """Passages already turned into Python objects while walking a split, by position, column by column.

    A walk meets the same passages in chunk after chunk (WoW's topic passages recur in every dialogue
    on that topic): decoding each once, and handing every row a reference to it, saves most of the
    work and memory of one string per row. Holds at most ``limit`` passages, then starts afresh.
    """

    def __init__(self, tables: CachedTables, names: Sequence[str], limit: int = 1 << 21) -> None:
        self._tables = tables
        self._names = tuple(names)
        self._limit = limit
        self._plain: np.ndarray | None = None
        self._metas: PassageMemo | None = None
        self._clear()

    def _clear(self) -> None:
        size = self._tables.passages.num_rows
        self._known = np.zeros(size, dtype=np.bool_)
        self._count = 0
        self._values = {name: np.empty(size, dtype=object) for name in self._names}

    def rows(self, start: int, stop: int) -> list[np.ndarray]:
        """Per evidence row ``start`` to ``stop - 1``, an object array of each column's values."""
        positions = self._tables.evidence.column("passage").slice(start, stop - start).to_numpy()
        missing = np.unique(positions[~self._known[positions]])  # only the new ones are sorted out
        if self._count + len(missing) > self._limit:
            self._clear()
            missing = np.unique(positions)
        if len(missing):
            for name in self._names:
                self._values[name][missing] = take_sorted(self._tables.passages.column(name), missing)
            self._known[missing] = True
            self._count += len(missing)
        return [self._values[name][positions] for name in self._names]

    def metas(self, start: int, stop: int) -> np.ndarray:
        """The ``meta`` (JSON text) of evidence rows ``start`` to ``stop - 1``, remembered like the rest."""
        if self._metas is None:
            self._metas = PassageMemo(self._tables, ("meta",), self._limit)
        return self._metas.rows(start, stop)[0]

    def without_meta(self, start: int, stop: int) -> bool:
        """True when no evidence row ``start`` to ``stop - 1`` has metadata (``meta`` is ``{}``)."""
        if self._plain is None:  # judged once per passage, in C, rather than once per row
            meta = self._tables.passages.column("meta")
            self._plain = pc.equal(meta, "{}").to_numpy(zero_copy_only=False) if len(meta) else np.ones(0, np.bool_)
        positions = self._tables.evidence.column("passage").slice(start, stop - start).to_numpy()
        return bool(self._plain[positions].all())


def take_sorted(column: pa.ChunkedArray, positions: np.ndarray) -> list[Any]:
    """``column``'s values at ``positions`` (ascending) as a list, taken chunk by chunk.

    ``ChunkedArray.take`` first joins all the chunks into one array: a copy of the whole column for
    every call, which made walking a split's dialogues spend most of its time copying passages.
    """
    values: list[Any] = []
    bounds = np.cumsum([0, *(len(chunk) for chunk in column.chunks)])
    cuts = np.searchsorted(positions, bounds)
    for number, chunk in enumerate(column.chunks):
        low, high = cuts[number], cuts[number + 1]
        if high > low:
            part = positions[low:high] - bounds[number]
            values += chunk.take(pa.array(part)).to_pylist()
    return values


def passage_column(tables: CachedTables, name: str, text_type: pa.DataType = _STRING) -> pa.ChunkedArray:
    """The passage column ``name`` spelt out per evidence row (a copy of each text per row), as
    ``text_type`` (``string`` or ``large_string``).

    Spelt out by casting dictionary arrays (the evidence rows' positions over the passages) to strings,
    one stored chunk at a time. Measured on the full-size WoW train (5.4 million rows, 816 MB of text
    per row): 0.31 s of CPU; ``take`` chunk by chunk 1.21 s; one cast or take of the whole column 2.5
    to 3.7 s and twice the memory.
    """
    pool = _spelt_out_pool()
    passages = pc.cast(tables.passages.column(name).combine_chunks(), text_type, memory_pool=pool)
    chunks = [
        pc.cast(pa.DictionaryArray.from_arrays(positions, passages), text_type, memory_pool=pool)
        for positions in tables.evidence.column("passage").chunks
    ]
    return pa.chunked_array(chunks, text_type)


def _spelt_out_pool() -> pa.MemoryPool:
    """The memory pool for columns spelt out per evidence row: the C library's allocator.

    Arrow's default pool (mimalloc) kept far more resident than it handed out for these many
    mid-sized buffers (``origin`` alone: 119 MB allocated, 200 MB resident): on the full-size
    synthetic WoW train the benchmark's ``turns()+evidence()`` step peaked at 1,833 MB with it and
    1,735 MB with the C library's, in less CPU time. The values are the same either way.
    """
    return pa.system_memory_pool()


def evidence_column(tables: CachedTables, name: str, text_type: pa.DataType = _STRING) -> pa.ChunkedArray:
    """One column of the evidence rows as :meth:`utils.loading.LoadedSplit.evidence` shows it: stored,
    or looked up (the passage's text, title and meta; the turn's dialogue index and turn index; the
    dialogue's id), or decoded (``origin``). Text columns come as ``text_type``: pandas' Arrow-backed
    strings hold ``large_string``, and a column spelt out as one needs no second copy to become one."""
    if name in ("text", "title", "meta"):
        return passage_column(tables, name, text_type)
    if name in ("dialogue_index", "turn_index"):
        return _per_evidence_row(tables, name)
    pool = _spelt_out_pool()
    if name == "dialogue_id":
        ids = tables.dialogues.column("id").combine_chunks().cast(text_type)
        positions = _per_evidence_row(tables, "dialogue_index").combine_chunks()
        return pa.chunked_array([pc.take(ids, positions, memory_pool=pool)], text_type)
    column = tables.evidence.column(name)
    if pa.types.is_dictionary(column.type) or pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        return pa.chunked_array([pc.cast(chunk, text_type, memory_pool=pool) for chunk in column.chunks], text_type)
    return column


#: The evidence columns whose values repeat from row to row: each row points at one of a few distinct
#: values (a passage's text, title or meta, the dialogue's id, the channel's name), so they are read
#: as :func:`evidence_codes` rather than spelt out.
EVIDENCE_REPEATED_COLUMNS = ("dialogue_id", "text", "title", "origin", "meta")


def evidence_codes(tables: CachedTables, name: str) -> tuple[pa.Array, np.ndarray]:
    """A column of :data:`EVIDENCE_REPEATED_COLUMNS` as its distinct values, each once, and per evidence
    row the position of its own among them (``-1`` where the row has none), so that a reader makes one
    object per distinct value rather than one per row.

    On the full-size synthetic WoW train, 5.4 million rows show 216 thousand distinct passages (31 MB of
    text): spelt out per row, the texts alone took 816 MB.
    """
    if name in ("text", "title", "meta"):
        values: pa.Array | pa.ChunkedArray = tables.passages.column(name)
        positions = tables.evidence.column("passage")
    elif name == "dialogue_id":
        values = tables.dialogues.column("id")
        positions = _per_evidence_row(tables, "dialogue_index")
    elif name in EVIDENCE_REPEATED_COLUMNS:
        column = tables.evidence.column(name)
        if not pa.types.is_dictionary(column.type):
            encoded = [chunk.dictionary_encode() for chunk in column.chunks]
            column = pa.chunked_array(encoded, pa.dictionary(pa.int32(), column.type))
        # Each stored batch may carry its own dictionary (the origin names grow as a file is read): one for all.
        column = column.unify_dictionaries()
        if not column.num_chunks:
            return pa.array([], column.type.value_type), np.zeros(0, np.int64)
        values = column.chunk(0).dictionary
        positions = pa.chunked_array([chunk.indices for chunk in column.chunks], column.type.index_type)
    else:
        raise ValueError(f"{name!r} is not a repeated evidence column: {', '.join(EVIDENCE_REPEATED_COLUMNS)}")
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if positions.null_count:
        positions = positions.fill_null(-1)
    # Distinct passages may share a text (with another title) or a title (most do): each value once.
    encoded = values.dictionary_encode()
    codes = np.append(encoded.indices.fill_null(-1).to_numpy().astype(np.intp, copy=False), -1)  # -1 stays -1
    return encoded.dictionary, codes[positions.to_numpy()]


def evidence_objects(tables: CachedTables, name: str) -> tuple[np.ndarray, np.ndarray]:
    """:func:`evidence_codes` with the distinct values as Python objects, laid out as
    :func:`objects_and_missing` lays them out (``None`` last, for position ``-1``).

    A passage column's distinct values are found by pandas among Python strings, one per passage,
    rather than by Arrow: ``dictionary_encode`` of a half-size synthetic WoW held-out split's 82
    thousand passage texts (12 MB) left about 60 MB resident in Arrow's pool (mimalloc), which Python's
    own objects never reuse; the strings are made either way.
    """
    import pandas as pd

    if name not in ("text", "title", "meta"):
        values, positions = evidence_codes(tables, name)
        return objects_and_missing(values), positions
    passages = np.empty(tables.passages.num_rows, dtype=object)
    passages[:] = tables.passages.column(name).to_pylist()
    codes, distinct = pd.factorize(passages)  # in order of first appearance, as Arrow's; None is -1
    del passages
    shared = np.empty(len(distinct) + 1, dtype=object)
    shared[:-1] = distinct
    stored = tables.evidence.column("passage")
    rows = (stored.fill_null(-1) if stored.null_count else stored).to_numpy()
    return shared, np.append(codes.astype(np.intp, copy=False), -1)[rows]  # -1 stays -1


def _per_evidence_row(tables: CachedTables, name: str) -> pa.ChunkedArray:
    """A column of the turns table repeated for each evidence row of its turn (rows lie in turn order)."""
    counts = tables.turns.column("evidence_count").to_numpy()
    values = tables.turns.column(name).to_numpy()
    return pa.chunked_array([pa.array(np.repeat(values, counts), tables.turns.schema.field(name).type)])


def turns_table(tables: CachedTables) -> pa.Table:
    """The turns with their ``raw`` texts (after ``labels``), as they were stored before format 3."""
    return tables.turns.add_column(tables.turns.schema.get_field_index("labels") + 1, "raw", tables.raw.column())


def evidence_table(tables: CachedTables) -> pa.Table:
    """The evidence rows with their dialogue's index and id and their turn's index: what
    :meth:`utils.loading.LoadedSplit.arrow` shows.

    Little more than a view: ``dialogue_id`` is dictionary-encoded over the dialogues' ids (its indices
    are the ``dialogue_index`` column) and ``origin`` stays dictionary-encoded as stored; only the two
    indexes are spelt out per row (four bytes each).
    """
    ids = tables.dialogues.column("id").combine_chunks()
    dialogue_index = _per_evidence_row(tables, "dialogue_index")
    dialogue_ids = pa.chunked_array(
        [pa.DictionaryArray.from_arrays(chunk, ids) for chunk in dialogue_index.chunks],
        pa.dictionary(pa.int32(), pa.string()),
    )
    stored = tables.evidence
    if not stored.num_rows:  # a table of no chunks: the spelt-out columns need one, empty, to match
        stored = pa.Table.from_batches([], stored.schema)
    table = stored.add_column(0, "dialogue_index", dialogue_index.combine_chunks())
    table = table.add_column(1, "dialogue_id", dialogue_ids)
    return table.add_column(2, "turn_index", _per_evidence_row(tables, "turn_index").combine_chunks())


def rebuild_dialogues(
    tables: CachedTables, start: int, stop: int, passages: PassageMemo | None = None
) -> list[Dialogue]:
    """Dialogues ``start`` to ``stop - 1`` rebuilt from the tables, a column at a time.

    Converting whole columns of a slice is several times faster than converting row by row, which
    matters when a chapter walks through a split of millions of evidence rows. A walk passes the same
    ``passages`` memo (of ``EVIDENCE_PASSAGE_COLUMNS``) to every call.
    """
    if stop <= start:
        return []
    # Only new, acyclic objects are made here: pausing the cyclic collector halves the time.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _rebuild(tables, start, stop, passages or PassageMemo(tables, EVIDENCE_PASSAGE_COLUMNS))
    finally:
        if collecting:
            gc.enable()


def walk_chunks(tables: CachedTables, evidence_rows: int, most_dialogues: int) -> list[tuple[int, int]]:
    """Consecutive ``(start, stop)`` ranges of dialogues covering the split, each of about
    ``evidence_rows`` evidence rows (at least one dialogue, at most ``most_dialogues``).

    A walk rebuilds a range, hands its dialogues over and frees them before the next: sized by
    evidence rows, whatever a dialogue holds, a range's objects fit in the processor's cache while
    they are made, read and freed. (256 WoW dialogues at a time, 75,000 rows, took half as long again.)
    """
    count = tables.dialogues.num_rows
    turn_ends = (
        tables.dialogues.column("turn_start").to_numpy().astype(np.int64)
        + tables.dialogues.column("turn_count").to_numpy()
    )
    per_turn = tables.turns.column("evidence_count").to_numpy()
    rows_before_turn = np.concatenate(([0], np.cumsum(per_turn, dtype=np.int64)))
    rows_to_end = rows_before_turn[turn_ends]  # evidence rows up to the end of each dialogue
    ranges = []
    start = 0
    while start < count:
        reached = int(rows_to_end[start - 1]) if start else 0
        stop = int(np.searchsorted(rows_to_end, reached + evidence_rows, side="right"))
        stop = min(max(stop, start + 1), start + most_dialogues, count)
        ranges.append((start, stop))
        start = stop
    return ranges


#: The passage columns an Evidence object holds (``meta`` is read only where some row has any).
EVIDENCE_PASSAGE_COLUMNS = ("text", "title")


def _rebuild(tables: CachedTables, start: int, stop: int, passages: PassageMemo) -> list[Dialogue]:
    # Positional arguments in the field order of utils.records (faster than keywords; the loader's
    # round-trip tests compare rebuilt dialogues with parsed ones, so a reordering would show).
    loads = _JsonMemo()
    d_ids, datasets, splits, topics, d_metas, turn_starts, turn_counts = _columns(
        tables.dialogues.slice(start, stop - start),
        ("id", "dataset", "split", "topic", "meta", "turn_start", "turn_count"),
    )
    turn_table = tables.turns.slice(turn_starts[0], sum(turn_counts))
    t_index, texts, labels, evidence_starts, evidence_counts = _columns(
        turn_table, ("turn_index", "text", "labels", "evidence_start", "evidence_count")
    )
    raws = tables.raw.texts(turn_starts[0], turn_starts[0] + len(t_index))
    roles, speakers = shared_values(turn_table.column("role")), shared_values(turn_table.column("speaker"))
    first_evidence = evidence_starts[0] if evidence_starts else 0
    evidence_total = sum(evidence_counts)
    rows = tables.evidence.slice(first_evidence, evidence_total)
    last_evidence = first_evidence + evidence_total
    e_texts, e_titles = passages.rows(first_evidence, last_evidence)
    columns = [
        rows.column("id").to_pylist(),
        e_texts,
        e_titles,
        shared_values(rows.column("origin")),
        rows.column("selected").to_pylist(),
    ]
    # Each row gets a dict of its own (callers may change it): when all are empty, Evidence makes them.
    if not passages.without_meta(first_evidence, last_evidence):
        e_metas = passages.metas(first_evidence, last_evidence)
        columns.append([{} if meta == "{}" else loads(meta) for meta in e_metas])
    evidence = list(map(Evidence, *columns))
    turns = []
    for k in range(len(t_index)):
        offset = evidence_starts[k] - first_evidence
        turns.append(
            Turn(
                t_index[k],
                roles[k],
                speakers[k],
                texts[k],
                evidence[offset : offset + evidence_counts[k]],
                loads(labels[k]),
                _loads(raws[k]),
            )
        )
    dialogues = []
    for j in range(len(d_ids)):
        offset = turn_starts[j] - turn_starts[0]
        dialogues.append(
            Dialogue(
                id=d_ids[j],
                dataset=datasets[j],
                split=splits[j],
                turns=turns[offset : offset + turn_counts[j]],
                topic=topics[j],
                meta=_loads(d_metas[j]),
            )
        )
    return dialogues
