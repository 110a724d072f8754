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
