"""The critic and annotation exercises of the BEGIN, FaithDial and WISE chapters: each check recomputes
the student's score from their answer and the chapter's baseline from the data it is given, passes an
answer above the baseline, and names the slip of a typical wrong one without printing the bar."""

from __future__ import annotations

import contextlib
import io
import re

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score, roc_auc_score

import utils
from utils.datasets.begin import baselines
from utils.datasets.begin.exercises import (
    annotation_sample,
    check_annotation_kappa,
    check_transfer_scores,
    scored_responses,
    show_annotation_sample,
)
from utils.datasets.begin.parser import LABELS, label
from utils.datasets.faithdial import exercises as faithdial_ex
from utils.datasets.faithdial.baselines import LexicalCritic
from utils.teaching.exercises import CheckOptionError, graded


def _fails(call, *fragments: str, forbidden: tuple[float, ...] = ()) -> str:
    """Run a practice check that must fail: one "Not yet" line holding ``fragments`` and no forbidden value."""
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        assert call() is None
    message = printed.getvalue()
    assert message.startswith("Not yet") and message.count("\n") == 1, message
    for fragment in fragments:
        assert fragment.lower() in message.lower(), message
    for value in forbidden:
        for shown in {f"{value:.2f}", f"{value:.3f}", f"{value:.4f}", repr(value)}:
            assert not re.search(rf"(?<![\d.]){re.escape(shown)}(?![\d])", message), (shown, message)
    return message


def _passes(call, *fragments: str) -> str:
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        assert call() is None
    message = printed.getvalue()
    assert message.startswith("Correct"), message
    for fragment in fragments:
        assert fragment.lower() in message.lower(), message
    return message


# -- BEGIN: a critic fitted on WoW, tested on CMU-DoG and TopicalChat ---------------------------------------


def _begin_transfer():
    splits = [utils.load("begin", name) for name in ("wow_dev", "cmu_dev", "tc_dev")]
    return splits, scored_responses(*splits[1:])


def _lexical(examples) -> dict[str, float]:
    return dict(zip(examples["id"], LexicalCritic.scores(examples["response"], examples["knowledge"]), strict=True))


def test_transfer_scores_above_the_lexical_critic_pass_and_the_lexical_critic_itself_does_not():
    (dev, cmu, tc), examples = _begin_transfer()
    assert set(examples["label"]) <= {"Fully attributable", "Not fully attributable"}
    assert all(key.startswith(("cmu_dev-", "tc_dev-")) for key in examples["id"])
    lexical = _lexical(examples)
    # a ranking better than the lexical one: the gold classes, a little noise breaking no pair
    better = {key: label + 0.01 * i / len(examples)
              for i, (key, label) in enumerate(zip(examples["id"], examples["hallucinated"], strict=True))}
    _passes(lambda: check_transfer_scores(better, dev, cmu, tc), "above the lexical critic")
    _passes(lambda: check_transfer_scores(lexical, dev, cmu, tc, beat="chance"), "above chance")
    _fails(lambda: check_transfer_scores(lexical, dev, cmu, tc), "not above the lexical critic")
    with pytest.raises(AssertionError, match=r"^begin-ex-4: Not yet: .*not above the lexical critic"):
        graded(check_transfer_scores, lexical, dev, cmu, tc, exercise="begin-ex-4")
    graded(check_transfer_scores, better, dev, cmu, tc, exercise="begin-ex-4")


def test_a_weaker_critic_is_told_so_without_the_bar():
    (dev, cmu, tc), examples = _begin_transfer()
    bar = roc_auc_score(examples["hallucinated"], list(_lexical(examples).values()))
    # response length: a weaker ranking than knowledge precision, on the demo files as on the real ones
    length = dict(zip(examples["id"], examples["response_words"] + np.arange(len(examples)) * 1e-6, strict=True))
    if roc_auc_score(examples["hallucinated"], list(length.values())) > 0.5:
        _fails(lambda: check_transfer_scores(length, dev, cmu, tc), "not above", forbidden=(bar,))


def test_transfer_scores_name_the_typical_slips():
    (dev, cmu, tc), examples = _begin_transfer()
    lexical = _lexical(examples)
    _fails(lambda: check_transfer_scores({k: -v for k, v in lexical.items()}, dev, cmu, tc), "no better than chance")
    _fails(lambda: check_transfer_scores(dict.fromkeys(lexical, 0.5), dev, cmu, tc), "same score")
    _fails(lambda: check_transfer_scores(dict(list(lexical.items())[1:]), dev, cmu, tc), "have no score")
    _fails(lambda: check_transfer_scores({**lexical, "wow_dev-0": 1.0}, dev, cmu, tc), "file you fit on")
    generic = next(d.id for split in (cmu, tc) for d in split if label(d) == "Generic")
    _fails(lambda: check_transfer_scores({**lexical, generic: 1.0}, dev, cmu, tc), "Generic")
    _fails(lambda: check_transfer_scores({**lexical, "row 3": 1.0}, dev, cmu, tc), "not ids")
    _fails(lambda: check_transfer_scores(list(lexical.values()), dev, cmu, tc), "dict")
    with pytest.raises(CheckOptionError):
        check_transfer_scores(lexical, dev, cmu, tc, beat="bert")


@pytest.mark.realdata
def test_transfer_on_the_real_files(real_data_dir):
    (dev, cmu, tc), examples = _begin_transfer()
    assert all(split.provenance.is_full for split in (dev, cmu, tc))
    labels_as_scores = dict(zip(examples["id"], examples["hallucinated"], strict=True))
    _fails(lambda: check_transfer_scores(labels_as_scores, dev, cmu, tc), "test labels")
    critic = baselines.FeatureCritic.fit(scored_responses(dev), fitted_on="wow_dev")
    feature = dict(zip(examples["id"], critic.scores(examples), strict=True))
    # on the official files the chapter's feature critic transfers better than knowledge precision
    _passes(lambda: check_transfer_scores(feature, dev, cmu, tc), "above the lexical critic")
    _fails(lambda: check_transfer_scores(feature, dev, cmu, tc, beat="feature critic"), "not above")


# -- BEGIN: annotating twenty responses -----------------------------------------------------------------


def test_the_annotation_sample_is_seeded_and_shows_no_label():
    test = utils.load("begin", "wow_test")
    ids = annotation_sample(test)
    assert ids == annotation_sample(test) and len(ids) == min(20, len(test)) and len(set(ids)) == len(ids)
    assert annotation_sample(test, seed=1) != ids or len(test) < 3
    html = str(show_annotation_sample(test))
    assert all(key in html for key in ids)
    assert "human label" not in html and "BEGIN: " not in html


def test_annotation_kappa_is_recomputed_from_the_student_s_labels():
    test = utils.load("begin", "wow_test")
    ids = annotation_sample(test)
    by_id = {d.id: d for d in test}
    gold = [label(by_id[key]) for key in ids]
    # a reader who calls every third response Generic and agrees elsewhere
    mine = {key: ("Generic" if i % 3 == 0 else g) for i, (key, g) in enumerate(zip(ids, gold, strict=True))}
    kappa = cohen_kappa_score(gold, [mine[key] for key in ids])
    agreement = sum(g == mine[key] for key, g in zip(ids, gold, strict=True)) / len(ids)
    _passes(lambda: check_annotation_kappa(kappa, mine, test))
    _passes(lambda: check_annotation_kappa(round(kappa, 3), mine, test))
    graded(check_annotation_kappa, kappa, mine, test, exercise="begin-ex-5")
    if not np.isclose(agreement, kappa, atol=1e-3):
        _fails(lambda: check_annotation_kappa(agreement, mine, test), "raw agreement", forbidden=(kappa,))
    _fails(lambda: check_annotation_kappa(1.0, mine, test), "gold labels with themselves")
    _fails(lambda: check_annotation_kappa(kappa + 0.1, mine, test), "not the expected value", forbidden=(kappa,))
    with pytest.raises(AssertionError, match=r"^begin-ex-5: "):
        graded(check_annotation_kappa, kappa + 0.1, mine, test, exercise="begin-ex-5")


def test_annotation_labels_are_validated():
    test = utils.load("begin", "wow_test")
    ids = annotation_sample(test)
    mine = {key: LABELS[i % 3] for i, key in enumerate(ids)}
    _fails(lambda: check_annotation_kappa(0.0, {**mine, ids[0]: "fully attributable"}, test), "exactly as")
    _fails(lambda: check_annotation_kappa(0.0, {**mine, ids[0]: "Hallucination"}, test), "not one of BEGIN's three")
    _fails(lambda: check_annotation_kappa(0.0, {**mine, ids[0]: ""}, test), "empty")
    _fails(lambda: check_annotation_kappa(0.0, dict(list(mine.items())[1:]), test), "have no label")
    _fails(lambda: check_annotation_kappa(0.0, {**mine, "wow_test-99999": "Generic"}, test), "not among")
    _fails(lambda: check_annotation_kappa(0.0, None, test), "empty")


# -- FaithDial: a critic of one's own against the lexical critic ------------------------------------------


def test_faithdial_scored_responses_are_the_chapter_s_critic_examples_with_ids():
    from utils.datasets.faithdial import baselines as faithdial_baselines
    from utils.datasets.faithdial.stats import utterances

    train = utils.load("faithdial", "train")
    examples = faithdial_ex.scored_responses(train, with_rewrites=True)
    chapter = faithdial_baselines.critic_examples(utterances(train), with_rewrites=True)
    assert examples.drop(columns="id").equals(chapter)
    assert examples["id"].is_unique
    assert (examples.loc[examples["source"] == faithdial_baselines.REWRITE, "id"].str.endswith("/rewrite")).all()


def test_faithdial_critic_scores_are_ranked_against_the_lexical_critic():
    test = utils.load("faithdial", "test")
    examples = faithdial_ex.scored_responses(test)
    lexical = _lexical(examples)
    perfect = dict(zip(examples["id"], examples["hallucinated"] + 1e-3 * np.arange(len(examples)), strict=True))
    expected = "above the chapter's lexical critic" if _auc(examples, lexical) < 1 else "all one can do"
    _passes(lambda: faithdial_ex.check_critic_scores(perfect, test), expected)
    _passes(lambda: faithdial_ex.check_critic_scores(lexical, test, beat="chance"), "above chance")
    graded(faithdial_ex.check_critic_scores, perfect, test, exercise="faithdial-ex-4")
    flipped = {key: -value for key, value in lexical.items()}
    _fails(lambda: faithdial_ex.check_critic_scores(flipped, test), "no better than chance")
    with pytest.raises(AssertionError, match=r"^faithdial-ex-4: Not yet"):
        graded(faithdial_ex.check_critic_scores, flipped, test, beat="chance", exercise="faithdial-ex-4")
    unlabelled = next((
        f"{d.id}/{t.index}" for d in test for t in d.turns
        if t.role == utils.WIZARD and not t.raw.get("from_history") and f"{d.id}/{t.index}" not in lexical
    ), None)
    if unlabelled is not None:  # the demo test split labels every response
        _fails(lambda: faithdial_ex.check_critic_scores({**lexical, unlabelled: 0.5}, test), "leave them out")
    _fails(lambda: faithdial_ex.check_critic_scores({**lexical, "train-0/1": 0.5}, test), "not ids")
    _fails(lambda: faithdial_ex.check_critic_scores(dict(list(lexical.items())[1:]), test), "have no score")
    with pytest.raises(CheckOptionError):
        faithdial_ex.check_critic_scores(lexical, test, beat="feature critic")


def _auc(examples, scores: dict[str, float]) -> float:
    return float(roc_auc_score(examples["hallucinated"], [scores[key] for key in examples["id"]]))


# -- WISE: predicting the system's action ---------------------------------------------------------------


def _wise():
    from utils.datasets.wise.baselines import system_turn_examples

    train, test = utils.load("wise", "train"), utils.load("wise", "test")
    return train, test, system_turn_examples(train), system_turn_examples(test)


def test_action_predictions_are_scored_against_the_chapter_s_classifier():
    from utils.datasets.wise.baselines import CharTfidfClassifier, standard_macro_prf
    from utils.datasets.wise.exercises import check_action_predictions, turn_key

    train, test, train_turns, test_turns = _wise()
    gold = {turn_key(turn): turn.action for turn in test_turns}
    classifier = CharTfidfClassifier().fit([t.user_text for t in train_turns], [t.action for t in train_turns])
    theirs = dict(zip(gold, classifier.predict([t.user_text for t in test_turns]), strict=True))
    bar = standard_macro_prf(list(gold.values()), list(theirs.values())).f1
    assert bar < 1
    _passes(lambda: check_action_predictions(gold, train, test), "above the chapter's classifier")
    graded(check_action_predictions, gold, train, test, exercise="wise-ex-4")
    _fails(lambda: check_action_predictions(theirs, train, test), "not above the chapter's classifier")
    with pytest.raises(AssertionError, match=r"^wise-ex-4: Not yet: .*not above"):
        graded(check_action_predictions, theirs, train, test, exercise="wise-ex-4")
    # a weaker answer than the classifier is told so without the classifier's score
    constant = dict.fromkeys(gold, train_turns[0].action)
    if standard_macro_prf(list(gold.values()), list(constant.values())).f1 < bar:
        _fails(lambda: check_action_predictions(constant, train, test), "not above", forbidden=(bar,))
    with pytest.raises(CheckOptionError):
        check_action_predictions(gold, train, test, beat="bert")


def test_action_predictions_name_the_typical_slips():
    from utils.datasets.wise.exercises import check_action_predictions, turn_key

    train, test, _, test_turns = _wise()
    gold = {turn_key(turn): turn.action for turn in test_turns}
    first = next(iter(gold))
    _fails(lambda: check_action_predictions(dict.fromkeys(gold, "Reveal"), train, test), "user intent")
    _fails(lambda: check_action_predictions({**gold, first: gold[first].lower()}, train, test), "in case")
    parts = {**gold, first: gold[first].split("-")}
    _fails(lambda: check_action_predictions(parts, train, test), "join its parts")
    _fails(lambda: check_action_predictions(dict(list(gold.items())[1:]), train, test), "no prediction")
    _fails(lambda: check_action_predictions({**gold, "0/0": "Chitchat"}, train, test), "not system turns")
    _fails(lambda: check_action_predictions({**gold, first: None}, train, test), "not an action name")


def test_check_ranking_on_examples_made_by_hand():
    """The shared ranking check: ids left out or fitted on are named; a perfect bar can only be matched;
    a perfect ranking of many responses of each class is taken for one made with the test labels."""
    import pandas as pd

    from utils.datasets.faithdial.exercises import PERFECT_IS_SUSPECT, Ignored, check_ranking
    from utils.teaching.exercises import ExerciseCheckError

    few = pd.DataFrame({"id": ["a", "b", "c", "d"], "hallucinated": [1, 1, 0, 0]})
    right = {"a": 0.9, "b": 0.8, "c": 0.2, "d": 0.1}
    one_pair_wrong = {"a": 0.9, "b": 0.1, "c": 0.2, "d": 0.05}  # AUC 0.75

    def run(answer, examples=few, bar=None, **options):
        options = {"left_out": Ignored({"g"}, "Generic responses"), "fitted_on": Ignored({"t"}, "training rows"),
                   **options}
        check_ranking(answer, examples, what="w", bar=lambda: bar, bar_name="the bar", id_example="a", hint="h",
                      **options)

    run(right, bar=[0.9, 0.8, 0.2, 0.1])  # matching a perfect bar on a few responses is all one can do
    with pytest.raises(ExerciseCheckError, match="not above the bar"):
        run(one_pair_wrong, bar=list(one_pair_wrong.values()))  # the same AUC, 0.75
    run(one_pair_wrong, bar=[0.9, 0.1, 0.2, 0.3])  # AUC 0.5: on four responses the points are compared
    with pytest.raises(ExerciseCheckError, match="Generic responses"):
        run({**right, "g": 0.5})
    with pytest.raises(ExerciseCheckError, match="training rows"):
        run({**right, "t": 0.5})
    with pytest.raises(ExerciseCheckError, match="perfectly"):
        n = PERFECT_IS_SUSPECT
        many = pd.DataFrame({"id": [str(i) for i in range(2 * n)], "hallucinated": [1] * n + [0] * n})
        run({str(i): float(i < n) for i in range(2 * n)}, examples=many)


def test_check_ranking_asks_for_a_paired_interval_above_the_bar_on_enough_responses():
    """On 50 responses or more a gain must be more than chance could give: a ranking a hair above the
    bar's fails, one clearly above passes; the bar itself is never named in the message."""
    import numpy as np
    import pandas as pd

    from utils.datasets.faithdial.exercises import Ignored, check_ranking
    from utils.teaching.exercises import ExerciseCheckError

    rng = np.random.default_rng(1)
    labels = np.array([1] * 150 + [0] * 150)
    examples = pd.DataFrame({"id": [str(i) for i in range(300)], "hallucinated": labels})
    baseline = labels + rng.normal(0, 1.0, 300)  # AUC about 0.76
    nudged = baseline.copy()
    nudged[np.argmax(np.where(labels == 1, -baseline, -np.inf))] += 5  # one positive lifted: a hair better
    clearly = labels + rng.normal(0, 0.4, 300)  # AUC about 0.96

    def run(scores):
        check_ranking({str(i): float(v) for i, v in enumerate(scores)}, examples, what="w", bar=lambda: list(baseline),
                      bar_name="the bar", left_out=Ignored(set(), ""), id_example="0", hint="h")

    with pytest.raises(ExerciseCheckError, match="more than chance") as failure:
        run(nudged)
    assert "0.7" not in str(failure.value).split("ROC AUC of")[1][6:]  # only the student's own AUC is named
    run(clearly)


def test_on_synthetic_data_only_the_form_of_an_answer_is_checked(data_dir):
    """benchmarks.synthetic draws every label at random: no predictor can beat another there, so a
    chapter run on synthetic files (utils/datasets/wise/tests/test_wise_without_documents.py) checks
    only the answer's form."""
    import pandas as pd

    from benchmarks.synthetic import write_all
    from utils.datasets.faithdial.exercises import Ignored, check_ranking
    from utils.datasets.wise.exercises import check_action_predictions, turn_key

    write_all(data_dir, scale=0.02, datasets=["wise"])
    train, test, _, test_turns = _wise()
    assert test.provenance.kind == "synthetic"
    constant = {turn_key(turn): test_turns[0].action for turn in test_turns}
    _passes(lambda: check_action_predictions(constant, train, test), "random labels")
    _fails(lambda: check_action_predictions(dict(list(constant.items())[1:]), train, test), "no prediction")
    few = pd.DataFrame({"id": ["a", "b"], "hallucinated": [1, 0]})
    check_ranking({"a": 0.0, "b": 1.0}, few, what="w", bar=lambda: None, bar_name="b", left_out=Ignored(set(), ""),
                  id_example="a", hint="h", random_labels=True)


def test_the_wise_classifier_bar_is_fitted_once_per_pair_of_splits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Autograding a class checks the same splits once per submission: the chapter's classifier is
    fitted the first time only, and its kept predictions are the ones a fit gives."""
    from utils.datasets.wise import exercises as wise_exercises
    from utils.datasets.wise.baselines import CharTfidfClassifier

    _, _, train_turns, test_turns = _wise()
    fits = []
    original = CharTfidfClassifier.fit

    def counted(self, *args, **kwargs):
        fits.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(CharTfidfClassifier, "fit", counted)
    first = wise_exercises._baseline(train_turns, test_turns, "classifier")
    second = wise_exercises._baseline(train_turns, test_turns, "classifier")
    assert first == second and len(first) == len(test_turns)
    assert len(fits) == 1
    wise_exercises._baseline(train_turns, test_turns[:-1], "classifier")
    assert len(fits) == 2  # other turns to predict: another fit, not the kept predictions
