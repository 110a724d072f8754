"""Figures as a reader sees them: a caption, real alt text, readable labels, the data named.

:func:`figure` turns a matplotlib figure into an HTML ``<figure>`` with the image inline, its alt
text and its caption. The caption says when the figure was drawn on a demo sample or a partial
copy, so a figure on invented data can never pass for the dataset. Images are shown at their
physical size (one matplotlib inch is 96 CSS pixels) up to the page's width, so a figure at most
:data:`MAX_WIDTH_INCHES` wide keeps its text at the point size it was drawn with.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .render import esc

if TYPE_CHECKING:
    from matplotlib.figure import Figure as MplFigure

    from .loading import Provenance

#: The book's text column is about 7.5 inches wide on a laptop: wider figures are scaled down and
#: their 9-point labels shrink below legibility.
MAX_WIDTH_INCHES = 7.5
_CSS_PX_PER_INCH = 96
_DPI = 150


@dataclass(frozen=True)
class Figure:
    """A rendered figure: PNG bytes, alt text and caption (shows as HTML in Jupyter and the book)."""

    png: bytes
    alt: str
    caption: str
    width_inches: float

    def to_html(self) -> str:
        data = base64.b64encode(self.png).decode("ascii")
        width = round(self.width_inches * _CSS_PX_PER_INCH)
        return (
            f'<figure class="atlas-figure"><img src="data:image/png;base64,{data}" alt="{esc(self.alt)}" '
            f'style="width: {width}px; max-width: 100%; height: auto;">'
            f"<figcaption>{esc(self.caption)}</figcaption></figure>"
        )

    def _repr_html_(self) -> str:
        return self.to_html()

    def __repr__(self) -> str:
        return f"<figure: {self.caption}>"


def data_caveat(provenances: Iterable[Provenance]) -> str:
    """``""`` on full official data, else a sentence naming the demo or partial splits."""
    demo = sorted({f"{p.dataset}/{p.split}" for p in provenances if not p.is_full and p.kind != "partial"})
    partial = sorted({f"{p.dataset}/{p.split}" for p in provenances if p.kind == "partial"})
    parts = []
    if demo:
        parts.append(f"computed on the atlas's demo sample ({', '.join(demo)}), not the dataset")
    if partial:
        parts.append(f"computed on a partial copy ({', '.join(partial)})")
    if not parts:
        return ""
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


def figure(fig: MplFigure, *, caption: str, alt: str, data: Iterable[Provenance] = ()) -> Figure:
    """``fig`` as a captioned figure with alt text; the matplotlib figure is closed.

    ``data`` are the provenances of the splits the figure was drawn from: a demo or partial split
    is named at the start of the caption. Raises :class:`ValueError` for empty alt text or a
    figure wider than :data:`MAX_WIDTH_INCHES` (its labels would shrink when the page scales it).
    """
    import matplotlib.pyplot as plt

    if not alt.strip():
        raise ValueError("a figure needs alt text that says what it shows")
    width = float(fig.get_figwidth())
    if width > MAX_WIDTH_INCHES + 1e-9:
        raise ValueError(
            f"figure is {width:.1f} in wide: at most {MAX_WIDTH_INCHES} in keeps its labels legible on the page"
        )
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=_DPI, bbox_inches="tight")
    plt.close(fig)
    png = buffer.getvalue()
    # the tight bounding box changes the size: show the image at the size it was saved with
    saved_width = int.from_bytes(png[16:20], "big") / _DPI
    caveat = data_caveat(data)
    return Figure(png, alt.strip(), f"{caveat} {caption}".strip(), saved_width)
