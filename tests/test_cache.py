"""The parsed-split cache cannot go stale or corrupt, and never stops a load.

A changed source file or a new parser version rebuilds it; a cache cut short, damaged or in another
format is detected and rebuilt with a warning; two processes loading the same split at once end
with one valid cache; a build killed half-way leaves nothing a later load takes for a cache; a second
load is served from the cache. When the cache cannot be written (a full disk, a read-only directory,
a file in the way) the split is loaded in memory with one warning. A small stand-in parser (a JSON
line per dialogue) replaces the real one in WoW's declaration (``parse``, ``parser_version``) so that its version and
speed are under the test's control.
"""

from __future__ import annotations

import errno
import io
import json
import multiprocessing
import os
import re
import signal
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

import utils
from conftest import require_real_file, use_parser, with_parser
from utils import _cache, loading
from utils.errors import DataError
from utils.records import SEEKER, WIZARD, Dialogue, Evidence, Turn
from utils.sources import registry

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


class StandInParser(dict):
    """``{"version": n}``: setting the version declares the stand-in parser at that version."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        super().__init__()
        self._monkeypatch = monkeypatch
        self["version"] = 1

    def __setitem__(self, key: str, value: int) -> None:
        super().__setitem__(key, value)
        self._monkeypatch.setitem(registry(), "wow", with_parser("wow", fake_parse, value))


@pytest.fixture
def parser(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """The stand-in parser; set ``parser["version"]`` to bump its PARSER_VERSION."""
    PARSES.clear()
    return StandInParser(monkeypatch)


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


def test_evidence_objects_are_evidence_codes_as_shared_python_objects() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", utils.DemoDataWarning)
        tables = utils.load("wow", "valid_unseen")._tables
    for name in _cache.EVIDENCE_REPEATED_COLUMNS:
        values, codes = _cache.evidence_codes(tables, name)
        shared, positions = _cache.evidence_objects(tables, name)
        assert shared[-1] is None and len(shared) == len(values) + 1, name
        assert shared[:-1].tolist() == values.to_pylist(), name  # the same distinct values, in the same order
        assert positions.tolist() == codes.tolist(), name


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
    "raw texts cut short": lambda d: _truncate(d / "raw.arrow"),
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
    with pytest.warns(utils.CacheWarning, match="could not be read") as caught:
        again = utils.load("wow", "train")
    assert len(caught) == 1 and str(directory) in str(caught[0].message)
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

    use_parser("wow", lambda path, split: fake_parse(path, split=split, delay=0.01))
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
        "passages.arrow",
        "raw.arrow",
        "turns.arrow",
        "verified.json",
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


# -- a cache that cannot be written or read -----------------------------------------------------------


class FullDisk(io.RawIOBase):
    """A table file on a disk that fills up after ``room`` bytes: the write then fails with ENOSPC."""

    def __init__(self, path: Path, room: int) -> None:
        self._file = open(path, "wb")  # noqa: SIM115 - closed by close()
        self._room = room

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]
        if len(data) > self._room:
            raise OSError(errno.ENOSPC, "Error writing bytes to file. Detail: [errno 28] No space left on device")
        self._room -= len(data)
        return self._file.write(data)

    def close(self) -> None:
        self._file.close()
        super().close()


def fill_the_disk_after(monkeypatch: pytest.MonkeyPatch, room: int) -> list[Path]:
    """Make every cache table file fail once ``room`` bytes are written to it; return the files opened."""
    opened: list[Path] = []

    def open_sink(path: Path) -> FullDisk:
        opened.append(path)
        return FullDisk(path, room)

    monkeypatch.setattr(_cache.storage, "_open_sink", open_sink)
    return opened


def no_cache_left(root: Path) -> None:
    """Nothing of a build in ``root``: no entry and no staging directory (lock files may stay)."""
    leftovers = [p.name for p in root.iterdir() if p.is_dir() and p.name != "locks"]
    assert leftovers == [], leftovers


def cache_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, utils.CacheWarning)]


def test_a_full_disk_loads_the_split_in_memory_with_one_warning(
    data_dir: Path, parser: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_source(data_dir, 40)
    monkeypatch.setattr(_cache.encoding, "_BATCH_DIALOGUES", 4)  # several batches, so the disk fills mid-build
    opened = fill_the_disk_after(monkeypatch, 3000)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        split = utils.load("wow", "train")
    [message] = cache_warnings(caught)
    assert str(cache_root()) in message and "no space left" in message and "ATLAS_CACHE_DIR" in message
    assert "wow/train" in message and str(data_dir / RELATIVE) in message
    assert opened, "the build never reached the disk"
    assert split._tables.directory is None
    assert len(split) == 40 and split[39].turns[1].text == "reply 39"
    assert split.provenance.turns == 80 and split.turns()["text"].tolist()[:2] == ["hello 0", "reply 0"]
    no_cache_left(cache_root())
    storage = _cache.storage
    monkeypatch.setattr(storage, "_open_sink", lambda path: storage.pa.OSFile(str(path), "wb"))  # space again
    with warnings.catch_warnings():
        warnings.simplefilter("error", utils.CacheWarning)
        again = utils.load("wow", "train")
    assert rebuilt(again) and again._tables.directory is not None and len(again) == 40


def test_a_full_disk_failing_at_the_footer_still_loads(
    data_dir: Path, parser: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # One batch fits; the last write, the file's footer, does not (on a nearly full disk the last
    # write is the likeliest to fail): the half-written files must go too.
    write_source(data_dir, 3)
    sizes: list[int] = []
    fill_the_disk_after(monkeypatch, 1 << 30)
    utils.load("wow", "train")
    for entry in cache_entries():
        sizes += [(entry / f"{name}.arrow").stat().st_size for name in ("dialogues", "turns", "evidence")]
    for entry in cache_entries():
        for child in entry.iterdir():
            child.unlink()
        entry.rmdir()
    fill_the_disk_after(monkeypatch, min(sizes) - 8)
    with pytest.warns(utils.CacheWarning, match="no space left"):
        split = utils.load("wow", "train")
    assert [d.id for d in split] == ["d0", "d1", "d2"]
    no_cache_left(cache_root())


def test_a_parse_error_is_not_taken_for_a_cache_failure(
    data_dir: Path, parser: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_source(data_dir, 3)
    with path.open("a", encoding="utf-8") as handle:
        handle.write("not json\n")
    fill_the_disk_after(monkeypatch, 1 << 30)
    with warnings.catch_warnings():
        warnings.simplefilter("error", utils.CacheWarning)
        with pytest.raises(DataError, match="line 4"):
            utils.load("wow", "train")
    # and an OSError of the source file itself is the source's, not the cache's
    write_source(data_dir, 3)
    monkeypatch.setitem(registry(), "wow", with_parser("wow", lambda source, split: _unreadable(source)))
    with warnings.catch_warnings():
        warnings.simplefilter("error", utils.CacheWarning)
        with pytest.raises(PermissionError, match="source unreadable"):
            utils.load("wow", "train")


def _unreadable(path: Path) -> Iterator[Dialogue]:
    yield from fake_parse(path, split="train")
    raise PermissionError(errno.EACCES, "source unreadable", str(path))


def _file_in_the_way(root: Path) -> str:
    root.parent.mkdir(parents=True, exist_ok=True)
    root.write_text("not a directory", encoding="utf-8")
    return "a file stands where a directory is needed"


def _file_above(root: Path) -> str:
    root.parent.parent.mkdir(parents=True, exist_ok=True)
    root.parent.write_text("not a directory", encoding="utf-8")
    return "a file stands where a directory is needed"


@pytest.mark.parametrize("case", ["cache path is a file", "a parent of it is a file", "read-only directory"])
def test_an_unwritable_cache_loads_the_split_with_one_warning(
    data_dir: Path, parser: dict[str, int], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, make_read_only, case: str
) -> None:
    write_source(data_dir, 5)
    if case == "cache path is a file":
        root = tmp_path / "cache-file"
        reason = _file_in_the_way(root)
    elif case == "a parent of it is a file":
        root = tmp_path / "holder" / "blocker" / "parsed"
        reason = _file_above(root)
    else:
        root = tmp_path / "ro-cache"
        root.mkdir()
        how = make_read_only(root)
        reason = "read-only file system" if how == "read-only mount" else "permission denied"
    monkeypatch.setenv("ATLAS_CACHE_DIR", str(root))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        split = utils.load("wow", "train")
    [message] = cache_warnings(caught)
    assert str(root) in message and reason in message and "ATLAS_CACHE_DIR" in message
    assert [d.id for d in split] == [f"d{i}" for i in range(5)] and split._tables.directory is None


def test_a_read_only_cache_still_serves_what_it_holds(
    data_dir: Path, parser: dict[str, int], make_read_only
) -> None:
    write_source(data_dir, 4)
    assert rebuilt(utils.load("wow", "train"))
    make_read_only(cache_root())
    with warnings.catch_warnings():
        warnings.simplefilter("error", utils.CacheWarning)
        again = utils.load("wow", "train")
    assert not rebuilt(again) and len(again) == 4 and len(PARSES) == 1


def test_a_cache_in_a_newer_format_is_rebuilt_with_a_warning(data_dir: Path, parser: dict[str, int]) -> None:
    write_source(data_dir, 3)
    directory = utils.load("wow", "train")._tables.directory
    assert directory is not None
    manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
    manifest["format"] = _cache.CACHE_FORMAT_VERSION + 1
    (directory / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.warns(utils.CacheWarning, match=f"cache format {_cache.CACHE_FORMAT_VERSION + 1}") as caught:
        again = utils.load("wow", "train")
    assert str(directory) in str(caught[0].message) and "rebuilt" in str(caught[0].message)
    assert caught[0].filename == __file__  # the warning names the caller's line, not one inside utils
    assert rebuilt(again) and [d.id for d in again] == ["d0", "d1", "d2"]
    assert not rebuilt(utils.load("wow", "train"))


def test_kilt_dev_loads_with_the_disk_full_by_a_patched_writer(
    real_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_real_file(real_data_dir, "wow/kilt/wow-dev-kilt.jsonl")
    # Written uncompressed, as a split over COMPRESSED_BELOW is (compressed, KILT dev's fits in 1 MB).
    monkeypatch.setattr(_cache, "COMPRESSED_BELOW", 0)
    fill_the_disk_after(monkeypatch, 1 << 20)  # each table gets 1 MB: the turns table needs more
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        split = utils.load("wow_kilt", "dev")
    [message] = cache_warnings(caught)
    assert "wow_kilt/dev" in message and str(cache_root()) in message and "no space left" in message
    assert len(split) == 3054 and split.provenance.kind == "official"  # the real count (PROVENANCE.md)
    no_cache_left(cache_root())


def test_kilt_dev_loads_on_a_2_mb_cache_filesystem(
    real_data_dir: Path, monkeypatch: pytest.MonkeyPatch, tiny_filesystem
) -> None:
    """The issue's own case: a real full disk, a tmpfs of 2 MB (needs root; skipped otherwise)."""
    require_real_file(real_data_dir, "wow/kilt/wow-dev-kilt.jsonl")
    root = tiny_filesystem("2m") / "parsed"
    monkeypatch.setenv("ATLAS_CACHE_DIR", str(root))
    # Written uncompressed, as a split over COMPRESSED_BELOW is (compressed, KILT dev's 0.9 MB would fit).
    monkeypatch.setattr(_cache, "COMPRESSED_BELOW", 0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        split = utils.load("wow_kilt", "dev")
    [message] = cache_warnings(caught)
    assert str(root) in message and "no space left" in message and "ENOSPC" in message
    assert "ATLAS_CACHE_DIR" in message
    assert len(split) == 3054 and split.provenance.turns == 16804
    assert split[0].id == "54b85f36-99cd-11ea-aa09-57c1ffc5a65b_3"  # the file's first line
    no_cache_left(root)
    assert sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) < 64 * 1024  # hashes and locks only


# -- a build killed half-way --------------------------------------------------------------------------


def _build_slowly_in_child(data_dir: str, cache_dir: str) -> None:
    """Run in a fresh process: start building the cache of a split, slowly, until killed."""
    os.environ.update({"ATLAS_DATA_DIR": data_dir, "ATLAS_CACHE_DIR": cache_dir, "ATLAS_OFFLINE": "1"})
    import utils as child_utils
    from utils._cache import encoding as child_cache

    child_cache._BATCH_DIALOGUES = 2  # type: ignore[misc]  # batches reach the disk early
    use_parser("wow", lambda path, split: fake_parse(path, split=split, delay=0.05))
    child_utils.load("wow", "train")


def test_a_build_killed_half_way_is_never_taken_for_a_cache(data_dir: Path, parser: dict[str, int]) -> None:
    write_source(data_dir, 400)  # 20 s at the child's pace: it is killed long before the end
    context = multiprocessing.get_context("spawn")
    child = context.Process(target=_build_slowly_in_child, args=(str(data_dir), str(cache_root())))
    child.start()
    try:
        deadline = time.monotonic() + 60
        staging: list[Path] = []
        while time.monotonic() < deadline:
            staging = [p for p in cache_root().iterdir() if p.is_dir() and p.name.startswith(".")]
            if staging and any(f.stat().st_size > 0 for f in staging[0].iterdir()):
                break
            time.sleep(0.05)
        assert staging, "the child never started writing its cache"
        os.kill(child.pid, signal.SIGKILL)  # type: ignore[arg-type]
        child.join(30)
    finally:
        if child.is_alive():  # pragma: no cover - only when the test is failing anyway
            child.kill()
            child.join(10)
    assert child.exitcode == -signal.SIGKILL
    assert cache_entries() == []  # half a build is in a hidden staging directory, not an entry
    assert staging[0].exists()
    split = utils.load("wow", "train")
    assert rebuilt(split) and len(split) == 400 and split[399].turns[0].text == "hello 399"
    assert not staging[0].exists()  # the dead build's leftovers were removed
    assert len(cache_entries()) == 1
    assert not [p for p in cache_root().iterdir() if p.is_dir() and p.name.startswith(".")]


def _shown(*texts: str) -> Dialogue:
    turns = [
        Turn(index=0, role=SEEKER, speaker="s", text="q", evidence=[]),
        Turn(
            index=1,
            role=WIZARD,
            speaker="w",
            text="a",
            evidence=[
                Evidence(id=f"e{k}", text=text, title="T" if k else None, meta={"k": k}) for k, text in enumerate(texts)
            ],
        ),
    ]
    return Dialogue(id="d", dataset="wow", split="train", turns=turns)


def test_each_distinct_passage_is_stored_once_per_split() -> None:
    # A passage is its text, title and metadata together: the same text under another title or with
    # other metadata is a passage of its own. Evidence ids, origins and selections stay per row.
    dialogues = [_shown("x", "y", "x"), _shown("x", "y"), _shown("z")]
    tables = _cache.build_in_memory(dialogues)
    assert tables.passages.column("text").to_pylist() == ["x", "y", "x", "z"]
    assert tables.passages.column("title").to_pylist() == [None, "T", "T", None]
    assert tables.passages.column("meta").to_pylist() == ['{"k":0}', '{"k":1}', '{"k":2}', '{"k":0}']
    assert tables.evidence.column("passage").to_pylist() == [0, 1, 2, 0, 1, 3]
    assert _cache.rebuild_dialogues(tables, 0, 3) == dialogues
    assert _cache.rebuild_dialogues(tables, 1, 3) == dialogues[1:]


def test_passages_are_shared_across_batches_and_origins_grow_between_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_cache.encoding, "_BATCH_DIALOGUES", 1)
    dialogues = [_shown("x", "y"), _shown("y", "z"), _shown("x")]
    for number, dialogue in enumerate(dialogues):
        for item in dialogue.turns[1].evidence:
            item.origin = f"channel {number % 2}"
    tables = _cache.build_in_memory(dialogues)
    assert tables.passages.num_rows == 4  # y under title T twice, x with k=0 twice
    assert _cache.rebuild_dialogues(tables, 0, 3) == dialogues
    evidence = _cache.evidence_table(tables)
    assert evidence.column("origin").to_pylist() == ["channel 0"] * 2 + ["channel 1"] * 2 + ["channel 0"]
    assert evidence.column("dialogue_id").to_pylist() == ["d"] * 5


@pytest.mark.parametrize(
    "raw",
    [
        {"score": float("nan"), "words": ["null", "nullable"]},  # msgspec would write NaN as null
        {"big": 10**40, "small": -(2**63) - 1, "float": 1e-300, "negative zero": -0.0},
        {"text": "Ünïcode \U0001f600 \u2028 \"quoted\" \\ back\nslash \x00", "nested": [[[{"a": []}]]]},
        {"none": None, "bools": [True, False], "empty": {}, "list": []},
    ],
    ids=["nan", "numbers", "text", "null"],
)
def test_stored_json_texts_read_back_as_written(raw: dict) -> None:
    dialogue = Dialogue(
        id="d",
        dataset="wow",
        split="train",
        turns=[Turn(0, SEEKER, "s", "hi", [], {"label": ["x"]}, raw)],
        meta=dict(raw),
    )
    tables = _cache.build_in_memory([dialogue])
    (back,) = _cache.rebuild_dialogues(tables, 0, 1)
    # json.dumps writes NaN as NaN (not valid JSON, but the value): texts compare where values cannot.
    assert json.dumps(back.turns[0].raw) == json.dumps(raw)
    assert json.dumps(back.meta) == json.dumps(raw)
    assert [type(value) for value in back.turns[0].raw.values()] == [type(value) for value in raw.values()]


def test_the_memory_of_distinct_passages_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_cache.encoding, "_BATCH_DIALOGUES", 1)
    dialogues = [_shown("a", "b", "c"), _shown("a", "b"), _shown("c", "a")]
    assert _cache.build_in_memory(dialogues).passages.num_rows == 5
    monkeypatch.setattr(_cache.encoding, "_DISTINCT_PASSAGES", 2)
    tables = _cache.build_in_memory(dialogues)
    assert _cache.rebuild_dialogues(tables, 0, 3) == dialogues
    assert tables.passages.num_rows == 7  # the second dialogue's two came after the memory started afresh


# -- a cache file damaged in place (issue 24, item 12) -------------------------------------------------


def _overwrite(path: Path, offset: int, data: bytes) -> None:
    with open(path, "r+b") as handle:
        handle.seek(offset)
        handle.write(data)


@pytest.mark.parametrize("table", ["dialogues", "turns", "evidence", "passages", "raw"])
def test_bytes_overwritten_in_place_are_detected_and_rebuilt(
    data_dir: Path, parser: dict[str, int], table: str
) -> None:
    # The size and the Arrow footer stay as they were: only the checksum can tell. Without it a
    # damaged offsets buffer crashed the process or raised UnicodeDecodeError or SystemError.
    write_source(data_dir, 40)
    first = utils.load("wow", "train")
    expected = [dialogue.turns for dialogue in first]
    directory = first._tables.directory
    del first
    path = directory / f"{table}.arrow"
    size = path.stat().st_size
    _overwrite(path, size // 3, bytes([0xFF, 0xFE, 0x7F, 0x80, 0x00, 0xC3, 0x28, 0xFF]))
    assert path.stat().st_size == size
    _cache.storage._CHECKED.clear()  # as a new process would
    with pytest.warns(utils.CacheWarning, match=f"{table}.arrow is damaged") as caught:
        again = utils.load("wow", "train")
    assert len(caught) == 1
    assert rebuilt(again) and [dialogue.turns for dialogue in again] == expected


def test_a_new_process_does_not_read_a_verified_file_again(
    data_dir: Path, parser: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Reading every byte of the cache in each new process would make a reload of a full-size split
    # take a read of the whole cache instead of a memory map.
    write_source(data_dir, 40)
    directory = utils.load("wow", "train")._tables.directory
    _cache.storage._CHECKED.clear()  # as a new process would
    read: list[str] = []
    crc32 = _cache.storage._crc32
    monkeypatch.setattr(_cache.storage, "_crc32", lambda path: read.append(path.name) or crc32(path))
    assert not rebuilt(utils.load("wow", "train"))
    assert read == []
    (directory / "verified.json").unlink()  # no record: each file is read once, and recorded again
    _cache.storage._CHECKED.clear()
    assert not rebuilt(utils.load("wow", "train"))
    assert sorted(read) == sorted(f"{name}.arrow" for name in _cache.storage._FILES)
    _cache.storage._CHECKED.clear()
    read.clear()
    assert not rebuilt(utils.load("wow", "train"))
    assert read == []
    turns = directory / "turns.arrow"
    _overwrite(turns, 100, bytes([turns.read_bytes()[100] ^ 0xFF]))  # in place: the record no longer holds
    _cache.storage._CHECKED.clear()
    with pytest.warns(utils.CacheWarning, match="turns.arrow is damaged"):
        assert rebuilt(utils.load("wow", "train"))


def test_the_cache_lays_out_the_one_record_schema(data_dir: Path) -> None:
    """The cache's tables, ``atlas export`` and ``to_hf_dataset("records")`` share one declared record
    schema: every cached column that is a record's field has that field's type."""
    from utils.records import RECORD_SCHEMA

    turn = RECORD_SCHEMA.field("turns").type.value_type
    evidence = turn.field("evidence").type.value_type
    record_fields = {
        ("dialogues", "id"): RECORD_SCHEMA.field("id"),
        ("dialogues", "topic"): RECORD_SCHEMA.field("topic"),
        ("dialogues", "meta"): RECORD_SCHEMA.field("meta"),
        ("turns", "dialogue_id"): RECORD_SCHEMA.field("id"),
        ("turns", "turn_index"): turn.field("index"),
        ("turns", "role"): turn.field("role"),
        ("turns", "text"): turn.field("text"),
        ("evidence", "id"): evidence.field("id"),
        ("evidence", "selected"): evidence.field("selected"),
        ("passages", "text"): evidence.field("text"),
        ("passages", "title"): evidence.field("title"),
    }
    split = utils.load("jwhr", "answered")  # the demo sample, through the cache
    for (table, column), field in record_fields.items():
        assert split.arrow(table).schema.field(column).type == field.type, (table, column)


def test_arrow_gives_the_columns_asked_for_without_decompressing_raw(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    split = utils.load("wow", "train")  # the demo sample, through the cache
    whole = split.arrow("turns")
    assert "raw" in whole.column_names
    with pytest.raises(utils.UnknownNameError, match="'txt'"):
        split.arrow("turns", ["txt"])
    decompressed: list[int] = []
    monkeypatch.setattr(_cache, "turns_table", lambda tables: decompressed.append(1))
    texts = split.arrow("turns", ["dialogue_id", "text"])
    assert texts.column_names == ["dialogue_id", "text"] and decompressed == []
    assert texts.column("text").to_pylist() == whole.column("text").to_pylist()
    evidence = split.arrow("evidence", ["id", "selected"])
    assert evidence.column("id").to_pylist() == split.evidence(["id"])["id"].tolist()
    # spelt-out columns come from the full view: the dialogue's id per row
    ids = split.arrow("evidence", ["dialogue_id"]).column("dialogue_id").cast("string").to_pylist()
    assert ids == split.evidence(["dialogue_id"])["dialogue_id"].tolist()


def test_raw_texts_are_those_of_the_turns_asked_for(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    split = utils.load("wow", "train")  # the demo sample, through the cache
    whole = [text.encode() for text in split.arrow("turns").column("raw").to_pylist()]
    monkeypatch.setattr(_cache, "turns_table", lambda tables: pytest.fail("the whole raw column was decompressed"))
    rows = [0, 1, len(whole) - 1]
    assert split.raw_texts(rows) == [whole[row] for row in rows]
    assert split._tables.raw._last is None  # the batch decompressed last does not stay with the split
    assert split.raw_texts([]) == []
