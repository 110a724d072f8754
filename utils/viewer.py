"""The book's data viewer: every row of every split, written beside the built page as data files.

:func:`write_split` turns one split into the files ``book/_static/viewer.js`` reads: three row levels
(``dialogues``, ``turns``, ``evidence``), each a list of gzip-compressed JSON shards of
:data:`SHARD_ROWS` rows stored column by column, the HTML rendering of every dialogue in shards of
:data:`HTML_SHARD` dialogues (opened when the reader opens a row), and ``manifest.json`` naming the
columns, their kinds and the shards. The browser fetches a shard only when the reader opens that
split and level, so the chapter page itself carries none of it.

This module knows no dataset by name: what a dataset adds (label columns, a grouping of its rows,
example SQL) comes from its hooks (:func:`utils.render.viewer_fields.hooks`). Every value written is
data, never markup, except the renderings, which the atlas's renderers escape.

Column kinds: ``number``; ``label`` (one category per row, filtered by facet chips); ``labels`` (a
list of categories); ``text`` and ``id`` (strings, searched; statistics are their lengths). Columns
whose name starts with ``_`` are for the viewer only (the row's dialogue, its search text).
"""

from __future__ import annotations

import gzip
import json
import math
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from .loading import TURN_TABLE_COLUMNS
from .records import Dialogue

#: Version of the file layout; viewer.js refuses any other.
FORMAT = 1
LEVELS = ("dialogues", "turns", "evidence")
#: Rows per shard of a level (a shard of the full WoW train's turns is about 1 MB compressed).
SHARD_ROWS = 25_000
#: Dialogues per shard of renderings.
HTML_SHARD = 50
#: A string column with at most this many distinct values (and repeats) is a label column.
LABEL_LIMIT = 60
#: The environment variable the book's build sets to the directory the data files go to.
VIEWER_DIR_VARIABLE = "ATLAS_VIEWER_DIR"
#: Hidden columns: the dialogue a row belongs to (its position in the split) and the search text.
DIALOGUE = "_dialogue"
SEARCH = "_search"
#: An example SQL query of a dataset: (title, SQL, the columns it reads as "table.column").
Query = tuple[str, str, tuple[str, ...]]


@dataclass
class SplitRows:
    """One split as the viewer shows it: a frame per level, and which column names a row by its id."""

    frames: dict[str, pd.DataFrame]
    #: per level, the column holding the dataset's own id of a row
    id_columns: dict[str, str]
    #: per level, column name -> kind, where the automatic choice would be wrong
    kinds: dict[str, dict[str, str]] = field(default_factory=dict)
    #: a sentence saying how the rows relate to the file's records (KILT's grouping)
    note: str = ""


def viewer_dir() -> Path | None:
    """The directory the data files go to during a book build (``None``: not building the book)."""
    value = os.environ.get(VIEWER_DIR_VARIABLE)
    return Path(value) if value else None


def column_kind(series: pd.Series, name: str, forced: Mapping[str, str] | None = None) -> str:
    """The kind of a column (see the module's docstring), as the viewer filters and summarises it."""
    if forced and name in forced:
        return forced[name]
    values = series.dropna()
    if pd.api.types.is_bool_dtype(series) or (len(values) and all(isinstance(v, bool) for v in values[:50])):
        return "label"
    if pd.api.types.is_numeric_dtype(series):
        return "number"
    if len(values) and all(isinstance(v, list | tuple) for v in values[:200]):
        return "labels"
    strings = values.astype(str)
    distinct = strings.nunique()
    if distinct <= LABEL_LIMIT and distinct < max(len(strings), 1) and strings.str.len().max() <= 80:
        return "label"
    return "text"


def _plain(value: Any, kind: str) -> Any:
    """A cell as JSON: numbers as numbers (``None`` for missing), labels as strings, lists as lists."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if kind == "number":
        number = float(value)
        return int(number) if number.is_integer() else round(number, 6)
    if kind == "labels":
        return [str(item) for item in value]
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _write_gzip_json(path: Path, data: Any) -> int:
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    packed = gzip.compress(raw, compresslevel=6, mtime=0)
    path.write_bytes(packed)
    return len(packed)


def write_level(
    frame: pd.DataFrame, directory: Path, level: str, *, id_column: str, kinds: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """Write one level's rows as shards; returns its entry of the manifest."""
    columns = []
    values_as = {}  # how a column's cells are written: hidden columns keep their own kind's form
    for name in frame.columns:
        kind = column_kind(frame[name], name, kinds)
        values_as[name] = kind
        if name.startswith("_"):
            kind = "hidden"
        elif name == id_column:
            kind = "id"
        columns.append({"name": name, "kind": kind})
    shards = []
    for number, start in enumerate(range(0, max(len(frame), 1), SHARD_ROWS)):
        part = frame.iloc[start : start + SHARD_ROWS]
        data = {
            column["name"]: [_plain(value, values_as[column["name"]]) for value in part[column["name"]].tolist()]
            for column in columns
        }
        name = f"{level}-{number:04d}.json.gz"
        size = _write_gzip_json(directory / name, data)
        shards.append({"file": name, "rows": len(part), "bytes": size})
    return {"rows": len(frame), "id": id_column, "columns": columns, "shards": shards}


def write_split(
    directory: Path,
    dialogues: Sequence[Dialogue],
    rows: SplitRows,
    *,
    render: Callable[[Dialogue], str],
    meta: Mapping[str, Any],
) -> dict[str, Any]:
    """Write a split's levels, its renderings and ``manifest.json`` into ``directory`` (emptied first).

    ``rows`` gives the frames (each with :data:`DIALOGUE`, the position of the row's dialogue);
    ``render`` renders one dialogue; ``meta`` is copied into the manifest (dataset, split, label,
    provenance, example queries). Files are written to a temporary directory and moved into place,
    so a failure leaves the previous files, not half of new ones.
    """
    temporary = directory.with_name(directory.name + ".writing")
    shutil.rmtree(temporary, ignore_errors=True)
    temporary.mkdir(parents=True)
    try:
        levels = {}
        for level in LEVELS:
            frame = rows.frames.get(level)
            if frame is None:
                continue
            levels[level] = write_level(
                frame, temporary, level, id_column=rows.id_columns[level], kinds=rows.kinds.get(level)
            )
        html_shards = []
        batch: list[str] = []
        for index, dialogue in enumerate(dialogues):
            batch.append(str(render(dialogue)))
            if len(batch) == HTML_SHARD or index == len(dialogues) - 1:
                name = f"html-{len(html_shards):04d}.json.gz"
                _write_gzip_json(temporary / name, batch)
                html_shards.append(name)
                batch = []
        manifest = {
            "format": FORMAT,
            **meta,
            "note": rows.note,
            "dialogues": len(dialogues),
            "levels": levels,
            "html": {"per_shard": HTML_SHARD, "shards": html_shards},
        }
        (temporary / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1), encoding="utf-8")
        shutil.rmtree(directory, ignore_errors=True)
        temporary.rename(directory)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    return manifest


def _is_loaded(dialogues: Sequence[Dialogue]) -> bool:
    return all(hasattr(dialogues, name) for name in ("turns", "evidence", "dialogues_frame"))


def _records_turns(dialogues: Sequence[Dialogue]) -> pd.DataFrame:
    rows = []
    for index, dialogue in enumerate(dialogues):
        for turn in dialogue.turns:
            rows.append(
                {
                    "dialogue_index": index,
                    "dialogue_id": str(dialogue.id),
                    "topic": dialogue.topic,
                    "turn_index": turn.index,
                    "role": turn.role,
                    "speaker": turn.speaker,
                    "text": turn.text,
                    "evidence_count": len(turn.evidence),
                    "selected_count": len(turn.selected_evidence),
                    "labels": dict(turn.labels),
                }
            )
    # the columns of LoadedSplit.turns(), in its order
    names = [*TURN_TABLE_COLUMNS[:2], "topic", *TURN_TABLE_COLUMNS[2:], "labels"]
    return pd.DataFrame(rows, columns=names)


def _records_evidence(dialogues: Sequence[Dialogue]) -> pd.DataFrame:
    rows = [
        {
            "dialogue_index": index,
            "dialogue_id": str(dialogue.id),
            "turn_index": turn.index,
            "id": item.id,
            "title": item.title,
            "text": item.text,
            "origin": item.origin,
            "selected": item.selected,
        }
        for index, dialogue in enumerate(dialogues)
        for turn in dialogue.turns
        for item in turn.evidence
    ]
    return pd.DataFrame(
        rows, columns=["dialogue_index", "dialogue_id", "turn_index", "id", "title", "text", "origin", "selected"]
    )


def split_rows(
    dialogues: Sequence[Dialogue],
    *,
    label_keys: Sequence[str] = (),
    facets: Callable[[Dialogue], Mapping[str, list[str]]] | None = None,
    columns: Callable[[Dialogue], Mapping[str, float | None]] | None = None,
    search_text: Callable[[Dialogue], str] | None = None,
    english: Callable[[str | None], str | None] | None = None,
) -> SplitRows:
    """The three levels of a split, read from its tables where it is a loaded split.

    ``label_keys`` are the turn labels that are categories (a column of lists each); the other turn
    labels become text columns. ``facets``, ``columns`` and ``search_text`` add a dialogue's label
    values, numbers and search text to its row; ``english`` gives the English gloss of a text
    (a ``text (English)`` column at the turn and evidence levels, searched too).
    """
    dialogue_rows = []
    for index, dialogue in enumerate(dialogues):
        row: dict[str, Any] = {"id": str(dialogue.id), "topic": dialogue.topic, "turns": len(dialogue.turns)}
        row.update({name: list(values) for name, values in (facets(dialogue) if facets else {}).items()})
        row.update(dict(columns(dialogue)) if columns else {})
        row[DIALOGUE] = index
        if search_text:
            row[SEARCH] = " ".join(search_text(dialogue).split())
        dialogue_rows.append(row)
    dialogue_frame = pd.DataFrame(dialogue_rows)
    if len(dialogue_frame):
        # a facet a dialogue has no value for is an empty list, not a missing cell
        for name in dialogue_frame.columns:
            cells = dialogue_frame[name].tolist()
            if any(isinstance(cell, list) for cell in cells):
                dialogue_frame[name] = [cell if isinstance(cell, list) else [] for cell in cells]

    turns = dialogues.turns() if _is_loaded(dialogues) else _records_turns(dialogues)  # type: ignore[attr-defined]
    labels = turns.pop("labels").tolist()
    turns = turns.rename(
        columns={
            "dialogue_id": "dialogue id",
            "turn_index": "turn",
            "evidence_count": "evidence shown",
            "selected_count": "evidence selected",
        }
    )
    keys = list(dict.fromkeys(key for found in labels for key in found))
    for key in keys:
        values = [found.get(key, []) for found in labels]
        if key in label_keys:
            turns[key] = [list(value) for value in values]
        else:
            turns[key] = [" | ".join(str(item) for item in value) if value else None for value in values]
    if english is not None:
        turns["text (English)"] = [english(text) for text in turns["text"].tolist()]
    turns[DIALOGUE] = turns.pop("dialogue_index")

    if _is_loaded(dialogues):
        evidence = dialogues.evidence(  # type: ignore[attr-defined]
            ["dialogue_index", "dialogue_id", "turn_index", "id", "title", "text", "origin", "selected"]
        )
    else:
        evidence = _records_evidence(dialogues)
    evidence = evidence.rename(columns={"dialogue_id": "dialogue id", "turn_index": "turn", "id": "evidence id"})
    if english is not None:
        evidence["text (English)"] = [english(text) for text in evidence["text"].tolist()]
    evidence[DIALOGUE] = evidence.pop("dialogue_index")
    return SplitRows(
        frames={"dialogues": dialogue_frame, "turns": turns, "evidence": evidence},
        id_columns={"dialogues": "id", "turns": "dialogue id", "evidence": "dialogue id"},
        kinds={"turns": {"text": "text"}, "evidence": {"text": "text", "title": "text"}},
    )


def read_level(directory: Path, level: str) -> pd.DataFrame:
    """A level's rows back from its shards (what the browser loads), as a DataFrame."""
    manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
    entry = manifest["levels"][level]
    parts = [
        pd.DataFrame(json.loads(gzip.decompress((directory / shard["file"]).read_bytes()))) for shard in entry["shards"]
    ]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


__all__ = [
    "DIALOGUE",
    "FORMAT",
    "HTML_SHARD",
    "LEVELS",
    "SEARCH",
    "SHARD_ROWS",
    "VIEWER_DIR_VARIABLE",
    "Query",
    "SplitRows",
    "column_kind",
    "read_level",
    "split_rows",
    "viewer_dir",
    "write_level",
    "write_split",
]
