"""Walking a split leaves the cyclic garbage collector nothing to scan (issue 37, goal 4).

A walk (``for dialogue in split``) rebuilds the dialogues a chunk at a time with the collector paused:
tens of thousands of new objects, none in a reference cycle, which the walk then freezes
(``gc.freeze``) so that the collector never scans them. When the collector came back on before the
freeze, its very next allocation started a pass over the whole new chunk: on the full-size synthetic
WoW train, 72 passes and 2.3 of 10.7 s of CPU.
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import utils


def test_walking_a_split_starts_no_collection(data_dir: Path) -> None:
    from benchmarks.synthetic import write_wow

    write_wow(data_dir, scale=0.002, files=["train.json"])  # a chunk of thousands of evidence rows
    split = utils.load("wow", "train")
    started: list[int] = []

    def record(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started.append(info["generation"])

    gc.collect()  # what the test's set-up allocated is not counted against the walk
    gc.callbacks.append(record)
    try:
        walked = sum(len(turn.evidence) for dialogue in split for turn in dialogue.turns)
    finally:
        gc.callbacks.remove(record)
    assert walked == len(split.evidence(["selected"])) > 5_000
    assert started == [], f"the collector ran {len(started)} times during the walk"
    assert gc.get_freeze_count() == 0 and gc.isenabled()  # the walk thawed what it froze
