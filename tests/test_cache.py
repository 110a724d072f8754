"""The parsed-split cache cannot go stale or corrupt.

A changed source file or a new parser version rebuilds it; a cache cut short is detected and rebuilt;
two processes loading the same split at once end with one valid cache; a second load is served from
the cache. A small stand-in parser (a JSON line per dialogue) replaces the real one through
``utils.loading.parser_for`` so that its version and speed are under the test's control.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import utils
from utils import _cache, loading
from utils.errors import DataError
from utils.records import SEEKER, WIZARD, Dialogue, Evidence, Turn

RELATIVE = "wow/raw/train.json"  # no published per-file checksum, so no warning when placed by hand
PARSES: list[str] = []


def fake_parse(path: Path, *, split: str, delay: float = 0.0) -> Iterator[Dialogue]:
    """Stand-in parser: one JSON object per line, ``{"id": ..., "turns": [text, ...]}``."""
    PARSES.append(str(path))
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            record = json.loads(line)
        except ValueError:
            raise DataError("not JSON", path=path, record=f"line {number}") from None
        time.sleep(delay)
        turns = [
            Turn(
                index=i,
                role=SEEKER if i % 2 == 0 else WIZARD,
                speaker="s",
                text=text,
                evidence=[Evidence(id=f"{i}#0", text=text.upper(), selected=i % 2 == 1)],
                labels={"n": [str(i)]},
                raw={"line": number},
            )
            for i, text in enumerate(record["turns"])
        ]
        yield Dialogue(id=record["id"], dataset="wow", split=split, turns=turns, topic=record.get("topic"))


def write_source(data_dir: Path, dialogues: int, words: str = "hello") -> Path:
    path = data_dir / RELATIVE
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps({"id": f"d{i}", "topic": f"t{i}", "turns": [f"{words} {i}", f"reply {i}"]}) for i in range(dialogues)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def parser(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """The stand-in parser; set ``parser["version"]`` to bump its PARSER_VERSION."""
    state = {"version": 1}
    PARSES.clear()
    monkeypatch.setattr(loading, "parser_for", lambda dataset: (fake_parse, state["version"]))
    return state


def cache_root() -> Path:
    return Path(os.environ["ATLAS_CACHE_DIR"])


def cache_entries() -> list[Path]:
    return sorted(p for p in cache_root().iterdir() if p.is_dir() and re.fullmatch(r"[0-9a-f]{24}", p.name))


def rebuilt(split: loading.LoadedSplit) -> bool:
    return split._tables.rebuilt


def test_second_load_is_served_from_the_cache(data_dir: Path, parser: dict[str, int]) -> None:
    write_source(data_dir, 3)
    first = utils.load("wow", "train")
    second = utils.load("wow", "train")
    assert rebuilt(first) and not rebuilt(second)
    assert len(PARSES) == 1
    assert [d.id for d in second] == ["d0", "d1", "d2"]
    assert second[1].turns[1].evidence[0].text == "REPLY 1" and second[1].turns[1].selected_evidence
    assert second.turns()["text"].tolist() == first.turns()["text"].tolist()


def test_a_changed_source_file_rebuilds(data_dir: Path, parser: dict[str, int]) -> None:
    path = write_source(data_dir, 3)
    assert len(utils.load("wow", "train")) == 3
    stat = path.stat()
    write_source(data_dir, 3, words="HELLO")  # same size: only content and mtime differ
    assert path.stat().st_size == stat.st_size
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    split = utils.load("wow", "train")
    assert rebuilt(split) and split[0].turns[0].text == "HELLO 0"
    write_source(data_dir, 5)
    assert len(utils.load("wow", "train")) == 5


def test_a_new_parser_version_rebuilds(data_dir: Path, parser: dict[str, int]) -> None:
    write_source(data_dir, 2)
    utils.load("wow", "train")
    assert not rebuilt(utils.load("wow", "train"))
    parser["version"] = 2
    assert rebuilt(utils.load("wow", "train"))
    assert not rebuilt(utils.load("wow", "train"))
    assert len(PARSES) == 2


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


DAMAGE = {
    "turns cut short": lambda d: _truncate(d / "turns.arrow"),
    "evidence emptied": lambda d: (d / "evidence.arrow").write_bytes(b""),
    "dialogues removed": lambda d: (d / "dialogues.arrow").unlink(),
    "manifest cut short": lambda d: _truncate(d / "manifest.json"),
    "manifest removed": lambda d: (d / "manifest.json").unlink(),
    "footer garbled, same size": lambda d: (d / "turns.arrow").write_bytes(
        (d / "turns.arrow").read_bytes()[:-16] + b"\0" * 16
    ),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_cache_is_detected_and_rebuilt(data_dir: Path, parser: dict[str, int], damage: str) -> None:
    write_source(data_dir, 40)
    first = utils.load("wow", "train")
    expected = first.turns()["text"].tolist()
    directory = first._tables.directory
    del first
    DAMAGE[damage](directory)
    again = utils.load("wow", "train")
    assert rebuilt(again)
    assert again.turns()["text"].tolist() == expected
    assert not rebuilt(utils.load("wow", "train"))


def test_a_parse_error_leaves_no_cache(data_dir: Path, parser: dict[str, int]) -> None:
    path = write_source(data_dir, 3)
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"id": "broken", "turns": [\n')
    with pytest.raises(DataError, match="line 4"):
        utils.load("wow", "train")
    assert cache_entries() == []
    assert not [p for p in cache_root().iterdir() if p.name.startswith(".")]  # no staging left
    write_source(data_dir, 3)
    assert len(utils.load("wow", "train")) == 3


def _load_in_child(data_dir: str, cache_dir: str, barrier: object, results: object) -> None:
    """Run in a fresh process: wait for the sibling, then load the same split with a slow parser."""
    os.environ.update({"ATLAS_DATA_DIR": data_dir, "ATLAS_CACHE_DIR": cache_dir, "ATLAS_OFFLINE": "1"})
    import utils as child_utils
    from utils import loading as child_loading

    child_loading.parser_for = lambda dataset: (lambda path, split: fake_parse(path, split=split, delay=0.01), 1)
    barrier.wait(timeout=60)  # type: ignore[attr-defined]
    split = child_utils.load("wow", "train")
    results.put((split._tables.rebuilt, len(split), split.provenance.turns, split[7].turns[1].text))  # type: ignore[attr-defined]


def test_two_processes_build_one_valid_cache(data_dir: Path, parser: dict[str, int]) -> None:
    write_source(data_dir, 30)
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    results = context.Queue()
    workers = [
        context.Process(target=_load_in_child, args=(str(data_dir), str(cache_root()), barrier, results))
        for _ in range(2)
    ]
    for worker in workers:
        worker.start()
    try:
        outcomes = [results.get(timeout=90) for _ in workers]
    finally:
        for worker in workers:
            worker.join(30)
            if worker.is_alive():  # pragma: no cover - only when the test is failing anyway
                worker.kill()
    assert [worker.exitcode for worker in workers] == [0, 0]
    assert sorted(flag for flag, *_ in outcomes) == [False, True]  # built once, reused once
    assert {tuple(rest) for _, *rest in outcomes} == {(30, 60, "reply 7")}
    entries = cache_entries()
    assert len(entries) == 1
    assert sorted(p.name for p in entries[0].iterdir()) == [
        "dialogues.arrow",
        "evidence.arrow",
        "manifest.json",
        "turns.arrow",
    ]
    assert not [p for p in cache_root().iterdir() if p.name.startswith(".")]
    assert not rebuilt(utils.load("wow", "train"))  # and this process can use it


def test_cache_key_changes_with_everything_it_covers(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_text("[]", encoding="utf-8")
    base = _cache.cache_key(path, "wow", "train", 1)
    assert base == _cache.cache_key(path, "wow", "train", 1)
    assert len({base, _cache.cache_key(path, "wow", "valid", 1), _cache.cache_key(path, "wow", "train", 2)}) == 3
    path.write_text("[ ]", encoding="utf-8")
    assert _cache.cache_key(path, "wow", "train", 1) != base
