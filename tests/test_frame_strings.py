"""``turns()`` and ``evidence()`` hold their texts as Arrow-backed strings, wrapping the Arrow columns
they are built from, rather than one Python string per row (issue 37, goal 4).

On the full-size synthetic WoW train, ``evidence()`` has 5.4 million rows: as Python strings, its
texts alone would take several times the memory the Arrow bytes take. The dtype is asserted so that
this cannot regress silently (a conversion through Python objects, an ``astype(object)``, a pandas
that falls back to ``object``), and the values are compared one by one with Python strings built
independently from the same cache, on the demo data and on the real train sample.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest

import utils
from tests.conftest import require_real_file

#: The string columns of each frame: the ones whose memory grows with the split.
STRING_COLUMNS = {
    "turns": ("dialogue_id", "topic", "role", "speaker", "text"),
    "evidence": ("dialogue_id", "id", "text", "title", "origin"),
}


#: pandas 3 makes Arrow-backed strings its default ``str`` dtype; pandas 2 (which pyproject.toml still
#: allows) builds Python objects unless ``future.infer_string`` is set, so the dtype is pandas 3's promise.
needs_pandas_3 = pytest.mark.skipif(
    int(pd.__version__.split(".")[0]) < 3, reason="pandas 2 holds strings as Python objects by default"
)


def _missing_as_none(values: list[Any]) -> list[Any]:
    """Missing values as ``None``: pandas' strings show them as NaN, Arrow's lists as None."""
    return [None if value is None or (isinstance(value, float) and math.isnan(value)) else value for value in values]


def _assert_arrow_strings(frame: pd.DataFrame, columns: tuple[str, ...], what: str) -> None:
    for name in columns:
        dtype = frame[name].dtype
        assert isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow", (
            f"{what}[{name!r}] is {dtype}, not an Arrow-backed string: one Python object per row"
        )


def _check_split(split: utils.LoadedSplit) -> None:
    turns, evidence = split.turns(), split.evidence()
    assert len(evidence) > 0
    _assert_arrow_strings(turns, STRING_COLUMNS["turns"], "turns()")
    _assert_arrow_strings(evidence, STRING_COLUMNS["evidence"], "evidence()")
    _assert_arrow_strings(split.evidence(["text"]), ("text",), "evidence(['text'])")
    # Value by value against Python strings: the passages' own lists, and the Arrow views' columns.
    assert _missing_as_none(evidence["text"].astype(object).tolist()) == split.evidence_texts("text")
    assert _missing_as_none(evidence["title"].astype(object).tolist()) == split.evidence_texts("title")
    stored = split.arrow("evidence")
    for name in ("id", "dialogue_id", "origin"):
        expected = stored.column(name).cast("string").to_pylist()
        assert _missing_as_none(evidence[name].astype(object).tolist()) == expected, name
    stored_turns = split.arrow("turns", ["dialogue_id", "role", "speaker", "text"])
    for name in stored_turns.column_names:
        expected = stored_turns.column(name).cast("string").to_pylist()
        assert _missing_as_none(turns[name].astype(object).tolist()) == expected, name
    # The frame's text wraps Arrow bytes: its deep size is the Arrow column's, not Python objects'.
    assert evidence["text"].memory_usage(deep=True, index=False) <= stored.num_rows * 8 + sum(
        len(text.encode()) for text in split.evidence_texts("text") if text is not None
    ) + 2**16


@needs_pandas_3
def test_demo_frames_hold_arrow_strings(data_dir: Path) -> None:
    _check_split(utils.load("wow", "train"))  # the demo sample, through the cache


@needs_pandas_3
@pytest.mark.realdata
def test_real_train_sample_frames_hold_arrow_strings(real_data_dir: Path) -> None:
    require_real_file(real_data_dir, "wow/raw/train_sample.json")
    _check_split(utils.load("wow", "train"))


def test_spelt_out_texts_come_from_the_c_library_allocator(data_dir: Path) -> None:
    """Arrow's default pool (mimalloc) kept far more resident than the spelt-out texts need: the
    texts, titles and ids ``evidence()`` spells out per row come from the C library's allocator."""
    split = utils.load("wow", "train")  # the demo sample, through the cache
    split.turns()  # its frame is cached: only what evidence() allocates is counted below
    default_pool = pa.default_memory_pool()
    before = default_pool.bytes_allocated()
    evidence = split.evidence()
    text_bytes = sum(len(text.encode()) for text in evidence["text"].dropna())
    assert text_bytes > 0
    assert default_pool.bytes_allocated() - before < text_bytes / 4
