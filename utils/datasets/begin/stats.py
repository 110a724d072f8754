"""Statistics of BEGIN: labels by source and by model, and what separates the three classes.

Every function takes loaded splits (or lists of :class:`~utils.records.Dialogue`) and computes from
them; nothing here is a reported number (those are in :mod:`utils.datasets.begin.reported`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from utils.book import tables
from utils.book.cjk_fonts import text_as_typed
from utils.book.figures import caption
from utils.book.tables import Table

from ...loading import LoadedSplit
from ...records import Dialogue
from ...text import word_tokens
from .parser import FULLY, GENERIC, LABELS, NOT_FULLY, knowledge, label, message, response_turn
from .render import MODELS

#: Splits as readers name them: ``wow_test`` reads "WoW test".
_SOURCE_SHORT = {"wow": "WoW", "cmu": "CMU-DoG", "tc": "TopicalChat"}
#: Colours of the three labels in every figure (colour-blind safe, and told apart by position too).
LABEL_COLOURS = {FULLY: "#1b7837", NOT_FULLY: "#b2182b", GENERIC: "#878787"}


def split_label(split: str) -> str:
    """``wow_test`` reads "WoW test", ``tc_dev`` "TopicalChat dev"."""
    source, _, part = split.partition("_")
    return f"{_SOURCE_SHORT.get(source, source)} {part}".strip()


def response_frame(splits: Mapping[str, Iterable[Dialogue]]) -> pd.DataFrame:
    """One row per response of every split: ``split``, ``source``, ``part`` (dev or test), ``model``,
    ``label``, ``message``, ``response``, ``knowledge``, ``row``, and the lengths in words
    (``response_words``, ``knowledge_words``; ParlAI-normalised tokens)."""
    records = []
    for split, dialogues in splits.items():
        key = _rows_key(split, dialogues)
        rows = _REMEMBERED_ROWS.get(key) if key is not None else None
        if rows is None:
            rows = [_response_record(split, dialogue) for dialogue in dialogues]
            if key is not None:
                if len(_REMEMBERED_ROWS) >= _REMEMBERED_SPLITS:
                    _REMEMBERED_ROWS.clear()
                _REMEMBERED_ROWS[key] = rows
        records += rows
    columns = ["split", "source", "part", "model", "label", "message", "response", "knowledge", "row",
               "response_words", "knowledge_words"]
    return pd.DataFrame(records, columns=columns)


#: Rows of the loaded splits :func:`response_frame` has read, by split name and file. The chapter and
#: its exercise checks ask for the rows of the same splits 22 times (each check loads its splits
#: afresh), and rebuilding every dialogue from the cache and counting its words took a tenth of the
#: chapter. The records are only read (the frame copies them into its columns).
_REMEMBERED_ROWS: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
_REMEMBERED_SPLITS = 16


def _rows_key(split: str, dialogues: Iterable[Dialogue]) -> tuple[Any, ...] | None:
    """What the rows of a loaded split depend on: its name here, what was loaded, and the file as the
    cache keys it (path, inode, size, modification and status-change times); ``None`` for dialogues
    that are not a loaded split (a list may change between two calls)."""
    if not isinstance(dialogues, LoadedSplit):
        return None
    provenance = dialogues.provenance
    try:
        stat = provenance.path.stat()
    except OSError:
        return None
    identity = (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
    loaded = (provenance.dataset, provenance.split, provenance.kind, str(provenance.path), len(dialogues))
    return (split, *loaded, identity)


def _response_record(split: str, dialogue: Dialogue) -> dict[str, Any]:
    response = response_turn(dialogue).text
    snippet = knowledge(dialogue)
    return {
        "split": split,
        "source": dialogue.meta.get("source", ""),
        "part": split.partition("_")[2],
        "model": dialogue.meta.get("model", ""),
        "label": label(dialogue),
        "message": message(dialogue),
        "response": response,
        "knowledge": snippet,
        "row": dialogue.meta.get("row"),
        "response_words": len(word_tokens(response)),
        "knowledge_words": len(word_tokens(snippet)),
    }


def label_counts_frame(rows: pd.DataFrame, by: str = "split") -> pd.DataFrame:
    """Responses per label for each value of ``by`` (``split``, ``source`` or ``model``), with the total
    and the share of each label; the labels in the order Fully, Not fully, Generic."""
    counts = rows.groupby(by)["label"].value_counts().unstack(fill_value=0)
    counts = counts.reindex(columns=list(LABELS), fill_value=0)
    counts["responses"] = counts.sum(axis=1)
    for name in LABELS:
        counts[f"{name} (share)"] = counts[name] / counts["responses"]
    order = list(dict.fromkeys(rows[by]))
    return counts.reindex(order)


def label_counts_alt(counts: pd.DataFrame, *, by: str) -> str:
    """Alt text of :func:`plot_label_shares`: every bar's shares in words."""
    parts = [
        f"{name}: " + ", ".join(f"{counts.loc[name, f'{label} (share)']:.0%} {label.lower()}" for label in LABELS)
        for name in counts.index
    ]
    return f"Stacked bars of the BEGIN labels per {by}, in percent of its responses. " + "; ".join(parts) + "."


@text_as_typed
def plot_label_shares(counts: pd.DataFrame, *, names: Mapping[str, str] | None = None) -> plt.Figure:
    """Stacked horizontal bars: the share of each label for each row of :func:`label_counts_frame`."""
    fig, ax = plt.subplots(figsize=(6.4, 0.5 * len(counts) + 1.4))
    left = np.zeros(len(counts))
    labels = [(names or {}).get(str(name), str(name)) for name in counts.index]
    for name in LABELS:
        shares = counts[f"{name} (share)"].to_numpy(dtype=float)
        ax.barh(labels, shares, left=left, color=LABEL_COLOURS[name], label=name)
        for y, (start, share) in enumerate(zip(left, shares, strict=True)):
            if share >= 0.08:
                ax.text(start + share / 2, y, f"{share:.0%}", ha="center", va="center", color="white", fontsize=9)
        left += shares
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of responses")
    ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda value, _: f"{value:.0%}"))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.35 if len(counts) < 4 else -0.18), ncol=3, fontsize=9,
              frameon=False)
    fig.tight_layout()
    return fig


def model_names() -> dict[str, str]:
    """Model names as the README writes them (``ctrl`` is CTRL-Dialog)."""
    return dict(MODELS)


def first_row(rows: pd.DataFrame, **conditions: object) -> pd.Series | None:
    """The first row of ``rows`` whose columns equal ``conditions`` (``None`` when there is none)."""
    chosen = rows
    for column, value in conditions.items():
        chosen = chosen[chosen[column] == value]
    return None if chosen.empty else chosen.iloc[0]


def reported_vs_reproduced(splits: Mapping[str, object]) -> pd.DataFrame:
    """The README's figures beside the ones counted in ``splits`` (loaded splits, every split of
    BEGIN): the number of responses ("12k") and the dev files' share ("10%"). Both describe all six
    files together, so each is checked only when all six are complete official files; the tolerance is
    the rounding of the figure as written (12k: ±500; 10%: ±0.5 points). When some splits are official
    and others demo samples, no value is computed and the status says how many are demo samples."""
    from ...reported import Reproduced, compare

    loaded: dict[str, Any] = dict(splits)  # loaded splits: a provenance each, and a length
    kinds = tuple(split.provenance.kind for split in loaded.values())
    total = sum(len(split) for split in loaded.values())
    dev = sum(len(split) for name, split in loaded.items() if name.endswith("_dev"))
    # A count over official files and demo samples together describes neither: it is left out.
    mixed = len(set(kinds)) > 1
    demo = sum(1 for split in loaded.values() if split.provenance.is_demo)
    why = f"{demo} of the {len(loaded)} files are demo samples" if mixed and demo else "split not loaded"
    computed = {
        ("responses", ""): Reproduced(None if mixed else float(total), kinds, tolerance=500, not_computed=why),
        ("dev_share", ""): Reproduced(
            None if mixed or not total else 100 * dev / total, kinds, tolerance=0.5, not_computed=why
        ),
    }
    return compare("begin", computed)


@text_as_typed
def plot_precision_by_label(rows: pd.DataFrame, precision: pd.Series) -> plt.Figure:
    """Histograms of knowledge precision per BEGIN label (share of each label's responses per bin)."""
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    bins = list(np.linspace(0, 1, 21))
    for name in LABELS:
        values = precision[rows["label"] == name]
        if len(values):
            weights = np.full(len(values), 1 / len(values))
            ax.hist(values, bins=bins, weights=weights, histtype="step", linewidth=2, color=LABEL_COLOURS[name],
                    label=f"{name} ({len(values):,})")
    ax.set_xlabel("knowledge precision (share of the response's words found in the knowledge)")
    ax.set_ylabel("share of the label's responses")
    ax.legend(fontsize=9, frameon=False, loc="upper center")
    fig.tight_layout()
    return fig


def precision_alt(rows: pd.DataFrame, precision: pd.Series) -> str:
    """Alt text of :func:`plot_precision_by_label`: the median precision and size of each label."""
    parts = [
        f"{name}: {int((rows['label'] == name).sum()):,} responses, median "
        f"{precision[rows['label'] == name].median():.0%}"
        for name in LABELS
        if (rows["label"] == name).any()
    ]
    return "Histograms of knowledge precision for each BEGIN label. " + "; ".join(parts) + "."


def label_counts_table(counts: pd.DataFrame, splits: Mapping[str, LoadedSplit]) -> Table:
    """:func:`label_counts_frame` by split for readers: counts, then shares, one row per split of
    ``splits`` (the splits it was computed on, named in the caption when they are a demo sample)."""
    short = {FULLY: "Fully", NOT_FULLY: "Not fully", GENERIC: "Generic"}
    return tables.table(
        counts,
        index="split",
        row_labels={name: split_label(name) for name in counts.index},
        labels={"responses": "responses", **short, **{f"{name} (share)": text for name, text in short.items()}},
        integers=["responses", *LABELS],
        percents=[f"{name} (share)" for name in LABELS],
        caption=caption("Responses per BEGIN label in each split: counts, then shares.", *splits.values()),
    )
