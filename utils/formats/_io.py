"""Reading original files record by record, turning every fault into a :class:`DataError`.

The parsers stream: a top-level JSON list is read one element at a time (``ijson``), a JSON Lines
file one line at a time, so that a 1 GB split never sits in memory as one JSON tree.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

import ijson

from ..errors import DataError

T = TypeVar("T")

_UTF8_BOM = codecs.BOM_UTF8
#: A \uD800-\uDFFF escape that is not half of a high+low pair. JSON's grammar allows it, but the
#: string it decodes to is not valid Unicode and cannot be stored (UTF-8 refuses surrogates).
#: The pattern only flags candidates (cheaply, on raw text); :func:`_has_unpaired_surrogate` decides.
_LONE_SURROGATE = re.compile(  # both branches start with the literal "\\u", so scanning is fast
    r"\\u[dD](?:[89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|[c-fC-F][0-9a-fA-F]{2}(?<!\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}))"
)
_LONE_SURROGATE_BYTES = re.compile(_LONE_SURROGATE.pattern.encode())


class _Utf8CheckedReader(io.RawIOBase):
    """A binary stream that strips a leading BOM and raises on invalid UTF-8 with its offset."""

    def __init__(self, raw: io.BufferedReader, path: Path) -> None:
        self._raw = raw
        self._path = path
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._offset = 0
        self._first = True
        self._tail = b""
        #: Set once the stream has shown a possibly unpaired surrogate escape (see _LONE_SURROGATE).
        self.saw_surrogate_escape = False

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
        if not self.saw_surrogate_escape and _LONE_SURROGATE_BYTES.search(self._tail + chunk):
            self.saw_surrogate_escape = True
        self._tail = chunk[-16:]
        buffer[: len(chunk)] = chunk
        return len(chunk)


def iter_json_list(path: Path) -> Iterator[tuple[int, Any]]:
    """Yield ``(index, element)`` for each element of a file holding one top-level JSON list.

    Truncated or malformed JSON raises :class:`DataError` naming the element being read.
    """
    index = -1
    with open(path, "rb") as handle:
        checked = _Utf8CheckedReader(handle, path)
        stream = io.BufferedReader(checked, buffer_size=1 << 20)
        try:
            for index, element in enumerate(_list_elements(stream, path)):
                if checked.saw_surrogate_escape and _has_unpaired_surrogate(element):
                    raise DataError(_SURROGATE_MESSAGE, path=path, record=index)
                yield index, element
        except DataError:
            raise
        except UnicodeDecodeError:  # ijson's C backend on some unpaired surrogate escapes
            raise DataError(_SURROGATE_MESSAGE, path=path, record=index + 1) from None
        except ijson.common.IncompleteJSONError as exc:
            raise DataError(
                f"malformed or truncated JSON ({_short(exc)})", path=path, record=index + 1
            ) from None
        except ijson.common.JSONError as exc:
            raise DataError(f"malformed JSON ({_short(exc)})", path=path, record=index + 1) from None
    if index == -1:
        _require_list_document(path)


#: Deeper nesting than any real file has (they stay under 10 levels). Beyond it ijson's C ``items``
#: needs memory quadratic in depth (1 GB for 16 KB of brackets) and the cache's JSON encoder
#: would hit Python's recursion limit, so a deeper record is a DataError.
MAX_JSON_DEPTH = 100
_OPENERS = ("start_map", "start_array")
_CLOSERS = ("end_map", "end_array")


def _list_elements(stream: io.BufferedReader, path: Path) -> Iterator[Any]:
    """The elements of a top-level JSON list, built from ijson's C events with a depth limit.

    Same values as ``ijson.items(stream, "item")`` (which keeps a prefix string per open level)
    at about the same speed.
    """
    depth = 0
    element = 0  # index of the element being read, for error messages
    builder: ijson.common.ObjectBuilder | None = None
    for event, value in ijson.basic_parse(stream, use_float=True):
        if depth == 0:
            if event != "start_array":
                raise DataError("expected a JSON list of records at the top level", path=path)
            depth = 1
        elif event in _OPENERS:
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise DataError(f"JSON nested more than {MAX_JSON_DEPTH} levels deep", path=path, record=element)
            if depth == 2:
                builder = ijson.common.ObjectBuilder()
            builder.event(event, value)  # type: ignore[union-attr]
        elif event in _CLOSERS:
            depth -= 1
            if depth >= 1:
                builder.event(event, value)  # type: ignore[union-attr]
                if depth == 1:
                    yield builder.value  # type: ignore[union-attr]
                    builder = None
                    element += 1
        elif depth == 1:
            yield value  # a scalar element
            element += 1
        else:
            builder.event(event, value)  # type: ignore[union-attr]


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
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(
                    f"malformed or truncated JSON ({exc.msg} at column {exc.colno})",
                    path=path,
                    record=f"line {line_number}",
                ) from None
            except RecursionError:
                raise DataError("JSON nested too deeply", path=path, record=f"line {line_number}") from None
            except ValueError as exc:  # for example an integer longer than Python converts (4,300 digits)
                raise DataError(
                    f"invalid JSON value ({_short(exc)})", path=path, record=f"line {line_number}"
                ) from None
            if _LONE_SURROGATE.search(line) and _has_unpaired_surrogate(value):
                raise DataError(_SURROGATE_MESSAGE, path=path, record=f"line {line_number}")
            if line.count("[") + line.count("{") > MAX_JSON_DEPTH and _depth(value) > MAX_JSON_DEPTH:
                raise DataError(
                    f"JSON nested more than {MAX_JSON_DEPTH} levels deep", path=path, record=f"line {line_number}"
                )
            yield line_number, value


_SURROGATE_MESSAGE = "a string holds an unpaired surrogate escape (such as \\ud800), which is not valid Unicode"


def _depth(value: Any) -> int:
    """Nesting depth of a decoded JSON value (1 for a flat list or object), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, level = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children if isinstance(child, dict | list))
    return deepest


def _has_unpaired_surrogate(value: Any) -> bool:
    """True when a decoded JSON value holds a string (or key) that UTF-8 cannot encode."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    except RecursionError:
        return False  # depth is judged elsewhere; nothing here is a surrogate problem
    return False


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
