"""Fetch official files: verified, atomic, with a progress bar; never at import time.

Three ways in, one rule: nothing reaches its final name in the data directory until it is complete
and, where a checksum or size is known, verified.

* a direct URL (:func:`fetch` with ``item.url``, Hugging Face files included): :func:`pooch.retrieve`
  streams it, with a progress bar, into a hidden staging folder beside the target and checks the
  known sha256; the size is checked too, and only then is the file moved into place with
  :func:`os.replace`;
* a member of an archive (``item.archive``): the archive is downloaded once, the same way, into
  ``<data dir>/_archives/``, its members are checked (no absolute paths, no ``..``, no link leading
  out, no special files), extracted into a temporary directory with tarfile's ``data`` filter and
  only then moved into place; files that came from a verified archive are recorded in a small
  manifest so :func:`local_status` can call them verified;
* a public Google Drive folder (``item.gdrive_folder``, WISE): gdown into a temporary directory,
  then the expected files are moved into place; any failure explains how to place the files by
  hand.

Before any transfer, the folder the file would go to is checked to be writable: a read-only data
directory (a shared class folder, a read-only mount) still serves the files in it, and a download
into it fails at once with a message saying where the file would go and why it cannot.

A server that sends nothing for ``$ATLAS_DOWNLOAD_TIMEOUT`` seconds (default 60) is given up on.
Every failure is a :class:`~utils.errors.DownloadError` (or
:class:`~utils.errors.DataUnavailableError` when the file cannot be fetched at all) naming the URL
and the cause. With ``$ATLAS_OFFLINE`` set only loopback URLs are fetched (the tests' own server).

Hugging Face files are fetched from a pinned commit (``/resolve/<commit>/``, see
:mod:`utils.sources`) by the same route, not by ``huggingface_hub.hf_hub_download``. That function
was tried against the tests' loopback server (huggingface_hub 2.4) and loses a guarantee the tests
hold: a stalled server is not given up on after the timeout. It retries a silent transfer five
times (11 s for a 1 s timeout, where the tests allow 6), retries a metadata request that gets no
answer with a 60 s timeout and exponential back-off (minutes), and takes its transfer timeout from
a process-wide setting rather than from the call. Its ``HF_HUB_OFFLINE`` switch would also refuse
the tests' loopback server, which ``$ATLAS_OFFLINE`` allows. Its gains (resuming a broken transfer,
tokens for gated repositories) are not needed for these public files.

Hashing a large file on every load would be slow, so :func:`file_sha256` remembers digests in
``<cache dir>/file-hashes.json``, keyed by path, size and modification time.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import shutil
import tarfile
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlparse

import pooch
from filelock import FileLock
from tqdm.auto import tqdm

from . import config
from ._cache import describe_os_error
from .errors import DataUnavailableError, DownloadError
from .sources import SourceFile

#: Seconds without any data after which a download is abandoned (``$ATLAS_DOWNLOAD_TIMEOUT``).
TIMEOUT_ENV = "ATLAS_DOWNLOAD_TIMEOUT"
DEFAULT_TIMEOUT = 60.0
#: Where archives are kept (inside the data directory) so they are downloaded once.
ARCHIVES_DIR = "_archives"
_MANIFEST = "manifest.json"
#: Raised by tarfile's extraction filters (Python 3.11.4 and later); nothing to catch before that.
_FILTER_ERRORS: tuple[type[Exception], ...] = (tarfile.FilterError,) if hasattr(tarfile, "FilterError") else ()
_HASHES = "file-hashes.json"
_LOOPBACK = {"127.0.0.1", "localhost", "::1"}
_BAIDU_NOTE = (
    "The authors also publish the files on Baidu Pan (link in their repository "
    "https://github.com/PengjieRen/CaSE_WISE)."
)


def download_timeout() -> float:
    """Seconds of silence before a download is abandoned: ``$ATLAS_DOWNLOAD_TIMEOUT`` or 60."""
    configured = os.environ.get(TIMEOUT_ENV, "").strip()
    if not configured:
        return DEFAULT_TIMEOUT
    try:
        value = float(configured)
    except ValueError:
        raise ValueError(f"${TIMEOUT_ENV} must be a number of seconds, not {configured!r}") from None
    if value <= 0:
        raise ValueError(f"${TIMEOUT_ENV} must be positive, not {configured!r}")
    return value


# -- hashing ------------------------------------------------------------------------------------


def sha256_of(path: Path) -> str:
    """The sha256 hex digest of a file, read in 1 MB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
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


def file_sha256(path: Path, data_directory: Path) -> str:
    """The sha256 of ``path``, remembered across loads while the file's size and mtime stay the same."""
    stat = path.stat()
    key = str(path.resolve())
    cache_path = _hash_cache_path(data_directory)
    entry = _read_json(cache_path).get(key)
    if isinstance(entry, list) and entry[:2] == [stat.st_size, stat.st_mtime_ns] and len(entry) == 3:
        return str(entry[2])
    digest = sha256_of(path)
    _remember_hash(path, digest, data_directory, stat)
    return digest


def _remember_hash(path: Path, digest: str, data_directory: Path, stat: os.stat_result | None = None) -> None:
    stat = stat or path.stat()
    cache_path = _hash_cache_path(data_directory)
    # A cache that cannot be written (read-only location) only costs a re-hash next time.
    with contextlib.suppress(OSError), _locked(cache_path):
        entries = _read_json(cache_path)
        entries[str(path.resolve())] = [stat.st_size, stat.st_mtime_ns, digest]
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
        files = manifest.get("files") if isinstance(manifest.get("files"), dict) else {}
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
    it; only a missing file cannot be added, and the message says where it would go and why not.
    """
    target = data_directory / item.path
    folders = [target.parent]
    if item.archive is not None:
        folders.append(data_directory / ARCHIVES_DIR)
    for folder in folders:
        # probe the nearest folder that exists: a check that fails (offline, say) creates nothing
        existing = next((parent for parent in (folder, *folder.parents) if parent.is_dir()), folder)
        try:
            descriptor, probe = tempfile.mkstemp(dir=existing, prefix=".atlas-write-test-")
            os.close(descriptor)
            os.unlink(probe)
        except OSError as exc:
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
    """Download ``url`` to ``target`` through a staging folder; return the sha256 of what was kept.

    :func:`pooch.retrieve` streams the file into a temporary file inside a hidden staging folder
    beside ``target`` and checks the known sha256; the size (and the git blob id, when known) is
    checked here, and only then is the file moved to its final name. Any failure removes the
    staging folder: a retry starts afresh.
    """
    _refuse_when_offline(url)
    created = _missing_folders(target.parent)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part"))
    kept = False
    try:
        # Our own bar, handed to pooch's downloader, so that it is closed even when the download
        # fails (pooch's own bar would be left open).
        progress = tqdm(total=0, ncols=79, unit="B", unit_scale=True, leave=True, desc=target.name)
        downloader = pooch.HTTPDownloader(progressbar=progress, timeout=(timeout, timeout))
        try:
            with _quiet_pooch():
                fetched = Path(
                    pooch.retrieve(
                        url,
                        known_hash=f"sha256:{sha256.lower()}" if sha256 is not None else None,
                        fname=target.name,
                        path=staging,
                        downloader=downloader,
                    )
                )
        except Exception as exc:  # every failure becomes one clear error
            if _is_checksum_refusal(exc):  # pooch has deleted the download already
                raise DownloadError(
                    f"could not verify {url}: its sha256 is not the expected {sha256} ({exc}) The file is "
                    "corrupt or has changed upstream. Nothing was kept."
                ) from exc
            raise DownloadError(f"could not download {url}: {_describe(exc, timeout)}. Nothing was kept.") from exc
        finally:
            progress.close()
        received = fetched.stat().st_size
        if size is not None and received != size:
            raise DownloadError(
                f"could not download {url}: received {received:,} bytes, expected {size:,} "
                "(the transfer was cut short or the file changed). Nothing was kept."
            )
        if git_blob is not None:
            verify_git_blob(fetched, git_blob, url)
        digest = sha256.lower() if sha256 is not None else sha256_of(fetched)
        os.replace(fetched, target)
        kept = True
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if not kept:
            _remove_empty(created)
    return digest


def _missing_folders(folder: Path) -> list[Path]:
    """``folder`` and its ancestors that do not exist yet, deepest first."""
    return [path for path in (folder, *folder.parents) if not path.exists()]


def _remove_empty(folders: list[Path]) -> None:
    """Remove the folders a failed download created, deepest first, where they are still empty: a
    failed download leaves the data directory as it found it."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return


def _is_checksum_refusal(exc: BaseException) -> bool:
    """True for pooch's refusal of a file whose hash differs (a ValueError, unlike a transport error)."""
    import requests

    return isinstance(exc, ValueError) and not isinstance(exc, requests.RequestException) and "hash" in str(exc)


@contextlib.contextmanager
def _quiet_pooch() -> Iterator[None]:
    """Silence pooch's informational messages: they name the staging folder, not the file's home,
    and the progress bar already says what is being downloaded. Warnings still show."""
    logger = pooch.get_logger()
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


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
    if re.search(r"IncompleteRead|ChunkedEncoding|ProtocolError|Connection broken|RemoteDisconnected", text):
        return f"the connection was closed before the whole file arrived ({_first_line(exc)})"
    if isinstance(exc, requests.ConnectionError):
        return f"could not connect ({_first_line(exc)})"
    return f"{type(exc).__name__}: {_first_line(exc)}"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    line = text[0] if text else type(exc).__name__
    return line if len(line) <= 200 else line[:197] + "..."


# -- archives -----------------------------------------------------------------------------------


def _fetch_archive_member(item: SourceFile, data_directory: Path, timeout: float) -> Path:
    archive = item.archive
    assert archive is not None
    archive_path = data_directory / ARCHIVES_DIR / PurePosixPath(archive.filename).name
    target = data_directory / item.path
    with _locked(archive_path):
        if target.is_file():  # extracted by another process while we waited
            return target
        if archive_path.is_file() and not _archive_intact(archive_path, archive.sha256, archive.size, data_directory):
            archive_path.unlink()
        if not archive_path.is_file():
            digest = _download_verified(
                archive.url, archive_path, sha256=archive.sha256, size=archive.size, timeout=timeout
            )
            _remember_hash(archive_path, digest, data_directory)
        try:
            records = _extract(archive_path, archive.url, target.parent, data_directory)
        except BaseException:
            # A damaged or hostile archive must not be reused by the next attempt.
            archive_path.unlink(missing_ok=True)
            raise
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
        if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name) or os.path.isabs(name):
            _refuse(source, member, "has an absolute path")
        if ".." in parts or "\\" in name:
            _refuse(source, member, "has a path leading out of the target directory")
        for depth in range(1, len(parts)):
            if PurePosixPath(*parts[:depth]) in links:
                _refuse(source, member, "is placed through a link")
        if member.issym() or member.islnk():
            link = member.linkname
            if link.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", link) or os.path.isabs(link):
                _refuse(source, member, f"is a link to an absolute path ({link})")
            base = PurePosixPath(name).parent if member.issym() else PurePosixPath()
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


def _extract(archive_path: Path, source: str, destination: Path, data_directory: Path) -> dict[str, dict[str, Any]]:
    """Extract the regular files of a checked archive into ``destination``; return manifest records.

    Everything is extracted into a temporary directory beside ``destination`` first, so a damaged
    archive leaves nothing behind; files already present (a user's copies) are never overwritten.
    """
    destination.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".extract-", dir=destination))
    records: dict[str, dict[str, Any]] = {}
    try:
        try:
            with tarfile.open(archive_path, "r:*") as tar:
                members = tar.getmembers()
                check_members(members, source)
                needed = sum(m.size for m in members if m.isfile())
                free = shutil.disk_usage(destination).free
                if needed > free:
                    raise DownloadError(
                        f"the archive {source} needs {needed:,} bytes but only {free:,} are free in {destination}"
                    )
                if hasattr(tarfile, "data_filter"):
                    tar.extractall(staging, members=members, filter="data")
                else:  # pragma: no cover - Pythons before 3.11.4; check_members has vetted every member
                    tar.extractall(staging, members=members)
        except _FILTER_ERRORS as exc:
            raise DownloadError(
                f"refusing the archive {source}: tarfile's data filter rejected a member ({exc}). "
                "Nothing was extracted."
            ) from exc
        except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
            if isinstance(exc, DownloadError):
                raise
            raise DownloadError(
                f"the archive {source} is damaged or truncated ({type(exc).__name__}: {_first_line(exc)}); "
                "it was deleted and nothing was extracted"
            ) from exc
        files = [p for p in staging.rglob("*") if p.is_file() and not p.is_symlink()]
        relative = [p.relative_to(staging) for p in files]
        tops = {r.parts[0] for r in relative}
        strip = len(tops) == 1 and all(len(r.parts) > 1 for r in relative)  # one wrapping folder
        root = staging.resolve()
        for source_file, rel in zip(files, relative, strict=True):
            if root not in source_file.resolve().parents:  # belt and braces after the checks above
                continue
            final = destination / (Path(*rel.parts[1:]) if strip else rel)
            if final.exists():
                continue
            final.parent.mkdir(parents=True, exist_ok=True)
            digest = sha256_of(source_file)
            os.replace(source_file, final)
            _remember_hash(final, digest, data_directory)
            key = final.relative_to(data_directory).as_posix() if _inside(final, data_directory) else str(final)
            records[key] = {"sha256": digest, "size": final.stat().st_size}
    finally:
        shutil.rmtree(staging, ignore_errors=True)
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
        for item in [*(f for files in source.splits.values() for f in files), *source.extra_files.values()]:
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
    with _locked(target):
        if target.is_file():
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".gdrive-", dir=target.parent))
        records: dict[str, dict[str, Any]] = {}
        try:
            try:
                import gdown

                result = gdown.download_folder(id=folder, output=str(staging), quiet=False, timeout=timeout)
            except Exception as exc:  # gdown raises many kinds; all mean "do it by hand"
                raise DataUnavailableError(
                    _gdrive_help(item, data_directory, f"{type(exc).__name__}: {_first_line(exc)}")
                ) from exc
            if not result:
                raise DataUnavailableError(_gdrive_help(item, data_directory, "gdown returned no files"))
            for path in staging.rglob("*"):
                if path.name not in wanted or not path.is_file() or path.is_symlink():
                    continue
                final = target.parent / path.name
                if final.exists():
                    continue
                digest = sha256_of(path)
                os.replace(path, final)
                _remember_hash(final, digest, data_directory)
                key = final.relative_to(data_directory).as_posix()
                records[key] = {
                    "sha256": digest,
                    "size": final.stat().st_size,
                    "source": f"gdrive:{folder}",
                    "verified": False,
                }
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        if records:
            _record_fetched(data_directory, records)
    if not target.is_file():
        raise DataUnavailableError(_gdrive_help(item, data_directory, f"the folder holds no file named {target.name}"))
    return target
