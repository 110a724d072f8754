"""Checkers of the FaithDial chapter's exercises on its edits (the generic ones are in :mod:`utils.teaching.exercises`).

Like every checker, each recomputes the expected answer from the data it is given, so it is right on
the demo sample and on the real files alike, and says what is off without printing the answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score

from utils.teaching.checking import (
    CheckOptionError,
    ExerciseCheckError,
    Mistake,
    as_mapping,
    as_number,
    check_keys,
    compare_number,
    dialogues_of,
    fail,
    keys_missing_and_extra,
    passed,
    practice_check,
    turns_of,
)
from utils.teaching.projects import HeldOut, check_released_scores, released_ids

from ...loading import SYNTHETIC
from ...metrics import MIN_FOR_INTERVAL
from ...records import Dialogue
from ...scoring import auc_rows, paired_bootstrap
from . import baselines
from .stats import edited_share, lengths, utterances

# compare_number calls the shared module's comparison when called, so that a test watching every
# checker's expected value (tests/test_learner.py) sees these too.


def _responses(dialogues: Sequence[Dialogue]) -> pd.DataFrame:
    """The utterance records, as the chapter computes them (:func:`.stats.utterances`)."""
    return utterances(dialogues)


@practice_check
def check_edited_share(answer: Any, data: Iterable[Dialogue]) -> None:
    """``answer`` is the share of responses (utterance records) whose ``original_response`` was edited."""
    what = "share of responses edited for faithfulness"
    dialogues = dialogues_of(data, what)
    frame = _responses(dialogues)
    if frame.empty:
        raise ExerciseCheckError(f"{what}: the data hold no wizard responses.")
    expected = edited_share(frame)
    edited = int(frame["edited"].sum())
    mistakes = [
        Mistake(1 - expected, "you computed the share of responses kept unedited."),
        Mistake(edited / len(turns_of(dialogues)), "divide by the wizard responses, not by all turns."),
        Mistake(float(edited), "this is the number of edited responses; divide it by the number of responses."),
    ]
    compare_number(answer, expected, what=what, share=True, mistakes=mistakes)


@practice_check
def check_length_change(answer: Any, data: Iterable[Dialogue]) -> None:
    """``answer`` is the mean of (words in the edited response − words in the original) over edited responses.

    Words are :func:`utils.text.word_tokens` (ParlAI normalisation, as
    :func:`.stats.lengths`), so a negative answer means the edits made responses shorter.
    """
    what = "mean change in length (edited − original, in words)"
    frame = _responses(dialogues_of(data, what))
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
        Mistake(-expected, "the sign is flipped: subtract the original length from the edited length."),
        Mistake(
            sum(by_split) / len(by_split),
            "count words with utils.text.word_tokens (ParlAI normalisation), not str.split().",
        ),
        Mistake(
            float((everything["edited"] - everything["original"]).mean()),
            "average over the edited responses only (a kept response has no original to compare with).",
        ),
    ]
    compare_number(answer, expected, what=what, mistakes=mistakes)


# -- a critic of one's own, against the chapter's lexical critic -----------------------------------------


def is_synthetic(*data: object) -> bool:
    """True when any of ``data`` is synthetic benchmark data (``benchmarks.synthetic``: random labels)."""
    return any(getattr(getattr(split, "provenance", None), "kind", "") == SYNTHETIC for split in data)

#: An AUC of 1 on at least this many responses of each class is not a critic fitted elsewhere: the
#: scores were made with the test labels. (A handful of demo responses can be separated by chance.)
PERFECT_IS_SUSPECT = 20



@dataclass(frozen=True)
class Ignored:
    """Ids a critic's scores must not hold, and why (said when an answer holds one)."""

    ids: set[str]
    reason: str


def check_ranking(
    answer: Any,
    examples: pd.DataFrame,
    *,
    what: str,
    bar: Callable[[], Sequence[float] | None],
    bar_name: str,
    left_out: Ignored,
    fitted_on: Ignored | None = None,
    id_example: str,
    hint: str,
    random_labels: bool = False,
) -> None:
    """Check a critic's scores: ``answer`` maps every ``id`` of ``examples`` (critic examples with
    ``hallucinated`` 1 or 0) to a number, higher for a response more likely hallucinated; their ROC
    AUC must be above chance and above that of the baseline scores ``bar()`` returns (computed here,
    on the same responses; ``None``: chance). On :data:`~utils.metrics.MIN_FOR_INTERVAL` responses or
    more, "above" means the paired bootstrap interval of the AUC difference lies above zero, so that
    a gain chance could give does not pass; on fewer (a demo sample), the point AUCs are compared.
    When the bar is a perfect ranking already (a few demo responses), matching it is all one can do.

    Only the student's own AUC is ever named (they can compute it from their scores); the bar is
    for them to compute, never told. With ``random_labels`` (synthetic benchmark data) no ranking can
    be compared with another, and only the form of the scores is checked. Raises
    :class:`ExerciseCheckError` naming the slip."""
    if examples["hallucinated"].nunique() < 2:
        raise ExerciseCheckError(f"{what}: the test data hold only one of the two classes; an AUC needs both.")
    given = as_mapping(answer, what)
    wanted = list(examples["id"])
    _, extra = keys_missing_and_extra(given, wanted)
    for ignored in (fitted_on or Ignored(set(), ""), left_out):
        among = [key for key in extra if key in ignored.ids]
        if among:
            fail(what, f"{len(among)} id(s) are {ignored.reason}, for example {among[0]!r}.")
    check_keys(
        given,
        wanted,
        what,
        extra="{count} key(s) are not ids of the responses to score, for example {example!r}: use the ids of the "
        "`id` column (such as {id_example!r}).",
        missing="{count} of the {total} responses to score have no score, for example {example!r}: score every one "
        "of them.",
        id_example=id_example,
    )
    scores = np.array([as_number(given[key], f"{what} [{key!r}]") for key in wanted])
    if np.ptp(scores) == 0:
        fail(what, "every response has the same score, which ranks nothing: give higher scores to the "
                    "responses your critic finds less supported by their knowledge.")
    labels = examples["hallucinated"].to_numpy().astype(int)
    if random_labels:
        passed(what, f"{len(labels)} valid scores; these synthetic data have random labels, so no AUC is compared")
        return
    auc = float(roc_auc_score(labels, scores))
    if auc == 1.0 and np.bincount(labels, minlength=2).min() >= PERFECT_IS_SUSPECT:
        fail(what, "your scores separate every test response perfectly, which no critic fitted on other "
                    "data does: were they made with the test labels? Fit on the training data only.")
    if auc <= 0.5:
        fail(what, "your scores rank the test responses no better than chance. Is a high score given to the "
                    "LESS supported responses (for example one minus a precision)?")
    baseline = bar()
    reference = np.full(len(labels), 0.5) if baseline is None else np.asarray(baseline, dtype=float)
    target = float(roc_auc_score(labels, reference)) if baseline is not None else 0.5
    if target == 1.0 and auc == 1.0:
        passed(what, f"ROC AUC 1 on {len(labels)} responses: {bar_name} ranks these few perfectly too, so "
                      "matching it is all one can do")
        return
    if auc <= target:
        # The student's own AUC only: the bar is for them to compute and beat, not to be told.
        fail(what, f"your scores rank the {len(labels)} test responses with a ROC AUC of {auc:.3f}, not above "
                    f"{bar_name} on the same responses. {hint}")
    if len(labels) >= MIN_FOR_INTERVAL:
        # the paired bootstrap `atlas score --compare` reports (utils.scoring), on the same responses
        def auc_of(values: np.ndarray) -> Callable[[np.ndarray], dict[str, np.ndarray]]:
            return lambda index: {"ROC AUC": auc_rows(labels[index], values[index])}

        _, low, _ = paired_bootstrap(auc_of(scores), auc_of(reference), len(labels))["ROC AUC"]
        if not low > 0:
            fail(what, f"your scores rank the {len(labels)} test responses with a ROC AUC of {auc:.3f}, but not "
                        f"above {bar_name} by more than chance could give: the 95 % paired bootstrap interval of "
                        f"the difference (1,000 resamples of the responses, as `atlas score --compare` "
                        f"draws them) reaches zero. {hint}")
        passed(what, f"ROC AUC {auc:.3f} on {len(labels)} responses, above {bar_name} beyond chance "
                      "(a 95 % paired bootstrap interval of the difference above zero)")
        return
    passed(what, f"ROC AUC {auc:.3f} on {len(labels)} responses, above {bar_name} (too few responses for an "
                  "interval: the point AUCs are compared)")


def scored_responses(data: Iterable[Dialogue], *, with_rewrites: bool = False) -> pd.DataFrame:
    """The chapter's critic examples of a FaithDial split (:func:`baselines.critic_examples`: each
    labelled text, with its class in ``hallucinated``) with an ``id`` column, ``<dialogue id>/<turn
    index>`` (a faithful rewrite added by ``with_rewrites`` gets ``.../rewrite``)."""
    frame = utterances(dialogues_of(data, "responses to score"))
    keys = frame["dialogue_id"].astype(str) + "/" + frame["turn_index"].astype(str)
    labelled = frame[frame["BEGIN"].map(baselines.critic_label).notna()]
    examples = baselines.critic_examples(frame, with_rewrites=with_rewrites)
    ids = list(keys[labelled.index])
    if with_rewrites:
        ids += [key + "/rewrite" for key in keys[labelled[labelled["edited"]].index]]
    examples.insert(0, "id", ids)
    return examples


#: The critic project (faithdial-ex-4) is scored like a shared task in a course: students get the test
#: responses without their labels (:mod:`utils.teaching.projects`).
CRITIC_EXERCISE = "faithdial-ex-4"


def critic_inputs(test: Iterable[Dialogue]) -> pd.DataFrame:
    """The responses faithdial-ex-4 scores, as :func:`scored_responses` gives them, without their labels."""
    return scored_responses(test).drop(columns=["hallucinated"])


HELD_OUT = [
    HeldOut(
        exercise=CRITIC_EXERCISE,
        dataset="faithdial",
        splits=("test",),
        also_withheld=("test_seen", "test_unseen"),
        inputs=critic_inputs,
        labels=("hallucinated",),
    )
]

#: What the critic check can be asked to beat.
BARS = ("chance", "lexical")


@practice_check
def check_critic_scores(answer: Any, test: Iterable[Dialogue], beat: str = "lexical") -> None:
    """``answer`` maps the id of every labelled response of ``test`` (:func:`scored_responses`) to a
    hallucination score (higher: more likely hallucinated); its ROC AUC must be above ``beat``:
    ``"chance"`` or ``"lexical"`` (the chapter's lexical critic, one minus knowledge precision, whose
    AUC needs no threshold), computed here on the same responses."""
    if beat not in BARS:
        raise CheckOptionError(f"beat must be one of {', '.join(BARS)}, not {beat!r}")
    what = "hallucination scores of your critic on the test responses"
    released = released_ids(CRITIC_EXERCISE)
    if released is not None:  # a course assignment: the test labels are with the teacher
        check_released_scores(answer, released, what, id_example=str(released[0]) if released else "test-0/1")
        return
    test_dialogues = dialogues_of(test, what)
    examples = scored_responses(test_dialogues)
    every = utterances(test_dialogues)
    every_id = set(every["dialogue_id"].astype(str) + "/" + every["turn_index"].astype(str))

    def bar() -> Sequence[float] | None:
        if beat == "chance":
            return None
        return list(baselines.LexicalCritic.scores(examples["response"], examples["knowledge"]))

    check_ranking(
        answer, examples, what=what, bar=bar,
        bar_name="chance" if beat == "chance" else "the chapter's lexical critic (knowledge precision)",
        left_out=Ignored(every_id - set(examples["id"]), "responses without a Hallucination or Entailment label "
                                                         "(Generic, Uncooperative or unlabelled): leave them out"),
        id_example=str(examples["id"].iloc[0]) if len(examples) else "test-0/1",
        hint="Find what word overlap misses in FaithDial's hallucinations (personal experiences, opinions), and "
             "choose your critic on train and valid, not by trying it here.",
        random_labels=is_synthetic(test),
    )
