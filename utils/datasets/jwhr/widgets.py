"""The JWHR session viewer for Jupyter: a switch between splits over :func:`utils.book.widgets.browse`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from utils.book.widgets import ViewerBox, browse

from ...records import Dialogue
from .render import render, search_text

if TYPE_CHECKING:
    import ipywidgets


def viewer(splits: dict[str, Sequence[Dialogue]]) -> ipywidgets.VBox:
    """A session browser with a switch between the given splits (for example answered / not answered)
    and an "all" view; paging and search come from :func:`utils.book.widgets.browse`."""
    import ipywidgets as widgets

    choices = {"all": [d for split in splits.values() for d in split], **{k: list(v) for k, v in splits.items()}}
    switch = widgets.ToggleButtons(options=list(choices), description="Show")
    box = ViewerBox([switch, browse(choices["all"], render=render, search_text=search_text)])

    def _change(change: dict[str, object]) -> None:
        box.children = (switch, browse(choices[str(change["new"])], render=render, search_text=search_text))

    switch.observe(_change, names="value")
    return box
