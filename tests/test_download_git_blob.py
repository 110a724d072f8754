"""Files pinned by a git blob id (WISE's conversations on GitHub) are verified by it.

A git blob id is the SHA-1 of ``blob <size>\\0`` followed by the content. The test computes it
itself, serves the file from a loopback HTTP server (``$ATLAS_OFFLINE`` allows loopback URLs), and
checks that :func:`utils._download.fetch` keeps a file with the right id, refuses one with another
id leaving nothing behind, and that a copy placed by hand is called verified or a mismatch by the
same id.
"""

from __future__ import annotations

import hashlib
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from utils import _download
from utils.errors import DownloadError
from utils.sources import SourceFile, get_source

PAYLOAD = '{"conversation_id": -1, "conversations": [], "intent": "演示"}\n'.encode() * 500
TIMEOUT = 5.0


def blob_id(data: bytes) -> str:
    """Computed here from the definition, independently of the code under test."""
    return hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()


@pytest.fixture
def base_url() -> Iterator[str]:
    """A loopback server answering ``/file.json`` with :data:`PAYLOAD` and anything else with 404."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path != "/file.json":
                self.send_error(404, "Not Found")
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(PAYLOAD)))
            self.end_headers()
            self.wfile.write(PAYLOAD)

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


def test_blob_id_matches_git(tmp_path: Path) -> None:
    path = tmp_path / "file.json"
    path.write_bytes(PAYLOAD)
    assert _download.git_blob_id(path) == blob_id(PAYLOAD)
    try:
        from_git = subprocess.run(["git", "hash-object", str(path)], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return  # no git here: the definition above is the check
    assert from_git.stdout.strip() == blob_id(PAYLOAD)


def test_download_with_the_right_blob_id_is_kept_and_verified(base_url: str, tmp_path: Path) -> None:
    item = SourceFile(path="wise/file.json", url=f"{base_url}/file.json", git_blob=blob_id(PAYLOAD))
    path = _download.fetch(item, tmp_path, timeout=TIMEOUT)
    assert path.read_bytes() == PAYLOAD
    assert _download.local_status(item, path, tmp_path) == "verified"


def test_download_with_another_blob_id_is_refused_and_nothing_kept(base_url: str, tmp_path: Path) -> None:
    wrong = blob_id(PAYLOAD + b"x")
    item = SourceFile(path="wise/file.json", url=f"{base_url}/file.json", git_blob=wrong)
    with pytest.raises(DownloadError, match=rf"git blob id is {blob_id(PAYLOAD)}, not the {wrong}"):
        _download.fetch(item, tmp_path, timeout=TIMEOUT)
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]


def test_a_copy_placed_by_hand_is_checked_by_blob_id(tmp_path: Path) -> None:
    path = tmp_path / "wise" / "file.json"
    path.parent.mkdir()
    path.write_bytes(PAYLOAD)
    item = SourceFile(path="wise/file.json", url="https://example.invalid/file.json", git_blob=blob_id(PAYLOAD))
    assert _download.local_status(item, path, tmp_path) == "verified"
    path.write_bytes(PAYLOAD[:-1] + b" ")
    assert _download.local_status(item, path, tmp_path) == "mismatch"


def test_wise_conversations_come_from_the_pinned_commit_by_blob_id() -> None:
    commit = "9a0c56d9a83126e494e30a1317c363c338a204b4"
    source = get_source("wise")
    for split, files in source.splits.items():
        conversation = files[0]
        assert conversation.url is not None, split
        assert f"/PengjieRen/CaSE_WISE/{commit}/data/WISE/" in conversation.url, split
        assert conversation.git_blob is not None and len(conversation.git_blob) == 40, split
    # the document collection is on Google Drive and Baidu Pan only
    documents = next(iter(source.extra_files.values()))
    assert documents.url is None and documents.gdrive_folder is not None
