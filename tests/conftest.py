"""Shared fixtures: no test touches the network, and each test gets its own cache."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

REPO = Path(__file__).resolve().parents[1]
#: Debian's Chromium, which the browser tests drive (never a test tool's own browser download), and the
#: flags a headless run needs here (root, no GPU, a closed network).
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

def _default_in_memory_below() -> int:
    from utils._cache import storage

    return storage.IN_MEMORY_BELOW


# Read before the autouse fixture below sets it to 0.
_IN_MEMORY_BELOW = _default_in_memory_below()
# Read before the autouse fixture below replaces it with an empty directory.
_CONFIGURED_DATA_DIR = os.environ.get("ATLAS_REAL_DATA_DIR") or os.environ.get("ATLAS_DATA_DIR")


def local_only(route: Any) -> None:
    """A Playwright route handler: requests to this machine go through, any other host is aborted at
    once (the pages must work without third-party servers, which are unreachable here anyway)."""
    host = urlsplit(route.request.url).hostname
    if host in ("127.0.0.1", "localhost") or route.request.url.startswith(("data:", "blob:")):
        route.continue_()
    else:
        route.abort()


def _real_data_dir() -> Path | None:
    candidates = [Path(_CONFIGURED_DATA_DIR)] if _CONFIGURED_DATA_DIR else []
    candidates.append(REPO.parent / "shared" / "data")
    for candidate in candidates:
        if candidate.is_dir() and any(candidate.iterdir()):
            return candidate
    return None


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Offline, with a fresh cache and an empty data directory unless a test asks for real data."""
    monkeypatch.setenv("ATLAS_OFFLINE", "1")
    monkeypatch.setenv("ATLAS_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("ATLAS_DATA_DIR", str(tmp_path_factory.mktemp("empty-data")))
    # The library's tests grade as a grader does: utils.teaching.exercises.graded raises on a failed test there
    # (in the book it shows a note instead; tests/test_exercises.py tests both).
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    # Every split is cached on disk, however small: the tests' files are tiny samples, and what they test
    # is the cache (its keys, checksums, locks, warnings). The small-file route, a split parsed into
    # memory at every load, is tested where a test asks for it (``small_files_in_memory``).
    from utils._cache import storage

    monkeypatch.setattr(storage, "IN_MEMORY_BELOW", 0)


@pytest.fixture
def small_files_in_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """Splits under the atlas's own size threshold parsed into memory, not cached, as outside the tests."""
    from utils._cache import storage

    monkeypatch.setattr(storage, "IN_MEMORY_BELOW", _IN_MEMORY_BELOW)


@pytest.fixture
def real_data_dir(monkeypatch: pytest.MonkeyPatch) -> Path:
    """The directory of real data (``../shared/data`` here); the test is skipped where it is absent."""
    found = _real_data_dir()
    if found is None:
        pytest.skip("real data not available (set ATLAS_DATA_DIR or place ../shared/data beside the repo)")
    monkeypatch.setenv("ATLAS_DATA_DIR", str(found))
    return found


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty data directory of the test's own, set as ``ATLAS_DATA_DIR``: put files in it by hand."""
    directory = tmp_path / "data"
    directory.mkdir()
    monkeypatch.setenv("ATLAS_DATA_DIR", str(directory))
    return directory


@contextlib.contextmanager
def dataset_folders_added(folders: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The dataset folders in ``folders`` registered beside the atlas's own inside the ``with`` block, as
    a folder added to ``utils/datasets/`` is, with nothing else edited (the registry is built again)."""
    import utils.datasets
    import utils.sources

    monkeypatch.setattr(utils.datasets, "__path__", [*utils.datasets.__path__, str(folders)])
    utils.sources.discovered.cache_clear()
    try:
        yield
    finally:
        utils.sources.discovered.cache_clear()


def demo_file(relative: str) -> Path:
    """The demo sample at ``relative`` (its path in the data directory), from whichever dataset's folder holds it."""
    from utils.sources import registry

    for source in registry().values():
        if (source.demo_dir / relative).exists():
            return source.demo_dir / relative
    raise FileNotFoundError(f"no dataset folder has a demo sample at {relative}")


class _DemoFiles:
    """``demo_dir / "wise/document_line.json"``: the demo sample at that data-directory path."""

    def __truediv__(self, relative: str) -> Path:
        return demo_file(relative)


@pytest.fixture
def demo_dir() -> _DemoFiles:
    """The project's demo samples, addressed by their path in the data directory."""
    return _DemoFiles()


def load_every_split(dataset: str) -> dict[str, Any]:
    """Every split of ``dataset`` by name, as ``utils.load`` gives it here (a split without its real
    file falls back to the demo sample, whose warning the suite's settings silence)."""
    import utils

    return {name: utils.load(dataset, name) for name in utils.split_names(dataset)}


def require_real_file(data_dir: Path, relative: str) -> Path:
    """``data_dir / relative``, or skip the test when that real file is absent."""
    path = data_dir / relative
    if not path.is_file():
        pytest.skip(f"real file {relative} not in {data_dir}")
    return path


# -- file systems that fail the way users' machines do ----------------------------------------------

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def load_written(dataset: str, split: str, text: str, data_dir: Path) -> Any:
    """``split`` of ``dataset`` loaded from ``text``, written in ``data_dir`` where the split's first
    official file goes (a hand-made file in the dataset's own format)."""
    import utils
    from utils.sources import get_source

    path = data_dir / get_source(dataset).splits[split][0].path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return utils.load(dataset, split, data_dir=data_dir)


def resident_cache_kb(directory: Path) -> int:
    """The resident memory (kB) of this process's mappings of files under ``directory`` (Linux)."""
    resident, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        fields = line.split()
        if fields and "-" in fields[0] and len(fields) >= 5 and not fields[0].endswith(":"):  # a mapping's header
            inside = len(fields) >= 6 and fields[-1].startswith(str(directory))
        elif inside and fields[0] == "Rss:":
            resident += int(fields[1])
    return resident


def _unmount(directory: Path) -> None:
    """Unmount ``directory``; a busy mount is detached lazily, so that no test leaves one behind."""
    if subprocess.run(["umount", str(directory)], capture_output=True).returncode != 0:
        subprocess.run(["umount", "-l", str(directory)], capture_output=True)


@pytest.fixture
def tiny_filesystem(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """``make(size)``: a fresh tmpfs of ``size`` (``"2m"``) mounted in the test's directory.

    Needs root (the test is skipped otherwise, or when mounting fails); unmounted after the test,
    whatever its outcome.
    """
    mounted: list[Path] = []

    def make(size: str) -> Path:
        if not IS_ROOT:
            pytest.skip("mounting a tmpfs needs root")
        directory = tmp_path / f"tmpfs-{len(mounted)}"
        directory.mkdir()
        result = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(directory)], capture_output=True
        )
        if result.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs: {result.stderr.decode(errors='replace').strip()}")
        mounted.append(directory)
        return directory

    try:
        yield make
    finally:
        for directory in reversed(mounted):
            _unmount(directory)


@pytest.fixture
def make_read_only() -> Iterator[Callable[[Path], str]]:
    """``make(directory)``: make ``directory`` (and what is in it) unwritable; returns how.

    As root, permission bits stop nothing, so the directory is bind-mounted read-only onto itself
    (skipped when that fails); otherwise its permission bits are cleared. Undone after the test.
    """
    undo: list[Callable[[], None]] = []

    def make(directory: Path) -> str:
        if IS_ROOT:
            bind = subprocess.run(["mount", "--bind", str(directory), str(directory)], capture_output=True)
            if bind.returncode != 0:
                pytest.skip(f"cannot bind-mount: {bind.stderr.decode(errors='replace').strip()}")
            undo.append(lambda: _unmount(directory))
            remount = subprocess.run(["mount", "-o", "remount,bind,ro", str(directory)], capture_output=True)
            if remount.returncode != 0:
                pytest.skip(f"cannot remount read-only: {remount.stderr.decode(errors='replace').strip()}")
            return "read-only mount"
        modes = {path: path.stat().st_mode for path in [directory, *directory.rglob("*")] if path.is_dir()}
        for path in modes:
            path.chmod(0o555)
        undo.append(lambda: [path.chmod(mode) for path, mode in modes.items()])
        return "permissions"

    try:
        yield make
    finally:
        for step in reversed(undo):
            step()


def with_parser(dataset: str, parse: Callable[..., Any], version: int = 1) -> Any:
    """``dataset``'s declaration with ``parse`` (at ``version``) as its parser and no fast path."""

    from utils.sources import get_source

    return get_source(dataset).replace(parse=parse, parser_version=version, parse_columns=None, companion_files=None)


def use_parser(dataset: str, parse: Callable[..., Any], version: int = 1) -> None:
    """Declare ``parse`` as ``dataset``'s parser in this process's registry (for child processes;
    a test uses ``monkeypatch.setitem(registry(), dataset, with_parser(...))``, which is undone after it)."""
    from utils.sources import registry

    registry()[dataset] = with_parser(dataset, parse, version)  # type: ignore[index]


def loaded_and_parsed(dataset: str, data_dir: Path, split: str = "train") -> tuple[list | str, list | str]:
    """A split as the loader gives it (through its fast path and cache) and as the parser reads it, or
    the message of the DataError each raised."""
    import warnings

    import utils
    from utils.errors import DataError
    from utils.sources import get_source, get_split_files

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loaded: list | str = list(utils.load(dataset, split, data_dir=data_dir))
    except DataError as error:
        loaded = str(error)
    try:
        path = data_dir / get_split_files(dataset, split)[0].path
        parsed: list | str = list(get_source(dataset).parse(path, split=split))
    except DataError as error:
        parsed = str(error)
    return loaded, parsed


def record_parse_calls(monkeypatch: pytest.MonkeyPatch, dataset: str) -> list[str]:
    """The splits the loader goes on to build with ``dataset``'s record-by-record parser (its fast
    path declined them), in order."""

    from utils.sources import get_source, registry

    calls: list[str] = []
    real = get_source(dataset).parse

    def spy(path: Path, *, split: str) -> Any:
        calls.append(split)
        return real(path, split=split)

    monkeypatch.setitem(registry(), dataset, get_source(dataset).replace(parse=spy))
    return calls


#: The first bytes of a publisher's archive: zip, gzip, bzip2, xz (a tar names itself at byte 257).
ARCHIVE_MAGIC = (b"PK\x03\x04", b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00")


def is_archive(path: Path) -> bool:
    """Whether ``path`` is an archive, by its bytes (a split may be declared as its publisher's archive)."""
    with open(path, "rb") as handle:
        head = handle.read(262)
    return head.startswith(ARCHIVE_MAGIC) or head[257:262] == b"ustar"


def import_atlas_book() -> Any:
    """The book's Sphinx extension (book/_ext/atlas_book.py), imported as the book imports it."""
    import importlib

    sys.path.insert(0, str(REPO / "book" / "_ext"))
    try:
        return importlib.import_module("atlas_book")
    finally:
        sys.path.remove(str(REPO / "book" / "_ext"))
