"""Interactive viewers for Jupyter: page through dialogues by index or search them.

The viewer shows exactly the HTML of :mod:`utils.book.render`, so what a reader sees in Jupyter and in the
published book is the same. Widgets sit on top of the renderers, never the other way round: a
viewer with dataset-specific controls lives in its dataset's folder (``widgets.py``), built on
:func:`browse`. Where widget JavaScript cannot load (a static page), the viewer's plain text says so
instead of breaking the page.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as widgets

from utils.book.render import render_dialogue, stylesheet
from utils.records import Dialogue

_STATIC_NOTE = (
    "Interactive viewer: run this notebook in Jupyter to page through the dialogues. "
    "In the published book, use the data viewer: this page shows a few rows and opens its full page."
)


class ViewerBox(widgets.VBox):
    """A VBox whose plain-text form, shown where widget JavaScript cannot run, is a note, not a repr."""

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle["text/plain"] = _STATIC_NOTE
        return bundle


class DialogueBrowser(ViewerBox):
    """A pager with a search box over a sequence of dialogues."""

    def __init__(
        self,
        dialogues: Sequence[Dialogue],
        *,
        render: Callable[..., str] = render_dialogue,
        search_text: Callable[[Dialogue], str] | None = None,
        render_options: dict[str, Any] | None = None,
    ) -> None:
        self._dialogues = dialogues
        self._render = render
        self._options = render_options or {}
        self._search_text = search_text or _default_search_text
        self._matches: list[int] = list(range(len(dialogues)))

        self.search = widgets.Text(placeholder="search topic or text", description="Search", continuous_update=False)
        self.index = widgets.BoundedIntText(value=0, min=0, max=max(len(dialogues) - 1, 0), description="Dialogue")
        self.previous = widgets.Button(description="◀", layout=widgets.Layout(width="3em"), tooltip="previous")
        self.next = widgets.Button(description="▶", layout=widgets.Layout(width="3em"), tooltip="next")
        self.status = widgets.HTML()
        self.view = widgets.HTML()
        controls = widgets.HBox([self.search, self.previous, self.index, self.next, self.status])
        super().__init__([controls, self.view])

        self.search.observe(self._on_search, names="value")
        self.index.observe(lambda change: self._show(), names="value")
        self.previous.on_click(lambda _: self._step(-1))
        self.next.on_click(lambda _: self._step(1))
        self._show()

    @property
    def matches(self) -> list[int]:
        """Indices of the dialogues that match the current search."""
        return list(self._matches)

    def _on_search(self, change: dict[str, Any]) -> None:
        query = str(change["new"]).strip().lower()
        self._matches = [
            i
            for i in range(len(self._dialogues))
            if not query or query in self._search_text(self._dialogues[i]).lower()
        ]
        if self._matches:
            self.index.value = self._matches[0]
        self._show()

    def _step(self, delta: int) -> None:
        if not self._matches:
            return
        current = self.index.value
        later = [i for i in self._matches if (i - current) * delta > 0]
        if later:
            self.index.value = later[0] if delta > 0 else later[-1]

    def _show(self) -> None:
        if not self._dialogues:
            self.view.value = "<em>No dialogues to show.</em>"
            return
        if not self._matches:
            self.status.value = "no match"
            self.view.value = "<em>No dialogue matches the search.</em>"
            return
        position = self._matches.index(self.index.value) + 1 if self.index.value in self._matches else 0
        self.status.value = f"{position} of {len(self._matches)} matching" if position else "not in the search result"
        self.view.value = stylesheet() + str(self._render(self._dialogues[self.index.value], **self._options))


def _default_search_text(dialogue: Dialogue) -> str:
    return " ".join([dialogue.topic or "", *(turn.text for turn in dialogue.turns)])


def browse(
    dialogues: Sequence[Dialogue],
    *,
    render: Callable[..., str] = render_dialogue,
    search_text: Callable[[Dialogue], str] | None = None,
    **render_options: Any,
) -> DialogueBrowser:
    """A viewer over ``dialogues`` (a loaded split or a list): page by index, search by topic or text."""
    return DialogueBrowser(dialogues, render=render, search_text=search_text, render_options=render_options)
