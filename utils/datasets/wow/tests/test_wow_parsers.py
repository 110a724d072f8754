"""Parsers of Wizard of Wikipedia: raw ParlAI JSON and KILT JSON Lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import utils
from conftest import require_real_file
from utils.datasets.wow.parser import (
    decode_checked_passage_key,
    decode_checked_sentence_key,
    evidence_source,
    role_of,
)
from utils.errors import DataError
from utils.loading import parse_file
from utils.records import SEEKER, WIZARD


def _turn(speaker: str, text: str, **extra: object) -> dict:
    return {"speaker": speaker, "text": text, "retrieved_topics": [], "retrieved_passages": [], **extra}


def _dialogue(**overrides: object) -> dict:
    record = {
        "chosen_topic": "Tea",
        "persona": "i drink tea.",
        "wizard_eval": 4,
        "chosen_topic_passage": ["Tea is a drink.", "It comes from Asia."],
        "dialog": [
            _turn("0_Apprentice", "I like tea.", retrieved_passages=[{"Green tea": ["Green tea is not oxidised."]}]),
            _turn(
                "1_Wizard",
                "Green tea is my favourite.",
                checked_sentence={"partner_Green_tea_0": "Green tea is not oxidised."},
                checked_passage={"partner_0_Green_tea": "Green tea"},
                retrieved_passages=[{"Tea": ["Tea is a drink."]}, {"Oolong": ["Oolong is half oxidised."]}],
            ),
            _turn("0_Apprentice", "Tell me more.", retrieved_passages=[{"Black tea": ["Black tea is strong."]}]),
            _turn(
                "1_Wizard",
                "Oolong sits between green and black.",
                checked_sentence={"self_Oolong_0": "Oolong is half oxidised."},
                checked_passage={"self_1_Oolong": "Oolong"},
            ),
            _turn(
                "0_Apprentice",
                "Nice.",
            ),
            _turn(
                "1_Wizard",
                "I just like it.",
                checked_sentence={"no_passages_used": "no_passages_used"},
                checked_passage={"no_passages_used": "no_passages_used"},
            ),
        ],
    }
    record.update(overrides)
    return record


def _write(tmp_path: Path, data: object, name: str = "train.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# -- key decoding ---------------------------------------------------------------------------------


def test_decode_sentence_keys() -> None:
    assert decode_checked_sentence_key("chosen_Science_fiction_0") == {
        "source": "chosen",
        "title": "Science fiction",
        "index": "0",
    }
    assert decode_checked_sentence_key("self_Science_fiction_film_12")["title"] == "Science fiction film"
    assert decode_checked_sentence_key("partner_Harry_Potter_(film_series)_3")["title"] == "Harry Potter (film series)"
    assert decode_checked_sentence_key("no_passages_used") == {"source": "no_passages_used"}
    assert decode_checked_sentence_key("weird")["source"] == "unknown"


def test_decode_passage_keys() -> None:
    assert decode_checked_passage_key("chosen_topic_0_Science_fiction") == {
        "source": "chosen",
        "index": "0",
        "title": "Science fiction",
    }
    assert decode_checked_passage_key("self_3_Science_fiction_film") == {
        "source": "self",
        "index": "3",
        "title": "Science fiction film",
    }
    assert decode_checked_passage_key("partner_2_Time_travel")["source"] == "partner"
    assert decode_checked_passage_key("none") == {"source": "none"}
    assert decode_checked_passage_key("no_passages_used") == {"source": "no_passages_used"}


def test_roles() -> None:
    assert role_of("0_Wizard") == role_of("1_Wizard") == role_of("wizard") == WIZARD
    assert role_of("0_Apprentice") == role_of("apprentice") == SEEKER
    assert role_of("moderator") is None


# -- raw parser -----------------------------------------------------------------------------------


def test_raw_knowledge_as_parlai_builds_it(tmp_path: Path) -> None:
    (dialogue,) = parse_file("wow", _write(tmp_path, [_dialogue()]), "train")
    assert dialogue.id == "train/0" and dialogue.topic == "Tea" and dialogue.dataset == "wow"
    assert [t.role for t in dialogue.turns] == [SEEKER, WIZARD] * 3
    assert dialogue.meta["persona"] == "i drink tea." and dialogue.meta["wizard_eval"] == 4
    first = dialogue.turns[1]
    assert [(e.origin, e.title, e.text) for e in first.evidence] == [
        ("topic", "Tea", "Tea is a drink."),
        ("topic", "Tea", "It comes from Asia."),
        ("retrieved:seeker", "Green tea", "Green tea is not oxidised."),
    ]
    assert [e.id for e in first.selected_evidence] == ["0:0:Green tea#0"]
    assert evidence_source(first.evidence[2]) == {"from_turn": 0, "passage": 0, "title": "Green tea", "sentence": 0}
    assert evidence_source(first.evidence[1]) == {"from_turn": None, "passage": None, "title": "Tea", "sentence": 1}
    assert first.labels["checked_source"] == ["partner"]
    assert first.labels["checked_title"] == ["Green tea"]
    assert first.labels["checked_passage_index"] == ["0"]
    assert first.labels["knowledge"] == ["found"]
    # Second wizard turn: topic, apprentice's "Black tea", then its own earlier passages minus "Tea".
    second = dialogue.turns[3]
    assert [(e.origin, e.title) for e in second.evidence] == [
        ("topic", "Tea"),
        ("topic", "Tea"),
        ("retrieved:seeker", "Black tea"),
        ("retrieved:wizard", "Oolong"),
    ]
    assert [e.id for e in second.selected_evidence] == ["1:1:Oolong#0"]
    assert second.labels["checked_source"] == ["self"]
    # The passage titled "Tea" that turn 1 retrieved was never shown: it stays in raw.
    assert dialogue.turns[1].raw["retrieved_passages_not_shown"] == [{"Tea": ["Tea is a drink."]}]
    assert dialogue.turns[1].raw["checked_sentence"] == {"partner_Green_tea_0": "Green tea is not oxidised."}
    third = dialogue.turns[5]
    assert third.labels["checked_source"] == ["no_passages_used"]
    assert third.labels["knowledge"] == ["no_passages_used"]
    assert third.selected_evidence == []
    assert all(not t.evidence for t in dialogue.turns_by(SEEKER))


def test_the_columnar_path_stores_each_passage_once_and_gives_the_same_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from utils import _cache
    from utils.datasets.wow import parser

    # Two dialogues on the same topic: its passage is shown at every wizard turn of both.
    path = _write(tmp_path, [_dialogue(), _dialogue()])
    expected = list(parser.parse(path, split="train"))
    shown = sum(len(turn.evidence) for dialogue in expected for turn in dialogue.turns)
    tables = _cache.build_in_memory(parser.parse_columns(path, split="train"))
    assert _cache.rebuild_dialogues(tables, 0, 2) == expected
    assert tables.evidence.num_rows == shown
    # the topic's two sentences (shown at all six wizard turns) and three retrieved ones: five rows for 18
    distinct = {(item.title, item.text) for dialogue in expected for turn in dialogue.turns for item in turn.evidence}
    assert (tables.passages.num_rows, len(distinct), shown) == (5, 5, 18)
    # With room for only a few sentences the memory of passages starts afresh: some are stored again,
    # the records stay the same.
    monkeypatch.setattr(parser, "_REMEMBERED_SENTENCES", 2)
    tables = _cache.build_in_memory(parser.parse_columns(path, split="train"))
    assert _cache.rebuild_dialogues(tables, 0, 2) == expected
    assert len(distinct) < tables.passages.num_rows <= shown


def test_small_columnar_batches_are_written_as_batches_of_the_usual_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from utils import _cache
    from utils.datasets.wow import parser

    # The parser hands over one dialogue at a time; the cache writes record batches of three.
    monkeypatch.setattr(parser, "_COLUMN_BATCH", 1)
    monkeypatch.setattr(_cache.encoding, "_BATCH_DIALOGUES", 3)
    path = _write(tmp_path, [_dialogue() for _ in range(7)])
    expected = list(parser.parse(path, split="train"))
    tables = _cache.build_in_memory(parser.parse_columns(path, split="train"))
    batches = {name: getattr(tables, name).column(0).num_chunks for name in ("dialogues", "turns", "evidence")}
    assert batches == {"dialogues": 3, "turns": 3, "evidence": 3}
    assert tables.dialogues.column(0).chunk(0).to_pylist() == ["train/0", "train/1", "train/2"]
    assert tables.raw.num_rows == tables.turns.num_rows
    assert _cache.rebuild_dialogues(tables, 0, 7) == expected
    assert _cache.rebuild_dialogues(tables, 2, 5) == expected[2:5]


def test_raw_wizard_first_sees_only_the_topic(tmp_path: Path) -> None:
    record = _dialogue(
        dialog=[
            _turn(
                "0_Wizard",
                "Tea is a drink.",
                checked_sentence={"chosen_Tea_0": "Tea is a drink."},
                checked_passage={"chosen_topic_0_Tea": "Tea"},
            ),
            _turn("1_Apprentice", "Ok."),
        ]
    )
    (dialogue,) = parse_file("wow", _write(tmp_path, [record]), "train")
    wizard = dialogue.turns[0]
    assert wizard.speaker == "0_Wizard" and wizard.role == WIZARD
    assert {e.origin for e in wizard.evidence} == {"topic"}
    assert [e.id for e in wizard.selected_evidence] == ["Tea#0"]


def test_raw_keeps_unknown_fields(tmp_path: Path) -> None:
    record = _dialogue(extra_field={"a": 1})
    record["dialog"][0]["sentiment"] = "happy"
    (dialogue,) = parse_file("wow", _write(tmp_path, [record]), "train")
    assert dialogue.meta["extra_field"] == {"a": 1}
    assert dialogue.turns[0].raw["sentiment"] == "happy"


def test_raw_sentence_not_in_knowledge(tmp_path: Path) -> None:
    record = _dialogue()
    record["dialog"][1]["checked_sentence"] = {"partner_Green_tea_0": "A sentence nobody showed."}
    (dialogue,) = parse_file("wow", _write(tmp_path, [record]), "train")
    assert dialogue.turns[1].labels["knowledge"] == ["not_found"]
    assert dialogue.turns[1].selected_evidence == []


@pytest.mark.parametrize(
    ("mutate", "record", "field"),
    [
        (lambda r: r.pop("chosen_topic"), "dialogue 1", "chosen_topic"),
        (lambda r: r.update(dialog="oops"), "dialogue 1", "dialog"),
        (lambda r: r["dialog"][2].pop("text"), "dialogue 1", "dialog[2].text"),
        (lambda r: r["dialog"][2].update(text=5), "dialogue 1", "dialog[2].text"),
        (lambda r: r["dialog"][2].update(speaker="2_Judge"), "dialogue 1", "dialog[2].speaker"),
        (lambda r: r["dialog"][1].update(checked_sentence={"self_A_0": 3}), "dialogue 1", "dialog[1].checked_sentence"),
        (lambda r: r["dialog"][1].update(checked_passage=["x"]), "dialogue 1", "dialog[1].checked_passage"),
        (lambda r: r["dialog"][0].update(retrieved_passages=[["x"]]), "dialogue 1", "dialog[0].retrieved_passages[0]"),
        (
            lambda r: r["dialog"][0].update(retrieved_passages=[{"T": [1]}]),
            "dialogue 1",
            "dialog[0].retrieved_passages[0].T[0]",
        ),
        (
            lambda r: r["dialog"][1].update(candidate_responses=["a", None]),
            "dialogue 1",
            "dialog[1].candidate_responses[1]",
        ),
        (lambda r: r.update(chosen_topic_passage=[1]), "dialogue 1", "chosen_topic_passage[0]"),
        (lambda r: r["dialog"].append(7), "dialogue 1", "dialog[6]"),
    ],
)
def test_raw_bad_records_name_file_record_field(tmp_path: Path, mutate, record: str, field: str) -> None:
    bad = _dialogue()
    mutate(bad)
    path = _write(tmp_path, [_dialogue(), bad])
    with pytest.raises(DataError) as info:
        list(parse_file("wow", path, "train"))
    assert info.value.path == str(path)
    assert info.value.record == record
    assert info.value.field == field


def test_raw_not_an_object(tmp_path: Path) -> None:
    path = _write(tmp_path, [_dialogue(), "text"])
    with pytest.raises(DataError) as info:
        list(parse_file("wow", path, "train"))
    assert info.value.record == "dialogue 1"


def test_raw_truncated_json(tmp_path: Path) -> None:
    text = json.dumps([_dialogue(), _dialogue()])
    path = tmp_path / "train.json"
    path.write_text(text[: len(text) - 40], encoding="utf-8")
    with pytest.raises(DataError) as info:
        list(parse_file("wow", path, "train"))
    assert info.value.path == str(path)
    assert info.value.record == 1  # the second dialogue was being read


def test_raw_top_level_not_a_list(tmp_path: Path) -> None:
    path = _write(tmp_path, {"dialog": []})
    with pytest.raises(DataError, match="JSON list"):
        list(parse_file("wow", path, "train"))


def test_raw_invalid_utf8(tmp_path: Path) -> None:
    path = tmp_path / "train.json"
    path.write_bytes(json.dumps([_dialogue()]).encode("utf-8").replace(b"Green tea is my", b"Green \xff\xfe is my"))
    with pytest.raises(DataError, match="UTF-8") as info:
        list(parse_file("wow", path, "train"))
    assert info.value.path == str(path)


# -- KILT parser ----------------------------------------------------------------------------------

_KILT = {
    "id": "abc-123_2",
    "input": "I like tea.\nGreen tea is my favourite.\nTell me more.",
    "output": [
        {
            "answer": "Oolong sits between green and black.",
            "provenance": [
                {
                    "wikipedia_id": "42",
                    "title": "Oolong",
                    "section": "Section::::Abstract.",
                    "start_paragraph_id": 1,
                    "start_character": 0,
                    "end_paragraph_id": 1,
                    "end_character": 30,
                    "bleu_score": 0.9,
                }
            ],
        }
    ],
}


def _write_lines(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "wow-dev-kilt.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_kilt_example(tmp_path: Path) -> None:
    (dialogue,) = parse_file("wow_kilt", _write_lines(tmp_path, [json.dumps(_KILT)]), "dev")
    assert dialogue.id == "abc-123_2" and dialogue.dataset == "wow_kilt"
    assert [t.role for t in dialogue.turns] == [SEEKER, WIZARD, SEEKER, WIZARD]
    answer = dialogue.turns[-1]
    assert answer.text == "Oolong sits between green and black."
    (evidence,) = answer.selected_evidence
    assert evidence.title == "Oolong" and evidence.origin == "provenance"
    assert evidence.meta["wikipedia_id"] == "42" and evidence.meta["bleu_score"] == 0.9
    assert dialogue.meta["wow_dialogue_id"] == "abc-123" and dialogue.meta["wizard_example"] == 2
    assert dialogue.topic == "Oolong"


def test_kilt_without_answers(tmp_path: Path) -> None:
    (dialogue,) = parse_file("wow_kilt", _write_lines(tmp_path, [json.dumps({"id": "x_0", "input": "Hi."})]), "test")
    assert [t.role for t in dialogue.turns] == [SEEKER]
    assert dialogue.meta["has_answer"] is False


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ({"input": "hi"}, "id"),
        ({"id": "x", "input": 3}, "input"),
        ({"id": "x", "input": "a", "output": {}}, "output"),
        ({"id": "x", "input": "a", "output": [3]}, "output[0]"),
        ({"id": "x", "input": "a", "output": [{"answer": 1}]}, "output[0].answer"),
        (
            {"id": "x", "input": "a", "output": [{"answer": "b", "provenance": [{}]}]},
            "output[0].provenance[0].wikipedia_id",
        ),
        (
            {
                "id": "x",
                "input": "a",
                "output": [{"answer": "b", "provenance": [{"wikipedia_id": "1", "bleu_score": "hi"}]}],
            },
            "output[0].provenance[0].bleu_score",
        ),
    ],
)
def test_kilt_bad_lines(tmp_path: Path, line: dict, field: str) -> None:
    path = _write_lines(tmp_path, [json.dumps(_KILT), json.dumps(line)])
    with pytest.raises(DataError) as info:
        list(parse_file("wow_kilt", path, "dev"))
    assert (info.value.path, info.value.record, info.value.field) == (str(path), "line 2", field)


def test_kilt_truncated_and_bad_utf8(tmp_path: Path) -> None:
    path = _write_lines(tmp_path, [json.dumps(_KILT), json.dumps(_KILT)[:50]])
    with pytest.raises(DataError) as info:
        list(parse_file("wow_kilt", path, "dev"))
    assert info.value.record == "line 2"
    path.write_bytes(json.dumps(_KILT).encode() + b"\n" + b'{"id": "\xc3\x28", "input": "a"}\n')
    with pytest.raises(DataError, match="UTF-8") as info:
        list(parse_file("wow_kilt", path, "dev"))
    assert info.value.record == "line 2"


# -- demo samples through the loader --------------------------------------------------------------


@pytest.mark.parametrize("split", ["train", "valid_seen", "valid_unseen", "test_seen", "test_unseen"])
def test_demo_raw_splits_load(split: str) -> None:
    loaded = utils.load("wow", split)
    assert loaded.provenance.is_demo
    assert len(loaded) >= 1
    turns = loaded.turns()
    assert set(turns["role"]) == {SEEKER, WIZARD}
    first_speakers = {d.turns[0].speaker for d in loaded}
    assert first_speakers <= {"0_Wizard", "0_Apprentice"}
    if split != "train":
        for dialogue in loaded:
            for turn in dialogue.turns_by(WIZARD):
                candidates = turn.raw["candidate_responses"]
                assert len(candidates) == 100 and turn.text in candidates


def test_demo_train_exercises_every_key_kind() -> None:
    loaded = utils.load("wow", "train")
    sources = {t.labels["checked_source"][0] for d in loaded for t in d.turns_by(WIZARD)}
    assert sources == {"chosen", "self", "partner", "no_passages_used"}
    assert {d.turns[0].speaker for d in loaded} == {"0_Wizard", "0_Apprentice"}
    assert all("candidate_responses" not in t.raw for d in loaded for t in d.turns)


@pytest.mark.parametrize("split", ["train", "dev", "test"])
def test_demo_kilt_splits_load(split: str) -> None:
    loaded = utils.load("wow_kilt", split)
    assert loaded.provenance.is_demo and len(loaded) >= 2
    assert all(d.meta["has_answer"] == (split != "test") for d in loaded)


# -- real data (skipped where absent) -------------------------------------------------------------


@pytest.mark.realdata
def test_real_raw_sample(real_data_dir: Path) -> None:
    require_real_file(real_data_dir, "wow/raw/train_sample.json")
    loaded = utils.load("wow", "train")
    if loaded.provenance.is_full:
        pytest.skip("the full train.json is present; the sample checks do not apply")
    assert loaded.provenance.kind == "partial"
    assert len(loaded) == 5
    first = loaded[0]
    assert first.topic == "Science fiction" and len(first.turns) == 10
    assert loaded.provenance.turns == 48 == len(loaded.turns())
    assert first.turns[0].speaker == "0_Wizard"
    assert [e.id for e in first.turns[0].selected_evidence] == ["Science fiction#0"]
    assert {t.labels["knowledge"][0] for d in loaded for t in d.turns_by(WIZARD)} <= {"found", "no_passages_used"}


@pytest.mark.realdata
def test_real_kilt_dev(real_data_dir: Path) -> None:
    require_real_file(real_data_dir, "wow/kilt/wow-dev-kilt.jsonl")
    loaded = utils.load("wow_kilt", "dev")
    assert loaded.provenance.is_full
    assert len(loaded) == 3054
    assert all(d.turns[-1].role == WIZARD and d.turns[-2].role == SEEKER for d in loaded[:50])


@pytest.mark.parametrize(
    ("turn", "key"),
    [(2, "extra"), (0, "checked_sentence"), (None, "extra")],
    ids=["an unknown turn field", "an apprentice's unread checked sentence", "an unknown dialogue field"],
)
@pytest.mark.parametrize("path_kind", ["records", "columns"])
def test_fields_the_parser_does_not_read_are_held_to_the_depth_limit(
    tmp_path: Path, turn: int | None, key: str, path_kind: str
) -> None:
    # The reader leaves depth to the parser, which walks a record only when it has fields it does not
    # check itself: 100 levels with the file's list are allowed, 101 are refused, naming the record.
    above = 2 if turn is None else 4  # the file's list, the record (, its dialog list and the turn)
    for depth, allowed in ((100 - above, True), (101 - above, False)):
        record = _dialogue()
        target = record if turn is None else record["dialog"][turn]
        target[key] = "DEEP"
        path = _write(tmp_path, [_dialogue(), record])
        path.write_text(path.read_text(encoding="utf-8").replace('"DEEP"', "[" * depth + "]" * depth))
        if allowed:
            _read_wow(path, path_kind)
        else:
            with pytest.raises(DataError, match="nested more than 100 levels") as info:
                _read_wow(path, path_kind)
            assert (info.value.path, info.value.record) == (str(path), 1)


def _read_wow(path: Path, path_kind: str) -> None:
    """Read a raw WoW file through the parser's record path or its columnar path (into the cache)."""
    from utils import _cache
    from utils.datasets.wow import parser

    if path_kind == "records":
        list(parser.parse(path, split="train"))
    else:
        _cache.build_in_memory(parser.parse_columns(path, split="train"))


def test_deeply_nested_unknown_fields(tmp_path: Path) -> None:
    record = _dialogue()
    record["dialog"][2]["extra"] = "DEEP"
    text = json.dumps([record])
    path = tmp_path / "train.json"
    # kept as it is when the reader accepts it (and the cache can store it) ...
    path.write_text(text.replace('"DEEP"', "[" * 80 + "]" * 80), encoding="utf-8")
    (dialogue,) = parse_file("wow", path, "train")
    assert json.dumps(dialogue.turns[2].raw["extra"]) == "[" * 80 + "]" * 80
    # ... and thousands of levels are a DataError naming the file, never a RecursionError
    path.write_text(text.replace('"DEEP"', "[" * 5000 + "]" * 5000), encoding="utf-8")
    with pytest.raises(DataError) as info:
        list(parse_file("wow", path, "train"))
    assert info.value.path == str(path)
    deep = json.dumps({**_KILT, "meta": {"a": "DEEP"}}).replace('"DEEP"', "[" * 5000 + "]" * 5000)
    path = _write_lines(tmp_path, [deep])
    with pytest.raises(DataError) as info:
        list(parse_file("wow_kilt", path, "dev"))
    assert info.value.record == "line 1"


def _parlai_choice(
    passage_title: str, key_title: str, sentence: str, titles: list[str], sentence_lists: list[list[str]]
) -> int | None:
    """ParlAI's ``_get_chosen_title_and_sent`` spelt out: among the passages holding the sentence, the one
    titled as the checked passage, else as the sentence's key, else the first."""
    holding = [n for n, sentences in enumerate(sentence_lists) if sentence in sentences]
    for title in (passage_title, key_title):
        if title and any(titles[n] == title for n in holding):
            return next(n for n in holding if titles[n] == title)
    return holding[0] if holding else None


def test_the_selected_passage_is_the_one_parlai_chooses() -> None:
    """Every combination of named titles over passages that share the checked sentence or not: the
    parser, which looks at the named passages first, picks what ParlAI's rule picks."""
    from itertools import product

    from utils.datasets.wow.parser import _parlai_passage

    titles = ["Topic", "Tea", "Milk", "Sugar"]
    names = ["", "Topic", "Tea", "Milk", "Sugar", "Absent"]
    checked = 0
    for holds in product((False, True), repeat=len(titles)):
        sentence_lists = [["other", "s"] if held else ["other"] for held in holds]
        for passage_title, key_title in product(names, names):
            expected = _parlai_choice(passage_title, key_title, "s", titles, sentence_lists)
            assert _parlai_passage(passage_title, key_title, "s", titles, sentence_lists) == expected
            checked += 1
    assert checked == 16 * 36
