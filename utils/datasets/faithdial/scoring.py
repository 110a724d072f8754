"""Scoring a model on FaithDial (see :mod:`utils.scoring` for the machinery).

Both tasks are keyed by the dialogue's id and the wizard turn's position in it (from 0, as ``atlas
show`` numbers turns), one JSON object per line, on the utterance records of a split (the wizard
turns FaithDial annotates):

* ``generation``: ``{"dialogue": "<id>", "turn": 4, "text": "..."}``, against the faithful response.
  FaithDial's repository (McGill-NLP/FaithDial) holds no response metric, so the variants are
  ParlAI's ``f1_parlai`` and ``knowledge_f1_parlai`` (F1 against the knowledge the turn rests on),
  ``f1_kilt`` (SQuAD's normaliser), and the chapter's own measures of its baselines:
  ``bleu_sacrebleu`` (sacrebleu's corpus BLEU, from per-response statistics summed over each
  resample), ``rouge_l_atlas`` (rouge-score's ROUGE-L F) and ``knowledge_precision_atlas`` (the share
  of the reply's words found in the knowledge).
* ``critic``: ``{"dialogue": "<id>", "turn": 4, "score": 0.83}``, a probability that the labelled
  response (the WoW original where annotators rewrote it) is hallucinated, on the records whose
  BEGIN label the authors' critic data converts (``critic_label``). ``accuracy_faithdial`` and
  ``macro_f1_faithdial`` decide as the authors' critic does, the class with the larger probability
  (``argmax``: hallucinated above 0.5), and average F1 over the two classes as torchmetrics' macro
  F1 does (classes neither predicted nor present left out); ``roc_auc_atlas`` needs no decision.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import DataError
from ...metrics import BLEU_STATISTICS, bleu_from_statistics, bleu_statistics, rouge_l
from ...scoring import Gold, Metric, Prediction, Task, auc_rows, json_lines
from ..wow.scoring import KILT_DOWNSTREAM, PARLAI_F1, PARLAI_WOW, bertscore, response_rows
from .baselines import critic_label, knowledge_precision

_CRITIC = "McGill-NLP/FaithDial models/critic.py at d8dc393 (torchmetrics 0.7 Accuracy, F1Score macro, argmax)"
_CHAPTER = "the atlas's FaithDial chapter (utils/datasets/faithdial/baselines.py, score_responses)"
_ATLAS = f"{_CHAPTER}: rouge-score's ROUGE-L F"


def _reader(field: str, kind: type | tuple[type, ...]) -> Any:
    def read(path: Path) -> list[Prediction]:
        found = []
        for line, record in json_lines(path):
            for key, expected in (("dialogue", str), ("turn", int), (field, kind)):
                if key not in record:
                    raise DataError("required field is missing", path=path, record=f"line {line}", field=key)
                if isinstance(record[key], bool) or not isinstance(record[key], expected):
                    raise DataError(f"expected {'a number' if key == 'score' else expected}, found "
                                    f"{type(record[key]).__name__}", path=path, record=f"line {line}", field=key)
            if field == "score" and not np.isfinite(record[field]):
                raise DataError("expected a finite number", path=path, record=f"line {line}", field=field)
            found.append(Prediction(f"{record['dialogue']}:{record['turn']}", record[field], line))
        return found

    return read


def _records(split: str) -> tuple[Any, Any]:
    from ...loading import load
    from .stats import utterances

    loaded = load("faithdial", split)
    return loaded, utterances(loaded)


def _generation_gold(split: str) -> Gold:
    loaded, frame = _records(split)
    answers = {f"{d}:{t}": {"response": r, "knowledge": k} for d, t, r, k in
               zip(frame["dialogue_id"], frame["turn_index"], frame["response"], frame["knowledge"], strict=True)}
    units = {key: key.rpartition(":")[0] for key in answers}
    return Gold(tuple(answers), answers, units, split=loaded, path=Path(loaded.provenance.path))


def _critic_gold(split: str) -> Gold:
    loaded, frame = _records(split)
    answers = {}
    for d, t, begin in zip(frame["dialogue_id"], frame["turn_index"], frame["BEGIN"], strict=True):
        label = critic_label(begin)
        if label is not None:
            answers[f"{d}:{t}"] = label
    units = {key: key.rpartition(":")[0] for key in answers}
    return Gold(tuple(answers), answers, units, split=loaded, path=Path(loaded.provenance.path))


def _generation_examples(gold: Gold, ids: Sequence[str], values: Sequence[Any]) -> tuple[dict[str, np.ndarray],
                                                                                       list[dict[str, Any]]]:
    answers = [gold.answers[i] for i in ids]
    references = [a["response"] for a in answers]
    columns, rows = response_rows(ids, values, references, [a["knowledge"] for a in answers])
    for row, text, answer in zip(rows, values, answers, strict=True):
        row["rouge_l"] = rouge_l(text, answer["response"]).f1
        row["knowledge_precision"] = knowledge_precision(text, answer["knowledge"])
        row.update(bleu_statistics(text, answer["response"]))
    for name in ("rouge_l", "knowledge_precision", *BLEU_STATISTICS):
        columns[name] = np.array([row[name] for row in rows], dtype=float)
    return columns, rows


def corpus_bleu(sums: Mapping[str, np.ndarray]) -> np.ndarray:
    """sacrebleu's corpus BLEU (0-100) of each row of summed statistics."""
    return np.array([bleu_from_statistics({name: values[row] for name, values in sums.items()})
                     for row in range(len(sums[BLEU_STATISTICS[0]]))])


def _critic_examples(gold: Gold, ids: Sequence[str], values: Sequence[Any]) -> tuple[dict[str, np.ndarray],
                                                                                   list[dict[str, Any]]]:
    labels = np.array([gold.answers[i] for i in ids], dtype=int)
    scores = np.array(values, dtype=float)
    rows = [{"id": i, "hallucinated": int(y), "score": float(s)} for i, y, s in zip(ids, labels, scores, strict=True)]
    return {"label": labels, "score": scores}, rows


def roc_auc(columns: Mapping[str, np.ndarray]) -> np.ndarray:
    return auc_rows(columns["label"], columns["score"])


def accuracy(columns: Mapping[str, np.ndarray]) -> np.ndarray:
    return ((columns["score"] > 0.5).astype(int) == columns["label"]).mean(axis=1)


def macro_f1(columns: Mapping[str, np.ndarray]) -> np.ndarray:
    """torchmetrics' macro F1 over the two classes, leaving out a class neither predicted nor present."""
    predicted, labels = (columns["score"] > 0.5).astype(int), columns["label"]
    per_class = []
    for value in (0, 1):
        true_positive = ((predicted == value) & (labels == value)).sum(axis=1)
        counted = (predicted == value).sum(axis=1) + (labels == value).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            per_class.append(np.where(counted > 0, 2 * true_positive / counted, np.nan))
    return np.nanmean(np.vstack(per_class), axis=0)


TASKS = (
    Task(
        "generation", "the faithful response at each utterance record",
        'one JSON object per line: {"dialogue": "<dialogue id>", "turn": <wizard turn index>, "text": "<reply>"}',
        _generation_gold, _reader("text", str), _generation_examples,
        (
            Metric("f1_parlai", PARLAI_F1, "token F1, ParlAI's normaliser (punctuation to spaces)", "f1_parlai"),
            Metric("f1_kilt", KILT_DOWNSTREAM, "token F1, SQuAD's normaliser (punctuation deleted)", "f1_kilt"),
            Metric("knowledge_f1_parlai", PARLAI_WOW, "f1_parlai against the knowledge, not the response",
                   "knowledge_f1_parlai"),
            Metric("bleu_sacrebleu", f"{_CHAPTER}: sacrebleu 2's BLEU().corpus_score",
                   "corpus BLEU 0-100 (13a tokens, case kept, exponential smoothing), not a mean of sentence scores",
                   summed=BLEU_STATISTICS,
                   from_sums=corpus_bleu),
            Metric("rouge_l_atlas", _ATLAS, "ROUGE-L F of rouge-score (its own tokeniser)", "rouge_l"),
            Metric("knowledge_precision_atlas", _CHAPTER, "share of the reply's words found in the knowledge (ParlAI "
                   "tokens, counted as multisets): a crude faithfulness proxy, no reference", "knowledge_precision"),
        ),
        notes=("FaithDial's repository holds no response metric: these are ParlAI's, KILT's and the chapter's.",),
        weights=(bertscore("response"),),
    ),
    Task(
        "critic", "a probability that each labelled response is hallucinated",
        'one JSON object per line: {"dialogue": "<dialogue id>", "turn": <wizard turn index>, "score": <0-1>}',
        _critic_gold, _reader("score", (int, float)), _critic_examples,
        (
            Metric("accuracy_faithdial", _CRITIC, "hallucinated when the score is above 0.5 (argmax)",
                   statistic=accuracy),
            Metric("macro_f1_faithdial", _CRITIC, "F1 averaged over both classes, decided as accuracy_faithdial",
                   statistic=macro_f1),
            Metric("roc_auc_atlas", "the atlas's FaithDial chapter (scikit-learn's roc_auc_score)",
                   "ROC AUC of the score, no decision", statistic=roc_auc),
        ),
    ),
)

#: ``faithdial_audit`` shares this folder; without its own name here it would take ``TASKS`` above,
#: which score FaithDial's splits, not the audit's files: it has no task yet.
AUDIT_TASKS: tuple[Task, ...] = ()
