"""A sixth dataset shaped as a publisher of shards ships it, a split spread over several loose files
(``train-00000-of-00003.jsonl`` ...), is one folder too: tests/sharded_dataset/toy_shards/ (declaration,
parser, renderer, demo shards), added with nothing else. Its train split is read from every shard in
order as one split, counts as present only with every shard in place (else the status and the warning
name the shard missing), is fetched and verified shard by shard, is parsed again when any shard changes,
and its Croissant card lists each shard once."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import test_fuzz
import test_status
from test_download import LocalServer, server  # noqa: F401 (the fixture)

import utils
import utils.sources
from conftest import dataset_folders_added
from utils import loading
from utils.book.render import render_dialogue
from utils.cli import main as atlas
from utils.errors import DataError, DataUnavailableError
from utils.split_files import DEMO, PRESENT, status_rows

REPO = Path(__file__).resolve().parents[1]
FOLDERS = REPO / "tests" / "sharded_dataset"
SHARDS = tuple(f"train-{number:05d}-of-00003.jsonl" for number in range(3))
#: the publisher's topics per file (the declaration holds the sha256 and size of what :func:`official` writes)
TOPICS = {SHARDS[0]: ("Rivers", "Lakes"), SHARDS[1]: ("Glaciers",), SHARDS[2]: ("Deltas", "Fjords"),
          "valid.jsonl": ("Tides",)}


def official(name: str) -> bytes:
    """The publisher's file ``name``: the train shards hold ts-0001 to ts-0005 in order, valid ts-0101."""
    first = 100 if name == "valid.jsonl" else sum(len(TOPICS[shard]) for shard in SHARDS if shard < name)
    lines = []
    for offset, topic in enumerate(TOPICS[name]):
        record = {"dialogue_id": f"ts-{first + offset + 1:04d}", "topic": topic, "utterances": [
            {"role": "user", "text": f"What shapes {topic.lower()}?", "knowledge": []},
            {"role": "expert", "text": f"Water and time shape {topic.lower()}.",
             "knowledge": [f"{topic} change over centuries."]}]}
        lines.append(json.dumps(record) + "\n")
    return "".join(lines).encode()


@pytest.fixture
def toy_shards(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The folder beside the atlas's own; the data directory holds nothing of it (the demo route)."""
    monkeypatch.setenv("ATLAS_OFFLINE", "1")
    with dataset_folders_added(FOLDERS, monkeypatch):
        yield FOLDERS / "toy_shards"


def _place(data_dir: Path, *names: str) -> None:
    (data_dir / "toy_shards").mkdir(exist_ok=True)
    for name in names:
        (data_dir / "toy_shards" / name).write_bytes(official(name))


def _status(split: str) -> dict[str, str]:
    return next(row for row in status_rows() if row["dataset"] == "toy_shards" and row["split"] == split)


def test_the_demo_shards_are_read_in_order_as_one_split(toy_shards: Path) -> None:
    with pytest.warns(utils.DemoDataWarning):
        train = utils.load("toy_shards", "train")
    assert [dialogue.id for dialogue in train] == ["demo-t1", "demo-t2", "demo-t3", "demo-t4"]
    assert train.provenance.is_demo and train.provenance.path.name == SHARDS[0]
    assert [path.name for path in train.provenance.parts] == list(SHARDS)
    assert "from 3 files: " in train.provenance.summary() and SHARDS[2] in train.provenance.summary()
    html = str(render_dialogue(train[1]))
    assert "And &lt;b&gt;black&lt;/b&gt; tea?" in html and "<b>black" not in html
    with pytest.warns(utils.DemoDataWarning):
        valid = utils.load("toy_shards", "valid")
    assert [dialogue.id for dialogue in valid] == ["demo-v1"] and valid.provenance.parts == ()


def test_every_shard_in_place_is_the_official_split(toy_shards: Path, data_dir: Path) -> None:
    _place(data_dir, *SHARDS)
    assert _status("train")["status"] == PRESENT and _status("train")["path"].endswith(SHARDS[0])
    train = utils.load("toy_shards", "train")
    assert [dialogue.id for dialogue in train] == [f"ts-{number:04d}" for number in range(1, 6)]
    assert [dialogue.topic for dialogue in train] == ["Rivers", "Lakes", "Glaciers", "Deltas", "Fjords"]
    provenance = train.provenance
    assert (provenance.kind, provenance.checksum) == (utils.loading.OFFICIAL, "verified")
    assert provenance.size_bytes == sum(len(official(name)) for name in SHARDS) and provenance.dialogues == 5
    exported = next(utils.loading.export_records(train))["provenance"]["source"]
    assert exported == "; ".join(f"$ATLAS_DATA_DIR/toy_shards/{name}" for name in SHARDS)


def test_a_missing_shard_is_named_and_the_demo_shards_stand_in(toy_shards: Path, data_dir: Path) -> None:
    _place(data_dir, SHARDS[0], SHARDS[2])
    row = _status("train")
    assert row["status"] == DEMO and row["path"].endswith(f"toy_shards/{SHARDS[1]}")
    with pytest.warns(utils.DemoDataWarning, match=rf"1 of the split's 3 official files \(toy_shards/{SHARDS[1]}\)"):
        train = utils.load("toy_shards", "train")
    assert train.provenance.is_demo and len(train) == 4
    # without a demo sample to stand in, the error says which shard to put where, and where it comes from
    source = utils.sources.get_source("toy_shards").replace(folder=data_dir / "nowhere")
    with pytest.raises(DataUnavailableError) as raised:
        loading._resolve(source, "train", data_dir, False)
    message = str(raised.value)
    assert f"{data_dir / 'toy_shards' / SHARDS[1]} (from https://example.org/toy-shards/v1/{SHARDS[1]})" in message
    assert SHARDS[0] not in message and SHARDS[2] not in message and "(1 of 3)" in message


def test_a_changed_shard_is_a_user_copy_and_rebuilds_the_cache(toy_shards: Path, data_dir: Path) -> None:
    _place(data_dir, *SHARDS)
    assert utils.load("toy_shards", "train")[2].topic == "Glaciers"
    changed = data_dir / "toy_shards" / SHARDS[1]
    changed.write_bytes(official(SHARDS[1]).replace(b"Glaciers", b"Icefalls"))
    with pytest.warns(UserWarning, match=rf"{SHARDS[1]} does not match the official checksum"):
        train = utils.load("toy_shards", "train")
    assert train[2].topic == "Icefalls", "the cache of the split was not rebuilt when one shard changed"
    provenance = train.provenance
    assert (provenance.kind, provenance.checksum) == (utils.loading.USER_COPY, "mismatch")
    assert provenance.detail == f"The checksum of {SHARDS[1]} differs from the official file's."


def test_the_ids_are_checked_across_the_shards(toy_shards: Path, data_dir: Path) -> None:
    _place(data_dir, *SHARDS)
    (data_dir / "toy_shards" / SHARDS[2]).write_bytes(official(SHARDS[2]).replace(b"ts-0004", b"ts-0001"))
    with pytest.warns(UserWarning, match="does not match"), pytest.raises(DataError) as raised:
        utils.load("toy_shards", "train")
    assert f"{SHARDS[0]} line 1, {SHARDS[2]} line 1" in str(raised.value)
    assert raised.value.path is not None and Path(raised.value.path).name == SHARDS[0]


def _served_by(server: LocalServer, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """Every file of the toy declared at this machine's test server, and downloads allowed."""
    def served(item: utils.sources.SourceFile) -> utils.sources.SourceFile:
        name = item.path.rsplit("/", 1)[-1]
        return dataclasses.replace(item, url=server.serve(name, "ok", official(name)),
                                   parts=tuple(map(served, item.parts)))

    source = utils.sources.get_source("toy_shards")
    splits = {split: tuple(map(served, files)) for split, files in source.splits.items()}
    monkeypatch.setitem(utils.sources.discovered(), "toy_shards", source.replace(splits=splits))  # type: ignore[index]
    monkeypatch.delenv("ATLAS_OFFLINE")  # this machine's server only, all the same


def test_the_loader_and_atlas_fetch_download_every_shard(
    toy_shards: Path, data_dir: Path, server: LocalServer, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    _served_by(server, monkeypatch)
    train = utils.load("toy_shards", "train")
    assert (train.provenance.kind, train.provenance.checksum, len(train)) == (utils.loading.OFFICIAL, "verified", 5)
    assert server.hits == {f"/{name}": 1 for name in SHARDS}
    (data_dir / "toy_shards" / SHARDS[1]).unlink()
    assert atlas(["fetch", "toy_shards"]) == 0
    assert server.hits == {f"/{name}": 1 for name in SHARDS} | {f"/{SHARDS[1]}": 2, "/valid.jsonl": 1}
    assert _status("train")["status"] == PRESENT


def test_a_shard_already_there_is_checked_when_another_is_downloaded(
    toy_shards: Path, data_dir: Path, server: LocalServer, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    """A download fetches only the missing shard: one already in place, changed or an error page, is
    still the user's copy, or refused, as when every shard was there (it was once called official)."""
    _served_by(server, monkeypatch)
    _place(data_dir, SHARDS[0])
    changed = data_dir / "toy_shards" / SHARDS[0]
    changed.write_bytes(official(SHARDS[0]).replace(b"Rivers", b"Creeks"))
    with pytest.warns(UserWarning, match=rf"{SHARDS[0]} does not match the official checksum"):
        train = utils.load("toy_shards", "train")
    assert (train.provenance.kind, train.provenance.checksum) == (utils.loading.USER_COPY, "mismatch")
    assert f"/{SHARDS[0]}" not in server.hits and all(f"/{name}" in server.hits for name in SHARDS[1:])
    changed.write_text("<html><body><h1>404 Not Found</h1></body></html>\n", encoding="utf-8")
    with pytest.raises(DataError, match="this is not the data file of toy_shards/train"):
        utils.load("toy_shards", "train")


def test_its_card_lists_every_shard_once(toy_shards: Path, tmp_path: Path) -> None:
    out = tmp_path / "card.json"
    assert atlas(["croissant", "toy_shards", "--out", str(out)]) == 0
    card = json.loads(out.read_text(encoding="utf-8"))
    ids = [node["@id"] for node in card["distribution"]]
    assert ids == [f"toy_shards_{name}" for name in (*SHARDS, "valid.jsonl")]
    assert all(node["sha256"] and node["contentUrl"].startswith("https://") for node in card["distribution"])


def test_every_command_of_atlas_knows_it(toy_shards: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert atlas(["status", "--json"]) == 0
    listed = [entry for entry in json.loads(capsys.readouterr().out)["splits"] if entry["dataset"] == "toy_shards"]
    assert [(entry["split"], entry["status"]) for entry in listed] == [("train", DEMO), ("valid", DEMO)]
    assert atlas(["show", "toy_shards", "train", "2"]) == 0
    assert "A fine one." in capsys.readouterr().out
    assert atlas(["stats", "toy_shards", "train", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dialogues"] == 4


def test_the_fuzz_and_status_tests_read_each_shard(toy_shards: Path, data_dir: Path) -> None:
    """The fuzz properties take each demo shard as a seed of its own, and the status panel's count of a
    sharded split is checked against all its shards' records."""
    seeds = test_fuzz._seed_files("toy_shards")
    assert [path.rsplit("/", 1)[-1] for path, _ in seeds] == [*SHARDS, "valid.jsonl"]
    checked, archives = test_status._check_panel(data_dir)
    assert archives == 0 and checked == len(utils.data_status(data_dir))


def test_a_part_with_parts_of_its_own_is_refused() -> None:
    inner = utils.sources.SourceFile(path="x/c.jsonl", parts=(utils.sources.SourceFile(path="x/d.jsonl"),))
    with pytest.raises(ValueError, match=r"x/a.jsonl: the parts \['x/c.jsonl'\] have parts of their own"):
        utils.sources.SourceFile(path="x/a.jsonl", parts=(utils.sources.SourceFile(path="x/b.jsonl"), inner))


def test_a_file_listed_twice_or_a_partial_part_is_refused() -> None:
    part = utils.sources.SourceFile
    with pytest.raises(ValueError, match=r"x/a.jsonl: \['x/b.jsonl'\] would be read twice"):
        part(path="x/a.jsonl", parts=(part(path="x/b.jsonl"), part(path="x/b.jsonl")))
    with pytest.raises(ValueError, match=r"x/a.jsonl: \['x/a.jsonl'\] would be read twice"):
        part(path="x/a.jsonl", parts=(part(path="x/a.jsonl"),))
    with pytest.raises(ValueError, match=r"the parts \['x/b.jsonl'\] are marked partial"):
        part(path="x/a.jsonl", parts=(part(path="x/b.jsonl", partial=True),))
    with pytest.raises(ValueError, match=r"the extra files \['documents'\] have parts"):
        utils.declaration.Loader(splits={}, parse=lambda path, split: iter(()), parser_version=1,
                                 extra_files={"documents": part(path="x/a.jsonl", parts=(part(path="x/b.jsonl"),))})
