"""JWHR's typed path (msgspec decodes each session straight into typed records, issue 37) gives the
record path's dialogues, and hands a file over to the record path at the first line it does not
take, so that errors name the same file, line and field as before.

The property over fuzzed files is ``tests/test_fuzz.py::test_fast_path_agrees_with_parse[jwhr]``
(``parse_columns``, which the loader builds the cache with, against ``parse``, the record path).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import demo_file
from utils import _cache
from utils.datasets.jwhr import JWHR
from utils.datasets.jwhr import parser as jwhr
from utils.errors import DataError

SPLITS = ["answered", "not_answered"]


def _typed_count(path: Path) -> int:
    """How many sessions the typed path reads; ``-line`` where it hands the file over."""
    count = 0
    try:
        for batch in jwhr._typed_batches(path, "answered"):
            count += len(batch.dialogues.ids)
    except jwhr._HandOver as handed_over:
        return -handed_over.line_number
    return count


def _cached(path: Path) -> list:
    tables = _cache.build_in_memory(jwhr.parse_columns(path, split="answered"))
    return _cache.rebuild_dialogues(tables, 0, tables.dialogues.num_rows)


def _stored_evidence(tables: _cache.CachedTables) -> list[tuple]:
    """Each evidence row as stored: id, origin, selected and its passage's text, title and meta (JSON text)."""
    passages = [tables.passages.column(name).to_pylist() for name in ("text", "title", "meta")]
    columns = [tables.evidence.column(name).to_pylist() for name in ("id", "origin", "selected", "passage")]
    rows = zip(*columns, strict=True)
    return [(*row[:3], *(column[row[3]] for column in passages)) for row in rows]


def _same_as_parse(path: Path) -> None:
    expected = list(jwhr.parse(path, split="answered"))
    assert _typed_count(path) == len(expected), "the typed path handed the file over"
    assert _cached(path) == expected
    # and the very texts the cache stores (the SQL console shows them): each reference is its own
    # passage row on the typed path, where the record path's build shares repeated ones
    by_parse = _cache.build_in_memory(jwhr.parse(path, split="answered"))
    typed = _cache.build_in_memory(jwhr.parse_columns(path, split="answered"))
    assert typed.dialogues.equals(by_parse.dialogues) and typed.turns.equals(by_parse.turns)
    assert _stored_evidence(typed) == _stored_evidence(by_parse)
    assert typed.raw.column().equals(by_parse.raw.column())


def test_the_loader_builds_with_the_typed_path() -> None:
    assert JWHR.parse_columns is jwhr.parse_columns


@pytest.mark.parametrize("split", SPLITS)
def test_typed_path_reads_the_demo_files_as_parse_does(split: str) -> None:
    _same_as_parse(demo_file(f"jwhr/{split}.jsonl"))


@pytest.mark.realdata
@pytest.mark.parametrize("split", SPLITS)
def test_typed_path_reads_the_real_files_as_parse_does(real_data_dir: Path, split: str) -> None:
    """The real files hold every variant the parser's docstring lists (not_found, a missing page,
    titles with whitespace, referrers that are not earlier): the typed path takes them all."""
    path = real_data_dir / "jwhr" / f"{split}.jsonl"
    if not path.is_file():
        pytest.skip("no real JWHR file")
    _same_as_parse(path)


def _sessions() -> list[dict[str, Any]]:
    lines = demo_file("jwhr/answered.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _write(path: Path, sessions: list[Any]) -> Path:
    path.write_text("".join(json.dumps(s, ensure_ascii=False) + "\n" for s in sessions), encoding="utf-8")
    return path


def _refused_alike(path: Path, line: int) -> DataError:
    with pytest.raises(DataError) as by_parse:
        list(jwhr.parse(path, split="answered"))
    with pytest.raises(DataError) as by_typed_path:
        _cached(path)
    assert str(by_typed_path.value) == str(by_parse.value)
    assert str(by_typed_path.value.record).split(" ")[:2] == ["line", str(line)]
    return by_typed_path.value


def test_a_wrong_type_after_good_lines_is_reported_as_the_record_path_reports_it(tmp_path: Path) -> None:
    sessions = _sessions()
    sessions[2]["references"][0]["page"]["title"] = 5
    path = _write(tmp_path / "answered.jsonl", sessions)
    assert _typed_count(path) == -3
    error = _refused_alike(path, 3)
    assert error.field == "references[0].page.title"


@pytest.mark.parametrize(
    ("damage", "field"),
    [
        (lambda s: s["answer"]["sentences"][0]["citations"].append(99), "answer.sentences[0].citations"),
        (lambda s: s["references"].append({"link": {"referrer": 99}}), "link.referrer"),
        (lambda s: s["references"][0].update(link={"referrer": 0}), "references[0]"),
        (lambda s: s["references"].append({"page": {"title": "t", "url": "u"}}), "references["),
        (lambda s: s.update(answer=None), "answer"),
        (lambda s: s.update(id=True), "id"),
    ],
)
def test_rules_beyond_types_are_left_to_the_record_path(tmp_path: Path, damage: Any, field: str) -> None:
    """A citation or referrer out of range, both or neither of search and link, a null, a boolean id."""
    sessions = _sessions()
    damage(sessions[1])
    path = _write(tmp_path / "answered.jsonl", sessions)
    assert _typed_count(path) == -2
    assert field in (_refused_alike(path, 2).field or "")


def test_what_the_typed_path_does_not_take_is_read_by_the_record_path(tmp_path: Path) -> None:
    """Undocumented keys (kept in ``extra``) and escaped surrogate pairs are handed over and read."""
    sessions = _sessions()
    sessions[1]["reviewer"] = {"name": "x"}
    sessions[2]["question"] = "\U0001f600 escaped as a pair"
    path = tmp_path / "answered.jsonl"
    path.write_text("\n\n".join(json.dumps(s) for s in sessions) + "\n", encoding="utf-8")  # ASCII, blank lines
    assert _typed_count(path) == -3  # the first session is on line 1, the second on line 3
    expected = list(jwhr.parse(path, split="answered"))
    assert expected[1].meta["extra"] == {"reviewer": {"name": "x"}}
    assert _cached(path) == expected
