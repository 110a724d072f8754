"""Figures as a reader sees them: a caption, real alt text, readable labels, the data named.

:func:`figure` turns a matplotlib figure into an HTML ``<figure>`` with the image inline, its alt
text and its caption. The caption says when the figure was drawn on a demo sample or a partial
copy, so a figure on invented data can never pass for the dataset; the image says it too
(:func:`data_mark`, drawn under the plot and stored in the PNG's ``Description`` text chunk), so a
PNG copied into slides keeps the warning. Images are shown at their
physical size (one matplotlib inch is 96 CSS pixels) up to the page's width, so a figure at most
:data:`MAX_WIDTH_INCHES` wide keeps its text at the point size it was drawn with.
"""

from __future__ import annotations

import base64
import io
import struct
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from utils.book.render import esc

if TYPE_CHECKING:
    from matplotlib.figure import Figure as MplFigure

    from utils.loading import Provenance

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
    #: :func:`data_mark` of the data it was drawn from, drawn inside the image ("" on full data)
    mark: str = ""

    def to_html(self) -> str:
        data = base64.b64encode(self.png).decode("ascii")
        width = round(self.width_inches * _CSS_PX_PER_INCH)
        marked = f' data-mark="{esc(self.mark)}"' if self.mark else ""
        return (
            f'<figure class="atlas-figure"{marked}><img src="data:image/png;base64,{data}" alt="{esc(self.alt)}" '
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


def data_mark(provenances: Iterable[Provenance]) -> str:
    """The short warning drawn inside a figure's image: ``""`` on full official data, else
    ``DEMO SAMPLE, not the dataset``, ``PARTIAL COPY, not the whole dataset`` or both.
    The caption (:func:`data_caveat`) names the splits; the mark stays short enough to fit any figure."""
    provenances = list(provenances)
    demo = any(not p.is_full and p.kind != "partial" for p in provenances)
    partial = any(p.kind == "partial" for p in provenances)
    if demo and partial:
        return "DEMO SAMPLE and PARTIAL COPY, not the dataset"
    if demo:
        return "DEMO SAMPLE, not the dataset"
    if partial:
        return "PARTIAL COPY, not the whole dataset"
    return ""


def png_description(png: bytes) -> str:
    """The ``Description`` text chunk of a PNG (``""`` when it has none): where :func:`figure` records
    its :func:`data_mark`, so a test or a reader's tool can check an image without the page."""
    position = 8
    while position + 8 <= len(png):
        length, kind = struct.unpack(">I4s", png[position : position + 8])
        body = png[position + 8 : position + 8 + length]
        if kind == b"tEXt" and body.startswith(b"Description\0"):
            return body.split(b"\0", 1)[1].decode("latin-1")
        if kind == b"zTXt" and body.startswith(b"Description\0"):
            return zlib.decompress(body.split(b"\0", 1)[1][1:]).decode("latin-1")
        if kind == b"iTXt" and body.startswith(b"Description\0"):
            text = body.split(b"\0", 1)[1]
            compressed, rest = text[0], text[2:]
            value = rest.split(b"\0", 2)[2]
            return (zlib.decompress(value) if compressed else value).decode("utf-8")
        position += 12 + length
    return ""


def _draw_mark(fig: MplFigure, mark: str) -> None:
    """Write ``mark`` in a red box under everything the figure already shows (legends and titles
    outside the axes included), so the tight bounding box keeps it and it covers nothing."""
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    box = fig.get_tightbbox(renderer)
    height = float(fig.get_figheight())
    width = float(fig.get_figwidth())
    fig.text(
        (box.x0 + box.x1) / 2 / width,
        box.y0 / height - 0.08 / height,
        mark,
        ha="center",
        va="top",
        fontsize=10,
        fontweight="bold",
        color="white",
        bbox={"boxstyle": "round,pad=0.3", "facecolor": "#b3261e", "edgecolor": "none"},
    )


def caption(text: str, *splits: object) -> str:
    """``text`` after :func:`data_caveat` of ``splits`` (loaded splits): the caption of a table or
    figure computed on them, which names any demo or partial split."""
    caveat = data_caveat(split.provenance for split in splits)  # type: ignore[attr-defined]
    return f"{caveat} {text}".strip()


def figure(fig: MplFigure, *, caption: str, alt: str, data: Iterable[Provenance] = ()) -> Figure:
    """``fig`` as a captioned figure with alt text; the matplotlib figure is closed.

    ``data`` are the provenances of the splits the figure was drawn from: a demo or partial split
    is named at the start of the caption, and :func:`data_mark` is drawn inside the image and
    stored in the PNG's ``Description`` chunk. Raises :class:`ValueError` for empty alt text or a
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
    data = list(data)
    mark = data_mark(data)
    if mark:
        _draw_mark(fig, mark)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=_DPI, bbox_inches="tight", metadata={"Description": mark} if mark else None)
    plt.close(fig)
    png = buffer.getvalue()
    # the tight bounding box changes the size: show the image at the size it was saved with
    saved_width = int.from_bytes(png[16:20], "big") / _DPI
    caveat = data_caveat(data)
    return Figure(png, alt.strip(), f"{caveat} {caption}".strip(), saved_width, mark)
