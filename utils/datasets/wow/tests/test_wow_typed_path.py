"""WoW's typed path (msgspec decodes each dialogue straight into typed records, issue 37) gives the
record path's dialogues, and hands a file over to the record path at the first record it does not
take, so that errors name the same file, record and field as before.

The property over fuzzed files is ``tests/test_fuzz.py::test_fast_path_agrees_with_parse[wow]``
(``parse_columns``, which the loader builds the cache with, against ``parse``, the record path).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import msgspec
import numpy as np
import pytest

from conftest import demo_file
from utils import _cache
from utils.datasets.wow import _native
from utils.datasets.wow import parser as wow
from utils.errors import DataError, SlowPathWarning

DEMO_FILES = ["train.json", "valid_random_split.json", "valid_topic_split.json", "test_random_split.json"]


@pytest.fixture(autouse=True, params=["compiled", "python"])
def loops(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test here runs with the compiled per-passage loops and with the Python ones."""
    if request.param == "compiled":
        built = wow._built_speedups()
        if built is None:
            pytest.skip("the compiled loops are not built in this install")
        monkeypatch.setattr(wow, "_loops", built)
    else:
        monkeypatch.setattr(wow, "_loops", _native)
        warnings.filterwarnings("ignore", category=SlowPathWarning)


def _columns_records(path: Path) -> list:
    tables = _cache.build_in_memory(wow.parse_columns(path, split="train"))
    return _cache.rebuild_dialogues(tables, 0, tables.dialogues.num_rows)


def _typed_count(path: Path) -> int:
    """How many dialogues the typed path reads before handing over (all of them: no hand-over)."""
    count = 0
    try:
        for _ in wow._typed_records(path):
            count += 1
    except wow._HandOver:
        return -count - 1
    return count


def _same_as_parse(path: Path) -> None:
    expected = list(wow.parse(path, split="train"))
    assert _typed_count(path) == len(expected), "the typed path handed the file over"
    assert _columns_records(path) == expected
    # and the very texts the cache stores (the SQL console shows them): the typed path writes the
    # dialogues' meta and the turns' labels and raw as JSON itself, the same texts the cache writes
    by_parse = _cache.build_in_memory(wow.parse(path, split="train"))
    typed = _cache.build_in_memory(wow.parse_columns(path, split="train"))
    assert typed.dialogues.equals(by_parse.dialogues) and typed.turns.equals(by_parse.turns)
    assert typed.raw.column().equals(by_parse.raw.column())


@pytest.mark.parametrize("name", DEMO_FILES)
def test_typed_path_reads_the_demo_files_as_parse_does(name: str) -> None:
    _same_as_parse(demo_file(f"wow/raw/{name}"))


@pytest.mark.realdata
def test_typed_path_reads_the_real_train_sample_as_parse_does(real_data_dir: Path) -> None:
    path = real_data_dir / "wow" / "raw" / "train_sample.json"
    if not path.is_file():
        pytest.skip("no real WoW train sample")
    _same_as_parse(path)


def test_typed_path_reads_synthetic_files_as_parse_does(tmp_path: Path) -> None:
    from benchmarks import synthetic

    for path in synthetic.write_wow(tmp_path, scale=0.002, seed=5, files=("train.json", "valid_random_split.json")):
        _same_as_parse(path)


def _dialogues(count: int) -> list[dict]:
    seeds = json.loads(demo_file("wow/raw/train.json").read_text(encoding="utf-8"))
    return [json.loads(json.dumps(seeds[i % len(seeds)])) for i in range(count)]


def _write(path: Path, records: list) -> Path:
    path.write_text(json.dumps(records, indent=1), encoding="utf-8")
    return path


def _error_as_parse_gives_it(path: Path) -> str:
    """The message of the columnar path's error for ``path``, checked to be the record path's."""
    with pytest.raises(DataError) as by_parse:
        list(wow.parse(path, split="train"))
    with pytest.raises(DataError) as by_columns:
        _columns_records(path)
    assert str(by_columns.value) == str(by_parse.value)
    return str(by_columns.value)


@pytest.mark.parametrize("batch", [16, 64])
def test_a_fault_after_many_dialogues_is_reported_as_the_record_path_reports_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch: int
) -> None:
    """40 good dialogues (two typed batches of 16 yielded, or none of 64), then a wizard's text that is a number."""
    monkeypatch.setattr(wow, "_COLUMN_BATCH", batch)
    records = _dialogues(41)
    records[40]["dialog"][1]["text"] = 5
    path = _write(tmp_path / "train.json", records)
    assert _typed_count(path) == -41  # handed over at dialogue 40
    message = _error_as_parse_gives_it(path)
    assert "dialogue 40" in message and "dialog[1].text" in message


@pytest.mark.parametrize("fault", ["a number, title met before", "a number, new title", "a lone surrogate"])
@pytest.mark.parametrize("batch", [16, 64])
def test_a_retrieved_passage_the_typed_path_refuses_is_reported_as_the_record_path_reports_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str, batch: int
) -> None:
    """A faulty passage is handed over to the record path whether its title was met before (with good
    sentences) or not: a typed path that reuses what it decoded for a title must still check each text."""
    monkeypatch.setattr(wow, "_COLUMN_BATCH", batch)
    records = _dialogues(30)
    passages = records[25]["dialog"][1]["retrieved_passages"]
    name = next(iter(passages[2])) if fault == "a number, title met before" else "A title met nowhere else"
    passages[2] = {name: ["A sentence.", "\ud800 alone." if fault == "a lone surrogate" else 7]}
    path = _write(tmp_path / "train.json", records)
    message = _error_as_parse_gives_it(path)
    assert "dialogue 25" in message or "record 25" in message
    assert "retrieved_passages[2]" in message or fault == "a lone surrogate"


@pytest.mark.parametrize(
    "change",
    [
        "retrieved passage respelt",
        "unknown turn field",
        "unknown dialogue field",
        "apprentice's checked sentence not an object",
        "huge wizard_eval",
        "float wizard_eval",
        "bom",
        "empty list",
    ],
)
@pytest.mark.parametrize("batch", [16, 64])
def test_records_the_typed_path_hands_over_come_out_as_parse_gives_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str, batch: int
) -> None:
    monkeypatch.setattr(wow, "_COLUMN_BATCH", batch)  # handed over after batches yielded, or within the first
    records: list = _dialogues(37)
    if change == "retrieved passage respelt":  # the same sentences in other JSON text, below
        for position in (10, 30, 31):
            records[position]["dialog"][2]["retrieved_passages"][0] = {"Title": ["Respelt one.", "Two."]}
    elif change == "unknown turn field":
        records[20]["dialog"][0]["rating"] = {"nested": [1, 2.5, None]}
    elif change == "unknown dialogue field":
        records[33]["extra"] = [True, None]
    elif change == "apprentice's checked sentence not an object":
        records[17]["dialog"][0]["checked_sentence"] = "not read for an apprentice"
    elif change == "huge wizard_eval":
        records[3]["wizard_eval"] = 10**30
    elif change == "float wizard_eval":
        records[3]["wizard_eval"] = 4.5  # taken by the typed path
    elif change == "empty list":
        records = []
    path = _write(tmp_path / "train.json", records)
    if change == "bom":
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    elif change == "retrieved passage respelt":  # the second of the three
        first, rest = path.read_bytes().split(b'"Respelt one."', 1)
        path.write_bytes(first + b'"Respelt one."' + rest.replace(b'"Respelt one."', b'"Respelt \\u006fne."', 1))
    expected = list(wow.parse(path, split="train"))
    assert _columns_records(path) == expected
    assert len(expected) == len(records)


@pytest.mark.parametrize("window", [7, 100, 4096])
def test_records_cut_by_the_read_window_are_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, window: int
) -> None:
    """A window far shorter than a record: every record is cut, read on and decoded whole."""
    path = _write(tmp_path / "train.json", _dialogues(20))
    monkeypatch.setattr(wow, "_TYPED_CHUNK", window)
    assert _typed_count(path) == 20
    assert _columns_records(path) == list(wow.parse(path, split="train"))


def _placed(columns: wow._KnowledgeColumns, titles: list[str], sentence_lists: list[list[str]], as_text: bool) -> tuple:
    """``place`` of shown passages given as sentences, or as JSON texts (as the typed path gives them,
    spelt as the published files are: with spaces): their rows, and the new passages' sentences and titles."""
    shown = wow._ShownColumns()
    values = [msgspec.Raw(json.dumps(s).encode()) if as_text else s for s in sentence_lists]
    columns.place(titles, values, shown)
    rows = np.frombuffer(b"".join(shown.rows), dtype=np.int64).tolist()
    titles_of_rows = [t for t, n in zip(shown.new_titles, shown.title_repeats, strict=True) for _ in range(n)]
    return rows, shown.new_sentences, titles_of_rows


@pytest.mark.parametrize("as_text", [False, True])
def test_a_passage_is_shared_only_with_a_row_of_the_same_title_and_sentences(
    monkeypatch: pytest.MonkeyPatch, as_text: bool
) -> None:
    """Two passages of one title alternate (the title memory holds the other one each time), one
    passage differs only in its last sentence, and the memory is cleared half-way: every shown passage
    points to rows holding its own title and sentences."""
    monkeypatch.setattr(wow, "_REMEMBERED_SENTENCES", 7)
    shown = [
        ("Film", ["a", "b"]),
        ("Film", ["c"]),
        ("Film", ["a", "b"]),
        ("Film", ["a", "x"]),
        ("Book", ["a", "b"]),
        ("Film", ["c"]),
        ("Film", []),
        ("Film", ["a", "b"]),
        ("Film", []),
    ]
    columns = wow._KnowledgeColumns()
    texts: list[str] = []
    titles: list[str] = []
    for first_half in (shown[:4], shown[4:]):
        starts, new_texts, new_titles = _placed(
            columns, [title for title, _ in first_half], [list(s) for _, s in first_half], as_text
        )
        texts += new_texts
        titles += new_titles
        for start, (title, sentences) in zip(starts, first_half, strict=True):
            assert texts[start : start + len(sentences)] == sentences
            assert all(stored == title for stored in titles[start : start + len(sentences)])
    assert len(texts) < sum(len(sentences) for _, sentences in shown)  # some were shared


@pytest.mark.parametrize("as_text", [False, True])
def test_a_list_of_sentences_shown_again_points_to_its_row_until_the_memory_is_cleared(
    monkeypatch: pytest.MonkeyPatch, as_text: bool
) -> None:
    """The same list of sentences shown again points to the row stored for it; once the memory is
    cleared, it is stored afresh and points there."""
    monkeypatch.setattr(wow, "_REMEMBERED_SENTENCES", 4)
    film, book = ["a", "b"], ["c", "d"]
    columns = wow._KnowledgeColumns()
    first, _, _ = _placed(columns, ["Film", "Book", "Film"], [film, book, film], as_text)
    again, new, _ = _placed(columns, ["Film"], [film], as_text)
    assert first == [0, 2, 0] and again == [0] and new == []
    cleared, new, _ = _placed(columns, ["Other", "Film"], [["x", "y", "z"], film], as_text)  # 3 + 2 > 4: cleared
    assert cleared == [4, 7] and new == ["x", "y", "z", "a", "b"]


def test_a_passage_spelt_otherwise_shares_the_row_of_the_same_sentences() -> None:
    """Texts are compared byte for byte first; the same sentences spelt otherwise (an escape, other
    spaces) are decoded and still share a row, and a list meets a text of the same sentences."""
    columns = wow._KnowledgeColumns()
    spellings = [rb'["caf\u00e9", "b"]', rb'["caf\u00e9","b"]', '["café", "b"]'.encode()]
    shown = wow._ShownColumns()
    columns.place(["Film"] * 3, [msgspec.Raw(text) for text in spellings], shown)
    columns.place(["Film"], [["café", "b"]], shown)
    assert np.frombuffer(b"".join(shown.rows), dtype=np.int64).tolist() == [0, 0, 0, 0]
    assert shown.new_sentences == ["café", "b"]


def _with_repeated_entries(count: int) -> list[dict]:
    """Dialogues whose every turn retrieves the same three entries (one with two titles, one of whose
    sentences says null), so that each entry is met again and again, shown and not."""
    records = _dialogues(count)
    entries = [
        {"Tea": ["Tea is a drink.", "Its value is not null."]},
        {"Milk": ["Milk is white."], "Sugar": ["Sugar is sweet.", "Tea is a drink."]},
        {"Tea": ["Tea is a drink.", "Its value is not null."]},  # the same title again: never shown twice
    ]
    for record in records:
        for turn in record["dialog"]:
            turn["retrieved_passages"] = json.loads(json.dumps(entries))
    return records


def test_passages_met_again_give_the_records_and_stored_texts_parse_gives(tmp_path: Path) -> None:
    """The same entries at every turn: the typed path's records, and the turns' ``raw`` texts that keep
    the passages not shown (one of them holding "null", which the cache writes with its other
    encoder), are those of the record path."""
    path = _write(tmp_path / "train.json", _with_repeated_entries(9))
    assert _typed_count(path) == 9
    _same_as_parse(path)
    raws = [turn.raw for dialogue in wow.parse(path, split="train") for turn in dialogue.turns]
    assert any("null" in json.dumps(raw.get("retrieved_passages_not_shown")) for raw in raws)


def test_a_malformed_passage_after_many_good_ones_is_reported_as_the_record_path_reports_it(tmp_path: Path) -> None:
    """A sentence that is a number, in an entry met many times before in good dialogues."""
    records = _with_repeated_entries(30)
    records[25]["dialog"][2]["retrieved_passages"][1]["Sugar"][0] = 7
    message = _error_as_parse_gives_it(_write(tmp_path / "train.json", records))
    assert "dialogue 25" in message and "dialog[2].retrieved_passages[1].Sugar" in message
