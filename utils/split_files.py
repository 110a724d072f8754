"""Which file each split would be read from, and what is in place: the quick look of ``atlas status``.

Light on purpose (issue 50): listing the splits needs the registry, the data directory and a look at
each file's first bytes, not pandas or pyarrow (:func:`utils.data_status` wraps the same rows in a
frame). Nothing is hashed and nothing is downloaded.
"""

from __future__ import annotations

from pathlib import Path

from . import config
from ._sniff import sniff_file
from .sources import SourceFile, registry

#: Provenance kinds, from most to least trustworthy.
OFFICIAL = "official"
USER_COPY = "user copy"
PARTIAL = "partial"
DEMO = "demo sample"
#: Full-size random text from ``benchmarks.synthetic``, for benchmarks: never the dataset.
SYNTHETIC = "synthetic"
#: The status of a split whose complete official file is in place.
PRESENT = "official file present"
#: The status of a split whose file is in place but is not in its format: an error page or message
#: that a server sent with status 200 and a download without a checksum kept (:mod:`utils._sniff`).
NOT_DATA = "not the data file"


def is_synthetic(path: Path) -> bool:
    """True for a file that ``benchmarks.synthetic`` wrote (its marker file sits beside it)."""
    return (path.parent / config.SYNTHETIC_MARKER).is_file()


def status_rows(data_dir: str | Path | None = None) -> list[dict[str, str]]:
    """One ``{"dataset", "split", "status", "path"}`` per split, in the registry's order: the file a
    split would be read from (or, when none is complete, its first official file's first part that is
    missing) and its status (:data:`PRESENT`, :data:`PARTIAL`, :data:`DEMO`, :data:`SYNTHETIC`,
    :data:`NOT_DATA`, ``"missing"`` or ``"no data directory"``). A split spread over several files
    (:attr:`SourceFile.parts <utils.declaration.SourceFile.parts>`) is present only with every part."""
    data_directory = config.data_dir(data_dir)
    rows = []
    for dataset, source in registry().items():
        for split, files in source.splits.items():
            found = next((item for item in files if present_parts(item, data_directory)), None)
            if found is not None:
                status, path = _found_status(found, data_directory)
            else:
                if config.data_dir_problem(data_directory):
                    status = "no data directory"
                else:
                    status = DEMO if present_parts(files[0], source.demo_dir) else "missing"
                path = data_directory / (missing_parts(files[0], data_directory) or [files[0]])[0].path
            rows.append({"dataset": dataset, "split": split, "status": status, "path": str(path)})
    return rows


def _found_status(item: SourceFile, data_directory: Path) -> tuple[str, Path]:
    """The status of a split whose every file of ``item`` is in ``data_directory``, and the file it names."""
    paths = [data_directory / part.path for part in item.all_parts()]
    if is_synthetic(paths[0]):
        return SYNTHETIC, paths[0]
    refused = next((path for path in paths if not_data(path)), None)
    if refused is not None:
        return NOT_DATA, refused
    return (PARTIAL if item.partial else PRESENT), paths[0]


def present_parts(item: SourceFile, directory: Path) -> tuple[Path, ...] | None:
    """Where every file of ``item`` (its :meth:`~utils.declaration.SourceFile.all_parts`) sits in
    ``directory``, in order; ``None`` unless all of them are there."""
    paths = tuple(directory / part.path for part in item.all_parts())
    return paths if all(path.is_file() for path in paths) else None


def missing_parts(item: SourceFile, directory: Path) -> list[SourceFile]:
    """The files of ``item`` (its parts) that are not in ``directory``, in order."""
    return [part for part in item.all_parts() if not (directory / part.path).is_file()]


def not_data(path: Path) -> str | None:
    """What the file at ``path`` holds instead of the format its name says, or ``None``
    (:func:`utils._sniff.sniff_file`; a file that cannot be read is left to the loader to report)."""
    try:
        return sniff_file(path)
    except OSError:
        return None


def dataset_lines(data_dir: str | Path | None = None) -> list[str]:
    """One line per dataset saying what each split would be built on, for a build's log:
    ``"<dataset>: train official file present, valid_seen demo sample, ..."`` (:func:`status_rows`)."""
    by_dataset: dict[str, list[str]] = {}
    for row in status_rows(data_dir):
        by_dataset.setdefault(row["dataset"], []).append(f"{row['split']} {row['status']}")
    return [f"{dataset}: {', '.join(splits)}" for dataset, splits in by_dataset.items()]
