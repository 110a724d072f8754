"""The project's exceptions.

Every problem with a data file is a :class:`DataError` that names the file, the record (line number,
list index or id) and the field, so that a user can open the file and find the fault.
"""

from __future__ import annotations

from pathlib import Path


class AtlasError(Exception):
    """Base class of every error raised on purpose by :mod:`utils`."""


class DataError(AtlasError, ValueError):
    """A data file is malformed: truncated, wrongly typed, missing a field, or not valid UTF-8."""

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        record: str | int | None = None,
        field: str | None = None,
    ) -> None:
        self.path = None if path is None else str(path)
        self.record = record
        self.field = field
        self.reason = message
        where = []
        if self.path is not None:
            where.append(f"file {self.path}")
        if record is not None:
            where.append(f"record {record}")
        if field is not None:
            where.append(f"field {field!r}")
        super().__init__(f"{', '.join(where)}: {message}" if where else message)


class UnknownNameError(AtlasError, KeyError):
    """A dataset, split or option name that does not exist; the message lists the valid ones."""

    def __init__(self, kind: str, name: str, valid: list[str] | tuple[str, ...], *, of: str = "") -> None:
        self.kind = kind
        self.name = name
        self.valid = list(valid)
        owner = f" of {of}" if of else ""  # "unknown split 'trian' of <dataset>": the name next to its kind
        super().__init__(f"unknown {kind} {name!r}{owner}; choose one of: {', '.join(self.valid)}")

    def __str__(self) -> str:  # KeyError would otherwise print the repr of the message
        return str(self.args[0])


class DataUnavailableError(AtlasError, FileNotFoundError):
    """The official files are not in the data directory and cannot be downloaded right now."""


class DownloadError(AtlasError, OSError):
    """A download failed or did not verify; nothing was left in the cache."""


class SlowPathWarning(UserWarning):
    """A dataset's compiled parsing code is not built, so its pure-Python equivalent runs: the same
    records, more slowly."""
