"""Wizard of Wikipedia in the KILT format (``wow-{train,dev}-kilt.jsonl``, ``wow-test_without_answers-kilt.jsonl``).

One JSON object per line: ``id`` (the WoW dialogue id and the number of the example cut from it,
e.g. ``"54b85f36-..._3"``), ``input`` (the dialogue so far, one utterance per line, the apprentice's
last message at the end), ``output`` (a list of answers, each an ``answer`` string, the wizard's
reply, and ``provenance``: Wikipedia spans with ``wikipedia_id``, ``title``, ``section``, paragraph
and character offsets and a ``bleu_score``) and an optional ``meta``. The test file has no answers.

Each line becomes one :class:`~utils.records.Dialogue`: the input utterances as turns, roles counted
back from the last line (the apprentice's), and the answer as a final wizard turn whose evidence is
its provenance (origin ``"provenance"``, all selected). KILT does not name the speakers, so
``Turn.speaker`` is the inferred ``"apprentice"``/``"wizard"`` and ``Turn.raw`` says so. KILT keeps
no chosen topic either: ``Dialogue.topic`` is the title of the answer's first provenance page.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...errors import DataError
from ...formats import EvidenceBatch, FastPathDeclined, PassageTable, TurnColumns, iter_json_lines, require
from ...records import SEEKER, WIZARD, Dialogue, Evidence, Turn

PARSER_VERSION = 2

_SPEAKERS = {SEEKER: "apprentice", WIZARD: "wizard"}


def parse(path: Path, *, split: str) -> Iterator[Dialogue]:
    """Stream the examples of one KILT WoW file; any malformed line raises :class:`DataError`."""
    path = Path(path)
    for line_number, record in iter_json_lines(path):
        yield _example(record, f"line {line_number}", path, split)


def _example(record: Any, where: str, path: Path, split: str) -> Dialogue:
    example_id = require(record, "id", str, path=path, record=where)
    text = require(record, "input", str, path=path, record=where)
    outputs = require(record, "output", list, path=path, record=where, optional=True, default=[])
    meta_value = require(record, "meta", dict, path=path, record=where, optional=True)

    lines = text.split("\n")
    turns = []
    for position, line in enumerate(lines):
        # The last input line is the apprentice's; roles alternate before it.
        role = SEEKER if (len(lines) - 1 - position) % 2 == 0 else WIZARD
        turns.append(
            Turn(index=position, role=role, speaker=_SPEAKERS[role], text=line, raw={"speaker_inferred": True})
        )

    answers = []
    for k, output in enumerate(outputs):
        field = f"output[{k}]"
        if not isinstance(output, dict):
            raise DataError(f"expected an object, found {type(output).__name__}", path=path, record=where, field=field)
        answer = _field(output, "answer", str, path, where, field, optional=True)
        provenance = _field(output, "provenance", list, path, where, field, optional=True, default=[])
        evidence = [_provenance(item, path, where, f"{field}.provenance[{j}]", j) for j, item in enumerate(provenance)]
        extra = {key: value for key, value in output.items() if key not in ("answer", "provenance")}
        answers.append((answer, evidence, extra))

    if answers:
        answer, evidence, extra = answers[0]
        raw: dict[str, Any] = {"speaker_inferred": True, "output_index": 0}
        if extra:
            raw["output_extra"] = extra
        if len(answers) > 1:  # keep the other answers reachable; the first is the turn
            raw["other_outputs"] = [outputs[k] for k in range(1, len(outputs))]
        turns.append(
            Turn(
                index=len(turns),
                role=WIZARD,
                speaker=_SPEAKERS[WIZARD],
                text=answer or "",
                evidence=evidence,
                labels={"target": ["answer"]},
                raw=raw,
            )
        )

    dialogue_id, _, wizard_turn = example_id.rpartition("_")
    meta: dict[str, Any] = {"kilt_id": example_id, "has_answer": bool(answers)}
    if dialogue_id and wizard_turn.isdigit():
        meta["wow_dialogue_id"] = dialogue_id
        meta["wizard_example"] = int(wizard_turn)
    if meta_value:
        meta["meta"] = meta_value
    extra_keys = {key: value for key, value in record.items() if key not in ("id", "input", "output", "meta")}
    if extra_keys:
        meta["extra"] = extra_keys
    topic = answers[0][1][0].title if answers and answers[0][1] else None
    return Dialogue(id=example_id, dataset="wow_kilt", split=split, turns=turns, topic=topic, meta=meta)


def _field(mapping: Any, key: str, kind: Any, path: Path, record: str, prefix: str, **options: Any) -> Any:
    try:
        return require(mapping, key, kind, path=path, record=record, **options)
    except DataError as exc:
        raise DataError(exc.reason, path=path, record=record, field=f"{prefix}.{exc.field or key}") from None


def _provenance(item: Any, path: Path, record: str, field: str, position: int) -> Evidence:
    if not isinstance(item, dict):
        raise DataError(f"expected an object, found {type(item).__name__}", path=path, record=record, field=field)
    wikipedia_id = _field(item, "wikipedia_id", (str, int), path, record, field)
    title = _field(item, "title", str, path, record, field, optional=True)
    for key in ("start_paragraph_id", "end_paragraph_id", "start_character", "end_character"):
        _field(item, key, int, path, record, field, optional=True)
    _field(item, "bleu_score", (int, float), path, record, field, optional=True)
    _field(item, "section", str, path, record, field, optional=True)
    meta = {key: value for key, value in item.items() if key != "title"}
    span = f"{item.get('start_paragraph_id', '')}:{item.get('start_character', '')}"
    return Evidence(
        id=f"{wikipedia_id}@{span}#{position}",
        # KILT gives offsets into its knowledge source, not the text; the title stands for the span.
        text=title or str(wikipedia_id),
        title=title,
        origin="provenance",
        selected=True,
        meta=meta,
    )


# -- the loader's fast path -------------------------------------------------------------------------

#: Examples per batch of columns handed to the cache.
_COLUMN_BATCH = 2048
_encode = msgspec.json.Encoder().encode  # what the cache writes a turn's or a dialogue's JSON with
#: What the cache writes an evidence row's ``meta`` with (json's own float and escape spelling).
_encode_meta = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_EMPTY = _encode({})
_INPUT_RAW = _encode({"speaker_inferred": True})
_ANSWER_RAW = _encode({"speaker_inferred": True, "output_index": 0})
_ANSWER_LABELS = _encode({"target": ["answer"]})
#: An escaped UTF-16 surrogate, which json and msgspec read differently: such a line is left to parse.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
#: A provenance's fields and their types, as :func:`_provenance` checks them (every one present here).
_PROVENANCE_TYPES = {
    "wikipedia_id": (str, int),
    "title": (str,),
    "start_paragraph_id": (int,),
    "start_character": (int,),
    "end_paragraph_id": (int,),
    "end_character": (int,),
    "bleu_score": (int, float),
    "section": (str,),
}


#: The fields in the order the published files give them: a provenance in this order has its ``meta``
#: made without a dict comprehension or a loop over its fields (:func:`_typed_provenance`).
_PUBLISHED_ORDER = tuple(_PROVENANCE_TYPES)


class _Output(msgspec.Struct, forbid_unknown_fields=True):
    """An output as the fast path takes it: an answer (or none) and its provenance, nothing else.

    The provenance stays a list of dicts: their fields' order is that of the ``meta`` the cache writes.
    """

    answer: str | msgspec.UnsetType = msgspec.UNSET  # an answer of null, which parse refuses, is declined
    provenance: list[Any] = []


class _Example(msgspec.Struct, forbid_unknown_fields=True):
    """An example as the fast path takes it (msgspec checks the types while decoding: anything else,
    a ``meta`` or another field included, fails to decode and is declined)."""

    id: str
    input: str
    output: list[_Output] = []


_decode_example = msgspec.json.Decoder(_Example).decode


class _Declined(Exception):
    """An example the fast path leaves to :func:`parse` (which reports it, or keeps what is unusual)."""


def parse_columns(path: Path, *, split: str) -> Iterator[EvidenceBatch]:
    """The examples of :func:`parse` as columns, for the loader: the same records, with no Dialogue,
    Turn or Evidence object made (they took two thirds of a cold load of the dev file).

    Each line is decoded by msgspec and checked field by field as :func:`parse` checks it; the answer's
    provenance becomes evidence rows pointing at passages numbered as the cache numbers those of
    :func:`parse`'s records, and the JSON texts are written with the cache's own encoders. The common
    shape only: an example with a ``meta``, another field, several outputs, a provenance without one
    of the eight fields the published files give, or anything :func:`parse` would refuse, declines
    (:class:`FastPathDeclined`), and the loader builds the cache with :func:`parse`, which keeps or
    reports it.
    """
    try:
        yield from _column_batches(Path(path), split)
    except (_Declined, msgspec.MsgspecError, UnicodeError, RecursionError) as exc:
        raise FastPathDeclined from exc


def _column_batches(path: Path, split: str) -> Iterator[EvidenceBatch]:
    passages: dict[tuple[str, str, bytes], int] = {}
    columns = _ExampleColumns(split, 0)
    with open(path, "rb") as handle:  # lines as iter_json_lines splits them
        for line_number, raw_line in enumerate(handle, start=1):
            if line_number == 1 and raw_line.startswith(codecs.BOM_UTF8):
                raw_line = raw_line[len(codecs.BOM_UTF8) :]
            if not raw_line.strip():  # blank as ASCII (other blank lines fail to decode: declined)
                continue
            if _SURROGATE_ESCAPE.search(raw_line):
                raise _Declined
            columns.add(_decode_example(raw_line), passages)
            if len(columns.ids) >= _COLUMN_BATCH:
                yield columns.batch()
                columns = _ExampleColumns(split, len(passages))
    if columns.ids:
        yield columns.batch()


class _ExampleColumns:
    """A batch of examples as the cache stores them (see :func:`_example` for the record of one).

    Per example, only what needs Python is done as it is read (the checks, the ids, the JSON texts);
    the turns are made from the inputs of the whole batch at once, by Arrow's kernels (:meth:`batch`):
    a list per input line cost a third of the fast path.
    """

    def __init__(self, split: str, first_passage: int) -> None:
        self.split = split
        self.first_passage = first_passage
        self.ids: list[str] = []
        self.topics: list[str | None] = []
        self.metas: list[bytes] = []
        self.inputs: list[str] = []
        self.has_answer: list[bool] = []
        self.answers: list[str] = []  # of the examples with an output
        self.answer_evidence: list[int] = []  # evidence rows of each answer
        self.evidence_ids: list[str] = []
        self.passage: list[int] = []
        self.new_passages: list[tuple[str, str, bytes]] = []

    def add(self, record: _Example, passages: dict[tuple[str, str, bytes], int]) -> None:
        example_id, outputs = record.id, record.output
        if len(outputs) > 1:
            raise _Declined
        evidence: list[tuple[str, tuple[str, str, bytes]]] = []
        if outputs:
            output = outputs[0]
            evidence = [_typed_provenance(item, position) for position, item in enumerate(output.provenance)]
            self.answers.append(output.answer or "")  # UNSET is false, as "" is
            self.answer_evidence.append(len(evidence))
            for evidence_id, key in evidence:
                position = passages.get(key)
                if position is None:
                    position = passages[key] = len(passages)
                    self.new_passages.append(key)
                self.evidence_ids.append(evidence_id)
                self.passage.append(position)
        self.metas.append(_meta_text(example_id, bool(outputs)))
        self.ids.append(example_id)
        self.topics.append(evidence[0][1][1] if evidence else None)
        self.inputs.append(record.input)
        self.has_answer.append(bool(outputs))

    def batch(self) -> EvidenceBatch:
        examples, rows = len(self.ids), len(self.passage)
        turns = _turns(self.inputs, np.array(self.has_answer, dtype=np.bool_), self.answers, self.answer_evidence)
        return EvidenceBatch(
            dialogues=TurnColumns(
                ids=self.ids,
                datasets=["wow_kilt"] * examples,
                splits=[self.split] * examples,
                topics=self.topics,
                metas=_text_column(self.metas),
                turn_counts=turns["turn_counts"],
                turn_index=turns["turn_index"],
                roles=turns["roles"],
                speakers=turns["speakers"],
                texts=turns["texts"],
                labels=turns["labels"],
                raws=turns["raws"],
            ),
            counts=turns["evidence_counts"],
            ids=pa.array(self.evidence_ids, pa.string()),
            passage=pa.array(self.passage, pa.int32()),
            origin=pa.array(["provenance"] * rows, pa.string()),
            selected=pa.array([True] * rows, pa.bool_()),
            passages=PassageTable(
                pa.array([key[0] for key in self.new_passages], pa.string()),
                pa.array([key[1] for key in self.new_passages], pa.string()),
                _text_column([key[2] for key in self.new_passages]),
            ),
        )


def _meta_text(example_id: str, has_answer: bool) -> bytes:
    """A dialogue's ``meta`` as :func:`_example` makes it, as the cache's encoder writes it."""
    meta: dict[str, Any] = {"kilt_id": example_id, "has_answer": has_answer}
    dialogue_id, _, wizard_turn = example_id.rpartition("_")
    if dialogue_id and wizard_turn.isdigit():
        if not wizard_turn.isascii():
            raise _Declined  # a digit int() may not read: parse's to judge
        meta["wow_dialogue_id"] = dialogue_id
        meta["wizard_example"] = int(wizard_turn)
    text = _encode(meta)
    if b"null" in text:  # the cache writes such a text with json instead
        raise _Declined
    return text


#: A turn's role, speaker, ``labels`` and ``raw`` by its code: 0 an input line of the apprentice's,
#: 1 one of the wizard's, 2 the answer (the wizard's).
_ROLES = pa.array([SEEKER, WIZARD, WIZARD], pa.string())
_SPEAKER_NAMES = pa.array([_SPEAKERS[SEEKER], _SPEAKERS[WIZARD], _SPEAKERS[WIZARD]], pa.string())
_LABEL_TEXTS = pa.array([_EMPTY, _EMPTY, _ANSWER_LABELS], pa.binary()).view(pa.string())
_RAW_TEXTS = pa.array([_INPUT_RAW, _INPUT_RAW, _ANSWER_RAW], pa.binary()).view(pa.string())


def _turns(inputs: list[str], has_answer: np.ndarray, answers: list[str], answer_evidence: list[int]) -> dict[str, Any]:
    """The turn columns of a batch of examples: each input's lines (roles counted back from its last
    line, the apprentice's), then its answer when it has an output, as :func:`_example` makes them."""
    lines = pc.split_pattern(pa.array(inputs, pa.string()), "\n")
    line_counts = pc.list_value_length(lines).to_numpy(zero_copy_only=False).astype(np.int64)
    turn_counts = line_counts + has_answer
    starts = np.cumsum(turn_counts) - turn_counts  # each example's first turn
    first_line = np.cumsum(line_counts) - line_counts  # each example's first line among all lines
    position = np.arange(int(line_counts.sum())) - np.repeat(first_line, line_counts)  # a line's in its input
    line_turns = np.repeat(starts, line_counts) + position
    answer_turns = (starts + line_counts)[has_answer]
    total = int(turn_counts.sum())
    source = np.empty(total, dtype=np.int64)  # each turn's text in [every line, every answer]
    source[line_turns] = np.arange(len(line_turns))
    source[answer_turns] = len(line_turns) + np.arange(len(answer_turns))
    code = np.full(total, 2, dtype=np.int8)
    code[line_turns] = (np.repeat(line_counts, line_counts) - 1 - position) % 2
    turn_index = np.empty(total, dtype=np.int32)
    turn_index[line_turns] = position
    turn_index[answer_turns] = line_counts[has_answer]
    evidence_counts = np.zeros(total, dtype=np.int64)
    evidence_counts[answer_turns] = answer_evidence
    return {
        "turn_counts": turn_counts,
        "turn_index": turn_index,
        "roles": _ROLES.take(code),
        "speakers": _SPEAKER_NAMES.take(code),
        # Taken from the lines and answers where they are, not from a copy of them put end to end.
        "texts": pa.chunked_array([lines.flatten(), pa.array(answers, pa.string())]).take(source).combine_chunks(),
        "labels": _LABEL_TEXTS.take(code),
        "raws": _RAW_TEXTS.take(code),
        "evidence_counts": evidence_counts,
    }


def _typed_provenance(item: Any, position: int) -> tuple[str, tuple[str, str, bytes]]:
    """The evidence id and passage key (text, title, meta as JSON) of one provenance, as
    :func:`_provenance` makes them, for a provenance with the published files' eight fields."""
    if type(item) is dict and tuple(item) == _PUBLISHED_ORDER:
        wikipedia_id, title, paragraph, character, end_paragraph, end_character, score, section = item.values()
        if not (
            type(wikipedia_id) in (str, int) and type(title) is str and type(paragraph) is int
            and type(character) is int and type(end_paragraph) is int and type(end_character) is int
            and type(score) in (int, float) and type(section) is str
        ):
            raise _Declined
        meta = {
            "wikipedia_id": wikipedia_id, "start_paragraph_id": paragraph, "start_character": character,
            "end_paragraph_id": end_paragraph, "end_character": end_character, "bleu_score": score, "section": section,
        }
    else:  # the same fields in another order: their meta keeps it
        if type(item) is not dict or item.keys() != _PROVENANCE_TYPES.keys():
            raise _Declined
        for key, value in item.items():
            if type(value) not in _PROVENANCE_TYPES[key]:
                raise _Declined
        wikipedia_id, title, paragraph, character = (item[key] for key in _PUBLISHED_ORDER[:4])
        meta = {key: value for key, value in item.items() if key != "title"}
    evidence_id = f"{wikipedia_id}@{paragraph}:{character}#{position}"
    return evidence_id, (title or str(wikipedia_id), title, _meta_json(meta))


def _meta_json(meta: dict[str, Any]) -> bytes:
    """An evidence row's ``meta`` as the cache writes it (json's spelling, :data:`_encode_meta`).

    msgspec spells strings and integers as json does, and floats too between 1e-4 and 1e16 (where
    ``repr`` writes no exponent: msgspec writes ``1e16`` for ``1e+16``, ``0.00001`` for ``1e-05``): it
    writes those, in a tenth of the time; json the others.
    """
    score = meta.get("bleu_score")
    if type(score) is not float or score == 0 or 1e-4 <= abs(score) < 1e16:
        try:
            return _encode(meta)
        except (msgspec.EncodeError, OverflowError, TypeError, ValueError, UnicodeEncodeError):
            pass
    return _encode_meta(meta).encode("utf-8")


def _text_column(texts: list[bytes]) -> pa.Array:
    """JSON texts (UTF-8 by construction: msgspec refuses lone surrogates) as a string column."""
    return pa.array(texts, pa.binary()).view(pa.string())
