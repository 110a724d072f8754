"""Checker of the JWHR chapter's answerability exercise (the generic checks are in :mod:`utils.teaching.exercises`).

Students predict, from the trail alone, whether a session ended with an answer: they fit on the
sessions at even positions of each chunk and predict the ones at odd positions (:func:`split_sessions`).
The check never trusts a score the student reports: it recomputes their balanced accuracy from their
predictions, checks that the reported score is that one, and compares it with two baselines it
computes itself on the same held-out sessions: the majority class and a threshold on the number of
steps chosen on the fitting sessions (:func:`steps_threshold_accuracy`). Its messages name the likely
slip, never the expected value.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterable, Sequence
from numbers import Real
from typing import Any

import numpy as np
import pandas as pd

from utils.teaching.checking import (
    ExerciseCheckError,
    Mistake,
    as_mapping,
    compare_number,
    dialogues_of,
    fail,
    passed,
    practice_check,
)
from utils.teaching.projects import HeldOut, check_released_scores, in_assignment, released_ids

from ...records import Dialogue
from . import baselines
from .parser import answered as is_answered

#: The comparison with the baselines needs this many held-out sessions of each kind at least: on
#: fewer (the demo sample holds one of each) a balanced accuracy is 0, 0.5 or 1 by luck.
MIN_HELD_OUT = 10
#: A balanced accuracy above this on a real comparison means the features include the outcome (what
#: the steps yielded, or the answer): how a worker moved does not tell the two apart so well.
OUTCOME_LEAK = 0.95
#: The majority class predicts one label for every session: its balanced accuracy is one half.
MAJORITY_BALANCED_ACCURACY = 0.5


def split_sessions(
    answered: Iterable[Dialogue], not_answered: Iterable[Dialogue]
) -> tuple[list[Dialogue], list[Dialogue]]:
    """The exercise's split: the sessions at even positions of each chunk (0, 2, 4, ...) to fit on,
    those at odd positions to predict. Both parts keep the chunks' proportions.

    In a course assignment (:func:`utils.teaching.projects.in_assignment`) the chunks a student has hold the
    fitting sessions only, the teacher keeping the held-out ones: all of them are returned to fit
    on, and the held-out sessions are the released inputs (:func:`trail_inputs`), not sessions here."""
    answered, not_answered = list(answered), list(not_answered)
    if in_assignment(ANSWERABILITY_EXERCISE):
        return answered + not_answered, []
    return answered[0::2] + not_answered[0::2], answered[1::2] + not_answered[1::2]


#: The answerability project (jwhr-ex-4) is scored like a shared task in a course (:mod:`utils.teaching.projects`).
ANSWERABILITY_EXERCISE = "jwhr-ex-4"


def trail_inputs(answered: Iterable[Dialogue], not_answered: Iterable[Dialogue]) -> pd.DataFrame:
    """The held-out sessions as a predictor may read them: ``id`` and the chapter's navigation features
    (:data:`baselines.NAVIGATION_FEATURES`), in id order (which mixes the two chunks), without what the
    steps yielded and without whether the session was answered."""
    _, held_out = split_sessions(answered, not_answered)
    rows = baselines.trail_features(held_out)[["id", *baselines.NAVIGATION_FEATURES]]
    return rows.sort_values("id", key=lambda ids: ids.astype(str).str.zfill(20)).reset_index(drop=True)


def _fitting_lines(relative: str, content: bytes) -> bytes:
    """A chunk's file without its held-out sessions: the lines at even positions (one session a line)."""
    lines = [line for line in content.splitlines(keepends=True) if line.strip()]
    return b"".join(lines[0::2])


#: The chapter's public helpers that compute an exercise's answer in one call: an answer cell that calls
#: one is listed by ``atlas grade`` for the teacher to read (utils.teaching.grading.similarity_report).
ANSWERED_BY = {
    "jwhr-ex-1": ("summary_frame",),
    "jwhr-ex-2": ("grounding_overlap", "summary_frame"),
    "jwhr-ex-3": ("summary_frame",),
}

HELD_OUT = [
    HeldOut(
        exercise=ANSWERABILITY_EXERCISE,
        dataset="jwhr",
        splits=("answered", "not_answered"),
        inputs=trail_inputs,
        labels=("answered", "quotes", "summaries", "nothing", "not_found"),
        student_copy=_fitting_lines,
    )
]


def balanced_accuracy(truth: Sequence[bool] | np.ndarray, predicted: Sequence[bool] | np.ndarray) -> float:
    """The mean, over the two classes present in ``truth``, of the share of its sessions predicted right."""
    truth_array, predicted_array = np.asarray(truth, dtype=bool), np.asarray(predicted, dtype=bool)
    recalls = [float(np.mean(predicted_array[truth_array == label] == label)) for label in (True, False)
               if np.any(truth_array == label)]
    return float(np.mean(recalls))


def steps_threshold_accuracy(fit: Sequence[Dialogue], held_out: Sequence[Dialogue]) -> float:
    """Held-out balanced accuracy of the best one-feature rule on the number of steps.

    The rule says "answered" below a number of steps (or from it on, whichever fits better); the
    threshold and the direction are the ones with the highest balanced accuracy on ``fit`` (ties:
    the smallest threshold, "answered below" first).
    """
    fit_rows, held_out_rows = baselines.trail_features(fit), baselines.trail_features(held_out)
    steps, truth = fit_rows["steps"].to_numpy(), fit_rows["answered"].to_numpy(dtype=bool)
    best: tuple[float, int, bool] | None = None
    for threshold in sorted(set(steps.tolist()) | {int(steps.max()) + 1}):
        for answered_below in (True, False):
            predicted = (steps < threshold) == answered_below
            score = balanced_accuracy(truth, predicted)
            if best is None or score > best[0]:
                best = (score, threshold, answered_below)
    assert best is not None  # fit holds sessions: the loop ran
    _, threshold, answered_below = best
    predicted = (held_out_rows["steps"].to_numpy() < threshold) == answered_below
    return balanced_accuracy(held_out_rows["answered"].to_numpy(dtype=bool), predicted)


def _label(value: Any, key: str, what: str) -> bool:
    """A prediction as True (answered) or False, or a failure naming what was given instead."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, str):
        fail(what, f"the prediction for session {key} is the text {value!r}; give True for answered and False "
                    "for not answered.")
    if isinstance(value, (Real, np.number)) and float(value) in (0.0, 1.0):
        return bool(value)
    if isinstance(value, (Real, np.number)) and 0 < float(value) < 1:
        fail(what, f"the prediction for session {key} is {float(value):g}, a probability: turn each into a "
                    "decision (True for answered) before scoring.")
    fail(what, f"the prediction for session {key} is {value!r}; give True for answered and False for not answered.")


def _predictions(answer: Any, fit: Sequence[Dialogue], held_out: Sequence[Dialogue], what: str) -> dict[str, bool]:
    """The student's predictions, checked to cover exactly the held-out sessions."""
    given = as_mapping(answer, what)
    keyed = {str(int(key)) if isinstance(key, (int, np.integer)) else str(key): value for key, value in given.items()}
    expected = [session.id for session in held_out]
    fitted = {session.id for session in fit}
    extra = [key for key in keyed if key not in set(expected)]
    missing = [key for key in expected if key not in keyed]
    if extra and all(key in fitted for key in extra):
        if missing:
            fail(what, f"{len(extra)} of your sessions are ones you fit on (even positions), for example {extra[0]}: "
                        "predict the held-out sessions, those at odd positions of each chunk.")
        fail(what, f"you predicted every session, the {len(extra)} you fit on included: keep only the held-out "
                    "ones (odd positions of each chunk), or the score measures how well the model remembers.")
    if extra:
        fail(what, f"{len(extra)} key(s) are not session ids of these chunks, for example {extra[0]!r}: key each "
                    "prediction by the session's id (`session.id`).")
    if missing:
        fail(what, f"{len(missing)} of the {len(expected)} held-out sessions have no prediction, for example "
                    f"{missing[0]}: predict every session at an odd position of each chunk.")
    return {key: _label(keyed[key], key, what) for key in expected}


@practice_check
def check_answerability(
    predictions: Any, reported: Any, answered: Iterable[Dialogue], not_answered: Iterable[Dialogue]
) -> None:
    """``predictions`` maps each held-out session's id (:func:`split_sessions`) to True (answered) or
    False, ``reported`` is their balanced accuracy, and it reaches the majority class and the
    steps-threshold baseline on the same sessions (when there are enough of them to compare)."""
    what = "answerability from the trail"
    released = released_ids(ANSWERABILITY_EXERCISE)
    if released is not None:  # a course assignment: the held-out sessions' labels are with the teacher
        keyed = {str(key): value for key, value in as_mapping(predictions, what).items()}
        check_released_scores(keyed, [str(key) for key in released], what, id_example=str(released[0]),
                              value=lambda prediction, key: _label(prediction, key, what))
        return
    fit, held_out = split_sessions(dialogues_of(answered, what), dialogues_of(not_answered, what))
    truth = [is_answered(session) for session in held_out]
    if all(truth) or not any(truth):
        raise ExerciseCheckError(f"{what}: the held-out sessions are all of one kind; pass the answered chunk, "
                                 "then the not-answered one, and do not rebind their names.")
    chosen = _predictions(predictions, fit, held_out, what)
    predicted = [chosen[session.id] for session in held_out]
    expected = balanced_accuracy(truth, predicted)
    right = int(np.sum(np.asarray(truth) == np.asarray(predicted)))
    mistakes = [
        Mistake(right / len(truth), "this is the plain accuracy; balanced accuracy averages the share right "
                                     "among answered sessions and among not-answered ones."),
        Mistake(1 - expected, "your score counts the classes the other way round: True means answered."),
        Mistake(float(right), "this is the number of right predictions, not a score between 0 and 1."),
    ]
    if reported is not None:  # None: the grader's test, which scores the predictions only
        with contextlib.redirect_stdout(io.StringIO()):  # one verdict for the whole exercise, printed below
            compare_number(reported, expected, what=f"{what}: your balanced accuracy, recomputed from your "
                           "predictions", share=True, mistakes=mistakes)
    smallest = min(sum(truth), len(truth) - sum(truth))
    if smallest < MIN_HELD_OUT:
        passed(what, f"{len(held_out)} held-out sessions; too few to compare with the baselines, so that part "
                      "was skipped: it is checked on the full files")
        return
    if expected > OUTCOME_LEAK:
        fail(what, "predictions this good mean your features include the outcome (quotes, summaries, pages that "
                    "yielded nothing, searches that found nothing, or the answer): use only how the worker moved.")
    if expected < MAJORITY_BALANCED_ACCURACY:
        fail(what, "your predictions and your score agree, but they do worse than predicting the majority class "
                    "for every session: check which label means answered.")
    if expected < steps_threshold_accuracy(fit, held_out):
        fail(what, "your predictions and your score agree, but they do not yet reach the one-feature baseline "
                    "(a threshold on the number of steps). Balanced accuracy weighs the rarer not-answered sessions "
                    "as much as the answered ones: does your model?")
    passed(what, f"{len(held_out)} held-out sessions; at least the majority class and the steps threshold")


__all__ = [
    "MIN_HELD_OUT",
    "OUTCOME_LEAK",
    "balanced_accuracy",
    "check_answerability",
    "split_sessions",
    "steps_threshold_accuracy",
]
