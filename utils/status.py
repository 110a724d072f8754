"""What the book was built on, split by split: the status panel of the intro page.

:func:`build_status_frame` starts from :func:`utils.data_status` (which file each split would be
read from, without hashing) and adds what a reader needs to judge the chapters at a glance: the
size actually loaded, beside the size the authors report for that split where they report one.
Nothing is downloaded.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd

from .loading import DEMO, PARTIAL, SYNTHETIC, data_status, load
from .reported import all_reported
from .sources import get_source
from .text import counted

#: How the panel names each status of :func:`utils.data_status`.
BUILT_ON = {
    "official file present": "official",
    PARTIAL: "partial copy",
    DEMO: "demo sample, not the dataset",
    SYNTHETIC: "synthetic benchmark data, not the dataset",
    "missing": "missing",
}
#: Reported counts that size a split, in order of preference (records first, then turns).
_SIZE_NAMES = ("dialogues", "sessions", "examples", "turns", "utterances")


def reported_size(dataset: str, split: str) -> str:
    """The size the authors report for ``split`` of ``dataset`` (``"18,430 dialogues"``), or ``""``.

    Counts of a ParlAI teacher other than its episodes (dialogues) are examples of a task, not
    records of the split, and are left out.
    """
    for name in _SIZE_NAMES:
        for item in all_reported():
            # a ParlAI teacher's episodes are dialogues; its other counts are examples of a task
            sizes_split = (item.dataset, item.split, item.name) == (dataset, split, name)
            if sizes_split and (name == "dialogues" or not item.teacher):
                approx = "about " if item.unit == "approx." else ""
                return f"{approx}{int(item.value):,} {name}"
    return ""


def build_status_frame(data_dir: str | Path | None = None) -> pd.DataFrame:
    """One row per dataset and split: what the book is built on and how big it is.

    Columns: ``dataset`` and ``split`` (the names in the code), ``title``, ``status`` (as
    :func:`utils.data_status` gives it), ``built on`` (:data:`BUILT_ON`), ``loaded`` (records and
    turns of the split as loaded, ``""`` when nothing could be loaded) and ``reported`` (the
    authors' size of the split, :func:`reported_size`, ``""`` when they report none).
    """
    rows = []
    for row in data_status(data_dir).itertuples(index=False):
        source = get_source(row.dataset)
        loaded = ""
        if row.status != "missing":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the panel itself says what is a demo sample
                provenance = load(row.dataset, row.split, data_dir=data_dir, download=False).provenance
            loaded = f"{counted(provenance.dialogues, source.record_unit)}, {counted(provenance.turns, 'turns')}"
        rows.append(
            {
                "dataset": row.dataset,
                "split": row.split,
                "title": source.title,
                "status": row.status,
                "built on": BUILT_ON.get(row.status, row.status),
                "loaded": loaded,
                "reported": reported_size(row.dataset, row.split),
            }
        )
    return pd.DataFrame(rows, columns=["dataset", "split", "title", "status", "built on", "loaded", "reported"])
