"""BEGIN critics through ``utils.score`` / ``atlas score begin``: the chapter's critics get the chapter's AUCs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import utils
from utils.datasets.begin import baselines, stats
from utils.datasets.begin.scoring import accuracy, roc_auc
from utils.errors import DataError


def _write(path: Path, ids: list[str], scores: np.ndarray) -> Path:
    path.write_text("".join(json.dumps({"id": i, "score": float(s)}) + "\n" for i, s in zip(ids, scores, strict=True)))
    return path


def test_auc_and_dev_threshold_on_hand_computed_rows() -> None:
    # dev rows (fit) place the threshold between 0.4 and 0.6; the test rows are ranked perfectly but
    # one positive falls under the threshold
    columns = {  # one row: the statistics take (resamples, examples) arrays
        "label": np.array([[0, 1, 0, 1, 0, 1]]),
        "score": np.array([[0.4, 0.6, 0.1, 0.9, 0.2, 0.45]]),
        "fit": np.array([[True, True, False, False, False, False]]),
    }
    assert roc_auc(columns)[0] == 1.0
    assert accuracy(columns)[0] == 0.75  # the threshold (0.5) flags 0.9 only: three of four right


def test_a_score_that_is_not_a_number_names_its_line(tmp_path: Path) -> None:
    split = utils.load("begin", "wow_dev")
    first = next(d.id for d in split if d.meta["label"] != "Generic")
    path = tmp_path / "scores.jsonl"
    path.write_text(json.dumps({"id": first, "score": "high"}) + "\n")
    with pytest.raises(DataError) as caught:
        utils.score("begin", "wow_dev", path)
    assert caught.value.record == "line 1" and caught.value.field == "score"


def test_the_chapters_critics_scored_through_the_command_get_the_chapters_aucs(
    real_data_dir: Path, tmp_path: Path
) -> None:
    splits = {name: utils.load("begin", name) for name in ("wow_dev", "wow_test")}
    if not all(split.provenance.is_full for split in splits.values()):
        pytest.skip("BEGIN's WoW files are not in the data directory")
    examples = baselines.critic_examples(stats.response_frame(splits))
    ids = [d.id for name in splits for d in splits[name] if d.meta["label"] != "Generic"]
    evaluation = baselines.evaluate_on_test(examples, {"wow_test": "wow_dev"}).set_index("critic")
    critics = baselines.fit_critics(examples[examples["split"] == "wow_dev"], fitted_on="wow_dev")
    lexical = baselines.LexicalCritic.scores(examples["response"], examples["knowledge"])
    feature = critics[baselines.FEATURE].scores(examples)
    for name, scores in ((baselines.LEXICAL, lexical), (baselines.FEATURE, feature)):
        scored = utils.score("begin", "wow_test", _write(tmp_path / "scores.jsonl", ids, scores))
        assert scored.value("roc_auc_begin") == pytest.approx(evaluation.loc[name, "ROC AUC"], abs=1e-12), name
        # the lexical critic's threshold is fitted on precision in the chapter, on the score here: the
        # tie rule flags the fewest either way, so accuracy and F1 agree too (0.8625 against 0.8584 once)
        assert scored.value("accuracy_begin_dev_threshold") == pytest.approx(
            evaluation.loc[name, "accuracy"], abs=1e-12), name
        assert scored.value("f1_begin_dev_threshold") == pytest.approx(evaluation.loc[name, "F1"], abs=1e-12), name
