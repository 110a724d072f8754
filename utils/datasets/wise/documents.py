"""WISE's document collection (``document_line.json``), found like any split.

:func:`load_documents` finds the file through the loader's own resolution
(:func:`utils.loading.resolve_file`), exactly as :func:`utils.load` finds a split: the official file
in the data directory, a download (WISE is published in a Google Drive folder, so this fails
offline and says how to place the file by hand), then the project's demo sample with a
:class:`~utils.loading.DemoDataWarning`. The result says where it came from.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import pandas as pd

from ...errors import DataError
from ...loading import Provenance, resolve_file
from .parser import (
    DOCUMENTS_FILENAME,
    WiseDocument,
    WisePassage,
    format_passage_id,
    iter_documents,
    parse_passage_id,
)

__all__ = ["DOCUMENTS_FILENAME", "WiseDocuments", "load_documents", "parse_passage_id"]


@dataclass(frozen=True)
class WiseDocuments(Mapping[int, WiseDocument]):
    """The documents by id, with passage look-up by conversation-file id (``"3251-8"``)."""

    documents: dict[int, WiseDocument]
    provenance: Provenance

    def __getitem__(self, document_id: int) -> WiseDocument:
        return self.documents[document_id]

    def __iter__(self) -> Iterator[int]:
        return iter(self.documents)

    def __len__(self) -> int:
        return len(self.documents)

    def passage(self, passage_id: str) -> WisePassage | None:
        """The passage ``"3251-8"`` names, or ``None`` when the collection lacks it.

        A malformed id raises :class:`~utils.errors.DataError`.
        """
        document_id, number = parse_passage_id(passage_id, field="passage id")
        document = self.documents.get(document_id)
        if document is None:
            return None
        return next((item for item in document.passages if item.id == number), None)

    def passage_text(self, passage_id: str) -> str | None:
        """The text of passage ``passage_id`` (its sentences joined), or ``None`` when absent."""
        passage = self.passage(passage_id)
        return None if passage is None else passage.text

    def passages_frame(self) -> pd.DataFrame:
        """One row per passage: id, document, passage, title, sentences, characters, text."""
        # Built once per collection (a chapter asks twice; 230k passages on full WISE), copied out
        # so that callers may change their frame.
        return self._passages_frame.copy()

    @cached_property
    def _passages_frame(self) -> pd.DataFrame:
        pairs = [(document, passage) for document in self.documents.values() for passage in document.passages]
        texts = [passage.text for _, passage in pairs]
        columns = {
            "id": [format_passage_id(document.id, passage.id) for document, passage in pairs],
            "document": [document.id for document, _ in pairs],
            "passage": [passage.id for _, passage in pairs],
            "title": [document.title for document, _ in pairs],
            "sentences": [len(passage.sentences) for _, passage in pairs],
            "characters": [len(text) for text in texts],
            "text": texts,
        }
        return pd.DataFrame(columns, columns=list(columns))

    def _repr_html_(self) -> str:
        return self.provenance._repr_html_()


def load_documents(*, data_dir: str | Path | None = None, download: bool = True) -> WiseDocuments:
    """Read WISE's ``document_line.json`` (official file, download or demo sample) into memory.

    Malformed lines raise :class:`~utils.errors.DataError` naming the file, line and field; two
    lines with the same document id are an error too, since passage ids would become ambiguous.
    """
    path, kind, checksum, detail = resolve_file("wise", "documents", data_dir=data_dir, download=download)
    documents: dict[int, WiseDocument] = {}
    for document in iter_documents(path):
        if document.id in documents:
            raise DataError("duplicate document id", path=path, record=f"document {document.id}", field="id")
        documents[document.id] = document
    passages = sum(len(document.passages) for document in documents.values())
    provenance = Provenance(
        dataset="wise",
        split="documents",
        kind=kind,
        path=path,
        checksum=checksum,
        size_bytes=path.stat().st_size,
        dialogues=0,
        turns=0,
        detail=f"{len(documents):,} documents, {passages:,} passages. {detail}".strip(),
    )
    return WiseDocuments(documents, provenance)
