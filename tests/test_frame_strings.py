"""How ``turns()`` and ``evidence()`` hold their strings, so that the frames of a big split fit in memory
(issue 37, goal 4: the full-size synthetic WoW train's ``turns()+evidence()`` within 1 GB).

``evidence()`` has a row per piece of evidence shown at a turn: 5.4 million rows on that train, which
show only 216 thousand distinct passages (a topic's sentences are shown again at every turn of every
dialogue on it). Its columns of repeated values (``text``, ``title``, ``origin``, ``dialogue_id``,
``meta``) hold one Python string per distinct value, shared by every row that shows it: a pointer per
row. Spelt out per row as Arrow strings they took 1,360 MB there; shared, 410 MB. Columns whose values
are (nearly) all distinct (the evidence ids, the turns' texts) stay Arrow-backed: their bytes once,
with no Python object per row. Every string column's dtype is pandas' own ``str`` either way.

Asserted on the demo data and the real train sample: the storage of each column, that a repeated
column has exactly one object per distinct value, and its values one by one against lists built
independently (Arrow ``take`` over the cache's tables, and the rebuilt records); and, on a small
synthetic train, the frame's bytes per row.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import utils
from conftest import require_real_file, resident_cache_kb

#: Columns whose values repeat from row to row: one shared Python string per distinct value.
SHARED_COLUMNS = {"turns": (), "evidence": ("dialogue_id", "text", "title", "origin")}
#: Columns of (nearly) distinct values: Arrow-backed, without a Python object per row.
ARROW_COLUMNS = {"turns": ("dialogue_id", "topic", "role", "speaker", "text"), "evidence": ("id",)}

#: pandas 3 makes ``str`` its default string dtype; pandas 2 (which pyproject.toml still allows)
#: holds strings as plain Python objects unless told otherwise, so the dtypes are pandas 3's promise.
needs_pandas_3 = pytest.mark.skipif(
    int(pd.__version__.split(".")[0]) < 3, reason="pandas 2 holds strings as Python objects by default"
)


def _missing_as_none(values: list[Any]) -> list[Any]:
    """Missing values as ``None``: pandas' strings show them as NaN, Arrow's lists as None."""
    return [None if value is None or (isinstance(value, float) and math.isnan(value)) else value for value in values]


def _storage(frame: pd.DataFrame, name: str) -> str:
    dtype = frame[name].dtype
    assert dtype == "str", f"[{name!r}] is {dtype}, not pandas' str"
    assert isinstance(dtype, pd.StringDtype)
    return dtype.storage


def _assert_shared(series: pd.Series, what: str) -> None:
    """One Python object per distinct value, every row showing it pointing at that one."""
    strings = [value for value in series.array if isinstance(value, str)]
    assert len({id(value) for value in strings}) == series.nunique(), f"{what}: not one object per distinct value"


def _check_split(split: utils.LoadedSplit) -> None:
    turns, evidence = split.turns(), split.evidence()
    assert len(evidence) > 0
    assert list(evidence.columns) == [
        "dialogue_index", "dialogue_id", "turn_index", "id", "text", "title", "origin", "selected",
    ]
    for table, frame in (("turns", turns), ("evidence", evidence)):
        for name in SHARED_COLUMNS[table]:
            assert _storage(frame, name) == "python", f"{table}()[{name!r}]"
            _assert_shared(frame[name], f"{table}()[{name!r}]")
        for name in ARROW_COLUMNS[table]:
            assert _storage(frame, name) == "pyarrow", f"{table}()[{name!r}]: one Python object per row"
    # Value by value against lists Arrow builds from the cache's own tables, not through evidence().
    passage = split.arrow("evidence", ["passage"]).column("passage")
    passages = split.arrow("passages")
    stored = split.arrow("evidence")
    expected = {
        "text": pc.take(passages.column("text"), passage).to_pylist(),
        "title": pc.take(passages.column("title"), passage).to_pylist(),
        **{name: stored.column(name).cast(pa.string()).to_pylist() for name in ("id", "dialogue_id", "origin")},
    }
    for name, values in expected.items():
        assert _missing_as_none(evidence[name].tolist()) == values, name
    assert split.evidence_texts("text") == expected["text"]
    assert split.evidence_texts("title") == expected["title"]
    stored_turns = split.arrow("turns", ["dialogue_id", "role", "speaker", "text"])
    for name in stored_turns.column_names:
        assert _missing_as_none(turns[name].tolist()) == stored_turns.column(name).to_pylist(), name
    # Columns asked for come in the order asked, alike.
    some = split.evidence(["title", "dialogue_index", "meta", "text"])
    assert list(some.columns) == ["title", "dialogue_index", "meta", "text"]
    assert _storage(some, "meta") == "python"
    _assert_shared(some["meta"], "evidence()['meta']")
    assert _missing_as_none(some["meta"].tolist()) == pc.take(passages.column("meta"), passage).to_pylist()
    assert some["text"].equals(evidence["text"]) and some["title"].equals(evidence["title"])
    assert list(split.evidence(["text"]).columns) == ["text"]


def _check_records(split: utils.LoadedSplit) -> None:
    """The frame's rows say what the rebuilt records say."""
    evidence = split.evidence()
    rows = [
        (dialogue.id, turn.index, item.id, item.text, item.title, item.origin, item.selected)
        for dialogue in split
        for turn in dialogue.turns
        for item in turn.evidence
    ]
    names = ["dialogue_id", "turn_index", "id", "text", "title", "origin", "selected"]
    assert list(zip(*(_missing_as_none(evidence[name].tolist()) for name in names), strict=True)) == rows


@needs_pandas_3
def test_demo_frames_share_repeated_strings(data_dir: Path) -> None:
    split = utils.load("wow", "train")  # the demo sample, through the cache
    _check_split(split)
    _check_records(split)


@needs_pandas_3
@pytest.mark.realdata
def test_real_train_sample_frames_share_repeated_strings(real_data_dir: Path) -> None:
    require_real_file(real_data_dir, "wow/raw/train_sample.json")
    split = utils.load("wow", "train")
    _check_split(split)
    _check_records(split)


def _column_bytes(series: pd.Series) -> int:
    """The memory a column holds: a Python-backed one, its pointers and each distinct object once."""
    if series.dtype == object or (isinstance(series.dtype, pd.StringDtype) and series.dtype.storage == "python"):
        distinct = {id(value): value for value in series.array}
        return 8 * len(series) + sum(sys.getsizeof(value) for value in distinct.values())
    return int(series.memory_usage(deep=True, index=False))


def test_evidence_frame_bytes_per_row(data_dir: Path) -> None:
    """On a synthetic WoW train (a 500th of the full size: 11 thousand evidence rows), ``evidence()``
    holds at most 128 bytes per row, ids and all: 108 with its repeated strings shared, 254 with every
    column spelt out per row as Arrow strings (the texts alone 154)."""
    from benchmarks.synthetic import write_wow

    write_wow(data_dir, scale=0.002, files=["train.json"])
    evidence = utils.load("wow", "train").evidence()
    assert len(evidence) > 10_000
    per_row = {name: _column_bytes(evidence[name]) / len(evidence) for name in evidence.columns}
    assert sum(per_row.values()) <= 128, {name: round(size, 1) for name, size in per_row.items()}


def test_spelt_out_ids_come_from_the_c_library_allocator(data_dir: Path) -> None:
    """Arrow's default pool (mimalloc) kept far more resident than columns spelt out per row need: the
    ids ``evidence()`` spells out per row come from the C library's allocator."""
    split = utils.load("wow", "train")  # the demo sample, through the cache
    split.turns()  # its frame is cached: only what evidence() allocates is counted below
    default_pool = pa.default_memory_pool()
    before = default_pool.bytes_allocated()
    evidence = split.evidence(["id"])
    id_bytes = sum(len(value.encode()) for value in evidence["id"])
    assert id_bytes > 0
    assert default_pool.bytes_allocated() - before < id_bytes / 4


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="reads Linux's /proc/self/smaps")
def test_frames_leave_no_page_of_the_cache_resident(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The frames hold copies of what they read from the memory-mapped cache: once built, its pages are
    handed back (they stay in the kernel's page cache), so that they do not count as the process's
    memory on top of the frames (about 130 MB on the full-size synthetic WoW train)."""
    cache = data_dir.parent / "frames-cache"
    monkeypatch.setenv("ATLAS_CACHE_DIR", str(cache))
    split = utils.load("wow", "train")  # the demo sample, through the cache
    assert split._tables.mappings, "the demo split is served from the memory-mapped cache"
    turns = split.turns()
    assert resident_cache_kb(cache) == 0
    evidence = split.evidence()
    assert resident_cache_kb(cache) == 0
    assert len(turns) and len(evidence)  # still readable: the pages come back from the page cache
    assert evidence["text"].notna().all() and turns["dialogue_index"].sum() >= 0
