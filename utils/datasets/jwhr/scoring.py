"""Scoring a model on the Japanese Wikipedia Human Retrieval sessions (see :mod:`utils.scoring`).

JWHR's authors published the sessions and **no scoring script or metric**: every metric here is the
atlas's own definition, and its name ends in ``_atlas`` to say so. Both tasks are on the answered
sessions (the ``answered`` split), keyed by the session's id, one JSON object per line:

* ``answer``: ``{"id": "<session id>", "answer": "..."}``, the answer to the session's question.
  ``char_f1_atlas``: F1 of the multiset of characters (Japanese has no spaces between words, so
  characters are the tokens, as in WISE's evaluation and the cross-dataset chapter), whitespace and
  punctuation left out (:func:`utils.text.char_tokens`); ``char_rouge_l_atlas``: ROUGE-L F of the same
  characters (rouge-score's LCS).
* ``citation``: ``{"id": "<session id>", "sentence": <index of the answer sentence>, "citations":
  [<reference index>, ...]}``, which references of the session's trail each answer sentence cites,
  for the sentences that cite at least one (the chapter's attribution task). ``citation_accuracy_atlas``:
  the first reference predicted is one of the gold ones; ``citation_f1_atlas``: set F1 of the
  references. Sentences of one session are resampled together.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import DataError
from ...metrics import rouge_l, set_prf, token_prf
from ...scoring import Gold, Metric, Prediction, Task, json_lines
from ...text import char_tokens
from .parser import answered, sentences

_ATLAS = "the atlas's own definition (utils/datasets/jwhr/scoring.py): JWHR's authors published none"


def _field(record: dict[str, Any], key: str, kind: type | tuple[type, ...], path: Path, line: int) -> Any:
    if key not in record:
        raise DataError("required field is missing", path=path, record=f"line {line}", field=key)
    value = record[key]
    if isinstance(value, bool) or not isinstance(value, kind):
        raise DataError(f"expected {kind.__name__ if isinstance(kind, type) else 'a list'}, found "
                        f"{type(value).__name__}", path=path, record=f"line {line}", field=key)
    return value


def read_answers(path: Path) -> list[Prediction]:
    """``{"id", "answer"}`` lines."""
    return [Prediction(_field(r, "id", str, path, n), _field(r, "answer", str, path, n), n)
            for n, r in json_lines(path)]


def read_citations(path: Path) -> list[Prediction]:
    """``{"id", "sentence", "citations"}`` lines, one per answer sentence."""
    found = []
    for n, record in json_lines(path):
        session, sentence = _field(record, "id", str, path, n), _field(record, "sentence", int, path, n)
        cited = _field(record, "citations", list, path, n)
        for position, item in enumerate(cited):
            if isinstance(item, bool) or not isinstance(item, int):
                raise DataError(f"expected an integer, found {type(item).__name__}", path=path, record=f"line {n}",
                                field=f"citations[{position}]")
        found.append(Prediction(f"{session}:{sentence}", tuple(cited), n))
    return found


def _sessions(split: str) -> tuple[Any, list[Any]]:
    from ...loading import load

    loaded = load("jwhr", split)
    return loaded, [dialogue for dialogue in loaded if answered(dialogue)]


def _answer_gold(split: str) -> Gold:
    loaded, sessions = _sessions(split)
    answers = {d.id: d.turns[-1].text for d in sessions}
    return Gold(tuple(answers), answers, {i: i for i in answers}, split=loaded, path=Path(loaded.provenance.path))


def _citation_gold(split: str) -> Gold:
    loaded, sessions = _sessions(split)
    answers, units = {}, {}
    for dialogue in sessions:
        for sentence in sentences(dialogue):
            if sentence.citations:
                key = f"{dialogue.id}:{sentence.index}"
                answers[key] = set(sentence.citations)
                units[key] = dialogue.id
    return Gold(tuple(answers), answers, units, split=loaded, path=Path(loaded.provenance.path))


def _answer_examples(gold: Gold, ids: Sequence[str], values: Sequence[Any]) -> tuple[dict[str, np.ndarray],
                                                                                   list[dict[str, Any]]]:
    rows = [{"id": i, "char_f1": token_prf(char_tokens(v), char_tokens(gold.answers[i])).f1,
             "char_rouge_l": rouge_l(v, gold.answers[i], tokenize=char_tokens).f1}
            for i, v in zip(ids, values, strict=True)]
    return {name: np.array([row[name] for row in rows], dtype=float) for name in ("char_f1", "char_rouge_l")}, rows


def _citation_examples(gold: Gold, ids: Sequence[str], values: Sequence[Any]) -> tuple[dict[str, np.ndarray],
                                                                                     list[dict[str, Any]]]:
    rows = [{"id": i, "accuracy": float(bool(v) and v[0] in gold.answers[i]), "f1": set_prf(v, gold.answers[i]).f1}
            for i, v in zip(ids, values, strict=True)]
    return {name: np.array([row[name] for row in rows], dtype=float) for name in ("accuracy", "f1")}, rows


TASKS = (
    Task("answer", "the answer to each answered session's question",
         'one JSON object per line: {"id": "<session id>", "answer": "<text>"}', _answer_gold, read_answers,
         _answer_examples,
         (Metric("char_f1_atlas", _ATLAS, "F1 of characters, whitespace and punctuation left out", "char_f1"),
          Metric("char_rouge_l_atlas", _ATLAS, "ROUGE-L F of the same characters (rouge-score)", "char_rouge_l")),
         notes=("JWHR's authors published no metric: these are the atlas's.",)),
    Task("citation", "the references each answer sentence cites",
         'one JSON object per line: {"id": "<session id>", "sentence": <answer sentence index>, '
         '"citations": [<reference index>, ...]}', _citation_gold, read_citations, _citation_examples,
         (Metric("citation_accuracy_atlas", _ATLAS, "the first reference predicted is cited", "accuracy"),
          Metric("citation_f1_atlas", _ATLAS, "set F1 of the references cited", "f1")),
         notes=("JWHR's authors published no metric: these are the atlas's.",)),
)
