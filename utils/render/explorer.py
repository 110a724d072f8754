"""A static dialogue explorer for the published book: no kernel, no third-party servers.

:func:`static_explorer` pre-renders the first ``n`` dialogues with :func:`utils.render.render_dialogue`
(which escapes every dataset string) and embeds them, as JSON, in the page. The book's own script
``book/_static/explorer.js`` finds every explorer on a page and adds paging and search; without that
script (in Jupyter, or with JavaScript off) the first dialogue still shows, rendered on the server.

The JSON sits inside ``<script type="application/json">``. The browser ends that element at the
first ``</script`` whatever the JSON means, so ``<``, ``>`` and ``&`` are written as ``\\u003c``-style
escapes (valid JSON, decoded by ``JSON.parse``) and no dataset string can close the element.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..records import Dialogue
from . import render_dialogue
from ._html import SafeHTML, esc, json_for_script, stylesheet


def explorer_search_text(dialogue: Dialogue) -> str:
    """What the explorer's search box matches: topic, every turn's text and every evidence title."""
    titles = {item.title for turn in dialogue.turns for item in turn.evidence if item.title}
    parts = [dialogue.topic or "", *(turn.text for turn in dialogue.turns), *sorted(titles)]
    return " ".join(part for part in parts if part)


def explorer_label(dialogue: Dialogue, width: int = 70) -> str:
    """A short plain-text name for the index: the topic, else the opening turn (a JWHR question), else the id."""
    text = dialogue.topic or next((turn.text for turn in dialogue.turns if turn.text.strip()), "") or str(dialogue.id)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def explorer_items(
    dialogues: Sequence[Dialogue],
    n: int = 20,
    *,
    render: Callable[..., str] = render_dialogue,
    search_text: Callable[[Dialogue], str] = explorer_search_text,
    **render_options: Any,
) -> list[dict[str, str]]:
    """The explorer's payload: for the first ``n`` dialogues, id, label, pre-rendered HTML, search text."""
    items = []
    for position in range(min(n, len(dialogues))):
        dialogue = dialogues[position]
        label = f"{position + 1}. {explorer_label(dialogue)}"
        items.append(
            {
                "id": str(dialogue.id),
                "label": label,
                "html": str(render(dialogue, **render_options)),
                "search": search_text(dialogue).lower(),
            }
        )
    return items


def static_explorer(
    dialogues: Sequence[Dialogue],
    n: int = 20,
    *,
    title: str = "Explore the dialogues",
    note: str = "",
    render: Callable[..., str] = render_dialogue,
    search_text: Callable[[Dialogue], str] = explorer_search_text,
    **render_options: Any,
) -> SafeHTML:
    """A self-contained HTML explorer over the first ``n`` dialogues (page by index, search by text).

    ``dialogues`` is a loaded split or a list; ``note`` is shown under the title (for example the
    split's provenance); ``render`` and ``render_options`` choose the rendering of each dialogue.
    """
    if n < 1:
        raise ValueError(f"n must be at least 1, not {n}")
    items = explorer_items(dialogues, n, render=render, search_text=search_text, **render_options)
    count = len(items)
    note_html = f'<div class="atlas-explorer-note">{esc(note)}</div>' if note else ""
    if not items:
        return SafeHTML(
            f'<section class="atlas-explorer atlas-explorer-empty"><div class="atlas-explorer-title">{esc(title)}</div>'
            f"{note_html}<p><em>No dialogues to show.</em></p></section>"
        )
    # The controls start hidden: they only appear once explorer.js has wired them up, so a page
    # without the script shows a plain, correct rendering of the first dialogue.
    controls = (
        '<div class="atlas-explorer-controls" hidden>'
        '<label class="atlas-explorer-search-label">Search '
        '<input type="search" class="atlas-explorer-search" placeholder="topic or text" autocomplete="off"></label>'
        '<div class="atlas-explorer-pager">'
        '<button type="button" class="atlas-explorer-prev" aria-label="previous dialogue">&#9664;</button>'
        '<select class="atlas-explorer-index" aria-label="dialogue"></select>'
        '<button type="button" class="atlas-explorer-next" aria-label="next dialogue">&#9654;</button>'
        "</div>"
        '<span class="atlas-explorer-status" role="status" aria-live="polite"></span>'
        "</div>"
    )
    fallback = (
        f'<p class="atlas-explorer-static">Showing dialogue 1 of the {count} embedded here; '
        "the book's explorer script pages through and searches the rest.</p>"
    )
    return SafeHTML(
        f'<section class="atlas-explorer" data-atlas-explorer="1" data-count="{count}">'
        f'<div class="atlas-explorer-title">{esc(title)}</div>{note_html}{controls}{fallback}'
        f'<div class="atlas-explorer-view">{items[0]["html"]}</div>'
        f'<script type="application/json" class="atlas-explorer-data">{json_for_script(items)}</script>'
        f"{stylesheet()}</section>"
    )


__all__ = ["explorer_items", "explorer_label", "explorer_search_text", "json_for_script", "static_explorer"]
