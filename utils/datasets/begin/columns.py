"""The BEGIN parser's fast path (:func:`parse_columns`), which the loader builds the cache with.

Apart from :mod:`utils.datasets.begin.parser`, which the dataset's declaration reads at import (its
labels, for the Croissant card): the fast path needs NumPy and Arrow, which ``atlas --help`` and
``atlas status`` never load.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pyarrow as pa

from ...errors import DataError
from ...formats import EvidenceBatch, FastPathDeclined, PassageTable, TurnColumns
from ...records import SEEKER, WIZARD
from .parser import COLUMNS, DIALECT, LABELS, _lines

__all__ = ["parse_columns"]

#: Rows per batch of columns handed to the cache (its own batches hold up to 4,096 dialogues).
_COLUMN_BATCH = 4096
_encode = msgspec.json.Encoder().encode  # what the cache's own encoder writes for these values
_EMPTY = _encode({})
_LABEL_TEXTS = {label: (_encode({"BEGIN": [label]}), _encode({"begin_label": label})) for label in LABELS}


class _Declined(Exception):
    """A row the fast path leaves to the record path (which reports it, or keeps its extra columns)."""


def parse_columns(path: Path, *, split: str) -> Iterator[EvidenceBatch]:
    """The rows of :func:`utils.datasets.begin.parser.parse` (the record path) as columns, for the
    loader: the same records, with no Dialogue, Turn or Evidence object made per row (a cold load of
    WoW's test file took four times a bare ``csv.reader`` loop, two thirds of it making and then
    taking apart those objects).

    Each knowledge snippet becomes one passage, the first time it is seen, as the cache numbers the
    passages of the record path's records; ``meta``, ``labels`` and ``raw`` are written as JSON text
    with the cache's own encoder. Anything the record path would refuse or treat apart (a fault of the
    file, a column beyond the six, a value whose JSON holds ``null``) declines
    (:class:`FastPathDeclined`), and the loader builds the cache with the record path from the start,
    which reports the fault.
    """
    try:
        yield from _column_batches(Path(path), split)
    except (_Declined, DataError, csv.Error) as exc:
        raise FastPathDeclined from exc


def _column_batches(path: Path, split: str) -> Iterator[EvidenceBatch]:
    reader = csv.reader(_lines(path), **DIALECT)
    header = next(reader, None)
    if header is None or tuple(name.strip() for name in header) != COLUMNS:
        raise _Declined  # no header, a missing column, or columns beyond the six, in another order
    columns = _RowColumns(split)
    passages: dict[str, int] = {}  # knowledge snippet -> its passage row, in order of first appearance
    for cells in reader:
        if not cells:  # an empty line, which parse skips too
            continue
        columns.add(cells, reader.line_num, passages)
        if len(columns.ids) >= _COLUMN_BATCH:
            yield columns.batch()
            columns = _RowColumns(split, len(passages), columns.next_row)
    if columns.ids:
        yield columns.batch()


class _RowColumns:
    """A batch of rows as the cache stores them (:func:`utils.datasets.begin.parser.parse` gives the record of one)."""

    def __init__(self, split: str, first_passage: int = 0, first_row: int = 0) -> None:
        self.split = split
        self.first_passage = first_passage
        self.next_row = first_row
        self.ids: list[str] = []
        self.metas: list[bytes] = []
        self.turn_counts: list[int] = []
        self.turn_index: list[int] = []
        self.roles: list[str] = []
        self.speakers: list[str] = []
        self.texts: list[str] = []
        self.labels: list[bytes] = []
        self.raws: list[bytes] = []
        self.evidence_counts: list[int] = []
        self.passage: list[int] = []
        self.new_passages: list[str] = []

    def add(self, cells: list[str], line: int, passages: dict[str, int]) -> None:
        if len(cells) != len(COLUMNS):
            raise _Declined
        model, source, knowledge, message, response, label = cells
        if not (model.strip() and source.strip() and label.strip()) or label not in _LABEL_TEXTS:
            raise _Declined
        meta: dict[str, Any] = {"row": self.next_row, "line": line, "model": model, "source": source, "label": label}
        has_message = bool(message.strip())
        if has_message:
            self.turn_index.append(0)
            self.roles.append(SEEKER)
            self.speakers.append("message")
            self.texts.append(message)
            self.labels.append(_EMPTY)
            self.raws.append(_EMPTY)
            self.evidence_counts.append(0)
        else:
            meta["message_missing"] = True
        has_knowledge = bool(knowledge.strip())
        if has_knowledge:
            position = passages.get(knowledge)
            if position is None:
                position = passages[knowledge] = len(passages)
                self.new_passages.append(knowledge)
            self.passage.append(position)
        else:
            meta["knowledge_missing"] = True
        if not response.strip():
            meta["response_missing"] = True
        text = _encode(meta)
        if b"null" in text:  # the cache writes such a value with another encoder: parse's records go there
            raise _Declined
        labels, raw = _LABEL_TEXTS[label]
        self.turn_index.append(int(has_message))
        self.roles.append(WIZARD)
        self.speakers.append(model)
        self.texts.append(response)
        self.labels.append(labels)
        self.raws.append(raw)
        self.evidence_counts.append(int(has_knowledge))
        self.ids.append(f"{self.split}-{self.next_row}")
        self.metas.append(text)
        self.turn_counts.append(1 + has_message)
        self.next_row += 1

    def batch(self) -> EvidenceBatch:
        rows, evidence = len(self.ids), len(self.passage)
        return EvidenceBatch(
            dialogues=TurnColumns(
                ids=self.ids,
                datasets=["begin"] * rows,
                splits=[self.split] * rows,
                topics=[None] * rows,
                metas=_text_column(self.metas),
                turn_counts=self.turn_counts,
                turn_index=np.array(self.turn_index, dtype=np.int32),
                roles=self.roles,
                speakers=self.speakers,
                texts=self.texts,
                labels=_text_column(self.labels),
                raws=_text_column(self.raws),
            ),
            counts=self.evidence_counts,
            ids=pa.array(["knowledge"] * evidence, pa.string()),
            passage=pa.array(self.passage, pa.int32()),
            origin=pa.array(["knowledge"] * evidence, pa.string()),
            selected=pa.array([True] * evidence, pa.bool_()),
            passages=PassageTable(
                pa.array(self.new_passages, pa.string()),
                pa.array([None] * len(self.new_passages), pa.string()),
                _text_column([_EMPTY] * len(self.new_passages)),
            ),
        )


def _text_column(texts: list[bytes]) -> pa.Array:
    """JSON texts (UTF-8 by construction: msgspec refuses lone surrogates) as a string column."""
    return pa.array(texts, pa.binary()).view(pa.string())
