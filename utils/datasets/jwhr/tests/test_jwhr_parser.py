"""The JWHR parser: mapping of sessions onto records, bad input, demo sample and the real files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import utils
from conftest import require_real_file
from utils.datasets.jwhr.parser import NOT_FOUND, NOTHING, QUOTE, SUMMARY
from utils.errors import DataError
from utils.loading import parse_file
from utils.records import SEEKER, WIZARD


def _session(**overrides: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": 10,
        "question": "猫はなぜ喉を鳴らすの？",
        "answer": {
            "text": "猫は安心すると喉を鳴らします。理由は諸説あります。",
            "sentences": [
                {"text": "猫は安心すると喉を鳴らします。", "citations": [0, 1]},
                {"text": "理由は諸説あります。", "citations": []},
            ],
        },
        "references": [
            {"search": {"keywords": ["猫", "喉"]},
             "page": {"title": "ネコ", "url": "https://ja.wikipedia.org/wiki/a",
                      "quote": {"text": "猫は喉を鳴らす。"}}},
            {"link": {"referrer": 0},
             "page": {"title": "喉鳴らし", "url": "https://ja.wikipedia.org/wiki/b",
                      "summary": {"text": "安心したときに鳴らすとまとめた。", "method": "冒頭を要約"}}},
            {"search": {"keywords": ["猫"]}, "not_found": {"url": "https://ja.wikipedia.org/w/index.php?search=x"}},
            {"link": {"referrer": 1}},
        ],
    }
    record.update(overrides)
    return record


def _write(tmp_path: Path, *records: Any, raw: bytes | None = None) -> Path:
    path = tmp_path / "answered.jsonl"
    if raw is not None:
        path.write_bytes(raw)
    else:
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def _parse(path: Path) -> list[utils.Dialogue]:
    return list(parse_file("jwhr", path, "answered"))


def test_session_maps_to_question_and_answer_turns(tmp_path: Path) -> None:
    (dialogue,) = _parse(_write(tmp_path, _session()))
    assert dialogue.id == "10" and dialogue.dataset == "jwhr" and dialogue.meta["answered"] is True
    question, answer = dialogue.turns
    assert (question.role, question.text) == (SEEKER, "猫はなぜ喉を鳴らすの？")
    assert answer.role == WIZARD and answer.text.startswith("猫は安心")
    assert answer.labels["citations"] == ["0,1", ""]
    assert answer.raw["sentences"][0]["citations"] == [0, 1]
    assert answer.raw["text_matches_sentences"] is True


def test_references_become_evidence_with_origin_content_and_citations(tmp_path: Path) -> None:
    (dialogue,) = _parse(_write(tmp_path, _session()))
    quote, summary, not_found, bare_link = dialogue.turns[1].evidence
    assert (quote.id, quote.origin, quote.meta["content"], quote.text) == ("0", "search", QUOTE, "猫は喉を鳴らす。")
    assert quote.meta["keywords"] == ["猫", "喉"] and quote.meta["url"].endswith("/a") and quote.selected
    assert (summary.origin, summary.meta["content"], summary.meta["referrer"]) == ("link", SUMMARY, 0)
    assert summary.text == "安心したときに鳴らすとまとめた。" and summary.meta["summary_method"] == "冒頭を要約"
    assert summary.meta["cited_by"] == [0] and summary.selected
    assert not_found.meta["content"] == NOT_FOUND and not_found.title is None and not not_found.selected
    assert bare_link.meta["content"] == "no page" and bare_link.meta["referrer_is_earlier"] is True
    # a reference with neither page nor not_found is kept in its place, and flagged
    assert bare_link.meta["page_missing"] is True and bare_link.title is None and bare_link.text == ""
    assert not any(e.meta.get("page_missing") for e in (quote, summary, not_found))


def test_titles_lose_surrounding_whitespace_and_keep_what_was_written(tmp_path: Path) -> None:
    record = _session()
    record["references"][0]["page"]["title"] = "ネコ\n"
    record["references"][1]["page"]["title"] = " 喉鳴らし "
    (dialogue,) = _parse(_write(tmp_path, record))
    cat, purr = dialogue.turns[1].evidence[:2]
    assert (cat.title, cat.meta["title_as_written"]) == ("ネコ", "ネコ\n")
    assert (purr.title, purr.meta["title_as_written"]) == ("喉鳴らし", " 喉鳴らし ")
    (clean,) = _parse(_write(tmp_path, _session()))
    assert "title_as_written" not in clean.turns[1].evidence[0].meta


def test_page_without_quote_or_summary_has_nothing(tmp_path: Path) -> None:
    record = _session()
    record["references"][0]["page"].pop("quote")
    (dialogue,) = _parse(_write(tmp_path, record))
    assert dialogue.turns[1].evidence[0].meta["content"] == NOTHING
    assert dialogue.turns[1].evidence[0].text == ""


def test_not_answered_session_keeps_its_trail(tmp_path: Path) -> None:
    record = _session()
    record.pop("answer")
    (dialogue,) = _parse(_write(tmp_path, record))
    assert dialogue.meta["answered"] is False
    assert dialogue.turns[1].text == "" and len(dialogue.turns[1].evidence) == 4
    assert not any(e.selected for e in dialogue.turns[1].evidence)


def test_self_referring_link_is_kept_and_flagged(tmp_path: Path) -> None:
    # The real not_answered file has links whose referrer is the reference itself (session 274).
    record = _session()
    record["references"][3]["link"]["referrer"] = 3
    (dialogue,) = _parse(_write(tmp_path, record))
    assert dialogue.turns[1].evidence[3].meta["referrer_is_earlier"] is False


def test_unknown_fields_stay_reachable(tmp_path: Path) -> None:
    record = _session(worker="w1")
    record["references"][0]["page"]["lang"] = "ja"
    record["references"][0]["visited"] = "2023"
    (dialogue,) = _parse(_write(tmp_path, record))
    assert dialogue.meta["extra"] == {"worker": "w1"}
    assert dialogue.turns[1].evidence[0].meta["page_extra"] == {"lang": "ja"}
    assert dialogue.turns[1].evidence[0].meta["extra"] == {"visited": "2023"}


def _bad(**changes: Any) -> dict[str, Any]:
    record = _session()
    for dotted, value in changes.items():
        target = record
        keys = dotted.split("__")
        for key in keys[:-1]:
            target = target[int(key)] if key.isdigit() else target[key]
        last = keys[-1]
        if value is _DELETE:
            del target[int(last) if last.isdigit() else last]
        else:
            target[int(last) if last.isdigit() else last] = value
    return record


_DELETE = object()


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"id": "10"}, "id"),
        ({"id": True}, "id"),
        ({"question": _DELETE}, "question"),
        ({"references": {}}, "references"),
        ({"answer__sentences": "x"}, "answer.sentences"),
        ({"answer__text": 3}, "answer.text"),
        ({"answer__sentences__0__citations__0": "0"}, "answer.sentences[0].citations[0]"),
        ({"answer__sentences__1__text": _DELETE}, "answer.sentences[1].text"),
        ({"answer__sentences__0__citations__1": 4}, "answer.sentences[0].citations[1]"),
        ({"answer__sentences__0__citations__1": -1}, "answer.sentences[0].citations[1]"),
        ({"references__1__link__referrer": 4}, "references[1].link.referrer"),
        ({"references__1__link__referrer": -1}, "references[1].link.referrer"),
        ({"references__1__link__referrer": "0"}, "references[1].link.referrer"),
        ({"references__0__search__keywords": "猫"}, "references[0].search.keywords"),
        ({"references__0__search__keywords__1": 3}, "references[0].search.keywords[1]"),
        ({"references__0__page__title": _DELETE}, "references[0].page.title"),
        ({"references__0__page__quote__text": None}, "references[0].page.quote.text"),
        ({"references__0__search": _DELETE}, "references[0]"),
        ({"references__1__search": {"keywords": []}}, "references[1]"),
        ({"references__2": "ref"}, "references[2]"),
    ],
)
def test_bad_records_name_file_record_and_field(tmp_path: Path, changes: dict[str, Any], field: str) -> None:
    path = _write(tmp_path, _session(), _bad(**changes))
    with pytest.raises(DataError) as caught:
        _parse(path)
    error = caught.value
    assert error.path == str(path) and error.field == field
    assert str(error.record).startswith("line 2")
    assert str(path) in str(error)


def test_truncated_line_is_a_data_error(tmp_path: Path) -> None:
    text = json.dumps(_session(), ensure_ascii=False)
    path = _write(tmp_path, raw=(text + "\n" + text[: len(text) // 2]).encode("utf-8"))
    with pytest.raises(DataError, match="truncated") as caught:
        _parse(path)
    assert caught.value.record == "line 2" and caught.value.path == str(path)


def test_invalid_utf8_is_a_data_error(tmp_path: Path) -> None:
    text = json.dumps(_session(), ensure_ascii=False).encode("utf-8")
    path = _write(tmp_path, raw=text + b"\n" + text.replace("猫".encode(), b"\xe7\x8c", 1))
    with pytest.raises(DataError, match="UTF-8") as caught:
        _parse(path)
    assert caught.value.record == "line 2"


def test_a_line_that_is_not_an_object_is_a_data_error(tmp_path: Path) -> None:
    path = _write(tmp_path, _session(), [1, 2])
    with pytest.raises(DataError, match="expected an object") as caught:
        _parse(path)
    assert caught.value.record == "line 2"


def test_demo_sample_loads_with_a_warning() -> None:
    with pytest.warns(utils.DemoDataWarning):
        answered = utils.load("jwhr", "answered")
    with pytest.warns(utils.DemoDataWarning):
        not_answered = utils.load("jwhr", "not_answered")
    assert answered.provenance.is_demo and not answered.provenance.is_full
    assert all(d.meta["answered"] for d in answered)
    assert not any(d.meta["answered"] for d in not_answered)
    origins = {e.origin for d in answered for e in d.turns[1].evidence}
    contents = {e.meta["content"] for d in answered for e in d.turns[1].evidence}
    assert origins == {"search", "link"} and {QUOTE, SUMMARY, NOTHING, NOT_FOUND} <= contents
    labels = [c for d in answered for c in d.turns[1].labels["citations"]]
    assert "" in labels and any("," in c for c in labels)
    # the cached round trip keeps every field
    first = answered[0]
    assert first.turns[1].evidence[1].meta["referrer"] == 0


def test_demo_files_are_small_and_labelled(demo_dir: Path) -> None:
    folder = demo_dir / "jwhr"
    assert "DEMO SAMPLE" in (folder / "README.md").read_text(encoding="utf-8")
    for name in ("answered.jsonl", "not_answered.jsonl"):
        assert (folder / name).stat().st_size < 60_000


@pytest.mark.realdata
@pytest.mark.parametrize(("split", "count"), [("answered", 838), ("not_answered", 433)])
def test_real_files_parse_completely(real_data_dir: Path, split: str, count: int) -> None:
    require_real_file(real_data_dir, f"jwhr/{split}.jsonl")
    loaded = utils.load("jwhr", split)
    assert loaded.provenance.is_full
    assert len(loaded) == count
    assert all(d.meta["answered"] is (split == "answered") for d in loaded)
    evidence = loaded.evidence()
    assert set(evidence["origin"]) == {"search", "link"}


@pytest.mark.realdata
def test_real_titles_with_whitespace_are_stripped(real_data_dir: Path) -> None:
    # Counted with a plain json.loads over both files: 1 title in answered.jsonl ("da Vinci ",
    # session 273) and 7 in not_answered.jsonl (a line break before or after the title).
    stripped = {}
    for split in ("answered", "not_answered"):
        require_real_file(real_data_dir, f"jwhr/{split}.jsonl")
        evidence = [e for d in utils.load("jwhr", split) for e in d.turns[1].evidence]
        written = [e for e in evidence if "title_as_written" in e.meta]
        stripped[split] = written
        assert all(e.title == e.meta["title_as_written"].strip() != e.meta["title_as_written"] for e in written)
        assert all(e.title == e.title.strip() for e in evidence if e.title is not None)
    assert (len(stripped["answered"]), len(stripped["not_answered"])) == (1, 7)
    assert stripped["answered"][0].title == "da Vinci"


@pytest.mark.realdata
def test_real_reference_without_page_or_not_found_is_kept_and_flagged(real_data_dir: Path) -> None:
    require_real_file(real_data_dir, "jwhr/answered.jsonl")
    require_real_file(real_data_dir, "jwhr/not_answered.jsonl")
    missing = [
        (d.id, e.id, e)
        for split in ("answered", "not_answered")
        for d in utils.load("jwhr", split)
        for e in d.turns[1].evidence
        if e.meta.get("page_missing")
    ]
    # the one such reference in the real files: session 23 of answered.jsonl, step 4, a bare link
    assert [(session, step) for session, step, _ in missing] == [("23", "4")]
    (_, _, step) = missing[0]
    assert step.origin == "link" and step.meta["referrer"] == 0 and step.meta["content"] == "no page"
    assert step.title is None and step.text == "" and not step.selected
