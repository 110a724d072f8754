"""How a dataset is declared: the schema every dataset folder imports.

A dataset is declared once, in its own folder ``utils/datasets/<folder>/``: the folder's
``__init__.py`` lists its :class:`DatasetSource` objects in ``DATASETS``. A declaration says where
each official file lives and what it is (in the spirit of a pooch registry: location, place in the
data directory, checksum and size where known), its parser (imported on first use, :func:`on_use`)
and the authors' reported numbers; its renderer and the data viewer's hooks are found by file
convention in the folder, ``render.py`` and ``viewer.py`` (:meth:`DatasetSource.hook`).
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
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

from .text import LANGUAGE_CODES

if TYPE_CHECKING:
    from .records import Dialogue

__all__ = [
    "BOOLEAN",
    "CSV",
    "FLOAT",
    "HUB",
    "INTEGER",
    "JSON",
    "JSON_LINES",
    "LOWER_BOUND",
    "TAR",
    "TEXT",
    "TSV",
    "Archive",
    "CardField",
    "CardFormat",
    "ChapterFacts",
    "DatasetProfile",
    "DatasetSource",
    "Deferred",
    "Loader",
    "RecordIds",
    "Reported",
    "SourceFile",
    "hub_file",
    "number",
    "on_use",
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

    A split the publisher spreads over several files (shards such as ``train-00000-of-00002.jsonl``)
    is one ``SourceFile`` for its first file whose ``parts`` are the others, in order, each a
    ``SourceFile`` of its own (path, source, checksum, size): the split is present only when every
    part is, each part is fetched and verified as a file of its own, and the parser reads them in
    turn (:meth:`all_parts`).
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
    #: the split's further files, in order, when it is spread over several (each a file of its own,
    #: with no parts of its own); ``()`` for a split of one file
    parts: tuple[SourceFile, ...] = ()

    def __post_init__(self) -> None:
        nested = [part.path for part in self.parts if part.parts]
        if nested:
            raise ValueError(f"{self.path}: the parts {nested} have parts of their own; list every file "
                             "of the split in the first file's parts")
        paths = [part.path for part in self.all_parts()]
        repeated = sorted({path for path in paths if paths.count(path) > 1})
        if repeated:
            raise ValueError(f"{self.path}: {repeated} would be read twice; list each file of the split once")
        flagged = [part.path for part in self.parts if part.partial]
        if flagged:
            raise ValueError(f"{self.path}: the parts {flagged} are marked partial; a split's files are partial "
                             "together: mark the first file")

    def all_parts(self) -> tuple[SourceFile, ...]:
        """Every file of the split in the order the parser reads them: this one, then its ``parts``."""
        return (self, *self.parts)


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
    labels are (the loader part of a :class:`DatasetSource`, as the Hub's ``Features`` is of a dataset).

    The parser's functions and version may be given as references imported on first use
    (:func:`on_use`), so that the registry imports no parser; the dataset's attributes
    (``source.parse``) are then the functions themselves."""

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

    def __post_init__(self) -> None:
        # an extra file is read as one file (resolve_file gives one path): shards are for splits
        sharded = [name for name, item in self.extra_files.items() if item.parts]
        if sharded:
            raise ValueError(f"the extra files {sharded} have parts: only a split may be spread over several files")

    def label_vocabulary(self, key: str) -> tuple[str, ...]:
        """The labels a field named ``key`` may hold, from the card formats (``()`` when none is declared)."""
        for card in self.card_formats:
            for card_field in card.fields:
                if key in (card_field.name, card_field.column) and card_field.labels:
                    return card_field.labels
        return ()


# -- the authors' numbers ---------------------------------------------------------------------


@dataclass(frozen=True)
class Reported:
    """One number the dataset's authors reported, with where it stands (a folder's ``reported.py``
    declares them with :func:`number`; :mod:`utils.reported` compares them with what the chapters compute)."""

    dataset: str
    name: str
    value: float
    source: str
    citation_key: str
    #: the split or subset the number describes (``""`` for the whole dataset)
    split: str = ""
    unit: str = ""
    #: the ParlAI teacher(s) whose recorded count this is, comma-separated (``""`` when not a ParlAI count)
    teacher: str = ""
    #: what the number measures, where its name does not say it
    note: str = ""
    #: ``">"`` when the source gives only a lower bound ("more than 60%"): a check then holds when
    #: the reproduced value is above ``value``; ``""`` for a value.
    bound: str = ""


#: :attr:`Reported.bound` of a number the source states as "more than".
LOWER_BOUND = ">"


def number(
    dataset: str,
    name: str,
    value: float,
    src: tuple[str, str],
    split: str = "",
    unit: str = "",
    teacher: str = "",
    note: str = "",
    bound: str = "",
) -> Reported:
    """One reported number; ``src`` is ``(where on the cited page it stands, citation key)``."""
    return Reported(dataset, name, value, src[0], src[1], split, unit, teacher, note, bound)


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


#: The attributes a :class:`DatasetSource` reads from its parts, by part (each one a typed property
#: of :class:`DatasetSource` below: a test keeps the two lists the same).
_PARTS = {
    "loader": tuple(name for name in Loader.__dataclass_fields__),
    "chapter": tuple(name for name in ChapterFacts.__dataclass_fields__),
}


@dataclass(frozen=True)
class DatasetSource:
    """A dataset, declared once in its folder, by concern: who and what it is (name, title, language,
    licence, citation), its :class:`Loader` (files, parser, label vocabularies) and its
    :class:`ChapterFacts` (reported numbers, chapter splits).

    Its rendering and viewer hooks are no fields: they are found by file convention in its folder, on
    first use (:meth:`hook`). The folder's ``render.py`` holds ``render`` (:attr:`render`) and, if the
    dialogue browser's search should match more than the topic and turn texts, ``search_text``; its
    ``viewer.py`` holds what the book's data viewer adds: ``facets``, ``columns``, ``search_words``,
    ``rows`` and ``QUERIES`` (read as :attr:`facets`, :attr:`columns`, :attr:`search_words`,
    :attr:`viewer_rows` and :attr:`viewer_queries`), and ``IDENTIFYING``, ``SINGLE_LABELS``,
    ``row_texts`` (see :mod:`utils.book.viewer_fields`). Each is optional. In a folder that declares
    two datasets, the one not named as the folder puts its own part in front of a hook it does not
    share: ``news_audit`` in ``news/`` has ``audit_rows`` and ``audit_columns`` and shares ``facets``.

    The parts' attributes read as the dataset's own, through typed properties (``source.parse`` is
    ``source.loader.parse``, imported if the declaration gave it with :func:`on_use`), and
    :meth:`replace` changes any of them. Everything else that depends on which datasets exist (the
    loader, the data status, the data viewer, the CLI, the cross-dataset chapter, the benchmark)
    reads it from :func:`utils.sources.registry`; see "Adding a dataset" in ``book/contributing.md``.
    """

    name: str
    title: str
    language: str
    format: str
    homepage: str
    license: str
    citation_key: str
    #: the dataset's folder: its demo samples are under ``demo/`` (laid out like the data directory),
    #: the atlas's English glosses of its text in ``glosses_en.json``, its renderer in ``render.py``,
    #: its data viewer's hooks in ``viewer.py``
    folder: Path
    loader: Loader
    chapter: ChapterFacts = field(default_factory=ChapterFacts)
    #: whether the published book may carry the dataset's rows (the data viewer's files), and why:
    #: decided from the licence; a local build always has them
    redistributable: bool = False
    redistribution: str = "no licence granting redistribution is recorded"
    #: the publisher's own statement the licence is read from (which file or page says it), shown
    #: beside the licence on the cite page and in the Croissant card
    license_statement: str = ""
    # -- the parts' attributes, read as the dataset's own: typed, so that a misspelt one fails the type
    # check, and a reference given with on_use() imported on first read

    def _part(self, part: str, name: str) -> Any:
        value = getattr(getattr(self, part), name)
        return value.resolve() if isinstance(value, Deferred) else value

    @property
    def splits(self) -> dict[str, tuple[SourceFile, ...]]:
        """``loader.splits``."""
        return cast("dict[str, tuple[SourceFile, ...]]", self._part("loader", "splits"))

    @property
    def parse(self) -> Callable[..., Iterator[Dialogue]]:
        """``loader.parse``."""
        return cast("Callable[..., Iterator[Dialogue]]", self._part("loader", "parse"))

    @property
    def parser_version(self) -> int:
        """``loader.parser_version``."""
        return cast("int", self._part("loader", "parser_version"))

    @property
    def parse_columns(self) -> Callable[..., Iterator[Any]] | None:
        """``loader.parse_columns``."""
        return cast("Callable[..., Iterator[Any]] | None", self._part("loader", "parse_columns"))

    @property
    def companion_files(self) -> Callable[[Path], list[Path]] | None:
        """``loader.companion_files``."""
        return cast("Callable[[Path], list[Path]] | None", self._part("loader", "companion_files"))

    @property
    def extra_files(self) -> dict[str, SourceFile]:
        """``loader.extra_files``."""
        return cast("dict[str, SourceFile]", self._part("loader", "extra_files"))

    @property
    def original_split_names(self) -> dict[str, str]:
        """``loader.original_split_names``."""
        return cast("dict[str, str]", self._part("loader", "original_split_names"))

    @property
    def record_ids(self) -> RecordIds | None:
        """``loader.record_ids``."""
        return cast("RecordIds | None", self._part("loader", "record_ids"))

    @property
    def record_unit(self) -> str:
        """``loader.record_unit``."""
        return cast("str", self._part("loader", "record_unit"))

    @property
    def record_kinds(self) -> Callable[[Any], Mapping[str, int]] | None:
        """``loader.record_kinds``."""
        return cast("Callable[[Any], Mapping[str, int]] | None", self._part("loader", "record_kinds"))

    @property
    def label_keys(self) -> tuple[str, ...]:
        """``loader.label_keys``."""
        return cast("tuple[str, ...]", self._part("loader", "label_keys"))

    @property
    def joined_labels(self) -> tuple[str, ...]:
        """``loader.joined_labels``."""
        return cast("tuple[str, ...]", self._part("loader", "joined_labels"))

    @property
    def card_formats(self) -> tuple[CardFormat, ...]:
        """``loader.card_formats``."""
        return cast("tuple[CardFormat, ...]", self._part("loader", "card_formats"))

    @property
    def extra_label_counts(self) -> Callable[[Any], list[dict[str, Any]]] | None:
        """``loader.extra_label_counts``."""
        return cast("Callable[[Any], list[dict[str, Any]]] | None", self._part("loader", "extra_label_counts"))

    @property
    def reported(self) -> tuple[Reported, ...]:
        """``chapter.reported``."""
        return cast("tuple[Reported, ...]", self._part("chapter", "reported"))

    @property
    def quantity_labels(self) -> Mapping[str, str]:
        """``chapter.quantity_labels``."""
        return cast("Mapping[str, str]", self._part("chapter", "quantity_labels"))

    @property
    def chapter_splits(self) -> tuple[str, ...]:
        """``chapter.chapter_splits``."""
        return cast("tuple[str, ...]", self._part("chapter", "chapter_splits"))

    @property
    def profile(self) -> DatasetProfile | None:
        """``chapter.profile``."""
        return cast("DatasetProfile | None", self._part("chapter", "profile"))

    @property
    def synthetic(self) -> str | None:
        """``chapter.synthetic``."""
        return cast("str | None", self._part("chapter", "synthetic"))

    @property
    def notes(self) -> str:
        """``chapter.notes``."""
        return cast("str", self._part("chapter", "notes"))

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

    def hook(self, module: str, name: str, default: Any = None) -> Any:
        """The hook ``name`` of the folder's ``<module>.py`` for this dataset, imported on first use
        (``default`` when the folder has no such module or the module no such hook).

        A folder's hooks are module-level names. In a folder that declares more than one dataset, a
        dataset whose name is not the folder's (``news_audit`` in ``news/``) first looks for the name
        with its own part of its name in front (``audit_columns``; ``AUDIT_QUERIES`` for a constant),
        then for the plain name, which the folder's datasets share (``facets``).
        """
        # Looked up once per declaration: the data viewer asks for a hook per dialogue.
        known: dict[tuple[str, str], list[Any]] = self.__dict__.setdefault("_hooks_found", {})
        if (module, name) not in known:
            found = _folder_module(self.folder, module)
            names = self._hook_names(name)
            known[module, name] = [getattr(found, candidate) for candidate in names if hasattr(found, candidate)][:1]
        return known[module, name][0] if known[module, name] else default

    def _hook_names(self, name: str) -> tuple[str, ...]:
        """``name`` as this dataset's own hook (``audit_rows`` for ``news_audit`` in ``news/``), then the folder's."""
        if self.name == self.folder.name:
            return (name,)
        own = self.name.removeprefix(f"{self.folder.name}_")
        return (f"{own.upper() if name.isupper() else own}_{name}", name)

    @property
    def render(self) -> Callable[..., Any]:
        """``render(dialogue, **options) -> SafeHTML``: ``render`` of the folder's ``render.py``."""
        found = self.hook("render", "render")
        if found is None:
            # not an AttributeError: that would send the look-up to __getattr__, which loses this message
            raise ImportError(f"{self.name}: its folder {self.folder.name}/ has no render.py with a render function")
        return cast("Callable[..., Any]", found)

    @property
    def search_text(self) -> Callable[[Dialogue], str] | None:
        """``search_text(dialogue) -> str``: what a search of the dialogues matches, from the folder's
        ``render.py`` (``None``: topic and turn texts, :func:`utils.book.render.chapter_view.default_search_text`)."""
        return cast("Callable[[Dialogue], str] | None", self.hook("render", "search_text"))

    # -- the data viewer's hooks, from the folder's viewer.py (see utils.book.viewer_fields)

    @property
    def facets(self) -> Callable[[Dialogue], dict[str, list[str]]] | None:
        """``facets(dialogue)``: label values by facet name (``viewer.py``'s ``facets``)."""
        return cast("Callable[[Dialogue], dict[str, list[str]]] | None", self.hook("viewer", "facets"))

    @property
    def columns(self) -> Callable[[Dialogue], dict[str, float | None]] | None:
        """``columns(dialogue)``: numbers whose distributions the viewer draws (``viewer.py``'s ``columns``)."""
        return cast("Callable[[Dialogue], dict[str, float | None]] | None", self.hook("viewer", "columns"))

    @property
    def search_words(self) -> Callable[[Dialogue, Mapping[str, str]], list[str]] | None:
        """``search_words(dialogue, glosses)``: what the viewer searches besides the text (``viewer.py``'s
        ``search_words``)."""
        return cast("Callable[[Dialogue, Mapping[str, str]], list[str]] | None", self.hook("viewer", "search_words"))

    @property
    def viewer_rows(self) -> Callable[[Any, Any], Any] | None:
        """``rows(dialogues, rows) -> rows`` of ``viewer.py``: groups or reshapes a split's rows in the
        book's data viewer (KILT's examples into their dialogues)."""
        return cast("Callable[[Any, Any], Any] | None", self.hook("viewer", "rows"))

    @property
    def viewer_queries(self) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
        """``QUERIES`` of ``viewer.py``: example SQL as ``(title, sql, ("table.column", ...))``, offered
        where the columns they read exist."""
        return tuple(self.hook("viewer", "QUERIES", ()))

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


def _folder_module(folder: Path, module: str) -> ModuleType | None:
    """``module`` of the dataset folder ``folder`` (a package of ``utils.datasets``), imported on first
    use; ``None`` when the folder has no such module."""
    # Imported when asked, not when declared: the folder's package is still being imported then, and
    # the registry stays quick (a viewer or renderer module may import pandas).
    qualified = f"{__package__}.datasets.{folder.name}.{module}"
    try:
        return importlib.import_module(qualified)
    except ModuleNotFoundError as error:
        if error.name != qualified:
            raise  # the module exists but imports something missing: say so
        return None


@dataclass(frozen=True)
class Deferred:
    """A name of a module, imported when first used (see :func:`on_use`)."""

    #: the module's full name (``utils.datasets.<folder>.parser``)
    module: str
    #: the name in it (``parse``)
    name: str

    def resolve(self) -> Any:
        """What the name holds, the module imported now if it was not yet."""
        return getattr(importlib.import_module(self.module), self.name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)


def on_use(package: str, reference: str) -> Any:
    """``"module:name"`` of the folder ``package`` (give the folder's ``__name__``), imported when first used.

    A declaration names its parser this way (``parse=on_use(__name__, "parser:parse")``,
    ``parser_version=on_use(__name__, "parser:PARSER_VERSION")``): listing the datasets then imports
    no parser, nor the pandas, pyarrow or NumPy a parser uses, so ``atlas --help`` and the registry stay
    quick. ``source.parse`` (a :class:`DatasetSource`'s attribute) is the function itself, imported on
    that first read; ``source.loader.parse`` is the reference, which can be called as the function.
    """
    module, _, name = reference.partition(":")
    if not module or not name:
        raise ValueError(f"{reference!r}: expected 'module:name', a module of the dataset's folder and a name in it")
    return Deferred(f"{package}.{module}", name)


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
