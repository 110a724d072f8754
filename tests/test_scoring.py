"""The scoring machinery (utils.scoring), on numbers made by hand: the dialogue-level bootstrap,
coverage, and the names a wrong command line is answered with."""

from __future__ import annotations

import math

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
