"""The public HTML helpers of a dataset's renderer (``utils/datasets/<name>/render.py``).

A renderer is ``render(dialogue, **options) -> SafeHTML``: one dialogue with its evidence, built
from these helpers and nothing else that writes markup. Dataset text is untrusted: every string
taken from a dataset goes through :func:`esc` (or a helper that calls it); a helper's ``*_html``
argument takes only HTML another helper returned. The toy dataset's ``render.py`` in
``book/contributing.md`` is the worked example.

- :class:`SafeHTML` (what a renderer returns), :func:`esc` (text to HTML), :func:`stylesheet`
  (the atlas's CSS, once per page);
- the frame of a dialogue: :func:`dialogue_frame` (title, body, note), :func:`turn_block` (one turn:
  role, speaker, body, extra), :func:`details` (a collapsed section), :func:`bullet_list`;
- marks inside a turn: :func:`badge` (a label), :func:`sr_only` (text for screen readers only),
  :func:`link` (an http(s) link, or the label alone), :func:`safe_href`, :func:`highlight_words`,
  :func:`highlight_chars`, :func:`diff_html` (an edit, as inserted and deleted pieces),
  :func:`isolate_bidi` (right-to-left text kept from reordering what follows);
- :func:`json_for_script` (a value for a ``<script>`` element).

The helpers are defined in ``utils.book.render._html``, which a dataset folder does not import.
"""

from __future__ import annotations

from utils.book.render._html import (
    SafeHTML,
    badge,
    bullet_list,
    details,
    dialogue_frame,
    diff_html,
    esc,
    highlight_chars,
    highlight_words,
    isolate_bidi,
    json_for_script,
    link,
    safe_href,
    sr_only,
    stylesheet,
    turn_block,
)

__all__ = [
    "SafeHTML",
    "badge",
    "bullet_list",
    "details",
    "dialogue_frame",
    "diff_html",
    "esc",
    "highlight_chars",
    "highlight_words",
    "isolate_bidi",
    "json_for_script",
    "link",
    "safe_href",
    "sr_only",
    "stylesheet",
    "turn_block",
]
