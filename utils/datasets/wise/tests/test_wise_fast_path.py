"""WISE's fast path: the loader's columnar build gives the parser's dialogues, or steps aside.

The loader builds a WISE cache with :func:`utils.datasets.wise.parser.parse_columns` (passages stored once,
candidates as columns); anything unusual makes it decline and :func:`~utils.datasets.wise.parser.parse`
builds the cache instead. Either way a loaded split must equal what ``parse`` gives, and a file
``parse`` refuses must be refused with ``parse``'s own error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

import utils
from conftest import loaded_and_parsed, record_parse_calls
from utils import _cache
from utils.datasets.wise import parser as wise
from utils.errors import DataError
from utils.sources import get_source

SYSTEM = {
    "msg_id": 2,
    "turn_id": 1,
    "role": "system",
    "state": ["爵士舞"],
    "query_candidate": ["爵士舞"],
    "action": ["Answer", "open-text"],
    "selected_query": ["爵士舞"],
    "response": "爵士舞起源于美国。",
    "document_candidate": [3251, "3252"],
    "selected_document": [3251],
    "passage_candidate": ["3251-1", "3251-2", "3252-1", "3251-1", "9999-4"],
    "selected_passage": ["3251-2", "3253-7", "-3"],
}
USER = {"msg_id": 1, "turn_id": 1, "role": "user", "intent": ["Reveal"], "response": "我想了解爵士舞"}


def _document(doc_id: int, title: str, passages: dict[int, list[str]]) -> dict:
    return {
        "id": doc_id,
        "origin_link": f"http://example.cn/{doc_id}",
        "title": title,
        "abstract": "摘要",
        "final_link": f"http://example.cn/{doc_id}.html",
        "passages": [
            {"id": pid, "sentences": [{"id": k + 1, "text": text} for k, text in enumerate(texts)]}
            for pid, texts in passages.items()
        ],
    }


DOCUMENTS = [
    _document(3251, "爵士舞", {1: ["第一句。", "第二句。"], 2: ["爵士舞起源于美国。"], 3: []}),
    _document(3252, "现代舞", {1: ["现代舞。"]}),
    _document(3253, "芭蕾", {7: ["芭蕾舞。"]}),
]


def _write(path: Path, records: list) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def _conversation(*turns: dict, cid: int = 7) -> dict:
    return {"conversation_id": cid, "conversations": list(turns), "intent": "intent:了解舞蹈 description:先查。"}


@pytest.fixture
def parse_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The splits the loader had to build with the record-by-record parser (the fast path declined)."""
    return record_parse_calls(monkeypatch, "wise")




def _wise_dir(data_dir: Path, conversations: list, documents: list | None = DOCUMENTS) -> Path:
    (data_dir / "wise").mkdir(exist_ok=True)
    _write(data_dir / "wise/conversation_train_line.json", conversations)
    if documents is not None:
        _write(data_dir / "wise" / wise.DOCUMENTS_FILENAME, documents)
    return data_dir


def test_the_loader_takes_the_fast_path_and_gets_the_parsers_dialogues(data_dir: Path, parse_calls: list) -> None:
    # Repeated candidates, a candidate the collection lacks, a selection outside the candidates, one
    # without a document part, an empty passage: the cases _passages handles one by one.
    _wise_dir(data_dir, [_conversation(USER, SYSTEM), _conversation(USER, SYSTEM, USER, cid=8)])
    loaded, parsed = loaded_and_parsed("wise", data_dir)
    assert parse_calls == ["train"]  # only the reference call below the load, none inside it
    assert loaded == parsed
    evidence = loaded[0].turns[1].evidence
    assert [e.id for e in evidence] == ["3251-1", "3251-2", "3252-1", "9999-4", "3253-7"]
    assert [e.text for e in evidence] == ["第一句。第二句。", "爵士舞起源于美国。", "现代舞。", "", "芭蕾舞。"]
    assert evidence[3].meta == {"document": 9999, "passage": 4, "text_found": False}
    assert evidence[4].meta == {"document": 3253, "passage": 7, "text_found": True, "in_candidates": False}
    assert [e.selected for e in evidence] == [False, True, False, False, True]


def test_passages_are_stored_once(data_dir: Path) -> None:
    _wise_dir(data_dir, [_conversation(USER, SYSTEM, SYSTEM, SYSTEM)])
    split = utils.load("wise", "train", data_dir=data_dir)
    evidence, passages = split.arrow("evidence"), split.arrow("passages")
    assert evidence.num_rows == 15 and "text" not in evidence.column_names
    # the collection's five passages, then one row for the passage it lacks and one for the selection
    # outside the candidates (its metadata differs), each once however often it is shown
    assert passages.num_rows == 7
    assert passages.column("text").to_pylist().count("芭蕾舞。") == 2
    frame = split.evidence()
    columns = ["dialogue_index", "dialogue_id", "turn_index", "id", "text", "title", "origin", "selected"]
    assert list(frame.columns) == columns
    assert frame["text"].tolist()[:5] == ["第一句。第二句。", "爵士舞起源于美国。", "现代舞。", "", "芭蕾舞。"]
    assert split.evidence_texts()[5:10] == frame["text"].tolist()[5:10]


def _documents_with(change: Callable[[list], None]) -> list:
    documents = json.loads(json.dumps(DOCUMENTS))
    change(documents)
    return documents


DECLINED = {
    "an unknown document field": _documents_with(lambda d: d[0].update(extra={"a": 1})),
    "a document without a link": _documents_with(lambda d: d[1].pop("final_link")),
    "a null title": _documents_with(lambda d: d[1].update(title=None)),
    "a sentence id as text": _documents_with(lambda d: d[0]["passages"][0]["sentences"][0].update(id="1")),
    "a repeated passage id": _documents_with(lambda d: d.append(_document(3252, "又一个", {1: ["重复。"]}))),
    "a document id beyond 64 bits": _documents_with(lambda d: d[2].update(id=2**70)),
}


@pytest.mark.parametrize("case", list(DECLINED))
def test_documents_the_fast_path_leaves_to_the_parser(data_dir: Path, parse_calls: list, case: str) -> None:
    _wise_dir(data_dir, [_conversation(USER, SYSTEM)], DECLINED[case])
    loaded, parsed = loaded_and_parsed("wise", data_dir)
    assert parse_calls == ["train", "train"]  # the loader fell back to parse
    assert loaded == parsed  # the same dialogues, or the same error (a null title is one)
    assert isinstance(loaded, list) == (case != "a null title")


@pytest.mark.parametrize(
    "layout",
    [b"null\n", b"\n", b"[]\n", b'{"id": 1}{"id": 2}\n', b" "],
    ids=["a null first line (pyarrow 26 crashes on it)", "a blank line", "a list", "two objects on a line", "a space"],
)
def test_document_lines_that_are_not_one_object_each_are_left_to_the_parser(
    data_dir: Path, parse_calls: list, layout: bytes
) -> None:
    _wise_dir(data_dir, [_conversation(USER, SYSTEM)])
    documents = data_dir / "wise" / wise.DOCUMENTS_FILENAME
    documents.write_bytes(layout + documents.read_bytes())
    loaded, parsed = loaded_and_parsed("wise", data_dir)
    assert parse_calls == ["train", "train"] and loaded == parsed


def _turn(**changes: object) -> dict:
    return {**SYSTEM, **changes}


REFUSED = {
    "a malformed candidate": _turn(passage_candidate=["3251-1", "3251-x"]),
    "a candidate with full-width digits": _turn(passage_candidate=["３２５１-1"]),
    "a number as candidate": _turn(passage_candidate=["3251-1", 3252]),
    "candidates not a list": _turn(passage_candidate="3251-1"),
    "a list as candidate": _turn(passage_candidate=[["3251-1"]]),
    "a malformed selection": _turn(selected_passage=["3251_2"]),
    "no action": {key: value for key, value in SYSTEM.items() if key != "action"},
    "a boolean document": _turn(document_candidate=[True]),
    "a number as state": _turn(state=[1]),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_files_the_parser_refuses_are_refused_with_its_error(data_dir: Path, case: str) -> None:
    # The bad turn comes after a good conversation, so the fast path has started its columns.
    _wise_dir(data_dir, [_conversation(USER, SYSTEM), _conversation(USER, REFUSED[case], cid=8)])
    path = data_dir / "wise/conversation_train_line.json"
    with pytest.raises(DataError) as expected:
        list(wise.parse(path, split="train"))
    with pytest.raises(DataError) as caught:
        utils.load("wise", "train", data_dir=data_dir)
    assert str(caught.value) == str(expected.value)


def test_big_numbers_in_candidates_are_left_to_the_parser(data_dir: Path, parse_calls: list) -> None:
    _wise_dir(data_dir, [_conversation(USER, _turn(passage_candidate=["3251-1", "99999999999999999999-1"]))])
    loaded, parsed = loaded_and_parsed("wise", data_dir)
    assert parse_calls == ["train", "train"] and loaded == parsed
    assert loaded[0].turns[1].evidence[1].meta["document"] == 99999999999999999999


def test_without_the_document_file_every_candidate_has_no_text(data_dir: Path, parse_calls: list) -> None:
    _wise_dir(data_dir, [_conversation(USER, SYSTEM)], documents=None)
    loaded, parsed = loaded_and_parsed("wise", data_dir)
    assert parse_calls == ["train"] and loaded == parsed
    assert {e.text for e in loaded[0].turns[1].evidence} == {""}
    assert loaded[0].meta["documents_resolved"] is False


def test_the_demo_splits_take_the_fast_path(parse_calls: list) -> None:
    for split in ("train", "valid", "test", "test_seen", "test_unseen"):
        loaded, parsed = loaded_and_parsed("wise", get_source("wise").demo_dir, split)
        assert loaded == parsed, split
    assert parse_calls == ["train", "valid", "test", "test_seen", "test_unseen"]  # the reference calls only


def test_the_fast_path_builds_the_tables_of_the_record_path(demo_dir: Path) -> None:
    path = demo_dir / "wise/conversation_train_line.json"
    fast = _cache.build_in_memory(wise.parse_columns(path, split="train"))
    slow = _cache.build_in_memory(wise.parse(path, split="train"))
    assert _cache.rebuild_dialogues(fast, 0, 3) == _cache.rebuild_dialogues(slow, 0, 3)
    for name in ("dialogues", "turns"):
        assert getattr(fast, name).equals(getattr(slow, name)), name
    for table in (fast, slow):
        assert table.evidence.num_rows == 49
    # the fast path stores every passage of the collection once; the record path each passage it shows, once
    assert fast.passages.num_rows == 29
    assert slow.passages.num_rows == len(set(slow.evidence.column("passage").to_pylist())) < 49
