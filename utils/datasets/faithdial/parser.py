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

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain, compress, islice, repeat
from json.encoder import encode_basestring
from operator import is_, itemgetter
from pathlib import Path
from typing import Any, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...errors import DataError
from ...formats import (
    MAX_JSON_DEPTH,
    EvidenceBatch,
    FastPathDeclined,
    PassageTable,
    TurnColumns,
    all_of_type,
    deeper_than,
    iter_json_list,
    require,
    require_items,
)
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
        mismatch = history[: len(known)] != known
        mismatches += mismatch
        raw = _wizard_raw(utterance, position, original, history, as_written, mismatch)
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
    meta = _dialogue_meta(record, index, len(utterances), mismatches)
    return Dialogue(id=f"{split}-{index}", dataset="faithdial", split=split, turns=turns, meta=meta)


def _wizard_raw(
    utterance: dict[str, Any],
    position: int,
    original: str | None,
    history: list[str],
    as_written: dict[str, list[str]],
    mismatch: bool,
) -> dict[str, Any]:
    """``raw`` of the wizard turn of one utterance record (see the module docstring)."""
    raw: dict[str, Any] = {
        "utterance": position,
        "original_response": original,
        "labels_describe": labels_describe(original),
        "history_length": len(history),
    }
    if as_written:
        raw["labels_as_written"] = as_written
    if mismatch:
        # Keep the history as given: it cannot be rebuilt from the turns before this one.
        raw["history"] = list(history)
    raw.update({key: value for key, value in utterance.items() if key not in _KNOWN_FIELDS})
    return raw


def _dialogue_meta(record: dict[str, Any], index: int, utterances: int, mismatches: int) -> dict[str, Any]:
    """A dialogue's ``meta``: its position, its number of utterance records, and the record's other fields."""
    meta: dict[str, Any] = {"index": index, "utterances": utterances}
    if mismatches:
        meta["history_mismatches"] = mismatches
    meta.update({key: value for key, value in record.items() if key != "utterances"})
    return meta


# -- the columnar path: what the cache stores, without an object per dialogue, turn or knowledge -------

#: Dialogues handed to the cache at a time (a full-size train file has about 4,100).
_COLUMN_BATCH = 512
#: Distinct knowledge sentences remembered to store each once, at most (then it starts afresh, costing
#: only some sharing).
_REMEMBERED_KNOWLEDGE = 1 << 20
#: Distinct BEGIN or VRM lists remembered with their cleaned JSON text (the files use a few dozen; a
#: file of arbitrary labels only makes the memo start afresh now and then).
_REMEMBERED_LABELS = 1 << 12
_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_NO_LABELS: list[str] = []  # an absent BEGIN or VRM (never changed)
_HISTORY_RAW = _ENCODE({"from_history": True, "speaker_inferred": True})
_NO_LABELS_TEXT = _ENCODE({})
_PLAIN_META = '{"index":%d,"utterances":%d}'
_LABELS_TEMPLATE = '{{"BEGIN":{},"VRM":{}}}'
_REQUIRED = ("history", "speaker", "knowledge", "response")
_ALL_FIELDS = (*_REQUIRED, "original_response", "BEGIN", "VRM")  # the card's fields (_KNOWN_FIELDS) in order
_ROLES = pa.array([SEEKER, WIZARD])
_DESCRIBES = pa.array([DESCRIBES_RESPONSE, DESCRIBES_ORIGINAL])


def parse_columns(path: Path, *, split: str) -> Iterator[EvidenceBatch]:
    """Stream one FaithDial split file as the cache stores it: columns of dialogues, turns and knowledge
    (:class:`~utils._cache.EvidenceBatch` of :class:`~utils._cache.TurnColumns`), no objects.

    The same dialogues as :func:`parse`, built for whole batches of records at a time: each field's
    type is checked for all the utterance records of a batch at once, the cleaned labels and their JSON
    text are remembered per distinct list, and the ``raw`` JSON text of an ordinary wizard turn is
    joined from its columns rather than encoded from a dict. Anything :func:`parse` would refuse
    (a wrong type, a missing field, malformed JSON, nesting too deep) makes this path decline
    (:class:`~utils._cache.FastPathDeclined`): the loader then builds with :func:`parse`, which says
    what is wrong, where.
    """
    path = Path(path)
    columns = _Columns(split)
    records: list[Any] = []
    try:
        # Depth is judged in batches: the fields checked there are flat, only unknown ones can nest.
        for _, record in iter_json_list(path, check_depth=False):
            records.append(record)
            if len(records) >= _COLUMN_BATCH:
                yield columns.batch(records)
                records = []
    except DataError as exc:
        # parse names this fault, or a fault of a record before it that no batch has judged yet
        raise FastPathDeclined(str(exc)) from exc
    if records:
        yield columns.batch(records)


class _Columns:
    """Turns batches of decoded records into cache columns, numbering the dialogues and the distinct
    knowledge sentences of a split."""

    def __init__(self, split: str) -> None:
        self._split = split
        self._dialogues = 0  # records read so far: the index of the next one
        self._knowledge: dict[str, int] = {}  # knowledge sentence -> its passages row
        self._written = 0  # passages rows handed to the cache so far
        self._labels: dict[tuple[str, ...], str] = {}  # a BEGIN or VRM list as written -> its cleaned JSON
        self._changed: set[tuple[str, ...]] = set()  # the lists in ``_labels`` that cleaning changes

    def batch(self, records: list[Any]) -> EvidenceBatch:
        """The columns of ``records`` (consecutive records of the file); declines on anything unusual."""
        first = self._dialogues
        self._dialogues += len(records)
        fields = _checked_fields(records)
        histories, speakers, knowledge, responses, originals, begins, vrms = fields.utterances
        begin_keys, vrm_keys = list(map(tuple, begins)), list(map(tuple, vrms))
        (begin_texts, begin_changed), (vrm_texts, vrm_changed) = self._cleaned(begin_keys), self._cleaned(vrm_keys)
        label_texts = list(map(_LABELS_TEMPLATE.format, begin_texts, vrm_texts))
        # The one loop over utterance records: rebuild each conversation from its histories (the
        # module docstring); the rest is done a column at a time.
        texts: list[str] = []
        new_counts: list[int] = []  # per utterance record: the turns its history adds
        turn_counts: list[int] = []
        mismatched: list[int] = []  # the utterance records whose history does not extend the turns before
        metas: list[str] = []
        row = 0
        history_items, response_items = iter(histories), iter(responses)
        for offset, (record, utterances) in enumerate(zip(records, fields.utterance_lists, strict=True)):
            known: list[str] = []  # the texts of the dialogue's turns so far
            before = len(mismatched)
            size = len(utterances)
            for number, history, response in zip(
                range(row, row + size), islice(history_items, size), islice(response_items, size), strict=True
            ):
                count = len(known)
                if history[:count] != known:  # kept whole in raw, so checked whole
                    if not all_of_type(history, str):
                        raise FastPathDeclined("a history holding something other than text")
                    mismatched.append(number)
                new = history[count:]
                new_counts.append(len(new))
                known += new
                known.append(response)
            row += size
            texts += known
            turn_counts.append(len(known))
            if len(mismatched) > before or fields.record_extras:
                meta = _dialogue_meta(record, first + offset, len(utterances), len(mismatched) - before)
                metas.append(_ENCODE(meta))
            else:
                metas.append(_PLAIN_META % (first + offset, len(utterances)))
        if not all_of_type(texts, str):  # the history texts not compared with a turn's above
            raise FastPathDeclined("a history holding something other than text")
        counts = fields.utterance_counts
        positions = np.arange(row) - np.repeat(_starts(counts), counts)  # of each utterance record in its list
        raws = _plain_raws(positions, originals, histories)
        # The wizard turns whose raw holds more than the plain one's fields: encoded from its dict.
        irregular = set(mismatched) | begin_changed | vrm_changed
        if fields.utterance_extras:
            irregular.update(range(row))
        if irregular:
            numbers = sorted(irregular)
            encoded = []
            for number in numbers:
                written = {}  # the label lists cleaning changed, as written (raw["labels_as_written"])
                if number in begin_changed:
                    written["BEGIN"] = list(begin_keys[number])
                if number in vrm_changed:
                    written["VRM"] = list(vrm_keys[number])
                record = fields.utterance_records[number]
                mismatch = number in mismatched
                raw = _wizard_raw(
                    record, int(positions[number]), originals[number], histories[number], written, mismatch
                )
                encoded.append(_ENCODE(raw))
            rows = np.arange(row)
            rows[numbers] = row + np.arange(len(numbers))
            raws = pa.concat_arrays([raws, pa.array(encoded, pa.string())]).take(pa.array(rows))
        turns, wizard_turns = _turn_columns(
            new_counts, turn_counts, pa.array(speakers, pa.string()), pa.array(label_texts, pa.string()), raws
        )
        dialogues = len(records)
        columns = TurnColumns(
            ids=[f"{self._split}-{index}" for index in range(first, first + dialogues)],
            datasets=["faithdial"] * dialogues,
            splits=[self._split] * dialogues,
            topics=[None] * dialogues,
            metas=metas,
            turn_counts=turn_counts,
            texts=texts,
            **turns,
        )
        passage, new_passages = self._passage_rows(knowledge)
        return EvidenceBatch(
            dialogues=columns,
            counts=wizard_turns.astype(np.int32).tolist(),  # a wizard turn's knowledge is its one evidence row
            ids=pa.array(["knowledge"] * row, pa.string()),
            passage=passage,
            origin=pa.DictionaryArray.from_arrays(pa.array(np.zeros(row, np.int8)), pa.array(["knowledge"])),
            selected=pa.array(np.ones(row, np.bool_)),
            passages=new_passages,
        )

    def _cleaned(self, keys: list[tuple[Any, ...]]) -> tuple[list[str], set[int]]:
        """The JSON text of each BEGIN or VRM list cleaned (:func:`normalise_labels`), and the positions
        of the lists that cleaning changes. Remembered per list as written; a list is checked to hold
        only text when first met (the memo holds no other)."""
        memo, changed = self._labels, self._changed
        if len(memo) >= _REMEMBERED_LABELS:  # only between calls: the changed lists are read at the end
            memo.clear()
            changed.clear()
        try:
            texts = list(map(memo.get, keys))
        except TypeError:  # a list or an object among the labels
            raise FastPathDeclined("a label that is not text") from None
        if None in texts:
            for number in compress(range(len(keys)), map(is_, texts, repeat(None))):
                key = keys[number]
                text = memo.get(key)
                if text is None:
                    if not all_of_type(key, str):
                        raise FastPathDeclined("a label that is not text")
                    cleaned = normalise_labels(key)
                    text = memo[key] = _ENCODE(cleaned)
                    if cleaned != list(key):
                        changed.add(key)
                texts[number] = text
        cleaned_texts = cast("list[str]", texts)  # every None filled in above
        return cleaned_texts, set(compress(range(len(keys)), map(changed.__contains__, keys))) if changed else set()

    def _passage_rows(self, knowledge: Sequence[str]) -> tuple[pa.Array, PassageTable | None]:
        """The passages row of each knowledge sentence, and the table of those not stored before."""
        memo = self._knowledge
        if len(memo) > _REMEMBERED_KNOWLEDGE:
            memo.clear()
        rows = list(map(memo.get, knowledge))
        if None not in rows:
            return pa.array(rows, pa.int32()), None
        # New sentences, each once, in the order they first appear; numbered after those written.
        new = list(dict.fromkeys(compress(knowledge, map(is_, rows, repeat(None)))))
        memo.update(zip(new, range(self._written, self._written + len(new)), strict=True))
        self._written += len(new)
        table = PassageTable(
            pa.array(new, pa.string()),
            pa.array([None] * len(new), pa.string()),
            pa.array(["{}"] * len(new), pa.string()),
        )
        return pa.array(list(map(memo.__getitem__, knowledge)), pa.int32()), table


def _plain_raws(positions: np.ndarray, originals: Sequence[str | None], histories: Sequence[list[str]]) -> pa.Array:
    """The JSON text of the ``raw`` of wizard turns whose :func:`_wizard_raw` holds only its first four
    fields (nearly all), joined a column at a time."""
    absent = list(compress(range(len(originals)), map(is_, originals, repeat(None))))
    if absent:
        originals = list(originals)
        for number in absent:
            originals[number] = ""  # quoted as null below; its labels describe the response, as for ""
    texts = cast("list[str]", originals)  # no None left
    quoted = list(map(encode_basestring, texts))
    for number in absent:
        quoted[number] = "null"
    # labels_describe: the original when it holds more than white space
    describes = np.fromiter(map(bool, map(str.strip, texts)), dtype=np.bool_, count=len(texts))
    lengths = np.fromiter(map(len, histories), dtype=np.int64, count=len(histories))
    return pc.binary_join_element_wise(
        '{"utterance":',
        pa.array(positions).cast(pa.string()),
        ',"original_response":',
        pa.array(quoted, pa.string()),
        ',"labels_describe":"',
        _DESCRIBES.take(pa.array(describes.astype(np.int8))),
        '","history_length":',
        pa.array(lengths).cast(pa.string()),
        "}",
        "",
    )


def _starts(counts: Sequence[int] | np.ndarray) -> np.ndarray:
    """Where each of consecutive runs of ``counts`` items starts."""
    ends = np.cumsum(counts, dtype=np.int64)
    return ends - np.asarray(counts, dtype=np.int64)


def _turn_columns(
    new_counts: list[int], turn_counts: list[int], speakers: pa.Array, label_texts: pa.Array, raws: pa.Array
) -> tuple[dict[str, Any], np.ndarray]:
    """The turn columns but the texts, in the order of the turns: each utterance record's history turns
    (``new_counts`` of them), then its wizard turn, which holds its speaker, labels and ``raw``; and
    which turns are wizard turns of an utterance record.

    Each column is taken, in C, from the utterance records' values followed by the one value of every
    history turn (a seeker's speaker name, no labels, the ``raw`` of a turn from history).
    """
    added = np.asarray(new_counts, dtype=np.int64)
    records = len(added)
    total = int(added.sum()) + records
    wizard = np.cumsum(added + 1) - 1  # the turn of each utterance record's response
    from_history = np.ones(total, dtype=np.bool_)
    from_history[wizard] = False
    owner = np.repeat(np.arange(records), added)  # the utterance record of each history turn
    from_end = added[owner] - 1 - (np.arange(len(owner)) - np.repeat(_starts(added), added))
    seeker = from_end % 2 == 0
    role_codes = np.ones(total, dtype=np.int8)
    role_codes[from_history] = ~seeker
    # A history turn's column value: the one after the records' values (position ``records``).
    shared = np.full(total, records, dtype=np.int64)
    shared[wizard] = np.arange(records)
    speaker_rows = shared.copy()
    speaker_rows[from_history] = np.where(seeker, records, owner)  # a wizard in history: the record's speaker
    columns = {
        "turn_index": np.arange(total) - np.repeat(_starts(turn_counts), turn_counts),
        "roles": _ROLES.take(pa.array(role_codes)),
        "speakers": _with(speakers, SEEKER_SPEAKER).take(pa.array(speaker_rows)),
        "labels": _with(label_texts, _NO_LABELS_TEXT).take(pa.array(shared)),
        "raws": _with(raws, _HISTORY_RAW).take(pa.array(shared)),
    }
    return columns, ~from_history


def _with(values: pa.Array, last: str) -> pa.Array:
    """``values`` with ``last`` after them."""
    return pa.concat_arrays([values, pa.array([last], pa.string())])


def _all_fields(utterances: list[dict[str, Any]]) -> tuple[Sequence[Any], ...] | None:
    """The columns history, speaker, knowledge, response, original_response, BEGIN and VRM, taken in one
    pass when every utterance record has exactly these fields; ``None`` when one lacks some or has more."""
    if set(map(len, utterances)) != {len(_ALL_FIELDS)}:
        return None
    try:
        rows = list(map(itemgetter(*_ALL_FIELDS), utterances))
    except KeyError:
        return None
    return tuple(zip(*rows, strict=True)) if rows else ((),) * len(_ALL_FIELDS)


@dataclass(frozen=True)
class _Fields:
    """The checked fields of a batch of records (see :func:`_checked_fields`)."""

    utterance_lists: list[list[dict[str, Any]]]  # per record
    utterance_records: list[dict[str, Any]]  # all of them, record after record
    #: per utterance record: history, speaker, knowledge, response, original_response (``None`` when
    #: absent), BEGIN and VRM (empty when absent)
    utterances: tuple[Sequence[Any], ...]
    record_extras: bool  # some record has fields besides "utterances"
    utterance_extras: bool  # some utterance record has fields the card does not name

    @property
    def utterance_counts(self) -> list[int]:
        return [len(utterances) for utterances in self.utterance_lists]


def _checked_fields(records: list[Any]) -> _Fields:
    """The fields of a batch of records, checked as :func:`parse` checks them, a column at a time;
    declines (:class:`~utils._cache.FastPathDeclined`) when any record is one :func:`parse` refuses.

    Left to the caller: the items of the histories (those that extend the turns before them become
    turn texts, checked as such; the others equal text already checked) and of the label lists
    (checked once per distinct list)."""
    if not all_of_type(records, dict):
        raise FastPathDeclined("a record that is not an object")
    utterance_lists = [record.get("utterances") for record in records]
    if not all_of_type(utterance_lists, list):
        raise FastPathDeclined("a record without a list of utterances")
    utterances = list(chain.from_iterable(utterance_lists))
    if not all_of_type(utterances, dict):
        raise FastPathDeclined("an utterance record that is not an object")
    columns = _all_fields(utterances)
    if columns is not None:  # every utterance record has the card's fields and no others (the usual case)
        utterance_extras = False
        histories, speakers, knowledge, responses, originals, begins, vrms = columns
    else:
        utterance_extras = not set(chain.from_iterable(utterances)) <= _KNOWN_FIELDS
        try:
            histories, speakers, knowledge, responses = (list(map(itemgetter(key), utterances)) for key in _REQUIRED)
        except KeyError:
            raise FastPathDeclined("an utterance record without a required field") from None
        originals = list(map(dict.get, utterances, repeat("original_response")))
        begins = list(map(dict.get, utterances, repeat("BEGIN"), repeat(_NO_LABELS)))
        vrms = list(map(dict.get, utterances, repeat("VRM"), repeat(_NO_LABELS)))
    if not (
        all_of_type(histories, list)
        and all_of_type(begins, list)
        and all_of_type(vrms, list)
        and all_of_type(chain(speakers, knowledge, responses), str)
        and set(map(type, originals)) <= {str, type(None)}
    ):
        raise FastPathDeclined("a field of the wrong type")
    record_extras = not set(chain.from_iterable(records)) <= {"utterances"}
    # Every field checked here is flat: only the fields the card does not name can nest too deeply.
    if (record_extras or utterance_extras) and any(deeper_than(record, MAX_JSON_DEPTH - 1) for record in records):
        raise FastPathDeclined("a record nested too deeply")
    return _Fields(
        utterance_lists,
        utterances,
        (histories, speakers, knowledge, responses, originals, begins, vrms),
        record_extras,
        utterance_extras,
    )
