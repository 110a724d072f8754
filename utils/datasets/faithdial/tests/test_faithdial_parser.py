"""The FaithDial parser: the turn mapping, the demo sample, and bad input as DataError."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import utils
from utils.datasets.faithdial import parser as faithdial
from utils.errors import DataError
from utils.records import SEEKER, WIZARD

SPLITS = ["train", "valid", "valid_seen", "valid_unseen", "test", "test_seen", "test_unseen"]


def _utterance(history: list[str], response: str, **extra: object) -> dict:
    record = {
        "history": history,
        "speaker": "Wizard",
        "knowledge": "Knowledge for " + response,
        "original_response": "",
        "response": response,
        "BEGIN": ["Entailment"],
        "VRM": ["Edification"],
    }
    record.update(extra)
    return record


def _write(tmp_path: Path, data: object, name: str = "split.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_turns_rebuilt_from_history(tmp_path: Path) -> None:
    dialogue = {
        "utterances": [
            _utterance(["s1"], "w1", original_response="orig1", BEGIN=["Hallucination", "Entailment"]),
            _utterance(["s1", "w1", "s2"], "w2", VRM=["Disclosure", "Question"]),
        ]
    }
    (parsed,) = faithdial.parse(_write(tmp_path, [dialogue]), split="train")
    assert [t.text for t in parsed.turns] == ["s1", "w1", "s2", "w2"]
    assert [t.role for t in parsed.turns] == [SEEKER, WIZARD, SEEKER, WIZARD]
    assert [t.index for t in parsed.turns] == [0, 1, 2, 3]
    first = parsed.turns[1]
    assert first.labels == {"BEGIN": ["Hallucination", "Entailment"], "VRM": ["Edification"]}
    assert first.raw["original_response"] == "orig1"
    assert first.raw["labels_describe"] == "original_response"  # the labels are about "orig1", not "w1"
    assert parsed.turns[3].raw["labels_describe"] == "response"  # kept: the labels are about "w2"
    assert first.selected_evidence[0].text == "Knowledge for w1"
    assert parsed.turns[3].labels["VRM"] == ["Disclosure", "Question"]
    assert parsed.turns[0].speaker == faithdial.SEEKER_SPEAKER
    assert parsed.turns[0].raw["from_history"] is True
    assert "history" not in parsed.turns[3].raw  # rebuilt from the turns, not repeated
    assert parsed.meta["utterances"] == 2


def test_wizard_first_and_mismatched_history_kept(tmp_path: Path) -> None:
    dialogue = {"utterances": [_utterance([], "w1"), _utterance(["other", "s1"], "w2", extra_field=7)]}
    (parsed,) = faithdial.parse(_write(tmp_path, [dialogue]), split="test")
    assert parsed.turns[0].role == WIZARD and parsed.turns[0].text == "w1"
    # the second history does not extend ["w1"]: it is kept whole in raw, nothing is lost
    wizard = parsed.turns[-1]
    assert wizard.raw["history"] == ["other", "s1"]
    assert wizard.raw["extra_field"] == 7
    assert parsed.meta["history_mismatches"] == 1


def test_optional_fields_may_be_absent(tmp_path: Path) -> None:
    record = _utterance(["s"], "w")
    for key in ("original_response", "BEGIN", "VRM"):
        del record[key]
    (parsed,) = faithdial.parse(_write(tmp_path, [{"utterances": [record]}]), split="train")
    assert parsed.turns[-1].labels == {"BEGIN": [], "VRM": []}
    assert parsed.turns[-1].raw["original_response"] is None
    assert parsed.turns[-1].raw["labels_describe"] == "response"


def test_truncated_json(tmp_path: Path) -> None:
    text = json.dumps([{"utterances": [_utterance(["s"], "w")]}] * 3)
    path = tmp_path / "cut.json"
    path.write_text(text[: len(text) - 40], encoding="utf-8")
    with pytest.raises(DataError) as info:
        list(faithdial.parse(path, split="train"))
    assert info.value.path == str(path)
    assert info.value.record is not None


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"history": "not a list"}, "history"),
        ({"history": ["ok", 3]}, "history[1]"),
        ({"response": 5}, "response"),
        ({"BEGIN": "Hallucination"}, "BEGIN"),
        ({"VRM": [None]}, "VRM[0]"),
        ({"original_response": ["x"]}, "original_response"),
    ],
)
def test_wrong_type_names_field(tmp_path: Path, change: dict, field: str) -> None:
    good = _utterance(["s"], "w")
    bad = _utterance(["s", "w", "s2"], "w2")
    bad.update(change)
    path = _write(tmp_path, [{"utterances": [_utterance(["a"], "b")]}, {"utterances": [good, bad]}])
    with pytest.raises(DataError) as info:
        list(faithdial.parse(path, split="train"))
    assert info.value.path == str(path)
    assert info.value.record == "dialogue 1, utterance 1"
    assert info.value.field == field


@pytest.mark.parametrize("field", ["history", "speaker", "knowledge", "response"])
def test_missing_required_field(tmp_path: Path, field: str) -> None:
    record = _utterance(["s"], "w")
    del record[field]
    path = _write(tmp_path, [{"utterances": [record]}])
    with pytest.raises(DataError) as info:
        list(faithdial.parse(path, split="train"))
    assert (info.value.record, info.value.field) == ("dialogue 0, utterance 0", field)


def test_dialogue_without_utterances_and_non_object(tmp_path: Path) -> None:
    with pytest.raises(DataError) as info:
        list(faithdial.parse(_write(tmp_path, [{"turns": []}]), split="train"))
    assert (info.value.record, info.value.field) == ("dialogue 0", "utterances")
    with pytest.raises(DataError) as info:
        list(faithdial.parse(_write(tmp_path, [{"utterances": ["text"]}]), split="train"))
    assert info.value.record == "dialogue 0, utterance 0"
    with pytest.raises(DataError):
        list(faithdial.parse(_write(tmp_path, {"utterances": []}), split="train"))


def test_invalid_utf8(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    good = json.dumps([{"utterances": [_utterance(["s"], "w")]}]).encode()
    path.write_bytes(good.replace(b'"w"', b'"w\xff\xfe"'))
    with pytest.raises(DataError) as info:
        list(faithdial.parse(path, split="train"))
    assert info.value.path == str(path)
    assert "UTF-8" in str(info.value)


@pytest.mark.parametrize("split", SPLITS)
def test_demo_splits_load(split: str) -> None:
    loaded = utils.load("faithdial", split)
    assert loaded.provenance.is_demo
    assert len(loaded) >= 1
    for dialogue in loaded:
        wizard = [t for t in dialogue.turns if t.role == WIZARD and not t.raw.get("from_history")]
        assert len(wizard) == dialogue.meta["utterances"]
        for turn in wizard:
            assert len(turn.selected_evidence) == 1


def test_demo_covers_the_edge_cases() -> None:
    turns = [t for d in utils.load("faithdial", "train") for t in d.turns if "BEGIN" in t.labels]
    turns += [t for d in utils.load("faithdial", "valid") for t in d.turns if "BEGIN" in t.labels]
    turns += [t for d in utils.load("faithdial", "test") for t in d.turns if "BEGIN" in t.labels]
    classes = {faithdial.begin_class(t.labels["BEGIN"]) for t in turns}
    assert classes == {"Hallucination", "Partial Hallucination", "Entailment", "Generic", "Uncooperative"}
    # the files write Partial Hallucination as a list, and so does the demo sample
    assert {label for t in turns for label in t.labels["BEGIN"]} == {
        "Hallucination",
        "Entailment",
        "Generic",
        "Uncooperative",
    }
    assert any(t.raw["original_response"] == "" for t in turns)
    assert any(len(t.labels["BEGIN"]) > 1 for t in turns)
    assert any(len(t.labels["VRM"]) > 1 for t in turns)


def test_valid_is_seen_plus_unseen() -> None:
    def ids(split: str) -> list[list[str]]:
        return [[t.text for t in d.turns] for d in utils.load("faithdial", split)]

    assert ids("valid") == ids("valid_seen") + ids("valid_unseen")
    assert ids("test") == ids("test_seen") + ids("test_unseen")
