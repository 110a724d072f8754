"""A record carries its source: every dialogue a split hands out holds the declaration it was loaded
from, so that what reads records (renderers, viewer hooks, counts) asks the record, not the registry.

The name stays the record's serialised form: the cache stores it, equality ignores the declaration, a
pickle holds a registered declaration by its name and brings back the registry's own object. A look-up
by name is counted through :func:`utils.sources.discovered`, which every one of them goes through
(:func:`~utils.sources.get_source`, :func:`~utils.sources.registry`).
"""

from __future__ import annotations

import dataclasses
import json
import pickle
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_adding_a_dataset import toy
from test_adding_a_second_dataset import toy_qa

import utils
import utils.sources
from utils.book.cross_dataset import grounding_f1
from utils.book.render import render_dialogue
from utils.book.render.chapter_view import viewer_link
from utils.book.viewer_fields import columns, facets, search_words
from utils.cli import dialogue_renderable
from utils.cli.split_stats import evidence_counts, label_counts, role_counts
from utils.loading import parse_file
from utils.records import Dialogue
from utils.sources import dataset_names, get_source, source_of

__all__ = ["toy", "toy_qa"]  # the toy datasets' fixtures, used here by name


def _first_demo_splits() -> list[tuple[str, str]]:
    """Each dataset's first split that has a demo sample (what ``utils.load`` gives with no data)."""
    found = []
    for dataset in dataset_names():
        source = get_source(dataset)
        for split, files in source.splits.items():
            if (source.demo_dir / files[0].path).is_file():
                found.append((dataset, split))
                break
    return found


def _every_way(split: utils.LoadedSplit) -> list[Dialogue]:
    """The split's dialogues read by iteration, indexing and slicing."""
    return [*split, split[0], split[-1], *split[0:2], *split[::2]]


@pytest.mark.parametrize(("fixture", "dataset", "split"), [("toy", "toy", "train"), ("toy_qa", "toy_qa", "test")])
def test_a_toy_record_carries_the_declaration_it_was_loaded_from(
    fixture: str, dataset: str, split: str, request: pytest.FixtureRequest
) -> None:
    path = request.getfixturevalue(fixture)
    source = get_source(dataset)
    loaded = utils.load(dataset, split)
    assert loaded.source is source
    assert all(dialogue.source is source for dialogue in _every_way(loaded))
    assert all(dialogue.source is source for dialogue in parse_file(dataset, path, split))
    assert all(source_of(dialogue) is source for dialogue in loaded)


@pytest.mark.parametrize(("dataset", "split"), _first_demo_splits())
def test_a_demo_record_carries_the_declaration_it_was_loaded_from(dataset: str, split: str) -> None:
    loaded = utils.load(dataset, split)
    assert loaded.provenance.is_demo
    assert all(dialogue.source is get_source(dataset) for dialogue in _every_way(loaded))


def test_the_declaration_is_taken_from_the_split_it_was_loaded_through(monkeypatch: pytest.MonkeyPatch) -> None:
    """A declaration replaced in the registry (as a test or a plugin may) is the one the records carry."""
    dataset, split = _first_demo_splits()[0]
    replaced = get_source(dataset).replace(title="Another title")
    monkeypatch.setitem(utils.sources.registry(), dataset, replaced)  # type: ignore[index]
    assert {id(dialogue.source) for dialogue in utils.load(dataset, split)} == {id(replaced)}


def test_a_record_built_by_hand_is_looked_up_by_its_name() -> None:
    dataset, _ = _first_demo_splits()[0]
    dialogue = Dialogue("d1", dataset, "train", [])
    assert dialogue.source is None and source_of(dialogue) is get_source(dataset)


def test_the_declaration_changes_neither_equality_nor_repr_nor_the_fields_of_a_record() -> None:
    dataset, split = _first_demo_splits()[0]
    loaded = utils.load(dataset, split)[0]
    bare = dataclasses.replace(loaded)  # the fields alone: a copy without the declaration
    assert bare.source is None and loaded.source is get_source(dataset)
    assert loaded == bare and repr(loaded) == repr(bare)
    assert [item.name for item in dataclasses.fields(Dialogue)] == ["id", "dataset", "split", "turns", "topic", "meta"]
    assert json.dumps(dataclasses.asdict(loaded)) == json.dumps(dataclasses.asdict(bare))


def test_a_pickled_record_brings_back_the_registered_declaration() -> None:
    dataset, split = _first_demo_splits()[0]
    loaded = utils.load(dataset, split)[0]
    pickled = pickle.dumps(loaded)
    back = pickle.loads(pickled)
    assert back == loaded and back.source is get_source(dataset)  # the registry's own, not a copy
    # the declaration travels as its name: a few dozen bytes, not the declaration's several thousand
    assert len(pickled) - len(pickle.dumps(dataclasses.replace(loaded))) < 100
    unregistered = dataclasses.replace(loaded)
    unregistered.source = get_source(dataset).replace(title="Not registered")
    restored = pickle.loads(pickle.dumps(unregistered)).source
    assert restored is not None and restored.title == "Not registered"  # pickled whole


@pytest.fixture
def look_ups(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Callable[[], Any]], int]]:
    """Count the look-ups by name (of the registry) made while a function runs."""
    with monkeypatch.context() as patch:  # undone before the toy fixtures clear the real one's cache

        def counting(run: Callable[[], Any]) -> int:
            calls = []
            real = utils.sources.discovered

            def counted() -> Any:
                calls.append(1)
                return real()

            patch.setattr(utils.sources, "discovered", counted)
            try:
                run()
            finally:
                patch.setattr(utils.sources, "discovered", real)
            return len(calls)

        yield counting


@pytest.mark.parametrize(("dataset", "split"), _first_demo_splits())
def test_reading_records_looks_nothing_up_by_name(
    dataset: str, split: str, look_ups: Callable[[Callable[[], Any]], int]
) -> None:
    loaded = utils.load(dataset, split)
    dialogues = list(loaded)[:20]
    assert look_ups(lambda: list(loaded)) == 0
    assert look_ups(lambda: (label_counts(loaded), role_counts(loaded), evidence_counts(loaded))) == 0
    assert look_ups(lambda: grounding_f1(loaded)) == 0  # the split's language, from the split's declaration
    assert look_ups(lambda: [render_dialogue(dialogue) for dialogue in dialogues]) == 0
    assert look_ups(lambda: [(facets(d), columns(d), search_words(d), viewer_link(d)) for d in dialogues]) == 0
    assert look_ups(lambda: [dialogue_renderable(d, i, len(dialogues)) for i, d in enumerate(dialogues)]) == 0


def test_the_toy_datasets_are_read_without_a_look_up_by_name(
    toy: Path, toy_qa: Path, look_ups: Callable[[Callable[[], Any]], int]
) -> None:
    for dataset, split in (("toy", "train"), ("toy_qa", "test")):
        loaded = utils.load(dataset, split)
        assert look_ups(lambda loaded=loaded: [render_dialogue(dialogue) for dialogue in loaded]) == 0
        assert look_ups(lambda loaded=loaded: label_counts(loaded)) == 0
