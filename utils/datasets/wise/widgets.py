"""The WISE conversation viewer for Jupyter: :func:`utils.book.widgets.browse` with WISE's rendering and search."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from utils.book.widgets import browse

from ...records import Dialogue
from .render import render, search_text

if TYPE_CHECKING:
    import ipywidgets


def viewer(dialogues: Sequence[Dialogue], **options: object) -> ipywidgets.VBox:
    """A pager with search over ``dialogues`` showing :func:`.render.render` (options are passed on)."""
    return browse(dialogues, render=render, search_text=search_text, **options)
