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

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...errors import DataError
from ...formats import iter_json_lines, require
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
