"""Scoring a model on WISE's six sub-tasks (see :mod:`utils.scoring` for the machinery).

One task per sub-task, each a JSON object per line for one system turn, keyed by the conversation's id
and the system turn's position in it (from 0, as ``atlas show`` numbers turns), with one field:

=====  ==============================  ==========================================================
task   field                           what
=====  ==============================  ==========================================================
T1     ``"intent": "Reveal"``          the intent of the latest user utterance
T2     ``"state": ["...", ...]``       the keyphrases of the system's state
T3     ``"action": "Answer-fact-text"`` the system action (the published name)
T4     ``"queries": ["...", ...]``     the selected queries
T5     ``"passages": ["<id>", ...]``   the selected passage ids
T6     ``"response": "..."``           the system's reply
=====  ==============================  ==========================================================

Each is scored twice, with names that say so (:mod:`utils.datasets.wise.baselines` holds both):

* ``wise_authors``: as the authors' ``evaluation/Evaluation.py`` (PengjieRen/CaSE_WISE) scores it: T1 a
  macro average over the gold classes, precision only over the classes predicted; T3 the same divided
  by (classes + 1); T2, T4, T5 and T6 only on gold Clarify and Answer turns, averaged per gold action,
  the averages summed and divided by (actions + 1); T2 skips a turn with no predicted keyphrase;
  BLEU-1 and ROUGE-L on the authors' character tokens.
* ``wise_plain``: T1 and T3 scikit-learn's macro average over every gold or predicted class; the others
  the plain mean of the same per-turn scores over the same turns.

The authors' ``evaluate`` skips a gold turn that has no prediction; here a file that misses one is
refused unless ``--allow-missing`` (and the record then says how many were missing).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import DataError
from ...metrics import PRF, set_prf
from ...scoring import Gold, Metric, Prediction, Task, json_lines
from . import GITHUB_COMMIT
from .baselines import (
    char_bleu1,
    char_rouge_l,
    original_macro_prf,
    phrases_scores,
    scored_action,
    standard_macro_prf,
    system_turn_examples,
)

_AUTHORS = f"PengjieRen/CaSE_WISE evaluation/Evaluation.py at {GITHUB_COMMIT[:7]}"
_PLAIN = "the atlas's plain average (utils/datasets/wise/baselines.py) beside the authors'"


def _reader(field: str, kind: type) -> Callable[[Path], list[Prediction]]:
    def read(path: Path) -> list[Prediction]:
        found = []
        for line, record in json_lines(path):
            where = f"line {line}"
            for key, expected in (("conversation", str), ("turn", int), (field, kind)):
                if key not in record:
                    raise DataError("required field is missing", path=path, record=where, field=key)
                value = record[key]
                if isinstance(value, bool) or not isinstance(value, expected):
                    raise DataError(f"expected {'a list' if expected is list else 'a ' + expected.__name__}, found "
                                    f"{type(value).__name__}", path=path, record=where, field=key)
            value = record[field]
            if kind is list:
                for position, item in enumerate(value):
                    if not isinstance(item, str):
                        raise DataError(f"expected a string, found {type(item).__name__}", path=path, record=where,
                                        field=f"{field}[{position}]")
                value = tuple(value)
            found.append(Prediction(f"{record['conversation']}:{record['turn']}", value, line))
        return found

    return read


def _gold(split: str) -> Gold:
    from ...loading import load

    loaded = load("wise", split)
    examples = system_turn_examples(loaded)
    answers = {f"{e.dialogue_id}:{e.turn_index}": e for e in examples}
    units = {key: e.dialogue_id for key, e in answers.items()}
    return Gold(tuple(answers), answers, units, split=loaded, path=Path(loaded.provenance.path))


# -- T1 and T3: labels ------------------------------------------------------------------------------------


def _label_examples(target: str) -> Callable[..., tuple[dict[str, np.ndarray], list[dict[str, Any]]]]:
    def examples(gold: Gold, ids: Sequence[str], values: Sequence[Any]) -> tuple[dict[str, np.ndarray],
                                                                                 list[dict[str, Any]]]:
        gold_labels = [getattr(gold.answers[i], target) for i in ids]
        codes: dict[str, int] = {}
        rows = [{"id": i, "gold": g, "predicted": p} for i, g, p in zip(ids, gold_labels, values, strict=True)]
        return {
            "gold": np.array([codes.setdefault(g, len(codes)) for g in gold_labels], dtype=int),
            "predicted": np.array([codes.setdefault(p, len(codes)) for p in values], dtype=int),
        }, rows

    return examples


def _macro(average: Callable[[list[Any], list[Any]], PRF], part: str) -> Callable[[Mapping[str, np.ndarray]],
                                                                                   np.ndarray]:
    def statistic(columns: Mapping[str, np.ndarray]) -> np.ndarray:
        return np.array([getattr(average(list(g), list(p)), part)
                         for g, p in zip(columns["gold"], columns["predicted"], strict=True)])

    return statistic


def _label_metrics(task: str, plus_one: bool) -> tuple[Metric, ...]:
    def authors(g: list[Any], p: list[Any]) -> PRF:
        return original_macro_prf(g, p, plus_one=plus_one)

    what = "precision over the gold classes predicted" + (", every sum divided by (classes + 1)" if plus_one else "")
    return tuple(
        Metric(f"{task}_{part[0] if part != 'f1' else 'f1'}_wise_{kind}", source, differs,
               statistic=_macro(average, part))
        for kind, source, differs, average in (
            ("authors", _AUTHORS, f"macro over the gold classes; {what}", authors),
            ("plain", _PLAIN, "scikit-learn's macro over every gold or predicted class", standard_macro_prf),
        )
        for part in ("precision", "recall", "f1")
    )


# -- T2, T4, T5, T6: per-turn scores averaged per gold action ----------------------------------------------


def _per_action(scores: np.ndarray, actions: np.ndarray, kept: np.ndarray) -> float:
    """The authors' average: the mean per gold action of the kept turns, summed, over (actions + 1)."""
    chosen = np.flatnonzero(kept)
    if not chosen.size:
        return 0.0
    present = np.unique(actions[chosen])
    return float(sum(scores[chosen][actions[chosen] == a].mean() for a in present) / (len(present) + 1))


def _averaged(column: str, kept: str, authors: bool) -> Callable[[Mapping[str, np.ndarray]], np.ndarray]:
    def statistic(columns: Mapping[str, np.ndarray]) -> np.ndarray:
        values = []
        for scores, actions, keep in zip(columns[column], columns["action"], columns[kept], strict=True):
            if authors:
                values.append(_per_action(scores, actions, keep.astype(bool)))
            else:
                values.append(float(scores[keep.astype(bool)].mean()) if keep.any() else 0.0)
        return np.array(values)

    return statistic


def _with_actions(rows: list[dict[str, Any]], measures: Sequence[str]) -> dict[str, np.ndarray]:
    """The columns of per-turn ``rows``: each measure, the gold action as a code and whether it is scored."""
    columns = {name: np.array([row[name] for row in rows], dtype=float) for name in measures}
    codes: dict[str, int] = {}
    columns["action"] = np.array([codes.setdefault(row["action"], len(codes)) for row in rows], dtype=int)
    columns["scored"] = np.array([row["scored"] for row in rows], dtype=bool)
    return columns


def _selection_examples(target: str) -> Callable[..., tuple[dict[str, np.ndarray], list[dict[str, Any]]]]:
    def examples(gold: Gold, ids: Sequence[str], values: Sequence[Any]) -> tuple[dict[str, np.ndarray],
                                                                                 list[dict[str, Any]]]:
        rows: list[dict[str, Any]] = []
        for i, predicted in zip(ids, values, strict=True):
            example = gold.answers[i]
            items = getattr(example, target)
            hits = len(set(items) & set(predicted))
            p = hits / len(predicted) if predicted else 0.0
            r = hits / len(items) if items else 0.0
            plain = set_prf(predicted, items)
            rows.append({"id": i, "action": example.action, "scored": bool(scored_action(example.action) and items),
                         "precision": p, "recall": r, "f1": 2.0 * (p * r / (p + r + 1e-8)),
                         "predicted_any": bool(predicted), "plain_precision": plain.precision,
                         "plain_recall": plain.recall, "plain_f1": plain.f1})
        columns = _with_actions(rows, ("precision", "recall", "f1", "plain_precision", "plain_recall", "plain_f1"))
        # the authors record a turn's precision only when something was predicted
        columns["scored_precision"] = columns["scored"] & np.array([row["predicted_any"] for row in rows])
        return columns, rows

    return examples


def _selection_metrics(task: str) -> tuple[Metric, ...]:
    authors = "gold Clarify/Answer turns with a gold selection, per gold action, summed over (actions + 1)"
    return (
        Metric(f"{task}_p_wise_authors", _AUTHORS, authors + "; precision only where something was predicted",
               statistic=_averaged("precision", "scored_precision", True)),
        Metric(f"{task}_r_wise_authors", _AUTHORS, authors, statistic=_averaged("recall", "scored", True)),
        Metric(f"{task}_f1_wise_authors", _AUTHORS, authors, statistic=_averaged("f1", "scored", True)),
        Metric(f"{task}_p_wise_plain", _PLAIN, "mean set precision over the same turns",
               statistic=_averaged("plain_precision", "scored", False)),
        Metric(f"{task}_r_wise_plain", _PLAIN, "mean set recall over the same turns",
               statistic=_averaged("plain_recall", "scored", False)),
        Metric(f"{task}_f1_wise_plain", _PLAIN, "mean set F1 over the same turns",
               statistic=_averaged("plain_f1", "scored", False)),
    )


def _text_examples(target: str) -> Callable[..., tuple[dict[str, np.ndarray], list[dict[str, Any]]]]:
    def examples(gold: Gold, ids: Sequence[str], values: Sequence[Any]) -> tuple[dict[str, np.ndarray],
                                                                                 list[dict[str, Any]]]:
        rows: list[dict[str, Any]] = []
        for i, predicted in zip(ids, values, strict=True):
            example = gold.answers[i]
            if target == "response":
                scored = scored_action(example.action)
                bleu, rouge = (char_bleu1(predicted, example.response), char_rouge_l(predicted, example.response))
            else:  # T2: a turn with no gold or no predicted keyphrase is not scored (as the authors skip it)
                scored = bool(scored_action(example.action) and example.state and predicted)
                bleu, rouge = phrases_scores(predicted, example.state) if scored else (0.0, 0.0)
            rows.append({"id": i, "action": example.action, "scored": scored, "bleu1": bleu, "rouge_l": rouge})
        return _with_actions(rows, ("bleu1", "rouge_l")), rows

    return examples


def _text_metrics(task: str) -> tuple[Metric, ...]:
    authors = "gold Clarify/Answer turns, per gold action, summed over (actions + 1); NLTK 3.5 BLEU-1, beta 1.2"
    return tuple(
        Metric(f"{task}_{measure}_wise_{kind}", source, differs,
               statistic=_averaged(measure, "scored", kind == "authors"))
        for kind, source, differs in (("authors", _AUTHORS, authors), ("plain", _PLAIN, "plain mean, same turns"))
        for measure in ("bleu1", "rouge_l")
    )


_FORMAT = 'one JSON object per line: {{"conversation": "<id>", "turn": <system turn index>, {field}}}'

TASKS = (
    Task("T1", "the intent of the latest user utterance", _FORMAT.format(field='"intent": "<name>"'), _gold,
         _reader("intent", str), _label_examples("intent"), _label_metrics("t1", plus_one=False)),
    Task("T2", "the keyphrases of the system's state", _FORMAT.format(field='"state": ["<phrase>", ...]'), _gold,
         _reader("state", list), _text_examples("state"), _text_metrics("t2")),
    Task("T3", "the system action", _FORMAT.format(field='"action": "<name>"'), _gold,
         _reader("action", str), _label_examples("action"), _label_metrics("t3", plus_one=True)),
    Task("T4", "the selected queries", _FORMAT.format(field='"queries": ["<query>", ...]'), _gold,
         _reader("queries", list), _selection_examples("selected_queries"), _selection_metrics("t4")),
    Task("T5", "the selected passages", _FORMAT.format(field='"passages": ["<passage id>", ...]'), _gold,
         _reader("passages", list), _selection_examples("selected_passages"), _selection_metrics("t5")),
    Task("T6", "the system's reply", _FORMAT.format(field='"response": "<text>"'), _gold,
         _reader("response", str), _text_examples("response"), _text_metrics("t6")),
)
