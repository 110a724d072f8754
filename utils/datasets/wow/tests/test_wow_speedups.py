"""WoW's per-passage loops: the compiled ones (``_speedups.c``) give what the Python ones
(``_native.py``) give, on any input of the shapes msgspec decodes; a stale or missing build falls back
to Python and says it is slower; CI runs the compiled ones.

``test_wow_typed_path.py`` runs each of its files through both (its ``loops`` fixture).
"""

from __future__ import annotations

import copy
import json
import os
import sys
import types
import warnings
from pathlib import Path
from typing import ClassVar

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import demo_file
from utils import _cache
from utils.datasets.wow import _native
from utils.datasets.wow import parser as wow
from utils.errors import SlowPathWarning

speedups = wow._built_speedups()
needs_build = pytest.mark.skipif(speedups is None, reason="the compiled loops are not built in this install")

# Few distinct titles and sentences, so that titles repeat within and across turns, and the same
# sentences come back under a title (what the loops share), beside other ones (what they must not).
_titles = st.sampled_from(["Ada", "Bo", "Cé", "Dü 🙂", "E\"q", ""])
_sentences = st.lists(st.sampled_from(["one.", "two", "thrée", "\\ back", "", "🙂 four"]), max_size=4)
_entry = st.dictionaries(_titles, _sentences, max_size=3)
_turn_passages = st.one_of(st.none(), st.lists(_entry, max_size=4))
_roles = st.sampled_from([wow.WIZARD, wow.SEEKER, "judge"])


def _shown(loops: types.ModuleType, retrieved: list, roles: list[str], topic: str, passage: list[str]) -> tuple:
    return loops.shown_passages(retrieved, roles, wow.WIZARD, wow.SEEKER, topic, passage, f"{topic}#", (0, 1, 2))


@needs_build
@settings(max_examples=300, deadline=None)
@given(
    turns=st.lists(st.tuples(_roles, _turn_passages), max_size=8),
    topic=_titles,
    passage=_sentences,
)
def test_shown_passages_are_the_same_compiled(turns: list, topic: str, passage: list[str]) -> None:
    retrieved = [given for _, given in turns]
    roles = [role for role, _ in turns]
    expected = _shown(_native, copy.deepcopy(retrieved), roles, topic, passage)
    assert _shown(speedups, retrieved, roles, topic, passage) == expected


_decode = msgspec.json.Decoder(list[str]).decode


def _as_given(sentences: list[str], spelling: int) -> object:
    """A shown passage as the record path gives it (a list), or as the typed path does (a JSON text),
    spelt as the published files are or otherwise (the same sentences in other bytes)."""
    if spelling == 0:
        return list(sentences)
    text = json.dumps(sentences) if spelling == 1 else json.dumps(sentences, ensure_ascii=False, separators=(",", ":"))
    return msgspec.Raw(text.encode())


@needs_build
@settings(max_examples=300, deadline=None)
@given(
    batches=st.lists(st.lists(st.tuples(_titles, _sentences, st.integers(0, 2)), max_size=12), max_size=5),
    limit=st.integers(0, 12),
)
def test_passage_rows_are_the_same_compiled(batches: list, limit: int) -> None:
    """Batch after batch on the same memory, which both forget whole once it would exceed ``limit``;
    passages given as lists and as texts spelt two ways."""
    states: dict[str, list] = {"python": [{}, {}, 0, 0], "compiled": [{}, {}, 0, 0]}
    stored: list[str] = []  # the passages table's sentences, as the rows number them
    for batch in batches:
        titles = [title for title, _, _ in batch]
        values = [_as_given(sentences, spelling) for _, sentences, spelling in batch]
        results = {}
        for name, loops in (("python", _native), ("compiled", speedups)):
            by_title, remembered, written, count = states[name]
            rows, sizes, texts, new_titles, repeats, count = loops.passage_rows(
                titles, values, by_title, remembered, written, count, limit, _decode
            )
            states[name] = [by_title, remembered, written + len(texts), count]
            results[name] = (rows, sizes, texts, new_titles, repeats, count)
        assert results["compiled"] == results["python"]
        assert _comparable(states["compiled"]) == _comparable(states["python"])
        rows, sizes, texts, *_ = results["python"]
        stored += texts
        for row, size, (_, sentences, _) in zip(
            memoryview(rows).cast("q"), memoryview(sizes).cast("q"), batch, strict=True
        ):
            assert stored[row : row + size] == sentences  # each shown passage points to its own sentences


def _comparable(state: list) -> list:
    """A memory's dicts with texts as bytes (msgspec.Raw compares equal only to itself)."""
    by_title, remembered, written, count = state
    plain = {
        name: {key: (row, bytes(kept) if not isinstance(kept, list) else kept, n) for key, (row, kept, n) in d.items()}
        for name, d in (("by_title", by_title), ("remembered", remembered))
    }
    return [plain, written, count]


@needs_build
def test_passage_rows_share_a_row_only_for_the_same_sentences() -> None:
    rows, sizes, texts, _, _, _ = speedups.passage_rows(
        ["A", "A", "A", "B"], [["x", "y"], msgspec.Raw(b'["x","y"]'), ["x", "z"], ["x", "y"]], {}, {}, 10, 0, 100,
        _decode,
    )
    assert list(memoryview(rows).cast("q")) == [10, 10, 12, 14]
    assert list(memoryview(sizes).cast("q")) == [2, 2, 2, 2]
    assert texts == ["x", "y", "x", "z", "x", "y"]


@needs_build
@pytest.mark.parametrize("loops", ["compiled", "python"])
def test_a_text_that_is_not_a_list_of_strings_raises_as_msgspec_does(loops: str) -> None:
    module = speedups if loops == "compiled" else _native
    for text in (b'["a", 7]', b'{"a": 1}', b'["\\ud800"]'):
        with pytest.raises(msgspec.MsgspecError):
            module.passage_rows(["A"], [msgspec.Raw(text)], {}, {}, 0, 0, 10, _decode)


@needs_build
@pytest.mark.parametrize(
    "arguments",
    [
        ([[["not a dict"]]], [wow.WIZARD]),  # a turn's retrieved entry that is not a dict
        ([[{1: ["a"]}], None], [wow.SEEKER, wow.WIZARD]),  # a title that is not a string
        ([None], []),  # lengths differ
    ],
)
def test_shown_passages_refuse_what_msgspec_never_gives(arguments: tuple) -> None:
    retrieved, roles = arguments
    with pytest.raises(TypeError):
        speedups.shown_passages(retrieved, roles, wow.WIZARD, wow.SEEKER, "T", [], "T#", (0, 1, 2))


class _Meddling(str):
    """A str whose comparison and hash run code that empties the lists the loops are reading."""

    victims: ClassVar[list[list]] = []

    def _meddle(self) -> None:
        for victim in self.victims:
            victim.clear()

    def __eq__(self, other: object) -> bool:
        self._meddle()
        return str.__eq__(self, other)

    def __hash__(self) -> int:
        self._meddle()
        return str.__hash__(self)


@needs_build
def test_the_loops_run_no_code_of_the_caller_while_reading_its_lists() -> None:
    """Borrowed references and sizes counted before would read freed memory if a comparison or a hash
    changed the lists under the loop: a str subclass is refused, and ``decode`` (the caller's) runs on
    copies of them."""
    retrieved = [[{"A": ["x"], "B": ["y"]}], None]
    _Meddling.victims = [retrieved[0], retrieved]
    for roles, title in (([_Meddling(wow.SEEKER), wow.WIZARD], "A"), ([wow.SEEKER, wow.WIZARD], _Meddling("A"))):
        retrieved[:] = [[{title: ["x"], "B": ["y"]}], None]
        with pytest.raises(TypeError, match="not a str"):
            speedups.shown_passages(retrieved, roles, wow.WIZARD, wow.SEEKER, "T", [], "T#", (0, 1, 2))
    with pytest.raises(TypeError, match="not a str"):
        speedups.shown_passages([None], [wow.WIZARD], wow.WIZARD, wow.SEEKER, _Meddling("T"), [], "T#", (0, 1, 2))

    titles, values = ["A", "B", "C"], [msgspec.Raw(b'["x"]'), msgspec.Raw(b'["y"]'), msgspec.Raw(b'["z"]')]

    def emptying(text: msgspec.Raw) -> list[str]:
        titles.clear()
        values.clear()
        return _decode(text)

    rows, sizes, texts, new_titles, *_ = speedups.passage_rows(titles, values, {}, {}, 0, 0, 10, emptying)
    assert list(memoryview(rows).cast("q")) == [0, 1, 2] and list(memoryview(sizes).cast("q")) == [1, 1, 1]
    assert texts == ["x", "y", "z"] and new_titles == ["A", "B", "C"]
    with pytest.raises(TypeError, match="not a str"):
        speedups.passage_rows([_Meddling("A")], [["x"]], {}, {}, 0, 0, 10, _decode)


@needs_build
def test_passage_rows_refuse_what_the_parser_never_gives() -> None:
    with pytest.raises(TypeError):
        speedups.passage_rows(["A"], [["x"]], {"A": "not a tuple"}, {}, 0, 0, 10, _decode)
    with pytest.raises(TypeError):
        speedups.passage_rows(["A", "B"], [["x"]], {}, {}, 0, 0, 10, _decode)
    with pytest.raises(TypeError):  # a decoder that gives no list
        speedups.passage_rows(["A"], [msgspec.Raw(b"[]")], {}, {}, 0, 0, 10, lambda text: "not a list")


def test_without_the_build_the_parser_says_it_is_slower_and_gives_the_same_tables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = demo_file("wow/raw/train.json")
    monkeypatch.setattr(wow, "_loops", _native)
    with pytest.warns(SlowPathWarning, match=r"compiled parsing loops .* not built.* slower.*pip install"):
        in_python = list(wow.parse_columns(path, split="train"))
    if speedups is not None:
        monkeypatch.setattr(wow, "_loops", speedups)
        with warnings.catch_warnings():
            warnings.simplefilter("error", SlowPathWarning)
            compiled = list(wow.parse_columns(path, split="train"))
        in_python_tables, compiled_tables = (_cache.build_in_memory(iter(batches)) for batches in (in_python, compiled))
        for name in ("dialogues", "turns", "evidence", "passages"):
            assert getattr(compiled_tables, name).equals(getattr(in_python_tables, name)), name


@pytest.mark.parametrize("version", [None, _native.VERSION + 1])
def test_a_stale_build_is_not_used(monkeypatch: pytest.MonkeyPatch, version: int | None) -> None:
    """A build from older sources (an editable install not rebuilt) is left alone, not called wrongly."""
    stale = types.ModuleType("utils.datasets.wow._speedups")
    if version is not None:
        stale.VERSION = version  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "utils.datasets.wow._speedups", stale)
    assert wow._built_speedups() is None


def test_the_build_and_python_agree_on_their_version() -> None:
    source = (Path(wow.__file__).parent / "_speedups.c").read_text(encoding="utf-8")
    assert f"#define SPEEDUPS_VERSION {_native.VERSION}\n" in source


@pytest.mark.skipif(
    not os.environ.get("ATLAS_REQUIRE_SPEEDUPS"), reason="set by .ci/run: elsewhere a missing compiler is allowed"
)
def test_ci_runs_the_compiled_loops() -> None:
    assert wow._loops is speedups is not None, "the install did not build utils/datasets/wow/_speedups.c"
