"""A small split whose parser has a columnar path is parsed into memory at every load, never cached
(issue 50, item 12): under :data:`utils._cache.storage.IN_MEMORY_BELOW` bytes, its parse costs less
than the cache's own fixed costs (a lock, a staging directory, five Arrow files written, compressed,
checksummed and mapped back). The same records as a cached load, nothing written but the lock-free
reading of its file, and no warning; a larger split, a split of several files and a parser without a
columnar path are cached as before. (Every other test of the suite caches every split, however small:
the autouse fixture of ``tests/conftest.py`` sets the threshold to 0.)
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest

import utils
from conftest import with_parser
from utils import _cache
from utils._cache import storage
from utils.errors import DataError
from utils.loading import parse_file
from utils.sources import registry


def _cached_entries() -> list[Path]:
    root = Path(os.environ["ATLAS_CACHE_DIR"])
    return [path for path in root.iterdir() if path.is_dir() and len(path.name) == 24] if root.is_dir() else []


@pytest.mark.usefixtures("small_files_in_memory")
@pytest.mark.parametrize(
    ("dataset", "split"),
    [("begin", "wow_dev"), ("wow_kilt", "dev"), ("wow", "train"), ("faithdial", "train"), ("wise", "train"),
     ("jwhr", "answered")],
)
def test_a_small_split_is_parsed_into_memory_with_the_records_of_a_cached_one(
    monkeypatch: pytest.MonkeyPatch, dataset: str, split: str
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", _cache.CacheWarning)
        small = utils.load(dataset, split)  # the demo sample: the data directory is empty
        again = utils.load(dataset, split)
    path = small.provenance.path
    assert path.stat().st_size < storage.IN_MEMORY_BELOW
    assert small._tables.directory is None and not _cached_entries()
    in_memory = list(small)
    assert list(again) == in_memory
    monkeypatch.setattr(storage, "IN_MEMORY_BELOW", 0)  # the same file, cached on disk
    cached = utils.load(dataset, split)
    assert cached._tables.directory is not None and len(_cached_entries()) == 1
    assert list(cached) == in_memory == list(parse_file(dataset, path, split))
    assert small.turns().equals(cached.turns()) and small.evidence().equals(cached.evidence())
    for table in ("dialogues", "turns", "evidence", "passages"):
        assert small.arrow(table).equals(cached.arrow(table)), table


@pytest.mark.usefixtures("small_files_in_memory")
@pytest.mark.filterwarnings("ignore:.*using it as a user copy")
def test_a_small_file_the_fast_path_declines_is_read_by_the_record_path(data_dir: Path) -> None:
    """In memory too, the record path reads what the columnar path leaves it, and reports a fault."""
    path = data_dir / "begin/cmu-dog/begin_test_cmu.tsv"  # no checksum to match: any copy loads
    path.parent.mkdir(parents=True)
    header = "model_name\tdata_source\tknowledge\tmessage\tresponse\tbegin_label"
    row = "t5\tcmu\tThe film is from 1999.\tWhen?\tIt is from 1999.\tFully attributable"
    path.write_text("\r\n".join([header, row, "", row, ""]), encoding="utf-8")  # an empty line: declined
    loaded = utils.load("begin", "cmu_test")
    assert list(loaded) == list(parse_file("begin", path, "cmu_test")) and not _cached_entries()
    assert loaded._tables.directory is None and loaded[1].meta["line"] == 4
    path.write_text("\r\n".join([header, row, row.replace("Fully attributable", "Maybe"), ""]), encoding="utf-8")
    with pytest.raises(DataError, match="unknown BEGIN label") as raised:
        utils.load("begin", "cmu_test")
    assert raised.value.record == "line 3"


@pytest.mark.usefixtures("small_files_in_memory")
def test_a_split_over_the_threshold_or_without_a_columnar_path_is_cached(monkeypatch: pytest.MonkeyPatch) -> None:
    size = utils.load("begin", "wow_dev").provenance.path.stat().st_size
    monkeypatch.setattr(storage, "IN_MEMORY_BELOW", size)  # the file is not under it
    assert utils.load("begin", "wow_dev")._tables.directory is not None and len(_cached_entries()) == 1
    monkeypatch.setattr(storage, "IN_MEMORY_BELOW", size + 1)
    assert utils.load("begin", "wow_dev")._tables.directory is None
    from utils.datasets.begin import parser

    monkeypatch.setitem(registry(), "begin", with_parser("begin", parser.parse))  # no columnar path
    assert utils.load("begin", "wow_dev")._tables.directory is not None


def test_the_suite_caches_every_split_unless_a_test_asks() -> None:
    assert storage.IN_MEMORY_BELOW == 0


@pytest.mark.usefixtures("small_files_in_memory")
def test_outside_the_suite_small_splits_are_not_cached() -> None:
    assert storage.IN_MEMORY_BELOW == 4 * 2**20
