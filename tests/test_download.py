"""Downloads fail safely: every fault gives a clear error, leaves nothing behind, and a retry works.

The tests start their own HTTP server on 127.0.0.1 (threaded, bounded, stopped after each test and
in any case after a minute) and call :func:`utils._download.fetch` directly; ``$ATLAS_OFFLINE``
stays set, which still allows loopback URLs and nothing else.
"""

from __future__ import annotations

import hashlib
import io
import re
import tarfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from utils import _download
from utils.errors import DataUnavailableError, DownloadError
from utils.sources import Archive, SourceFile

PAYLOAD = b'[{"chosen_topic": "Tea", "dialog": []}]\n' * 2000  # ~80 KB, several network chunks
TIMEOUT = 5.0


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# -- the local server ---------------------------------------------------------------------------


@dataclass
class Route:
    """What the server does for one path: ``ok``, ``404``, ``drop`` (half the body) or ``stall``."""

    behaviour: str
    body: bytes = b""


@dataclass
class LocalServer:
    base: str
    routes: dict[str, Route]
    hits: dict[str, int] = field(default_factory=dict)
    #: path -> a function that answers the request itself (for answers the routes cannot give)
    handlers: dict[str, Callable[[BaseHTTPRequestHandler], None]] = field(default_factory=dict)

    def url(self, path: str) -> str:
        return f"{self.base}/{path.lstrip('/')}"

    def serve(self, path: str, behaviour: str, body: bytes = b"") -> str:
        self.routes["/" + path.lstrip("/")] = Route(behaviour, body)
        return self.url(path)


@pytest.fixture
def server() -> Iterator[LocalServer]:
    routes: dict[str, Route] = {}
    stop = threading.Event()
    state = LocalServer(base="", routes=routes)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            state.hits[self.path] = state.hits.get(self.path, 0) + 1
            if self.path in state.handlers:
                state.handlers[self.path](self)
                return
            route = routes.get(self.path, Route("404"))
            if route.behaviour == "404":
                self.send_error(404, "Not Found")
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(route.body)))
            self.end_headers()
            if route.behaviour == "ok":
                self.wfile.write(route.body)
            elif route.behaviour == "drop":  # promise the whole body, send half, hang up
                self.wfile.write(route.body[: len(route.body) // 2])
                self.wfile.flush()
                self.close_connection = True
            elif route.behaviour == "stall":  # send a little, then go silent (bounded wait)
                self.wfile.write(route.body[:100])
                self.wfile.flush()
                stop.wait(15)

        def log_message(self, format: str, *args: object) -> None:  # keep the test output quiet
            pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        block_on_close = False

        def handle_error(self, request: object, client_address: object) -> None:
            pass  # a client that gave up mid-response is expected here

    httpd = Server(("127.0.0.1", 0), Handler)
    state.base = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    watchdog = threading.Timer(60, httpd.shutdown)  # never outlives a stuck test by much
    watchdog.daemon = True
    watchdog.start()
    try:
        yield state
    finally:
        stop.set()
        watchdog.cancel()
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


def leftovers(directory: Path) -> list[str]:
    """Every file or link under ``directory`` (a failed fetch must leave none)."""
    if not directory.exists():
        return []
    return sorted(p.relative_to(directory).as_posix() for p in directory.rglob("*") if p.is_file() or p.is_symlink())


# -- direct downloads -----------------------------------------------------------------------------


def test_healthy_download_is_verified_and_remembered(server: LocalServer, tmp_path: Path) -> None:
    url = server.serve("good.json", "ok", PAYLOAD)
    item = SourceFile(path="ds/good.json", url=url, sha256=sha(PAYLOAD), size=len(PAYLOAD))
    path = _download.fetch(item, tmp_path, timeout=TIMEOUT)
    assert path == tmp_path / "ds/good.json"
    assert path.read_bytes() == PAYLOAD
    assert _download.local_status(item, path, tmp_path) == "verified"
    assert leftovers(tmp_path) == ["_archives/manifest.json", "ds/good.json"]
    # A second fetch finds the file and does not download again.
    _download.fetch(item, tmp_path, timeout=TIMEOUT)
    assert server.hits["/good.json"] == 1


def test_a_download_is_staged_outside_the_data_directory_and_shows_no_bar_off_a_terminal(
    server: LocalServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    staged: list[Path] = []
    real = _download._stream

    def spy(url: str, destination: Path, **kwargs: object) -> tuple[Path, str]:
        staged.append(destination)
        return real(url, destination, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_download, "_stream", spy)
    url = server.serve("good.json", "ok", PAYLOAD)
    item = SourceFile(path="ds/good.json", url=url, sha256=sha(PAYLOAD).upper(), size=len(PAYLOAD))
    assert _download.fetch(item, tmp_path / "data", timeout=TIMEOUT).read_bytes() == PAYLOAD
    (destination,) = staged
    assert (tmp_path / "data") not in destination.parents and not destination.parent.exists()
    # standard error is not a terminal here, as in a notebook or a book build: no progress bar
    err = capfd.readouterr().err
    assert "B/s" not in err and "good.json" not in err


def test_every_hugging_face_file_comes_from_a_pinned_commit() -> None:
    from utils.sources import registry

    hub = [
        item
        for source in registry().values()
        for files in source.splits.values()
        for item in files
        if item.url and "huggingface.co" in item.url
    ]
    assert {item.path.split("/")[0] for item in hub} == {"faithdial", "jwhr"}
    for item in hub:
        assert re.search(r"/resolve/[0-9a-f]{40}/data/", item.url), item.url


def _fail_then_retry(
    server: LocalServer,
    tmp_path: Path,
    behaviour: str,
    *,
    sha256: str | None,
    size: int | None,
    body: bytes = PAYLOAD,
    timeout: float = TIMEOUT,
) -> DownloadError:
    url = server.serve("file.json", behaviour, body)
    item = SourceFile(path="ds/file.json", url=url, sha256=sha256, size=size)
    with pytest.raises(DownloadError) as caught:
        _download.fetch(item, tmp_path, timeout=timeout)
    assert url in str(caught.value)
    assert "Nothing was kept" in str(caught.value)
    assert leftovers(tmp_path) == []
    server.serve("file.json", "ok", PAYLOAD)
    path = _download.fetch(item, tmp_path, timeout=TIMEOUT)
    assert path.read_bytes() == PAYLOAD
    return caught.value


def test_404_is_a_clear_error_and_a_retry_succeeds(server: LocalServer, tmp_path: Path) -> None:
    error = _fail_then_retry(server, tmp_path, "404", sha256=sha(PAYLOAD), size=len(PAYLOAD))
    assert "HTTP 404" in str(error)


@pytest.mark.parametrize("known", ["nothing", "size", "sha256"])
def test_connection_dropped_mid_file(server: LocalServer, tmp_path: Path, known: str) -> None:
    error = _fail_then_retry(
        server,
        tmp_path,
        "drop",
        sha256=sha(PAYLOAD) if known == "sha256" else None,
        size=len(PAYLOAD) if known == "size" else None,
    )
    assert "closed before the whole file arrived" in str(error)


def test_wrong_checksum_is_refused(server: LocalServer, tmp_path: Path) -> None:
    tampered = PAYLOAD.replace(b"Tea", b"Tee")
    error = _fail_then_retry(server, tmp_path, "ok", sha256=sha(PAYLOAD), size=None, body=tampered)
    assert f"expected {sha(PAYLOAD)}" in str(error)
    assert sha(tampered) in str(error)


def test_wrong_size_is_refused(server: LocalServer, tmp_path: Path) -> None:
    error = _fail_then_retry(server, tmp_path, "ok", sha256=None, size=len(PAYLOAD), body=PAYLOAD[:-10])
    assert f"expected {len(PAYLOAD):,}" in str(error)


def test_stalling_server_times_out(server: LocalServer, tmp_path: Path) -> None:
    started = time.monotonic()
    url = server.serve("file.json", "stall", PAYLOAD)
    item = SourceFile(path="ds/file.json", url=url, sha256=sha(PAYLOAD))
    with pytest.raises(DownloadError, match="stalled") as caught:
        _download.fetch(item, tmp_path, timeout=1.0)
    assert time.monotonic() - started < 6
    assert url in str(caught.value) and _download.TIMEOUT_ENV in str(caught.value)
    assert leftovers(tmp_path) == []
    server.serve("file.json", "ok", PAYLOAD)
    assert _download.fetch(item, tmp_path, timeout=TIMEOUT).read_bytes() == PAYLOAD


def test_timeout_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_download.TIMEOUT_ENV, "1.5")
    assert _download.download_timeout() == 1.5
    monkeypatch.setenv(_download.TIMEOUT_ENV, "soon")
    with pytest.raises(ValueError, match=_download.TIMEOUT_ENV):
        _download.download_timeout()
    monkeypatch.delenv(_download.TIMEOUT_ENV)
    assert _download.download_timeout() == _download.DEFAULT_TIMEOUT


def test_offline_refuses_any_remote_host(tmp_path: Path) -> None:
    item = SourceFile(path="ds/file.json", url="http://example.invalid/file.json")
    with pytest.raises(DataUnavailableError, match="downloads are off"):
        _download.fetch(item, tmp_path, timeout=TIMEOUT)
    assert leftovers(tmp_path) == []


def test_file_without_source_explains_placing_it_by_hand(tmp_path: Path) -> None:
    with pytest.raises(DataUnavailableError, match="by hand"):
        _download.fetch(SourceFile(path="ds/x.json"), tmp_path)


# -- archives -----------------------------------------------------------------------------------

GOOD_MEMBERS = {"train.json": PAYLOAD, "valid_random_split.json": b"[]\n"}


def make_tar(
    files: dict[str, bytes], *, links: dict[str, tuple[str, str]] | None = None, special: list[str] | None = None
) -> bytes:
    """A .tgz with regular ``files`` plus ``links`` (name -> (``"sym"``/``"hard"``, target))."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for name, (kind, target) in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type = tarfile.SYMTYPE if kind == "sym" else tarfile.LNKTYPE
            info.linkname = target
            tar.addfile(info)
        for name in special or []:
            info = tarfile.TarInfo(name)
            info.type = tarfile.FIFOTYPE
            tar.addfile(info)
    return buffer.getvalue()


GOOD_TAR = make_tar(GOOD_MEMBERS)


def archive_item(server: LocalServer, body: bytes, *, known_hash: bool, member: str = "train.json") -> SourceFile:
    url = server.serve("wow.tgz", "ok", body)
    archive = Archive(url=url, filename="wow.tgz", sha256=sha(body) if known_hash else None)
    return SourceFile(path=f"wow/raw/{member}", archive=archive)


def retry_healthy(server: LocalServer, tmp_path: Path, *, known_hash: bool) -> None:
    item = archive_item(server, GOOD_TAR, known_hash=known_hash)
    path = _download.fetch(item, tmp_path, timeout=TIMEOUT)
    assert path.read_bytes() == PAYLOAD
    assert (tmp_path / "wow/raw/valid_random_split.json").read_bytes() == b"[]\n"
    assert (tmp_path / "_archives/wow.tgz").read_bytes() == GOOD_TAR
    assert _download.local_status(item, path, tmp_path) == ("verified" if known_hash else "unverified")


def test_archive_member_is_extracted_and_verified(server: LocalServer, tmp_path: Path) -> None:
    retry_healthy(server, tmp_path, known_hash=True)
    # The sibling came from the same verified archive, so it is verified as well, without a download.
    sibling = archive_item(server, GOOD_TAR, known_hash=True, member="valid_random_split.json")
    assert _download.fetch(sibling, tmp_path) == tmp_path / "wow/raw/valid_random_split.json"
    assert _download.local_status(sibling, tmp_path / sibling.path, tmp_path) == "verified"
    assert server.hits["/wow.tgz"] == 1
    # An edited copy no longer matches what the verified archive held.
    (tmp_path / sibling.path).write_bytes(b"[ ]\n")
    assert _download.local_status(sibling, tmp_path / sibling.path, tmp_path) == "mismatch"
    assert not any(p.name.startswith(".extract-") for p in (tmp_path / "wow/raw").iterdir())


def test_archive_in_a_wrapping_folder_and_user_copies_kept(server: LocalServer, tmp_path: Path) -> None:
    body = make_tar({f"wizard_of_wikipedia/{name}": data for name, data in GOOD_MEMBERS.items()})
    user_copy = tmp_path / "wow/raw/valid_random_split.json"
    user_copy.parent.mkdir(parents=True)
    user_copy.write_bytes(b"[1]\n")
    path = _download.fetch(archive_item(server, body, known_hash=True), tmp_path, timeout=TIMEOUT)
    assert path == tmp_path / "wow/raw/train.json" and path.read_bytes() == PAYLOAD
    assert user_copy.read_bytes() == b"[1]\n"  # never overwritten


def test_archive_without_the_member_says_so(server: LocalServer, tmp_path: Path) -> None:
    item = archive_item(server, GOOD_TAR, known_hash=True, member="test_topic_split.json")
    with pytest.raises(DownloadError, match=r"no member named test_topic_split\.json"):
        _download.fetch(item, tmp_path, timeout=TIMEOUT)


@pytest.mark.parametrize("known_hash", [True, False], ids=["hash-known", "hash-unknown"])
def test_truncated_archive(server: LocalServer, tmp_path: Path, known_hash: bool) -> None:
    cut = GOOD_TAR[: len(GOOD_TAR) // 2]
    url = server.serve("wow.tgz", "ok", cut)
    item = SourceFile(
        path="wow/raw/train.json",
        archive=Archive(url=url, filename="wow.tgz", sha256=sha(GOOD_TAR) if known_hash else None),
    )
    with pytest.raises(DownloadError) as caught:
        _download.fetch(item, tmp_path, timeout=TIMEOUT)
    message = str(caught.value)
    assert url in message
    assert ("expected " + sha(GOOD_TAR)) in message if known_hash else "damaged or truncated" in message
    assert leftovers(tmp_path) == []
    retry_healthy(server, tmp_path, known_hash=known_hash)


HOSTILE = {
    "dotdot": ({"../evil.json": b"x"}, None, None),
    "nested-dotdot": ({"sub/../../evil.json": b"x"}, None, None),
    "absolute": ({"/tmp/atlas-evil-absolute.json": b"x"}, None, None),
    "symlink-absolute": ({}, {"train.json": ("sym", "/etc/passwd")}, None),
    "symlink-dotdot": ({}, {"train.json": ("sym", "../../outside.json")}, None),
    "symlink-chain": ({"d/x": b"x"}, {"here": ("sym", "."), "here/up": ("sym", "../outside.json")}, None),
    "through-symlink": ({"link/evil.json": b"x"}, {"link": ("sym", "sub")}, None),
    "hardlink-dotdot": ({}, {"train.json": ("hard", "../outside.json")}, None),
    "hardlink-absolute": ({}, {"train.json": ("hard", "/etc/passwd")}, None),
    "fifo": ({}, None, ["train.json"]),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_archive_is_refused(server: LocalServer, tmp_path: Path, case: str) -> None:
    files, links, special = HOSTILE[case]
    body = make_tar({**GOOD_MEMBERS, **files}, links=links, special=special)
    data_dir = tmp_path / "data"
    with pytest.raises(DownloadError, match="refusing the archive") as caught:
        _download.fetch(archive_item(server, body, known_hash=True), data_dir, timeout=TIMEOUT)
    assert server.url("wow.tgz") in str(caught.value)
    assert leftovers(tmp_path) == []  # nothing inside the data dir, nothing beside it
    assert not Path("/tmp/atlas-evil-absolute.json").exists()
    retry_healthy(server, data_dir, known_hash=True)


def test_data_filter_refuses_even_without_the_explicit_check(
    server: LocalServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not hasattr(tarfile, "data_filter"):
        pytest.skip("this Python has no tarfile extraction filters")
    monkeypatch.setattr(_download, "check_members", lambda members, source: None)
    body = make_tar(GOOD_MEMBERS, links={"train.json": ("sym", "../../outside.json")})
    data_dir = tmp_path / "data"
    with pytest.raises(DownloadError, match="data filter"):
        _download.fetch(archive_item(server, body, known_hash=False), data_dir, timeout=TIMEOUT)
    assert leftovers(tmp_path) == []


def test_cached_archive_that_no_longer_verifies_is_downloaded_again(server: LocalServer, tmp_path: Path) -> None:
    item = archive_item(server, GOOD_TAR, known_hash=True)
    (tmp_path / "_archives").mkdir()
    (tmp_path / "_archives/wow.tgz").write_bytes(GOOD_TAR[:100])
    assert _download.fetch(item, tmp_path, timeout=TIMEOUT).read_bytes() == PAYLOAD
    assert server.hits["/wow.tgz"] == 1


# -- local status and the hash cache ----------------------------------------------------------------


def _counted_hashing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, SourceFile, list[Path]]:
    """A declared file written under ``tmp_path``, and the list of the files hashed from now on."""
    path = tmp_path / "ds/file.json"
    path.parent.mkdir()
    path.write_bytes(PAYLOAD)
    item = SourceFile(path="ds/file.json", url="http://example.invalid/", sha256=sha(PAYLOAD), size=len(PAYLOAD))
    calls: list[Path] = []
    real = _download.sha256_of
    monkeypatch.setattr(_download, "sha256_of", lambda p: calls.append(p) or real(p))
    return path, item, calls


def test_local_status_hashes_a_file_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_download, "HASH_REMEMBERED_FROM", 0)  # the payload is tiny
    path, item, calls = _counted_hashing(tmp_path, monkeypatch)
    assert _download.local_status(item, path, tmp_path) == "verified"
    assert _download.local_status(item, path, tmp_path) == "verified"
    assert len(calls) == 1
    path.write_bytes(PAYLOAD.replace(b"Tea", b"Tee"))  # same size, new content and mtime
    assert _download.local_status(item, path, tmp_path) == "mismatch"
    assert len(calls) == 2
    assert _download.local_status(SourceFile(path="ds/file.json"), path, tmp_path) == "unverified"
    assert _download.local_status(SourceFile(path="ds/file.json", size=1), path, tmp_path) == "mismatch"


def test_a_small_file_is_hashed_at_every_check_and_nothing_is_remembered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under HASH_REMEMBERED_FROM, hashing again costs less than writing the memo: none is written."""
    path, item, calls = _counted_hashing(tmp_path, monkeypatch)
    assert len(PAYLOAD) < _download.HASH_REMEMBERED_FROM
    assert _download.local_status(item, path, tmp_path) == "verified"
    assert _download.local_status(item, path, tmp_path) == "verified"
    assert len(calls) == 2 and not _download._hash_cache_path(tmp_path).exists()
    path.write_bytes(PAYLOAD.replace(b"Tea", b"Tee"))
    assert _download.local_status(item, path, tmp_path) == "mismatch"


def test_broken_hash_cache_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_download, "HASH_REMEMBERED_FROM", 0)  # the payload is tiny
    path = tmp_path / "f.json"
    path.write_bytes(PAYLOAD)
    cache = _download._hash_cache_path(tmp_path)
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("{not json", encoding="utf-8")
    assert _download.file_sha256(path, tmp_path) == sha(PAYLOAD)
    assert _download.file_sha256(path, tmp_path) == sha(PAYLOAD)


# -- Google Drive (WISE): gdown is replaced, nothing leaves the machine ---------------------------


def _gdrive_item() -> SourceFile:
    """WISE's document collection: the one file only on Google Drive (the conversations are on GitHub)."""
    from utils.sources import get_source

    return get_source("wise").extra_files["documents"]


def _fake_download_folder(write: Callable[[Path], None]) -> Callable[..., list[str]]:
    import inspect

    import gdown

    # The arguments must fit the installed gdown's own signature (``timeout`` came in gdown 6.3).
    real = inspect.signature(gdown.download_folder)

    def download_folder(*, id: str, output: str, **kwargs: object) -> list[str]:
        real.bind(id=id, output=output, **kwargs)
        write(Path(output))
        return [str(p) for p in Path(output).rglob("*") if p.is_file()]

    return download_folder


def test_gdrive_failure_explains_placing_files_by_hand(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gdown

    def refuse(**kwargs: object) -> list[str]:
        raise RuntimeError("Too many users have viewed or downloaded this file recently")

    monkeypatch.delenv("ATLAS_OFFLINE")
    monkeypatch.setattr(gdown, "download_folder", refuse)
    with pytest.raises(DataUnavailableError) as caught:
        _download.fetch(_gdrive_item(), tmp_path, timeout=TIMEOUT)
    message = str(caught.value)
    assert "Too many users" in message and "Baidu" in message
    assert str(tmp_path / "wise/document_line.json") in message
    assert leftovers(tmp_path) == []


def test_gdrive_download_moves_only_expected_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gdown

    def write(output: Path) -> None:
        (output / "WISE").mkdir()
        (output / "WISE/conversation_valid_line.json").write_text('{"conversation": []}\n', encoding="utf-8")
        (output / "WISE/document_line.json").write_text("{}\n", encoding="utf-8")
        (output / "WISE/run_me.sh").write_text("echo hi\n", encoding="utf-8")

    monkeypatch.delenv("ATLAS_OFFLINE")
    monkeypatch.setattr(gdown, "download_folder", _fake_download_folder(write))
    item = _gdrive_item()
    path = _download.fetch(item, tmp_path, timeout=TIMEOUT)
    assert path == tmp_path / "wise/document_line.json"
    # the conversation file in the folder is not moved in: the atlas fetches it from GitHub, verified
    assert leftovers(tmp_path / "wise") == ["document_line.json"]
    assert _download.local_status(item, path, tmp_path) == "unverified"
    assert _download.placed_by_fetch(item, path, tmp_path)


def test_gdrive_is_never_tried_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gdown

    monkeypatch.setattr(gdown, "download_folder", lambda **kwargs: pytest.fail("gdown called while offline"))
    with pytest.raises(DataUnavailableError, match="Baidu"):
        _download.fetch(_gdrive_item(), tmp_path, timeout=TIMEOUT)


def test_concurrent_fetches_download_once(server: LocalServer, tmp_path: Path) -> None:
    import concurrent.futures

    url = server.serve("good.json", "ok", PAYLOAD)
    item = SourceFile(path="ds/good.json", url=url, sha256=sha(PAYLOAD), size=len(PAYLOAD))
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        paths = list(pool.map(lambda _: _download.fetch(item, tmp_path, timeout=TIMEOUT), range(4)))
    assert set(paths) == {tmp_path / "ds/good.json"}
    assert server.hits["/good.json"] == 1
    assert leftovers(tmp_path) == ["_archives/manifest.json", "ds/good.json"]


# -- directories that cannot be written -----------------------------------------------------------


@pytest.mark.parametrize("kind", ["url", "archive"])
def test_a_read_only_data_directory_says_where_the_file_would_go_and_why_not(
    server: LocalServer, tmp_path: Path, make_read_only, kind: str
) -> None:
    data = tmp_path / "shared-class-folder"
    (data / "ds").mkdir(parents=True)
    (data / "ds/present.json").write_bytes(PAYLOAD)
    how = make_read_only(data)
    if kind == "url":
        item = SourceFile(path="ds/missing.json", url=server.serve("missing.json", "ok", PAYLOAD))
    else:
        item = archive_item(server, GOOD_TAR, known_hash=True)
    with pytest.raises(DataUnavailableError) as caught:
        _download.fetch(item, data, timeout=TIMEOUT)
    message = str(caught.value)
    assert str(data / item.path) in message  # where it would go
    assert ("read-only file system" if how == "read-only mount" else "permission denied") in message  # why not
    assert "ATLAS_DATA_DIR" in message and "can still be used" in message
    assert server.hits == {}  # refused before any transfer
    assert (data / "ds/present.json").read_bytes() == PAYLOAD  # and what is there is still served


def test_an_unwritable_cache_directory_does_not_stop_a_download(
    server: LocalServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The locks and the remembered hashes live in the cache directory; a file in its place must not
    # stop a download (the lock goes to the temporary directory, the hash is computed again).
    blocker = tmp_path / "cache-is-a-file"
    blocker.write_text("not a directory", encoding="utf-8")
    monkeypatch.setenv("ATLAS_CACHE_DIR", str(blocker))
    url = server.serve("good.json", "ok", PAYLOAD)
    item = SourceFile(path="ds/good.json", url=url, sha256=sha(PAYLOAD), size=len(PAYLOAD))
    data = tmp_path / "data"
    path = _download.fetch(item, data, timeout=TIMEOUT)
    assert path.read_bytes() == PAYLOAD
    assert _download.local_status(item, path, data) == "verified"
    assert blocker.read_text(encoding="utf-8") == "not a directory"


def test_a_failed_download_leaves_no_new_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ATLAS_OFFLINE", raising=False)
    target = tmp_path / "data" / "faithdial" / "train.json"
    (tmp_path / "data").mkdir()
    with pytest.raises(DownloadError):
        # nothing listens on port 9 of the loopback: the connection is refused at once
        _download._download_verified("http://127.0.0.1:9/train.json", target, sha256=None, size=None, timeout=2)
    assert list((tmp_path / "data").iterdir()) == []  # neither faithdial/ nor a staging folder


# -- what a user meets at home: a failed download changes nothing, is tried once, says why briefly ------------


def _snapshot(directory: Path) -> dict[str, tuple[int, int, int]]:
    """Every entry under ``directory`` (itself included) with its size, mode and modification time."""
    return {
        str(path.relative_to(directory)): (path.lstat().st_size, path.lstat().st_mode, path.lstat().st_mtime_ns)
        for path in [directory, *directory.rglob("*")]
    }


@pytest.mark.parametrize("kind", ["url", "archive"])
def test_a_failed_download_leaves_the_data_directory_exactly_as_it_was(
    server: LocalServer, tmp_path: Path, kind: str
) -> None:
    data = tmp_path / "data"
    (data / "wow" / "raw").mkdir(parents=True)
    (data / "wow" / "raw" / "train_sample.json").write_bytes(PAYLOAD)
    before = _snapshot(data)
    time.sleep(0.01)  # a touched folder would show a later mtime
    if kind == "url":
        item = SourceFile(path="wise/file.json", url=server.url("missing.json"))
    else:
        archive = Archive(url=server.url("missing.tgz"), filename="missing.tgz", sha256=None)
        item = SourceFile(path="wow/raw/train.json", archive=archive)
    with pytest.raises(DownloadError, match="HTTP 404"):
        _download.fetch(item, data, timeout=TIMEOUT)
    assert _snapshot(data) == before  # no wise/, no _archives/, wow/raw untouched


def test_a_hostile_archive_leaves_the_data_directory_exactly_as_it_was(server: LocalServer, tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    before = _snapshot(data)
    body = make_tar({"../escape.json": b"x"})
    archive = Archive(url=server.serve("bad.tgz", "ok", body), filename="bad.tgz", sha256=sha(body))
    with pytest.raises(DownloadError, match="refusing the archive"):
        _download.fetch(SourceFile(path="wow/raw/train.json", archive=archive), data, timeout=TIMEOUT)
    assert _snapshot(data) == before


def test_the_loader_tries_a_failed_source_once_per_run(
    server: LocalServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from utils import loading
    from utils.sources import get_source

    archive = Archive(url=server.url("wizard_of_wikipedia.tgz"), filename="wizard_of_wikipedia.tgz", sha256=None)
    files = {
        split: (SourceFile(path=f"wow/raw/{name}.json", archive=archive),)
        for split, name in (("train", "train"), ("valid", "valid_random_split"))
    }
    monkeypatch.setattr(loading, "_split_files", lambda source, split: files[split])
    monkeypatch.setenv("ATLAS_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("ATLAS_OFFLINE")  # this machine's server only, all the same
    for split in ("train", "valid", "train"):
        with pytest.warns(loading.DemoDataWarning, match="HTTP 404"):
            loading._resolve(get_source("wow"), split, tmp_path, True)
    assert server.hits == {"/wizard_of_wikipedia.tgz": 1}


def test_a_trickling_server_is_given_up_on_at_the_deadline(
    server: LocalServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stop = threading.Event()
    url = server.serve("slow.json", "ok", PAYLOAD)

    def trickle(handler: BaseHTTPRequestHandler) -> None:  # one byte every 0.3 s, never silent for long
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(PAYLOAD)))
        handler.end_headers()
        for byte in PAYLOAD:
            if stop.wait(0.3):
                return
            handler.wfile.write(bytes([byte]))
            handler.wfile.flush()

    server.handlers["/slow.json"] = trickle
    monkeypatch.setenv(_download.DEADLINE_ENV, "2")
    started = time.monotonic()
    try:
        with pytest.raises(DownloadError, match="longer than 2 s in all"):
            _download.fetch(SourceFile(path="ds/slow.json", url=url), tmp_path, timeout=1)
    finally:
        stop.set()
    assert time.monotonic() - started < 6
    assert leftovers(tmp_path) == []


def _raw_route(server: LocalServer, path: str, head: bytes, body: bytes) -> str:
    """A route that answers with ``head`` (status line and headers, as given) and ``body``, then hangs up."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.wfile.write(head + b"Connection: close\r\n\r\n" + body)
        handler.wfile.flush()
        handler.close_connection = True

    server.handlers["/" + path] = answer
    return server.url(path)


@pytest.mark.parametrize(
    ("head", "body", "why"),
    [
        (b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n", PAYLOAD[:1000], "no length for the file"),
        (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 15\r\n", b"<html>hi</html>", "web page"),
        (b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 22\r\n",
         b"<!DOCTYPE html><html>", "web page"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 9999999999\r\n", b"", "announces 9,999,999,999 bytes"),
    ],
    ids=["no length", "html type", "html body", "over the ceiling"],
)
def test_a_file_with_neither_checksum_nor_size_is_refused_when_it_cannot_be_trusted(
    server: LocalServer, tmp_path: Path, head: bytes, body: bytes, why: str
) -> None:
    url = _raw_route(server, "f.json", head, body)
    with pytest.raises(DownloadError, match=why):
        _download.fetch(SourceFile(path="faithdial/train.json", url=url), tmp_path, timeout=TIMEOUT)
    assert leftovers(tmp_path) == []


def test_an_unbounded_body_stops_at_the_ceiling(
    server: LocalServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(_download.MAX_BYTES_ENV, "50000")
    url = server.serve("big.json", "ok", PAYLOAD)  # ~80 KB, announced
    with pytest.raises(DownloadError, match="50,000"):
        _download.fetch(SourceFile(path="faithdial/train.json", url=url), tmp_path, timeout=TIMEOUT)
    assert leftovers(tmp_path) == []


def test_offline_a_redirect_away_from_this_machine_is_refused(server: LocalServer, tmp_path: Path) -> None:
    away = b"HTTP/1.1 302 Found\r\nLocation: http://example.invalid/file.json\r\nContent-Length: 0\r\n"
    url = _raw_route(server, "moved.json", away, b"")
    with pytest.raises(DownloadError, match=r"redirects to http://example\.invalid/file\.json"):
        _download.fetch(SourceFile(path="ds/file.json", url=url), tmp_path, timeout=TIMEOUT)
    # a redirect that stays on this machine is followed
    server.serve("there.json", "ok", PAYLOAD)
    url = _raw_route(server, "here.json", b"HTTP/1.1 302 Found\r\nLocation: /there.json\r\nContent-Length: 0\r\n", b"")
    item = SourceFile(path="ds/there.json", url=url, sha256=sha(PAYLOAD))
    assert _download.fetch(item, tmp_path, timeout=TIMEOUT).read_bytes() == PAYLOAD


def test_atlas_fetch_gives_one_short_reason_per_file_and_one_set_of_instructions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import gdown
    import requests

    from utils import cli

    def unreachable(*args: object, **kwargs: object) -> list[str]:
        raise requests.ConnectionError(
            "HTTPSConnectionPool(host='drive.google.com', port=443): Max retries exceeded with url: "
            "/drive/folders/1KFo3OGvFjqC-cDL6_hULyZc5CANz2Rky?hl=en (Caused by NameResolutionError(\"<urllib3."
            "connection.HTTPSConnection object at 0x7f>: Failed to resolve 'drive.google.com' ([Errno -3] "
            "Temporary failure in name resolution)\"))"
        )

    monkeypatch.delenv("ATLAS_OFFLINE")
    monkeypatch.setenv("ATLAS_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(gdown, "download_folder", unreachable)  # nothing leaves this machine
    monkeypatch.setattr(requests.Session, "get", unreachable)
    assert cli.main(["fetch", "wise"]) == 1
    out = capsys.readouterr().out
    failed = [line for line in out.splitlines() if line.startswith("failed")]
    assert len(failed) == 6 and all(len(line) < 400 and "could not be resolved" in line for line in failed)
    assert "HTTPSConnectionPool" not in out and "Max retries" not in out
    by_hand = out.split("By hand:\n", 1)[1].splitlines()[:-1]
    assert out.count("By hand:") == 1 and by_hand and len(set(by_hand)) == len(by_hand)
    assert out.count("Baidu") <= 1
    assert list(tmp_path.iterdir()) == []


def test_every_fixed_official_file_at_hand_is_pinned_by_size_and_checksum(real_data_dir: Path) -> None:
    # A file whose publisher's version is fixed (a pinned commit, a versioned file) and of which an
    # unmodified copy is at hand is pinned: a download that differs fails instead of being parsed.
    from utils.sources import registry

    checked = 0
    for source in registry().values():
        for item in [*(f for files in source.splits.values() for f in files), *source.extra_files.values()]:
            local = real_data_dir / item.path
            if item.partial or not local.is_file():
                continue
            assert (item.sha256, item.size) == (_download.sha256_of(local), local.stat().st_size), item.path
            checked += 1
    assert checked >= 15
