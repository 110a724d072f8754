"""Checkers of the BEGIN chapter's exercises on its critics (the generic ones are in :mod:`utils.exercises`).

Like every checker, each recomputes the expected answer from the splits it is given, so it is right
on the demo sample and on the real files alike, and says what is off without printing the answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ...exercises import ExerciseCheckError, _compare_number, _dialogues, _Mistake, practice_check
from ...records import Dialogue
from . import baselines, stats


def _examples(data: Iterable[Dialogue], what: str) -> Any:
    dialogues = _dialogues(data, what)
    split = dialogues[0].split if dialogues else "split"
    examples = baselines.critic_examples(stats.response_frame({split: dialogues}))
    if examples["hallucinated"].nunique() < 2:
        raise ExerciseCheckError(f"{what}: these data hold only one of the two labels; an AUC needs both.")
    return examples


@practice_check
def check_feature_auc(answer: Any, data: Iterable[Dialogue], feature: str) -> None:
    """``answer`` is the ROC AUC of one minus ``feature`` (a precision-like feature of
    :data:`~utils.datasets.begin.baselines.FEATURES`) as a score of "not fully attributable", on the
    Fully and Not fully attributable responses of ``data`` (Generic ones left out)."""
    what = f"ROC AUC of one minus {feature} against 'Not fully attributable'"
    if feature not in baselines.FEATURES:
        raise ExerciseCheckError(f"{what}: unknown feature; choose among {', '.join(baselines.FEATURES)}.")
    examples = _examples(data, what)
    values = baselines.feature_frame(examples)[feature]
    expected = baselines.auc_of_score(examples.assign(score=1 - values), "score")
    mistakes = [_Mistake(1 - expected, f"you ranked by {feature} itself; a high precision means attributable, "
                                       "so the score of 'not fully attributable' is one minus it.")]
    rows = stats.response_frame({"data": _dialogues(data, what)})
    generic_as_positive = rows.assign(hallucinated=(rows["label"] != "Fully attributable").astype(int))
    if generic_as_positive["hallucinated"].nunique() == 2 and len(generic_as_positive) != len(examples):
        frame = baselines.feature_frame(generic_as_positive)
        mistakes.append(_Mistake(
            baselines.auc_of_score(generic_as_positive.assign(score=1 - frame[feature]), "score"),
            "leave the Generic responses out: the task compares Fully with Not fully attributable ones.",
        ))
    _compare_number(answer, expected, what=what, mistakes=mistakes)


@practice_check
def check_ablation_auc(
    answer: Any, dev: Iterable[Dialogue], test: Iterable[Dialogue], without: Sequence[str]
) -> None:
    """``answer`` is the test ROC AUC of a :class:`~utils.datasets.begin.baselines.FeatureCritic`
    fitted on ``dev`` with every feature except ``without``."""
    what = f"test ROC AUC of the feature critic without {', '.join(without)}"
    unknown = [name for name in without if name not in baselines.FEATURES]
    if unknown:
        choices = ", ".join(baselines.FEATURES)
        raise ExerciseCheckError(f"{what}: unknown feature {unknown[0]!r}; choose among {choices}.")
    kept = [name for name in baselines.FEATURES if name not in without]
    dev_examples, test_examples = _examples(dev, what), _examples(test, what)
    critic = baselines.FeatureCritic.fit(dev_examples, fitted_on="dev", features=kept)
    expected = baselines.bootstrap_intervals(baselines.feature_scored(critic, test_examples), resamples=1)["ROC AUC"][0]
    full = baselines.FeatureCritic.fit(dev_examples, fitted_on="dev")
    full_auc = baselines.bootstrap_intervals(baselines.feature_scored(full, test_examples), resamples=1)["ROC AUC"][0]
    dev_auc = baselines.bootstrap_intervals(baselines.feature_scored(critic, dev_examples), resamples=1)["ROC AUC"][0]
    mistakes = [
        _Mistake(full_auc, "this is the AUC with every feature: leave the features named out of the fit."),
        _Mistake(dev_auc, "this is the AUC on the dev split the critic was fitted on; score it on the test split."),
    ]
    _compare_number(answer, expected, what=what, share=True, mistakes=mistakes, rel_tol=1e-4)
