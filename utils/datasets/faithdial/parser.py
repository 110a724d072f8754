"""FaithDial split files (``train.json``, ``valid.json``, ``test_topic_split.json``, ...).

The original format (dataset card and the authors' repository) is one JSON list of dialogues::

    [{"utterances": [{"history": [...], "speaker": "Wizard", "knowledge": "...",
                      "original_response": "...", "response": "...",
                      "BEGIN": ["Hallucination", "Entailment"], "VRM": ["Disclosure"]}, ...]}, ...]

Each element of ``utterances`` is one *wizard* response together with the whole dialogue history
before it; seeker utterances exist only inside ``history``. ``original_response``, ``BEGIN`` and
``VRM`` are optional (the authors' README says so); an empty ``original_response`` means the WoW
response was already faithful and was kept.

How a dialogue becomes :class:`~utils.records.Turn` objects
-----------------------------------------------------------
The conversation is rebuilt in order. For utterance ``k`` the turns already known are the
history of utterance ``k-1`` plus its response. The elements of ``history`` beyond those are new
turns; their roles are assigned from the end backwards, because the last history element is always
the seeker message the wizard answers (``history[-1]`` seeker, ``history[-2]`` wizard, ...). Then
the wizard turn of utterance ``k`` follows, with

- ``text`` = ``response`` (the faithful, possibly edited response: the one the conversation goes
  on with, since later histories hold it), ``speaker`` = ``speaker``;
- one :class:`~utils.records.Evidence` ``(id="knowledge", origin="knowledge", selected=True)``
  holding ``knowledge``;
- ``labels`` = ``{"BEGIN": [...], "VRM": [...]}``, cleaned by :func:`normalise_labels`;
- ``raw`` = ``{"utterance": k, "original_response": ..., "labels_describe": ...,
  "history_length": len(history)}`` plus any field the card does not name, and
  ``raw["labels_as_written"]`` (the lists exactly as in the file) when cleaning changed them.

What the labels describe
------------------------
``BEGIN`` and ``VRM`` label the WoW response the annotators *judged*, which is ``original_response``
when there is one, not the edited ``response``. The authors' own critic pairs every label with
``original_response or response`` (McGill-NLP/FaithDial, ``models/critic_data.py``), and the card's
example only makes sense that way: its VRM ``Question`` fits the original, which ends "Can you
imagine being on the road that long?", and its partial hallucination too, while the rewrite asks
nothing and says only what the knowledge says. An empty or missing ``original_response`` means the WoW
response was kept as it was, so the labels then describe ``response`` (the same text). Each wizard
turn says which in ``raw["labels_describe"]`` (``"original_response"`` or ``"response"``), and
:func:`labelled_text` returns that text. Pairing the labels with ``Turn.text`` would be wrong for
every edited turn.

Turns taken from ``history`` have ``raw["from_history"] = True``; a wizard turn found only in
history (no utterance record of its own) carries no knowledge and no labels. Seeker turns get the
speaker name ``"Seeker"`` (the file does not name them; ``raw["speaker_inferred"] = True``).
When a history does *not* extend the turns already known (it was truncated or differs), the
whole ``history`` is kept in that turn's ``raw["history"]``, so it stays reachable; otherwise
``history`` equals the texts of the turns before the wizard turn and is not repeated.

Counting: the number of utterance records in a split is ``sum(len(d.turns_by(WIZARD)) for d in
split if not raw["from_history"])``; the number of utterances of the rebuilt conversations (seeker
and wizard) is ``len(d.turns)`` summed, which is what the dataset card's "turns" (train 36,809,
about 9 per conversation in the paper) counts. :mod:`utils.datasets.faithdial.stats` computes both.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ...errors import DataError
from ...formats._io import iter_json_list, require, require_items
from ...records import SEEKER, WIZARD, Dialogue, Evidence, Turn
from .audit_parser import begin_class as _begin_class

# 2: labels cleaned (normalise_labels), raw["labels_describe"] and raw["labels_as_written"] added
PARSER_VERSION = 2

#: Fields of an utterance record that the common Turn fields cover.
_KNOWN_FIELDS = {"history", "speaker", "knowledge", "original_response", "response", "BEGIN", "VRM"}
SEEKER_SPEAKER = "Seeker"

#: ``raw["labels_describe"]`` values: which field of the utterance record the labels describe.
DESCRIBES_ORIGINAL = "original_response"
DESCRIBES_RESPONSE = "response"


def normalise_labels(values: Sequence[str]) -> list[str]:
    """One BEGIN or VRM list as the annotators meant it.

    The files carry stray spaces and empty strings (``[" Edification"]``, ``[""]``): every value is
    stripped, empty values are dropped (``[""]`` means no label), and a value repeated after
    stripping is kept once, in its first position. Nothing else changes: the spelling is the file's.

    A BEGIN list is *one* judgement, not several: the files write Partial Hallucination as the
    list ``["Hallucination", "Entailment"]`` (the card's example), so the list is kept whole and
    never counted label by label as if the response were both hallucinated and entailed.
    :func:`begin_class` reads it as one of the five BEGIN classes.
    """
    cleaned: list[str] = []
    for value in values:
        value = value.strip()
        if value and value not in cleaned:
            cleaned.append(value)
    return cleaned


def begin_class(labels: Iterable[str]) -> str | None:
    """The BEGIN class of one cleaned BEGIN list (``None`` when there is no label).

    ``["Hallucination", "Entailment"]`` (or an explicit ``"Partial Hallucination"``) is Partial
    Hallucination; otherwise the first of Hallucination, Uncooperative, Generic, Entailment found.
    The same reading as the audit files' (:func:`utils.datasets.faithdial.audit_parser.begin_class`).
    """
    return _begin_class(labels)


def labels_describe(original_response: str | None) -> str:
    """Which field the BEGIN and VRM labels describe: ``"original_response"`` when it holds text,
    else ``"response"`` (the WoW response was kept unedited). The authors' rule,
    ``original_response or response``; a blank original has no words to label, so it counts as empty."""
    return DESCRIBES_ORIGINAL if (original_response or "").strip() else DESCRIBES_RESPONSE


def labelled_text(turn: Turn) -> str:
    """The text a FaithDial wizard turn's BEGIN and VRM labels describe: its ``original_response``
    when there is one, else the turn's own text (see "What the labels describe" above)."""
    original = turn.raw.get("original_response")
    original = original if isinstance(original, str) else ""
    return original if labels_describe(original) == DESCRIBES_ORIGINAL else turn.text


def parse(path: Path, *, split: str) -> Iterator[Dialogue]:
    """Stream the dialogues of one FaithDial split file (see the module docstring for the mapping)."""
    path = Path(path)
    for index, record in iter_json_list(path):
        yield _dialogue(record, index, path, split)


def _dialogue(record: Any, index: int, path: Path, split: str) -> Dialogue:
    where = f"dialogue {index}"
    utterances = require(record, "utterances", list, path=path, record=where)
    turns: list[Turn] = []
    mismatches = 0
    for position, utterance in enumerate(utterances):
        at = f"{where}, utterance {position}"
        if not isinstance(utterance, dict):
            raise DataError(f"expected an object, found {type(utterance).__name__}", path=path, record=at)
        history = require(utterance, "history", list, path=path, record=at)
        require_items(history, str, path=path, record=at, field="history")
        speaker = require(utterance, "speaker", str, path=path, record=at)
        knowledge = require(utterance, "knowledge", str, path=path, record=at)
        response = require(utterance, "response", str, path=path, record=at)
        original = require(utterance, "original_response", (str, type(None)), path=path, record=at, optional=True)
        labels: dict[str, list[str]] = {}
        as_written: dict[str, list[str]] = {}
        for scheme in ("BEGIN", "VRM"):
            values = require(utterance, scheme, list, path=path, record=at, optional=True, default=[])
            written = require_items(values, str, path=path, record=at, field=scheme)
            labels[scheme] = normalise_labels(written)
            if labels[scheme] != written:
                as_written[scheme] = list(written)

        known = [turn.text for turn in turns]
        raw: dict[str, Any] = {
            "utterance": position,
            "original_response": original,
            "labels_describe": labels_describe(original),
            "history_length": len(history),
        }
        if as_written:
            raw["labels_as_written"] = as_written
        if history[: len(known)] != known:
            # Keep the history as given: it cannot be rebuilt from the turns before this one.
            raw["history"] = list(history)
            mismatches += 1
        for offset in range(len(known), len(history)):
            from_end = len(history) - 1 - offset
            role = SEEKER if from_end % 2 == 0 else WIZARD
            turns.append(
                Turn(
                    index=len(turns),
                    role=role,
                    speaker=SEEKER_SPEAKER if role == SEEKER else speaker,
                    text=history[offset],
                    raw={"from_history": True, "speaker_inferred": True},
                )
            )
        raw.update({key: value for key, value in utterance.items() if key not in _KNOWN_FIELDS})
        turns.append(
            Turn(
                index=len(turns),
                role=WIZARD,
                speaker=speaker,
                text=response,
                evidence=[Evidence(id="knowledge", text=knowledge, origin="knowledge", selected=True)],
                labels=labels,
                raw=raw,
            )
        )
    meta: dict[str, Any] = {"index": index, "utterances": len(utterances)}
    if mismatches:
        meta["history_mismatches"] = mismatches
    meta.update({key: value for key, value in record.items() if key != "utterances"})
    return Dialogue(id=f"{split}-{index}", dataset="faithdial", split=split, turns=turns, meta=meta)
