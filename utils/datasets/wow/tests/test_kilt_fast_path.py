"""KILT's fast path (issue 50, item 12): ``kilt_parser.parse_columns``, which the loader builds the cache
with, writes the tables of ``kilt_parser.parse``, the record path, and leaves it what it treats apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import utils
from utils import _cache
from utils.datasets.wow import kilt_parser
from utils.formats import FastPathDeclined
from utils.sources import get_source

PROVENANCE = {
    "wikipedia_id": "265182", "title": "Tears for Fears", "start_paragraph_id": 1, "start_character": 0,
    "end_paragraph_id": 1, "end_character": 110, "bleu_score": 0.8340614345461113, "section": "Section::::Abstract.",
}
EXAMPLE = {"id": "54b85f36-99cd-11ea-aa09-57c1ffc5a65b_3", "input": "I love music\nMe too.\nWhich band?",
           "output": [{"answer": "Tears For Fears — since 1981.", "provenance": [PROVENANCE]}]}


def _same_tables(path: Path) -> None:
    fast = _cache.build_in_memory(kilt_parser.parse_columns(path, split="dev"))
    records = _cache.build_in_memory(kilt_parser.parse(path, split="dev"))
    for name in ("dialogues", "turns", "evidence", "passages"):
        assert getattr(fast, name).equals(getattr(records, name)), name
    assert fast.raw.column().equals(records.raw.column())


def _write(tmp_path: Path, *examples: object) -> Path:
    path = tmp_path / "wow-dev-kilt.jsonl"
    path.write_text("".join(json.dumps(example, ensure_ascii=False) + "\n" for example in examples), encoding="utf-8")
    return path


@pytest.mark.realdata
def test_the_real_dev_file_gives_the_record_path_s_tables(real_data_dir: Path) -> None:
    path = real_data_dir / "wow/kilt/wow-dev-kilt.jsonl"
    if not path.is_file():
        pytest.skip("KILT's dev file is not in the data directory")
    _same_tables(path)
    assert get_source("wow_kilt").parse_columns is kilt_parser.parse_columns


def test_shared_passages_unanswered_examples_and_odd_ids_give_the_record_path_s_tables(tmp_path: Path) -> None:
    other = {**PROVENANCE, "wikipedia_id": 42, "title": "", "bleu_score": 1, "start_character": 256}
    examples = [
        EXAMPLE,
        {**EXAMPLE, "id": "no-number", "output": [{"answer": "again", "provenance": [PROVENANCE, other]}]},
        {"id": "x_7", "input": "", "output": []},  # no answer (the test file's examples)
        {"id": "_9", "input": "one line", "output": [{"provenance": []}]},  # no answer text, no provenance
    ]
    path = _write(tmp_path, *examples)
    with path.open("a", encoding="utf-8") as handle:
        handle.write("\n  \n")  # blank lines are skipped by both
    _same_tables(path)
    assert len(list(kilt_parser.parse_columns(path, split="dev"))) == 1


@pytest.mark.parametrize(
    "example",
    [
        {**EXAMPLE, "meta": {"k": 1}},
        {**EXAMPLE, "extra": 1},
        {**EXAMPLE, "output": [EXAMPLE["output"][0], EXAMPLE["output"][0]]},
        {**EXAMPLE, "output": [{"answer": "a", "provenance": [{**PROVENANCE, "start_character": True}]}]},
        {**EXAMPLE, "output": [{"answer": "a", "provenance": [{k: v for k, v in PROVENANCE.items() if k != "title"}]}]},
        {**EXAMPLE, "output": [{"answer": 3}]},
        {**EXAMPLE, "output": [{"answer": None}]},
        {**EXAMPLE, "input": "\ud800 lone"},
        {**EXAMPLE, "id": "null_1"},
        {**EXAMPLE, "id": "a_\u0663"},
    ],
    ids=["meta", "extra field", "two outputs", "bool offset", "missing field", "answer not text", "null answer",
         "surrogate", "null", "arabic digit"],
)
def test_the_fast_path_declines_what_the_record_path_treats_apart(tmp_path: Path, example: dict) -> None:
    path = tmp_path / "wow-dev-kilt.jsonl"
    path.write_text(json.dumps(EXAMPLE) + "\n" + json.dumps(example) + "\n", encoding="utf-8")
    with pytest.raises(FastPathDeclined):
        list(kilt_parser.parse_columns(path, split="dev"))


def test_a_declined_file_is_cached_by_the_record_path(tmp_path: Path) -> None:
    path = _write(tmp_path, EXAMPLE, {**EXAMPLE, "meta": {"k": 1}})
    tables = _cache.load_or_build(
        tmp_path / "cache", "0" * 24, lambda: kilt_parser.parse(path, split="dev"),
        fast_build=lambda: kilt_parser.parse_columns(path, split="dev"), compress_beyond=0,
    )
    assert _cache.rebuild_dialogues(tables, 0, 2) == list(kilt_parser.parse(path, split="dev"))
    path.write_text(json.dumps(EXAMPLE) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(utils.DataError, match="line 2"):
        _cache.load_or_build(tmp_path / "cache", "1" * 24, lambda: kilt_parser.parse(path, split="dev"),
                             fast_build=lambda: kilt_parser.parse_columns(path, split="dev"))


def test_provenance_in_another_order_and_any_number_give_the_record_path_s_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A provenance's meta keeps its fields' order; json's spelling of floats (1e-05, 1e+16), which
    msgspec writes otherwise, is kept; the turns of inputs of any shape, across batches. (NaN and
    integers beyond 64 bits are declined: msgspec does not read the first, and reads the others as floats.)"""
    monkeypatch.setattr(kilt_parser, "_COLUMN_BATCH", 3)
    reordered = dict(reversed(list(PROVENANCE.items())))
    scores = [1e-05, 9.99e-05, 1e-4, 1e16, 1e15 + 0.5, -0.0, 0.0, 0, 7, -3e200, 1.5, 2.5e-300]
    odd = {**PROVENANCE, "wikipedia_id": 2**63 - 1, "section": 'a "quoted"\\ \x01\x1f\x7f é ☃ \u2028 section'}
    inputs = ["", "\n", "one", "a\nb", "a\r\nb\n", "x\n\ny\nz\n"]
    examples = [
        {"id": f"ex_{number}", "input": inputs[number % len(inputs)],
         "output": [{"answer": "an answer", "provenance": [{**PROVENANCE, "bleu_score": score}, reordered, odd]}]}
        for number, score in enumerate(scores)
    ]
    examples.append({"id": "unanswered_1", "input": "a\nb", "output": []})
    examples.append({"id": "no text_2", "input": "a\nb\nc", "output": [{"provenance": []}]})
    path = tmp_path / "wow-dev-kilt.jsonl"
    path.write_text("".join(json.dumps(example, ensure_ascii=False) + "\n" for example in examples), encoding="utf-8")
    assert len(list(kilt_parser.parse_columns(path, split="dev"))) == 5
    _same_tables(path)


def test_msgspec_spells_what_the_fast_path_gives_it_as_json_does() -> None:
    """The evidence meta the fast path encodes with msgspec (_meta_json) is json's text, to the byte."""
    import random

    random.seed(50)
    floats = [random.random() * 10 ** random.randint(-4, 15) for _ in range(20_000)] + [1e-4, 9999999999999998.0]
    texts = ["".join(chr(code) for code in range(0, 0x80)), "é ☃ \u2028\u2029 \ufeff \U0001f600"]
    for value in [*floats, *texts, 0, -5, 2**63 - 1]:
        meta = {**PROVENANCE, "bleu_score": value} if not isinstance(value, str) else {**PROVENANCE, "section": value}
        assert kilt_parser._meta_json(meta) == kilt_parser._encode_meta(meta).encode("utf-8"), value
