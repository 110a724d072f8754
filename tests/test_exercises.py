"""The exercise checkers: each accepts the right answer and rejects a wrong one with a useful message.

The dialogues here are invented in code (so the expected values can be worked out by hand below);
the chapters' own solutions run against the loaded splits in the notebook tests.
"""

from __future__ import annotations

import contextlib
import io
import re

import numpy as np
import pandas as pd
import pytest

from utils.datasets.faithdial import exercises as faithdial_ex
from utils.records import SEEKER, WIZARD, Dialogue, Evidence, Turn
from utils.teaching import exercises as ex


def _turn(index: int, role: str, text: str, *, selected=(), shown=(), labels=None, raw=None) -> Turn:
    evidence = [Evidence(f"s{index}-{i}", body, "T", origin, True) for i, (origin, body) in enumerate(selected)]
    evidence += [Evidence(f"n{index}-{i}", body, "T", origin, False) for i, (origin, body) in enumerate(shown)]
    return Turn(index, role, role.title(), text, evidence, labels or {}, raw or {})


@pytest.fixture
def dialogues() -> list[Dialogue]:
    """Two dialogues: 3 wizard turns (2 select evidence), 2 seeker turns, 5 turns in all."""
    first = Dialogue(
        "d1",
        "wow",
        "fixture",
        [
            _turn(0, SEEKER, "tell me about cats"),
            _turn(
                1,
                WIZARD,
                "cats are small furry animals",
                selected=[("topic", "cats are small animals")],
                shown=[("retrieved", "dogs bark")],
                labels={"action": ["Answer"], "BEGIN": ["Entailment"]},
                raw={"original_response": "cats are very small furry animals indeed"},
            ),
            _turn(2, SEEKER, "and dogs?"),
            _turn(
                3,
                WIZARD,
                "I do not know",
                shown=[("topic", "cats purr")],
                labels={"action": ["Clarify", "Choice"], "BEGIN": ["Hallucination", "Entailment"]},
            ),
        ],
        topic="Cat",
    )
    second = Dialogue(
        "d2",
        "wow",
        "fixture",
        [
            _turn(
                0,
                WIZARD,
                "dogs bark loudly",
                selected=[("retrieved", "dogs bark"), ("retrieved", "dogs howl")],
                labels={"action": ["Answer"], "BEGIN": ["Entailment"]},
                raw={"original_response": "dogs bark"},
            )
        ],
        topic="Dog",
    )
    return [first, second]


def _fails(call, *fragments: str, forbidden: tuple[float, ...] = ()) -> str:
    """Run a checker that must fail: it prints one "Not yet" line (it never raises) holding ``fragments``
    and no forbidden value, and never says in which direction the answer is off."""
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        assert call() is None
    message = printed.getvalue()
    assert message.startswith("Not yet") and message.count("\n") == 1, message
    assert "too high" not in message and "too low" not in message, message
    for fragment in fragments:
        assert fragment.lower() in message.lower(), message
    for value in forbidden:
        for shown in {f"{value}", f"{value:g}", f"{value:.2f}", f"{value:.3f}"}:
            assert not re.search(rf"(?<![\d.]){re.escape(shown)}(?![\d])", message), (shown, message)
    return message


def test_turn_count(dialogues, capsys):
    ex.check_turn_count(3, dialogues, role=WIZARD)
    ex.check_turn_count(np.int64(3), dialogues)
    ex.check_turn_count(2, dialogues, role=SEEKER)
    ex.check_turn_count(5, dialogues, role=None)
    assert capsys.readouterr().out.count("Correct") == 4
    _fails(lambda: ex.check_turn_count(5, dialogues), "all turns")
    _fails(lambda: ex.check_turn_count(2, dialogues), "seeker")
    _fails(lambda: ex.check_turn_count(7, dialogues), "re-read the task", forbidden=(3,))
    _fails(lambda: ex.check_turn_count(3.5, dialogues), "whole number")
    _fails(lambda: ex.check_turn_count(None, dialogues), "empty")
    _fails(lambda: ex.check_turn_count([1, 2, 3], dialogues), "single number", "len()")
    _fails(lambda: ex.check_turn_count("3", dialogues), "single number")


def test_wrong_data_argument_is_explained(dialogues):
    _fails(lambda: ex.check_turn_count(3, 42), "loaded split")
    _fails(lambda: ex.check_turn_count(3, ["a", "b"]), "loaded split")
    with pytest.raises(ValueError, match="role"):
        ex.check_turn_count(3, dialogues, role="apprentice")


def test_mean_turns(dialogues, capsys):
    ex.check_mean_turns(2.5, dialogues)
    ex.check_mean_turns(np.mean([4, 1]), dialogues)
    assert "Correct" in capsys.readouterr().out
    _fails(lambda: ex.check_mean_turns(5, dialogues), "total", forbidden=(2.5,))
    _fails(lambda: ex.check_mean_turns(1.5, dialogues), "wizard turns only", forbidden=(2.5,))
    _fails(lambda: ex.check_mean_turns(3.0, dialogues), "which split", forbidden=(2.5,))


def test_selected_share(dialogues, capsys):
    ex.check_selected_share(2 / 3, dialogues)
    ex.check_selected_share(1 / 3, dialogues, without=True)
    assert capsys.readouterr().out.count("Correct") == 2
    _fails(lambda: ex.check_selected_share(200 / 3, dialogues), "percentage", forbidden=(2 / 3,))
    _fails(lambda: ex.check_selected_share(1 / 3, dialogues), "opposite")
    _fails(lambda: ex.check_selected_share(2 / 5, dialogues), "wizard turns only")
    _fails(lambda: ex.check_selected_share(1.5, dialogues), "between 0 and 1")
    _fails(lambda: ex.check_selected_share(float("nan"), dialogues), "NaN")


def test_mean_evidence(dialogues):
    ex.check_mean_evidence(2.5, dialogues)  # 5 pieces, 2 dialogues
    ex.check_mean_evidence(1.0, dialogues, origin="topic")
    ex.check_mean_evidence(5 / 3, dialogues, per="wizard turn")
    _fails(lambda: ex.check_mean_evidence(1.5, dialogues), "selected", forbidden=(2.5,))
    _fails(lambda: ex.check_mean_evidence(5, dialogues), "divide", forbidden=(2.5,))
    with pytest.raises(ValueError):
        ex.check_mean_evidence(1, dialogues, per="turn")


def test_label_counts(dialogues):
    right = {"Answer": 2, "Clarify": 1, "Choice": 1}
    ex.check_label_counts(right, dialogues, "action")
    ex.check_label_counts(pd.Series(right), dialogues, "action")
    ex.check_label_counts(pd.Series(right).rename("n").to_frame(), dialogues, "action")
    ex.check_label_counts({"Entailment": 3, "Hallucination": 1}, dialogues, "BEGIN")
    _fails(lambda: ex.check_label_counts({"Answer": 2, "Clarify": 1}, dialogues, "action"), "missing", "'Choice'")
    _fails(lambda: ex.check_label_counts({**right, "answer": 1}, dialogues, "action"), "do not occur", "in case")
    _fails(
        lambda: ex.check_label_counts({**right, "Answer": 3}, dialogues, "action"),
        "1 of 3 values are off: 'Answer'",
        forbidden=(2,),
    )
    _fails(lambda: ex.check_label_counts([2, 1, 1], dialogues, "action"), "dict")
    _fails(lambda: ex.check_label_counts(right, dialogues, "intent"), "scheme")


def test_selected_origin_shares(dialogues):
    ex.check_selected_origin_shares({"topic": 1 / 3, "retrieved": 2 / 3}, dialogues)
    ex.check_selected_origin_shares(pd.Series({"topic": 1, "retrieved": 2}) / 3, dialogues)
    _fails(lambda: ex.check_selected_origin_shares({"topic": 1, "retrieved": 2}, dialogues), "look like counts")
    _fails(lambda: ex.check_selected_origin_shares({"topic": 1.5, "retrieved": 0.5}, dialogues), "between 0 and 1")
    _fails(lambda: ex.check_selected_origin_shares({"topic": 100 / 3, "retrieved": 200 / 3}, dialogues), "percentages")
    ex.check_selected_origin_shares({"topic": 0.333, "retrieved": 0.667}, dialogues)  # rounded to 3 decimals
    _fails(
        lambda: ex.check_selected_origin_shares({"topic": 0.5, "retrieved": 0.5}, dialogues),
        "2 of 2 values are off",
        forbidden=(1 / 3, 2 / 3),
    )


def test_origin_shares_of_all_evidence(dialogues):
    # shown on wizard turns: topic 2 (one selected), retrieved 3 (two selected)
    ex.check_origin_shares({"topic": 2 / 5, "retrieved": 3 / 5}, dialogues)
    _fails(
        lambda: ex.check_origin_shares({"topic": 1 / 3, "retrieved": 2 / 3}, dialogues),
        "selected pieces only",
        forbidden=(0.4, 0.6),
    )
    _fails(
        lambda: ex.check_origin_shares({"topic": 2 / 5, "retrieved": 3 / 5}, dialogues, selected_only=True),
        "ALL the pieces",
    )


def test_selected_share_by_label(dialogues):
    ex.check_selected_share_by_label({"Answer": 1.0, "Clarify": 0.0, "Choice": 0.0}, dialogues, "action")
    _fails(
        lambda: ex.check_selected_share_by_label({"Answer": 1.0, "Clarify": 1.0, "Choice": 0.0}, dialogues, "action"),
        "'Clarify'",
    )


def test_edited_share_and_length_change(dialogues):
    faithdial_ex.check_edited_share(2 / 3, dialogues)
    _fails(lambda: faithdial_ex.check_edited_share(1 / 3, dialogues), "unedited")
    _fails(lambda: faithdial_ex.check_edited_share(2 / 5, dialogues), "wizard responses, not by all turns")
    _fails(lambda: faithdial_ex.check_edited_share(2, dialogues), "number of edited responses")
    # "cats are small furry animals" (5) vs "cats are very small furry animals indeed" (7): -2;
    # "dogs bark loudly" (3) vs "dogs bark" (2): +1; mean -0.5
    faithdial_ex.check_length_change(-0.5, dialogues)
    _fails(lambda: faithdial_ex.check_length_change(0.5, dialogues), "sign")
    _fails(lambda: faithdial_ex.check_length_change(-2.0, dialogues), "re-read", forbidden=(-0.5,))
    # counting the unedited turn as "4 words longer than nothing": (-2 + 1 + 4) / 3
    _fails(lambda: faithdial_ex.check_length_change(1.0, dialogues), "edited responses only")


def test_length_change_uses_parlai_words():
    turn = _turn(0, WIZARD, "The cat sat.", raw={"original_response": "A cat, the dog, sat"})
    data = [Dialogue("d", "wow", "x", [turn])]
    faithdial_ex.check_length_change(2 - 3, data)  # "cat sat" vs "cat dog sat" after dropping articles
    _fails(lambda: faithdial_ex.check_length_change(3 - 5, data), "word_tokens")


def test_mean_overlap(dialogues):
    # turn 1: "cats are small furry animals" vs "cats are small animals": P=4/5, R=1, F1=8/9
    # turn 3 of d2: "dogs bark loudly" vs "dogs bark dogs howl": P=2/3, R=2/4, F1=4/7
    expected = (8 / 9 + 4 / 7) / 2
    ex.check_mean_overlap(expected, dialogues)
    _fails(lambda: ex.check_mean_overlap((8 / 9 + 4 / 7) / 3, dialogues), "WITH a selection")
    _fails(lambda: ex.check_mean_overlap(expected * 100, dialogues), "percentage")


def test_mean_overlap_uses_characters_for_japanese():
    turn = _turn(0, WIZARD, "猫は動物", selected=[("quote", "猫は小さな動物")])
    data = [Dialogue("j", "jwhr", "answered", [turn])]
    # characters 猫は動物 (4) vs 猫は小さな動物 (7): 4 shared, P=1, R=4/7, F1=8/11
    ex.check_mean_overlap(8 / 11, data)


def test_by_dataset(dialogues):
    splits = {"a": dialogues, "b": dialogues[:1]}
    ex.check_by_dataset({"a": 2.5, "b": 4.0}, splits, "mean_turns")
    ex.check_by_dataset({"a": 2 / 3, "b": 0.5}, splits, "selected_share")
    ex.check_by_dataset({"a": (8 / 9 + 4 / 7) / 2, "b": 8 / 9}, splits, "mean_overlap")
    _fails(lambda: ex.check_by_dataset({"a": 2.5}, splits, "mean_turns"), "missing", "'b'")
    _fails(lambda: ex.check_by_dataset({"a": 2.5, "b": 2.5}, splits, "mean_turns"), "1 of 2 values are off: 'b'")
    with pytest.raises(ValueError, match="measure"):
        ex.check_by_dataset({}, splits, "median_turns")


def test_checkers_run_on_a_loaded_demo_split():
    """The checkers take a loaded split exactly as they take a list of dialogues."""
    import utils

    split = utils.load("jwhr", "answered")
    expected = sum(len(d.turns) for d in split) / len(split)
    ex.check_mean_turns(expected, split)
    _fails(lambda: ex.check_mean_turns(expected + 1, split), "re-read")


def _facts_arrays(facts) -> dict[str, object]:
    evidence = facts.evidence()
    evidence["origin"] = evidence["origin"].astype(object)
    return {
        "dialogues": len(facts),
        "roles": list(facts.roles),
        "turns_per_dialogue": facts.turns_per_dialogue.tolist(),
        "selected_counts": [int(n) for n in facts.selected_counts],
        "labels": [facts.labels(role) for role in (None, WIZARD, SEEKER)],
        "evidence": evidence.astype({"selected": bool}).to_dict("list"),
    }


def test_a_loaded_split_s_tables_give_the_checks_what_its_dialogues_give():
    """The checks read a loaded split's cached tables, a list of dialogues by walking it: the same facts."""
    import utils
    from utils.sources import dataset_names, split_names

    evidence_seen = 0
    for dataset in dataset_names():
        for name in split_names(dataset):
            try:
                split = utils.load(dataset, name)
            except utils.DataUnavailableError:
                continue
            if len(split) > 3000:  # a real full-size split: the demo samples and small ones are enough here
                continue
            from_tables = _facts_arrays(ex._TurnFacts(split))
            from_dialogues = _facts_arrays(ex._TurnFacts(list(split)))
            assert from_tables == from_dialogues, (dataset, name)
            evidence_seen += len(from_tables["evidence"]["role"])
    assert evidence_seen  # the comparison covered evidence rows, not only turns


def test_a_check_prints_its_verdict_and_nothing_escapes_to_a_traceback(dialogues, capsys):
    """Under ``%xmode Verbose`` a traceback lists every local of every frame: a check that raised would
    show its expected value. A practice check prints, whatever goes wrong inside it."""

    class Hostile:
        def __float__(self):
            raise RuntimeError("boom")

    assert ex.check_turn_count(Hostile(), dialogues) is None
    assert ex.check_turn_count(7, dialogues) is None
    printed = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in printed] == ["Not yet", "Not yet"], printed
    assert not hasattr(ex.check_turn_count, "__wrapped__")


def test_an_emptied_split_is_refused_not_counted(dialogues):
    # `wow_seen = []; n_wizard_turns = 0` in an answer cell made the untouched check print "Correct"
    _fails(lambda: ex.check_turn_count(0, []), "hold no dialogues", "rebind")


def test_answers_rounded_to_three_decimals_pass_and_counts_do_not(dialogues, capsys):
    ex.check_selected_share(0.667, dialogues)  # 2/3
    ex.check_mean_turns(2.5004, dialogues)
    assert capsys.readouterr().out.count("Correct") == 2
    _fails(lambda: ex.check_selected_share(0.66, dialogues), "re-read")
    _fails(lambda: ex.check_turn_count(3.0004, dialogues), "whole number")


def test_outside_grading_a_failed_test_is_a_note_not_a_stop(dialogues, monkeypatch, capsys):
    """In the book (no NBGRADER_EXECUTION) a reference solution that fails its test on the data loaded
    shows a warning under the exercise; the chapter, and the book, go on."""
    monkeypatch.delenv("NBGRADER_EXECUTION")
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda *objects, **_: shown.extend(objects))
    ex.graded(ex.check_turn_count, 4, dialogues, role=WIZARD, exercise="x-ex-1")
    assert len(shown) == 1
    page = shown[0]._repr_html_()
    assert "did not pass its autograded test" in page and "x-ex-1: Not yet" in page
    shown.clear()
    ex.graded(ex.check_turn_count, 3, dialogues, role=WIZARD, exercise="x-ex-1")
    assert shown == []


def test_graded_raises_on_a_wrong_answer_naming_the_exercise_and_not_the_value(dialogues, capsys):
    ex.graded(ex.check_turn_count, 3, dialogues, role=WIZARD, exercise="x-ex-1")
    with pytest.raises(AssertionError, match=r"^x-ex-1: Not yet: number of wizard turns") as info:
        ex.graded(ex.check_turn_count, 4, dialogues, role=WIZARD, exercise="x-ex-1")
    assert "3" not in str(info.value).replace("x-ex-1", "")
    # the check that one check calls inside raises too (graded cannot be fooled by a printed verdict)
    with pytest.raises(AssertionError):
        ex.graded(ex.check_selected_origin_shares, {"topic": 0.5, "retrieved": 0.5}, dialogues)
    assert capsys.readouterr().out == ""
