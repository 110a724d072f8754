"""FaithDial's fast path: the loader's columnar build gives the parser's dialogues, or steps aside.

The loader builds a FaithDial cache with :func:`utils.datasets.faithdial.parser.parse_columns` (columns
of dialogues, turns and knowledge, no objects); anything the parser would refuse makes it decline, and
:func:`~utils.datasets.faithdial.parser.parse` builds the cache instead and reports the fault. So a
loaded split must equal what ``parse`` gives, and a file ``parse`` refuses must be refused with
``parse``'s own error (naming file, record and field).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import loaded_and_parsed, record_parse_calls
from utils import _cache
from utils.datasets.faithdial import parser as faithdial
from utils.sources import get_source, get_split_files

from .test_faithdial_parser import _utterance

#: Every case the parser's mapping has (see the module docstring of the parser), spread over dialogues
#: so that a small batch size puts them in different batches.
DIALOGUES = [
    {  # labels that cleaning changes, an edited response
        "utterances": [
            _utterance(["s1"], "w1", original_response="orig1", BEGIN=[" Hallucination", "Entailment", ""]),
            _utterance(["s1", "w1", "s2"], "w2", VRM=["Disclosure", "Disclosure ", "Question"]),
        ]
    },
    {  # the wizard first, then a history that does not extend the turns; fields the card does not name
        "utterances": [
            _utterance([], "w1", extra_field={"nested": [1, [2, {"three": None}]]}),
            _utterance(["other", "s1"], "w2", utterance="its own", labels_describe=7, BEGIN=[""]),
        ]
    },
    {  # optional fields absent, a null and a blank original, a record with no labels at all
        "utterances": [
            {key: value for key, value in _utterance(["s"], "w").items() if key not in ("BEGIN", "VRM")},
            _utterance(["s", "w", "s2"], "w2", original_response=None),
            _utterance(["s", "w", "s2", "w2", "s3"], "w3", original_response="  \t"),
        ]
    },
    {"utterances": [], "dialog_idx": 7, "index": "the record's own"},  # record fields besides utterances
    {  # a history that adds wizard turns too; text that JSON must escape
        "utterances": [
            _utterance(["s0", "w0", 's1 "quoted" \\ back\nslash \u2028 \x00 ü 中文 😀'], "w1", speaker="0_Wizard"),
            _utterance(["s0", "w0", 's1 "quoted" \\ back\nslash \u2028 \x00 ü 中文 😀', "w1", "s2"], "w2"),
        ]
    },
    {  # the knowledge and labels of the first dialogue again, in another batch
        "utterances": [
            _utterance(["s1"], "w1", original_response="orig1", BEGIN=[" Hallucination", "Entailment", ""]),
            _utterance(["s1", "w1", "s2"], "w2", knowledge="Knowledge for w1"),
        ]
    },
]


@pytest.fixture
def parse_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The splits the loader had to build with the record-by-record parser (the fast path declined)."""
    return record_parse_calls(monkeypatch, "faithdial")


def _write(data_dir: Path, records: object, split: str = "train") -> Path:
    path = data_dir / get_split_files("faithdial", split)[0].path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(records), encoding="utf-8")
    return path




@pytest.mark.parametrize(
    "limits",
    [{}, {"_COLUMN_BATCH": 2}, {"_COLUMN_BATCH": 1, "_REMEMBERED_LABELS": 2, "_REMEMBERED_KNOWLEDGE": 1}],
    ids=["one batch", "batches of two", "memories that start afresh"],
)
def test_the_loader_takes_the_fast_path_and_gets_the_parsers_dialogues(
    data_dir: Path, parse_calls: list, monkeypatch: pytest.MonkeyPatch, limits: dict
) -> None:
    for name, value in limits.items():
        monkeypatch.setattr(faithdial, name, value)
    _write(data_dir, DIALOGUES)
    loaded, parsed = loaded_and_parsed("faithdial", data_dir)
    assert parse_calls == ["train"]  # only the reference call below the load, none inside it
    assert loaded == parsed
    # the cases are there: cleaned labels, a kept history, unknown fields, the record's own fields
    assert loaded[0].turns[1].raw["labels_as_written"] == {"BEGIN": [" Hallucination", "Entailment", ""]}
    assert loaded[1].turns[-1].raw["history"] == ["other", "s1"]
    assert loaded[1].turns[-1].raw["utterance"] == "its own"
    assert loaded[1].turns[0].raw["extra_field"] == {"nested": [1, [2, {"three": None}]]}
    assert loaded[3].meta == {"index": "the record's own", "utterances": 0, "dialog_idx": 7}
    assert [turn.speaker for turn in loaded[4].turns[:3]] == ["Seeker", "0_Wizard", "Seeker"]


def test_the_fast_path_writes_the_tables_of_the_record_path(tmp_path: Path) -> None:
    path = _write(tmp_path, DIALOGUES)
    fast = _cache.build_in_memory(faithdial.parse_columns(path, split="train"))
    slow = _cache.build_in_memory(faithdial.parse(path, split="train"))
    for name in ("dialogues", "turns", "evidence", "passages"):
        assert getattr(fast, name).equals(getattr(slow, name)), name
    assert fast.raw.column().equals(slow.raw.column())
    # each distinct knowledge sentence once, however often and in however many dialogues it is shown
    texts = fast.passages.column("text").to_pylist()
    assert len(texts) == len(set(texts)) < fast.evidence.num_rows


def test_the_demo_splits_take_the_fast_path(parse_calls: list) -> None:
    splits = list(get_source("faithdial").splits)
    for split in splits:
        loaded, parsed = loaded_and_parsed("faithdial", get_source("faithdial").demo_dir, split)
        assert loaded == parsed, split
    assert parse_calls == splits  # the reference calls only


def _with_second(**changes: object) -> list:
    """The dialogues with the second utterance of the second record changed (``None`` deletes a field)."""
    records = json.loads(json.dumps(DIALOGUES))
    utterance = records[1]["utterances"][1]
    for key, value in changes.items():
        if value is None:
            del utterance[key]
        else:
            utterance[key] = value
    return records


DEEP = {"a": 1}
for _ in range(120):
    DEEP = {"a": DEEP}

REFUSED = {
    "history not a list": _with_second(history="s1"),
    "a number in the history's new turns": _with_second(history=["other", 5]),
    "a number in the history's known turns": _with_second(history=[5, "w1", "s2"]),
    "a list in the history": _with_second(history=["w1", ["s2"]]),
    "a number as response": _with_second(response=5),
    "no speaker": _with_second(speaker=None),
    "null knowledge": _with_second(knowledge=[None]),
    "BEGIN not a list": _with_second(BEGIN="Hallucination"),
    "a null VRM": _with_second(VRM=[None]),
    "a list among the labels": _with_second(VRM=[["Question"]]),
    "a number among the labels": _with_second(BEGIN=["Generic", 1]),
    "an original response that is a list": _with_second(original_response=["x"]),
    "a field nested too deeply": _with_second(extra=DEEP),
    "an utterance that is not an object": [*DIALOGUES[:2], {"utterances": ["text"]}],
    "a record without utterances": [*DIALOGUES[:2], {"turns": []}],
    "a record that is not an object": [*DIALOGUES[:2], ["utterances"]],
    "utterances that are not a list": [*DIALOGUES[:2], {"utterances": {"0": {}}}],
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_files_the_parser_refuses_are_refused_with_its_error(data_dir: Path, parse_calls: list, case: str) -> None:
    # The bad record comes after a good one, so the fast path has started its columns.
    _write(data_dir, REFUSED[case])
    loaded, parsed = loaded_and_parsed("faithdial", data_dir)
    assert isinstance(parsed, str), "the case is not a fault"
    assert loaded == parsed
    assert parse_calls == ["train", "train"]  # the fast path declined; parse reported


def test_malformed_json_is_refused_with_the_parsers_error(data_dir: Path, parse_calls: list) -> None:
    path = _write(data_dir, DIALOGUES)
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: len(text) // 2], encoding="utf-8")  # cut in the middle of a record
    loaded, parsed = loaded_and_parsed("faithdial", data_dir)
    assert loaded == parsed and "truncated JSON" in parsed
    assert parse_calls == ["train", "train"]
