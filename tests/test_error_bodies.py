"""An error answered with status 200 is never kept as a data file that has no checksum (issue 50, item 2).

FaithDial's seven splits and KILT's train and test have no published checksum, so before this a body
of ``<h1>Not Found</h1>``, a plain-text 403 or a JSON error was placed as the file: ``atlas status``
called it "official file present", every load failed and ``fetch`` returned early since the file
existed. The download now matches the first bytes against the format the file's name says
(:mod:`utils._sniff`), ``atlas status`` says "not the data file", and a load says to delete it and
fetch again. Served by the loopback server of ``test_download`` (no network).
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from test_download import LocalServer, leftovers, server
from test_download_hostile import _send_in_pieces

import utils
from utils import _download, _sniff, split_files
from utils.cli import main
from utils.errors import DataError, DownloadError
from utils.sources import SourceFile

__all__ = ["server"]  # the fixture, imported to be used here

#: Bodies servers send with status 200 instead of the file, and a word of what the refusal must say.
ERROR_BODIES = {
    "h1": (b"<h1>Not Found</h1>", "web page"),
    "paragraph": (b"<p>This file has moved.</p>\n", "web page"),
    "div": (b'<div class="error">Access denied</div>', "web page"),
    "svg": (b'<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"></svg>', "SVG"),
    "XML error": (b'<?xml version="1.0"?><Error><Code>AccessDenied</Code></Error>', "XML"),
    "plain-text 403": (b"403 Forbidden\n", "plain text"),
    "JSON error": (b'{"error": "Entry not found"}', "JSON error object"),
    "UTF-16 HTML without a BOM": ("<html><body>Not Found</body></html>".encode("utf-16-le"), "UTF-16"),
    "gzip without Content-Encoding": (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + b"\x00" * 20, "gzip"),
}


@pytest.mark.parametrize("suffix", ["json", "jsonl"])
@pytest.mark.parametrize("body", sorted(ERROR_BODIES))
def test_an_error_body_is_refused_and_nothing_is_kept(
    server: LocalServer, tmp_path: Path, body: str, suffix: str
) -> None:
    content, what = ERROR_BODIES[body]
    url = _send_in_pieces(server, f"split.{suffix}", [content[:3], content[3:]])
    item = SourceFile(path=f"ds/split.{suffix}", url=url)  # no checksum, as FaithDial's and KILT's files
    with pytest.raises(DownloadError, match=what) as refused:
        _download.fetch(item, tmp_path, timeout=10)
    assert url in str(refused.value) and "Nothing was kept" in str(refused.value)
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("split.json", json.dumps([{"utterances": [{"response": "<p>hello</p>"}]}]).encode()),
        ("split.jsonl", b'{"id": "1", "input": "403 Forbidden"}\n{"id": "2", "input": "x"}\n'),
        ("split.jsonl", b'{"error": "a data record may say error", "id": 3, "input": "x"}\n'),
        ("table.tsv", b"message\tresponse\nhi\tthere\n"),
    ],
)
def test_a_data_file_without_checksum_is_kept(server: LocalServer, tmp_path: Path, name: str, content: bytes) -> None:
    url = _send_in_pieces(server, name, [content])
    assert _download.fetch(SourceFile(path=f"ds/{name}", url=url), tmp_path, timeout=10).read_bytes() == content


def test_the_sniffer_passes_every_demo_file() -> None:
    demo = sorted(Path(utils.__file__).parent.glob("datasets/*/demo/**/*.*"))
    checked = [path for path in demo if _sniff.expected_format(path)]
    assert len(checked) > 20
    assert {path.name: _sniff.sniff_file(path) for path in checked if _sniff.sniff_file(path)} == {}


def _place(data_dir: Path, relative: str, content: bytes) -> Path:
    path = data_dir / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return path


def test_status_does_not_call_an_error_body_present(data_dir: Path) -> None:
    _place(data_dir, "faithdial/train.json", b"<h1>Not Found</h1>")
    _place(data_dir, "wow/kilt/wow-test_without_answers-kilt.jsonl", b'{"error": "Entry not found"}')
    _place(data_dir, "faithdial/test.json", b'[{"utterances": []}]')
    status = {(row["dataset"], row["split"]): row["status"] for row in split_files.status_rows(data_dir)}
    assert status["faithdial", "train"] == status["wow_kilt", "test"] == split_files.NOT_DATA
    assert status["faithdial", "test"] == "official file present"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["status"]) == 0
    text = " ".join(out.getvalue().split())
    assert "faithdial/train" in text and "a web page (HTML)" in text and "`atlas fetch faithdial`" in text
    assert "`atlas fetch wow_kilt`" in text and "JSON error object" in text


def test_loading_an_error_body_says_to_delete_it_and_fetch(data_dir: Path) -> None:
    path = _place(data_dir, "faithdial/valid.json", b"403 Forbidden\n")
    with pytest.raises(DataError, match=r"plain text.*Delete it and run `atlas fetch faithdial`") as refused:
        utils.load("faithdial", "valid", data_dir=data_dir, download=False)
    assert refused.value.path == str(path)


def test_a_load_error_in_a_fetched_file_says_to_delete_it_and_fetch(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file the atlas downloaded without a checksum that its parser cannot read: fetching it again
    is the way out, and the message says so."""
    _place(data_dir, "faithdial/valid.json", b'[{"no utterances": 1}]')
    monkeypatch.setattr(_download, "placed_by_fetch", lambda item, path, data_directory: True)
    with pytest.raises(DataError, match=r"delete it and run `atlas fetch faithdial`"):
        utils.load("faithdial", "valid", data_dir=data_dir, download=False)
    monkeypatch.setattr(_download, "placed_by_fetch", lambda item, path, data_directory: False)
    with pytest.raises(DataError) as refused:  # a copy of the user's own: not the atlas's to fetch again
        utils.load("faithdial", "valid", data_dir=data_dir, download=False)
    assert "atlas fetch" not in str(refused.value)
