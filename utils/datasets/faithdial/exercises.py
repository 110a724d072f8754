"""Checkers of the FaithDial chapter's exercises on its edits (the generic ones are in :mod:`utils.exercises`).

Like every checker, each recomputes the expected answer from the data it is given, so it is right on
the demo sample and on the real files alike, and says what is off without printing the answer.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from ... import exercises as checks
from ...exercises import ExerciseCheckError, _dialogues, _Mistake, _turns, practice_check
from ...records import Dialogue
from .stats import edited_share, lengths, utterances

# The comparison goes through the shared module (``checks._compare_number``), so that a test watching
# every checker's expected value (tests/test_learner.py) sees these too.


def _responses(dialogues: list[Dialogue]) -> pd.DataFrame:
    """The utterance records, as the chapter computes them (:func:`.stats.utterances`)."""
    return utterances(dialogues)


@practice_check
def check_edited_share(answer: Any, data: Iterable[Dialogue]) -> None:
    """``answer`` is the share of responses (utterance records) whose ``original_response`` was edited."""
    what = "share of responses edited for faithfulness"
    dialogues = _dialogues(data, what)
    frame = _responses(dialogues)
    if frame.empty:
        raise ExerciseCheckError(f"{what}: the data hold no wizard responses.")
    expected = edited_share(frame)
    edited = int(frame["edited"].sum())
    mistakes = [
        _Mistake(1 - expected, "you computed the share of responses kept unedited."),
        _Mistake(edited / len(_turns(dialogues)), "divide by the wizard responses, not by all turns."),
        _Mistake(float(edited), "this is the number of edited responses; divide it by the number of responses."),
    ]
    checks._compare_number(answer, expected, what=what, share=True, mistakes=mistakes)


@practice_check
def check_length_change(answer: Any, data: Iterable[Dialogue]) -> None:
    """``answer`` is the mean of (words in the edited response − words in the original) over edited responses.

    Words are :func:`utils.text.word_tokens` (ParlAI normalisation, as
    :func:`.stats.lengths`), so a negative answer means the edits made responses shorter.
    """
    what = "mean change in length (edited − original, in words)"
    frame = _responses(_dialogues(data, what))
    table = lengths(frame)
    if table.empty:
        raise ExerciseCheckError(f"{what}: no response in these data was edited.")
    expected = float((table["edited"] - table["original"]).mean())
    edited = frame[frame["edited"]]
    by_split = [
        len(new.split()) - len(old.split())
        for new, old in zip(edited["response"], edited["original_response"], strict=True)
    ]
    everything = lengths(frame.assign(edited=True))  # kept responses then count with an original of 0 words
    mistakes = [
        _Mistake(-expected, "the sign is flipped: subtract the original length from the edited length."),
        _Mistake(
            sum(by_split) / len(by_split),
            "count words with utils.text.word_tokens (ParlAI normalisation), not str.split().",
        ),
        _Mistake(
            float((everything["edited"] - everything["original"]).mean()),
            "average over the edited responses only (a kept response has no original to compare with).",
        ),
    ]
    checks._compare_number(answer, expected, what=what, mistakes=mistakes)
