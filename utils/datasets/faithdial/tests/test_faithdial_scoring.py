"""FaithDial through ``utils.score``: the critic decided as the authors' critic decides, and responses."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import utils
from utils.datasets.faithdial.scoring import macro_f1
from utils.scoring import tasks_of


def _write(path: Path, rows: dict[str, object], field: str) -> Path:
    path.write_text("".join(
        json.dumps({"dialogue": key.rpartition(":")[0], "turn": int(key.rpartition(":")[2]), field: value}) + "\n"
        for key, value in rows.items()
    ), encoding="utf-8")
    return path


def test_macro_f1_leaves_out_a_class_neither_predicted_nor_present() -> None:
    columns = {"label": np.array([[1, 1, 0, 0], [1, 1, 1, 1]]), "score": np.array([[0.9, 0.2, 0.1, 0.5], [0.9] * 4])}
    # row 1: hallucinated F1 2/3 (one of two found), faithful F1 4/5; row 2: only class 1, all right
    assert macro_f1(columns) == pytest.approx([(2 / 3 + 4 / 5) / 2, 1.0])


def test_critic_and_generation_on_the_demo_split(tmp_path: Path) -> None:
    gold = tasks_of("faithdial")["critic"].gold("test").answers
    scores = {key: 0.9 if label else 0.5 for key, label in gold.items()}  # 0.5 is faithful (argmax's tie)
    scored = utils.score("faithdial", "test", _write(tmp_path / "critic.jsonl", scores, "score"), task="critic")
    assert scored.value("accuracy_faithdial") == 1.0 and scored.value("roc_auc_atlas") == 1.0
    responses = tasks_of("faithdial")["generation"].gold("test").answers
    replies = {key: answer["knowledge"] for key, answer in responses.items()}  # copy the knowledge
    generation = utils.score("faithdial", "test", _write(tmp_path / "replies.jsonl", replies, "text"))
    assert generation.value("knowledge_f1_parlai") == 1.0
    assert 0 < generation.value("f1_parlai") < 1


@pytest.mark.parametrize("flag_below", [True, False])
def test_best_threshold_counts_as_comparing_every_value_with_every_candidate(flag_below: bool) -> None:
    from utils.datasets.faithdial.baselines import best_threshold

    rng = np.random.default_rng(5)
    for size in (1, 2, 7, 40):
        values, labels = np.round(rng.random(size) * 3, 1), rng.integers(0, 2, size)  # ties on purpose
        distinct = np.unique(values)
        candidates = np.concatenate([[distinct[0]], (distinct[:-1] + distinct[1:]) / 2, [distinct[-1] + 1e-9]])
        accuracy = np.array([np.mean(((values < t) if flag_below else (values >= t)).astype(int) == labels)
                             for t in candidates])
        tied = np.flatnonzero(accuracy == accuracy.max())  # ties: the threshold flagging the fewest
        assert best_threshold(values, labels, flag_below=flag_below) == candidates[tied[0] if flag_below else tied[-1]]


def test_the_chapters_response_baselines_score_the_same_through_the_command() -> None:
    """Copying the knowledge, scored by the chapter's own measures (corpus BLEU, ROUGE-L, F1 and
    knowledge precision on every record) and through ``utils.score``: the same numbers."""
    import pandas as pd

    from utils.datasets.faithdial import baselines, stats

    frame = stats.utterances(utils.load("faithdial", "test"))
    chapter = baselines.score_responses(list(frame["knowledge"]), list(frame["response"]), list(frame["knowledge"]))
    predictions = pd.DataFrame({"dialogue": frame["dialogue_id"], "turn": frame["turn_index"],
                                "text": frame["knowledge"]})
    scored = utils.score("faithdial", "test", predictions)
    assert scored.value("bleu_sacrebleu") == pytest.approx(chapter["BLEU"], abs=1e-9)
    assert scored.value("rouge_l_atlas") == pytest.approx(chapter["ROUGE-L"], abs=1e-12)
    assert scored.value("f1_parlai") == pytest.approx(chapter["F1"], abs=1e-12)
    assert scored.value("knowledge_precision_atlas") == pytest.approx(chapter["knowledge precision"], abs=1e-12)
    low, high = scored.frame().loc["bleu_sacrebleu", ["low", "high"]]
    assert low <= scored.value("bleu_sacrebleu") <= high


def test_corpus_bleu_from_summed_statistics_is_sacrebleus_on_any_subset() -> None:
    from utils.metrics import BLEU_STATISTICS, bleu_from_statistics, bleu_statistics, corpus_bleu

    rng = np.random.default_rng(11)
    words = ["the", "cat", "sat", "on", "a", "mat", ",", "dog", "ran", "far", "away", "!", "it's", "3.5", "km", "Über"]
    pairs = [(" ".join(rng.choice(words, rng.integers(0, 12))), " ".join(rng.choice(words, rng.integers(1, 12))))
             for _ in range(200)]
    rows = [bleu_statistics(h, r) for h, r in pairs]
    for chosen in (range(200), range(0, 200, 7), [3, 3, 3, 9]):  # a resample repeats pairs
        sums = {name: sum(rows[i][name] for i in chosen) for name in BLEU_STATISTICS}
        expected = corpus_bleu([pairs[i][0] for i in chosen], [pairs[i][1] for i in chosen])
        assert bleu_from_statistics(sums) == pytest.approx(expected, abs=1e-9)


def test_the_chapters_lexical_critic_scores_the_same_through_the_command() -> None:
    """The chapter's critic, fitted on train and written as the probabilities the critic task reads:
    the command's accuracy (decided at 0.5, as the authors' critic decides) and ROC AUC are the
    chapter's own on the test split."""
    from utils.datasets.faithdial import baselines, stats

    train, test = (stats.utterances(utils.load("faithdial", name)) for name in ("train", "test"))
    critic = baselines.LexicalCritic.fit(baselines.critic_examples(train, with_rewrites=True))
    chapter = critic.evaluate(baselines.critic_examples(test), "test")
    labelled = test[test["BEGIN"].map(baselines.critic_label).notna()]
    scores = labelled[["dialogue_id", "turn_index"]].set_axis(["dialogue", "turn"], axis=1).assign(
        score=critic.probability(labelled["labelled_response"], labelled["knowledge"]))
    scored = utils.score("faithdial", "test", scores, task="critic")
    assert scored.value("accuracy_faithdial") == pytest.approx(chapter.accuracy, abs=1e-12)
    assert scored.value("roc_auc_atlas") == pytest.approx(chapter.roc_auc, abs=1e-12, nan_ok=True)
