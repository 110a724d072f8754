"""What a walk through a split (``for dialogue in split``) costs beyond making its records (issue 37,
goal 4: every dialogue, turn and evidence of the full-size synthetic WoW train within 5 s of CPU).

A walk rebuilds the dialogues a chunk at a time with the cyclic garbage collector paused: tens of
thousands of new objects, none in a reference cycle, which the walk then freezes (``gc.freeze``) so
that the collector never scans them. When the collector came back on before the freeze, its very next
allocation started a pass over the whole new chunk: on that train, 72 passes and 2.3 of 10.7 s of CPU.
The turns' ``raw`` texts are stored compressed in batches that the walk's chunks cut across: each
batch is decompressed once, not once per chunk that reads from it.
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest

import utils
from utils import loading


@pytest.fixture
def synthetic_train(data_dir: Path) -> utils.LoadedSplit:
    """A synthetic WoW train a 500th of the full size: 37 dialogues, 11 thousand evidence rows."""
    from benchmarks.synthetic import write_wow

    write_wow(data_dir, scale=0.002, files=["train.json"])
    return utils.load("wow", "train")


@pytest.fixture
def collecting() -> Any:
    """The collector on, as in a fresh process, whatever a test before left; back as it was after."""
    was_on = gc.isenabled()
    gc.enable()
    yield
    if not was_on:
        gc.disable()


def test_walking_a_split_starts_no_collection(synthetic_train: utils.LoadedSplit, collecting: None) -> None:
    started: list[int] = []

    def record(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started.append(info["generation"])

    gc.collect()  # what the test's set-up allocated is not counted against the walk
    gc.callbacks.append(record)
    try:
        walked = sum(len(turn.evidence) for dialogue in synthetic_train for turn in dialogue.turns)
    finally:
        gc.callbacks.remove(record)
    assert walked == len(synthetic_train.evidence(["selected"])) > 5_000
    assert started == [], f"the collector ran {len(started)} times during the walk"
    assert gc.get_freeze_count() == 0 and gc.isenabled()  # the walk thawed what it froze


class _CountingReader:
    """An Arrow file reader that counts the record batches read (each one decompressed)."""

    def __init__(self, reader: Any) -> None:
        self._reader = reader
        self.read: list[int] = []

    def get_batch(self, number: int) -> Any:
        self.read.append(number)
        return self._reader.get_batch(number)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._reader, name)


def test_a_walk_decompresses_each_raw_batch_once(
    synthetic_train: utils.LoadedSplit, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(loading, "_ITER_MOST_DIALOGUES", 3)  # chunks that end in the middle of a batch
    expected = [[turn.raw for turn in dialogue.turns] for dialogue in synthetic_train[:]]
    raw = synthetic_train._tables.raw
    counting = _CountingReader(raw._reader)
    monkeypatch.setattr(raw, "_reader", counting)
    monkeypatch.setattr(raw, "_last", None, raising=False)  # nothing decompressed yet
    assert [[turn.raw for turn in dialogue.turns] for dialogue in synthetic_train] == expected
    assert len(synthetic_train) > 3 * counting.num_record_batches  # chunks read each batch several times
    assert counting.read == list(range(counting.num_record_batches))


def _evidence_rows(dialogue: utils.records.Dialogue) -> int:
    return sum(len(turn.evidence) for turn in dialogue.turns)


@pytest.mark.parametrize(("evidence_rows", "most_dialogues"), [(1, 256), (600, 256), (2_000, 4), (10**9, 256)])
def test_a_walk_rebuilds_about_so_many_evidence_rows_at_a_time(
    synthetic_train: utils.LoadedSplit, evidence_rows: int, most_dialogues: int
) -> None:
    """The walk's ranges cover the split in order, each within its bounds (one dialogue of more rows
    stands alone) and as long as they allow: the next dialogue would have crossed one."""
    sizes = [_evidence_rows(dialogue) for dialogue in synthetic_train[:]]
    assert max(sizes) > 1 and len(set(sizes)) > 1  # dialogues of unequal size, so that bounds bite
    ranges = utils._cache.walk_chunks(synthetic_train._tables, evidence_rows, most_dialogues)
    assert [start for start, _ in ranges] == [0] + [stop for _, stop in ranges[:-1]]
    assert ranges[-1][1] == len(sizes)
    for start, stop in ranges:
        rows = sum(sizes[start:stop])
        assert stop - start <= most_dialogues
        assert rows <= evidence_rows or stop - start == 1
        if stop < len(sizes):
            assert stop - start == most_dialogues or rows + sizes[stop] > evidence_rows


def test_a_walk_gives_every_dialogue_whatever_the_ranges(
    synthetic_train: utils.LoadedSplit, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = synthetic_train[:]
    for evidence_rows in (1, 300, 10**9):
        monkeypatch.setattr(loading, "_ITER_EVIDENCE_ROWS", evidence_rows)
        assert list(synthetic_train) == expected
