"""How a dataset is declared: the schema every dataset folder imports.

A dataset is declared once, in its own folder ``utils/datasets/<folder>/``: the folder's
``__init__.py`` lists its :class:`DatasetSource` objects in ``DATASETS``. A declaration says where
each official file lives and what it is (in the spirit of a pooch registry: location, place in the
data directory, checksum and size where known), and carries every per-dataset hook the shared
machinery calls: the parser, the renderer, the data viewer's fields, the authors' reported numbers.
The registry of every declared dataset (:func:`utils.sources.registry`) is built from the folders;
nothing else in the package names a dataset. This module imports nothing of the atlas above the
records' own layer (errors, text): the registry imports it, never the other way round.

The data directory layout (the ``path`` of each file) is documented in ``book/data.md``.

What a folder declares, and with what:

- :class:`DatasetSource` (the dataset), by concern: its :class:`Loader` (files, parser, label
  vocabularies) and its :class:`ChapterFacts` (reported numbers, chapter splits); :class:`SourceFile`
  per official file (:func:`hub_file`
  for a file of a Hugging Face Hub repository at one commit, :data:`HUB`; an :class:`Archive` for
  files shipped in one archive), :class:`RecordIds` (which field is a record's id) and
  :class:`DatasetProfile` (its column in the cross-dataset chapter);
- :class:`CardFormat` and :class:`CardField`: each original format's typed fields and label
  vocabularies (the Croissant card's record sets), with the field types :data:`TEXT`,
  :data:`INTEGER`, :data:`FLOAT`, :data:`BOOLEAN` and the encodings :data:`CSV`, :data:`TSV`,
  :data:`JSON`, :data:`JSON_LINES`, :data:`TAR`.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .text import LANGUAGE_CODES

if TYPE_CHECKING:
    from .records import Dialogue
    from .reported import Reported

__all__ = [
    "BOOLEAN",
    "CSV",
    "FLOAT",
    "HUB",
    "INTEGER",
    "JSON",
    "JSON_LINES",
    "TAR",
    "TEXT",
    "TSV",
    "Archive",
    "CardField",
    "CardFormat",
    "ChapterFacts",
    "DatasetProfile",
    "DatasetSource",
    "Loader",
    "RecordIds",
    "SourceFile",
    "hub_file",
]

HUB = "https://huggingface.co/datasets"

@dataclass(frozen=True)
class Archive:
    """A compressed archive that holds several official files."""

    url: str
    filename: str
    sha256: str | None
    size: int | None = None


@dataclass(frozen=True)
class SourceFile:
    """One official file.

    ``path`` is where the file sits inside the data directory. Exactly one of ``url`` (a direct
    download), ``archive`` (a member of an :class:`Archive`, extracted to ``path``) or
    ``gdrive_folder`` (a file in a public Google Drive folder) says how to fetch it. ``git_blob``
    is the file's git blob id where the publisher's repository pins it but publishes no sha256: the
    SHA-1 of ``blob <size>\0`` and the content, checked after download and on load.
    """

    path: str
    url: str | None = None
    archive: Archive | None = None
    gdrive_folder: str | None = None
    sha256: str | None = None
    size: int | None = None
    git_blob: str | None = None
    #: A known partial copy (for example a published sample) rather than the whole split.
    partial: bool = False
    description: str = ""


@dataclass(frozen=True)
class DatasetProfile:
    """How the cross-dataset chapter treats a dataset: the splits to try and what its units and evidence are."""

    #: splits tried in order; the first complete official one wins, else a partial copy, else demo
    splits: tuple[str, ...]
    #: what one record of the dataset is
    unit: str
    #: what the evidence is, in a few words
    evidence: str
    #: how the choice of evidence is recorded
    selection: str


@dataclass(frozen=True)
class RecordIds:
    """Where a dataset's records carry their id, and what a repeated id means."""

    #: The key of the id in each record (the files concerned hold one JSON record per line).
    field: str
    #: True: the publisher defines the id as unique, so a repeat means a damaged or doctored file
    #: (a :class:`~utils.errors.DataError`). False: repeats are known in the original data, so they
    #: are kept, with a warning naming them.
    unique: bool
    #: True: the splits are parts of one collection, so no id may occur in two of them (checked when
    #: both splits come from the data directory, or both from the demo samples).
    unique_across_splits: bool = False


# -- the original formats' typed fields and label vocabularies (a Croissant card's record sets) --------

#: Field types (schema.org names, as Croissant uses them).
TEXT, INTEGER, FLOAT, BOOLEAN = "sc:Text", "sc:Integer", "sc:Float", "sc:Boolean"
#: Encoding formats (MIME types) of the original files.
CSV, TSV, JSON, JSON_LINES, TAR = (
    "text/csv",
    "text/tab-separated-values",
    "application/json",
    "application/jsonlines",
    "application/x-tar",  # Croissant's type of an archive; ParlAI's .tgz is a gzipped tar
)


@dataclass(frozen=True)
class CardField:
    """One field of a format's records: its name, type and where a record holds it.

    ``column`` is a CSV/TSV column or a JSON Lines key; ``json_path`` a JSONPath into a whole JSON
    file (``$[*].chosen_topic``). ``labels`` is the field's vocabulary, where it is a label;
    ``one_label`` says that a cell holds exactly one of them (else a list, or free spellings).
    """

    name: str
    data_type: str
    description: str
    column: str = ""
    json_path: str = ""
    labels: tuple[str, ...] = ()
    one_label: bool = False


@dataclass(frozen=True)
class CardFormat:
    """One original format of a dataset: the splits whose files are written in it, and its fields."""

    name: str
    description: str
    encoding: str
    splits: tuple[str, ...]
    fields: tuple[CardField, ...]


@dataclass(frozen=True)
class Loader:
    """What the loader needs of a dataset: its files, how to parse them, and what its records and
    labels are (the loader part of a :class:`DatasetSource`, as the Hub's ``Features`` is of a dataset)."""

    #: split name -> official files, tried in order; a ``partial`` file is used only when no
    #: complete file is present.
    splits: dict[str, tuple[SourceFile, ...]]
    #: ``parse(path, *, split) -> Iterator[Dialogue]``: streams one original file, raising
    #: :class:`~utils.errors.DataError` for a malformed record (see :mod:`utils.formats`)
    parse: Callable[..., Iterator[Dialogue]]
    #: bumped whenever the parser's output changes, so cached splits are rebuilt
    parser_version: int
    #: the parser's fast path, ``parse_columns(path, *, split)``: Arrow columns instead of one object
    #: per evidence row; it must give the same dialogues as :attr:`parse` (see :mod:`utils.formats`)
    parse_columns: Callable[..., Iterator[Any]] | None = None
    #: ``companion_files(path) -> list[Path]``: other files the parser reads beside ``path`` (present
    #: or not), so that the cache is rebuilt when they change
    companion_files: Callable[[Path], list[Path]] | None = None
    #: extra files that are not splits (for example WISE's document collection).
    extra_files: dict[str, SourceFile] = field(default_factory=dict)
    #: split name -> the name the publisher uses, when it differs from ours.
    original_split_names: dict[str, str] = field(default_factory=dict)
    #: which field of a record is its id and whether the publisher makes it unique (``None``: the
    #: files give records no id of their own; the atlas numbers them by position)
    record_ids: RecordIds | None = None
    #: what one record of a split is called (a :class:`~utils.records.Dialogue` in the atlas).
    record_unit: str = "dialogues"
    #: ``record_kinds(split) -> {kind: count}`` for files whose records are not all alike (rows left
    #: blank, rows nobody labelled): the first kind is what the status panel counts as the split's
    #: size (``"labelled responses"``), the others are named beside it; ``None``: every record counts
    record_kinds: Callable[[Any], Mapping[str, int]] | None = None
    #: turn labels that are categories (counted by ``atlas stats``); free-text labels such as WoW's
    #: checked sentence or JWHR's citation lists are left out: each value would be its own row
    label_keys: tuple[str, ...] = ()
    #: labels stored as a list of the parts of one name (WISE's ``["Answer", "open-text"]`` is the
    #: action ``Answer-open-text``); every other label list holds separate labels
    joined_labels: tuple[str, ...] = ()
    #: the original formats (:class:`CardFormat`): the splits written in each and their typed fields,
    #: with the label vocabularies (a field's ``labels``, as ``ClassLabel`` names a Hub feature's)
    card_formats: tuple[CardFormat, ...] = ()
    #: ``extra_label_counts(split) -> rows``: label counts that are not turn labels (JWHR's
    #: reference kinds), added to ``atlas stats``
    extra_label_counts: Callable[[Any], list[dict[str, Any]]] | None = None

    def label_vocabulary(self, key: str) -> tuple[str, ...]:
        """The labels a field named ``key`` may hold, from the card formats (``()`` when none is declared)."""
        for card in self.card_formats:
            for card_field in card.fields:
                if key in (card_field.name, card_field.column) and card_field.labels:
                    return card_field.labels
        return ()


@dataclass(frozen=True)
class ChapterFacts:
    """What the book says of a dataset beyond its data: the authors' numbers, the chapter's splits,
    its column in the cross-dataset chapter (the chapter part of a :class:`DatasetSource`)."""

    #: the numbers the dataset's authors reported, each with its source (:mod:`utils.reported`)
    reported: tuple[Reported, ...] = ()
    #: how tables name the dataset's reported quantities (``"ir_baseline_r@1"`` reads "IR baseline: R@1")
    quantity_labels: Mapping[str, str] = field(default_factory=dict)
    #: the splits the dataset's own chapter computes on, the largest first (the benchmark times
    #: that one and loads the others before timing the chapter's work); empty for companions
    chapter_splits: tuple[str, ...] = ()
    #: the dataset's column in the cross-dataset chapter (``None``: not compared there)
    profile: DatasetProfile | None = None
    #: the benchmark's writer of full-size synthetic files in this format, ``"module:function"``
    #: (outside this package, imported only by the benchmark); ``None``: it measures real files
    synthetic: str | None = None
    #: what a reader should know of where the files come from (shown on the data page)
    notes: str = ""


#: The attributes a :class:`DatasetSource` reads from its parts, by part.
_PARTS = {
    "loader": tuple(name for name in Loader.__dataclass_fields__),
    "chapter": tuple(name for name in ChapterFacts.__dataclass_fields__),
}


@dataclass(frozen=True)
class DatasetSource:
    """A dataset, declared once in its folder, by concern: who and what it is (name, title, language,
    licence, citation), its :class:`Loader` (files, parser, label vocabularies) and its
    :class:`ChapterFacts` (reported numbers, chapter splits). Its renderer is found by file convention:
    ``render`` of the folder's ``render.py``.

    The parts' attributes read as the dataset's own (``source.parse`` is ``source.loader.parse``), and
    :meth:`replace` changes any of them. Everything else that depends on which datasets exist (the
    loader, the data status, the data viewer, the CLI, the cross-dataset chapter, the benchmark) reads it
    from :func:`utils.sources.registry`; see "Adding a dataset" in ``book/contributing.md``.
    """

    name: str
    title: str
    language: str
    format: str
    homepage: str
    license: str
    citation_key: str
    #: the dataset's folder: its demo samples are under ``demo/`` (laid out like the data directory),
    #: the atlas's English glosses of its text in ``glosses_en.json``, its renderer in ``render.py``
    folder: Path
    loader: Loader
    chapter: ChapterFacts = field(default_factory=ChapterFacts)
    #: whether the published book may carry the dataset's rows (the data viewer's files), and why:
    #: decided from the licence; a local build always has them
    redistributable: bool = False
    redistribution: str = "no licence granting redistribution is recorded"
    # -- the data viewer's hooks (from the folder's viewer.py)
    #: ``search_text(dialogue) -> str``: what a search matches (default: topic and turn texts)
    search_text: Callable[[Dialogue], str] | None = None
    #: the data viewer's fields (in the folder's ``viewer.py``): ``facets(dialogue)`` (label values
    #: by facet name), ``columns(dialogue)`` (numbers whose distributions it draws) and
    #: ``search_words(dialogue, glosses)`` (what it searches besides the text); see
    #: :mod:`utils.render.viewer_fields`
    facets: Callable[[Dialogue], dict[str, list[str]]] | None = None
    columns: Callable[[Dialogue], dict[str, float | None]] | None = None
    search_words: Callable[[Dialogue, Mapping[str, str]], list[str]] | None = None
    #: the book's data viewer (:mod:`utils.viewer`): ``viewer_rows(dialogues, rows) -> rows`` groups or
    #: reshapes a split's rows (KILT's examples into their dialogues); ``viewer_queries`` are example
    #: SQL as ``(title, sql, ("table.column", ...))``, offered where the columns they read exist
    viewer_rows: Callable[[Any, Any], Any] | None = None
    viewer_queries: tuple[tuple[str, str, tuple[str, ...]], ...] = ()

    def __getattr__(self, name: str) -> Any:
        # Called only for a name the dataclass does not hold: a part's attribute.
        for part, names in _PARTS.items():
            if name in names:
                return getattr(object.__getattribute__(self, part), name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def replace(self, **changes: Any) -> DatasetSource:
        """A copy with ``changes`` made, each to the part that holds it (``parse=`` to the loader)."""
        by_part: dict[str, dict[str, Any]] = {part: {} for part in _PARTS}
        own = {}
        for key, value in changes.items():
            part = next((part for part, names in _PARTS.items() if key in names), None)
            if part is None:
                own[key] = value
            else:
                by_part[part][key] = value
        for part, part_changes in by_part.items():
            if part_changes:
                own[part] = dataclasses.replace(getattr(self, part), **part_changes)
        return dataclasses.replace(self, **own)

    @property
    def render(self) -> Callable[..., Any]:
        """``render(dialogue, **options) -> SafeHTML``: ``render`` of the folder's ``render.py``."""
        return _folder_module(self.folder, "render").render

    @property
    def demo_dir(self) -> Path:
        """The dataset's demo samples, laid out like the data directory."""
        return self.folder / "demo"

    @property
    def glosses_path(self) -> Path:
        """The atlas's English glosses of the dataset's text (the file may not exist)."""
        return self.folder / "glosses_en.json"

    @property
    def language_code(self) -> str:
        """The code of :attr:`language` that :func:`utils.text.tokenizer_for` expects (``en``, ``zh``, ``ja``)."""
        if self.language not in LANGUAGE_CODES:
            raise ValueError(f"{self.name}: no tokeniser for language {self.language!r}")
        return LANGUAGE_CODES[self.language]


def _folder_module(folder: Path, module: str) -> Any:
    """``module`` of the dataset folder ``folder`` (a package of ``utils.datasets``), imported on first use."""
    # Imported when asked, not when declared: the folder's package is still being imported then.
    return importlib.import_module(f"{__package__}.datasets.{folder.name}.{module}")


def hub_file(
    repo: str,
    repo_path: str,
    local: str,
    sha256: str | None = None,
    size: int | None = None,
    *,
    revision: str,
) -> SourceFile:
    """A file of a Hugging Face Hub dataset repository, downloaded from one commit."""
    # Always a commit: a branch such as ``main`` may change under the atlas's checksums and numbers.
    return SourceFile(path=local, url=f"{HUB}/{repo}/resolve/{revision}/{repo_path}", sha256=sha256, size=size)
