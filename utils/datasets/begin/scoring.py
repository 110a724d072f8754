"""Scoring a critic of attribution on BEGIN (see :mod:`utils.scoring` for the machinery).

A critic gives each response a score of **not fully attributable** (higher: less supported by the
knowledge snippet), one JSON object per line, keyed by the atlas's ids of BEGIN's rows
(``<split>-<row>``, rows counted from 0 after the header, as ``atlas show`` and ``atlas export`` give
them)::

    {"id": "wow_test-12", "score": 0.83}

The task is the chapter's binary one: Generic responses are left out (a line for one is an unknown
id), Not fully attributable is the positive class. Scoring a test split takes the scores of its dev
split's responses too, in the same file: the decision threshold is fitted there, where the chapter
fits its critics' thresholds (the best accuracy on dev, ties to the lowest: the FaithDial chapter's
``best_threshold``), and applied to the test responses. Scoring a dev split fits the threshold on that
split itself, which flatters the accuracy, and the metric's name says so.

The chapter's two critics scored through ``atlas score`` get the chapter's ROC AUC, accuracy and F1
(a test checks it on BEGIN's WoW files): the lexical critic's threshold is fitted on knowledge
precision in the chapter and on its complement here, and the tie rule of
:func:`~utils.datasets.faithdial.baselines.best_threshold` (the threshold that flags the fewest) makes
the two fits flag the same responses.

BEGIN's authors (google/BEGIN-dataset) publish the labels and no scoring script: these metrics are the
chapter's definitions, named as such.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import DataError
from ...scoring import Gold, Metric, Prediction, Task, auc_rows, json_lines
from ..faithdial.baselines import best_threshold
from .baselines import dev_test_pairs
from .parser import GENERIC, NOT_FULLY

_CHAPTER = "the atlas's BEGIN chapter (notebooks/begin.ipynb; utils/datasets/begin/baselines.py)"


def read_critic_scores(path: Path) -> list[Prediction]:
    """``{"id": ..., "score": number}`` lines; a missing or non-numeric score names its line."""
    found = []
    for line, record in json_lines(path):
        where = f"line {line}"
        for key, kinds in (("id", str), ("score", (int, float))):
            if key not in record:
                raise DataError("required field is missing", path=path, record=where, field=key)
            if isinstance(record[key], bool) or not isinstance(record[key], kinds):
                raise DataError(f"expected a {'string' if key == 'id' else 'number'}, found "
                                f"{type(record[key]).__name__}", path=path, record=where, field=key)
        if not np.isfinite(record["score"]):
            raise DataError("expected a finite number", path=path, record=where, field="score")
        found.append(Prediction(record["id"], float(record["score"]), line))
    return found


def _critic_gold(split: str) -> Gold:
    """The split's Fully and Not fully attributable responses (and, for a test split, its dev split's)."""
    from ...loading import load
    from . import BEGIN  # the folder's own declaration: its splits, without asking the registry

    pairs = dev_test_pairs(list(BEGIN.splits))
    names = [pairs[split], split] if split in pairs else [split]
    ids: list[str] = []
    answers: dict[str, Any] = {}
    loaded = None
    for name in names:
        loaded = load("begin", name)
        for dialogue in loaded:
            label = dialogue.meta["label"]
            if label == GENERIC:
                continue
            ids.append(dialogue.id)
            answers[dialogue.id] = {"label": int(label == NOT_FULLY), "fit": name != split}
    return Gold(tuple(ids), answers, {i: i for i in ids}, split=loaded,
                path=Path(loaded.provenance.path) if loaded is not None else None)


def _critic_examples(gold: Gold, ids: Sequence[str], values: Sequence[Any]) -> tuple[dict[str, np.ndarray],
                                                                                   list[dict[str, Any]]]:
    labels = np.array([gold.answers[i]["label"] for i in ids], dtype=int)
    fit = np.array([gold.answers[i]["fit"] for i in ids], dtype=bool)
    scores = np.array(values, dtype=float)
    rows = [{"id": i, "label": int(label), "score": float(score), "fits_threshold": bool(f)}
            for i, label, score, f in zip(ids, labels, scores, fit, strict=True)]
    return {"label": labels, "score": scores, "fit": fit}, rows


def _each_row(columns: Mapping[str, np.ndarray]) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    return list(zip(columns["label"], columns["score"], columns["fit"], strict=True))


def roc_auc(columns: Mapping[str, np.ndarray]) -> np.ndarray:
    """ROC AUC on the scored split's responses (not the dev responses a threshold is fitted on)."""
    return np.array([auc_rows(label[~fit][None, :], score[~fit][None, :])[0] for label, score, fit in
                     _each_row(columns)])


def _thresholded(columns: Mapping[str, np.ndarray]) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(labels, decisions)`` of the scored responses per row, at the threshold fitted on the dev rows
    (on the scored rows themselves when none is given)."""
    decided = []
    for label, score, fit in _each_row(columns):
        fitted_on = fit if fit.any() else ~fit
        if not fitted_on.any():
            decided.append((label[:0], label[:0]))
            continue
        threshold = best_threshold(score[fitted_on], label[fitted_on], flag_below=False)
        decided.append((label[~fit], (score[~fit] >= threshold).astype(int)))
    return decided


def accuracy(columns: Mapping[str, np.ndarray]) -> np.ndarray:
    return np.array([float((d == y).mean()) if y.size else np.nan for y, d in _thresholded(columns)])


def f1_not_fully(columns: Mapping[str, np.ndarray]) -> np.ndarray:
    values = []
    for y, d in _thresholded(columns):
        total = int(d.sum() + y.sum())
        values.append(2 * float((d * y).sum()) / total if total else 0.0)
    return np.array(values)


TASKS = (
    Task(
        name="critic",
        description="a critic's score of 'not fully attributable' for each Fully or Not fully attributable response",
        format='one JSON object per line: {"id": "<split>-<row>", "score": <number, higher = less attributable>}; '
        "a test split's file holds its dev split's responses too (the threshold is fitted there)",
        gold=_critic_gold,
        read=read_critic_scores,
        examples=_critic_examples,
        metrics=(
            Metric("roc_auc_begin", _CHAPTER, "ROC AUC of the score, Generic responses left out; no threshold",
                   statistic=roc_auc),
            Metric("accuracy_begin_dev_threshold", _CHAPTER, "accuracy at the threshold with the best accuracy on "
                   "the dev split (on the scored split itself when it is a dev split: optimistic)", statistic=accuracy),
            Metric("f1_begin_dev_threshold", _CHAPTER, "F1 of Not fully attributable at the same threshold",
                   statistic=f1_not_fully),
        ),
        notes=("BEGIN's authors publish no scoring script: these are the chapter's definitions.",),
    ),
)
