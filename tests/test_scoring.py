"""The scoring machinery (utils.scoring), on numbers made by hand: the dialogue-level bootstrap,
coverage, and the names a wrong command line is answered with."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from utils.cli import main
from utils.errors import UnknownNameError
from utils.scoring import (
    Draws,
    auc_of_draws,
    auc_rows,
    bootstrap_intervals,
    check_coverage,
    choose_task,
    percentile_interval,
    resample_index,
)


def test_a_resample_of_dialogues_holds_every_turn_of_each_dialogue_drawn() -> None:
    groups = ["a", "a", "a", "b", "c", "c"]
    values = np.array([1.0, 0.0, 1.0, 0.0, 1.0, 1.0])
    draws = Draws.drawn(groups, resamples=200, seed=3)
    members = {0: [0, 1, 2], 1: [3], 2: [4, 5]}  # units numbered by first appearance
    expected = [values[[i for unit in row for i in members[unit]]].mean() for row in draws.draws]
    assert np.allclose(draws.means(values), expected)
    # a statistic of the whole sample sees the same resamples
    assert np.allclose(draws.statistic(lambda c: c["v"].mean(axis=1), {"v": values}), expected)


def test_one_example_per_unit_resamples_the_examples_themselves() -> None:
    values = np.arange(10, dtype=float)
    draws = Draws.drawn([str(i) for i in range(10)], resamples=50, seed=1)
    assert draws.singletons
    assert np.allclose(draws.means(values), values[draws.draws].mean(axis=1))
    direct = bootstrap_intervals(lambda index: {"mean": values[index].mean(axis=1)}, 10, resamples=50, seed=1)
    assert direct["mean"][1:] == percentile_interval(draws.means(values))


def test_percentile_interval_leaves_undefined_resamples_out() -> None:
    assert percentile_interval(np.array([np.nan, 1.0, 1.0])) == (1.0, 1.0)
    assert all(math.isnan(v) for v in percentile_interval(np.array([np.nan])))


def test_coverage_lists_missing_repeated_and_unknown_ids_in_order() -> None:
    coverage = check_coverage(["a", "b", "c"], ["c", "x", "a", "a"])
    assert (coverage.missing, coverage.duplicate, coverage.unknown) == (("b",), ("a",), ("x",))
    assert coverage.problems() == ["1 missing id (b)", "1 repeated id (a)", "1 unknown id (x)"]
    assert check_coverage(["a"], ["a"]).complete


def test_a_dataset_without_a_scorer_or_an_unknown_task_lists_the_valid_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from utils import scoring

    declared = scoring.tasks_of
    monkeypatch.setattr(scoring, "tasks_of", lambda name: {} if name == "jwhr" else declared(name))
    with pytest.raises(UnknownNameError, match="wow_kilt"):
        choose_task("jwhr", None)
    with pytest.raises(UnknownNameError, match="choose one of: kilt"):
        choose_task("wow_kilt", "nope")


def test_score_has_help_and_refuses_an_unknown_dataset(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["score", "--help"])
    assert exited.value.code == 0
    assert "--allow-missing" in capsys.readouterr().out
    assert main(["score", "nope", "dev", "p.jsonl"]) == 2


def test_every_metric_is_a_named_variant_with_its_source() -> None:
    from utils.scoring import formats_frame, variants_frame

    variants = variants_frame()
    assert set(variants["dataset"]) == {"wow", "wow_kilt", "faithdial", "wise", "jwhr", "begin"}
    assert not variants.duplicated(["dataset", "task", "metric"]).any()
    assert not variants["metric"].isin(["f1", "F1", "accuracy", "bleu", "rouge_l"]).any()  # never one bare "F1"
    assert variants["definition"].str.len().gt(0).all() and variants["what differs"].str.len().gt(0).all()
    assert len(formats_frame()) == variants.groupby(["dataset", "task"]).ngroups


def test_the_weights_tier_says_what_it_would_install_and_download_and_fetches_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    from utils.cli import main
    from utils.scoring import tasks_of, weights_frame

    listed = weights_frame()
    assert set(listed["dataset"]) >= {"wow", "faithdial"} and (listed["model"] == "roberta-large").all()
    gold = tasks_of("wow")["generation"].gold("test_seen")
    path = tmp_path / "replies.jsonl"
    path.write_text("".join(json.dumps({"dialogue": int(i.split(":")[0]), "turn": int(i.split(":")[1]), "text": "hi"})
                            + "\n" for i in gold.ids), encoding="utf-8")
    if importlib.util.find_spec("bert_score") is None:  # the package is optional: absent, it is named
        assert main(["score", "wow", "test_seen", str(path), "--with-weights"]) == 1
        said = capsys.readouterr().err
        assert "pip install bert-score" in said and "roberta-large" in said and "1.4 GB" in said
    monkeypatch.setenv("ATLAS_OFFLINE", "1")
    assert main(["score", "wow_kilt", "dev", str(path), "--with-weights"]) != 0  # KILT's task has no such metric
    assert "no metric that needs model weights" in capsys.readouterr().err


def test_a_weights_metric_is_measured_per_example_beside_the_task_s_own(tmp_path: Path) -> None:
    """The tier's plumbing with a metric whose 'model' is a plain length ratio, so that it runs here."""
    from dataclasses import replace

    import numpy as np

    import utils.scoring as scoring
    from utils.scoring import WeightsMetric, choose_task

    def length_ratio(predictions: list[str], references: list[str]) -> np.ndarray:
        pairs = zip(predictions, references, strict=True)
        return np.array([min(len(p), len(r)) / max(len(p), len(r), 1) for p, r in pairs])

    extra = WeightsMetric("length_ratio", "a test's own definition", "no model", package="numpy", module="numpy",
                          model="none", download="nothing", compute=length_ratio)
    task = replace(choose_task("wow", "generation"), weights=(extra,))
    with_it = scoring._with_weights(task)
    gold = task.gold("test_seen")
    replies = [gold.answers[i]["text"] for i in gold.ids]
    columns, rows = with_it.examples(gold, list(gold.ids), replies)
    assert list(columns["length_ratio"]) == [1.0] * len(gold.ids) and rows[0]["length_ratio"] == 1.0
    assert with_it.metrics[-1].name == "length_ratio"


@pytest.mark.parametrize("n", [1, 2, 7, 400])
def test_auc_of_draws_equals_ranking_every_resample_to_the_last_bit(n: int) -> None:
    """The counted AUC (issue 50, item 9) against rankdata of every row: equal floats, ties, rows with one
    class (NaN) and scores holding NaN (which take the ranked route) included."""
    rng = np.random.default_rng(n)
    for trial in range(12):
        labels = rng.integers(0, 2, n)
        scores = rng.integers(0, 5, n) / 5.0 if trial % 2 else rng.random(n)  # many ties, or none
        if trial == 4:
            labels[:] = 1
        if trial == 6:
            scores[0] = np.nan
        index = resample_index(n, 200, trial)
        expected = auc_rows(labels[index], scores[index])
        found = auc_of_draws(labels, scores, index)
        assert found.dtype == expected.dtype
        assert np.array_equal(found, expected, equal_nan=True)


def test_the_tier_refuses_offline_a_model_not_cached_and_says_online_that_it_downloads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the package present (as if installed) and the model not in the Hugging Face cache: refused
    with downloads off, announced before the download with them on."""
    import importlib.util

    from utils.errors import AtlasError
    from utils.scoring import tasks_of

    extra = tasks_of("wow")["generation"].weights[0]
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *args: object() if name == extra.module else find_spec(name, *args))
    monkeypatch.setattr("huggingface_hub.try_to_load_from_cache", lambda *args, **kwargs: None)
    monkeypatch.setenv("ATLAS_OFFLINE", "1")
    with pytest.raises(AtlasError, match="downloads are off and the model is not in the cache"):
        extra.check_available()
    monkeypatch.delenv("ATLAS_OFFLINE")
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")  # "0" is not offline
    with pytest.warns(UserWarning, match="roberta-large.*downloading it now"):
        extra.check_available()
