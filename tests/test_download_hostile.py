"""Hostile servers: headers sent a byte at a time meet the deadline; web pages in disguise are refused.

Uses the loopback server of ``test_download`` (127.0.0.1 only, bounded, stopped after each test).
"""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from test_download import PAYLOAD, TIMEOUT, LocalServer, leftovers, server, sha

from utils import _download
from utils.errors import DownloadError
from utils.sources import SourceFile

__all__ = ["server"]  # the fixture, imported to be used here


def test_headers_sent_a_byte_at_a_time_meet_the_deadline(
    server: LocalServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stop = threading.Event()
    head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(PAYLOAD)}\r\nX-Padding: {'.' * 200}\r\n\r\n".encode()

    def trickle_headers(handler: BaseHTTPRequestHandler) -> None:  # a byte every 0.2 s: never silent for 1 s
        for byte in head:
            if stop.wait(0.2):
                return
            handler.wfile.write(bytes([byte]))
            handler.wfile.flush()
        handler.wfile.write(PAYLOAD)

    server.handlers["/slow-head.json"] = trickle_headers
    monkeypatch.setenv(_download.DEADLINE_ENV, "2")
    started = time.monotonic()
    try:
        with pytest.raises(DownloadError, match="longer than 2 s in all"):
            _download.fetch(SourceFile(path="ds/slow-head.json", url=server.url("slow-head.json")), tmp_path, timeout=1)
    finally:
        stop.set()
    assert time.monotonic() - started < 6
    assert leftovers(tmp_path) == []


def test_a_redirect_chain_served_slowly_meets_the_deadline(
    server: LocalServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stop = threading.Event()

    def slow_redirect(handler: BaseHTTPRequestHandler) -> None:  # each hop quick, the chain endless
        if stop.wait(0.4):
            return
        handler.wfile.write(
            b"HTTP/1.1 302 Found\r\nLocation: /loop.json\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
        handler.wfile.flush()

    server.handlers["/loop.json"] = slow_redirect
    monkeypatch.setenv(_download.DEADLINE_ENV, "1")
    started = time.monotonic()
    try:
        with pytest.raises(DownloadError, match="longer than 1 s in all"):
            _download.fetch(SourceFile(path="ds/loop.json", url=server.url("loop.json")), tmp_path, timeout=1)
    finally:
        stop.set()
    assert time.monotonic() - started < 4
    assert leftovers(tmp_path) == []


PAGE = b"<html><head><title>Sign in</title></head><body>Please sign in.</body></html>\n"
HTML_VARIANTS = {
    "byte order mark first": b"\xef\xbb\xbf<!DOCTYPE html>\n" + PAGE,
    "leading comment": b"<!-- served by the proxy -->\n<!DOCTYPE html>\n" + PAGE,
    "title only": b"<title>404 Not Found</title>\n<h1>Not Found</h1>\n",
    "XHTML prolog": b'<?xml version="1.0" encoding="UTF-8"?>\n'
    b'<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
    b'"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">\n'
    b'<html xmlns="http://www.w3.org/1999/xhtml"><body>Error</body></html>\n',
    "UTF-16 with a byte order mark": "\ufeff<!DOCTYPE html><html></html>".encode("utf-16-le"),
    "long comment, then the page": b"<!-- " + b"x" * 10000 + b" -->" + PAGE,
}


def _send_in_pieces(server: LocalServer, path: str, pieces: list[bytes]) -> str:
    """A route answering 200 with a data file's content type and the body in ``pieces``, flushed apart."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/octet-stream")
        handler.send_header("Content-Length", str(sum(len(piece) for piece in pieces)))
        handler.end_headers()
        for piece in pieces:
            handler.wfile.write(piece)
            handler.wfile.flush()
            time.sleep(0.05)  # so each piece arrives as a packet of its own

    server.handlers["/" + path] = answer
    return server.url(path)


@pytest.mark.parametrize("variant", sorted(HTML_VARIANTS))
def test_a_web_page_in_disguise_is_refused(server: LocalServer, tmp_path: Path, variant: str) -> None:
    url = _send_in_pieces(server, "page.json", [HTML_VARIANTS[variant]])
    with pytest.raises(DownloadError, match="web page"):
        _download.fetch(SourceFile(path="ds/page.json", url=url), tmp_path, timeout=TIMEOUT)
    assert leftovers(tmp_path) == []


def test_a_web_page_whose_first_packet_is_one_byte_is_refused(server: LocalServer, tmp_path: Path) -> None:
    page = b"<!DOCTYPE html>\n" + PAGE
    url = _send_in_pieces(server, "page.json", [page[:1], page[1:]])
    with pytest.raises(DownloadError, match="web page"):
        _download.fetch(SourceFile(path="ds/page.json", url=url), tmp_path, timeout=TIMEOUT)
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize(
    "body",
    [
        PAYLOAD,
        b"<",  # shorter than what is looked at, and no page
        b'{"text": "<html> in a field is data"}\n',
        b"\xef\xbb\xbf" + PAYLOAD,
        b"\x1f\x8b" + b"<html>" * 1000,  # an archive's bytes are never a page, whatever follows
    ],
    ids=["json", "one byte", "html inside data", "json with a BOM", "gzip"],
)
def test_data_is_kept_whole_however_it_arrives(server: LocalServer, tmp_path: Path, body: bytes) -> None:
    pieces = [body[:1], body[1:3], body[3:]]  # split across the part that is held back and looked at
    url = _send_in_pieces(server, "data.json", [piece for piece in pieces if piece])
    item = SourceFile(path="ds/data.json", url=url, sha256=sha(body))
    assert _download.fetch(item, tmp_path, timeout=TIMEOUT).read_bytes() == body


def test_looks_like_html_examples() -> None:
    assert _download.looks_like_html(b"  \r\n<HTML lang=ja>")
    assert _download.looks_like_html(b"<!doctype html>")
    assert _download.looks_like_html(b"<?xml version='1.0'?><!-- a -->\n<!-- b --><html>")
    assert not _download.looks_like_html(b'<?xml version="1.0"?><dataset/>')
    assert not _download.looks_like_html(b"[1, 2]")
    assert not _download.looks_like_html(b"")


def test_the_staging_folder_of_a_killed_download_is_removed_by_the_next(
    server: LocalServer, tmp_path: Path
) -> None:
    from filelock import FileLock

    from utils import config

    root = config.cache_dir() / "downloads"
    dead = root / "staging-0123456789abcdef"  # a download killed half-way: its lock is free
    dead.mkdir(parents=True)
    (dead / "train.json").write_bytes(PAYLOAD[:1000])
    live = root / "staging-fedcba9876543210"  # a download running in another process
    live.mkdir()
    url = server.serve("data.json", "ok", PAYLOAD)
    with FileLock(str(root / f"{live.name}.lock")):
        item = SourceFile(path="ds/data.json", url=url, sha256=sha(PAYLOAD))
        assert _download.fetch(item, tmp_path / "data", timeout=TIMEOUT).read_bytes() == PAYLOAD
        assert not dead.exists() and live.exists()
    assert sorted(p.name for p in root.iterdir()) == [live.name, f"{live.name}.lock"]
