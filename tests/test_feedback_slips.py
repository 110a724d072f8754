"""The practice checks name the slip, not only that an answer is off: one test per slip that a class of
written submissions met and that got the generic line (or a wrong reason) before."""

from __future__ import annotations

import contextlib
import io

import utils
from utils.datasets.begin import baselines
from utils.datasets.begin.exercises import (
    _short_bigram_precision,
    annotation_sample,
    check_annotation_kappa,
    check_feature_auc,
)
from utils.datasets.begin.parser import label
from utils.teaching import exercises


def _said(call) -> str:
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        call()
    return printed.getvalue()


def _auc(split, score) -> float:
    examples = baselines.critic_examples(utils.datasets.begin.stats.response_frame({"dev": list(split)}))
    return baselines.auc_of_score(examples.assign(score=[score(r, k, m) for r, k, m in zip(
        examples["response"], examples["knowledge"], examples["message"], strict=True)]), "score")


def test_an_auc_times_100_is_named_a_percentage() -> None:
    dev = utils.load("begin", "wow_dev")
    right = _auc(dev, lambda r, k, m: 1 - baselines.features(r, k, m)["bigram_precision"])
    assert "percentage" in _said(lambda: check_feature_auc(right * 100, dev, "bigram_precision"))


def test_the_wrong_text_and_an_off_by_one_bigram_are_named(real_data_dir) -> None:
    """On the WoW dev file (the demo sample's few responses give the same AUC for both slips)."""
    dev = utils.load("begin", "wow_dev")
    against_message = _auc(dev, lambda r, k, m: 1 - baselines.features(r, m, m)["bigram_precision"])
    assert "previous message" in _said(lambda: check_feature_auc(against_message, dev, "bigram_precision"))
    short = _auc(dev, lambda r, k, m: 1 - _short_bigram_precision(r, k))
    assert "n - 1 bigrams" in _said(lambda: check_feature_auc(short, dev, "bigram_precision"))


def test_kappa_over_lists_in_different_orders_is_named() -> None:
    from sklearn.metrics import cohen_kappa_score

    test = utils.load("begin", "wow_test")
    by_id = {row.id: row for row in test}
    ids = annotation_sample(test)
    mine = {key: ("Generic" if i % 3 == 0 else label(by_id[key])) for i, key in enumerate(ids)}
    yours = [mine[key] for key in ids]
    reordered = cohen_kappa_score([label(by_id[key]) for key in sorted(ids)], yours)
    assert abs(reordered - cohen_kappa_score([label(by_id[key]) for key in ids], yours)) > 1e-3
    assert "same order of ids" in _said(lambda: check_annotation_kappa(reordered, mine, test))


def test_steps_per_turn_and_whitespace_tokens_are_named() -> None:
    answered = utils.load("jwhr", "answered")
    steps = len(answered.evidence())
    turns = len(answered.turns())
    assert "per turn" in _said(lambda: exercises.check_mean_evidence(steps / turns, answered))
    from utils.metrics import selected_evidence_f1

    spaced = [s for d in answered for t in d.turns_by("wizard")
              if (s := selected_evidence_f1(t, str.split)) is not None]
    chars = [s for d in answered for t in d.turns_by("wizard")
             if (s := selected_evidence_f1(t, utils.text.tokenizer_for("ja"))) is not None]
    if abs(sum(spaced) / len(spaced) - sum(chars) / len(chars)) > 1e-3:
        assert "whitespace" in _said(lambda: exercises.check_mean_overlap(sum(spaced) / len(spaced), answered))


def test_labels_counted_on_another_split_are_named_so(real_data_dir) -> None:
    """begin-ex-1 asks for the dev split; counts of the test split (which has a label the official dev
    file lacks: Generic) are named as counted on another split, not as labels to leave out."""
    from collections import Counter

    dev, test = utils.load("begin", "wow_dev"), utils.load("begin", "wow_test")
    on_test = Counter(label for row in test for turn in row.turns_by("wizard") for label in turn.labels["BEGIN"])
    on_dev = Counter(label for row in dev for turn in row.turns_by("wizard") for label in turn.labels["BEGIN"])
    assert set(on_test) - set(on_dev)
    assert "another split" in _said(lambda: exercises.check_label_counts(dict(on_test), dev, "BEGIN"))
