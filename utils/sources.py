"""The registry of every declared dataset: discovery of the folders and look-ups by name.

Each folder of ``utils/datasets/`` declares its datasets with the schema of :mod:`utils.declaration`
(re-exported here, where code written before the split imports it from). :func:`registry` imports
the folders once, as ``ir_datasets`` registers each dataset once; every look-up by name
(:func:`get_source`, :func:`split_names`, :func:`get_split_files`) goes through it. The registry
imports the folders, the folders import only the schema: the layering runs one way.

The data directory layout (the ``path`` of each file) is documented in ``book/data.md``.
"""

from __future__ import annotations

import copyreg
import importlib
import pkgutil
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from . import datasets as _datasets_package
from .declaration import (
    HUB,
    Archive,
    DatasetProfile,
    DatasetSource,
    RecordIds,
    SourceFile,
    hub_file,
)
from .errors import UnknownNameError

if TYPE_CHECKING:
    import pandas as pd

    from .records import Dialogue

__all__ = [
    "HUB",
    "Archive",
    "DatasetProfile",
    "DatasetSource",
    "RecordIds",
    "SourceFile",
    "dataset_names",
    "datasets_table",
    "discovered",
    "get_source",
    "get_split_files",
    "hub_file",
    "origin",
    "registry",
    "registry_table",
    "source_of",
    "split_names",
]

#: A folder that does not say where it stands in the book's lists comes after those that do.
_LAST = 1_000


@cache
def discovered() -> Mapping[str, DatasetSource]:
    """Every dataset declared by a folder of ``utils/datasets/``, by name, in ``ORDER`` then folder name."""
    folders = []
    for info in pkgutil.iter_modules(_datasets_package.__path__):
        if not info.ispkg or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{_datasets_package.__name__}.{info.name}")
        folders.append((getattr(module, "ORDER", _LAST), info.name, module.DATASETS))
    found: dict[str, DatasetSource] = {}
    for _, folder, declared in sorted(folders, key=lambda entry: entry[:2]):
        for source in declared:
            if source.name in found:
                raise ValueError(f"utils/datasets/{folder}: the dataset name {source.name!r} is declared twice")
            found[source.name] = source
    return found


def registry() -> Mapping[str, DatasetSource]:
    """Every declared dataset by name, in the book's order (built once from ``utils/datasets/``)."""
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


def source_of(dialogue: Dialogue) -> DatasetSource:
    """The declaration ``dialogue`` was loaded from: the one it carries (:attr:`Dialogue.source
    <utils.records.Dialogue.source>`), else, for a record built by hand, its dataset's by name."""
    source = dialogue.source
    # the record layer holds it as a plain object (it imports nothing of the atlas): a declaration
    # is what the loader hands it, the only thing that sets it
    return source if isinstance(source, DatasetSource) else get_source(dialogue.dataset)


def _pickled_by_name(source: DatasetSource) -> str | tuple[Any, ...]:
    """How a declaration pickles (a record carries one): a registered declaration as its name, which
    unpickles as the registry's own object, not a copy of it; any other (a test's) whole."""
    if discovered().get(source.name) is source:
        return get_source, (source.name,)
    return object.__reduce_ex__(source, 2)


copyreg.pickle(DatasetSource, _pickled_by_name)


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
        entries = [
            (split, part) for split, items in source.splits.items() for item in items for part in item.all_parts()
        ]
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
                "licence stated in": s.license_statement,
                "rows published": ("yes: " if s.redistributable else "no: ") + s.redistribution,
                "homepage": s.homepage,
                "cite as": s.citation_key,
            }
            for s in registry().values()
        ]
    )
