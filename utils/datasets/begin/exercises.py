"""Checkers of the BEGIN chapter's exercises on its critics (the generic ones are in :mod:`utils.teaching.exercises`).

Like every checker, each recomputes the expected answer from the splits it is given, so it is right
on the demo sample and on the real files alike, and says what is off without printing the answer.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.metrics import cohen_kappa_score

from utils.book.render.html import SafeHTML, esc, stylesheet
from utils.teaching.checking import (
    CheckOptionError,
    ExerciseCheckError,
    Mistake,
    as_mapping,
    check_keys,
    compare_number,
    dialogues_of,
    fail,
    practice_check,
)
from utils.teaching.projects import HeldOut, check_released_scores, released_ids

from ...records import Dialogue
from ..faithdial.baselines import LexicalCritic
from ..faithdial.exercises import Ignored, check_ranking, is_synthetic
from . import baselines, stats
from .parser import LABELS, label
from .render import render


def _examples(data: Iterable[Dialogue], what: str) -> Any:
    dialogues = dialogues_of(data, what)
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
    mistakes = [Mistake(1 - expected, f"you ranked by {feature} itself; a high precision means attributable, "
                                       "so the score of 'not fully attributable' is one minus it.")]
    rows = stats.response_frame({"data": dialogues_of(data, what)})
    generic_as_positive = rows.assign(hallucinated=(rows["label"] != "Fully attributable").astype(int))
    if generic_as_positive["hallucinated"].nunique() == 2 and len(generic_as_positive) != len(examples):
        frame = baselines.feature_frame(generic_as_positive)
        mistakes.append(Mistake(
            baselines.auc_of_score(generic_as_positive.assign(score=1 - frame[feature]), "score"),
            "leave the Generic responses out: the task compares Fully with Not fully attributable ones.",
        ))
    # The wrong text: the same feature against the previous message instead of the knowledge.
    against_message = baselines.feature_frame(examples.assign(knowledge=examples["message"]))[feature]
    mistakes.append(Mistake(
        baselines.auc_of_score(examples.assign(score=1 - against_message), "score"),
        "this compares the response with the previous message; the feature is measured against the knowledge.",
    ))
    if feature == "bigram_precision":  # a loop that stops one bigram short, or runs one past the end
        mistakes.append(Mistake(
            baselines.auc_of_score(examples.assign(score=[1 - _short_bigram_precision(r, k) for r, k in
                                                          zip(examples["response"], examples["knowledge"],
                                                              strict=True)]), "score"),
            "the response's last word pair is missing from your bigrams: a text of n words has n - 1 bigrams, "
            "from (w1, w2) to (w(n-1), wn).",
        ))
    compare_number(answer, expected, what=what, share=True, mistakes=mistakes)


def _short_bigram_precision(response: str, knowledge: str) -> float:
    """Bigram precision with the response's last bigram left out (the off-by-one slip)."""
    from ...metrics import ngrams
    from ...text import word_tokens

    bigrams = ngrams(word_tokens(response), 2)[:-1]
    known = set(ngrams(word_tokens(knowledge), 2))
    return sum(bigram in known for bigram in bigrams) / len(bigrams) if bigrams else 0.0


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
        Mistake(full_auc, "this is the AUC with every feature: leave the features named out of the fit."),
        Mistake(dev_auc, "this is the AUC on the dev split the critic was fitted on; score it on the test split."),
    ]
    compare_number(answer, expected, what=what, share=True, mistakes=mistakes, rel_tol=1e-4)


# -- a critic that travels to other benchmarks -------------------------------------------------------

#: What a transfer check can be asked to beat: chance, the lexical critic (knowledge precision, which
#: needs no fitting) or the chapter's feature critic fitted on the dev data.
BARS = ("chance", "lexical", "feature critic")


def scored_responses(*data: Iterable[Dialogue]) -> pd.DataFrame:
    """The Fully and Not fully attributable responses of ``data`` (Generic ones left out), as
    :func:`baselines.critic_examples` rows with an ``id`` column: the dialogue id, ``tc_dev-17``."""
    frames = []
    for split in data:
        dialogues = dialogues_of(split, "responses to score")
        name = dialogues[0].split if len(dialogues) else "split"
        rows = stats.response_frame({name: dialogues})
        rows.insert(0, "id", [dialogue.id for dialogue in dialogues])
        frames.append(rows)
    return baselines.critic_examples(pd.concat(frames, ignore_index=True))


@practice_check
def check_transfer_scores(
    answer: Any, fit_on: Iterable[Dialogue], *tests: Iterable[Dialogue], beat: str = "lexical"
) -> None:
    """``answer`` maps the id of every Fully or Not fully attributable response of ``tests`` to a score
    of "not fully attributable" (higher: less attributable) from a critic fitted on ``fit_on``.

    The check computes the ROC AUC of those scores and the ``beat`` bar itself on the same responses:
    ``"chance"`` (0.5), ``"lexical"`` (one minus knowledge precision, the chapter's lexical critic,
    whose AUC needs no fitting) or ``"feature critic"`` (:class:`baselines.FeatureCritic` fitted on
    ``fit_on``); the answer passes when its AUC is above the bar (:func:`check_ranking`)."""
    if beat not in BARS:
        raise CheckOptionError(f"beat must be one of {', '.join(BARS)}, not {beat!r}")
    what = "scores of your critic on the test responses"
    released = released_ids(TRANSFER_EXERCISE)
    if released is not None:  # a course assignment: the test labels are with the teacher
        check_released_scores(answer, released, what, id_example="tc_dev-0")
        return
    if not tests:
        raise ExerciseCheckError(f"{what}: pass the test splits after the split the critic was fitted on.")
    examples = scored_responses(*tests)
    every_id = {dialogue.id for split in tests for dialogue in dialogues_of(split, what)}

    def bar() -> list[float] | None:
        if beat == "lexical":
            return list(LexicalCritic.scores(examples["response"], examples["knowledge"]))
        if beat == "feature critic":
            critic = baselines.FeatureCritic.fit(scored_responses(fit_on), fitted_on="the dev file")
            return list(critic.scores(examples))
        return None

    check_ranking(
        answer, examples, what=what, bar=bar,
        bar_name={"chance": "chance", "lexical": "the lexical critic's (knowledge precision)",
                  "feature critic": "the chapter's feature critic's, fitted on the same dev file"}[beat],
        left_out=Ignored(set(every_id) - set(examples["id"]), "Generic responses: leave them out, the critic "
                                                               "tells Fully from Not fully attributable ones"),
        fitted_on=Ignored({dialogue.id for dialogue in dialogues_of(fit_on, what)}, "responses of the file you fit on: "
                                                                                  "score only the test files' ones"),
        id_example="tc_dev-0",
        hint="Find what the lexical critic misses on these benchmarks (their knowledge snippets are long), and "
             "choose your critic on the dev file, not by trying it here.",
        random_labels=is_synthetic(fit_on, *tests),
    )


#: The transfer project (begin-ex-4) is scored like a shared task in a course: students get the CMU-DoG
#: and TopicalChat dev responses without their labels (:mod:`utils.teaching.projects`).
TRANSFER_EXERCISE = "begin-ex-4"


def transfer_inputs(*tests: Iterable[Dialogue]) -> pd.DataFrame:
    """The responses begin-ex-4 scores, as :func:`scored_responses` gives them, without their labels."""
    return scored_responses(*tests).drop(columns=["label", "hallucinated", "part", "row"], errors="ignore")


#: The chapter's public helpers that compute an exercise's answer in one call (see the JWHR folder's).
ANSWERED_BY = {
    "begin-ex-2": ("auc_of_score", "feature_frame"),
}

HELD_OUT = [
    HeldOut(
        exercise=TRANSFER_EXERCISE,
        dataset="begin",
        splits=("cmu_dev", "tc_dev"),
        inputs=transfer_inputs,
        labels=("label", "hallucinated"),
    )
]


# -- annotating responses with BEGIN's labels ----------------------------------------------------------

#: How many responses the annotation exercise takes, and the seed of their selection.
ANNOTATION_SIZE = 20
ANNOTATION_SEED = 0


def annotation_sample(split: Iterable[Dialogue], size: int = ANNOTATION_SIZE, seed: int = ANNOTATION_SEED) -> list[str]:
    """The ids of the responses to annotate: the first ``size`` of ``split`` shuffled with ``seed``
    (numpy's ``default_rng(seed).permutation``), or every response when the split holds fewer."""
    dialogues = dialogues_of(split, "responses to annotate")
    order = np.random.default_rng(seed).permutation(len(dialogues))[:size]
    return [dialogues[int(index)].id for index in order]


def show_annotation_sample(
    split: Sequence[Dialogue], size: int = ANNOTATION_SIZE, seed: int = ANNOTATION_SEED
) -> SafeHTML:
    """The responses of :func:`annotation_sample` without their labels (message, response and
    knowledge, every string escaped), then a dict to copy and fill in, one line per id."""
    ids = annotation_sample(split, size, seed)
    by_id = {dialogue.id: dialogue for dialogue in dialogues_of(split, "responses to annotate")}
    provenance = getattr(split, "provenance", None)
    kind = f"{provenance.kind} · " if provenance is not None else ""
    parts = [render(by_id[key], note=f"{kind}{key}", highlight=False, show_label=False) for key in ids]
    choices = " | ".join(LABELS)
    template = "my_labels = {\n" + "".join(f'    "{key}": "",\n' for key in ids) + "}"
    footer = (f"<p>Label each response with one of: {esc(choices)}. A dict to copy into your answer "
              f"cell:</p><pre>{esc(template)}</pre>")
    return SafeHTML(stylesheet() + "".join(parts) + footer)


def _annotation_labels(answer: Any, ids: Sequence[str], what: str) -> list[str]:
    given = as_mapping(answer, what)
    check_keys(
        given,
        ids,
        what,
        missing="{count} of the {total} responses shown have no label, for example {example!r}",
        extra="{count} id(s) are not among the responses shown, for example {example!r}",
        together=". Label exactly the responses show_annotation_sample shows (seed 0).",
    )
    labels = []
    folded = {name.casefold(): name for name in LABELS}
    for key in ids:
        value = given[key]
        if not isinstance(value, str) or not value.strip():
            fail(what, f"the label of {key!r} is empty or not text: give every response one of {', '.join(LABELS)}.")
        if value not in LABELS:
            if value.strip().casefold() in folded:
                fail(what, f"the label of {key!r} differs from BEGIN's name in case or spaces: write it exactly "
                            f"as {folded[value.strip().casefold()]!r}.")
            fail(what, f"{value!r} (for {key!r}) is not one of BEGIN's three labels: {', '.join(LABELS)}.")
        labels.append(value)
    return labels


@practice_check
def check_annotation_kappa(answer: Any, labels: Any, split: Sequence[Dialogue]) -> None:
    """``labels`` holds one BEGIN label per response of :func:`annotation_sample` of ``split`` (your
    own reading), and ``answer`` is Cohen's kappa between them and the gold labels
    (``sklearn.metrics.cohen_kappa_score``), to three decimals."""
    what = "Cohen's kappa between your labels and the gold labels"
    dialogues = dialogues_of(split, what)
    ids = annotation_sample(dialogues)
    yours = _annotation_labels(labels, ids, "your labels")
    by_id = {dialogue.id: dialogue for dialogue in dialogues}
    gold = [label(by_id[key]) for key in ids]
    if len(set(yours) | set(gold)) < 2:
        raise ExerciseCheckError(f"{what}: you and the gold labels give these responses one label only, so "
                                 "kappa is undefined (no disagreement is possible by chance).")
    expected = float(cohen_kappa_score(gold, yours))
    if math.isnan(expected):
        raise ExerciseCheckError(f"{what}: kappa is undefined on these labels (chance agreement is 1).")
    agreement = sum(g == y for g, y in zip(gold, yours, strict=True)) / len(ids)
    reordered = [label(by_id[key]) for key in sorted(ids)]  # gold in another order than yours
    mistakes = [
        Mistake(agreement, "this is the share of responses on which you agree (raw agreement); kappa "
                            "corrects it for the agreement expected by chance."),
        Mistake(1.0, "this is the kappa of the gold labels with themselves: compare YOUR labels with them."),
        Mistake(float(cohen_kappa_score(reordered, yours)) if len(set(reordered) | set(yours)) > 1 else math.nan,
                "your two lists are not in the same order of ids: build both from one list of ids (the "
                "sample's order), so that each gold label faces your label of the same response."),
    ]
    compare_number(answer, expected, what=what, mistakes=mistakes)
