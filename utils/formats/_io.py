"""Reading original files record by record, turning every fault into a :class:`DataError`.

The parsers stream: a top-level JSON list is read one element at a time (each decoded by the C
``json`` decoder from a window of the file), a JSON Lines file one line at a time, so that a 1 GB
split never sits in memory as one JSON tree.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import math
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar, overload

from ..errors import DataError

T = TypeVar("T")

_UTF8_BOM = codecs.BOM_UTF8
#: Characters a match of :data:`_LONE_SURROGATE` looks at, at most: a pair of ``\uXXXX`` escapes.
_ESCAPE_SPAN = 12
#: A \uD800-\uDFFF escape that is not half of a high+low pair. JSON's grammar allows it, but the
#: string it decodes to is not valid Unicode and cannot be stored (UTF-8 refuses surrogates).
#: The pattern only flags candidates (cheaply, on raw text); :func:`_has_unpaired_surrogate` decides.
_LONE_SURROGATE = re.compile(  # both branches start with the literal "\\u", so scanning is fast
    r"\\u[dD](?:[89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|[c-fC-F][0-9a-fA-F]{2}(?<!\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}))"
)


#: Bytes read at a time by :func:`iter_json_list`: a record cut by the end of the window is decoded
#: again once the next chunk is in, so the window is many records long (WoW's are ~60 KB) to keep that
#: rare, and a few megabytes so that memory stays flat.
_CHUNK_BYTES = 1 << 22
_WHITESPACE = re.compile(r"[ \t\n\r]*")  # JSON's whitespace, no more (``\s`` would take more)
#: A decode error this close to the end of the window may only mean that the record goes on past it
#: (the longest token that can be cut without an "Unterminated string" error is ``-Infinity``).
_CUT_MARGIN = 16
#: The window is refilled before decoding a record when less text than this is left in it, so that a
#: record is rarely cut: a cut costs a failed decode, and json's error computes its line and column by
#: scanning the whole window (a millisecond for each 4 MB chunk; FaithDial's train file has four).
_REFILL_BELOW = _CHUNK_BYTES // 16


def _not_json(name: str) -> Any:
    # ``NaN`` and ``Infinity`` are Python's extensions, not JSON: the file is malformed.
    raise ValueError(f"{name} is not a JSON value")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):  # JSON has no infinity; the file's number overflows a float
        raise ValueError(f"the number {_short(ValueError(text))} is too large for a float")
    return value


_DECODER = json.JSONDecoder(parse_constant=_not_json, parse_float=_finite_float)


class _TextWindow:
    """A file's text decoded a chunk at a time; ``text[pos:]`` is the part not consumed yet.

    Invalid UTF-8 raises :class:`DataError` with its byte offset; a leading BOM is dropped.
    """

    def __init__(self, handle: io.BufferedReader, path: Path) -> None:
        self._handle = handle
        self._path = path
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._bytes_read = 0
        self.text = ""
        self.pos = 0
        self.consumed = 0  # characters dropped before ``text``, for error positions
        self.eof = False
        #: ``text[:clean_until]`` holds nothing :data:`_LONE_SURROGATE` matches: the records there need
        #: no check of their own (one scan of each chunk costs half as much as one per record)
        self.clean_until = 0

    def more(self, size: int = _CHUNK_BYTES) -> bool:
        """Drop the consumed text and append ``size`` more bytes' worth; False at the end of the file."""
        if self.eof:
            return False
        chunk = self._handle.read(size)
        pending = len(self._decoder.getstate()[0])  # bytes of a character cut by the last chunk
        try:
            text = self._decoder.decode(chunk, final=not chunk)
        except UnicodeDecodeError as exc:
            raise DataError(
                f"invalid UTF-8 at byte {self._bytes_read - pending + exc.start}", path=self._path
            ) from None
        if self._bytes_read == 0 and text.startswith("\ufeff"):
            text = text[1:]
        self._bytes_read += len(chunk)
        self.eof = not chunk
        self.consumed += self.pos
        kept = len(self.text) - self.pos
        clean = max(self.clean_until - self.pos, 0)
        self.text = self.text[self.pos :] + text
        self.pos = 0
        # Scanned from a little before the new text, for an escape the chunks cut in two.
        self.clean_until = clean if clean < kept else self.clean_after(max(kept - _ESCAPE_SPAN, 0))
        return True

    def clean_after(self, start: int) -> int:
        """Where the first match of :data:`_LONE_SURROGATE` at or after ``start`` begins (the text's end if none)."""
        found = _LONE_SURROGATE.search(self.text, start)
        return found.start() if found else len(self.text)

    def next_char(self) -> str:
        """Move past whitespace and return the next character ("" at the end of the file)."""
        while True:
            self.pos = _WHITESPACE.match(self.text, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.text) or not self.more():
                return self.text[self.pos : self.pos + 1]


def iter_json_list(path: Path, *, check_depth: bool = True) -> Iterator[tuple[int, Any]]:
    """Yield ``(index, element)`` for each element of a file holding one top-level JSON list.

    Each element is decoded on its own by the C ``json`` decoder from a window of a few megabytes,
    so memory holds one record at a time. Truncated or malformed JSON raises :class:`DataError`
    naming the element being read, and so does an element nested more than :data:`MAX_JSON_DEPTH`
    levels deep, unless ``check_depth`` is false: then the caller judges depth itself (a parser
    that checks the type of every field it knows need only walk the free-form ones, with
    :func:`deeper_than`; walking whole records cost FaithDial's parser as much as decoding them).
    """
    path = Path(path)
    with open(path, "rb") as handle:
        window = _TextWindow(handle, path)
        if window.next_char() != "[":
            raise DataError("expected a JSON list of records at the top level", path=path)
        window.pos += 1
        index = 0
        if window.next_char() != "]":
            while True:
                yield index, _decode_element(window, path, index, check_depth)
                index += 1
                separator = window.next_char()
                if separator == "]":
                    break
                if separator != ",":
                    what = f"found {separator!r}" if separator else "the file ends"
                    raise DataError(
                        f"malformed or truncated JSON (expected ',' or ']' after a record, {what})",
                        path=path,
                        record=index,
                    )
                window.pos += 1
                window.next_char()
        window.pos += 1
        if window.next_char():
            raise DataError("malformed JSON (more text after the top-level list)", path=path, record=index)


#: Deeper nesting than any real file has (they stay under 10 levels). Beyond it the cache's JSON
#: encoder could hit Python's recursion limit, so a deeper record is a DataError. The depth counts
#: the top-level list of a JSON list file as one level.
MAX_JSON_DEPTH = 100


def _decode_element(window: _TextWindow, path: Path, index: int, check_depth: bool = True) -> Any:
    """Decode the element starting at ``window.pos``, reading on while it runs past the window."""
    if len(window.text) - window.pos < _REFILL_BELOW and not window.eof:
        window.more()
    while True:
        start, text = window.pos, window.text
        try:
            element, end = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError as exc:
            cut = exc.msg.startswith("Unterminated string") or exc.pos >= len(text) - _CUT_MARGIN
            if cut and window.more(max(_CHUNK_BYTES, len(text) - start)):
                continue
            raise DataError(
                f"malformed or truncated JSON ({_where(exc.msg, 'character', window.consumed + exc.pos)})",
                path=path,
                record=index,
            ) from None
        except RecursionError:
            raise DataError(f"JSON nested more than {MAX_JSON_DEPTH} levels deep", path=path, record=index) from None
        except ValueError as exc:  # an integer longer than Python converts (4,300 digits), or NaN
            raise DataError(f"invalid JSON value ({_short(exc)})", path=path, record=index) from None
        # A number that ends the window may go on in the next chunk.
        if end < len(text) or not window.more():
            break
    window.pos = end
    if end > window.clean_until:
        if _LONE_SURROGATE.search(text, start, end) and _has_unpaired_surrogate(element):
            raise DataError(_SURROGATE_MESSAGE, path=path, record=index)
        window.clean_until = window.clean_after(end)
    # Walking the record costs less than counting its brackets first (records of big files have more
    # than a hundred containers anyway). The top-level list is a level too.
    if check_depth and deeper_than(element, MAX_JSON_DEPTH - 1):
        raise DataError(f"JSON nested more than {MAX_JSON_DEPTH} levels deep", path=path, record=index)
    return element


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
                # as for JSON lists: no NaN, Infinity or overflowing floats. Without its line break, so
                # that a line cut short reports the column where it stops, not column 1 of a next line.
                value = _DECODER.decode(line.rstrip("\r\n"))
            except json.JSONDecodeError as exc:
                raise DataError(
                    f"malformed or truncated JSON ({_where(exc.msg, 'column', exc.pos + 1)})",
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
            if line.count("[") + line.count("{") > MAX_JSON_DEPTH and deeper_than(value, MAX_JSON_DEPTH):
                raise DataError(
                    f"JSON nested more than {MAX_JSON_DEPTH} levels deep", path=path, record=f"line {line_number}"
                )
            yield line_number, value


def _where(message: str, unit: str, position: int) -> str:
    """json's message with its position: "Unterminated string starting at column 70", never "at at"."""
    return f"{message} {unit} {position}" if message.endswith(" at") else f"{message} at {unit} {position}"


def lines_of_ids(path: Path, field: str, wanted: set[str]) -> dict[str, list[int]]:
    """The line numbers (1-based) of the records of a JSON Lines file whose ``field`` is one of ``wanted``.

    Ids are compared as text, as :class:`~utils.records.Dialogue` holds them. For reporting repeated
    ids: the file is read again, once, only when the loader has found some.
    """
    found: dict[str, list[int]] = {}
    for line_number, record in iter_json_lines(path):
        if isinstance(record, dict) and field in record and str(record[field]) in wanted:
            found.setdefault(str(record[field]), []).append(line_number)
    return found


_SURROGATE_MESSAGE = "a string holds an unpaired surrogate escape (such as \\ud800), which is not valid Unicode"


_CONTAINERS = frozenset((dict, list))


def all_of_type(values: Iterable[Any], kind: type) -> bool:
    """True when every value is exactly of type ``kind`` (as decoded JSON values are): a whole column of
    a parser's fields checked at C speed, the field at fault named only on the slow path."""
    return set(map(type, values)) <= {kind}


def deeper_than(value: Any, levels: int) -> bool:
    """True when a decoded JSON value nests more than ``levels`` deep (a flat list or object is 1).

    Goes one level at a time, without recursion, and passes over lists that hold no container (most
    lists of a dialogue file: sentences) at C speed, since every record of a big file is checked.
    """
    level = [value] if type(value) in _CONTAINERS else []
    for _ in range(levels):
        children: list[Any] = []
        for node in level:
            items = node.values() if type(node) is dict else node
            if not _CONTAINERS.isdisjoint(map(type, items)):
                children += [item for item in items if type(item) in _CONTAINERS]
        level = children
    return bool(level)


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


#: Formats in which a file cut inside the last cell of its last row still parses: the cell is only
#: shorter (a label "Hallucination" read as "Hallu", or lost).
_CUT_PARSES_SUFFIXES = (".csv", ".tsv")


def refuse_a_cut_last_line(path: Path) -> None:
    """Raise :class:`DataError` naming the line when a CSV or TSV file ends inside a line although its
    other lines end with a line break: the file was cut short, and its last row lost part of a cell.

    For a copy that is not the official file: some publishers' files do end without a line break
    (BEGIN's TSVs, the FaithDial audit's gold CSVs), and those are recognised by their checksum.
    """
    if Path(path).suffix.lower() not in _CUT_PARSES_SUFFIXES:
        return
    line_breaks = 0
    tail = b""
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            line_breaks += block.count(b"\n")
            tail = block
    if line_breaks and not tail.endswith(b"\n"):
        raise DataError(
            f"the file ends inside its last line, without the line break each of its other {line_breaks:,} "
            "lines ends with: it was probably cut short, and the last row lost the end of its last cell. "
            "If the file is whole, end it with a line break",
            path=path,
            record=f"line {line_breaks + 1}",
        )


def iter_csv_rows(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield ``(line_number, row)`` for each CSV row after the header (line numbers are 1-based)."""
    text = read_text(path)
    # strict: a quoted cell still open at the end of the file is an error (a file cut short), not a
    # last row holding half a sentence
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    start = 1  # the line the next row starts on; the reader counts lines consumed
    try:
        reader.fieldnames  # noqa: B018 - reads the header, so that its errors name line 1
        start = reader.line_num + 1
        for row in reader:
            if None in row:
                raise DataError(
                    "more values than columns in the header", path=path, record=f"line {reader.line_num}"
                )
            if None in row.values():  # DictReader's filler for the cells a row does not have
                given = sum(value is not None for value in row.values())
                raise DataError(
                    f"{given} values for the header's {len(row)} columns (a row cut short, or the file is)",
                    path=path,
                    record=f"line {reader.line_num}",
                )
            yield reader.line_num, row
            start = reader.line_num + 1
    except csv.Error as exc:
        if "unexpected end of data" in str(exc):
            raise DataError(
                f"a quoted cell of the row starting on line {start} is still open at the end of the file "
                "(the file is cut short)",
                path=path,
                record=f"line {start}",
            ) from None
        raise DataError(f"malformed CSV ({exc})", path=path, record=f"line {start}") from None


_ABSENT = object()


@overload
def require(
    mapping: Any,
    key: str,
    kind: type[T],
    *,
    path: Path,
    record: str | int,
    optional: bool = False,
    default: Any = None,
) -> T: ...
@overload
def require(
    mapping: Any,
    key: str,
    kind: tuple[type, ...],
    *,
    path: Path,
    record: str | int,
    optional: bool = False,
    default: Any = None,
) -> Any: ...
def require(
    mapping: Any,
    key: str,
    kind: type[T] | tuple[type, ...],
    *,
    path: Path,
    record: str | int,
    optional: bool = False,
    default: Any = None,
) -> Any:
    """``mapping[key]`` checked to be of ``kind``; a missing key or wrong type is a DataError.

    ``optional`` fields may be absent (``default`` is returned) but, when present, must have the
    right type. ``bool`` never passes for ``int``.
    """
    if not isinstance(mapping, dict):
        raise DataError(f"expected an object, found {type(mapping).__name__}", path=path, record=record)
    value = mapping.get(key, _ABSENT)
    if type(value) is kind:  # decoded JSON holds exact types: the usual case, settled at once
        return value
    if value is _ABSENT:
        if optional:
            return default
        raise DataError("required field is missing", path=path, record=record, field=key)
    if not _is_instance(value, kind):
        raise DataError(
            f"expected {_kind_name(kind)}, found {type(value).__name__}", path=path, record=record, field=key
        )
    return value


def require_items(
    values: list[Any], kind: type | tuple[type, ...], *, path: Path, record: str | int, field: str
) -> list[Any]:
    """Check every element of a list field, naming the field and the element's index."""
    # Decoded JSON holds exact built-in types, so comparing the set of types settles most lists at C
    # speed (bool is not a subclass match here); anything else is judged item by item below.
    if set(map(type, values)).issubset(kind if isinstance(kind, tuple) else (kind,)):
        return values
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
