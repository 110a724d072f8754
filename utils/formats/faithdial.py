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

- ``text`` = ``response`` (the faithful, possibly edited response), ``speaker`` = ``speaker``;
- one :class:`~utils.records.Evidence` ``(id="knowledge", origin="knowledge", selected=True)``
  holding ``knowledge``;
- ``labels`` = ``{"BEGIN": [...], "VRM": [...]}`` exactly as in the file;
- ``raw`` = ``{"utterance": k, "original_response": ..., "history_length": len(history)}`` plus
  any field the card does not name.

Turns taken from ``history`` have ``raw["from_history"] = True``; a wizard turn found only in
history (no utterance record of its own) carries no knowledge and no labels. Seeker turns get the
speaker name ``"Seeker"`` (the file does not name them; ``raw["speaker_inferred"] = True``).
When a history does *not* extend the turns already known (it was truncated or differs), the
whole ``history`` is kept in that turn's ``raw["history"]``, so it stays reachable; otherwise
``history`` equals the texts of the turns before the wizard turn and is not repeated.

Counting: the number of utterance records in a split is ``sum(len(d.turns_by(WIZARD)) for d in
split if not raw["from_history"])``; the number of utterances of the rebuilt conversations (seeker
and wizard) is ``len(d.turns)`` summed, which is what the dataset card's "turns" (train 36,809,
about 9 per conversation in the paper) counts. :mod:`utils.stats.faithdial` computes both.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import DataError
from ..records import SEEKER, WIZARD, Dialogue, Evidence, Turn
from ._io import iter_json_list, require, require_items

PARSER_VERSION = 1

#: Fields of an utterance record that the common Turn fields cover.
_KNOWN_FIELDS = {"history", "speaker", "knowledge", "original_response", "response", "BEGIN", "VRM"}
SEEKER_SPEAKER = "Seeker"


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
        for scheme in ("BEGIN", "VRM"):
            values = require(utterance, scheme, list, path=path, record=at, optional=True, default=[])
            labels[scheme] = list(require_items(values, str, path=path, record=at, field=scheme))

        known = [turn.text for turn in turns]
        raw: dict[str, Any] = {"utterance": position, "original_response": original, "history_length": len(history)}
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
