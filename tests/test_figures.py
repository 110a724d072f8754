"""Figures carry alt text and a caption that names demo data."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pytest

import utils
from utils.book.figures import figure


def test_figure_html_has_alt_caption_and_physical_width() -> None:
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.bar(["a", "b"], [1, 2])
    shown = figure(fig, caption='Counts <per> "label".', alt="Two bars: a is 1, b is 2.")
    html = shown.to_html()
    assert 'alt="Two bars: a is 1, b is 2."' in html
    assert "<figcaption>Counts &lt;per&gt; &#34;label&#34;.</figcaption>" in html
    assert 3.5 < shown.width_inches <= 5.2  # the tight box trims the margins only
    assert fig.number not in plt.get_fignums()  # closed: nothing is drawn twice


def test_figure_on_demo_data_says_so_in_the_caption() -> None:
    split = utils.load("jwhr", "answered")  # offline with an empty data directory: the demo sample
    fig, _ = plt.subplots(figsize=(4, 3))
    shown = figure(fig, caption="Trail lengths.", alt="A histogram.", data=[split.provenance])
    assert shown.caption.startswith("Computed on the atlas's demo sample (jwhr/answered), not the dataset.")


def test_figure_refuses_missing_alt_and_too_wide_figures() -> None:
    fig, _ = plt.subplots(figsize=(4, 3))
    with pytest.raises(ValueError, match="alt text"):
        figure(fig, caption="x", alt="  ")
    wide, _ = plt.subplots(figsize=(12, 3))
    with pytest.raises(ValueError, match=r"12\.0 in wide"):
        figure(wide, caption="x", alt="y")
    plt.close("all")


def test_figure_on_demo_or_partial_data_carries_the_mark_inside_the_image() -> None:
    from utils.book.figures import png_description

    demo = utils.load("jwhr", "answered").provenance  # offline with an empty data directory: the demo sample
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.bar(["a", "b"], [1, 2])
    plain, ax = plt.subplots(figsize=(4, 3))
    ax.bar(["a", "b"], [1, 2])
    marked = figure(fig, caption="x", alt="y", data=[demo])
    unmarked = figure(plain, caption="x", alt="y")
    assert marked.mark == "DEMO SAMPLE, not the dataset"
    assert png_description(marked.png) == marked.mark  # the image file itself says so
    assert 'data-mark="DEMO SAMPLE, not the dataset"' in marked.to_html()
    assert unmarked.mark == "" and png_description(unmarked.png) == ""
    # the mark is drawn: the marked image is taller than the same plot without it
    assert int.from_bytes(marked.png[20:24], "big") > int.from_bytes(unmarked.png[20:24], "big")
