"""HTML building blocks shared by the dataset renderers.

Dataset text is untrusted: every string taken from a dataset goes through :func:`esc` (or a helper
that calls it) before it becomes HTML. Helpers here take plain text and return safe HTML; the only
raw HTML they accept is HTML built by other helpers in this package. Escaping is markupsafe's (the
library Jinja and Sphinx escape with) and JSON for a ``<script>`` element is Jinja's
``htmlsafe_json_dumps``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from importlib import resources
from typing import Any

from markupsafe import Markup, escape

_WORD = re.compile(r"\w+", re.UNICODE)


class SafeHTML(Markup):
    """HTML produced by this package (already escaped); shows as HTML in Jupyter.

    A :class:`markupsafe.Markup`: plain text added to it (``+``, ``%``, ``.format``) is escaped,
    and templates that know markupsafe insert it as it is.
    """

    __slots__ = ()

    def _repr_html_(self) -> str:
        # Shown on its own (a notebook output or a book page): bring the stylesheet along.
        return stylesheet() + str(self)


def esc(text: object) -> str:
    """Escape any value for use in HTML text or a quoted attribute (``None`` gives ``""``).

    Always escapes, even a value that says it is HTML (has ``__html__``): a dataset value is text.
    Returns a plain ``str``, so the helpers' string building stays plain concatenation. A value
    holding bidirectional controls is isolated (:func:`isolate_bidi`).
    """
    if text is None:
        return ""
    text = str(text)
    if not _NEEDS_ESCAPING.search(text):  # most dataset strings: nothing to change, returned as they are
        return text
    return str(escape(isolate_bidi(text)))


#: Bidirectional embeddings and overrides (LRE, RLE, LRO, RLO), closed by PDF; isolates (LRI, RLI,
#: FSI), closed by PDI.
_EMBEDDINGS, _PDF = "\u202a\u202b\u202d\u202e", "\u202c"
_ISOLATES, _PDI = "\u2066\u2067\u2068", "\u2069"
_BIDI_RANGES = "\u202a-\u202e\u2066-\u2069"
_BIDI_CONTROLS = re.compile(f"[{_BIDI_RANGES}]")
#: What :func:`esc` changes: the characters markupsafe escapes, and the bidirectional controls.
_NEEDS_ESCAPING = re.compile(f"[&<>'\"{_BIDI_RANGES}]")


def isolate_bidi(text: str) -> str:
    """``text`` unchanged unless it holds bidirectional controls; then each embedding, override or
    isolate it leaves open is closed at its end and the whole is wrapped in FSI ... PDI.

    A dataset string can then reorder only itself: an RLO at the end of an answer sentence no longer
    turns the atlas's own citation markers, or the next sentence, around. The controls stay (they are
    part of the data, and the terminal output marks them); this works in attributes too, where a
    ``<bdi>`` element could not go.
    """
    if not _BIDI_CONTROLS.search(text):
        return text
    stack: list[str] = []  # open controls, by what closes them, innermost last (as in UAX #9)
    for char in text:
        if char in _EMBEDDINGS:
            stack.append(_PDF)
        elif char == _PDF and stack and stack[-1] == _PDF:
            stack.pop()
        elif char in _ISOLATES:
            stack.append(_PDI)
        elif char == _PDI and _PDI in stack:
            while stack.pop() != _PDI:  # a PDI closes the embeddings opened inside its isolate too
                pass
    return "\u2068" + text + "".join(reversed(stack)) + _PDI


def json_for_script(value: Any) -> str:
    """``value`` as JSON that is safe to place inside an HTML ``<script>`` element.

    Jinja's ``htmlsafe_json_dumps`` writes ``<``, ``>``, ``&`` and ``'`` as ``\\u003c``-style escapes
    (valid JSON, decoded by ``JSON.parse``), so no string can close the element; U+2028/2029 are
    escaped as well because older JavaScript parsers treat them as line ends.
    """
    # Imported here: importing jinja2 takes longer than the rest of the dataset registry, which
    # imports this module to load any split (13 ms of a first load's 0.2 s for FaithDial's train).
    from jinja2.utils import htmlsafe_json_dumps

    text = str(htmlsafe_json_dumps(value, ensure_ascii=False, separators=(",", ":")))
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def stylesheet() -> str:
    """The atlas's CSS as a ``<style>`` element (:func:`stylesheet_css`). Notebook outputs and the
    chapters' pages carry it with each rendering."""
    return f"<style>{stylesheet_css()}</style>"


def stylesheet_css() -> str:
    """The atlas's CSS rules: its own (``atlas.css``), then every registered dataset folder's
    ``render.css``. The book's build serves the same text as a file, for the renderings the data
    viewer opens on pages that carry no notebook output (``book/viewer/*.md``)."""
    # Deferred: the registry imports the dataset folders, whose renderers import this module.
    from utils.folder_files import dataset_css

    css = resources.files(__package__).joinpath("atlas.css").read_text(encoding="utf-8")
    return css + dataset_css()


def highlight_words(
    text: str,
    words: set[str],
    normalise: Callable[[str], str] = str.lower,
    skip: frozenset[str] | set[str] | None = None,
) -> str:
    """Escape ``text`` and wrap each word whose normalised form is in ``words`` in ``<mark>``.

    Words in ``skip`` (default: scikit-learn's English stop words) are never marked: "a", "to" and
    "of" are shared by almost any two English sentences, and marking them hides the overlap that
    says something.
    """
    if skip is None:
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

        skip = ENGLISH_STOP_WORDS
    # The text between marked words is escaped in one call, not word by word: escaping is per
    # character, so the result is the same, and a call costs more than the characters it escapes.
    pieces, plain_from = [], 0
    for match in _WORD.finditer(text):
        word = match.group(0)
        normalised = normalise(word)
        if normalised in words and normalised not in skip:
            pieces.append(esc(text[plain_from : match.start()]))
            pieces.append(f'<mark class="atlas-shared">{esc(word)}</mark>')
            plain_from = match.end()
    pieces.append(esc(text[plain_from:]))
    return "".join(pieces)


def highlight_chars(text: str, chars: set[str]) -> str:
    """Escape ``text`` and mark each character found in ``chars`` (for Chinese and Japanese)."""
    pieces, plain_from = [], 0  # unmarked runs escaped in one call, as in highlight_words
    for position, char in enumerate(text):
        if char in chars and not char.isspace():
            pieces.append(esc(text[plain_from:position]))
            pieces.append(f'<mark class="atlas-shared">{esc(char)}</mark>')
            plain_from = position + 1
    pieces.append(esc(text[plain_from:]))
    return "".join(pieces)


def badge(label: str, kind: str = "") -> str:
    """A small label such as a BEGIN class or an intent."""
    css = f"atlas-badge atlas-badge-{_css_token(kind)}" if kind else "atlas-badge"
    return f'<span class="{css}">{esc(label)}</span>'


def sr_only(text: str) -> str:
    """Text for screen readers only (hidden on screen by the ``atlas-sr`` class): says in words what
    a colour or a border shows, such as which evidence was selected."""
    return f'<span class="atlas-sr">{esc(text)}</span>'


def turn_block(role: str, speaker: str, body_html: str, extra_html: str = "") -> str:
    """One turn as a chat bubble; ``role`` is the normalised role, ``speaker`` the original string."""
    return (
        f'<div class="atlas-turn atlas-role-{_css_token(role)}">'
        f'<div class="atlas-speaker">{esc(speaker)}</div>'
        f'<div class="atlas-text">{body_html}</div>{extra_html}</div>'
    )


def details(summary: str, body_html: str, *, open_: bool = False) -> str:
    """A collapsible block (works without JavaScript)."""
    opening = '<details class="atlas-details" open>' if open_ else '<details class="atlas-details">'
    return f"{opening}<summary>{esc(summary)}</summary>{body_html}</details>"


def bullet_list(items_html: Iterable[str], css: str = "atlas-evidence") -> str:
    """A ``<ul>`` of already-safe HTML items."""
    return f'<ul class="{_css_token(css)}">' + "".join(f"<li>{item}</li>" for item in items_html) + "</ul>"


def dialogue_frame(title: str, body_html: str, note: str = "") -> SafeHTML:
    """The outer frame of one rendered dialogue, with an optional provenance note."""
    note_html = f'<div class="atlas-note">{esc(note)}</div>' if note else ""
    return SafeHTML(
        f'<div class="atlas-dialogue"><div class="atlas-title">{esc(title)}</div>{note_html}{body_html}</div>'
    )


_WEB_URL = re.compile(r"https?://[^\s\x00-\x1f\x7f]+", re.IGNORECASE)


def safe_href(url: object) -> str | None:
    """``url`` escaped for an ``href`` when it is a plain http(s) URL, else ``None``.

    Anything else (``javascript:``, ``data:``, relative paths, URLs hiding control characters) is
    refused, so a dataset URL can never run script when clicked.
    """
    if not isinstance(url, str) or not _WEB_URL.fullmatch(url):
        return None
    return esc(url)


def link(label: str, url: object) -> str:
    """``label`` as a link to ``url`` opening in a new tab, or plain escaped text when the URL is unsafe."""
    return linked(esc(label), url)


def linked(label_html: str, url: object) -> str:
    """``label_html`` (HTML already escaped) as a link to ``url`` opening in a new tab, or as it is when
    the URL is unsafe."""
    href = safe_href(url)
    if href is None:
        return label_html
    return f'<a href="{href}" target="_blank" rel="noopener noreferrer">{label_html}</a>'


def diff_html(pieces: Iterable[tuple[str, str]]) -> str:
    """Escape a word diff (``(op, text)`` pieces from :func:`utils.text.word_diff`) as inline HTML:
    deleted words struck through in ``<del>``, inserted words in ``<ins>``."""
    out = []
    for op, text in pieces:
        if op == "delete":
            out.append(f'<del class="atlas-diff-del">{esc(text)}</del>')
        elif op == "insert":
            out.append(f'<ins class="atlas-diff-ins">{esc(text)}</ins>')
        else:
            out.append(esc(text))
    return " ".join(out)


@lru_cache(maxsize=1024)  # a handful of kinds and roles, asked for at every badge and turn
def _css_token(value: str) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", value.lower()).strip("-") or "x"
