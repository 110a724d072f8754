"""Static HTML renderings of dialogues and their evidence (safe for untrusted dataset text).

:func:`render_dialogue` picks the renderer of the dialogue's dataset (its declaration's
:attr:`utils.sources.DatasetSource.render`). The same HTML is shown in Jupyter, in the widgets and
in the published book. :class:`SafeHTML`, :func:`esc` and :func:`stylesheet` (with
:func:`stylesheet_css`, its rules alone) are the public building blocks for HTML built outside this
package (the cross-dataset chapter's notes, the figures); ``_html`` holds the renderers' own helpers.
"""

from __future__ import annotations

from utils.book.render._html import SafeHTML, esc, stylesheet, stylesheet_css
from utils.records import Dialogue


def render_dialogue(dialogue: Dialogue, **options: object) -> SafeHTML:
    """Render one dialogue as safe HTML with the renderer of its dataset."""
    from utils.sources import source_of  # the registry imports the renderers, which import this package

    return source_of(dialogue).render(dialogue, **options)


__all__ = ["SafeHTML", "esc", "render_dialogue", "stylesheet", "stylesheet_css"]
