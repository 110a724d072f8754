"""The cache of many tiny dialogues is not mostly record-batch overhead.

Measured on a million dialogues of a question and an answer each (a 60.7 MB JSON-lines file): the
cache took 208.4 MB (3.43 times the file) with a record batch per 128 dialogues, 197.5 MB (3.26) with
up to 4,096. What remains is the columns themselves, each row's offsets and fixed-width fields: per
turn a role and a speaker string, the dialogue's id again, ``{}`` for no labels, three counts and an
int64 evidence start; per dialogue the dataset and split names, ``{}`` for no metadata and an int64
turn start.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from utils import _cache
from utils.records import SEEKER, WIZARD, Dialogue, Evidence, Turn

DIALOGUES = 10_000


def _tiny_dialogues() -> list[Dialogue]:
    return [
        Dialogue(
            id=f"d{i}",
            dataset="wow",
            split="train",
            turns=[
                Turn(index=0, role=SEEKER, speaker="s", text=f"hello {i}", evidence=[]),
                Turn(index=1, role=WIZARD, speaker="w", text=f"reply {i}", evidence=[]),
            ],
        )
        for i in range(DIALOGUES)
    ]


def test_tiny_dialogues_are_written_in_few_record_batches(tmp_path: Path) -> None:
    target = tmp_path / "entry"
    _cache.storage._build(target, _tiny_dialogues())
    overhead = 0
    for name in ("dialogues", "turns"):
        path = target / f"{name}.arrow"
        with pa.memory_map(str(path)) as source:
            reader = pa.ipc.open_file(source)
            batches = reader.num_record_batches
            columns = sum(column.nbytes for column in reader.read_all().columns)
        assert batches <= -(-DIALOGUES // 4096), (name, batches)
        overhead += path.stat().st_size - columns
    # metadata, padding and footer: under a byte and a half per dialogue (12 with 128 a batch)
    assert overhead < 1.5 * DIALOGUES, overhead
    tables, _ = _cache.storage._open(target)
    assert tables is not None and tables.dialogues.num_rows == DIALOGUES and tables.turns.num_rows == 2 * DIALOGUES


def test_compressed_tables_hold_the_same_batches_and_growing_dictionaries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small split's tables compressed after they were written (issue 50, item 12): the same tables,
    record batch for record batch, with the evidence origins' dictionary growing from batch to batch."""
    monkeypatch.setattr(_cache.encoding, "_OBJECT_BATCH", 8)
    monkeypatch.setattr(_cache.encoding, "_BATCH_DIALOGUES", 8)
    dialogues = [
        Dialogue(id=f"d{i}", dataset="wow", split="train", turns=[
            Turn(index=0, role=WIZARD, speaker="w", text=f"reply {i} " * 20,
                 evidence=[Evidence(id="e", text=f"passage {i % 5}", origin=f"origin {i // 8}", selected=True)]),
        ])
        for i in range(40)
    ]
    plain, packed = tmp_path / "plain", tmp_path / "packed"
    _cache.storage._build(plain, dialogues)
    _cache.storage._build(packed, dialogues, compress_beyond=0)
    for name in ("dialogues", "turns", "evidence", "passages"):
        with pa.memory_map(str(plain / f"{name}.arrow")) as one, pa.memory_map(str(packed / f"{name}.arrow")) as two:
            first, second = pa.ipc.open_file(one), pa.ipc.open_file(two)
            assert first.num_record_batches == second.num_record_batches > (1 if name != "passages" else 0)
            assert first.read_all().equals(second.read_all()), name
    assert (packed / "turns.arrow").stat().st_size < (plain / "turns.arrow").stat().st_size
    tables, _ = _cache.storage._open(packed)
    assert tables is not None and _cache.rebuild_dialogues(tables, 0, 40) == dialogues
    _cache.storage._build(tmp_path / "not-beyond", dialogues, compress_beyond=1 << 30)  # tables under the file
    assert (tmp_path / "not-beyond" / "turns.arrow").read_bytes() == (plain / "turns.arrow").read_bytes()
