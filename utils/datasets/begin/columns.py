"""The BEGIN parser's fast path (:func:`parse_columns`), which the loader builds a split's tables with.

Apart from :mod:`utils.datasets.begin.parser`, which the dataset's declaration reads at import (its
labels, for the Croissant card): the fast path needs NumPy and Arrow, which ``atlas --help`` and
``atlas status`` never load.
"""

from __future__ import annotations

import codecs
import csv
import mmap
import os
import re
from collections.abc import Iterator
from pathlib import Path

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from ...formats import EvidenceBatch, FastPathDeclined, PassageTable, TurnColumns
from ...records import SEEKER, WIZARD
from .parser import COLUMNS, LABELS

__all__ = ["parse_columns"]

#: Rows per batch of columns handed to the cache (its own batches hold up to 4,096 dialogues).
_COLUMN_BATCH = 4096
_encode = msgspec.json.Encoder().encode  # what the cache's own encoder writes for these values
_EMPTY = _encode({})
#: What ``str.strip()`` removes (the characters whose ``str.isspace()`` is true; a test checks the list).
WHITESPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
#: The first bytes (UTF-8) of those characters: a cell of whitespace only starts with one of them.
_WHITESPACE_STARTS = np.array(sorted({char.encode("utf-8")[0] for char in WHITESPACE}), dtype=np.uint8)
#: The file as :data:`utils.datasets.begin.parser.DIALECT` reads it: tabs, no quoting, no escapes,
#: every cell text; an empty line, a row of another width or invalid UTF-8 stops the reader (declined).
_PARSE = pa_csv.ParseOptions(
    delimiter="\t", quote_char=False, double_quote=False, escape_char=False, ignore_empty_lines=False
)
_CONVERT = pa_csv.ConvertOptions(column_types=dict.fromkeys(COLUMNS, pa.string()), strings_can_be_null=False)
#: A carriage return not followed by a line feed: csv.reader refuses it inside a line, Arrow ends a line there.
_LONE_CR = re.compile(rb"\r(?!\n)")


class _Declined(Exception):
    """A file the fast path leaves to the record path (which reports it, or keeps its extra columns)."""


def parse_columns(path: Path, *, split: str) -> Iterator[EvidenceBatch]:
    """The rows of :func:`utils.datasets.begin.parser.parse` (the record path) as columns, for the
    loader: the same records, with no Dialogue, Turn or Evidence object made, and no Python loop per
    row (the file is read by Arrow's CSV reader and every column built by Arrow's kernels: a row at a
    time, a cold load of WoW's test file took six times a bare ``csv.reader`` loop).

    Each knowledge snippet becomes one passage, the first time it is seen, as the cache numbers the
    passages of the record path's records; ``meta``, ``labels`` and ``raw`` are the JSON texts the
    cache's own encoder writes. Anything the record path would refuse, treat apart or read otherwise (a
    fault of the file, a column beyond the six, an empty line, a byte order mark, a carriage return
    outside a line end, a NUL, a cell of whitespace only or beyond ``csv``'s field size limit, a value
    whose JSON holds ``null``) declines (:class:`FastPathDeclined`), and the loader builds the split's
    tables with the record path from the start, which reports the fault.
    """
    try:
        table = _read(Path(path))
        yield from _batches(table, split)
    except (_Declined, pa.ArrowInvalid, UnicodeDecodeError) as exc:
        raise FastPathDeclined from exc


def _read(path: Path) -> pa.Table:
    """The file's rows as a table of the six columns, or declined where ``csv.reader`` would differ.

    The file is memory-mapped, not read into a ``bytes``: the checks below scan it in place, and Arrow
    parses it in place, in one block (a fresh process paid as much for the pages of a copy as for
    parsing it).
    """
    with open(path, "rb") as handle:
        if not os.fstat(handle.fileno()).st_size:
            raise _Declined  # an empty file: parse's error to report
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    header = mapped[: mapped.find(b"\n") + 1 or len(mapped)]
    if (
        header.startswith(codecs.BOM_UTF8)
        or mapped.find(b"\0") >= 0
        or _LONE_CR.search(mapped)
        or tuple(name.strip() for name in header.decode("utf-8").rstrip("\r\n").split("\t")) != COLUMNS
    ):
        raise _Declined
    block = min(len(mapped) + 1, 1 << 30)  # one block: one chunk per column, not copied into one after
    options = pa_csv.ReadOptions(use_threads=False, skip_rows=1, column_names=list(COLUMNS), block_size=block)
    table = pa_csv.read_csv(
        pa.BufferReader(pa.py_buffer(mapped)), read_options=options, parse_options=_PARSE, convert_options=_CONVERT
    ).combine_chunks()
    if len(table) and max(_lengths(column.chunk(0)).max() for column in table.columns) > csv.field_size_limit():
        raise _Declined  # csv.reader's error to report (a length in bytes: at least the one in characters)
    return table


def _whitespace_only(column: pa.Array) -> bool:
    """Whether a cell of ``column`` holds whitespace only: the few cells that start with a byte such a
    character starts with are read and stripped as parse strips them (a regular expression over every
    cell cost more, and RE2's whitespace is not Python's)."""
    lengths = _lengths(column)
    starts = np.frombuffer(column.buffers()[1], dtype=np.int32)[column.offset : column.offset + len(column)]
    rows = np.flatnonzero(lengths > 0)
    if not len(rows):
        return False
    first_bytes = np.frombuffer(column.buffers()[2], dtype=np.uint8)[starts[rows]]
    candidates = rows[np.isin(first_bytes, _WHITESPACE_STARTS)]
    return any(not column[int(row)].as_py().strip() for row in candidates)


def _lengths(column: pa.Array) -> np.ndarray:
    """The byte length of every cell of a string column, from its offsets (no kernel to call)."""
    offsets = np.frombuffer(column.buffers()[1], dtype=np.int32)
    return np.diff(offsets[column.offset : column.offset + len(column) + 1])


def _names(column: pa.Array) -> tuple[list[str], np.ndarray]:
    """A column's distinct values (a few model or source names) and each cell's among them; declined
    on a blank one, which parse refuses."""
    codes = column.dictionary_encode()
    names = codes.dictionary.to_pylist()
    if not all(name.strip() for name in names):
        raise _Declined  # a fault of the file: the record path names its line and column
    return names, codes.indices.to_numpy(zero_copy_only=False).astype(np.int64)


#: A turn's ``labels`` and ``raw`` as JSON text: the message's (``{}``), then the response's, by label.
_LABEL_TEXTS = pa.array([_EMPTY, *(_encode({"BEGIN": [label]}) for label in LABELS)], pa.binary()).view(pa.string())
_RAW_TEXTS = pa.array([_EMPTY, *(_encode({"begin_label": label}) for label in LABELS)], pa.binary()).view(pa.string())
_ROLES = pa.array([SEEKER, WIZARD], pa.string())  # a message's, a response's
_MESSAGE = pa.array(["message"], pa.string())  # a message turn's speaker
_EMPTY_TEXT = pa.array([_EMPTY], pa.binary()).view(pa.string())
_KNOWLEDGE = pa.array(["knowledge"], pa.string())  # each evidence row's id and origin
_SELECTED = pa.array([True], pa.bool_())
_CODE_0 = pa.array([0], pa.int8())
_FLAGS = ("message_missing", "knowledge_missing", "response_missing")  # in the order parse sets them


def _checked(table: pa.Table) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Each row's label (its position in LABELS) and which of its message, knowledge and response are
    empty; declined on what the record path refuses or would read apart."""
    _, _, knowledge, message, response, label = (column.chunk(0) for column in table.columns)
    found = label.dictionary_encode()
    names = found.dictionary.to_pylist()
    if not set(names) <= set(LABELS):  # blank model and source names are declined in _meta_texts
        raise _Declined  # a fault of the file: the record path names its line and column
    codes = np.array([LABELS.index(name) for name in names], dtype=np.int64)[found.indices.to_numpy()]
    texts = (message, knowledge, response)
    if any(_whitespace_only(column) for column in texts):
        raise _Declined  # a cell of whitespace only, which parse counts as missing: rare, left to it
    empty = {flag: _lengths(column) == 0 for flag, column in zip(_FLAGS, texts, strict=True)}
    return codes, empty


def _meta_texts(table: pa.Table, numbers: pa.Array, labels: np.ndarray, empty: dict[str, np.ndarray]) -> pa.Array:
    """Each row's ``meta`` as the cache's encoder writes parse's dict (its keys in parse's order):
    ``numbers`` are the rows' numbers as text, the line of row ``i`` is ``i + 2`` (no empty line).

    Past ``row`` and ``line``, a row's meta is one of a few texts (its model, source, label and missing
    cells): each is encoded once, and given to the rows that have it.
    """
    (models, model), (sources, source) = (_names(column.chunk(0)) for column in table.columns[:2])
    flags = sum(empty[flag].astype(np.int64) << bit for bit, flag in enumerate(_FLAGS))
    codes = ((model * len(sources) + source) * len(LABELS) + labels) * 8 + flags
    combined, rows = np.unique(codes, return_inverse=True)
    tails = []
    for code in combined.tolist():
        rest, flag_bits = divmod(code, 8)
        rest, label = divmod(rest, len(LABELS))
        model_name, source_name = models[rest // len(sources)], sources[rest % len(sources)]
        tail = {"model": model_name, "source": source_name, "label": LABELS[label]}
        tail.update({flag: True for bit, flag in enumerate(_FLAGS) if flag_bits >> bit & 1})
        text = _encode(tail)
        if b"null" in text:  # the cache writes such a value with another encoder
            raise _Declined
        tails.append(b"," + text[1:])  # the dict's keys after row and line
    lines = pa.array(np.arange(2, len(table) + 2, dtype=np.int64)).cast(pa.string())
    tail_texts = pa.array(tails, pa.binary()).view(pa.string()).take(rows.reshape(-1))
    return pc.binary_join_element_wise('{"row":', numbers, ',"line":', lines, tail_texts, "")


def _batches(table: pa.Table, split: str) -> Iterator[EvidenceBatch]:
    if not len(table):
        return
    labels, empty = _checked(table)
    numbers = pa.array(np.arange(len(table), dtype=np.int64)).cast(pa.string())
    ids = pc.binary_join_element_wise(f"{split}-", numbers, "")
    metas = _meta_texts(table, numbers, labels, empty)
    has_knowledge = ~empty["knowledge_missing"]
    # Numbered in order of first appearance over the whole file, as the cache numbers parse's passages.
    passages = table.column("knowledge").chunk(0).take(np.flatnonzero(has_knowledge)).dictionary_encode()
    evidence_before = np.concatenate(([0], np.cumsum(has_knowledge)))
    seen = 0
    for start in range(0, len(table), _COLUMN_BATCH):
        stop = min(start + _COLUMN_BATCH, len(table))
        codes = passages.indices.slice(evidence_before[start], evidence_before[stop] - evidence_before[start])
        known = max(seen, pc.max(codes).as_py() + 1) if len(codes) else seen
        yield _batch(
            table.slice(start, stop - start),
            split,
            (ids.slice(start, stop - start), metas.slice(start, stop - start)),
            (~empty["message_missing"][start:stop], has_knowledge[start:stop], labels[start:stop]),
            codes,
            passages.dictionary.slice(seen, known - seen),
        )
        seen = known


def _batch(
    rows: pa.Table,
    split: str,
    texts: tuple[pa.Array, pa.Array],
    flags: tuple[np.ndarray, np.ndarray, np.ndarray],
    passage: pa.Array,
    new_passages: pa.Array,
) -> EvidenceBatch:
    """One batch of rows as parse's records: a message turn (when the cell has text), then the response."""
    ids, metas = texts
    has_message, has_knowledge, labels = flags
    model, _, _, message, response, _ = (column.chunk(0) for column in rows.columns)
    count, index = len(rows), np.arange(len(rows))
    responses = np.cumsum(1 + has_message) - 1  # the turn of each row's response; its message just before
    source = np.empty(responses[-1] + 1, dtype=np.int64)  # each turn's cell in [messages, responses]
    source[responses] = count + index
    source[responses[has_message] - 1] = index[has_message]
    is_response = source >= count
    label_of = np.zeros(len(source), dtype=np.int64)
    label_of[responses] = 1 + labels
    evidence_counts = np.zeros(len(source), dtype=np.int64)
    evidence_counts[responses] = has_knowledge
    turn_index = np.zeros(len(source), dtype=np.int32)
    turn_index[responses] = has_message
    evidence = len(passage)
    return EvidenceBatch(
        dialogues=TurnColumns(
            ids=ids,
            datasets=["begin"] * count,
            splits=[split] * count,
            topics=[None] * count,
            metas=metas,
            turn_counts=1 + has_message,
            turn_index=turn_index,
            roles=_ROLES.take(is_response.view(np.int8)),
            speakers=_interleaved([model, _MESSAGE], np.where(is_response, source - count, count)),
            texts=_interleaved([message, response], source),
            labels=_LABEL_TEXTS.take(label_of),
            raws=_RAW_TEXTS.take(label_of),
        ),
        counts=evidence_counts,
        ids=_repeated(_KNOWLEDGE, evidence),
        passage=passage.cast(pa.int32()),
        # Already coded (every row's origin is the first name): the cache renumbers codes, not rows.
        origin=pa.DictionaryArray.from_arrays(_repeated(_CODE_0, evidence), _KNOWLEDGE),
        selected=_repeated(_SELECTED, evidence),
        passages=PassageTable(
            new_passages, pa.nulls(len(new_passages), pa.string()), _repeated(_EMPTY_TEXT, len(new_passages))
        ),
    )


def _interleaved(columns: list[pa.Array], positions: np.ndarray) -> pa.Array:
    """The cells at ``positions`` of the columns put end to end, taken from them where they are (not
    from a copy of them put together first: a megabyte of text for WoW's test file)."""
    return pa.chunked_array(columns).take(positions).combine_chunks()


def _repeated(value: pa.Array, count: int) -> pa.Array:
    """A column of ``count`` times the one value of ``value``."""
    return value.take(np.zeros(count, dtype=np.int8))
