"""WISE: the conversation and document line files, passage ids, errors on bad input."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import utils
from conftest import require_real_file
from utils.datasets.wise.documents import load_documents
from utils.datasets.wise.parser import (
    DOCUMENTS_FILENAME,
    iter_documents,
    parse_passage_id,
    published_label,
    split_search_intent,
    stored_form,
)
from utils.errors import DataError
from utils.loading import DemoDataWarning, parse_file
from utils.records import SEEKER, WIZARD

SYSTEM = {
    "msg_id": 2,
    "turn_id": 1,
    "role": "system",
    "state": ["爵士舞"],
    "query_candidate": ["爵士舞", "爵士舞的起源"],
    "action": ["Answer", "open-text"],
    "selected_query": ["爵士舞的起源"],
    "response": "爵士舞起源于美国。",
    "document_candidate": [1000003251, 1000003252],
    "selected_document": [1000003251],
    "passage_candidate": ["1000003251-1", "1000003251-2", "1000003252-1"],
    "selected_passage": ["1000003251-2", "1000003252-1"],
}
USER = {"msg_id": 1, "turn_id": 1, "role": "user", "intent": ["Reveal"], "response": "我想了解爵士舞"}
DOCUMENTS = [
    {
        "id": 1000003251,
        "origin_link": "http://example.cn/a",
        "title": "爵士舞",
        "abstract": "摘要",
        "final_link": "http://example.cn/b",
        "passages": [
            {"id": 1, "sentences": [{"id": 1, "text": "第一句。"}, {"id": 2, "text": "第二句。"}]},
            {"id": 2, "sentences": [{"id": 1, "text": "爵士舞起源于美国。"}]},
        ],
    },
    {"id": 1000003252, "title": "现代舞", "passages": [{"id": 1, "sentences": [{"id": 1, "text": "现代舞。"}]}]},
]


def _conversation(*turns: dict, cid: int = 7) -> dict:
    return {"conversation_id": cid, "conversations": list(turns), "intent": "intent:了解舞蹈 description:先查爵士舞。"}


def _write_lines(path: Path, records: list) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture
def wise_dir(tmp_path: Path) -> Path:
    _write_lines(tmp_path / DOCUMENTS_FILENAME, DOCUMENTS)
    _write_lines(tmp_path / "conversation_train_line.json", [_conversation(USER, SYSTEM)])
    return tmp_path


def _parse(path: Path) -> list:
    return list(parse_file("wise", path, "train"))


# -- passage ids ----------------------------------------------------------------------------------


def test_passage_id_parses_document_and_passage() -> None:
    assert parse_passage_id("1000003251-8") == (1000003251, 8)
    assert parse_passage_id("0-1") == (0, 1)


@pytest.mark.parametrize(
    "bad", ["3251_8", "3251-", "abc-8", "3251-8-2", "3251", " 3251-8", "３２５１-8", "3251-8\n", ""]
)
def test_malformed_passage_id_is_a_data_error(bad: str) -> None:
    with pytest.raises(DataError, match="malformed passage id") as info:
        parse_passage_id(bad, path="f.json", record="line 3", field="passage_candidate[0]")
    assert info.value.path == "f.json" and info.value.record == "line 3"
    assert info.value.field == "passage_candidate[0]"


def test_non_string_passage_id_is_a_data_error() -> None:
    with pytest.raises(DataError, match="must be a string"):
        parse_passage_id(1000003251)


# -- conversations ---------------------------------------------------------------------------------


def test_turns_roles_labels_and_evidence(wise_dir: Path) -> None:
    [dialogue] = _parse(wise_dir / "conversation_train_line.json")
    assert dialogue.id == "7" and dialogue.dataset == "wise" and dialogue.split == "train"
    assert dialogue.topic == "了解舞蹈"
    assert dialogue.meta["search_intent_description"] == "先查爵士舞。"
    user, system = dialogue.turns
    assert (user.role, user.speaker, user.labels) == (SEEKER, "user", {"intent": ["Reveal"]})
    assert user.raw == {"msg_id": 1, "turn_id": 1}
    assert (system.role, system.speaker) == (WIZARD, "system")
    assert system.labels["action"] == ["Answer", "open-text"]
    assert system.labels["selected_query"] == ["爵士舞的起源"]
    assert system.labels["document_candidate"] == ["1000003251", "1000003252"]
    assert system.labels["selected_passage"] == ["1000003251-2", "1000003252-1"]
    assert [e.id for e in system.evidence] == ["1000003251-1", "1000003251-2", "1000003252-1"]
    assert [e.selected for e in system.evidence] == [False, True, True]
    assert system.evidence[0].text == "第一句。第二句。"
    assert system.evidence[0].title == "爵士舞"
    assert system.evidence[1].meta == {"document": 1000003251, "passage": 2, "text_found": True}
    assert all(e.origin == "passage" for e in system.evidence)


def test_without_document_file_passages_have_no_text(tmp_path: Path) -> None:
    path = _write_lines(tmp_path / "conversation_train_line.json", [_conversation(USER, SYSTEM)])
    [dialogue] = _parse(path)
    evidence = dialogue.turns[1].evidence
    assert [e.text for e in evidence] == ["", "", ""]
    assert not any(e.meta["text_found"] for e in evidence)
    assert dialogue.meta["documents_resolved"] is False


def test_selected_passage_outside_candidates_is_kept(wise_dir: Path) -> None:
    system = {**SYSTEM, "passage_candidate": ["1000003251-1"], "selected_passage": ["1000003251-2"]}
    path = _write_lines(wise_dir / "conversation_valid_line.json", [_conversation(USER, system)])
    evidence = _parse(path)[0].turns[1].evidence
    assert [(e.id, e.selected) for e in evidence] == [("1000003251-1", False), ("1000003251-2", True)]
    assert evidence[1].meta["in_candidates"] is False


def test_selection_without_document_part_is_set_aside(wise_dir: Path) -> None:
    # The authors' loader skips such selections, so they are recorded, not fatal.
    system = {**SYSTEM, "selected_passage": ["", "-3"]}
    path = _write_lines(wise_dir / "conversation_valid_line.json", [_conversation(USER, system)])
    turn = _parse(path)[0].turns[1]
    assert turn.labels["selected_passage"] == []
    assert turn.raw["unresolved_selected_passage"] == ["", "-3"]


def test_unknown_fields_stay_reachable(wise_dir: Path) -> None:
    record = {**_conversation({**USER, "extra": {"a": 1}}, SYSTEM), "source": "demo"}
    path = _write_lines(wise_dir / "conversation_valid_line.json", [record])
    [dialogue] = _parse(path)
    assert dialogue.meta["source"] == "demo"
    assert dialogue.turns[0].raw["extra"] == {"a": 1}


def test_search_intent_split() -> None:
    assert split_search_intent("intent:你想了解舞蹈 description:先查找。") == ("你想了解舞蹈", "先查找。")
    assert split_search_intent("intent：只有意图") == ("只有意图", "")
    assert split_search_intent("no prefix") == ("no prefix", "")


def test_published_label() -> None:
    assert published_label(["Answer", "open-text"]) == "Answer-open-text"
    assert published_label(["Feedback", "Good"]) == "Feedback-Good"
    assert published_label(["Recommend"]) == "Recommend"
    assert published_label([]) == ""
    # the stored form is the published name split at its first hyphen, and back
    assert stored_form("Clarify-Yes_no") == ["Clarify", "Yes_no"]
    assert published_label(stored_form("Answer-open-text")) == "Answer-open-text"


# -- bad input ------------------------------------------------------------------------------------


def _error(path: Path) -> DataError:
    with pytest.raises(DataError) as info:
        _parse(path)
    assert info.value.path == str(path)
    return info.value


def test_truncated_line_names_file_and_line(tmp_path: Path) -> None:
    good = json.dumps(_conversation(USER, SYSTEM), ensure_ascii=False)
    path = tmp_path / "conversation_train_line.json"
    path.write_text(good + "\n" + good[: len(good) // 2] + "\n", encoding="utf-8")
    error = _error(path)
    assert error.record == "line 2" and "truncated" in str(error)


def test_invalid_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "conversation_train_line.json"
    good = json.dumps(_conversation(USER, SYSTEM), ensure_ascii=False).encode()
    path.write_bytes(good + b"\n" + good.replace("爵".encode(), b"\xe7\x88", 1) + b"\n")
    error = _error(path)
    assert error.record == "line 2" and "UTF-8" in str(error)


@pytest.mark.parametrize(
    ("turn", "field"),
    [
        ({**SYSTEM, "action": "Answer"}, "action"),
        ({**SYSTEM, "selected_query": [1]}, "selected_query[0]"),
        ({**USER, "response": None}, "response"),
        ({**SYSTEM, "document_candidate": [None]}, "document_candidate[0]"),
        ({**SYSTEM, "passage_candidate": "1000003251-1"}, "passage_candidate"),
    ],
)
def test_wrong_type_names_record_and_field(tmp_path: Path, turn: dict, field: str) -> None:
    path = _write_lines(tmp_path / "conversation_train_line.json", [_conversation(USER, turn, cid=99)])
    error = _error(path)
    assert error.field == field
    assert "line 1" in str(error.record) and "conversation 99" in str(error.record)


@pytest.mark.parametrize(
    ("record", "field"),
    [
        ({"conversations": []}, "conversation_id"),
        ({"conversation_id": 1}, "conversations"),
        (_conversation({k: v for k, v in USER.items() if k != "role"}), "role"),
        (_conversation({k: v for k, v in USER.items() if k != "response"}), "response"),
        (_conversation({k: v for k, v in SYSTEM.items() if k != "action"}), "action"),
    ],
)
def test_missing_required_field(tmp_path: Path, record: dict, field: str) -> None:
    path = _write_lines(tmp_path / "conversation_train_line.json", [record])
    assert _error(path).field == field


def test_unknown_role_and_non_object(tmp_path: Path) -> None:
    path = _write_lines(tmp_path / "conversation_train_line.json", [_conversation({**USER, "role": "bot"})])
    assert _error(path).field == "role"
    path = _write_lines(tmp_path / "conversation_train_line.json", [[1, 2]])
    assert "expected an object" in str(_error(path))


def test_malformed_passage_id_in_file(tmp_path: Path) -> None:
    turn = {**SYSTEM, "selected_passage": ["3251_2"]}
    path = _write_lines(tmp_path / "conversation_train_line.json", [_conversation(USER, turn)])
    error = _error(path)
    assert error.field == "selected_passage[0]" and "3251_2" in str(error)


# -- documents ------------------------------------------------------------------------------------


def test_documents_stream_and_validate(tmp_path: Path) -> None:
    path = _write_lines(tmp_path / DOCUMENTS_FILENAME, DOCUMENTS)
    first, second = iter_documents(path)
    assert first.passage_ids() == ["1000003251-1", "1000003251-2"]
    assert first.passages[0].text == "第一句。第二句。"
    assert (second.abstract, second.final_link) == ("", "")
    broken = [{**DOCUMENTS[0], "passages": [{"id": 1, "sentences": [{"id": 1}]}]}]
    with pytest.raises(DataError) as info:
        list(iter_documents(_write_lines(tmp_path / "broken.json", broken)))
    assert info.value.field == "text" and "passages[0], sentences[0]" in str(info.value.record)


def test_document_error_in_conversation_parse_names_document_file(wise_dir: Path) -> None:
    (wise_dir / DOCUMENTS_FILENAME).write_text('{"id": "x", "passages": []}\n', encoding="utf-8")
    with pytest.raises(DataError) as info:
        _parse(wise_dir / "conversation_train_line.json")
    assert info.value.path.endswith(DOCUMENTS_FILENAME) and info.value.field == "id"


def test_load_documents_falls_back_to_demo() -> None:
    with pytest.warns(DemoDataWarning):
        documents = load_documents()
    assert documents.provenance.is_demo
    assert documents.passage_text("1000003251-2").startswith("爵士舞是一种")
    assert documents.passage("1000003299-1") is None  # a candidate the demo collection lacks on purpose
    assert documents.passage("1000003251-99") is None
    with pytest.raises(DataError):
        documents.passage("1000003251:2")
    frame = documents.passages_frame()
    assert set(frame["id"]) >= {"1000003251-1", "1000008502-1"}


def test_load_documents_prefers_the_data_directory(tmp_path: Path) -> None:
    _write_lines((tmp_path / "wise").mkdir() or tmp_path / "wise" / DOCUMENTS_FILENAME, DOCUMENTS)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DemoDataWarning)
        documents = load_documents(data_dir=tmp_path)
    assert documents.provenance.kind == "user copy" and sorted(documents) == [1000003251, 1000003252]


def test_load_documents_rejects_duplicate_ids(tmp_path: Path) -> None:
    _write_lines((tmp_path / "wise").mkdir() or tmp_path / "wise" / DOCUMENTS_FILENAME, DOCUMENTS + DOCUMENTS[:1])
    with pytest.raises(DataError, match="duplicate"):
        load_documents(data_dir=tmp_path)


def test_changed_document_file_rebuilds_the_cached_split(data_dir: Path) -> None:
    """Passage text comes from the document file, so editing it alone must invalidate the cache."""
    wise = data_dir / "wise"
    wise.mkdir()
    _write_lines(wise / "conversation_train_line.json", [_conversation(USER, SYSTEM)])
    _write_lines(wise / DOCUMENTS_FILENAME, DOCUMENTS)

    def selected_texts() -> list[str]:
        turn = utils.load("wise", "train")[0].turns[1]
        return [item.text for item in turn.selected_evidence]

    assert selected_texts() == ["爵士舞起源于美国。", "现代舞。"]
    edited = json.loads(json.dumps(DOCUMENTS))
    edited[1]["passages"][0]["sentences"][0]["text"] = "当代舞。"
    _write_lines(wise / DOCUMENTS_FILENAME, edited)
    assert selected_texts() == ["爵士舞起源于美国。", "当代舞。"]


# -- the demo sample through the loader --------------------------------------------------------------


def test_demo_splits_load_with_a_warning() -> None:
    for split in utils.split_names("wise"):
        with pytest.warns(DemoDataWarning):
            loaded = utils.load("wise", split)
        assert loaded.provenance.is_demo and len(loaded) > 0
    test = utils.load("wise", "test")
    seen, unseen = utils.load("wise", "test_seen"), utils.load("wise", "test_unseen")
    assert sorted(d.id for d in test) == sorted([*(d.id for d in seen), *(d.id for d in unseen)])


def test_demo_sample_exercises_its_edge_cases() -> None:
    train = utils.load("wise", "train")
    turns = train.turns()
    actions = {published_label(labels.get("action", [])) for labels in turns["labels"]}
    assert {"Clarify-Choice", "Answer-open-text", "Chitchat", "Recommend"} <= actions
    intents = [labels["intent"] for labels in turns["labels"] if "intent" in labels]
    assert any(len(intent) == 2 for intent in intents)
    evidence = train.evidence()
    selected = evidence[evidence["selected"]]
    assert (selected.groupby(["dialogue_index", "turn_index"])["id"].apply(
        lambda ids: len({i.split("-")[0] for i in ids})) > 1).any()
    assert (evidence["text"] == "").any() and (evidence["text"] != "").any()
    assert ((turns["role"] == WIZARD) & (turns["evidence_count"] == 0)).any()


def test_demo_files_are_small_and_labelled(demo_dir: Path) -> None:
    folder = demo_dir / "wise"
    assert "DEMO SAMPLE" in (folder / "README.md").read_text(encoding="utf-8")
    for path in folder.glob("*.json"):
        assert path.stat().st_size < 60_000


@pytest.mark.realdata
def test_real_files_parse_when_present(real_data_dir: Path) -> None:
    path = require_real_file(real_data_dir, "wise/conversation_valid_line.json")
    dialogues = _parse(path)
    assert dialogues and all(d.turns for d in dialogues)
