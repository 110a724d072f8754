"""The knowledge-selection check's view of a split (:func:`selection_turns`), against one built from the
rebuilt records, and the spellings a turn accepts (:class:`ShownChoices`) against the dict they replace.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pandas as pd
import pytest

import utils
from conftest import load_written, require_real_file
from utils.datasets.wow import baselines, stats
from utils.datasets.wow.exercises import (
    NO_PASSAGE_CHOICE,
    ShownChoices,
    check_knowledge_selection,
    selection_turns,
)
from utils.datasets.wow.parser import NO_PASSAGES_USED


def _spellings_as_a_dict(texts: list[str], titles: list[str]) -> dict[str, str]:
    """The accepted spellings as the check held them before, a dict per turn: first spelling wins."""
    choices = {NO_PASSAGE_CHOICE: "", baselines.NO_PASSAGE_CANDIDATE: ""}
    for text, title in zip(texts, titles, strict=True):
        choices.setdefault(text, text)
        choices.setdefault(f"{title} {text}", text)
    return choices


@pytest.mark.parametrize(
    ("texts", "titles"),
    [
        (["Tea is a drink.", "Tea grows in Asia."], ["Tea", "Tea"]),
        ([], []),
        # a text that is another row's ParlAI spelling, and two pairs spelling one candidate
        (["Tea is a drink.", "Tea Tea is a drink.", "C", "B C"], ["Tea", "Cup", "A B", "A"]),
        # a sentence shown twice, an empty title, a title with a space at its end
        (["Same.", "Same.", "x", "y"], ["P", "Q", "", "T "]),
    ],
)
def test_shown_choices_are_the_dict_they_replace(texts: list[str], titles: list[str]) -> None:
    expected = _spellings_as_a_dict(texts, titles)
    shown = ShownChoices(texts, titles)
    assert dict(shown) == expected
    assert list(shown) == list(expected) and len(shown) == len(expected)
    for spelling, candidate in expected.items():
        assert spelling in shown and shown[spelling] == candidate
    for stranger in ("Tea", "Tea  Tea is a drink.", "A B  C", "", " Same.", 1, None, ("Tea",), ["x", "y"]):
        assert stranger not in shown
        with pytest.raises(KeyError):
            shown[stranger]  # type: ignore[index]


def test_shown_choices_need_a_title_per_text_and_show_their_spellings() -> None:
    with pytest.raises(ValueError, match="2 texts but 1 titles"):
        ShownChoices(["a", "b"], ["T"])
    assert repr(ShownChoices(["x"], ["T"])) == (
        "ShownChoices({'no_passages_used': '', 'no_passages_used no_passages_used': '', 'x': 'x', 'T x': 'x'})"
    )


def _selection_turns_from_records(split: utils.LoadedSplit) -> dict[tuple[str, int], tuple[dict[str, str], set[str]]]:
    """What the check accepts and counts as right at each ParlAI example, from the rebuilt dialogues."""
    examples = stats.wizard_turns(split)
    keys = set(zip(examples.loc[examples["parlai_example"], "dialogue_id"],
                   examples.loc[examples["parlai_example"], "turn_index"].astype(int), strict=True))
    turns = {}
    for dialogue in split:
        for turn in dialogue.turns:
            if (dialogue.id, turn.index) not in keys:
                continue
            texts = [item.text for item in turn.evidence]
            checked = {""} if turn.labels.get("checked_source") == [NO_PASSAGES_USED] else set()
            checked |= {item.text for item in turn.evidence if item.selected}
            turns[dialogue.id, turn.index] = (
                _spellings_as_a_dict(texts, [item.title or "" for item in turn.evidence]), checked
            )
    return turns


def _assert_same_turns(split: utils.LoadedSplit) -> None:
    found = selection_turns(split)
    expected = _selection_turns_from_records(split)
    assert sorted(found) == sorted(expected)
    for key, turn in found.items():
        assert dict(turn.choices) == expected[key][0], key
        assert turn.checked == expected[key][1], key


def test_selection_turns_of_the_demo_splits_match_the_records() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", utils.DemoDataWarning)
        for name in ("train", "valid_seen", "valid_unseen", "test_seen", "test_unseen"):
            _assert_same_turns(utils.load("wow", name))


def test_a_split_s_candidate_table_is_built_once_and_each_caller_gets_its_own_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from utils.datasets.wow import exercises

    built = []
    build = exercises._candidate_table
    monkeypatch.setattr(exercises, "_candidate_table", lambda split: built.append(split) or build(split))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", utils.DemoDataWarning)
        seen, unseen = utils.load("wow", "valid_seen"), utils.load("wow", "valid_unseen")
    first = exercises.candidate_table(unseen)
    fresh = build(unseen)
    pd.testing.assert_frame_equal(first, fresh[list(first.columns)])
    first["text"] = "changed"  # a caller's change stays in its frame (pandas copies on write)
    first.loc[0, "right"] = not bool(fresh.loc[0, "right"])
    inputs = exercises.candidate_table(unseen, labels=False)
    pd.testing.assert_frame_equal(inputs, fresh[list(inputs.columns)])
    assert exercises.candidate_table(unseen).equals(fresh[list(first.columns)])
    assert built == [unseen]
    exercises.candidate_table(seen)
    exercises.candidate_table(unseen)
    assert built == [unseen, seen, unseen]  # one split's table at a time


def test_a_split_showing_no_evidence_leaves_only_no_passage_used(tmp_path: Path) -> None:
    dialogue = {
        "chosen_topic": "Tea",
        "persona": "",
        "wizard_eval": 5,
        "chosen_topic_passage": [],
        "dialog": [
            {"speaker": "0_Apprentice", "text": "Hello", "retrieved_passages": []},
            {
                "speaker": "1_Wizard",
                "text": "Hi there.",
                "checked_sentence": {"no_passages_used": "no_passages_used"},
                "checked_passage": {"no_passages_used": "no_passages_used"},
                "retrieved_passages": [],
            },
        ],
    }
    split = load_written("wow", "valid_seen", json.dumps([dialogue]), tmp_path)
    assert len(split.evidence()) == 0
    turns = selection_turns(split)
    assert {key: (dict(turn.choices), turn.checked) for key, turn in turns.items()} == {
        ("valid_seen/0", 1): ({NO_PASSAGE_CHOICE: "", baselines.NO_PASSAGE_CANDIDATE: ""}, frozenset({""}))
    }
    _assert_same_turns(split)


def test_a_split_of_no_dialogues_is_told_to_the_student(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    split = load_written("wow", "valid_seen", "[]", tmp_path)
    assert split.turns()["labels"].dtype == object  # not pandas' float for an empty column
    assert len(stats.wizard_turns(split)) == 0 and selection_turns(split) == {}
    check_knowledge_selection({}, 0.0, split)  # a practice check prints its verdict
    assert capsys.readouterr().out.strip() == (
        "Not yet: knowledge selection: the split passed holds no wizard examples; do not rebind its name."
    )


def test_a_turn_whose_rows_are_not_consecutive_keeps_them_all(monkeypatch: pytest.MonkeyPatch) -> None:
    # The loader's table is in turn order; the check does not rely on it. Here the evidence frame is
    # reordered so that every turn's rows come in two runs, apart, each run in its own order.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", utils.DemoDataWarning)
        split = utils.load("wow", "valid_unseen")
    evidence = split.evidence
    def interleaved(columns: list[str] | None = None) -> pd.DataFrame:
        frame = evidence(columns)
        half = frame.groupby(["dialogue_id", "turn_index"]).cumcount() % 2  # 0, 1, 0, 1 within a turn
        return pd.concat([frame[half == 0], frame[half == 1]]).sort_values("dialogue_id", kind="stable")
    reordered = interleaved(["dialogue_id", "turn_index", "text"])
    assert not reordered.index.is_monotonic_increasing
    monkeypatch.setattr(split, "evidence", interleaved)
    found = selection_turns(split)
    expected = _selection_turns_from_records(split)
    assert sorted(found) == sorted(expected)
    for key, turn in found.items():
        texts = dict(turn.choices)  # the texts of the first run, then of the second
        assert set(texts) == set(expected[key][0]), key
        assert turn.checked == expected[key][1], key


@pytest.mark.realdata
def test_selection_turns_of_the_real_train_sample_match_the_records(real_data_dir: Path) -> None:
    require_real_file(real_data_dir, "wow/raw/train_sample.json")
    _assert_same_turns(utils.load("wow", "train"))
