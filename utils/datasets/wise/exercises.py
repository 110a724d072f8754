"""Checkers of the WISE chapter's exercise on its central task (the generic ones are in
:mod:`utils.teaching.exercises`).

Action prediction (the authors' T3): a student predicts the action of every system turn of a test
split, and the check scores those predictions and the chapter's classifier on the same turns itself,
so no score the student reports is trusted. Like every checker it recomputes everything from the
splits it is given, so it is right on the demo sample and on the real files alike, and it never
prints the score to beat.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from utils.teaching.checking import (
    CheckOptionError,
    ExerciseCheckError,
    as_mapping,
    check_keys,
    dialogues_of,
    fail,
    passed,
    practice_check,
)
from utils.teaching.projects import HeldOut, check_released_scores, released_ids

from ... import config
from ...loading import SYNTHETIC
from ...records import Dialogue
from .baselines import CharTfidfClassifier, SystemTurnExample, majority_label, standard_macro_prf, system_turn_examples
from .parser import INTENTS

#: What the check can be asked to beat: always the most frequent training action, or the chapter's
#: char TF-IDF + logistic regression on the latest user utterance.
BARS = ("majority class", "classifier")


def turn_key(example: SystemTurnExample) -> str:
    """The key of a system turn in an answer: ``"<dialogue id>/<turn index>"``."""
    return f"{example.dialogue_id}/{example.turn_index}"


#: The action project (wise-ex-4) is scored like a shared task in a course: students get the test
#: split's system turns without their actions (:mod:`utils.teaching.projects`).
ACTION_EXERCISE = "wise-ex-4"


def system_turn_inputs(split: Iterable[Dialogue]) -> pd.DataFrame:
    """One row per system turn of ``split``, in conversation order, with what a predictor of its action
    may read: its ``id`` (:func:`turn_key`), ``dialogue_id``, ``turn_index``, the latest ``user_text``,
    the ``context`` (earlier utterances) and ``earlier_actions``, the actions of the system's earlier
    turns in the same conversation. Nothing of the turn itself (its action, intent, queries, passages
    or response)."""
    rows: list[dict[str, Any]] = []
    current: str | None = None
    earlier: list[str] = []
    for turn in system_turn_examples(dialogues_of(split, "system turns")):
        if turn.dialogue_id != current:
            current, earlier = turn.dialogue_id, []
        rows.append({"id": turn_key(turn), "dialogue_id": turn.dialogue_id, "turn_index": turn.turn_index,
                     "user_text": turn.user_text, "context": tuple(turn.context), "earlier_actions": tuple(earlier)})
        earlier.append(turn.action)
    columns = ["id", "dialogue_id", "turn_index", "user_text", "context", "earlier_actions"]
    return pd.DataFrame(rows, columns=columns)


HELD_OUT = [
    HeldOut(
        exercise=ACTION_EXERCISE,
        dataset="wise",
        splits=("test",),
        also_withheld=("test_seen", "test_unseen"),
        inputs=system_turn_inputs,
        labels=("action", "action_group", "intent"),
    )
]


def _baseline(train: Sequence[SystemTurnExample], test: Sequence[SystemTurnExample], bar: str) -> list[str]:
    actions = [example.action for example in train]
    if bar == "majority class":
        return [majority_label(actions)] * len(test)
    # Grading a class runs this check once per submission on the same splits: the classifier's
    # predictions are kept in the parsed-split cache, keyed by everything they depend on, so it is
    # fitted once (a fit on the full train split takes far longer than the rest of the check).
    digest = hashlib.sha256(
        json.dumps([[(e.user_text, e.action) for e in train], [e.user_text for e in test]]).encode("utf-8")
    ).hexdigest()
    stored = config.cache_dir() / "exercise-bars" / f"wise-classifier-{digest[:40]}.json"
    try:
        predictions = json.loads(stored.read_text(encoding="utf-8"))
        if isinstance(predictions, list) and len(predictions) == len(test):
            return [str(action) for action in predictions]
    except (OSError, ValueError):
        pass
    classifier = CharTfidfClassifier().fit([example.user_text for example in train], actions)
    predictions = [str(action) for action in classifier.predict([example.user_text for example in test])]
    try:  # a cache that cannot be written only costs the next check a fit
        stored.parent.mkdir(parents=True, exist_ok=True)
        partial = stored.with_name(f".{stored.name}.{os.getpid()}.partial")
        partial.write_text(json.dumps(predictions), encoding="utf-8")
        partial.replace(stored)
    except OSError:
        pass
    return predictions


def _predictions(answer: Any, test: Sequence[SystemTurnExample], what: str) -> list[str]:
    """The answer's action per test turn, in order, or a failure naming the first slip."""
    given = as_mapping(answer, what)
    keys = [turn_key(example) for example in test]
    check_keys(
        given,
        keys,
        what,
        extra="{count} key(s) are not system turns of the test split, for example {example!r}: use "
        "'<dialogue id>/<turn index>' of each system turn (such as {first!r}).",
        missing="{count} of the {total} system turns have no prediction, for example {example!r}: predict an "
        "action for every one.",
        first=keys[0] if keys else "",
    )
    predictions = []
    for key in keys:
        value = given[key]
        if isinstance(value, (list, tuple)):
            fail(what, f"the prediction for {key!r} is a list: join its parts with '-' as the published names "
                        "are written (parser.published_label), such as 'Answer-open-text'.")
        if not isinstance(value, str) or not value:
            fail(what, f"the prediction for {key!r} is not an action name: give a string such as 'Clarify-Choice'.")
        predictions.append(value)
    return predictions


@practice_check
def check_action_predictions(
    answer: Any, train: Iterable[Dialogue], test: Iterable[Dialogue], beat: str = "classifier"
) -> None:
    """``answer`` maps every system turn of ``test`` (:func:`turn_key`) to a predicted action, by its
    published name (``"Answer-open-text"``). The check computes the plain macro F1 (scikit-learn, over
    every action in the gold labels or the predictions) of those predictions and of the ``beat`` bar
    trained on ``train`` ("majority class" or "classifier", the chapter's char TF-IDF + logistic
    regression on the latest user utterance) on the same turns; the answer passes above the bar.

    Synthetic benchmark data (``benchmarks.synthetic``) draw every label at random, so no predictor
    can be compared with another on them: there only the form of the predictions is checked."""
    if beat not in BARS:
        raise CheckOptionError(f"beat must be one of {', '.join(BARS)}, not {beat!r}")
    what = "your action predictions on the test split"
    released = released_ids(ACTION_EXERCISE)
    if released is not None:  # a course assignment: the test actions are with the teacher
        check_released_scores(answer, released, what, id_example=str(released[0]) if released else "1/1", numeric=False)
        return
    test_turns = system_turn_examples(dialogues_of(test, what))
    train_turns = system_turn_examples(dialogues_of(train, what))
    if not test_turns or not train_turns:
        raise ExerciseCheckError(f"{what}: the splits passed hold no system turn.")
    predicted = _predictions(answer, test_turns, what)
    gold = [example.action for example in test_turns]
    known = {action.casefold(): action for action in gold + [example.action for example in train_turns]}
    unknown = [value for value in predicted if value not in known.values()]
    if unknown and all(value in INTENTS for value in unknown):
        fail(what, f"{unknown[0]!r} is a user intent, not a system action: predict what the system does.")
    if unknown and unknown[0].casefold() in known:
        fail(what, f"{unknown[0]!r} differs from a published action name in case: write it as "
                    f"{known[unknown[0].casefold()]!r}.")
    if any(getattr(getattr(split, "provenance", None), "kind", "") == SYNTHETIC for split in (train, test)):
        passed(what, f"{len(gold)} valid predictions; synthetic data have random labels, so no score is compared")
        return
    score = standard_macro_prf(gold, predicted).f1
    bar = standard_macro_prf(gold, _baseline(train_turns, test_turns, beat)).f1
    name = {"majority class": "always predicting the most frequent training action",
            "classifier": "the chapter's classifier (char TF-IDF + logistic regression on the user's utterance)"}[beat]
    if bar == 1.0 and score == 1.0:
        passed(what, f"macro F1 1 on {len(gold)} turns: {name} is perfect on these few turns too, so matching "
                      "it is all one can do")
        return
    if score <= bar:
        # The student's own score only: the bar is for them to compute and beat, not to be told.
        fail(what, f"your predictions reach a plain macro F1 of {score:.3f} on the {len(gold)} system turns, not "
                    f"above {name} on the same turns. Use more of the conversation than the latest utterance, and "
                    "choose your model on valid, not by trying it here.")
    passed(what, f"plain macro F1 {score:.3f} on {len(gold)} system turns, above {name}")
