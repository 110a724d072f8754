"""What a file's first bytes show it to be, against the format its declaration expects (issue 50).

A server may answer 200 with an error page, an image, a plain-text refusal, a JSON error object or a
compressed body it did not announce. Where the atlas has no checksum to verify a download against,
those bytes would be kept as the data file: ``atlas status`` would call it present and every load
would fail. :func:`not_the_format` tells them from a file of the expected format by its first bytes,
for the download (before the file is placed), for ``atlas status`` and for the loader. It looks for
what cannot start a data file of that format, so that a real file is never refused: nothing here
parses a whole file.

Light on purpose (no pandas, no pyarrow): ``atlas status`` uses it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

#: Formats by a file name's ending: what a declaration's file is expected to hold.
JSON_LINES, JSON, CSV, TSV = "JSON Lines", "JSON", "CSV", "TSV"
_BY_SUFFIX = {".jsonl": JSON_LINES, ".json": JSON, ".csv": CSV, ".tsv": TSV}
#: Bytes read from a file on disk to judge it (a page's prolog, doctype and comments fit).
HEAD_BYTES = 4096
#: Magic numbers of compressed or archived data, which no text format starts with.
_MAGIC = {
    b"\x1f\x8b": "gzip-compressed data (sent without saying so: no Content-Encoding)",
    b"PK\x03\x04": "a ZIP archive",
    b"BZh": "bzip2-compressed data",
    b"\xfd7zXZ\x00": "xz-compressed data",
    b"\x28\xb5\x2f\xfd": "zstd-compressed data",
    b"%PDF": "a PDF document",
    b"\x89PNG": "a PNG image",
    b"GIF8": "a GIF image",
    b"\xff\xd8\xff": "a JPEG image",
}
#: Keys an error object is made of (a JSON data record has others).
_ERROR_KEYS = frozenset(
    {
        "error",
        "errors",
        "message",
        "msg",
        "detail",
        "details",
        "code",
        "status",
        "statusCode",
        "status_code",
        "title",
        "type",
        "reason",
        "request_id",
        "requestId",
        "url",
        "path",
        "timestamp",
        "success",
        "ok",
    }
)
_ERROR_MARKS = frozenset({"error", "errors", "message", "msg", "detail", "reason"})
#: What may come before an HTML page's first element: a byte order mark, space, an XML prolog
#: (XHTML), comments, a doctype.
_HTML_PREAMBLE = re.compile(r"\A(?:\s+|<\?xml\b[^>]*>|<!--.*?-->|<!doctype\b[^>]*>)*", re.IGNORECASE | re.DOTALL)
#: An HTML page's first element, or a doctype naming HTML; an unclosed comment at the start of the
#: body counts too (no data file starts with ``<!--``).
_HTML_START = re.compile(
    r"<!doctype\s+html|<(?:html|head|body|title|meta|link|script|style|base|noscript)\b|<!--",
    re.IGNORECASE,
)
#: Elements an error page made of a fragment starts with (``<h1>Not Found</h1>``, ``<p>``, ``<div>``).
_HTML_FRAGMENT = re.compile(
    r"<(?:h[1-6]|p|div|span|pre|center|table|ul|ol|a|b|i|em|strong|br|hr|img|form|iframe|main|section|header)\b",
    re.IGNORECASE,
)
_XML = re.compile(r"<\?xml\b|<svg\b|<[A-Za-z][\w.:-]*[\s/>]", re.IGNORECASE)


def expected_format(name: str | Path) -> str | None:
    """The text format a file of this name holds (:data:`JSON_LINES`, ...), or ``None`` (an archive,
    or a name that says nothing)."""
    return _BY_SUFFIX.get(Path(name).suffix.lower())


#: What may come before an HTML page's first element: a byte order mark, space, an XML prolog
#: (XHTML), comments, a doctype.
_HTML_PREAMBLE = re.compile(r"\A(?:\s+|<\?xml\b[^>]*>|<!--.*?-->|<!doctype\b[^>]*>)*", re.IGNORECASE | re.DOTALL)
#: An HTML page's first element, or a doctype naming HTML; an unclosed comment at the start of the
#: body counts too (no data file starts with ``<!--``).
_HTML_START = re.compile(
    r"<!doctype\s+html|<(?:html|head|body|title|meta|link|script|style|base|noscript)\b|<!--",
    re.IGNORECASE,
)


def looks_like_html(head: bytes) -> bool:
    """Whether the first bytes of a body are those of an HTML page (a login, consent or error page
    sent with status 200): after a byte order mark, space, an XML prolog, comments and a doctype
    (each skipped), a doctype naming HTML or an HTML element such as ``<html>`` or ``<title>``."""
    for bom, codec in ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if head.startswith(bom):
            text = head[len(bom) :].decode(codec, errors="replace")
            break
    else:
        text = head.decode("latin-1")  # only ASCII markup is looked for: any byte is a character
    if _HTML_START.match(text.lstrip()):  # a doctype naming HTML or a comment, before skipping them
        return True
    preamble = _HTML_PREAMBLE.match(text)  # matches any text (every part of it is optional)
    return _HTML_START.match(text, preamble.end() if preamble else 0) is not None


def not_the_format(head: bytes, expected: str, *, whole: bool = False) -> str | None:
    """What ``head`` (a file's or body's first bytes) shows instead of a file in the ``expected``
    format, in a few words for a message (``"a web page (HTML): <h1>Not Found</h1>"``), or ``None``
    when it can start such a file. ``whole``: ``head`` is the entire file, so an error object that
    is all of it can be told from a first record."""
    for magic, what in _MAGIC.items():
        if head.startswith(magic):
            return what
    for bom, codec in ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if head.startswith(bom):
            return f"UTF-16 text{_markup_note(head[len(bom) :].decode(codec, errors='replace'))}, not UTF-8"
    if b"\x00" in head:
        even, odd = head[0::2].count(0), head[1::2].count(0)
        if max(even, odd) * 2 >= len(head) // 2 > 0:  # every other byte zero: UTF-16 without a BOM
            text = head.decode("utf-16-be" if even > odd else "utf-16-le", errors="replace")
            return f"UTF-16 text without a byte order mark{_markup_note(text)}, not UTF-8"
        return "binary data (it holds NUL bytes)"
    text = head.removeprefix(b"\xef\xbb\xbf").decode("utf-8", errors="replace").lstrip()
    if not text:
        return None  # empty files are refused by the loader with their own message
    if text.startswith("<"):
        return _markup(head, text)
    first_line = text.split("\n", 1)[0].strip()
    shown = _shown(first_line)
    if expected in (JSON, JSON_LINES):
        if text[0] not in "[{":
            return f"plain text, not {expected}: {shown}"
        return _error_object(text if whole else first_line if expected == JSON_LINES else "", expected, whole)
    delimiter = "," if expected == CSV else "\t"
    if delimiter not in first_line and _looks_like_prose(first_line):
        return f"plain text, not a {expected} table: {shown}"
    return None


def _markup(head: bytes, text: str) -> str:
    if looks_like_html(head) or _HTML_FRAGMENT.match(text):
        return f"a web page (HTML): {_shown(text)}"
    if _XML.match(text):
        return f"XML or SVG markup: {_shown(text)}"
    return f"markup: {_shown(text)}"


def _markup_note(text: str) -> str:
    stripped = text.lstrip()
    if stripped.startswith("<"):
        return f" holding a web page or markup: {_shown(stripped)}"
    return f": {_shown(stripped)}" if stripped else ""


def _error_object(text: str, expected: str, whole: bool) -> str | None:
    """An error object where records were expected: a JSON object made only of error keys, that is
    the whole body (or the only line of a JSON Lines body)."""
    if not text:
        return None
    if expected == JSON_LINES and not whole:
        return None  # a first record; whether it is the only one is not known from a window
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if isinstance(value, dict) and value and set(value) <= _ERROR_KEYS and set(value) & _ERROR_MARKS:
        return f"a JSON error object, not {expected} records: {_shown(json.dumps(value, ensure_ascii=False))}"
    return None


def _looks_like_prose(line: str) -> bool:
    """A plain-text refusal (``403 Forbidden``, ``Access denied.``): words and spaces, no delimiter."""
    return bool(re.fullmatch(r"[\w .,:;!?'\"()/-]*", line)) and " " in line


def _shown(text: str, limit: int = 80) -> str:
    """The start of ``text`` on one line, quoted, with unprintable characters escaped (the text is
    untrusted: it goes to a terminal)."""
    line = " ".join(text.split())
    line = line if len(line) <= limit else f"{line[:limit]}..."
    return repr(line)


def sniff_file(path: Path, expected: str | None = None) -> str | None:
    """:func:`not_the_format` for a file on disk (its first :data:`HEAD_BYTES` bytes), with the
    format its name says unless ``expected`` is given; ``None`` also for a name that says none."""
    expected = expected or expected_format(path)
    if expected is None:
        return None
    with open(path, "rb") as handle:
        head = handle.read(HEAD_BYTES + 1)
    return not_the_format(head[:HEAD_BYTES], expected, whole=len(head) <= HEAD_BYTES)
