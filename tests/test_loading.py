"""Resolution and provenance: which file a split is loaded from, and what the loader says about it.

Order: official file in the data dir > download > partial copy > demo sample (with a
DemoDataWarning). These tests use the JWHR parser on the project's own demo files (copied into a
temporary data dir to play the user's copy) and swap the registry or the demo directory where a
case needs a file the repository does not have. Nothing touches the network.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
import warnings
from pathlib import Path

import pytest

import utils
from conftest import demo_file
from utils import _download, config, loading
from utils.datasets.wise.documents import load_documents
from utils.errors import DataError, DataUnavailableError, DownloadError, UnknownNameError
from utils.loading import DemoDataWarning
from utils.sources import SourceFile, get_source, get_split_files, registry

DEMO_JWHR = demo_file("jwhr/answered.jsonl")
DEMO_WOW_TRAIN = demo_file("wow/raw/train.json")


@pytest.fixture
def no_demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty demo directory, as for a split the project ships no sample of."""
    empty = tmp_path / "no-demo"
    empty.mkdir()
    for name, source in list(registry().items()):
        monkeypatch.setitem(registry(), name, dataclasses.replace(source, folder=empty))
    return empty


def _place(data_dir: Path, relative: str, source: Path = DEMO_JWHR) -> Path:
    target = data_dir / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    return target


def _registry(monkeypatch: pytest.MonkeyPatch, *items: SourceFile) -> None:
    monkeypatch.setattr(loading, "_split_files", lambda source, split: items)


# -- names ----------------------------------------------------------------------------------------


def test_unknown_dataset_lists_the_valid_ones() -> None:
    with pytest.raises(UnknownNameError) as caught:
        utils.load("wizard_of_oz", "train")
    message = str(caught.value)
    assert "'wizard_of_oz'" in message
    for name in utils.dataset_names():
        assert name in message
    assert isinstance(caught.value, KeyError)


def test_unknown_split_lists_the_valid_ones() -> None:
    with pytest.raises(UnknownNameError) as caught:
        utils.load("jwhr", "validation")
    message = str(caught.value)
    assert "'validation'" in message and "answered, not_answered" in message


# -- demo fallback --------------------------------------------------------------------------------


def test_offline_without_data_falls_back_to_the_demo_sample(data_dir: Path) -> None:
    with pytest.warns(DemoDataWarning, match="DEMO SAMPLE") as caught:
        split = utils.load("jwhr", "answered")
    assert "downloads are off" in str(caught[0].message)
    provenance = split.provenance
    assert provenance.kind == "demo sample" == loading.DEMO
    assert provenance.is_demo and not provenance.is_full
    assert provenance.path == DEMO_JWHR
    assert provenance.checksum == "unverified"
    assert provenance.dialogues == len(split) > 0
    assert "Demo sample, not the dataset" in provenance._repr_html_()
    assert "demo sample" in str(provenance)
    assert f"{len(split):,} sessions" in str(provenance)  # JWHR's own word for a record


def test_turns_reads_only_the_columns_asked_for(data_dir: Path) -> None:
    with pytest.warns(DemoDataWarning):
        split = utils.load("wow", "train")
    every = split.turns()
    assert list(every.columns) == list(loading.TURN_COLUMNS)
    assert every["labels"].map(lambda value: isinstance(value, dict)).all()
    some = split.turns(["text", "labels", "dialogue_id"])
    assert list(some.columns) == ["text", "labels", "dialogue_id"]
    assert some.equals(every[["text", "labels", "dialogue_id"]])
    assert split.turns(["role"]).equals(every[["role"]])
    # the frame the split remembers holds no labels: a dict per turn, decoded only for a caller asking
    assert "labels" not in split._turn_frame.columns
    with pytest.raises(UnknownNameError, match="'label'"):
        split.turns(["label"])


def test_provenance_names_each_dataset_s_records(data_dir: Path) -> None:
    units = {("wow", "train"): "dialogues", ("wow_kilt", "dev"): "examples", ("wise", "test"): "conversations"}
    for (dataset, split), unit in units.items():
        with pytest.warns(utils.DemoDataWarning):
            loaded = utils.load(dataset, split)
        assert f"{len(loaded):,} {unit}, " in loaded.provenance.summary(), (dataset, loaded.provenance.summary())
    with pytest.warns(utils.DemoDataWarning):
        documents = load_documents()
    # the document file is no file of records: its banner counts documents, not "0 dialogues"
    assert "0 dialogues" not in documents.provenance.summary()
    assert f"{len(documents):,} documents" in documents.provenance.summary()


def test_extra_files_are_found_like_splits(data_dir: Path) -> None:
    """WISE's document collection goes through the loader's resolution: official file, else demo,
    and a synthetic file beside the marker is never taken for the dataset."""
    with pytest.warns(utils.DemoDataWarning, match="wise/documents"):
        path, kind, _, _ = loading.resolve_file("wise", "documents")
    assert kind == loading.DEMO and path == demo_file("wise/document_line.json")
    (data_dir / "wise").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, data_dir / "wise" / "document_line.json")
    assert loading.resolve_file("wise", "documents")[1] == loading.USER_COPY
    (data_dir / "wise" / config.SYNTHETIC_MARKER).write_text("synthetic", encoding="utf-8")
    assert loading.resolve_file("wise", "documents")[1] == loading.SYNTHETIC
    with pytest.raises(UnknownNameError, match="documents"):
        loading.resolve_file("wise", "passages")


def test_every_shipped_demo_loads_as_a_demo(data_dir: Path) -> None:
    """Each split whose demo file exists loads offline, labelled demo (skips splits with none)."""
    loaded = 0
    for dataset in utils.dataset_names():
        for split in utils.split_names(dataset):
            if not (get_source(dataset).demo_dir / get_split_files(dataset, split)[0].path).is_file():
                continue
            with pytest.warns(DemoDataWarning):
                result = utils.load(dataset, split)
            assert result.provenance.is_demo, (dataset, split)
            loaded += 1
    assert loaded > 0


def test_missing_data_without_demo_explains_how_to_get_it(data_dir: Path, no_demo: Path) -> None:
    with pytest.raises(DataUnavailableError) as caught:
        utils.load("jwhr", "answered")
    message = str(caught.value)
    assert str(data_dir / "jwhr/answered.jsonl") in message
    assert "huggingface.co/datasets/baobab-trees/wikipedia-human-retrieval-ja" in message
    assert config.DATA_DIR_ENV in message and config.OFFLINE_ENV in message
    assert isinstance(caught.value, FileNotFoundError)


def test_missing_wise_data_names_github_and_the_drive_folder(data_dir: Path, no_demo: Path) -> None:
    pinned = "raw.githubusercontent.com/PengjieRen/CaSE_WISE/9a0c56d9a83126e494e30a1317c363c338a204b4/data/WISE"
    with pytest.raises(DataUnavailableError, match=re.escape(f"{pinned}/conversation_valid_line.json")):
        utils.load("wise", "valid")
    from utils.loading import resolve_file

    with pytest.raises(DataUnavailableError, match="Google Drive folder 1KFo3OGvFjqC-cDL6_hULyZc5CANz2Rky"):
        resolve_file("wise", "documents")


# -- local copies -----------------------------------------------------------------------------------


def test_a_user_copy_in_the_data_dir_is_used(data_dir: Path) -> None:
    # The WoW raw files have no published per-file checksum: a copy is the user's, unverified.
    placed = _place(data_dir, "wow/raw/train.json", demo_file("wow/raw/train.json"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", DemoDataWarning)
        split = utils.load("wow", "train")
    assert split.provenance.path == placed
    assert split.provenance.kind == "user copy" and split.provenance.is_full
    assert split.provenance.checksum == "unverified"
    assert split.provenance.size_bytes == placed.stat().st_size


def test_a_copy_matching_the_checksum_is_official(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = DEMO_JWHR.read_bytes()
    _registry(
        monkeypatch,
        SourceFile(path="jwhr/answered.jsonl", sha256=hashlib.sha256(data).hexdigest(), size=len(data)),
    )
    _place(data_dir, "jwhr/answered.jsonl")
    provenance = utils.load("jwhr", "answered").provenance
    assert (provenance.kind, provenance.checksum) == ("official", "verified")
    assert "Full official data" in provenance._repr_html_()


@pytest.mark.parametrize("how", ["rewritten in place", "replaced by a copy"])
def test_an_edit_that_keeps_size_and_mtime_is_neither_served_stale_nor_verified(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    # What `cp -p`, `rsync -t` or `touch -r` leave: other bytes, the same size and modification time.
    data = DEMO_JWHR.read_bytes()
    _registry(
        monkeypatch,
        SourceFile(path="jwhr/answered.jsonl", sha256=hashlib.sha256(data).hexdigest(), size=len(data)),
    )
    placed = _place(data_dir, "jwhr/answered.jsonl")
    first = utils.load("jwhr", "answered")
    assert first.provenance.checksum == "verified" and first[0].turns[0].text == "富士山の高さはどのくらいですか？"
    stat = placed.stat()
    edited = data.replace("富士山の高さ".encode(), "浅間山の高さ".encode(), 1)
    assert len(edited) == len(data) and edited != data
    if how == "rewritten in place":
        placed.write_bytes(edited)
    else:
        copy = placed.with_name("copy.tmp")
        copy.write_bytes(edited)
        os.replace(copy, placed)
    os.utime(placed, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert (placed.stat().st_size, placed.stat().st_mtime_ns) == (stat.st_size, stat.st_mtime_ns)
    with pytest.warns(UserWarning, match="does not match the official checksum"):
        again = utils.load("jwhr", "answered")
    assert (again.provenance.kind, again.provenance.checksum) == ("user copy", "mismatch")
    assert again[0].turns[0].text == "浅間山の高さはどのくらいですか？"


def test_a_checksum_mismatch_is_reported(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A registry entry a little larger than the demo file, with another checksum: a different
    # version of the file, not a file that plainly is not the dataset (those are refused, below).
    size = DEMO_JWHR.stat().st_size
    _registry(monkeypatch, SourceFile(path="jwhr/answered.jsonl", sha256="0" * 64, size=size + size // 3))
    _place(data_dir, "jwhr/answered.jsonl")
    with pytest.warns(UserWarning, match="does not match the official checksum") as caught:
        split = utils.load("jwhr", "answered")
    assert not any(issubclass(w.category, DemoDataWarning) for w in caught)
    provenance = split.provenance
    assert provenance.checksum == "mismatch"
    assert provenance.kind == "user copy"
    assert "checksum differs" in provenance.detail and "mismatch" in str(provenance)


def test_a_same_size_copy_with_other_content_is_a_mismatch(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = DEMO_JWHR.read_bytes()
    altered = data.replace("富士山".encode(), "高尾山".encode(), 1)
    assert len(altered) == len(data) and altered != data
    _registry(
        monkeypatch,
        SourceFile(path="jwhr/answered.jsonl", sha256=hashlib.sha256(data).hexdigest(), size=len(data)),
    )
    (data_dir / "jwhr").mkdir()
    (data_dir / "jwhr/answered.jsonl").write_bytes(altered)
    with pytest.warns(UserWarning, match="does not match"):
        provenance = utils.load("jwhr", "answered").provenance
    assert provenance.checksum == "mismatch"


def test_a_partial_copy_is_used_when_the_full_file_is_absent(data_dir: Path) -> None:
    placed = _place(data_dir, "wow/raw/train_sample.json", demo_file("wow/raw/train.json"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", DemoDataWarning)
        split = utils.load("wow", "train")
    provenance = split.provenance
    assert provenance.kind == "partial" and provenance.path == placed
    assert not provenance.is_full and not provenance.is_demo
    assert "5 dialogues" in provenance.detail
    assert "Partial data" in provenance._repr_html_()


def test_the_full_file_wins_over_a_partial_copy(data_dir: Path) -> None:
    demo = demo_file("wow/raw/train.json")
    _place(data_dir, "wow/raw/train_sample.json", demo)
    full = _place(data_dir, "wow/raw/train.json", demo)
    assert utils.load("wow", "train").provenance.path == full


# -- downloads through the loader (the fetch itself is replaced: no network) ----------------------


def test_download_is_used_when_allowed(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ATLAS_OFFLINE")
    item = SourceFile(path="jwhr/answered.jsonl", url="https://example.invalid/answered.jsonl")
    _registry(monkeypatch, item)
    calls = []

    def fake_fetch(source: SourceFile, directory: Path, **kwargs: object) -> Path:
        calls.append(source.path)
        target = _place(directory, source.path)
        digest = _download.sha256_of(target)
        _download._record_fetched(directory, {source.path: {"sha256": digest, "verified": False}})
        return target

    monkeypatch.setattr(_download, "fetch", fake_fetch)
    first = utils.load("jwhr", "answered").provenance
    second = utils.load("jwhr", "answered").provenance
    assert calls == ["jwhr/answered.jsonl"]
    # Downloaded from the official URL (no checksum published): official both times, unverified.
    assert (first.kind, first.checksum) == ("official", "unverified")
    assert (second.kind, second.checksum) == ("official", "unverified")


def test_a_failed_download_falls_back_and_says_why(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ATLAS_OFFLINE")

    def failing_fetch(source: SourceFile, directory: Path, **kwargs: object) -> Path:
        raise DownloadError("could not download https://example.invalid/x: the server answered HTTP 503")

    monkeypatch.setattr(_download, "fetch", failing_fetch)
    with pytest.warns(DemoDataWarning, match="HTTP 503"):
        assert utils.load("jwhr", "answered").provenance.is_demo


def test_a_failed_download_without_demo_keeps_the_cause(
    data_dir: Path, no_demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ATLAS_OFFLINE")

    def failing_fetch(source: SourceFile, directory: Path, **kwargs: object) -> Path:
        raise DownloadError("could not download https://example.invalid/x: no data arrived for 60 s")

    monkeypatch.setattr(_download, "fetch", failing_fetch)
    with pytest.raises(DataUnavailableError, match="no data arrived for 60 s"):
        utils.load("jwhr", "answered")


def test_download_false_never_fetches(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ATLAS_OFFLINE")
    monkeypatch.setattr(_download, "fetch", lambda *a, **k: pytest.fail("fetch called with download=False"))
    with pytest.warns(DemoDataWarning):
        assert utils.load("jwhr", "answered", download=False).provenance.is_demo


def test_data_dir_argument_overrides_the_environment(tmp_path: Path) -> None:
    placed = _place(tmp_path / "elsewhere", "wow/raw/train.json", demo_file("wow/raw/train.json"))
    assert utils.load("wow", "train", data_dir=tmp_path / "elsewhere").provenance.path == placed


def test_provenance_shows_paths_relative_to_the_data_directory_or_package(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    demo = utils.load("jwhr", "not_answered").provenance.summary()
    assert "from utils/datasets/jwhr/demo/jwhr/not_answered.jsonl" in demo
    assert str(get_source("jwhr").demo_dir) not in demo
    _registry(monkeypatch, SourceFile(path="jwhr/answered.jsonl"))
    _place(data_dir, "jwhr/answered.jsonl")
    copy = utils.load("jwhr", "answered").provenance.summary()
    assert "from $ATLAS_DATA_DIR/jwhr/answered.jsonl" in copy
    assert str(data_dir) not in copy


def test_provenance_counts_are_singular_for_one() -> None:
    from utils.text import counted as _counted

    assert _counted(1, "sessions") == "1 session"
    assert _counted(1, "labelled responses") == "1 labelled response"
    assert _counted(1838, "turns") == "1,838 turns"


# -- files that are plainly not the dataset ----------------------------------------------------------


def test_an_empty_file_is_refused_saying_what_was_expected(data_dir: Path) -> None:
    (data_dir / "jwhr").mkdir()
    (data_dir / "jwhr/answered.jsonl").write_bytes(b"")
    with pytest.raises(DataError) as caught:
        utils.load("jwhr", "answered")
    message = str(caught.value)
    assert caught.value.path == str(data_dir / "jwhr/answered.jsonl")
    assert "it is empty" in message and "jwhr/answered" in message
    # the registry's size and checksum of the official file, and where it comes from
    assert "2,397,505 bytes" in message
    assert "sha256 3934eb171ebb26be7f2d798655f79172b416fb3b3c5ec2882c3f452ea18c15ca" in message
    assert "huggingface.co/datasets/baobab-trees/wikipedia-human-retrieval-ja" in message


def test_a_file_of_blank_lines_is_refused_too(data_dir: Path) -> None:
    (data_dir / "jwhr").mkdir()
    (data_dir / "jwhr/not_answered.jsonl").write_text("\n\n  \n", encoding="utf-8")
    with pytest.raises(DataError, match=r"only whitespace.*336,992 bytes"):
        utils.load("jwhr", "not_answered")


def test_a_file_far_smaller_than_the_official_one_is_refused(data_dir: Path) -> None:
    _place(data_dir, "jwhr/answered.jsonl")  # the 3-session demo file, 4,981 bytes, in the official's place
    with pytest.raises(DataError, match=r"it has only 4,981 bytes, and the official file has 2,397,505 bytes"):
        utils.load("jwhr", "answered")


@pytest.mark.parametrize(("share", "refused"), [(0.45, True), (0.55, False)])
def test_the_size_threshold_is_half_the_official_size(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, share: float, refused: bool
) -> None:
    size = DEMO_JWHR.stat().st_size
    _registry(monkeypatch, SourceFile(path="jwhr/answered.jsonl", sha256="0" * 64, size=round(size / share)))
    _place(data_dir, "jwhr/answered.jsonl")
    if refused:
        with pytest.raises(DataError, match="cannot be the official file"):
            utils.load("jwhr", "answered")
    else:
        with pytest.warns(UserWarning, match="does not match the official checksum"):
            assert utils.load("jwhr", "answered").provenance.kind == "user copy"


def test_an_empty_file_without_a_recorded_size_is_refused(data_dir: Path) -> None:
    # The WoW raw files have no published size or checksum: an empty one is still not the dataset.
    (data_dir / "wow/raw").mkdir(parents=True)
    (data_dir / "wow/raw/valid_random_split.json").write_bytes(b"")
    with pytest.raises(DataError, match="it is empty, and the official file is not empty") as caught:
        utils.load("wow", "valid_seen")
    assert "parl.ai/downloads/wizard_of_wikipedia/wizard_of_wikipedia.tgz" in str(caught.value)


def test_an_empty_partial_copy_and_an_empty_document_file_are_refused(data_dir: Path) -> None:
    (data_dir / "wow/raw").mkdir(parents=True)
    (data_dir / "wow/raw/train_sample.json").write_bytes(b"")
    with pytest.raises(DataError, match="the published sample of wow/train: it is empty"):
        utils.load("wow", "train")
    (data_dir / "wise").mkdir()
    (data_dir / "wise/document_line.json").write_bytes(b"")
    with pytest.raises(DataError, match="wise/documents: it is empty"):
        load_documents()


# -- repeated record ids ------------------------------------------------------------------------------


def _lines_with_a_repeat(source: Path, first: int, again_at: int) -> list[str]:
    """The lines of ``source`` with line ``first`` (0-based) copied in again before position ``again_at``."""
    lines = source.read_text(encoding="utf-8").splitlines()
    return [*lines[:again_at], lines[first], *lines[again_at:]]


def test_repeated_jwhr_session_ids_are_a_data_error_naming_ids_and_lines(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _registry(monkeypatch, SourceFile(path="jwhr/answered.jsonl"))  # no recorded size: only ids are at stake
    lines = _lines_with_a_repeat(DEMO_JWHR, 0, 3)
    first_id = json.loads(lines[0])["id"]
    (data_dir / "jwhr").mkdir()
    (data_dir / "jwhr/answered.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as caught:
        utils.load("jwhr", "answered")
    assert caught.value.field == "id" and caught.value.path == str(data_dir / "jwhr/answered.jsonl")
    assert f"'{first_id}' on lines 1, 4" in str(caught.value)
    # an unchanged file loads: the demo's own ids are distinct
    (data_dir / "jwhr/answered.jsonl").write_bytes(DEMO_JWHR.read_bytes())
    assert len(utils.load("jwhr", "answered")) == 3


def test_repeated_wise_conversation_ids_are_a_data_error(data_dir: Path) -> None:
    demo = demo_file("wise/conversation_train_line.json")
    lines = _lines_with_a_repeat(demo, 1, 3)
    conversation = json.loads(lines[1])["conversation_id"]
    (data_dir / "wise").mkdir()
    (data_dir / "wise/conversation_train_line.json").write_text("\n".join(lines) + "\n", encoding="utf-8")
    expected = rf"1 repeated conversation_id value \('{conversation}' on lines 2, 4\)"
    with pytest.raises(DataError, match=expected):
        utils.load("wise", "train")


def test_repeated_kilt_ids_are_kept_with_a_warning(data_dir: Path) -> None:
    demo = demo_file("wow/kilt/wow-train-kilt.jsonl")
    lines = [*_lines_with_a_repeat(demo, 2, 5), demo.read_text(encoding="utf-8").splitlines()[2]]
    repeated = json.loads(lines[2])["id"]
    (data_dir / "wow/kilt").mkdir(parents=True)
    (data_dir / "wow/kilt/wow-train-kilt.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.warns(UserWarning, match="known to repeat") as caught:
        split = utils.load("wow_kilt", "train")
    [warning] = [w for w in caught if "repeated id value" in str(w.message)]
    assert f"'{repeated}' on lines 3, 6, {len(lines)}" in str(warning.message)
    assert len(split) == len(lines)  # every copy kept
    assert [d.id for d in split].count(repeated) == 3
    with pytest.warns(UserWarning, match="known to repeat"):  # on every load, the cached one too
        utils.load("wow_kilt", "train")


# -- a data directory that cannot be written ----------------------------------------------------------


def test_a_read_only_data_directory_serves_its_files_and_says_why_it_cannot_download(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, make_read_only, no_demo: Path
) -> None:
    placed = _place(data_dir, "wow/raw/train.json", DEMO_WOW_TRAIN)
    how = make_read_only(data_dir)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        split = utils.load("wow", "train")
    assert split.provenance.path == placed and split.provenance.kind == "user copy" and len(split) > 0
    # A file that is not there cannot be added: the loader says where it would go and why not.
    monkeypatch.delenv("ATLAS_OFFLINE")
    monkeypatch.setattr(_download, "_download_verified", lambda *a, **k: pytest.fail("no transfer should start"))
    with pytest.raises(DataUnavailableError) as caught:
        utils.load("jwhr", "answered")
    message = str(caught.value)
    assert str(data_dir / "jwhr/answered.jsonl") in message
    assert ("read-only file system" if how == "read-only mount" else "permission denied") in message
    assert config.DATA_DIR_ENV in message


def test_sizes_read_without_a_trailing_point_zero() -> None:
    from utils.loading import _human_size

    # BEGIN's WoW dev file is 147,417 bytes: "144 KB", never "144.0 KB" (it reads as a count printed as a float)
    sizes = [_human_size(n) for n in (500, 147417, 531393, 1241097, 2**20)]
    assert sizes == ["500 B", "144 KB", "518.9 KB", "1.2 MB", "1 MB"]
