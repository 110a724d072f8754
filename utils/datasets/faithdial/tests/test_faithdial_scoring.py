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
        accuracy = [np.mean(((values < t) if flag_below else (values >= t)).astype(int) == labels) for t in candidates]
        assert best_threshold(values, labels, flag_below=flag_below) == candidates[int(np.argmax(accuracy))]
