"""What the book was built on, split by split: the status panel of the intro page.

:func:`build_status_frame` starts from :func:`utils.data_status` (which file each split would be
read from, without hashing) and adds what a reader needs to judge the chapters at a glance: the
size actually loaded, beside the size the authors report for that split where they report one.
:func:`status_panel` shows it compactly: one row per dataset, each split a chip coloured by what it
was built on (official, partial, demo), with its size against the reported one. Nothing is
downloaded.

A split's size counts what its records are: a declaration whose files hold rows that are not
records of the dataset (blank rows, rows nobody labelled) says so with ``record_kinds``, and the
panel counts only the first kind (the labelled responses), naming the rest.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from utils.book.render._html import SafeHTML, esc
from utils.declaration import Reported
from utils.loading import DEMO, PARTIAL, SYNTHETIC, data_status, load
from utils.reported import all_reported
from utils.sources import get_source
from utils.split_files import NOT_DATA
from utils.text import counted

#: How the panel names each status of :func:`utils.data_status`.
BUILT_ON = {
    "official file present": "official",
    PARTIAL: "partial copy",
    DEMO: "demo sample, not the dataset",
    SYNTHETIC: "synthetic benchmark data, not the dataset",
    NOT_DATA: "not the data file (an error page or message in its place)",
    "missing": "missing",
}
#: The chip (its colour and its one word) of each status: official green, partial amber, demo red.
CHIP = {
    "official file present": "official",
    PARTIAL: "partial",
    DEMO: "demo",
    SYNTHETIC: "synthetic",
    NOT_DATA: "missing",
    "missing": "missing",
}
#: Reported counts that size a split, in order of preference (records first, then turns).
_SIZE_NAMES = ("dialogues", "sessions", "examples", "turns", "utterances")
#: Reported names that count turns (compared with the turns loaded) rather than records.
_TURN_NAMES = ("turns", "utterances")


def reported_item(dataset: str, split: str) -> Reported | None:
    """The number that sizes ``split`` of ``dataset`` as its authors report it (``split=""``: the
    whole dataset), or ``None``.

    Counts of a ParlAI teacher other than its episodes (dialogues) are examples of a task, not
    records of the split, and are left out.
    """
    for name in _SIZE_NAMES:
        for item in all_reported():
            sizes_split = (item.dataset, item.split, item.name) == (dataset, split, name)
            if sizes_split and (name == "dialogues" or not item.teacher):
                return item
    return None


def _reported_text(item: Reported | None) -> str:
    if item is None:
        return ""
    approx = "about " if item.unit == "approx." else ""
    return f"{approx}{int(item.value):,} {item.name}"


@dataclass(frozen=True)
class _Loaded:
    records: int
    turns: int
    #: records by kind, where the declaration distinguishes them (``{}``: all are records)
    kinds: Mapping[str, int]


def _loaded(dataset: str, split: str, data_dir: str | Path | None) -> _Loaded:
    source = get_source(dataset)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the panel itself says what is a demo sample
        loaded = load(dataset, split, data_dir=data_dir, download=False)
    kinds = dict(source.record_kinds(loaded)) if source.record_kinds else {}
    return _Loaded(loaded.provenance.dialogues, loaded.provenance.turns, kinds)


def build_status_frame(data_dir: str | Path | None = None) -> pd.DataFrame:
    """One row per dataset and split: what the book is built on and how big it is.

    Columns: ``dataset`` and ``split`` (the names in the code), ``title``, ``status`` (as
    :func:`utils.data_status` gives it), ``built on`` (:data:`BUILT_ON`), ``chip`` (:data:`CHIP`),
    ``size`` and ``unit`` (the split's records as loaded, counting only the first of the
    declaration's ``record_kinds`` where it has them; ``<NA>`` when nothing could be loaded),
    ``other rows`` (the rest of the file's rows by kind, ``""`` when there are none), ``turns``,
    ``reported value`` and ``reported unit`` (the authors' size of the split, :func:`reported_item`,
    ``<NA>``/``""`` when they report none), ``reported source``, ``reported teacher`` (the ParlAI
    teacher whose recorded count the reported size is, ``""`` when it is the authors' own), ``reported
    approx`` (the authors
    give it as "about"), ``compared`` (the loaded count in
    the reported unit: records, or turns for a reported count of turns), ``loaded`` and
    ``reported`` (the same as text).
    """
    rows = []
    status_rows: Iterable[Any] = data_status(data_dir).itertuples(index=False)  # data_status's own columns
    for row in status_rows:
        source = get_source(row.dataset)
        item = reported_item(row.dataset, row.split)
        size = turns = compared = None
        unit, other, loaded_text = source.record_unit, "", ""
        if row.status not in ("missing", NOT_DATA):  # a file not in its format would fail to load
            loaded = _loaded(row.dataset, row.split, data_dir)
            turns = loaded.turns
            size = loaded.records
            if loaded.kinds:
                (unit, size), *rest = loaded.kinds.items()
                other = ", ".join(counted(count, kind) for kind, count in rest if count)
                other = f"of {counted(loaded.records, source.record_unit)}: {other}" if other else ""
            loaded_text = f"{counted(size, unit)}, {counted(turns, 'turns')}"
            if item is not None:
                compared = turns if item.name in _TURN_NAMES else size
        rows.append(
            {
                "dataset": row.dataset,
                "split": row.split,
                "title": source.title,
                "status": row.status,
                "built on": BUILT_ON.get(row.status, row.status),
                "chip": CHIP.get(row.status, "missing"),
                "size": size,
                "unit": unit,
                "other rows": other,
                "turns": turns,
                "reported value": None if item is None else item.value,
                "reported unit": "" if item is None else item.name,
                "reported source": "" if item is None else item.source,
                "reported teacher": "" if item is None else item.teacher,
                "reported approx": item is not None and item.unit == "approx.",
                "compared": compared,
                "loaded": loaded_text,
                "reported": _reported_text(item),
            }
        )
    frame = pd.DataFrame(rows, columns=STATUS_COLUMNS)
    for column in ("size", "turns", "compared"):
        frame[column] = frame[column].astype("Int64")
    return frame


STATUS_COLUMNS = (
    "dataset", "split", "title", "status", "built on", "chip", "size", "unit", "other rows", "turns",
    "reported value", "reported unit", "reported source", "reported teacher", "reported approx", "compared", "loaded",
    "reported",
)


#: What a chip adds when the reported size is a ParlAI teacher's recorded count, not the authors'.
PARLAI_COUNT = "(ParlAI's count)"


def chip_size(row: Mapping[Hashable, Any], *, unit: bool = True, counter: bool = True) -> str:
    """A split's size against the reported one, as its chip says it: ``3 of 18,430 dialogues``,
    ``205 labelled responses``, ``3 dialogues; 17 of 36,809 turns``, ``2 of 981 dialogues (ParlAI's
    count)`` where the reported size is a ParlAI teacher's recorded count. ``unit=False`` leaves out the
    split's own unit (the panel names it once per dataset): ``3 of 18,430``, ``205``; a count in
    another unit (turns) keeps its unit; ``counter=False`` leaves out :data:`PARLAI_COUNT` (the panel
    sets it apart, where it may wrap)."""
    size, compared, value = row["size"], row["compared"], row["reported value"]
    if pd.isna(size):
        return "not loaded"
    own = counted(int(size), str(row["unit"])) if unit else f"{int(size):,}"
    if value is None or pd.isna(value):
        return own
    approx = "about " if row["reported approx"] else ""
    reported_unit = str(row["reported unit"])
    if reported_unit in _TURN_NAMES:
        return f"{own}; {int(compared):,} of {approx}{int(value):,} {reported_unit}"
    shown = f"{int(compared):,} of {approx}{int(value):,}"
    shown = f"{shown} {reported_unit}" if unit else shown
    # A ParlAI teacher's recorded count is ParlAI's number, not the dataset authors': say whose it is.
    return f"{shown} {PARLAI_COUNT}" if counter and row.get("reported teacher") else shown


def status_panel(frame: pd.DataFrame, *, caption: str = "What each split of this book was built on.") -> SafeHTML:
    """The panel as HTML: one row per dataset, each split a chip (official, partial, demo, ...) with
    its size against the reported one, the whole dataset's reported size under its name, and where the
    reported sizes come from in a note. ``frame`` is :func:`build_status_frame`'s."""
    body, cited = [], []
    for dataset, rows in frame.groupby("dataset", sort=False):
        source = get_source(str(dataset))
        chips = []
        for row in rows.to_dict("records"):
            other = f' <span class="atlas-chip-other">({esc(row["other rows"])})</span>' if row["other rows"] else ""
            if row.get("reported teacher") and not pd.isna(row["size"]):
                other += f' <span class="atlas-chip-counter">{esc(PARLAI_COUNT)}</span>'
            chips.append(
                f'<li class="atlas-chip atlas-chip-{esc(row["chip"])}" data-dataset="{esc(dataset)}" '
                f'data-split="{esc(row["split"])}" '
                f'data-built-on="{esc(row["built on"])}">'
                f'<span class="atlas-chip-split">{esc(row["split"])}</span> '
                f'<span class="atlas-chip-kind">{esc(row["chip"])}</span> '
                f'<span class="atlas-chip-size">{esc(chip_size(row, unit=False, counter=False))}</span>{other}</li>'
            )
        whole_item = reported_item(str(dataset), "")
        whole = ""
        if whole_item is not None:
            whole = f'<br><span class="atlas-status-whole">{esc(_reported_text(whole_item))} reported in all</span>'
        sources = sorted({str(s) for s in rows["reported source"] if s})
        if whole_item is not None and whole_item.source not in sources:
            sources.append(whole_item.source)
        if sources:
            cited.append(f"{esc(source.title)}: {esc('; '.join(sources))}")
        body.append(
            "<tr>"
            f'<th scope="row">{esc(source.title)}<br><code>{esc(dataset)}</code>{whole}'
            f'<br><span class="atlas-status-whole">sizes in {esc(rows["unit"].iloc[0])}</span></th>'
            f'<td><ul class="atlas-chips">{"".join(chips)}</ul></td>'
            "</tr>"
        )
    head = (
        '<thead><tr><th scope="col">Dataset: name in the code, size reported in all, unit of the sizes</th>'
        '<th scope="col">Splits: what each was built on, and its size loaded of the size reported</th></tr></thead>'
    )
    notes = [
        "official: the publisher's file (verified against its checksum where one is published); partial: a "
        "published subset; demo: a few records the atlas wrote itself, not the dataset; missing: no file and no "
        "demo sample.",
        "A size is the records loaded, beside the authors' count of the same unit where they report one for "
        "that split (or, where the chip says so, the count ParlAI's test fixtures record for it); rows that "
        "are not labelled records (blank rows, rows without a label) are counted apart, "
        "in brackets.",
        f"Reported sizes from: {'. '.join(cited)}.",
    ]
    legend = f'<ul class="atlas-table-notes">{"".join(f"<li>{note}</li>" for note in notes)}</ul>'
    label = esc(caption)
    return SafeHTML(
        f'<div class="atlas-table atlas-status"><p class="atlas-table-caption" id="atlas-status-caption">{label}</p>'
        f'<div class="atlas-table-scroll" tabindex="0" role="region" aria-labelledby="atlas-status-caption">'
        f'<table class="atlas-pub-table atlas-status-table">{head}<tbody>{"".join(body)}</tbody></table></div>'
        f"{legend}</div>"
    )
