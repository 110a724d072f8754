"""The records a user gets through the cache are the records the parser gives, field for field.

The cache stores each distinct passage once, dictionary-encodes origins, drops the dialogue id from
evidence rows and walks a split with a memo of decoded passages: none of that may change a record.
Checked on every demo split, on the real Wizard of Wikipedia train sample (where sentences repeat
between turns and dialogues as in the full file), and on generated dialogues with colliding texts,
titles and metadata, read every way a user can (iteration, indexing, slices), with the memo of
distinct passages forced to start afresh and with batches of one dialogue.
"""

from __future__ import annotations

import dataclasses
import gc
import pickle
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_fuzz import json_values

import utils
from utils import _cache
from utils.loading import parse_file
from utils.records import SEEKER, WIZARD, Dialogue, Evidence, Turn
from utils.sources import dataset_names, get_source


def _every_way(split: utils.LoadedSplit) -> list[Dialogue]:
    """The split read by iteration, and checked against indexing and slicing."""
    walked = list(split)
    assert [split[i] for i in range(len(split))] == walked
    assert split[1:] == walked[1:] and split[::2] == walked[::2]
    return walked


def _demo_splits() -> list[tuple[str, str, str]]:
    found = []
    for dataset in dataset_names():
        source = get_source(dataset)
        for split, files in source.splits.items():
            path = source.demo_dir / files[0].path
            if path.is_file():
                found.append((dataset, split, str(path)))
    return found


@pytest.mark.parametrize(("dataset", "split", "path"), _demo_splits(), ids=lambda value: str(value))
def test_demo_records_survive_the_cache(dataset: str, split: str, path: str) -> None:
    parsed = list(parse_file(dataset, path, split))
    loaded = utils.load(dataset, split)
    assert loaded.provenance.is_demo
    assert _every_way(loaded) == parsed
    assert _every_way(utils.load(dataset, split)) == parsed  # the reload, memory-mapped


@pytest.mark.realdata
def test_the_real_wow_train_sample_survives_the_cache(real_data_dir: Path) -> None:
    path = real_data_dir / "wow/raw/train_sample.json"
    if not path.is_file():
        pytest.skip("the real WoW train sample is not in the data directory")
    parsed = list(parse_file("wow", path, "train"))
    tables = _cache.build_in_memory(iter(parsed))
    shown = sum(len(turn.evidence) for dialogue in parsed for turn in dialogue.turns)
    # the sample's 1,477 evidence rows show 1,036 distinct sentences
    assert tables.evidence.num_rows == shown > tables.passages.num_rows
    assert _cache.rebuild_dialogues(tables, 0, len(parsed)) == parsed
    split = utils.load("wow", "train")
    if split.provenance.path == path:
        assert _every_way(split) == parsed


_texts = st.sampled_from(["", "a", "b", "a b", "ß\u200b", "\x00", "long " * 40])
_evidence = st.builds(
    Evidence,
    id=st.text(max_size=6),
    text=_texts,
    title=st.one_of(st.none(), st.sampled_from(["", "T", "U"])),
    origin=st.sampled_from(["", "topic", "retrieved:seeker", "knowledge", "quote"]),
    selected=st.booleans(),
    meta=st.one_of(st.just({}), st.dictionaries(st.sampled_from(["k", "j"]), json_values, max_size=2)),
)
_labels = st.dictionaries(st.text(max_size=5), st.lists(st.text(max_size=5), max_size=3), max_size=2)
_raw = st.dictionaries(st.text(max_size=5), json_values, max_size=3)


@st.composite
def _dialogues(draw: st.DrawFn) -> list[Dialogue]:
    dialogues = []
    for number in range(draw(st.integers(1, 5))):
        turns = [
            Turn(
                index=index,
                role=draw(st.sampled_from([SEEKER, WIZARD])),
                speaker=draw(st.sampled_from(["0_Wizard", "1_Apprentice", "user", ""])),
                text=draw(_texts),
                evidence=draw(st.lists(_evidence, max_size=6)),
                labels=draw(_labels),
                raw=draw(_raw),
            )
            for index in range(draw(st.integers(0, 4)))
        ]
        dialogues.append(
            Dialogue(
                id=f"d{number}",
                dataset="wow",
                split="train",
                turns=turns,
                topic=draw(st.one_of(st.none(), _texts)),
                meta=draw(_raw),
            )
        )
    return dialogues


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(dialogues=_dialogues(), distinct=st.sampled_from([1, 3, 1 << 21]), memo=st.sampled_from([1, 4, 1 << 21]))
def test_generated_records_survive_the_cache(
    monkeypatch: pytest.MonkeyPatch, dialogues: list[Dialogue], distinct: int, memo: int
) -> None:
    monkeypatch.setattr(_cache.encoding, "_BATCH_DIALOGUES", 1)
    monkeypatch.setattr(_cache.encoding, "_DISTINCT_PASSAGES", distinct)
    expected = [dataclasses.replace(dialogue) for dialogue in dialogues]
    tables = _cache.build_in_memory(dialogues)
    assert tables.passages.num_rows <= tables.evidence.num_rows
    passages = _cache.PassageMemo(tables, _cache.EVIDENCE_PASSAGE_COLUMNS, limit=memo)
    rebuilt = [
        dialogue
        for start in range(len(dialogues))
        for dialogue in _cache.rebuild_dialogues(tables, start, start + 1, passages)
    ]
    assert rebuilt == expected
    evidence = _cache.evidence_table(tables)
    shown = [item for dialogue in expected for turn in dialogue.turns for item in turn.evidence]
    assert evidence.column("origin").to_pylist() == [item.origin for item in shown]
    assert evidence.column("dialogue_id").to_pylist() == [
        dialogue.id for dialogue in expected for turn in dialogue.turns for _ in turn.evidence
    ]


_SMALL_REAL_FILES = [
    ("begin", "wow_test", "begin/wow/begin_test_wow.tsv"),
    ("begin", "cmu_dev", "begin/cmu-dog/begin_dev_cmu.tsv"),
    ("wow_kilt", "dev", "wow/kilt/wow-dev-kilt.jsonl"),
]


@pytest.mark.realdata
@pytest.mark.parametrize("compressed", [True, False], ids=["small split", "large split"])
@pytest.mark.parametrize(("dataset", "split", "relative"), _SMALL_REAL_FILES, ids=lambda value: str(value))
def test_small_real_files_survive_the_cache_compressed_or_not(
    real_data_dir: Path, monkeypatch: pytest.MonkeyPatch, dataset: str, split: str, relative: str, compressed: bool
) -> None:
    """A split under COMPRESSED_BELOW has its tables zstd-compressed when they outgrow its file (issue 50,
    item 12); over it, they are mapped as written: the same records either way, and a small split's
    tables smaller than its file."""
    path = real_data_dir / relative
    if not path.is_file():
        pytest.skip(f"{relative} is not in the data directory")
    monkeypatch.setattr(_cache, "COMPRESSED_BELOW", 1 << 62 if compressed else 0)
    parsed = list(parse_file(dataset, path, split))
    loaded = utils.load(dataset, split)
    assert loaded.provenance.kind == "official"
    assert _every_way(loaded) == parsed
    assert _every_way(utils.load(dataset, split)) == parsed  # the reload
    tables = sum(item.stat().st_size for item in loaded._tables.directory.glob("*.arrow"))
    if compressed:
        assert tables < path.stat().st_size


@pytest.mark.realdata
@pytest.mark.parametrize("split", ["wow_dev", "wow_test", "cmu_dev", "tc_dev"])
def test_begin_fast_path_writes_the_tables_of_the_record_path(real_data_dir: Path, split: str) -> None:
    """BEGIN's columns (parse_columns, which the loader builds with) against its records (parse): the
    same four tables, row for row, and the same raw texts."""
    from utils.datasets.begin import columns, parser

    relative = next(item.path for item in get_source("begin").splits[split])
    path = real_data_dir / relative
    if not path.is_file():
        pytest.skip(f"{relative} is not in the data directory")
    fast = _cache.build_in_memory(columns.parse_columns(path, split=split))
    records = _cache.build_in_memory(parser.parse(path, split=split))
    for name in ("dialogues", "turns", "evidence", "passages"):
        assert getattr(fast, name).equals(getattr(records, name)), name
    assert fast.raw.column().equals(records.raw.column())
    assert get_source("begin").parse_columns is columns.parse_columns


def test_evidence_reads_as_a_dataclass() -> None:
    """Evidence is a msgspec struct (made in C, untracked by the cyclic collector) that ``dataclasses``
    reads as it reads Turn and Dialogue: ``asdict`` of a dialogue is plain dicts all the way down."""
    item = Evidence("Science fiction#0", "A genre.", "Science fiction", "topic", True, {"k": [1]})
    dialogue = Dialogue("d", "wow", "train", [Turn(0, WIZARD, "1_Wizard", "Hi", [item])])
    assert dataclasses.is_dataclass(item)
    assert [(f.name, f.default) for f in dataclasses.fields(Evidence)][:5] == [
        ("id", dataclasses.MISSING), ("text", dataclasses.MISSING), ("title", None), ("origin", ""),
        ("selected", False),
    ]
    assert dataclasses.asdict(dialogue)["turns"][0]["evidence"] == [
        {"id": "Science fiction#0", "text": "A genre.", "title": "Science fiction", "origin": "topic",
         "selected": True, "meta": {"k": [1]}}
    ]
    changed = dataclasses.replace(item, text="Another.")
    assert changed == Evidence("Science fiction#0", "Another.", "Science fiction", "topic", True, {"k": [1]})
    assert item.text == "A genre."
    assert repr(Evidence("i", "t")) == "Evidence(id='i', text='t', title=None, origin='', selected=False, meta={})"
    first, second = Evidence("i", "t"), Evidence("i", "t")
    first.meta["mine"] = 1  # each piece has a dict of its own
    assert second.meta == {} and first != second
    assert pickle.loads(pickle.dumps(item)) == item
    with pytest.raises(TypeError):
        hash(item)  # mutable, as the dataclass was
    assert not gc.is_tracked(item)
