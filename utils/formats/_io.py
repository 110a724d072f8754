"""Reading original files record by record, turning every fault into a :class:`DataError`.

The parsers stream: a top-level JSON list is read one element at a time (``ijson``), a JSON Lines
file one line at a time, so that a 1 GB split never sits in memory as one JSON tree.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

import ijson

from ..errors import DataError

T = TypeVar("T")

_UTF8_BOM = codecs.BOM_UTF8


class _Utf8CheckedReader(io.RawIOBase):
    """A binary stream that strips a leading BOM and raises on invalid UTF-8 with its offset."""

    def __init__(self, raw: io.BufferedReader, path: Path) -> None:
        self._raw = raw
        self._path = path
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._offset = 0
        self._first = True

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        chunk = self._raw.read(len(buffer))
        if self._first:
            self._first = False
            if chunk.startswith(_UTF8_BOM):
                chunk = chunk[len(_UTF8_BOM) :]
                self._offset += len(_UTF8_BOM)
        try:
            self._decoder.decode(chunk, final=not chunk)
        except UnicodeDecodeError as exc:
            raise DataError(
                f"invalid UTF-8 at byte {self._offset + exc.start}", path=self._path
            ) from None
        self._offset += len(chunk)
        buffer[: len(chunk)] = chunk
        return len(chunk)


def iter_json_list(path: Path) -> Iterator[tuple[int, Any]]:
    """Yield ``(index, element)`` for each element of a file holding one top-level JSON list.

    Truncated or malformed JSON raises :class:`DataError` naming the element being read.
    """
    index = -1
    with open(path, "rb") as handle:
        stream = io.BufferedReader(_Utf8CheckedReader(handle, path), buffer_size=1 << 20)
        try:
            for index, element in enumerate(ijson.items(stream, "item", use_float=True)):
                yield index, element
        except DataError:
            raise
        except ijson.common.IncompleteJSONError as exc:
            raise DataError(
                f"malformed or truncated JSON ({_short(exc)})", path=path, record=index + 1
            ) from None
        except ijson.common.JSONError as exc:
            raise DataError(f"malformed JSON ({_short(exc)})", path=path, record=index + 1) from None
    if index == -1:
        _require_list_document(path)


def _require_list_document(path: Path) -> None:
    """An empty result is fine only for a literal ``[]``; anything else is not a JSON list."""
    text = read_text(path).strip()
    if text != "[]" and not (text.startswith("[") and json.loads(text) == []):
        raise DataError("expected a JSON list of records at the top level", path=path)


def iter_json_lines(path: Path) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, object)`` for each non-blank line of a JSON Lines file (1-based)."""
    with open(path, "rb") as handle:
        for line_number, raw_line in enumerate(handle, start=1):
            if line_number == 1 and raw_line.startswith(_UTF8_BOM):
                raw_line = raw_line[len(_UTF8_BOM) :]
            try:
                line = raw_line.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise DataError(
                    f"invalid UTF-8 at byte {exc.start} of the line", path=path, record=f"line {line_number}"
                ) from None
            if not line.strip():
                continue
            try:
                yield line_number, json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(
                    f"malformed or truncated JSON ({exc.msg} at column {exc.colno})",
                    path=path,
                    record=f"line {line_number}",
                ) from None
            except RecursionError:
                raise DataError("JSON nested too deeply", path=path, record=f"line {line_number}") from None


def read_text(path: Path) -> str:
    """The whole file as text (BOM removed); invalid UTF-8 raises :class:`DataError`."""
    data = Path(path).read_bytes()
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"invalid UTF-8 at byte {exc.start}", path=path) from None


def iter_csv_rows(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield ``(line_number, row)`` for each CSV row after the header (line numbers are 1-based)."""
    text = read_text(path)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        for row in reader:
            if None in row:
                raise DataError(
                    "more values than columns in the header", path=path, record=f"line {reader.line_num}"
                )
            yield reader.line_num, row
    except csv.Error as exc:
        raise DataError(f"malformed CSV ({exc})", path=path, record=f"line {reader.line_num}") from None


def require(
    mapping: Any,
    key: str,
    kind: type[T] | tuple[type, ...],
    *,
    path: Path,
    record: str | int,
    optional: bool = False,
    default: Any = None,
) -> T:
    """``mapping[key]`` checked to be of ``kind``; a missing key or wrong type is a DataError.

    ``optional`` fields may be absent (``default`` is returned) but, when present, must have the
    right type. ``bool`` never passes for ``int``.
    """
    if not isinstance(mapping, dict):
        raise DataError(f"expected an object, found {type(mapping).__name__}", path=path, record=record)
    if key not in mapping:
        if optional:
            return default
        raise DataError("required field is missing", path=path, record=record, field=key)
    value = mapping[key]
    if not _is_instance(value, kind):
        raise DataError(
            f"expected {_kind_name(kind)}, found {type(value).__name__}", path=path, record=record, field=key
        )
    return value


def require_items(
    values: list[Any], kind: type | tuple[type, ...], *, path: Path, record: str | int, field: str
) -> list[Any]:
    """Check every element of a list field, naming the field and the element's index."""
    for position, value in enumerate(values):
        if not _is_instance(value, kind):
            raise DataError(
                f"expected {_kind_name(kind)}, found {type(value).__name__}",
                path=path,
                record=record,
                field=f"{field}[{position}]",
            )
    return values


def _is_instance(value: Any, kind: type | tuple[type, ...]) -> bool:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        return False
    return isinstance(value, kinds)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {dict: "an object", list: "a list", str: "a string", int: "an integer", float: "a number"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(item, item.__name__) for item in kinds)


def _short(exc: Exception) -> str:
    text = str(exc)
    return text if len(text) <= 120 else text[:117] + "..."
