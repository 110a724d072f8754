"""The storage of the parsed-split cache: where an entry lives, its key, its checksums and stamps,
its atomic writing and its reading (memory maps), and the warnings when it cannot be used.

A split is parsed once, streamed into Arrow record batches and written atomically; later loads
memory-map the files, so reloading a split of any size takes little time and memory (a small split
whose tables outgrow its file has them compressed, and read into memory:
:func:`~utils._cache.encoding.compress_tables`). The cache key covers the source file (path, inode,
size, modification and status-change times: copying a file with
``cp -p`` or ``rsync -t`` keeps its size and modification time but not the other two), the parser
version and the cache's format version, so a changed file or parser rebuilds the cache. A manifest,
written last, records the byte size and a CRC-32 of every table: a cache cut short or damaged in place
(bytes overwritten, size unchanged) fails that check and is rebuilt, rather than handing Arrow corrupt
offsets that crash the process. The check reads every byte once, when the entry is built or first
opened; a small ``verified.json`` then records each file's inode, size, mtime and ctime, and later
processes skip the read while those hold. Writing into a file in place moves its ctime, which no user
tool can set back, so damage is still read and caught. A file lock makes concurrent loads of the same split build it
once.

A small split is not cached at all: read from a file under :data:`IN_MEMORY_BELOW` bytes by a parser
with a columnar path, it is parsed into memory at every load (:func:`parsed_in_memory`), which costs
less than the cache's own fixed costs.

The cache is a convenience, never a condition: when it cannot be written (a full disk, a read-only
or foreign directory, a file where the directory should be) the split is built in memory from its
file, with one :class:`CacheWarning`, and whatever was half written is removed. A cached copy that
cannot be read (damaged, cut short, another format version) is rebuilt, with a warning too. A build
killed half-way leaves only a hidden staging directory, which no load takes for a cache and the next
build of any split removes (once no live build holds its key's lock: the key changes with the file).

What the files hold, and how records become their columns and back, is :mod:`utils._cache.encoding`.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import mmap
import os
import re
import secrets
import shutil
import sys
import tempfile
import warnings
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import Any

import pyarrow as pa
from filelock import FileLock, Timeout

from ..records import Dialogue
from .encoding import (
    _FILES,
    _TABLES,
    CACHE_FORMAT_VERSION,
    CachedTables,
    EvidenceBatch,
    FastPathDeclined,
    PassageTable,
    RawTexts,
    _dumps,
    _write_tables,
    build_in_memory,
    compress_tables,
)


class CacheWarning(UserWarning):
    """The parsed-split cache could not be used as it stood; the split was loaded all the same."""


def cache_key(
    source: Path, dataset: str, split: str, parser_version: int, companions: Sequence[Path] = ()
) -> str:
    """A key that changes whenever the source file, a companion file it reads, the parser or the
    cache format changes (a companion that appears or disappears changes it too)."""
    files = []
    for path in (source, *companions):
        stat = path.stat() if path.exists() else None
        files.append([str(path.resolve()), *file_identity(stat)])
    ident = _dumps([files, dataset, split, parser_version, CACHE_FORMAT_VERSION])
    return hashlib.sha256(ident.encode()).hexdigest()[:24]


def file_identity(stat: os.stat_result | None) -> list[int | None]:
    """What says that a file's content may have changed: its inode, size and modification and
    status-change times. The last cannot be set from user space, so a copy that restores size and
    modification time (``cp -p``, ``rsync -t``, ``touch -r``) still changes it."""
    if stat is None:
        return [None, None, None, None]
    return [stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns]


def load_or_build(
    cache_root: Path,
    key: str,
    build: Callable[[], Iterable[Dialogue]],
    *,
    label: str = "this split",
    fast_build: Callable[[], Iterable[Dialogue | PassageTable | EvidenceBatch]] | None = None,
    compress_beyond: int | None = None,
    source_bytes: int | None = None,
) -> CachedTables:
    """Memory-map the cached tables for ``key``, building them from ``build()`` when absent or broken.

    ``fast_build``, when given, is tried first: a parser's columnar path, which may decline (raise
    :class:`FastPathDeclined`) part-way; ``build()``, the record-by-record path, then builds the
    cache from the start and reports any error in the file. With one, a split read from fewer than
    :data:`IN_MEMORY_BELOW` bytes (``source_bytes``) is not cached: :func:`parsed_in_memory`.

    When the cache cannot be written, the tables are built in memory instead (``build()`` is called
    again) and a :class:`CacheWarning` names ``cache_root`` and the reason; ``label`` (for example
    ``"<dataset>/<split>"``) says which split in that warning. ``compress_beyond`` (bytes: a small
    split's file size, :data:`~utils._cache.encoding.COMPRESSED_BELOW`) has the tables compressed when
    they come to more than that (:func:`~utils._cache.encoding.compress_tables`), read back into memory
    rather than mapped. Errors raised while reading the source
    (``build()`` and the iterator it returns) are never taken for cache failures: they propagate.
    """
    if fast_build is not None and source_bytes is not None and source_bytes < IN_MEMORY_BELOW:
        return parsed_in_memory(build, fast_build)
    target = cache_root / key
    cached, _ = _open(target)
    if cached is not None:
        return cached
    source_errors: list[BaseException] = []
    unreadable: str | None = None
    failure: str | None = None
    try:
        cache_root.mkdir(parents=True, exist_ok=True)
        with FileLock(str(cache_root / f"{key}.lock")):
            # Judged again under the lock: another process may have built it while we waited, and
            # only now can a cache that fails to open be told from one being replaced.
            cached, unreadable = _open(target)
            if cached is not None:
                return cached
            _remove_stale_staging(cache_root, key)
            _build_fast_or_slow(target, build, fast_build, compress_beyond, source_errors)
            opened, problem = _open(target, rebuilt=True)
    except OSError as exc:
        if any(exc is error for error in source_errors):
            raise
        failure = describe_os_error(exc)
    if failure is not None:
        # Built outside the except block, whose traceback would keep the abandoned build (its open
        # source file, its last batch of dialogues) alive meanwhile.
        _warn_unwritable(label, cache_root, failure)
        return build_in_memory(build())
    if opened is None:  # pragma: no cover - would mean the file system lost what we just wrote
        raise OSError(f"the cache at {target} could not be read back after writing it ({problem})")
    if unreadable is not None:
        _warn_rebuilt(label, target, unreadable)
    return opened


#: Below this many bytes of source file, a split whose parser has a columnar path is parsed into memory
#: at every load instead of cached. Its parse then costs less than the cache's own fixed costs (a lock,
#: a staging directory, five Arrow files written, compressed, checksummed and mapped back, a manifest):
#: BEGIN's 1.2 MB test file parses in a few milliseconds, where writing its cache took twice as long as
#: parsing it, and reloading it from the cache saves as little. The tests of the cache itself set it to 0.
IN_MEMORY_BELOW = 4 * 2**20


def parsed_in_memory(
    build: Callable[[], Iterable[Dialogue]],
    fast_build: Callable[[], Iterable[Dialogue | PassageTable | EvidenceBatch]] | None = None,
) -> CachedTables:
    """The tables of a split built in memory, nothing written: by ``fast_build`` (a parser's columnar
    path), or by ``build()`` (record by record, which reports any error in the file) when it has none
    or declines. For a small split: its ``raw`` texts are not compressed either."""
    if fast_build is not None:
        try:
            return build_in_memory(fast_build(), compress_raw=False)
        except FastPathDeclined:
            pass
    return build_in_memory(build(), compress_raw=False)


def _build_fast_or_slow(
    target: Path,
    build: Callable[[], Iterable[Dialogue]],
    fast_build: Callable[[], Iterable[Dialogue | PassageTable | EvidenceBatch]] | None,
    compress_beyond: int | None,
    source_errors: list[BaseException],
) -> None:
    """Build the cache at ``target`` by the parser's columnar path; record by record when it has none or declines."""
    try:
        if fast_build is None:
            raise FastPathDeclined
        _build(target, _watched(fast_build, source_errors), compress_beyond)
    except FastPathDeclined:
        _build(target, _watched(build, source_errors), compress_beyond)


def _warn_unwritable(label: str, cache_root: Path, failure: str) -> None:
    warnings.warn(
        f"{label}: the parsed-split cache in {cache_root} cannot be written ({failure}), so the split was "
        f"parsed into memory instead; nothing was left in the cache. Free some space there, or set "
        f"${_CACHE_DIR_ENV} to a writable directory with room, to make later loads fast again.",
        CacheWarning,
        stacklevel=_caller_level(),
    )


def _warn_rebuilt(label: str, target: Path, unreadable: str) -> None:
    warnings.warn(
        f"{label}: the cached copy in {target} could not be read ({unreadable}); it was rebuilt from the "
        "original file.",
        CacheWarning,
        stacklevel=_caller_level(),
    )


#: Named here rather than imported, so that the cache stays independent of the configuration.
_CACHE_DIR_ENV = "ATLAS_CACHE_DIR"

_OS_REASONS = {
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "it is on a read-only file system",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.ENOTDIR: "a file stands where a directory is needed",
    errno.EEXIST: "a file stands where a directory is needed",
}


def describe_os_error(exc: OSError) -> str:
    """A short human reason for a file-system error, with its errno name for searching.

    The file name is left out: callers name the directory concerned, and the file that failed is
    usually a temporary one of no interest.
    """
    code = exc.errno
    name = errno.errorcode.get(code, "") if code is not None else ""
    reason = _OS_REASONS.get(code) if code is not None else None
    if reason is None:
        reason = exc.strerror or str(exc) or type(exc).__name__
    return f"{reason}, {name}" if name else reason


def _caller_level() -> int:
    """The warning's stack level: the first frame outside the atlas's own package."""
    package = str(Path(__file__).resolve().parents[1])  # utils/, not only utils/_cache/
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame = frame.f_back
        level += 1
    return level


def _watched(build: Callable[[], Iterable[Any]], errors: list[BaseException]) -> Iterator[Any]:
    """``build()``'s dialogues, noting any exception the source raises so it is not blamed on the cache."""
    try:
        iterator = iter(build())
        while True:
            try:
                dialogue = next(iterator)
            except StopIteration:
                return
            yield dialogue
    except BaseException as exc:
        # ``yield`` raises GeneratorExit here when the writer gives up; that is not the source's fault,
        # and neither is a fast path declining.
        if not isinstance(exc, (GeneratorExit, FastPathDeclined)):
            errors.append(exc)
        raise


#: A staging directory (or one moved aside) of a build: ``.<key>.<random>``, the key 24 hex digits.
_STAGING_NAME = re.compile(r"\.([0-9a-f]{24})\.")


def _remove_stale_staging(cache_root: Path, key: str) -> None:
    """Remove the staging directories of builds that died: of ``key`` (the caller holds its lock),
    and of any other key whose lock is free.

    A live build holds its key's lock for its whole run, so a staging directory whose key's lock
    can be taken belongs to a build that was killed. Other keys matter because a changed source file
    changes the key: a build killed before the file changed would otherwise never be cleaned up,
    since no later build has its key.
    """
    for stale in cache_root.glob(".*"):
        found = _STAGING_NAME.match(stale.name)
        if found is None or not stale.is_dir():
            continue
        owner = found.group(1)
        if owner == key:
            shutil.rmtree(stale, ignore_errors=True)
            continue
        lock = FileLock(str(cache_root / f"{owner}.lock"), timeout=0)
        try:
            lock.acquire()
        except (Timeout, OSError):  # being built right now, or a lock we cannot take: left alone
            continue
        try:
            shutil.rmtree(stale, ignore_errors=True)
        finally:
            lock.release()


_MANIFEST = "manifest.json"
#: Which table files were checksummed, and in what state: ``{name: [inode, size, mtime_ns, ctime_ns, crc]}``.
_VERIFIED = "verified.json"


def _open(directory: Path, rebuilt: bool = False) -> tuple[CachedTables | None, str | None]:
    """The cached tables in ``directory``, or ``(None, why)``; ``why`` is ``None`` when there is no entry."""
    if not directory.exists():
        return None, None
    try:
        try:
            manifest = json.loads((directory / _MANIFEST).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None, "its manifest is missing"
        except ValueError:
            return None, "its manifest is not valid JSON"
        if not isinstance(manifest, dict):
            return None, "its manifest is not a JSON object"
        version = manifest.get("format")
        if version != CACHE_FORMAT_VERSION:
            return None, f"it is in cache format {version!r}; this version of the atlas reads {CACHE_FORMAT_VERSION}"
        tables: dict[str, Any] = {}
        mappings: list[mmap.mmap] = []
        stamps = _read_stamps(directory)
        stamped = dict(stamps)
        for name in _FILES:
            path = directory / f"{name}.arrow"
            if not path.is_file():
                return None, f"{path.name} is missing"
            size = path.stat().st_size
            if size != manifest["bytes"][name]:
                return None, f"{path.name} has {size:,} bytes where its manifest says {manifest['bytes'][name]}"
            if not _intact(path, manifest["crc32"][name], stamps.get(name)):
                return None, f"{path.name} is damaged (its checksum differs from its manifest's)"
            stamped[name] = [*file_identity(path.stat()), manifest["crc32"][name]]
            try:
                if name == "raw":  # read a batch at a time, from a mapping kept open for it
                    table = RawTexts(_mapped(path, mappings), manifest["raw_batches"])
                else:
                    table = pa.ipc.open_file(_mapped(path, mappings)).read_all()
            except (pa.ArrowException, ValueError) as exc:
                return None, f"Arrow cannot read {path.name} ({_first_line(exc)})"
            if table.num_rows != manifest["rows"][name]:  # RawTexts counts its rows too
                return None, f"{path.name} has {table.num_rows:,} rows where its manifest says {manifest['rows'][name]}"
            tables[name] = table
        if stamped != stamps:
            _write_stamps(directory, stamped)
    except (KeyError, TypeError):
        return None, "its manifest does not list the sizes and checksums of the tables"
    except OSError as exc:
        return None, describe_os_error(exc)
    dialogues, turns, evidence, passages, raw = (tables[name] for name in _FILES)
    return CachedTables(dialogues, turns, evidence, passages, raw, directory, rebuilt, tuple(mappings)), None


def _mapped(path: Path, mappings: list[mmap.mmap]) -> pa.BufferReader:
    """A read-only memory map of ``path`` for Arrow to read without copying.

    Python's own ``mmap`` rather than Arrow's, so that :func:`release_pages` can tell the kernel which
    pages a walk has finished with; Arrow's buffers point into it all the same.
    """
    with open(path, "rb") as handle:
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    mappings.append(mapped)
    return pa.BufferReader(pa.py_buffer(mapped))


def release_pages(tables: CachedTables) -> None:
    """Drop the pages of the cache files that this process has read from its resident memory.

    They stay in the kernel's page cache, and reading them again maps them back (a minor fault, no
    disk read): a walk through a full-size split otherwise ends up holding every page of the files
    it has read (450 MB for WoW's train), which counts as the process's memory. A no-op where the
    system has no ``madvise`` (Windows) and for tables held in memory.

    Arrow's pool hands the memory it has freed back to the system too: its allocator (mimalloc) keeps
    it for Arrow's next allocations, which Python's objects never reuse; on the half-size synthetic
    WoW files, the baselines' scans of the held-out splits left about 20 MB with it.
    """
    pa.default_memory_pool().release_unused()
    advice = getattr(mmap, "MADV_DONTNEED", None)
    if advice is None:
        return
    for mapped in tables.mappings:
        with contextlib.suppress(OSError, ValueError):
            mapped.madvise(advice)


#: Table files whose checksum this process has already compared: ``(path, identity) -> crc``.
_CHECKED: dict[tuple[str, tuple[int | None, ...]], int] = {}


def _crc32(path: Path) -> int:
    """CRC-32 of a file, read (not mapped: its pages stay out of this process's resident memory)."""
    # A block no larger than the file: zero-filling 16 MB for each small table cost more than its CRC.
    crc, block = 0, bytearray(max(1, min(1 << 24, path.stat().st_size)))
    view = memoryview(block)
    with open(path, "rb", buffering=0) as handle:
        while size := handle.readinto(block):
            crc = zlib.crc32(view[:size], crc)
    return crc


def _intact(path: Path, expected: object, stamp: object = None) -> bool:
    """True when ``path``'s bytes have the manifest's CRC-32.

    Read once per process and file version, and not at all while ``stamp`` (from the entry's
    :data:`_VERIFIED` file) says the file was checksummed in its present state: inode, size, mtime and
    ctime unchanged. Writing into a file changes its ctime, which no user tool can set back, so bytes
    damaged in place are still read and caught.
    """
    identity = tuple(file_identity(path.stat()))
    key = (str(path), identity)
    if _CHECKED.get(key) == expected:
        return True
    recorded = isinstance(stamp, list) and tuple(stamp[:-1]) == identity and stamp[-1] == expected
    if not recorded and _crc32(path) != expected:
        return False
    _CHECKED[key] = expected  # type: ignore[assignment]
    return True


def _read_stamps(directory: Path) -> dict[str, Any]:
    """The entry's record of checksummed files (empty when missing or unreadable: they are read again)."""
    try:
        stamps = json.loads((directory / _VERIFIED).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return stamps if isinstance(stamps, dict) else {}


def _write_stamps(directory: Path, stamps: dict[str, Any]) -> None:
    """Record which files were checksummed, atomically; a cache we cannot write to is only slower."""
    staging = directory / f".{_VERIFIED}.{secrets.token_hex(6)}"
    try:
        staging.write_text(_dumps(stamps), encoding="utf-8")
        os.replace(staging, directory / _VERIFIED)
    except OSError:
        with contextlib.suppress(OSError):
            staging.unlink()


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0][:200] if lines else type(exc).__name__


def _build(target: Path, dialogues: Iterable[Dialogue], compress_beyond: int | None = None) -> None:
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        with contextlib.ExitStack() as files:
            sinks = {name: files.enter_context(_open_sink(staging / f"{name}.arrow")) for name in _FILES}
            rows, raw_batches = _write_tables(sinks, dialogues)
        tables = sum((staging / f"{name}.arrow").stat().st_size for name in _TABLES)
        if compress_beyond is not None and tables > compress_beyond:
            compress_tables(staging)
        crc = {name: _crc32(staging / f"{name}.arrow") for name in _FILES}
        manifest = {
            "format": CACHE_FORMAT_VERSION,
            "rows": rows,
            "bytes": {name: (staging / f"{name}.arrow").stat().st_size for name in _FILES},
            "crc32": crc,
            "raw_batches": raw_batches,
        }
        (staging / _MANIFEST).write_text(_dumps(manifest), encoding="utf-8")
        # Computed from these very files: a new process need not read them again while they stay so.
        # (Renaming the directory below leaves each file's inode and times as they are.)
        identities = {name: file_identity((staging / f"{name}.arrow").stat()) for name in _FILES}
        (staging / _VERIFIED).write_text(
            _dumps({name: [*identities[name], crc[name]] for name in _FILES}), encoding="utf-8"
        )
        if target.exists():
            # Moved aside rather than deleted in place, so that the entry is never seen half removed.
            # The aside name has the staging prefix: if we die before removing it, the next build of
            # this key does.
            aside = target.with_name(f".{target.name}.old-{secrets.token_hex(6)}")
            os.replace(target, aside)
            os.replace(staging, target)
            shutil.rmtree(aside, ignore_errors=True)
        else:
            os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    for name, value in crc.items():  # computed from these very files: not read again when opened next
        path = target / f"{name}.arrow"
        _CHECKED[(str(path), tuple(file_identity(path.stat())))] = value


def _open_sink(path: Path) -> Any:
    """A table file opened for writing (a seam: the tests put a full disk here)."""
    return pa.OSFile(str(path), "wb")
