"""Load a split: find the official file, parse it once, cache it, say where it came from.

For each split the loader uses, in this order: a complete official file in the data directory; a
download of it (unless offline); a known partial copy in the data directory; the project's demo
sample, with a loud warning. Every result carries a :class:`Provenance`. A split spread over several
files (a declaration's :attr:`SourceFile.parts <utils.declaration.SourceFile.parts>`) takes each of
those steps with all its files or none: it is parsed from every file in order, as one split.

Files that are plainly not the dataset are refused with a :class:`~utils.errors.DataError` rather
than loaded as a copy of it: an empty file, or one far smaller than the official file's recorded
size. Repeated record ids are checked against the dataset's declared ``record_ids``. A cache that cannot
be written never stops a load (see :mod:`utils._cache`).
"""

from __future__ import annotations

import contextlib
import gc
import html
import itertools
import json
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import _cache, _download, config
from ._cache import CacheWarning as CacheWarning  # re-exported: utils.CacheWarning
from .errors import DataError, DataUnavailableError, DownloadError, UnknownNameError
from .formats._io import lines_of_ids, refuse_a_cut_last_line
from .records import RECORD_SCHEMA, Dialogue
from .sources import DatasetSource, SourceFile, get_source, origin

# The provenance kinds are defined with the light status rows, which ``atlas status`` reads without
# this module's pandas and pyarrow; they are this module's names too (utils.loading.DEMO, ...).
from .split_files import (
    DEMO,
    OFFICIAL,
    PARTIAL,
    SYNTHETIC,
    USER_COPY,
    is_synthetic,
    missing_parts,
    not_data,
    present_parts,
)
from .text import counted

if TYPE_CHECKING:
    import datasets
    import pandas as pd  # imported where a frame is made: loading a split needs no pandas

#: Dialogues converted to Arrow at a time when a split is handed to ``datasets`` as records.
_RECORD_BATCH = 512



class DemoDataWarning(UserWarning):
    """Raised as a warning when a split falls back to the project's demo sample."""


@dataclass(frozen=True)
class Provenance:
    """Where a loaded split came from and how big it is."""

    dataset: str
    split: str
    kind: str
    path: Path
    #: ``"verified"`` (checksum matched), ``"unverified"`` (no checksum known) or ``"mismatch"``
    checksum: str
    size_bytes: int
    dialogues: int
    turns: int
    detail: str = ""
    #: every file the split was read from, in order, when it is spread over several (``path`` is the
    #: first, ``size_bytes`` their sum); ``()`` for a split of one file
    parts: tuple[Path, ...] = ()

    @property
    def is_demo(self) -> bool:
        return self.kind == DEMO

    @property
    def is_full(self) -> bool:
        """True for a complete official split (verified or a user's copy of it)."""
        return self.kind in (OFFICIAL, USER_COPY)

    def summary(self) -> str:
        counts = ""
        if self.dialogues or self.turns:  # a file of records, not a companion such as WISE's documents
            unit = get_source(self.dataset).record_unit
            counts = f"{counted(self.dialogues, unit)}, {counted(self.turns, 'turns')}, "
        text = (
            f"{self.dataset}/{self.split}: {self.kind} ({self.checksum}), {counts}"
            f"{_human_size(self.size_bytes)}, from {self._files()}"
        )
        return f"{text}. {self.detail}" if self.detail else text

    def __str__(self) -> str:
        return self.summary()

    def _files(self) -> str:
        """The file the split was read from, or ``N files: first, ..., last`` for a split in several."""
        if not self.parts:
            return config.display_path(self.path)
        shown = [config.display_path(path) for path in self.parts]
        if len(shown) > 4:  # a publisher's hundred shards would fill the banner
            shown = [shown[0], "...", shown[-1]]
        return f"{len(self.parts)} files: {', '.join(shown)}"

    def _repr_html_(self) -> str:
        css = {OFFICIAL: "official", USER_COPY: "official", PARTIAL: "partial", DEMO: "demo", SYNTHETIC: "demo"}[
            self.kind
        ]
        label = {
            OFFICIAL: "Full official data",
            USER_COPY: "Full data (a local copy)",
            PARTIAL: "Partial data",
            DEMO: "Demo sample, not the dataset",
            SYNTHETIC: "Synthetic benchmark data, not the dataset",
        }[self.kind]
        return (
            f'<div class="atlas-provenance atlas-provenance-{css}" role="note">'
            f"<strong>{html.escape(label)}</strong>: {html.escape(self.summary())}</div>"
        )


def _human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            if unit == "B":
                return f"{value:,.0f} {unit}"
            # 144 KB, not 144.0 KB: a trailing .0 reads as a count printed as a float
            return f"{value:,.1f}".removesuffix(".0") + f" {unit}"
        value /= 1024
    return f"{size} B"  # pragma: no cover


def _resolve(
    source: DatasetSource,
    split: str,
    data_directory: Path,
    download: bool,
    files: Sequence[SourceFile] | None = None,
    *,
    stacklevel: int = 3,
) -> tuple[tuple[Path, ...], str, str, str]:
    """``(paths, kind, checksum status, detail)`` of the files to parse for one split, in order (one
    path, or every part of a split spread over several files).

    ``files`` are the split's official files unless given (:func:`resolve_file` passes an extra
    file); ``stacklevel`` makes warnings point at the code that asked for the data.
    """
    dataset = source.name
    files = _split_files(source, split) if files is None else files
    complete = [item for item in files if not item.partial]
    partial = [item for item in files if item.partial]
    for item in complete:
        found = _complete_file(dataset, split, item, data_directory, stacklevel=stacklevel + 1)
        if found is not None:
            return found
    # A data directory that is not there is said as such, not taken for a folder missing one file.
    problem = config.data_dir_problem(data_directory)
    failure = ""
    if download and not config.offline() and not problem:
        fetched, failure = _fetched(dataset, split, complete, data_directory, stacklevel=stacklevel + 1)
        if fetched is not None:
            return fetched
    for item in partial:
        paths = present_parts(item, data_directory)
        if paths is not None:
            statuses = []
            for part, path in zip(item.all_parts(), paths, strict=True):
                refuse_if_not_the_dataset(dataset, split, part, path)
                statuses.append(_download.local_status(part, path, data_directory))
            return paths, PARTIAL, _all_checksums(statuses), item.description
    demo = present_parts(complete[0], source.demo_dir)
    if demo is None:
        raise DataUnavailableError(_how_to_get(dataset, split, complete[0], data_directory, problem or failure))
    why = _why_not_official(problem, failure, data_directory, _not_in(complete[0], data_directory))
    warnings.warn(
        f"{dataset}/{split}: {why}; using the project's DEMO SAMPLE, which is not the dataset. "
        "See book/data.md to get the real data.",
        DemoDataWarning,
        stacklevel=stacklevel,
    )
    detail = "A handful of records written by the atlas in the original format."
    return demo, DEMO, "unverified", f"{problem[0].upper()}{problem[1:]}. {detail}" if problem else detail


def _all_checksums(statuses: Sequence[str]) -> str:
    """The checksum status of a split from its files': ``"mismatch"`` when one differs, ``"unverified"``
    when one has nothing to be checked against, else ``"verified"``."""
    for status in ("mismatch", "unverified"):
        if status in statuses:
            return status
    return "verified"


def _complete_file(
    dataset: str, split: str, item: SourceFile, data_directory: Path, *, stacklevel: int
) -> tuple[tuple[Path, ...], str, str, str] | None:
    """What :func:`_resolve` returns for a complete file (every part of it) present in ``data_directory``;
    None when it (or one of its parts) is absent."""
    paths = present_parts(item, data_directory)
    if paths is None:
        return None
    if is_synthetic(paths[0]):
        detail = "Random text written by benchmarks.synthetic in the original format, for benchmarks."
        return paths, SYNTHETIC, "unverified", detail
    statuses, official = [], True
    for part, path in zip(item.all_parts(), paths, strict=True):
        refuse_if_not_the_dataset(dataset, split, part, path)
        status = _download.local_status(part, path, data_directory)
        # A file the atlas downloaded itself stays "official" on later loads even without a
        # published checksum; anything else unverified is the user's copy.
        official = official and (
            status == "verified" or (status == "unverified" and _download.placed_by_fetch(part, path, data_directory))
        )
        if status == "mismatch":
            warnings.warn(
                f"{path} does not match the official checksum; using it as a user copy", stacklevel=stacklevel
            )
        statuses.append(status)
    differing = [path.name for path, status in zip(paths, statuses, strict=True) if status == "mismatch"]
    detail = ""
    if differing:
        detail = (
            "Its checksum differs from the official file's."
            if len(paths) == 1
            else f"The checksum of {', '.join(differing)} differs from the official file's."
        )
    return paths, OFFICIAL if official else USER_COPY, _all_checksums(statuses), detail


def _fetched(
    dataset: str, split: str, complete: list[SourceFile], data_directory: Path, *, stacklevel: int
) -> tuple[tuple[tuple[Path, ...], str, str, str] | None, str]:
    """The first complete file whose every part downloads, as :func:`_resolve` returns it, and the last
    download's failure. The parts are then checked as if they had been there before: a download fetches
    only the missing ones, and a part already present (changed, or an error page) is the user's."""
    failure = ""
    for item in complete:
        try:
            for part in item.all_parts():
                _download.fetch_once(part, data_directory)
        except (DownloadError, DataUnavailableError) as exc:
            failure = str(exc)
            continue
        return _complete_file(dataset, split, item, data_directory, stacklevel=stacklevel + 1), failure
    return None, failure


def _not_in(item: SourceFile, data_directory: Path) -> str:
    """``"the official file is not in <data directory>"``, or for a split spread over several files,
    which of them are not."""
    parts = item.all_parts()
    if len(parts) == 1:
        return f"the official file is not in {data_directory}"
    missing = [part.path for part in missing_parts(item, data_directory)]
    verb = "is" if len(missing) == 1 else "are"
    return (
        f"{len(missing)} of the split's {len(parts)} official files ({', '.join(missing)}) {verb} not in "
        f"{data_directory}"
    )


def _why_not_official(problem: str, failure: str, data_directory: Path, not_in: str) -> str:
    """Why the demo sample stands in for the official file, for the :class:`DemoDataWarning`
    (``not_in``: :func:`_not_in`)."""
    if problem:
        return problem
    if failure:
        return f"{not_in} and could not be downloaded ({_download.short_reason(failure)})"
    if config.offline():
        return f"{not_in} (downloads are off: ${config.OFFLINE_ENV} is set)"
    return not_in


def resolve_file(
    dataset: str, name: str, *, data_dir: str | Path | None = None, download: bool = True
) -> tuple[Path, str, str, str]:
    """``(path, kind, checksum status, detail)`` of one of ``dataset``'s extra files (not a split,
    for example a document collection that conversations point into), found exactly as :func:`load`
    finds a split: the official file, a download, the demo sample with a :class:`DemoDataWarning`.

    For readers of companion files (a dataset folder's reader of its extra file); a warning points at
    the code that called that reader.
    """
    source = get_source(dataset)
    try:
        item = source.extra_files[name]
    except KeyError:
        raise UnknownNameError("extra file", name, list(source.extra_files), of=source.name) from None
    paths, kind, checksum, detail = _resolve(source, name, config.data_dir(data_dir), download, (item,), stacklevel=4)
    return paths[0], kind, checksum, detail


def _split_files(source: DatasetSource, split: str) -> tuple[SourceFile, ...]:
    """The official files of one split, complete ones first; an unknown name lists the valid ones."""
    try:
        return source.splits[split]
    except KeyError:
        raise UnknownNameError("split", split, list(source.splits), of=source.name) from None


#: A file under this share of the official file's recorded size is refused: not a different version
#: of the split (those differ by a few per cent) but a failed copy, a placeholder or another file.
FAR_SMALLER = 0.5
#: A file this small is read whole to see whether it holds anything but whitespace.
_SMALL = 4096


#: A course's students' data folder (:func:`utils.teaching.projects.write_student_data`) lists in this file the
#: files it holds in part, the held-out items left with the teacher: those are not refused as too small.
STUDENTS_COPY = ".atlas-students-copy.json"


def _a_students_copy(path: Path) -> bool:
    """Whether ``path`` is a file a course's students' data folder holds in part, on purpose."""
    import json

    for folder in list(path.resolve().parents)[:4]:
        manifest = folder / STUDENTS_COPY
        if manifest.is_file():
            try:
                listed = json.loads(manifest.read_text(encoding="utf-8")).get("partial", [])
            except (OSError, ValueError, AttributeError):
                return False
            return path.resolve().relative_to(folder.resolve()).as_posix() in listed
    return False


def refuse_if_not_the_dataset(dataset: str, split: str, item: SourceFile, path: Path) -> None:
    """Raise :class:`DataError` when ``path`` cannot be the file ``item`` describes.

    Refused: an empty file (or one of only whitespace) and, where the registry records the official
    size, a file under :data:`FAR_SMALLER` of it. The message says what was expected and where the
    official file comes from.
    """
    size = path.stat().st_size
    empty = size == 0 or (size <= _SMALL and not path.read_bytes().strip())
    received = None if empty else not_data(path)
    if received is not None:
        raise DataError(
            f"this is not the data file of {dataset}/{split}: it holds {received} (an error page or message "
            f"kept in its place?). Delete it and run `atlas fetch {dataset}` (downloads need "
            f"${config.OFFLINE_ENV} unset), or put the file from {origin(item)} there by hand.",
            path=path,
        )
    if not empty and (item.size is None or size >= item.size * FAR_SMALLER or _a_students_copy(path)):
        return
    found = "it is empty" if size == 0 else "it holds only whitespace" if empty else f"it has only {size:,} bytes"
    expected = []
    if item.size is not None:
        expected.append(f"{item.size:,} bytes")
    if item.sha256 is not None:
        expected.append(f"sha256 {item.sha256}")
    official = f"the official file has {' and '.join(expected)}" if expected else "the official file is not empty"
    what = "the published sample of" if item.partial else "the official file of"
    raise DataError(
        f"this cannot be {what} {dataset}/{split}: {found}, and {official}. Replace it with the file from "
        f"{origin(item)}, or delete it so that the atlas downloads it (downloads need "
        f"${config.OFFLINE_ENV} unset); book/data.md lists every official file.",
        path=path,
    )


def _check_record_ids(source: DatasetSource, split: str, paths: Sequence[Path], tables: _cache.CachedTables) -> None:
    """Report ids that occur more than once in a split (across all its files): a DataError or a
    warning (the dataset's ``record_ids``)."""
    dataset, rule = source.name, source.record_ids
    if rule is None or tables.dialogues.num_rows < 2:
        return
    counts = pc.value_counts(tables.dialogues.column("id"))
    repeated = [
        value
        for value, count in zip(counts.field("values").to_pylist(), counts.field("counts").to_pylist(), strict=True)
        if count > 1
    ]
    if not repeated:
        return
    lines = {path: lines_of_ids(path, rule.field, set(repeated)) for path in paths}
    shown = [f"{value!r} on {_lines_of(value, lines)}" for value in repeated[:10]]
    more = f" and {len(repeated) - 10:,} more" if len(repeated) > 10 else ""
    listing = "; ".join(shown) + more
    repeats = f"{len(repeated):,} repeated {rule.field} value{'s' if len(repeated) > 1 else ''} ({listing})"
    unit = source.record_unit
    # the file named is the first that holds a repeated id (a split's only file, for most)
    path = next((path for path in paths if repeated[0] in lines[path]), paths[0])
    if rule.unique:
        raise DataError(
            f"{repeats}; each of {dataset}'s {unit} has an id of its own, so this is not a faithful copy of "
            f"{dataset}/{split}. Replace it with the official file (book/data.md says where to get it).",
            path=path,
            field=rule.field,
        )
    warnings.warn(
        f"{path}: {repeats}; {dataset}'s original files are known to repeat {unit}, so every copy is kept. "
        "Count them by position, not by id.",
        UserWarning,
        stacklevel=3,
    )


def _lines_of(value: str, lines: Mapping[Path, Mapping[str, list[int]]]) -> str:
    """Where ``value`` stands: ``lines 3, 9`` in a split's one file, ``a.jsonl line 3, b.jsonl line 1`` in several."""
    if len(lines) == 1:
        (found,) = lines.values()
        return f"lines {', '.join(map(str, found.get(value, [])))}"
    return ", ".join(f"{path.name} line {number}" for path, found in lines.items() for number in found.get(value, []))


#: The id checks across splits already passed: (dataset, data directory, every split's file and its
#: size and modification time). A changed or replaced file makes a new key, so it is checked again.
_IDS_CHECKED: set[tuple[object, ...]] = set()


def _file_stamps(source: DatasetSource, data_directory: Path) -> list[tuple[str, int, int]]:
    """Path, size and modification time of every file a split of ``source`` may be read from."""
    stamps = []
    for files in source.splits.values():
        for item in (part for split_file in files for part in split_file.all_parts()):
            for path in (data_directory / item.path, source.demo_dir / item.path):
                with contextlib.suppress(OSError):
                    status = path.stat()
                    stamps.append((str(path), status.st_size, status.st_mtime_ns))
    return stamps


def check_ids(dataset: str, *, data_dir: str | Path | None = None) -> None:
    """Check that no record id of ``dataset`` occurs in two of its splits, where its declaration
    (``record_ids.unique_across_splits``) says each record is in one split only.

    :func:`load` reads one split and never another, so the check across files is this explicit
    call, for whatever needs it (the dataset's claims, ``atlas status``). It loads the splits present
    without downloading, compares the splits that come from the same place (two files of the data
    directory, or two demo samples), and raises :class:`~utils.errors.DataError` naming both files
    when an id is shared. A pass is remembered until a file changes.
    """
    source = get_source(dataset)
    rule = source.record_ids
    if rule is None or not rule.unique_across_splits:
        return
    data_directory = config.data_dir(data_dir)
    key = (dataset, str(data_directory), *_file_stamps(source, data_directory))
    if key in _IDS_CHECKED:
        return
    loaded: list[LoadedSplit] = []
    for split in source.splits:
        # a split that cannot be loaded says why when it is loaded itself; here it is only left out
        with warnings.catch_warnings(), contextlib.suppress(DataError, DataUnavailableError):
            warnings.simplefilter("ignore")
            loaded.append(load(dataset, split, data_dir=data_directory, download=False))
    for position, first in enumerate(loaded):
        ids = set(first._tables.dialogues.column("id").to_pylist())
        for other in loaded[position + 1 :]:
            if other.provenance.is_demo != first.provenance.is_demo:
                continue
            if other.provenance.path.resolve() == first.provenance.path.resolve():
                continue
            shared = sorted(ids & set(other._tables.dialogues.column("id").to_pylist()))
            if shared:
                more = f" and {len(shared) - 10:,} more" if len(shared) > 10 else ""
                listing = ", ".join(map(repr, shared[:10])) + more
                raise DataError(
                    f"{len(shared):,} {rule.field} value{'s' if len(shared) > 1 else ''} ({listing}) also in "
                    f"{other.split}, {other.provenance.path}: each of {dataset}'s {source.record_unit} "
                    f"is in one split only, so these are not faithful copies of {dataset}/{first.split} and "
                    f"{dataset}/{other.split}. Replace them with the official files (book/data.md says where to "
                    "get them).",
                    path=first.provenance.path,
                    field=rule.field,
                )
    _IDS_CHECKED.add(key)


def _how_to_get(dataset: str, split: str, item: SourceFile, data_directory: Path, failure: str) -> str:
    """How to get a split none of whose files can be read: each of its files (its parts) not in place."""
    missing = missing_parts(item, data_directory) or [item]
    places = ", ".join(
        f"{data_directory / part.path} (from "
        f"{part.url or (part.archive.url if part.archive else None) or f'Google Drive folder {part.gdrive_folder}'})"
        for part in missing
    )
    parts = len(item.all_parts())
    what = "the official file" if parts == 1 else f"the split's missing official files ({len(missing)} of {parts})"
    return (
        f"{dataset}/{split} is not available offline: put {what} at {places}, or set "
        f"${config.DATA_DIR_ENV} to a directory that holds {'it' if len(missing) == 1 else 'them'}, or allow "
        f"downloads (unset ${config.OFFLINE_ENV}). {failure}".strip()
    )


def data_status(data_dir: str | Path | None = None) -> pd.DataFrame:
    """What each split would be built on right now without downloading: a quick look, no hashing
    (:func:`utils.split_files.status_rows` as a frame)."""
    import pandas as pd

    from .split_files import status_rows

    return pd.DataFrame(status_rows(data_dir))


def load(
    dataset: str,
    split: str,
    *,
    data_dir: str | Path | None = None,
    download: bool = True,
) -> LoadedSplit:
    """Load one split of one dataset as a :class:`LoadedSplit` (a sequence of dialogues).

    ``dataset`` is one of :func:`utils.dataset_names`, ``split`` one of :func:`utils.split_names`.
    """
    source = get_source(dataset)  # the one look-up: unknown names fail before any file is touched
    data_directory = config.data_dir(data_dir)
    paths, kind, checksum, detail = _resolve(source, split, data_directory, download)
    try:
        tables = _parsed(source, split, paths)
    except DataError as exc:
        if kind == OFFICIAL and checksum == "unverified":  # fetched, with nothing to verify it by
            raise DataError(
                f"{exc.reason} The atlas downloaded this file without a checksum to verify it: delete it "
                f"and run `atlas fetch {dataset}` to download it again.",
                path=exc.path,
                record=exc.record,
                field=exc.field,
            ) from exc
        raise
    if kind in (USER_COPY, PARTIAL):  # after the parser, whose errors say more where it finds one
        for path in paths:
            refuse_a_cut_last_line(path)
    _check_record_ids(source, split, paths, tables)
    provenance = Provenance(
        dataset=dataset,
        split=split,
        kind=kind,
        path=paths[0],
        checksum=checksum,
        size_bytes=sum(path.stat().st_size for path in paths),
        dialogues=tables.dialogues.num_rows,
        turns=tables.turns.num_rows,
        detail=detail,
        parts=paths if len(paths) > 1 else (),
    )
    return LoadedSplit(dataset, split, provenance, tables, source=source)


def _parsed(source: DatasetSource, split: str, paths: tuple[Path, ...]) -> _cache.CachedTables:
    """The cached tables of a split read from ``paths`` (its files, in order), built when absent: the
    parser reads each file in turn, and a change to any of them (or to a companion) rebuilds them."""
    companions = [found for path in paths for found in source.companion_files(path)] if source.companion_files else []
    # the cache key names every file the split is read from: the further parts count as companions
    key = _cache.cache_key(paths[0], source.name, split, source.parser_version, [*paths[1:], *companions])
    # A fast path is taken for one file only: its passage tables and evidence batches number their
    # rows within one file, so chaining them per part would be a second format to keep right.
    fast = source.parse_columns if len(paths) == 1 else None
    size = sum(item.stat().st_size for item in (*paths, *companions) if item.is_file())
    shown = str(paths[0]) if len(paths) == 1 else f"{paths[0]} and {len(paths) - 1} more files"
    return _cache.load_or_build(
        config.cache_dir(),
        key,
        lambda: (dialogue for path in paths for dialogue in source.parse(path, split=split)),
        label=f"{source.name}/{split} ({shown})",
        fast_build=None if fast is None else lambda: fast(paths[0], split=split),
        compress_beyond=size if size < _cache.COMPRESSED_BELOW else None,
        source_bytes=size,
    )


#: Evidence rows rebuilt at a time when iterating over a split (:func:`utils._cache.walk_chunks`), and
#: the most dialogues: WoW train walked fastest at 5,000-10,000 rows.
_ITER_EVIDENCE_ROWS = 8192
_ITER_MOST_DIALOGUES = 256


#: The columns of :meth:`LoadedSplit.turns` read from the turn table (``topic`` and ``labels`` are added).
TURN_TABLE_COLUMNS = (
    "dialogue_index",
    "dialogue_id",
    "turn_index",
    "role",
    "speaker",
    "text",
    "evidence_count",
    "selected_count",
)
#: The columns of :meth:`LoadedSplit.turns`, in its order.
TURN_COLUMNS = (*TURN_TABLE_COLUMNS[:2], "topic", *TURN_TABLE_COLUMNS[2:], "labels")


class LoadedSplit(Sequence[Dialogue]):
    """A parsed split: a sequence of :class:`~utils.records.Dialogue` plus tables and provenance.

    Dialogues are rebuilt from the cached tables on access, so indexing is cheap and the whole
    split never has to sit in memory as Python objects.
    """

    def __init__(
        self,
        dataset: str,
        split: str,
        provenance: Provenance,
        tables: _cache.CachedTables,
        *,
        source: DatasetSource | None = None,
    ) -> None:
        self.dataset = dataset
        self.split = split
        self.provenance = provenance
        #: the dataset's declaration, carried so that what reads the split need not look it up by name
        self.source = get_source(dataset) if source is None else source
        self._tables = tables

    def __len__(self) -> int:
        return self._tables.dialogues.num_rows

    @overload
    def __getitem__(self, index: int) -> Dialogue: ...
    @overload
    def __getitem__(self, index: slice) -> list[Dialogue]: ...
    def __getitem__(self, index: int | slice) -> Dialogue | list[Dialogue]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step == 1:
                return self._rebuilt(start, max(start, stop))
            return [self[i] for i in range(start, stop, step)]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"dialogue index {index} out of range for {len(self)} dialogues")
        return self._dialogue(index)

    def __iter__(self) -> Iterator[Dialogue]:
        # Rebuilt a chunk at a time: column-wise conversion is several times faster than per dialogue,
        # and a chunk of some thousands of evidence rows is made, read and freed while it is still in
        # the processor's cache. Its objects are in no reference cycle, freed by reference counting
        # once the loop has moved on. Left to the cyclic collector, they made it scan every
        # chunk again and again (a third of a full-size WoW walk). Each chunk is frozen once rebuilt
        # (``gc.freeze`` moves the collector's lists, whatever their length) and thawed when the walk
        # ends, so the collector never scans them; a freed object leaves the frozen list as it goes.
        # Only when nobody else has frozen objects, since thawing thaws all.
        freezing = gc.isenabled() and gc.get_freeze_count() == 0
        passages = _cache.PassageMemo(self._tables, _cache.EVIDENCE_PASSAGE_COLUMNS)
        try:
            for start, stop in _cache.walk_chunks(self._tables, _ITER_EVIDENCE_ROWS, _ITER_MOST_DIALOGUES):
                if freezing:
                    # Paused until the chunk is frozen: re-enabled first (as rebuilding alone does), the
                    # collector's next pass, at the very next allocation, scanned the whole new chunk
                    # (on the full-size WoW train 2.3 of 10.7 s of CPU, every chunk's objects scanned once).
                    gc.disable()
                try:
                    chunk = self._rebuilt(start, stop, passages)
                finally:
                    if freezing:
                        gc.freeze()
                        gc.enable()
                chunk.reverse()
                while chunk:
                    # handed over one at a time from the end of a reversed list, so that each dialogue
                    # is freed as soon as the caller lets go of it
                    yield chunk.pop()
                self.release_pages()  # the walk is done with this chunk's pages of the cache
        finally:
            if freezing:
                gc.unfreeze()

    def __repr__(self) -> str:
        return f"<LoadedSplit {self.provenance.summary()}>"

    def _repr_html_(self) -> str:
        return self.provenance._repr_html_()

    def _dialogue(self, index: int) -> Dialogue:
        return self._rebuilt(index, index + 1)[0]

    def _rebuilt(self, start: int, stop: int, passages: _cache.PassageMemo | None = None) -> list[Dialogue]:
        """Dialogues ``start`` to ``stop - 1``, each carrying the declaration it was loaded from, so that
        what reads them (renderers, viewer hooks, counts) never looks their dataset up by name again.
        The cache stores the name alone; a dialogue whose parser gave another dataset's name keeps
        ``source`` empty and is looked up by that name (:func:`utils.sources.source_of`)."""
        dialogues = _cache.rebuild_dialogues(self._tables, start, stop, passages)
        source = self.source
        name = source.name
        for dialogue in dialogues:
            if dialogue.dataset == name:
                dialogue.source = source
        return dialogues

    # -- tables ---------------------------------------------------------------------------------

    @cached_property
    def _turn_frame(self) -> pd.DataFrame:
        # Without ``labels``: decoded, they are a Python dict per turn (about 1.5 KB per wizard turn of
        # WoW), which a frame remembered for the split's lifetime would keep; :meth:`turns` decodes
        # them for the callers that ask for them, and they go with the caller's frame.
        table = self._tables.turns
        frame = table.select(list(TURN_TABLE_COLUMNS)).to_pandas()
        topics = self._tables.dialogues.column("topic").to_pandas()
        frame.insert(2, "topic", topics.to_numpy()[frame["dialogue_index"].to_numpy()])
        self.release_pages()  # the pages of the cache read to build it (they stay in the page cache)
        return frame

    def turns(self, columns: Sequence[str] | None = None) -> pd.DataFrame:
        """One row per turn: ids, topic, role, speaker, text, evidence counts and a ``labels`` dict.

        ``columns``: only those, in that order (:data:`TURN_COLUMNS` names them all). Leaving out
        ``labels`` leaves them undecoded, which saves a Python dict per turn.
        """
        import pandas as pd

        names = list(TURN_COLUMNS if columns is None else columns)
        unknown = [name for name in names if name not in TURN_COLUMNS]
        if unknown:
            raise UnknownNameError("column", unknown[0], list(TURN_COLUMNS), of="turns()")
        frame = self._turn_frame[[name for name in names if name != "labels"]].copy()
        if "labels" in names:
            labels = _cache.json_values(self._tables.turns.column("labels"))
            self.release_pages()
            # object dtype even when empty (pandas would make an empty column float), so that .str reads it
            frame.insert(names.index("labels"), "labels", pd.Series(labels, index=frame.index, dtype=object))
        return frame

    def evidence(self, columns: Sequence[str] | None = None) -> pd.DataFrame:
        """One row per piece of evidence shown at a turn (``selected`` marks the chosen ones).

        Columns: dialogue index and id, turn index, evidence id, text, title, origin, selected (and,
        when asked for, ``meta`` as JSON text and ``passage``, the row of :meth:`arrow` ``("passages")``
        holding the text). String columns are pandas' ``str``: those whose values repeat from row to
        row (text, title, origin, dialogue id, meta) hold one Python string per distinct value,
        shared by the rows that show it; the evidence ids are Arrow-backed.
        """
        names = list(columns) if columns is not None else [n for n in _cache.EVIDENCE_COLUMNS if n != "meta"]
        # Columns of repeated values (a passage's text and title shown at many turns, the dialogue's
        # id, the channel's name) hold one Python string per distinct value, shared by every row that
        # shows it; spelt out per row as Arrow strings, the full-size WoW train's evidence took 1,360 MB
        # instead of 410 MB. The rest (the evidence ids, nearly all distinct) stay Arrow-backed: a
        # Python string per row would cost several times their bytes. split_blocks: the integer columns
        # stay apart rather than copied into one block.
        import pandas as pd

        repeated = [name for name in names if name in _cache.EVIDENCE_REPEATED_COLUMNS]
        others = [name for name in names if name not in repeated]
        stored = self._evidence_table(others, pa.large_string()).to_pandas(split_blocks=True)
        shared = {}
        for name in repeated:
            shared[name] = _shared_strings(*_cache.evidence_objects(self._tables, name))
            # the pages of the cache read so far (the frame holds copies): a resident set no larger
            # than what is built (on the full-size WoW train, up to 130 MB of mapped pages at the end)
            self.release_pages()
        # copy=False: each column stays the block it was built as (inserting one copies it)
        return pd.DataFrame(
            {name: shared[name] if name in shared else stored[name] for name in names},
            index=pd.RangeIndex(self._tables.evidence.num_rows),
            copy=False,
        )

    def evidence_texts(self, column: str = "text") -> list[str | None]:
        """The text (or ``column="title"``) of every evidence row, in table order, as a list.

        Each distinct value is one string, shared by all the rows that show it, as in :meth:`evidence`
        (each call makes its own): far less memory and time than one string per row.
        """
        if column not in ("text", "title"):
            raise UnknownNameError("passage column", column, ["text", "title"])
        shared, positions = _cache.evidence_objects(self._tables, column)
        return shared[positions].tolist()

    def _evidence_table(self, columns: Sequence[str] | None = None, text_type: Any = None) -> Any:
        names = list(columns) if columns is not None else [n for n in _cache.EVIDENCE_COLUMNS if n != "meta"]
        text_type = text_type or pa.string()
        # Only the columns asked for are spelt out: each text per row costs time and memory.
        return pa.table({name: _cache.evidence_column(self._tables, name, text_type) for name in names})

    def dialogues_frame(self) -> pd.DataFrame:
        """One row per dialogue: id, topic, number of turns and the dialogue-level metadata."""
        table = self._tables.dialogues
        frame = table.select(["id", "topic", "turn_count"]).to_pandas()
        frame["meta"] = _cache.json_values(table.column("meta"))
        return frame

    def to_hf_dataset(self, table: str = "turns") -> datasets.Dataset:
        """The ``turns`` (or ``evidence`` or ``dialogues``) table as a :class:`datasets.Dataset`; or
        ``records``: one row per dialogue with its turns, labels and evidence nested, in the atlas's
        one record schema (:data:`utils.records.RECORD_SCHEMA`, which ``atlas export`` writes too)."""
        import datasets

        if table == "records":
            rows = export_records(self, parquet=True)
            batches = []
            while batch := list(itertools.islice(rows, _RECORD_BATCH)):
                batches.append(pa.RecordBatch.from_pylist(batch, schema=RECORD_SCHEMA))
            return datasets.Dataset(pa.Table.from_batches(batches, schema=RECORD_SCHEMA))
        names = ("turns", "evidence", "dialogues")
        if table not in names:
            raise UnknownNameError("table", table, [*names, "records"])
        if table == "evidence":  # with its text and title spelt out per row, as a dataset of rows expects
            return datasets.Dataset(self._evidence_table(_cache.EVIDENCE_COLUMNS))
        return datasets.Dataset(self.arrow(table))

    def raw_texts(self, rows: Sequence[int]) -> list[bytes]:
        """The ``raw`` JSON texts (UTF-8) of the turns at ``rows``, positions in the turns table.

        Only the compressed batches holding those rows are decompressed, each once while the rows stay
        in it (give them in ascending order): ``arrow("turns")`` decompresses every turn's, 35 MB for a
        half-size synthetic WoW held-out split, whose memory Arrow's pool then kept.
        """
        try:
            return [text for row in rows for text in self._tables.raw.texts(int(row), int(row) + 1)]
        finally:
            # Done with them: the batch decompressed last (5-10 MB for a half-size synthetic held-out
            # split) would stay with the split for good, and the compressed pages read stay mapped.
            self._tables.raw.forget()
            self.release_pages()

    def release_pages(self) -> None:
        """Drop the pages of the cache this process has read from its resident memory.

        The tables of :meth:`arrow` are memory-mapped: a scan over a full-size split's column leaves
        each page it read counted as this process's memory until it exits or the kernel reclaims
        the page (up to the whole cache file). The pages stay in the kernel's page cache, and
        reading them again maps them back, without a disk read while they stay there. :meth:`turns`
        and :meth:`evidence` call this once their frame is built; call it after a scan of your own
        over :meth:`arrow`. A no-op where the system cannot, and for a split held in memory (when
        its cache could not be written).
        """
        _cache.release_pages(self._tables)

    def arrow(self, table: str = "turns", columns: Sequence[str] | None = None) -> Any:
        """The underlying memory-mapped :class:`pyarrow.Table`: ``turns``, ``evidence``, ``dialogues`` or
        ``passages`` (only ``columns``, when given). A small split whose tables outgrew its file was
        cached compressed: its tables are held in memory instead (:data:`utils._cache.COMPRESSED_BELOW`),
        as are those of a split parsed at every load (:data:`utils._cache.storage.IN_MEMORY_BELOW`).

        Evidence text lives in the ``passages`` table (``text``, ``title``, ``meta``), each distinct one
        stored once: an ``evidence`` row holds ``passage``, the row it shows; :meth:`evidence` spells
        them out. In the ``evidence`` table, ``dialogue_id`` and ``origin`` are dictionary-encoded (the
        former over the dialogues' ids, by ``dialogue_index``); the ``turns`` table's ``raw`` is
        decompressed when asked for, in memory rather than mapped: leave it out of ``columns`` when a
        computation does not read it.
        """
        names = ("turns", "evidence", "dialogues", "passages")
        if table not in names:
            raise UnknownNameError("table", table, list(names))
        stored = {"turns": self._tables.turns, "evidence": self._tables.evidence}.get(table)
        if stored is not None and columns is not None and set(columns) <= set(stored.column_names):
            result = stored  # what is asked for is stored as it is: nothing decompressed or spelt out
        elif table == "turns":
            result = _cache.turns_table(self._tables)
        elif table == "evidence":
            result = _cache.evidence_table(self._tables)
        else:
            result = getattr(self._tables, table)
        if columns is None:
            return result
        unknown = [name for name in columns if name not in result.column_names]
        if unknown:
            raise UnknownNameError("column", unknown[0], result.column_names, of=f"the {table} table")
        return result.select(list(columns))


def _shared_strings(shared: np.ndarray, positions: np.ndarray) -> Any:
    """A string column of one Python string per distinct value (``shared``, as
    :func:`utils._cache.objects_and_missing` lays them out), shared by every row that shows it
    (``positions``, ``-1`` for a missing one), in pandas' own string dtype.

    Python-backed (``pd.StringDtype("python", na_value=np.nan)`` in pandas 3): its dtype is ``str``
    like the Arrow-backed default and behaves alike, but holds a pointer per row rather than the bytes.
    Where pandas keeps strings as plain objects (pandas 2 by default), an object array.
    """
    import pandas as pd

    inferred = pd.Series(["a"]).dtype  # the string dtype pandas gives text of its own accord
    dtype: Any = None
    try:
        dtype = pd.StringDtype("python", na_value=inferred.na_value) if isinstance(inferred, pd.StringDtype) else None
    except TypeError:  # pandas 2.1 and 2.2 under ``future.infer_string``: no Python-backed twin of their dtype
        dtype = None
    if dtype is None:
        return shared[positions]
    # Checked as strings once per distinct value; ``take`` hands the rows the same objects.
    return pd.array(shared, dtype=dtype).take(positions)


#: What the statistics take for one split, for every dataset: a :class:`LoadedSplit`, or the same
#: dialogues already in a list (a chapter may materialise a small split once; a LoadedSplit is a
#: sequence of dialogues, so both work wherever this is asked for).
Dialogues = LoadedSplit | Sequence[Dialogue]


def export_records(split: LoadedSplit, *, parquet: bool = False) -> Iterator[dict[str, Any]]:
    """The split's dialogues as records of :data:`~utils.records.RECORD_SCHEMA`; with
    ``parquet``, ``meta`` fields as JSON text and labels as a list of ``{name, values}``."""
    provenance = split.provenance
    source = {
        "kind": provenance.kind,
        "checksum": provenance.checksum,
        # $ATLAS_DATA_DIR/<path> (or utils/... for a demo sample), as the terminal shows it: an
        # exported file is shared, and the exporter's home folder is not the reader's business;
        # every file, in order, for a split spread over several ("; " between them)
        "source": "; ".join(config.display_path(path) for path in provenance.parts or (provenance.path,)),
        "size_bytes": provenance.size_bytes,
        "dialogues": provenance.dialogues,
        "turns": provenance.turns,
    }

    def meta(value: dict[str, Any]) -> Any:
        return json.dumps(value, ensure_ascii=False, sort_keys=True) if parquet else value

    def labels(value: dict[str, list[str]]) -> Any:
        if parquet:
            return [{"name": key, "values": list(values)} for key, values in value.items()]
        return {key: list(values) for key, values in value.items()}

    for index, dialogue in enumerate(split):
        yield {
            "dataset": split.dataset,
            "split": split.split,
            "index": index,
            "id": str(dialogue.id),
            "topic": dialogue.topic,
            "meta": meta(dialogue.meta),
            "turns": [
                {
                    "index": turn.index,
                    "role": turn.role,
                    "speaker": turn.speaker,
                    "text": turn.text,
                    "labels": labels(turn.labels),
                    "evidence": [
                        {
                            "id": item.id,
                            "title": item.title,
                            "origin": item.origin,
                            "text": item.text,
                            "selected": item.selected,
                            "meta": meta(item.meta),
                        }
                        for item in turn.evidence
                    ],
                }
                for turn in dialogue.turns
            ],
            "provenance": source,
        }


def parse_file(dataset: str, path: str | Path, split: str) -> Iterator[Dialogue]:
    """Parse one original file of ``dataset`` directly, without the loader or the cache; each
    dialogue carries the declaration that parsed it, as the loader's do."""
    source = get_source(dataset)
    for dialogue in source.parse(Path(path), split=split):
        if dialogue.dataset == source.name:
            dialogue.source = source
        yield dialogue
