"""WISE's document collection (``document_line.json``), found like any split.

:func:`load_documents` looks for the file exactly where :func:`utils.load` looks for a split: the
official file in the data directory, a download (WISE is published in a Google Drive folder, so
this fails offline and says how to place the file by hand), then the project's demo sample with a
:class:`~utils.loading.DemoDataWarning`. The result says where it came from.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import pandas as pd

from . import _download, config
from .errors import DataError, DataUnavailableError, DownloadError
from .formats.wise import (
    DOCUMENTS_FILENAME,
    WiseDocument,
    WisePassage,
    format_passage_id,
    iter_documents,
    parse_passage_id,
)
from .loading import DEMO, OFFICIAL, USER_COPY, DemoDataWarning, Provenance, _how_to_get, refuse_if_not_the_dataset
from .sources import get_source

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


def documents_path(*, data_dir: str | Path | None = None, download: bool = True) -> tuple[Path, str, str, str]:
    """``(path, kind, checksum status, detail)`` of the document file to read.

    The order is that of :func:`utils.load`: official file, download, demo sample (with a warning).
    """
    item = get_source("wise").extra_files["documents"]
    data_directory = config.data_dir(data_dir)
    path = data_directory / item.path
    if path.is_file():
        refuse_if_not_the_dataset("wise", "documents", item, path)
        # The same rule as utils.loading: a file the atlas fetched itself stays official.
        status = _download.local_status(item, path, data_directory)
        official = status == "verified" or (
            status == "unverified" and _download.placed_by_fetch(item, path, data_directory)
        )
        detail = "Its checksum differs from the official file's." if status == "mismatch" else ""
        return path, OFFICIAL if official else USER_COPY, status, detail
    failure = ""
    if download and not config.offline():
        try:
            path = _download.fetch(item, data_directory)
        except (DownloadError, DataUnavailableError) as exc:
            failure = str(exc)
        else:
            return path, OFFICIAL, _download.local_status(item, path, data_directory), ""
    elif config.offline():
        failure = f"downloads are off (${config.OFFLINE_ENV} is set)"
    demo = config.demo_dir() / item.path
    if not demo.is_file():  # pragma: no cover - the demo sample ships with the package
        raise DataUnavailableError(_how_to_get("wise", "documents", item, data_directory, failure))
    warnings.warn(
        f"wise/documents: {item.path} is not in {data_directory}"
        f"{' (' + failure + ')' if failure else ''}; using the project's DEMO SAMPLE, which is not the "
        "dataset. See book/data.md to get the real data.",
        DemoDataWarning,
        stacklevel=3,
    )
    return demo, DEMO, "unverified", "A handful of documents written by the atlas in the original format."


def load_documents(*, data_dir: str | Path | None = None, download: bool = True) -> WiseDocuments:
    """Read WISE's ``document_line.json`` (official file, download or demo sample) into memory.

    Malformed lines raise :class:`~utils.errors.DataError` naming the file, line and field; two
    lines with the same document id are an error too, since passage ids would become ambiguous.
    """
    path, kind, checksum, detail = documents_path(data_dir=data_dir, download=download)
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
