"""How a dataset is declared, and the registry of every declared dataset.

A dataset is declared once, in its own folder ``utils/datasets/<folder>/``: the folder's
``__init__.py`` lists its :class:`DatasetSource` objects in ``DATASETS``. A declaration says where
each official file lives and what it is (in the spirit of a pooch registry: location, place in the
data directory, checksum and size where known), and carries every per-dataset hook the shared
machinery calls: the parser, the renderer, the data viewer's fields, the authors' reported numbers.
:func:`registry` is built from the folders; nothing else in the package names a dataset.

The data directory layout (the ``path`` of each file) is documented in ``book/data.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import UnknownNameError
from .text import LANGUAGE_CODES

if TYPE_CHECKING:
    import pandas as pd

    from .croissant import CardFormat
    from .records import Dialogue
    from .reported import Reported

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


@dataclass(frozen=True)
class DatasetSource:
    """A dataset, declared once in its folder: its official files per split, its parser and renderer,
    its language, licence, citation, documentation and reported numbers.

    Everything else that depends on which datasets exist (the loader, the data status, the explorer,
    the CLI, the cross-dataset chapter, the benchmark) reads it from :func:`registry`; see "Adding a
    dataset" in ``book/contributing.md``.
    """

    name: str
    title: str
    language: str
    format: str
    homepage: str
    license: str
    citation_key: str
    #: split name -> official files, tried in order; a ``partial`` file is used only when no
    #: complete file is present.
    splits: dict[str, tuple[SourceFile, ...]]
    #: the dataset's folder: its demo samples are under ``demo/`` (laid out like the data directory),
    #: the atlas's English glosses of its text in ``glosses_en.json``
    folder: Path
    #: ``parse(path, *, split) -> Iterator[Dialogue]``: streams one original file, raising
    #: :class:`~utils.errors.DataError` for a malformed record (see :mod:`utils.formats`)
    parse: Callable[..., Iterator[Dialogue]]
    #: bumped whenever the parser's output changes, so cached splits are rebuilt
    parser_version: int
    #: ``render(dialogue, **options) -> SafeHTML``: one dialogue with its evidence (see :mod:`utils.render`)
    render: Callable[..., Any]
    #: split name -> the name the publisher uses, when it differs from ours.
    original_split_names: dict[str, str] = field(default_factory=dict)
    #: extra files that are not splits (for example WISE's document collection).
    extra_files: dict[str, SourceFile] = field(default_factory=dict)
    notes: str = ""
    #: whether the published book may carry the dataset's rows (the data viewer's files), and why:
    #: decided from the licence; a local build always has them
    redistributable: bool = False
    redistribution: str = "no licence granting redistribution is recorded"
    #: what one record of a split is called (a :class:`~utils.records.Dialogue` in the atlas).
    record_unit: str = "dialogues"
    #: ``record_kinds(split) -> {kind: count}`` for files whose records are not all alike (rows left
    #: blank, rows nobody labelled): the first kind is what the status panel counts as the split's
    #: size (``"labelled responses"``), the others are named beside it; ``None``: every record counts
    record_kinds: Callable[[Any], Mapping[str, int]] | None = None
    #: the splits the dataset's own chapter computes on, the largest first (the benchmark times
    #: that one and loads the others before timing the chapter's work); empty for companions
    chapter_splits: tuple[str, ...] = ()
    #: the dataset's column in the cross-dataset chapter (``None``: not compared there)
    profile: DatasetProfile | None = None
    #: the benchmark's writer of full-size synthetic files in this format, ``"module:function"``
    #: (outside this package, imported only by the benchmark); ``None``: it measures real files
    synthetic: str | None = None
    #: which field of a record is its id and whether the publisher makes it unique (``None``: the
    #: files give records no id of their own; the atlas numbers them by position)
    record_ids: RecordIds | None = None
    #: turn labels that are categories (counted by ``atlas stats``); free-text labels such as WoW's
    #: checked sentence or JWHR's citation lists are left out: each value would be its own row
    label_keys: tuple[str, ...] = ()
    #: labels stored as a list of the parts of one name (WISE's ``["Answer", "open-text"]`` is the
    #: action ``Answer-open-text``); every other label list holds separate labels
    joined_labels: tuple[str, ...] = ()
    #: the numbers the dataset's authors reported, each with its source (:mod:`utils.reported`)
    reported: tuple[Reported, ...] = ()
    #: how tables name the dataset's reported quantities (``"ir_baseline_r@1"`` reads "IR baseline: R@1")
    quantity_labels: Mapping[str, str] = field(default_factory=dict)
    #: the parser's fast path, ``parse_columns(path, *, split)``: Arrow columns instead of one object
    #: per evidence row; it must give the same dialogues as :attr:`parse` (see :mod:`utils.formats`)
    parse_columns: Callable[..., Iterator[Any]] | None = None
    #: ``companion_files(path) -> list[Path]``: other files the parser reads beside ``path`` (present
    #: or not), so that the cache is rebuilt when they change
    companion_files: Callable[[Path], list[Path]] | None = None
    #: ``search_text(dialogue) -> str``: what a search matches (default: topic and turn texts)
    search_text: Callable[[Dialogue], str] | None = None
    #: the static explorer's fields: ``facets(dialogue)`` (label values by facet name),
    #: ``columns(dialogue)`` (numbers whose distributions it draws) and ``search_words(dialogue,
    #: glosses)`` (what it searches besides the text); see :mod:`utils.render.explorer_fields`
    facets: Callable[[Dialogue], dict[str, list[str]]] | None = None
    columns: Callable[[Dialogue], dict[str, float | None]] | None = None
    search_words: Callable[[Dialogue, Mapping[str, str]], list[str]] | None = None
    #: the book's data viewer (:mod:`utils.viewer`): ``viewer_rows(dialogues, rows) -> rows`` groups or
    #: reshapes a split's rows (KILT's examples into their dialogues); ``viewer_queries`` are example
    #: SQL as ``(title, sql, ("table.column", ...))``, offered where the columns they read exist
    viewer_rows: Callable[[Any, Any], Any] | None = None
    viewer_queries: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    #: the original formats for the dataset's Croissant card (:class:`utils.croissant.CardFormat`): the
    #: splits written in each and their typed fields, with the label vocabularies
    card_formats: tuple[CardFormat, ...] = ()
    #: ``extra_label_counts(split) -> rows``: label counts that are not turn labels (JWHR's
    #: reference kinds), added to ``atlas stats``
    extra_label_counts: Callable[[Any], list[dict[str, Any]]] | None = None

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


def registry() -> Mapping[str, DatasetSource]:
    """Every declared dataset by name, in the book's order (built once from ``utils/datasets/``)."""
    from .datasets import discovered

    return discovered()


def dataset_names() -> list[str]:
    """The names :func:`utils.load` accepts."""
    return list(registry())


def get_source(dataset: str) -> DatasetSource:
    """The declaration of ``dataset``; an unknown name lists the valid ones."""
    try:
        return registry()[dataset]
    except KeyError:
        raise UnknownNameError("dataset", dataset, dataset_names()) from None


def split_names(dataset: str) -> list[str]:
    """The splits of ``dataset``."""
    return list(get_source(dataset).splits)


def get_split_files(dataset: str, split: str) -> tuple[SourceFile, ...]:
    """The official files of one split, complete ones first; unknown names list the valid ones."""
    source = get_source(dataset)
    try:
        return source.splits[split]
    except KeyError:
        raise UnknownNameError("split", split, list(source.splits), of=dataset) from None


def origin(item: SourceFile) -> str:
    """Where ``item`` comes from, for readers: its URL, its archive's URL and member, or its folder."""
    if item.url:
        return item.url
    if item.archive:
        return f"{item.archive.url} (member {item.path.rsplit('/', 1)[-1]})"
    if item.gdrive_folder:
        return f"the Google Drive folder https://drive.google.com/drive/folders/{item.gdrive_folder}"
    return "a published sample (placed by hand)"


def _url(item: SourceFile) -> str:
    """The address a reader can open for ``item`` (the archive for a member), or ``""``."""
    if item.url:
        return item.url
    if item.archive:
        return item.archive.url
    if item.gdrive_folder:
        return f"https://drive.google.com/drive/folders/{item.gdrive_folder}"
    return ""


def registry_table(dataset: str | None = None) -> pd.DataFrame:
    """Every known official file: where it goes in the data directory, where it comes from (``url``: the
    address to open), its checks (``sha256`` or, for a file pinned in a git repository, ``git blob``;
    16 hex digits each)."""
    import pandas as pd  # here, not at the top: ``import utils`` stays quick

    rows = []
    for source in [get_source(dataset)] if dataset else registry().values():
        entries = [(split, item) for split, items in source.splits.items() for item in items]
        entries += [(f"({name})", item) for name, item in source.extra_files.items()]
        for split, item in entries:
            rows.append(
                {
                    "dataset": source.name,
                    "split": split,
                    "path in data directory": item.path,
                    "official location": origin(item),
                    "url": _url(item),
                    "sha256": (item.sha256 or (item.archive.sha256 if item.archive else None) or "")[:16],
                    "git blob": (item.git_blob or "")[:16],
                    "size (bytes)": item.size,
                    "kind": "partial sample" if item.partial else "official",
                }
            )
    frame = pd.DataFrame(rows)
    frame["size (bytes)"] = frame["size (bytes)"].astype("Int64")
    return frame


def datasets_table() -> pd.DataFrame:
    """One row per dataset: title, language, format, licence, homepage and citation key."""
    import pandas as pd

    return pd.DataFrame(
        [
            {
                "name": s.name,
                "title": s.title,
                "language": s.language,
                "format": s.format,
                "licence": s.license,
                "rows published": ("yes: " if s.redistributable else "no: ") + s.redistribution,
                "homepage": s.homepage,
                "cite as": s.citation_key,
            }
            for s in registry().values()
        ]
    )
