"""The book's data viewer: its data files (utils/book/viewer_files.py), grouping, search text and licences.

The viewer itself is tested in Chromium on the built site by tests/test_viewer_site.py.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import utils
from utils.book.render.chapter_view import chapter_view
from utils.book.viewer_files import (
    DIALOGUE,
    SEARCH,
    column_kind,
    dictionary_encode,
    read_level,
    read_rendering,
    rendering_fragments,
    split_rows,
    write_level,
    write_split,
)

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "book" / "_ext"))


# -- the data files ---------------------------------------------------------------------------------


def test_split_files_round_trip_every_row_and_column(tmp_path: Path) -> None:
    split = utils.load("wow", "valid_seen")
    rows = split_rows(split, label_keys=("checked_source",))
    manifest = write_split(tmp_path / "wow" / "valid_seen", split, rows, render=lambda d: f"<p>{d.id}</p>",
                           meta={"dataset": "wow", "split": "valid_seen"})
    turns = read_level(tmp_path / "wow" / "valid_seen", "turns")
    assert len(turns) == manifest["levels"]["turns"]["rows"] == len(split.turns())
    assert turns["text"].tolist() == split.turns()["text"].tolist()
    assert turns[DIALOGUE].tolist() == split.turns()["dialogue_index"].tolist()
    kinds = {c["name"]: c["kind"] for c in manifest["levels"]["turns"]["columns"]}
    assert kinds["role"] == "label" and kinds["turn"] == "number" and kinds["text"] == "text"
    assert kinds["checked_source"] == "labels" and kinds["dialogue id"] == "id"  # no single_labels given
    dialogues = read_level(tmp_path / "wow" / "valid_seen", "dialogues")
    assert dialogues["id"].tolist() == [str(d.id) for d in split]
    assert len(manifest["html"]["shards"]) == -(-len(split) // manifest["html"]["per_shard"])
    assert not list((tmp_path / "wow").glob("*.writing"))


def test_renderings_are_stored_as_fragments_each_written_once(tmp_path: Path) -> None:
    """A passage shown at every turn and in every dialogue on its topic is written once (issue #33's size)."""
    from utils.book.render import render_dialogue

    split = utils.load("wow", "valid_seen")
    target = tmp_path / "wow" / "valid_seen"
    manifest = write_split(target, split, split_rows(split), render=render_dialogue, meta={})
    rendered = [str(render_dialogue(dialogue)) for dialogue in split]
    for index, html in enumerate(rendered):
        assert read_rendering(target, index) == html
        assert "".join(rendering_fragments(html)) == html
    fragments = [part for html in rendered for part in rendering_fragments(html)]
    stored = []
    for name in manifest["html"]["fragments"]:
        stored.extend(json.loads(gzip.decompress((target / name).read_bytes())))
    assert sorted(stored) == sorted(set(fragments)) and len(stored) < len(fragments)
    # a passage sentence rendered at several turns is one fragment
    assert any(fragments.count(part) > 1 and part.startswith("<li") for part in set(fragments))


#: How renderings were cut before the cut searched for "<" (a lookahead and a lookbehind at each character).
_CUT_AS_BEFORE = re.compile(r"(?=<(?:li|ul|ol|div|details|summary|p|table|tr)[\s>])|(?<=</li>)")


@pytest.mark.parametrize("html", ["", "plain", "<li>a</li><li>b</li>", "</li></li><li><p>x", "a<p>b</p><pp><p\n>",
                                  "<li\t>x</li><lix></ul></li>", "<ul><li><div>x</div></li></ul>tail", "</li"])
def test_fragments_are_cut_where_they_always_were(html: str) -> None:
    assert rendering_fragments(html) == [part for part in _CUT_AS_BEFORE.split(html) if part]


def test_fragments_of_real_renderings_are_cut_where_they_always_were() -> None:
    from utils.book.render import render_dialogue

    for dialogue in utils.load("wow", "valid_seen"):
        html = str(render_dialogue(dialogue))
        assert rendering_fragments(html) == [part for part in _CUT_AS_BEFORE.split(html) if part]


@pytest.mark.parametrize("values", [["a", "b", "a", None], ["a", "b", "c"], ["x" * 81, "x" * 81], [None, None], [],
                                    ["é", "é", "e"], [str(n % 61) for n in range(200)], ["", ""]])
def test_arrow_strings_get_the_kind_object_strings_get(values: list[str | None]) -> None:
    arrow = pd.Series(values, dtype=pd.StringDtype("pyarrow"))
    assert column_kind(arrow, "c") == column_kind(pd.Series(values, dtype=object), "c")


@pytest.mark.parametrize("values", [["b", None, "a", "b", "é", "", "e\u0301", "z"], [None, None], [], ["x"] * 3])
def test_arrow_strings_are_encoded_as_object_strings_are(values: list[str | None]) -> None:
    """Arrow strings are coded by sorting (not hashing); the codes and values are the same."""
    codes, distinct = dictionary_encode(pd.Series(values, dtype=pd.StringDtype("pyarrow")), "text")
    expected_codes, expected = dictionary_encode(pd.Series(values, dtype=object), "text")
    assert codes.tolist() == expected_codes.tolist() and distinct == expected


@pytest.mark.parametrize("numbers", [[3.0, 1.0, 2.0, 3.0], [-0.0, 0.0, 5.0], [1.5, 2.0], [float("inf"), 1.0], [],
                                     [1e12, 1.0], [2.0**53, 2.0**53 - 1], [-3.0, -7.0], [1e19, 1e19],
                                     [float(n % 97 - 40) for n in range(1000)]])
def test_whole_numbers_are_coded_as_sorting_codes_them(numbers: list[float]) -> None:
    """Whole numbers in a small range are coded by marking the values present; the same as np.unique."""
    values = np.array(numbers, dtype=np.float64)
    distinct, expected = np.unique(values, return_inverse=True)
    codes, found = dictionary_encode(pd.Series(values), "number")
    assert codes.tolist() == expected.tolist()
    assert found == [int(v) if float(v).is_integer() else round(v, 6) for v in distinct.tolist()]
    assert [type(v) for v in found] == [int if float(v).is_integer() else float for v in distinct.tolist()]


def test_a_failed_write_leaves_the_previous_files(tmp_path: Path) -> None:
    split = utils.load("wow", "valid_seen")
    rows = split_rows(split)
    target = tmp_path / "wow" / "valid_seen"
    write_split(target, split, rows, render=lambda d: "<p>x</p>", meta={})
    before = sorted(p.name for p in target.iterdir())

    def broken(dialogue: Any) -> str:
        raise RuntimeError("renderer failed")

    with pytest.raises(RuntimeError, match="renderer failed"):
        write_split(target, split, rows, render=broken, meta={})
    assert sorted(p.name for p in target.iterdir()) == before
    assert not list((tmp_path / "wow").glob("*.writing"))


def test_rows_made_by_a_function_write_the_same_files_and_are_let_go(tmp_path: Path) -> None:
    from utils.book.render import render_dialogue

    split = utils.load("wow", "valid_seen")
    rows = split_rows(split, label_keys=("checked_source",))
    meta = {"dataset": "wow", "split": "valid_seen"}
    write_split(tmp_path / "given", split, rows, render=render_dialogue, meta=meta)
    assert set(rows.frames) == {"dialogues", "turns", "evidence"}  # the caller's rows are left whole
    made = []

    def rows_of() -> Any:
        made.append(split_rows(split, label_keys=("checked_source",)))
        return made[-1]

    write_split(tmp_path / "made", split, rows_of, render=render_dialogue, meta=lambda made_rows: dict(meta))
    assert made and made[0].frames == {}  # each level's frame let go once written
    files = sorted(p.name for p in (tmp_path / "given").iterdir())
    assert files == sorted(p.name for p in (tmp_path / "made").iterdir())
    assert any(name.startswith("html-") for name in files)
    for name in files:
        assert (tmp_path / "given" / name).read_bytes() == (tmp_path / "made" / name).read_bytes(), name


def test_the_renderings_are_written_after_the_levels(tmp_path: Path) -> None:
    """What rendering holds (the renderer's caches, the fragments' codes) must not sit beside the
    evidence level while it is coded, the peak of a full-size split's files (issue 50, item 10)."""
    split = utils.load("wow", "valid_seen")
    target = tmp_path / "wow" / "valid_seen"
    present_at_first_render: list[list[str]] = []

    def render(dialogue: Any) -> str:
        if not present_at_first_render:
            present_at_first_render.append(sorted(p.name for p in target.with_name("valid_seen.writing").iterdir()))
        return "<p>x</p>"

    write_split(target, split, lambda: split_rows(split), render=render, meta={})
    levels = [name.split("-")[0] for name in present_at_first_render[0]]
    assert {"dialogues", "turns", "evidence"} <= set(levels)
    assert not any(name.startswith("html-") for name in present_at_first_render[0])


def test_kilt_examples_are_grouped_into_their_dialogues(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kilt = utils.load("wow_kilt", "dev")
    monkeypatch.setenv("ATLAS_VIEWER_DIR", str(tmp_path))
    chapter_view({"dev": kilt})
    dialogues = read_level(tmp_path / "wow_kilt" / "dev", "dialogues")
    groups = {d.meta["wow_dialogue_id"] for d in kilt}
    assert len(dialogues) == len(groups) < len(kilt)
    assert sorted(dialogues["id"]) == sorted(groups)
    assert dialogues["KILT examples"].sum() == len(kilt)
    longest = {}
    for d in kilt:
        key = d.meta["wow_dialogue_id"]
        longest[key] = max(longest.get(key, 0), len(d.turns))
    turns = read_level(tmp_path / "wow_kilt" / "dev", "turns")
    assert len(turns) == sum(longest.values())  # no turn counted twice
    manifest = json.loads((tmp_path / "wow_kilt" / "dev" / "manifest.json").read_text())
    assert f"{len(kilt):,} examples are prefixes of {len(groups):,} dialogues" in manifest["note"]


def test_the_search_text_holds_ids_and_english_glosses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from utils.book.glosses import english
    from utils.datasets.wise import render as wise_render

    split = utils.load("wise", "train")
    glosses = wise_render.demo_glosses()
    monkeypatch.setenv("ATLAS_VIEWER_DIR", str(tmp_path))
    chapter_view({"train": split}, glosses=glosses)
    dialogues = read_level(tmp_path / "wise" / "train", "dialogues")
    turns = read_level(tmp_path / "wise" / "train", "turns")
    first = split[0]
    assert str(first.id) in dialogues[SEARCH][0]
    glossed = [english(turn.text, glosses) for turn in first.turns if english(turn.text, glosses)]
    assert glossed, "the demo sample's first conversation has glosses"
    assert glossed[0] in " ".join(turns["text (English)"].dropna())


def test_a_publication_withholds_the_rows_its_licences_do_not_allow(tmp_path: Path) -> None:
    from atlas_book import _withhold_unlicensed

    from utils.loading import DEMO, OFFICIAL
    from utils.sources import registry

    SOURCES = registry()
    closed = next(name for name, source in SOURCES.items() if not source.redistributable)
    opened = next(name for name, source in SOURCES.items() if source.redistributable)
    # a split folder named after its kind; the manifest says the kind as the build writes it (DEMO is "demo sample")
    for dataset, kind in ((closed, OFFICIAL), (opened, OFFICIAL), (closed, DEMO)):
        split = tmp_path / dataset / kind.split()[0]
        split.mkdir(parents=True)
        (split / "manifest.json").write_text(json.dumps({"kind": kind}))
        (split / "turns-0000.json.gz").write_bytes(b"rows")
    assert _withhold_unlicensed(tmp_path) == [f"{closed}/official"]
    assert sorted(p.name for p in (tmp_path / closed / "official").iterdir()) == ["withheld.json"]
    reason = json.loads((tmp_path / closed / "official" / "withheld.json").read_text())
    assert reason["reason"] == SOURCES[closed].redistribution
    assert (tmp_path / opened / "official" / "turns-0000.json.gz").is_file()
    assert (tmp_path / closed / "demo" / "turns-0000.json.gz").is_file()  # the atlas's own samples


def test_every_dataset_records_its_redistribution_decision() -> None:
    from utils.sources import datasets_table, registry

    for source in registry().values():
        assert source.redistribution.strip(), source.name
    table = datasets_table()
    assert table["rows published"].str.match(r"^(yes|no): ").all()


def test_viewer_script_inserts_markup_only_from_the_renderings_and_talks_only_to_the_site() -> None:
    import re

    static = REPO / "book" / "_static"
    # the loader and the modules it imports
    files = [static / "viewer.js", *sorted((static / "viewer").glob("*.js"))]
    script = "\n".join(path.read_text(encoding="utf-8") for path in files)
    # the note for a page opened from disk names the local server to start: the one address allowed
    script = script.replace("http://localhost:8000/", "")
    code = re.sub(r"/\*.*?\*/|//[^\n]*", "", script, flags=re.S)
    for forbidden in ("eval(", "new Function", "document.write", "insertAdjacentHTML", "outerHTML", "http:", "https:"):
        assert forbidden not in code
    assert re.findall(r"\w*\.innerHTML\s*=\s*[^;]+", code) == ["view.innerHTML = rendering"]
    # every address it fetches, imports or starts a worker from is under the site's own root
    for call in re.findall(r"(?:fetch|fetchJson|fetchBytes|fetchManifest|import|Worker|loadScript)\(([^)]*)\)", code):
        start = call.split("+")[0].split(",")[0].strip()
        assert start in ("siteRoot", "this.siteRoot", "base", "column.base", "url", ""), call


def test_a_list_of_dialogues_gives_the_rows_of_the_loaded_split() -> None:
    split = utils.load("wow", "valid_seen")
    loaded = split_rows(split, label_keys=("checked_source",))
    listed = split_rows(list(split), label_keys=("checked_source",))
    for level in ("dialogues", "turns", "evidence"):
        # a loaded split's evidence holds its repeated texts as categories: the same values
        pd.testing.assert_frame_equal(_values(loaded.frames[level]), _values(listed.frames[level]), check_dtype=False)


def _values(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.reset_index(drop=True).astype(object)
    return frame.where(frame.notna(), None)


def test_the_evidence_level_written_from_categories_is_the_one_written_from_records(tmp_path: Path) -> None:
    split = utils.load("wow", "valid_seen")
    loaded = split_rows(split).frames["evidence"]
    listed = split_rows(list(split)).frames["evidence"]
    assert isinstance(loaded["text"].dtype, pd.CategoricalDtype)
    kinds = {"text": "text", "title": "text"}
    for name, frame in (("loaded", loaded), ("listed", listed)):
        (tmp_path / name).mkdir()
        entry = write_level(frame, tmp_path / name, "evidence", id_column="dialogue id", kinds=kinds)
        manifest = {"levels": {"evidence": entry}}
        (tmp_path / name / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert [file.read_bytes() for file in sorted((tmp_path / "loaded").iterdir())] == [
        file.read_bytes() for file in sorted((tmp_path / "listed").iterdir())
    ]


def test_english_glosses_of_categories_are_the_glosses_of_every_row(tmp_path: Path) -> None:
    from utils.book.glosses import english, gloss_key
    from utils.datasets.wise import render as wise_render

    split = utils.load("wise", "train")
    glosses = wise_render.demo_glosses()
    # a gloss of every passage text (each distinct text once on the loaded split, row by row on the list)
    texts = {item.text for dialogue in split for turn in dialogue.turns for item in turn.evidence if item.text}
    assert texts
    glosses = {**glosses, **{gloss_key(text): f"gloss {k % 3}" for k, text in enumerate(sorted(texts)) if k % 4}}

    def gloss(text: str | None) -> str | None:
        return english(text, glosses)

    loaded = split_rows(split, english=gloss).frames["evidence"]
    listed = split_rows(list(split), english=gloss).frames["evidence"]
    assert isinstance(loaded["text (English)"].dtype, pd.CategoricalDtype)
    assert loaded["text (English)"].notna().any() and loaded["text (English)"].isna().any()
    pd.testing.assert_frame_equal(_values(loaded), _values(listed), check_dtype=False)
    for name, frame in (("loaded", loaded), ("listed", listed)):
        (tmp_path / name).mkdir()
        write_level(frame, tmp_path / name, "evidence", id_column="dialogue id", kinds={"text": "text"})
    assert [file.read_bytes() for file in sorted((tmp_path / "loaded").iterdir())] == [
        file.read_bytes() for file in sorted((tmp_path / "listed").iterdir())
    ]


@pytest.mark.parametrize("dtype", ["str", "string[pyarrow]", "string[python]"])
def test_arrow_backed_strings_encode_as_python_strings_do(dtype: str) -> None:
    from utils.book.viewer_files import dictionary_encode

    # Encoded in Arrow (sorted by UTF-8 bytes), they must give the codes and order of Python's sort.
    values = ["b", None, "a", "\u00e9", "b", "Z", "\U0001f600", "\u00e9a", "\uff21", "", "a b"]
    codes, distinct = dictionary_encode(pd.Series(values, dtype=dtype), "text")
    expected_codes, expected = dictionary_encode(pd.Series(values, dtype=object), "text")
    assert distinct == expected == sorted({value for value in values if value is not None})
    assert codes.tolist() == expected_codes.tolist()
    assert codes[1] == len(distinct)  # the missing value's code


@pytest.mark.parametrize("chunks", [[["b", None, "a"], ["c", "a", "\u00e9"], []], [[None, None]], [[]], []])
def test_arrow_strings_in_chunks_encode_as_python_strings_do(chunks: list[list[str | None]]) -> None:
    import pyarrow as pa

    from utils.book.viewer_files import _encode_arrow_strings

    values = [value for chunk in chunks for value in chunk]
    missing = np.array([value is None for value in values], dtype=bool)
    strings = pa.chunked_array([pa.array(chunk, pa.large_string()) for chunk in chunks], pa.large_string())
    codes, distinct = _encode_arrow_strings(strings, missing)
    expected = sorted({value for value in values if value is not None})
    assert distinct.to_pylist() == expected
    assert codes.tolist() == [expected.index(value) for value in values if value is not None]


def test_arrow_strings_values_read_in_slices_and_their_lengths_are_those_of_the_list() -> None:
    """The distinct values stay in the column's chunks: any slice of them, and the rows' length statistics,
    are what the sorted list gives."""
    import pyarrow as pa

    from utils.book.viewer_files import _encode_arrow_strings, _length_statistics

    chunks = [["k3", None, "a10", "\u00e9"], [], ["b", "k3", "a10"], [None], ["zz", "", "b", "a"]]
    values = [value for chunk in chunks for value in chunk]
    missing = np.array([value is None for value in values], dtype=bool)
    codes, distinct = _encode_arrow_strings(pa.chunked_array([pa.array(c, pa.string()) for c in chunks]), missing)
    expected = sorted({value for value in values if value is not None})
    assert len(distinct) == len(expected)
    for start, stop in [(0, 3), (2, 5), (5, 99), (4, 4), (0, None)]:
        assert distinct[start:stop].to_pylist() == expected[start:stop]
    full = np.full(len(values), len(expected))
    full[~missing] = codes
    assert _length_statistics(full, distinct) == _length_statistics(full, expected)


@pytest.mark.parametrize("flags", [[True, False, True], [True, True], [False], []])
def test_boolean_columns_encode_as_their_words_do(flags: list[bool]) -> None:
    from utils.book.viewer_files import dictionary_encode

    codes, values = dictionary_encode(pd.Series(flags, dtype=bool), "label")
    expected_codes, expected = dictionary_encode(pd.Series(flags, dtype=object), "label")
    assert (codes.tolist(), values) == (expected_codes.tolist(), expected)
    assert values == sorted({"true" if flag else "false" for flag in flags})


def test_outside_a_book_build_no_viewer_is_offered(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    split = utils.load("wow", "valid_seen")
    monkeypatch.delenv("ATLAS_VIEWER_DIR", raising=False)
    markup = str(chapter_view({"valid_seen": split}))
    assert 'class="atlas-viewer' not in markup and "<script" not in markup
    monkeypatch.setenv("ATLAS_VIEWER_DIR", str(tmp_path))
    markup = str(chapter_view({"valid_seen": split}))
    # the chapter's compact view, opening the dataset's viewer page
    assert 'class="atlas-viewer atlas-viewer-compact" data-viewer-page="book/viewer/wow.html"' in markup
    assert '"path":"_viewer/wow/valid_seen/"' in markup
    assert (tmp_path / "wow" / "valid_seen" / "manifest.json").is_file()


def test_a_build_keeps_the_files_of_chapters_it_does_not_execute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from types import SimpleNamespace

    from atlas_book import _start_viewer

    kept = tmp_path / "_viewer" / "wow" / "train" / "manifest.json"
    kept.parent.mkdir(parents=True)
    kept.write_text("{}")
    monkeypatch.delenv("ATLAS_VIEWER_DIR", raising=False)
    _start_viewer(SimpleNamespace(outdir=str(tmp_path), builder=SimpleNamespace(format="html")))
    assert kept.is_file()
    import os

    assert os.environ["ATLAS_VIEWER_DIR"] == str(tmp_path / "_viewer")


def test_column_notes_name_columns_the_viewer_shows_and_reach_the_manifest(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A dataset's ``COLUMN_NOTES`` (what a column's statistics count) name columns of its rows, and the
    manifest the viewer reads carries them (JWHR's length columns, whose panels seemed to contradict the
    text columns')."""
    import warnings

    from utils.book.render.chapter_view import viewer_rows
    from utils.book.viewer_fields import column_notes
    from utils.book.viewer_files import VIEWER_DIR_VARIABLE
    from utils.sources import registry

    assert "answer length (characters)" in column_notes("jwhr")
    for name, source in registry().items():
        notes = column_notes(name)
        if not notes:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", utils.DemoDataWarning)
            split = utils.load(name, next(iter(source.splits)))
        rows = viewer_rows(list(split))
        shown = {column for frame in rows.frames.values() for column in frame.columns}
        assert set(notes) <= shown, f"{name}: notes of columns it does not show: {set(notes) - shown}"
    monkeypatch.setenv(VIEWER_DIR_VARIABLE, str(tmp_path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", utils.DemoDataWarning)
        chapter_view({"answered": utils.load("jwhr", "answered")})
    manifest = json.loads((tmp_path / "jwhr" / "answered" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["column_notes"] == column_notes("jwhr")
