"""Fetch official files: verified, atomic, never at import time, and harmless when they fail.

Three ways in, one rule: nothing reaches the data directory until it is complete and, where a
checksum or size is known, verified. Everything is downloaded (and extracted) in a staging folder
outside the data directory, and folders there are created only when a file moves in, so a failed or
refused download leaves the data directory exactly as it was, timestamps included.

* a direct URL (``item.url``, Hugging Face files included): :func:`_stream` fetches it with
  ``requests``, following redirects itself so that the offline rule (only this machine's addresses)
  is checked at every hop, and refuses an HTML page (:func:`looks_like_html`, past a BOM, an XML
  prolog or comments), a body over :func:`download_ceiling`, a body of another length than
  announced or recorded, a body whose length nothing can check, a transfer silent for
  ``$ATLAS_DOWNLOAD_TIMEOUT`` seconds (default 60) or longer than ``$ATLAS_DOWNLOAD_DEADLINE`` in all
  (default two hours; redirects and headers sent a byte at a time included), and a checksum that
  differs;
* a member of an archive (``item.archive``): the archive is fetched the same way, its members are
  checked (no absolute paths, no ``..``, no link leading out, no special files) and extracted with
  tarfile's ``data`` filter in the staging folder; only then do the archive (kept in
  ``<data dir>/_archives/`` so that it is fetched once) and its files move in. Files from a verified
  archive are recorded in a small manifest so :func:`local_status` can call them verified;
* a public Google Drive folder (``item.gdrive_folder``, WISE): gdown into the staging folder, then
  the expected files are moved into place; any failure explains how to place the files by hand.

Before any transfer, the folder the file would go to is checked to be writable (without writing to
it): a read-only data directory still serves the files in it, and a download into it fails at once
saying where the file would go and why it cannot. A progress bar is drawn on a terminal only, never
in a notebook or a log, where it would reach a built page. Every failure is a
:class:`~utils.errors.DownloadError` (or :class:`~utils.errors.DataUnavailableError` when the file
cannot be fetched at all) naming the URL and the cause in a few words; the loader tries each source
once per process (:func:`fetch_once`). With ``$ATLAS_OFFLINE`` set only loopback URLs are fetched
(the tests' own server).

Hugging Face files are fetched from a pinned commit (``/resolve/<commit>/``, see
:mod:`utils.sources`) by the same route, not by ``huggingface_hub.hf_hub_download``. That function
was tried against the tests' loopback server (huggingface_hub 2.4) and loses a guarantee the tests
hold: a stalled server is not given up on after the timeout. It retries a silent transfer five
times (11 s for a 1 s timeout, where the tests allow 6), retries a metadata request that gets no
answer with a 60 s timeout and exponential back-off (minutes), and takes its transfer timeout from
a process-wide setting rather than from the call. Its ``HF_HUB_OFFLINE`` switch would also refuse
the tests' loopback server, which ``$ATLAS_OFFLINE`` allows. Its gains (resuming a broken transfer,
tokens for gated repositories) are not needed for these public files. (pooch, used before, could
not give a deadline, a size ceiling, a check after each redirect or an HTML refusal.)

Hashing a large file on every load would be slow, so :func:`file_sha256` remembers digests in
``<cache dir>/file-hashes.json``, keyed by path, size and modification time.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import secrets
import shutil
import socket
import sys
import tarfile
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urljoin, urlparse

from filelock import FileLock, Timeout

from . import config
from ._cache import describe_os_error
from ._sniff import expected_format, looks_like_html, not_the_format
from .declaration import SourceFile
from .errors import DataUnavailableError, DownloadError

#: Seconds without any data after which a download is abandoned (``$ATLAS_DOWNLOAD_TIMEOUT``).
TIMEOUT_ENV = "ATLAS_DOWNLOAD_TIMEOUT"
DEFAULT_TIMEOUT = 60.0
#: Seconds one file may take in all (``$ATLAS_DOWNLOAD_DEADLINE``): a server that trickles a byte
#: now and then never trips the silence timeout.
DEADLINE_ENV = "ATLAS_DOWNLOAD_DEADLINE"
DEFAULT_DEADLINE = 7200.0
#: The most bytes a file without a recorded size may bring (``$ATLAS_DOWNLOAD_MAX_BYTES``).
MAX_BYTES_ENV = "ATLAS_DOWNLOAD_MAX_BYTES"
DEFAULT_MAX_BYTES = 4 << 30
_MAX_REDIRECTS = 10
#: Where archives are kept (inside the data directory) so they are downloaded once.
ARCHIVES_DIR = "_archives"
_MANIFEST = "manifest.json"
#: Raised by tarfile's extraction filters (Python 3.11.4 and later); nothing to catch before that.
_FILTER_ERRORS: tuple[type[Exception], ...] = (tarfile.FilterError,) if hasattr(tarfile, "FilterError") else ()
_HASHES = "file-hashes.json"
#: Files smaller than this are hashed again at every check rather than their digest remembered:
#: hashing them (about 1 GB/s) costs less than the lock and the atomic rewrite of the memo, a millisecond
#: or two, which a split parsed at every load (:data:`utils._cache.storage.IN_MEMORY_BELOW`) paid each time.
HASH_REMEMBERED_FROM = 4 * 2**20
_LOOPBACK = {"127.0.0.1", "localhost", "::1"}
_BAIDU_NOTE = (
    "The authors also publish the files on Baidu Pan (link in their repository "
    "https://github.com/PengjieRen/CaSE_WISE)."
)


def short_reason(exc: BaseException | str) -> str:
    """The cause of a failed fetch in one short line (its first sentence, without the advice after it)."""
    text = " ".join(str(exc).split())
    first = re.split(r"(?<=[.)])\s+(?=[A-Z])", text, maxsplit=1)[0]
    return first if len(first) <= 240 else first[:237] + "..."


#: Downloads that failed in this process, by data directory and source: the loader tries each once
#: per run (a book build asks for the 1 GB WoW archive once per split).
_FAILED: dict[tuple[str, str], Exception] = {}


def fetch_once(item: SourceFile, data_directory: Path) -> Path:
    """:func:`fetch`, except that a source whose download already failed in this process is not tried
    again: the same error is raised at once. For the loader; ``atlas fetch`` always tries."""
    source = item.url or (item.archive.url if item.archive else None) or f"gdrive:{item.gdrive_folder}"
    key = (str(data_directory), source)
    if key in _FAILED:
        raise _FAILED[key]
    try:
        return fetch(item, data_directory)
    except (DownloadError, DataUnavailableError) as exc:
        _FAILED[key] = exc
        raise


def download_timeout() -> float:
    """Seconds of silence before a download is abandoned: ``$ATLAS_DOWNLOAD_TIMEOUT`` or 60."""
    return _positive_seconds(TIMEOUT_ENV, DEFAULT_TIMEOUT)


def _positive_seconds(variable: str, default: float) -> float:
    configured = os.environ.get(variable, "").strip()
    if not configured:
        return default
    try:
        value = float(configured)
    except ValueError:
        raise ValueError(f"${variable} must be a number of seconds, not {configured!r}") from None
    if value <= 0:
        raise ValueError(f"${variable} must be positive, not {configured!r}")
    return value


# -- hashing ------------------------------------------------------------------------------------


def sha256_of(path: Path) -> str:
    """The sha256 hex digest of a file, read in 64 kB blocks into one buffer.

    Small blocks hash as fast, and a 1 MB block allocated afresh for every read cost a fresh process
    the page faults of a megabyte each time (a millisecond and more, as much as hashing a small file).
    """
    digest = hashlib.sha256()
    block = bytearray(1 << 16)
    view = memoryview(block)
    with open(path, "rb", buffering=0) as handle:
        while size := handle.readinto(block):
            digest.update(view[:size])
    return digest.hexdigest()


def git_blob_id(path: Path) -> str:
    """The git blob id of a file: the SHA-1 of ``blob <size>\\0`` followed by its content.

    A repository tree lists this id for every file at a commit, so a file fetched from a pinned
    commit can be verified against it where the publisher gives no sha256 (WISE's conversations).
    """
    digest = hashlib.sha1(f"blob {path.stat().st_size}\0".encode("ascii"), usedforsecurity=False)
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_git_blob(path: Path, expected: str, url: str) -> None:
    """Raise :class:`DownloadError` naming ``url`` unless ``path`` has the git blob id ``expected``."""
    found = git_blob_id(path)
    if found != expected.lower():
        raise DownloadError(
            f"could not verify {url}: its git blob id is {found}, not the {expected} of the pinned commit. "
            "The file is corrupt or is not the published one. Nothing was kept."
        )


def _hash_cache_path(data_directory: Path) -> Path:
    return config.cache_dir() / _HASHES


def _identity(stat: os.stat_result) -> list[int]:
    """What changes whenever a file's content may have: size, modification and status-change times and
    inode. ``cp -p``, ``rsync -t`` and ``touch -r`` restore the first two, never the last two, so a
    digest remembered under all four still belongs to the bytes on disk."""
    return [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino]


def file_sha256(path: Path, data_directory: Path) -> str:
    """The sha256 of ``path``, remembered across loads while the file stays the same (:func:`_identity`),
    for a file of :data:`HASH_REMEMBERED_FROM` bytes or more."""
    stat = path.stat()
    if stat.st_size < HASH_REMEMBERED_FROM:
        return sha256_of(path)
    key = str(path.resolve())
    cache_path = _hash_cache_path(data_directory)
    entry = _read_json(cache_path).get(key)
    identity = _identity(stat)
    if isinstance(entry, list) and len(entry) == len(identity) + 1 and entry[:-1] == identity:
        return str(entry[-1])
    digest = sha256_of(path)
    _remember_hash(path, digest, data_directory, stat)
    return digest


def _remember_hash(path: Path, digest: str, data_directory: Path, stat: os.stat_result | None = None) -> None:
    stat = stat or path.stat()
    cache_path = _hash_cache_path(data_directory)
    # A cache that cannot be written (read-only location) only costs a re-hash next time.
    with contextlib.suppress(OSError), _locked(cache_path):
        entries = _read_json(cache_path)
        entries[str(path.resolve())] = [*_identity(stat), digest]
        _write_json_atomic(cache_path, entries)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _write_json_atomic(path: Path, value: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump(value, handle, ensure_ascii=False, indent=0)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An inter-process lock for ``path``, kept in the cache dir so the data dir holds only data.

    When the cache dir cannot be written (read-only, full, a file), the lock goes to the system's
    temporary directory instead: a download must not fail for want of a place for its lock.
    """
    name = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:24]
    try:
        lock_dir = config.cache_dir() / "locks"
        lock_dir.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(lock_dir / f"{name}.lock"))
        lock.acquire()
    except OSError:
        fallback = Path(tempfile.gettempdir()) / f"grounded-dialogue-atlas-locks-{_user_id()}"
        fallback.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(fallback / f"{name}.lock"))
        lock.acquire()
    try:
        yield
    finally:
        lock.release()


def _user_id() -> str:
    return str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")


# -- the manifest of fetched files ----------------------------------------------------------------


def _manifest_path(data_directory: Path) -> Path:
    return data_directory / ARCHIVES_DIR / _MANIFEST


def _manifest_entry(item: SourceFile, data_directory: Path) -> dict[str, Any] | None:
    entry = _read_json(_manifest_path(data_directory)).get("files", {}).get(item.path)
    return entry if isinstance(entry, dict) else None


def _record_fetched(data_directory: Path, records: dict[str, dict[str, Any]]) -> None:
    manifest_path = _manifest_path(data_directory)
    with _locked(manifest_path):
        manifest = _read_json(manifest_path)
        listed = manifest.get("files")
        files: dict[str, Any] = listed if isinstance(listed, dict) else {}
        files.update(records)
        manifest["files"] = files
        _write_json_atomic(manifest_path, manifest)


def local_status(item: SourceFile, path: Path, data_directory: Path) -> str:
    """``"verified"``, ``"unverified"`` (no checksum known) or ``"mismatch"`` for a local file.

    A file with no published checksum counts as verified when the atlas extracted it from a
    verified archive (or downloaded it against a checksum) and it still has the same content.
    """
    if item.size is not None and path.stat().st_size != item.size:
        return "mismatch"
    expected = item.sha256
    if expected is None and item.git_blob is not None:
        return "verified" if git_blob_id(path) == item.git_blob.lower() else "mismatch"
    if expected is None:
        entry = _manifest_entry(item, data_directory)
        archive_ok = item.archive is None or entry is None or entry.get("archive_sha256") == item.archive.sha256
        if entry is None or not entry.get("verified") or not archive_ok:
            return "unverified"
        expected = entry.get("sha256")
    return "verified" if file_sha256(path, data_directory) == expected else "mismatch"


def placed_by_fetch(item: SourceFile, path: Path, data_directory: Path) -> bool:
    """True when ``path`` is a file :func:`fetch` put there from the official source, unchanged since."""
    entry = _manifest_entry(item, data_directory)
    if entry is None or not path.is_file():
        return False
    return file_sha256(path, data_directory) == entry.get("sha256")


# -- fetching -----------------------------------------------------------------------------------


def fetch(item: SourceFile, data_directory: Path, *, timeout: float | None = None) -> Path:
    """Download ``item`` into ``data_directory`` (verified, atomically) and return its path.

    ``timeout`` is the number of seconds without data before giving up (default
    :func:`download_timeout`). Raises :class:`DownloadError` when a download fails or does not
    verify and :class:`DataUnavailableError` when the file has no automatic source.
    """
    data_directory = Path(data_directory)
    wait = download_timeout() if timeout is None else float(timeout)
    _require_writable(item, data_directory)
    if item.url is not None:
        return _fetch_url(item, data_directory, wait)
    if item.archive is not None:
        return _fetch_archive_member(item, data_directory, wait)
    if item.gdrive_folder is not None:
        return _fetch_gdrive(item, data_directory, wait)
    raise DataUnavailableError(
        f"{item.path} has no automatic download; place the file at {data_directory / item.path} by hand"
    )


def _require_writable(item: SourceFile, data_directory: Path) -> None:
    """Refuse, before any transfer, a download whose target folder cannot be written.

    A read-only data directory (a shared class folder, a read-only mount) still serves the files in
    it; only a missing file cannot be added, and the message says where it would go and why not. The
    check asks the system and writes nothing: a refused download leaves every timestamp as it was.
    """
    target = data_directory / item.path
    folders = [target.parent]
    if item.archive is not None:
        folders.append(data_directory / ARCHIVES_DIR)
    for folder in folders:
        existing = next((parent for parent in (folder, *folder.parents) if parent.is_dir()), folder)
        problem: int | None = None
        with contextlib.suppress(OSError, AttributeError):  # statvfs: not on every platform
            if os.statvfs(existing).f_flag & os.ST_RDONLY:
                problem = errno.EROFS
        if problem is None and not os.access(existing, os.W_OK):
            problem = errno.EACCES
        if problem is not None:
            exc = OSError(problem, os.strerror(problem))
            raise DataUnavailableError(
                f"cannot download {PurePosixPath(item.path).name}: it would go to {target}, but {folder} cannot "
                f"be written ({describe_os_error(exc)}). The files already in {data_directory} can still be used. "
                f"Place this one there by hand (or ask whoever manages the folder to), or set "
                f"${config.DATA_DIR_ENV} to a writable directory that holds (or links to) the files you have."
            ) from exc


def _refuse_when_offline(url: str) -> None:
    if config.offline() and urlparse(url).hostname not in _LOOPBACK:
        raise DataUnavailableError(f"not downloading {url}: downloads are off (${config.OFFLINE_ENV} is set)")


def _fetch_url(item: SourceFile, data_directory: Path, timeout: float) -> Path:
    assert item.url is not None
    target = data_directory / item.path
    with _locked(target):
        if target.is_file():  # another process fetched it while we waited for the lock
            return target
        digest = _download_verified(
            item.url, target, sha256=item.sha256, size=item.size, timeout=timeout, git_blob=item.git_blob
        )
        _remember_hash(target, digest, data_directory)
        stat = target.stat()
        _record_fetched(
            data_directory,
            {
                item.path: {
                    "source": item.url,
                    "sha256": digest,
                    "verified": item.sha256 is not None or item.git_blob is not None,
                    "size": stat.st_size,
                }
            },
        )
    return target


def _download_verified(
    url: str, target: Path, *, sha256: str | None, size: int | None, timeout: float, git_blob: str | None = None
) -> str:
    """Download ``url`` to ``target``; return the sha256 of what was kept.

    The file is streamed into a staging folder outside the data directory (:func:`_staging`), checked
    (its size, sha256 and git blob id where known), and only then moved to its final name, creating
    its folder at that moment: a failure leaves the data directory exactly as it was, no folder made,
    no timestamp touched.
    """
    with _staging() as staging:
        staged, digest = _stream(
            url, staging / target.name, sha256=sha256, size=size, timeout=timeout, blob_known=git_blob is not None
        )
        if git_blob is not None:
            verify_git_blob(staged, git_blob, url)
        _place(staged, target)
    return digest


@contextlib.contextmanager
def _staging() -> Iterator[Path]:
    """A private temporary folder for downloads and extraction, removed afterwards: under the cache
    directory (often on the data directory's file system, so the final move is a rename), else in
    the system's temporary directory.

    Each folder there is held by a lock (``<folder>.lock``) while in use, so the folders of
    downloads that were killed (their locks free) are removed when the next one starts.
    """
    lock: FileLock | None = None
    try:
        root = config.cache_dir() / "downloads"
        root.mkdir(parents=True, exist_ok=True)
        _remove_dead_staging(root)
        name = f"staging-{secrets.token_hex(8)}"
        lock = FileLock(str(root / f"{name}.lock"))
        lock.acquire()  # before the folder exists: a folder seen without its lock held is dead
        folder = root / name
        folder.mkdir(mode=0o700)
    except OSError:
        if lock is not None:
            lock.release()
            lock = None
        folder = Path(tempfile.mkdtemp(prefix="grounded-dialogue-atlas-download-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if lock is not None:
            lock.release()
            Path(lock.lock_file).unlink(missing_ok=True)


def _remove_dead_staging(root: Path) -> None:
    """Remove the staging folders under ``root`` whose lock no live download holds."""
    for folder in root.glob("staging-*"):
        if not folder.is_dir():
            continue
        lock = FileLock(str(root / f"{folder.name}.lock"), timeout=0)
        try:
            lock.acquire()
        except (Timeout, OSError):  # in use by a live download, or a lock we cannot take
            continue
        try:
            shutil.rmtree(folder, ignore_errors=True)
        finally:
            lock.release()
        Path(lock.lock_file).unlink(missing_ok=True)


def _place(source: Path, final: Path) -> None:
    """Move a complete, checked file to ``final``, atomically: renamed where it is on the same file
    system, else copied to a hidden name beside ``final`` and renamed."""
    final.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.replace(source, final)
        return
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
    descriptor, name = tempfile.mkstemp(dir=final.parent, prefix=f".{final.name}.", suffix=".part")
    os.close(descriptor)
    try:
        shutil.copyfile(source, name)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(name, 0o666 & ~umask)
        os.replace(name, final)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def download_deadline() -> float:
    """Seconds one file may take in all: ``$ATLAS_DOWNLOAD_DEADLINE`` or two hours."""
    return _positive_seconds(DEADLINE_ENV, DEFAULT_DEADLINE)


def download_ceiling(size: int | None) -> int:
    """The most bytes a download may bring: the file's recorded size where it is known, else
    ``$ATLAS_DOWNLOAD_MAX_BYTES`` (default 4 GiB, above every official file)."""
    if size is not None:
        return size
    configured = os.environ.get(MAX_BYTES_ENV, "").strip()
    if not configured:
        return DEFAULT_MAX_BYTES
    if not configured.isdigit() or int(configured) <= 0:
        raise ValueError(f"${MAX_BYTES_ENV} must be a positive number of bytes, not {configured!r}")
    return int(configured)


def _progress(total: int | None, label: str) -> Any:
    """A progress bar on a terminal only: never in a notebook or a log, where it would end up on a
    built page as a stray ``0.00B [00:00, ?B/s]``."""
    from tqdm import tqdm  # the plain bar: tqdm.auto would pick a notebook widget

    interactive = sys.stderr.isatty() and "ipykernel" not in sys.modules
    return tqdm(total=total, unit="B", unit_scale=True, ncols=79, leave=False, desc=label, disable=not interactive)


#: How many first bytes of a body are looked at before any is kept: enough for an XML prolog, a
#: doctype and a comment or two, however the server splits them into packets.
_SNIFF_BYTES = 4096


class _Transfer:
    """What one call of :func:`_stream` has got to: the address it is at, the bytes received and their
    digest, and the limits they are held to."""

    def __init__(self, url: str, *, ceiling: int, deadline: float) -> None:
        self.url = self.current = url
        self.ceiling = ceiling
        self.deadline = deadline
        self.started = time.monotonic()
        self.digest = hashlib.sha256()
        self.received = 0
        self.too_long = f"it took longer than {deadline:g} s in all; set ${DEADLINE_ENV} to allow more"
        self.watchdog = _Watchdog(deadline)

    def refuse(self, why: str) -> DownloadError:
        return DownloadError(f"could not download {self.url}: {why}. Nothing was kept.")

    def check_watchdog(self) -> None:
        """Refuse a transfer the watchdog has hung up on."""
        if self.watchdog.expired.is_set():
            raise self.refuse(self.too_long)

    def open(self, session: Any, timeout: float) -> Any:
        """The response at the end of the redirects, every hop checked before connecting to it."""
        for _ in range(_MAX_REDIRECTS + 1):
            self.check_watchdog()
            _refuse_when_offline(self.current)
            if urlparse(self.current).scheme not in ("http", "https"):
                raise self.refuse(f"it leads to {self.current}, which is not an http(s) address")
            response = session.get(self.current, stream=True, timeout=(timeout, timeout), allow_redirects=False)
            if not response.is_redirect:
                return response
            self.current = urljoin(self.current, response.headers.get("Location", ""))
            response.close()
        raise self.refuse(f"more than {_MAX_REDIRECTS} redirects")

    def copy(self, response: Any, handle: Any, progress: Any, data_format: str | None) -> None:
        """Write the body to ``handle``, counted, hashed and held to the limits as it arrives."""
        # The first bytes are held back until there are enough to tell a web page from data:
        # a page may arrive one byte at a time, or after a prolog, a comment or a BOM.
        head: bytes | None = b""
        while block := _read_block(response, head, self.refuse):
            self.received += len(block)
            if self.received > self.ceiling:
                raise self.refuse(f"the server sent more than {self.ceiling:,} bytes")
            if self.watchdog.expired.is_set() or time.monotonic() - self.started > self.deadline:
                raise self.refuse(self.too_long)
            self.digest.update(block)
            progress.update(len(block))
            if head is not None:
                head += block
                if len(head) < _SNIFF_BYTES:
                    continue
                block, head = _checked_head(head, self.refuse, data_format), None
            handle.write(block)
        if head:
            handle.write(_checked_head(head, self.refuse, data_format, whole=True))

    def verify(self, expected_size: int | None, sha256: str | None) -> str:
        """The body's sha256, once its length and checksum are those expected."""
        if expected_size is not None and self.received != expected_size:
            raise self.refuse(
                f"received {self.received:,} bytes, expected {expected_size:,} "
                "(the transfer was cut short or the file changed)"
            )
        if sha256 is not None and self.digest.hexdigest() != sha256.lower():
            raise DownloadError(
                f"could not verify {self.url}: its sha256 is {self.digest.hexdigest()}, not the expected "
                f"{sha256.lower()}. The file is corrupt or has changed upstream. Nothing was kept."
            )
        return self.digest.hexdigest()


def _announced_length(
    headers: Any,
    refuse: Callable[[str], DownloadError],
    *,
    ceiling: int,
    sha256: str | None,
    size: int | None,
    blob_known: bool,
) -> int | None:
    """The length the response headers announce, once they show a data file whose length can be checked."""
    if "html" in headers.get("Content-Type", "").lower():
        raise refuse(
            f"the server sent a web page ({headers['Content-Type']}), not the data file "
            "(a login, consent or error page?)"
        )
    announced = int(headers["Content-Length"]) if headers.get("Content-Length", "").isdigit() else None
    chunked = "chunked" in headers.get("Transfer-Encoding", "").lower()
    if announced is None and not chunked and sha256 is None and size is None and not blob_known:
        raise refuse(
            "the server gave no length for the file and no size or checksum of it is recorded, so "
            "a transfer cut short could not be told from the whole file"
        )
    if announced is not None and (announced > ceiling or (size is not None and announced != size)):
        expected = f"expected {size:,}" if size is not None else f"the limit is {ceiling:,}"
        raise refuse(f"the server announces {announced:,} bytes, {expected}")
    return announced


def _stream(
    url: str, destination: Path, *, sha256: str | None, size: int | None, timeout: float, blob_known: bool = False
) -> tuple[Path, str]:
    """Stream ``url`` into ``destination`` (a staging file) and check it; return it with its sha256.

    Refused, with a :class:`DownloadError` saying why: an HTTP error; a redirect to a host the offline
    rule forbids (checked at every hop, before connecting); an HTML page; a body over
    :func:`download_ceiling` or of another length than announced or recorded; one whose length
    nothing can check (no Content-Length, no chunked framing, no recorded size or checksum); a
    transfer silent for ``timeout`` seconds or longer than :func:`download_deadline` in all; a
    checksum that differs.
    """
    import requests

    deadline = download_deadline()
    transfer = _Transfer(url, ceiling=download_ceiling(size), deadline=deadline)
    refuse = transfer.refuse
    with requests.Session() as session:
        session.headers.update({"Accept-Encoding": "identity", "User-Agent": "grounded-dialogue-atlas"})
        adapter = _watched_adapter(transfer.watchdog)
        session.mount("http://", adapter)
        session.mount("https://", adapter)
        try:
            transfer.watchdog.start()
            response = transfer.open(session, timeout)
            with response:
                response.raise_for_status()
                announced = _announced_length(
                    response.headers, refuse, ceiling=transfer.ceiling, sha256=sha256, size=size, blob_known=blob_known
                )
                progress = _progress(announced or size, destination.name)
                # Without a checksum, nothing else tells an error body from the file: its first
                # bytes are matched against the format the file's name says (issue 50).
                data_format = None if sha256 is not None or blob_known else expected_format(destination.name)
                try:
                    with open(destination, "wb") as handle:
                        transfer.copy(response, handle, progress, data_format)
                finally:
                    progress.close()
            transfer.check_watchdog()  # the watchdog hung up: the body may look merely short
        except DownloadError:
            raise
        except DataUnavailableError as exc:
            if transfer.current == url:  # the address itself is refused offline: as before any transfer
                raise
            raise refuse(
                f"it redirects to {transfer.current}, which is not this machine, and downloads are off"
            ) from exc
        except Exception as exc:  # every transport failure becomes one clear error
            raise refuse(transfer.too_long if transfer.watchdog.expired.is_set() else _describe(exc, timeout)) from exc
        finally:
            transfer.watchdog.cancel()
    return destination, transfer.verify(size if size is not None else announced, sha256)


def _checked_head(
    head: bytes, refuse: Callable[[str], DownloadError], expected: str | None = None, *, whole: bool = False
) -> bytes:
    """``head`` when it can start the data file; else the refusal saying what was received instead.
    ``expected``: the format to match it against (:func:`utils._sniff.not_the_format`), when the file
    has no checksum to be verified by."""
    if looks_like_html(head):
        raise refuse("the server sent a web page, not the data file (a login, consent or error page?)")
    received = None if expected is None else not_the_format(head, expected, whole=whole)
    if received is not None:
        raise refuse(f"the server sent {received}, not the {expected} data file (an error answered with status 200?)")
    return head


def _read_block(response: Any, head: bytes | None, refuse: Callable[[str], DownloadError]) -> bytes:
    """The next block of the body; a transfer that breaks while its first bytes are still held back
    is refused as the web page they show, if they do (the better reason of the two)."""
    try:
        return response.raw.read1(1 << 16)
    except Exception:
        if head:
            _checked_head(head, refuse)
        raise


class _Watchdog:
    """Hangs up every connection of one download once its deadline has passed.

    The per-read timeout cannot do it: a server that sends its headers, or its body, a byte at a
    time is never silent for long, and the loop that checks the clock runs only between blocks of
    the body. Shutting the sockets down wakes whatever read is waiting, wherever it is.
    """

    def __init__(self, seconds: float) -> None:
        self.expired = threading.Event()
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def start(self) -> None:
        self._timer.start()

    def cancel(self) -> None:
        self._timer.cancel()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
        if self.expired.is_set():
            self._hang_up(sock)

    def _expire(self) -> None:
        self.expired.set()
        with self._lock:
            sockets = list(self._sockets)
        for sock in sockets:
            self._hang_up(sock)

    @staticmethod
    def _hang_up(sock: socket.socket) -> None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def _watched_adapter(watchdog: _Watchdog) -> Any:
    """A requests adapter whose connections (direct or through a proxy) are handed to ``watchdog``."""
    from requests.adapters import HTTPAdapter
    from urllib3.connection import HTTPConnection, HTTPSConnection
    from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

    class WatchedHTTPConnection(HTTPConnection):
        def _new_conn(self) -> socket.socket:
            sock = super()._new_conn()
            watchdog.watch(sock)
            return sock

    class WatchedHTTPSConnection(HTTPSConnection):
        def _new_conn(self) -> socket.socket:
            sock = super()._new_conn()
            watchdog.watch(sock)
            return sock

    class WatchedHTTPPool(HTTPConnectionPool):
        ConnectionCls = WatchedHTTPConnection

    class WatchedHTTPSPool(HTTPSConnectionPool):
        ConnectionCls = WatchedHTTPSConnection

    pools = {"http": WatchedHTTPPool, "https": WatchedHTTPSPool}

    class WatchedAdapter(HTTPAdapter):
        def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
            super().init_poolmanager(*args, **kwargs)
            self.poolmanager.pool_classes_by_scheme = pools

        def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
            manager = super().proxy_manager_for(proxy, **proxy_kwargs)
            manager.pool_classes_by_scheme = pools
            return manager

    return WatchedAdapter()


def _describe(exc: BaseException, timeout: float) -> str:
    """A one-line cause for a transport failure (HTTP status, stall, dropped connection, refusal)."""
    import requests

    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(chain) < 10:
        chain.append(current)
        current = current.__cause__ or current.__context__
    if isinstance(exc, requests.HTTPError) and exc.response is not None:
        return f"the server answered HTTP {exc.response.status_code} {exc.response.reason or ''}".rstrip()
    text = " ".join(f"{type(item).__name__}: {item}" for item in chain)
    if isinstance(exc, requests.Timeout) or re.search(r"timed? ?out|Timeout", text):
        return f"no data arrived for {timeout:g} s (the server stalled); set ${TIMEOUT_ENV} to wait longer"
    # urllib3's own messages run to hundreds of characters (pool, retries, the whole URL again): the
    # reason is said in a few words instead
    if re.search(r"NameResolution|Name or service not known|name resolution|getaddrinfo|nodename nor", text):
        return "the server's name could not be resolved (no network, or no DNS)"
    if re.search(r"Connection refused|ConnectionRefused", text):
        return "the server refused the connection"
    if re.search(r"Network is unreachable|No route to host", text):
        return "the network is unreachable"
    if re.search(r"CERTIFICATE|SSLError|certificate", text):
        return "the server's TLS certificate could not be checked"
    if re.search(r"IncompleteRead|ChunkedEncoding|ProtocolError|Connection broken|RemoteDisconnected", text):
        return "the connection was closed before the whole file arrived"
    if isinstance(exc, requests.ConnectionError):
        return "could not connect to the server"
    return f"{type(exc).__name__}: {_first_line(exc)}"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    line = text[0] if text else type(exc).__name__
    return line if len(line) <= 200 else line[:197] + "..."


# -- archives -----------------------------------------------------------------------------------


def _fetch_archive_member(item: SourceFile, data_directory: Path, timeout: float) -> Path:
    """Fetch the archive that holds ``item`` (once), extract it, and place its files.

    The archive is downloaded and checked, and its members extracted, in a staging folder outside
    the data directory; the archive (kept in ``_archives/`` so that it is fetched once) and the
    files move in only when all of that succeeded.
    """
    archive = item.archive
    assert archive is not None
    archive_path = data_directory / ARCHIVES_DIR / PurePosixPath(archive.filename).name
    target = data_directory / item.path
    with _locked(archive_path), _staging() as staging:
        if target.is_file():  # extracted by another process while we waited
            return target
        kept = archive_path.is_file() and _archive_intact(archive_path, archive.sha256, archive.size, data_directory)
        if kept:
            source = archive_path
        else:
            source, digest = _stream(
                archive.url, staging / archive_path.name, sha256=archive.sha256, size=archive.size, timeout=timeout
            )
        try:
            extracted = _extract(source, archive.url, staging / "extracted")
        except BaseException:
            if kept:  # a damaged or hostile archive must not be reused by the next attempt
                archive_path.unlink(missing_ok=True)
            raise
        if not kept:
            _place(source, archive_path)
            _remember_hash(archive_path, digest, data_directory)
        records = _place_extracted(extracted, target.parent, data_directory)
        verified = archive.sha256 is not None
        _record_fetched(
            data_directory,
            {
                path: {**record, "source": archive.url, "archive_sha256": archive.sha256, "verified": verified}
                for path, record in records.items()
            },
        )
    if not target.is_file():
        raise DownloadError(
            f"the archive {archive.url} has no member named {target.name}; place the file at {target} by hand"
        )
    return target


def _archive_intact(path: Path, sha256: str | None, size: int | None, data_directory: Path) -> bool:
    if size is not None and path.stat().st_size != size:
        return False
    return sha256 is None or file_sha256(path, data_directory) == sha256.lower()


def check_members(members: list[tarfile.TarInfo], source: str) -> None:
    """Refuse an archive any of whose members could write outside the extraction directory.

    Refused: absolute names, names with ``..``, names passing through a link member, links whose
    target is absolute or leads out, and device or FIFO members. Tarfile's ``data`` filter checks
    the same at extraction time; this explicit check also covers Pythons without it.
    """
    links = {PurePosixPath(m.name.rstrip("/")) for m in members if m.issym() or m.islnk()}
    for member in members:
        name = member.name
        parts = PurePosixPath(name).parts
        if _is_absolute(name):
            _refuse(source, member, "has an absolute path")
        if ".." in parts or "\\" in name:
            _refuse(source, member, "has a path leading out of the target directory")
        for depth in range(1, len(parts)):
            if PurePosixPath(*parts[:depth]) in links:
                _refuse(source, member, "is placed through a link")
        _check_member_kind(member, source)


def _is_absolute(name: str) -> bool:
    """Whether an archive's name is absolute on any system: a POSIX or Windows root, or a drive."""
    return name.startswith(("/", "\\")) or bool(re.match(r"^[A-Za-z]:", name)) or os.path.isabs(name)


def _check_member_kind(member: tarfile.TarInfo, source: str) -> None:
    """Refuse a link member whose target is absolute or leads out, and any member neither a file nor a folder."""
    if member.issym() or member.islnk():
        link = member.linkname
        if _is_absolute(link):
            _refuse(source, member, f"is a link to an absolute path ({link})")
        base = PurePosixPath(member.name).parent if member.issym() else PurePosixPath()
        if _escapes(base / link):
            _refuse(source, member, f"is a link leading out of the target directory ({link})")
    elif not (member.isfile() or member.isdir()):
        _refuse(source, member, "is a device, FIFO or other special file")


def _escapes(relative: PurePosixPath) -> bool:
    depth = 0
    for part in relative.parts:
        if part == "..":
            depth -= 1
            if depth < 0:
                return True
        elif part not in ("", "."):
            depth += 1
    return False


def _refuse(source: str, member: tarfile.TarInfo, why: str) -> None:
    raise DownloadError(f"refusing the archive {source}: its member {member.name!r} {why}. Nothing was extracted.")


def _extract(archive_path: Path, source: str, staging: Path) -> list[tuple[Path, Path]]:
    """Extract the regular files of a checked archive into ``staging``; return ``(file, relative
    path)`` pairs, a single wrapping folder stripped. Raises :class:`DownloadError` for a hostile,
    damaged or truncated archive."""
    staging.mkdir(parents=True, exist_ok=True)
    try:
        with tarfile.open(archive_path, "r:*") as tar:
            members = tar.getmembers()
            check_members(members, source)
            needed = sum(m.size for m in members if m.isfile())
            free = shutil.disk_usage(staging).free
            if needed > free:
                raise DownloadError(f"the archive {source} needs {needed:,} bytes but only {free:,} are free")
            if hasattr(tarfile, "data_filter"):
                tar.extractall(staging, members=members, filter="data")
            else:  # pragma: no cover - Pythons before 3.11.4; check_members has vetted every member
                tar.extractall(staging, members=members)
    except _FILTER_ERRORS as exc:
        raise DownloadError(
            f"refusing the archive {source}: tarfile's data filter rejected a member ({exc}). Nothing was extracted."
        ) from exc
    except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
        if isinstance(exc, DownloadError):
            raise
        raise DownloadError(
            f"the archive {source} is damaged or truncated ({type(exc).__name__}: {_first_line(exc)}); "
            "nothing was kept or extracted"
        ) from exc
    root = staging.resolve()
    files = [p for p in staging.rglob("*") if p.is_file() and not p.is_symlink() and root in p.resolve().parents]
    relative = [p.relative_to(staging) for p in files]
    tops = {r.parts[0] for r in relative}
    strip = len(tops) == 1 and all(len(r.parts) > 1 for r in relative)  # one wrapping folder
    return [(file, Path(*rel.parts[1:]) if strip else rel) for file, rel in zip(files, relative, strict=True)]


def _place_extracted(
    extracted: list[tuple[Path, Path]], destination: Path, data_directory: Path
) -> dict[str, dict[str, Any]]:
    """Move extracted files into ``destination``; files already there (a user's copies) are kept.
    Returns the manifest records of the files placed."""
    records: dict[str, dict[str, Any]] = {}
    for source_file, rel in extracted:
        final = destination / rel
        if final.exists():
            continue
        digest = sha256_of(source_file)
        _place(source_file, final)
        _remember_hash(final, digest, data_directory)
        key = final.relative_to(data_directory).as_posix() if _inside(final, data_directory) else str(final)
        records[key] = {"sha256": digest, "size": final.stat().st_size}
    return records


def _inside(path: Path, directory: Path) -> bool:
    try:
        path.relative_to(directory)
    except ValueError:
        return False
    return True


# -- Google Drive (WISE) --------------------------------------------------------------------------


def _gdrive_names(folder: str) -> set[str]:
    """The file names the registry expects in a Drive folder (only those are ever moved in)."""
    from .sources import registry

    names = set()
    for source in registry().values():
        split_files = (part for files in source.splits.values() for item in files for part in item.all_parts())
        for item in [*split_files, *source.extra_files.values()]:
            if item.gdrive_folder == folder:
                names.add(PurePosixPath(item.path).name)
    return names


def _gdrive_help(item: SourceFile, data_directory: Path, cause: str) -> str:
    url = f"https://drive.google.com/drive/folders/{item.gdrive_folder}"
    return (
        f"could not download {PurePosixPath(item.path).name} from the Google Drive folder {url} ({cause}). "
        f"Download the folder's files in a browser and place them in {(data_directory / item.path).parent} "
        f"(for example {data_directory / item.path}). {_BAIDU_NOTE}"
    )


def _fetch_gdrive(item: SourceFile, data_directory: Path, timeout: float) -> Path:
    folder = item.gdrive_folder
    assert folder is not None
    target = data_directory / item.path
    if config.offline():
        raise DataUnavailableError(_gdrive_help(item, data_directory, f"downloads are off, ${config.OFFLINE_ENV}"))
    wanted = _gdrive_names(folder) | {target.name}
    with _locked(target), _staging() as staging:
        if target.is_file():
            return target
        try:
            import gdown

            # quiet: gdown's bars and messages would reach a built page; failures are said below
            result = gdown.download_folder(id=folder, output=str(staging), quiet=True, timeout=timeout)
        except Exception as exc:  # gdown raises many kinds; all mean "do it by hand"
            raise DataUnavailableError(_gdrive_help(item, data_directory, _describe(exc, timeout))) from exc
        if not result:
            raise DataUnavailableError(_gdrive_help(item, data_directory, "gdown returned no files"))
        files = [
            (path, Path(path.name))
            for path in staging.rglob("*")
            if path.name in wanted and path.is_file() and not path.is_symlink()
        ]
        records = _place_extracted(files, target.parent, data_directory)
        if records:
            _record_fetched(
                data_directory,
                {key: {**record, "source": f"gdrive:{folder}", "verified": False} for key, record in records.items()},
            )
    if not target.is_file():
        raise DataUnavailableError(_gdrive_help(item, data_directory, f"the folder holds no file named {target.name}"))
    return target
