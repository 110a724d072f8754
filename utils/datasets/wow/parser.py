"""Wizard of Wikipedia in ParlAI's raw JSON format (``train.json``, ``valid_random_split.json``, ...).

Each file holds one JSON list of dialogues. A dialogue has ``chosen_topic``, ``persona``,
``wizard_eval``, ``chosen_topic_passage`` (sentences of the topic's article) and ``dialog``, a list of
turns with ``speaker`` (``0_Wizard``, ``1_Apprentice``, ... or plain ``wizard``/``apprentice``),
``text``, ``retrieved_topics`` and ``retrieved_passages`` (one-entry dicts ``{title: [sentences]}``
retrieved for that turn's text). Wizard turns add ``checked_sentence`` and ``checked_passage``
(one-entry dicts whose keys encode where the choice came from) and, in the valid and test files,
``candidate_responses`` (100 responses, the gold one among them).

What a wizard turn shows as :class:`~utils.records.Evidence` is the knowledge ParlAI's
``WizardDialogKnowledgeTeacher`` builds for it: every sentence of the chosen topic's passage
(origin ``"topic"``), then the passages retrieved for the apprentice's last turn
(``"retrieved:seeker"``, the wizard's *partner*) and for the wizard's own previous turn
(``"retrieved:wizard"``, *self*), a title kept only the first time it appears. An evidence's ``id``
says where its sentence sat: ``"<topic>#<j>"`` for sentence ``j`` of the topic's passage,
``"<turn>:<k>:<title>#<j>"`` for sentence ``j`` of the ``k``-th passage retrieved for turn ``turn``
(:func:`evidence_source` decodes it). The position lives in the id rather than in ``meta`` because
ids are a column of :meth:`~utils.loading.LoadedSplit.evidence`, so it can be read vectorised, and a
full split has millions of evidence rows that would otherwise each carry a small JSON object.
Passages that no wizard turn shows (those of the last turns, or a title already shown) stay in that
turn's ``raw`` under ``retrieved_passages_not_shown`` so that nothing of the file is lost, and
``retrieved_passage_count`` says how many passages the turn had; every other field of a turn
(``retrieved_topics``, ``checked_sentence``, ``checked_passage``, ``candidate_responses``, unknown
keys) is in ``raw`` as in the file, and every dialogue field but ``dialog`` is in ``Dialogue.meta``.
"""

from __future__ import annotations

import importlib
import json
import re
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from types import ModuleType
from typing import Any, cast

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from msgspec import UNSET, UnsetType

from ...errors import DataError, SlowPathWarning
from ...formats import (
    MAX_JSON_DEPTH,
    EvidenceBatch,
    PassageTable,
    TurnColumns,
    all_of_type,
    deeper_than,
    iter_json_list,
    require,
    require_items,
)
from ...records import SEEKER, WIZARD, Dialogue, Evidence, Turn
from . import _native


def _built_speedups() -> ModuleType | None:
    """The compiled per-passage loops, if this install built them (and they are the current ones)."""
    try:
        speedups = importlib.import_module(f"{__package__}._speedups")
    except ImportError:
        return None
    return speedups if getattr(speedups, "VERSION", None) == _native.VERSION else None


#: Where the typed path's per-passage loops come from: the C extension, else the same loops in Python.
_loops: ModuleType = _built_speedups() or _native
#: How much slower a first load is with :mod:`._native`'s loops: 6.55-6.82 s against 4.94-4.98 s of CPU
#: on full-size synthetic train (``python -m benchmarks.bench``'s first-load step, two alternated runs).
_NATIVE_SLOWDOWN = "1.4x"

PARSER_VERSION = 2

#: ParlAI's token for "the wizard used no passage".
NO_PASSAGES_USED = "no_passages_used"

_EVIDENCE_ID = re.compile(r"^(\d+):(\d+):(.*)#(\d+)$", re.DOTALL)
_SENTENCE_KEY = re.compile(r"^(chosen|self|partner)_(.*)_(\d+)$", re.DOTALL)
_PASSAGE_KEY = re.compile(r"^(?:(chosen)_topic|(self)|(partner))_(\d+)_(.*)$", re.DOTALL)
_HANDLED_TURN_KEYS = {"speaker", "text", "retrieved_passages"}
_HANDLED_DIALOGUE_KEYS = {"dialog"}
#: The fields whose types the parser checks all the way down (no deeper than the file's known layout):
#: only a record with other fields is walked to judge its depth. An apprentice's checked sentence and
#: passage are not read, so not checked.
_CHECKED_TURN_KEYS = {
    SEEKER: frozenset({"speaker", "text", "retrieved_topics", "candidate_responses", "retrieved_passages"}),
    WIZARD: frozenset(
        {"speaker", "text", "retrieved_topics", "candidate_responses", "retrieved_passages", "checked_sentence",
         "checked_passage"}
    ),
}
_CHECKED_DIALOGUE_KEYS = frozenset({"chosen_topic", "chosen_topic_passage", "persona", "wizard_eval", "dialog"})
#: A turn after the first pass: the turn (a dict, or a typed turn of the fast path), its role, speaker,
#: text and ``[(title, sentences)]``.
_CheckedTurn = tuple[Any, str, str, str, list[tuple[str, list[str]]]]


def decode_checked_sentence_key(key: str) -> dict[str, str]:
    """Decode a ``checked_sentence`` key such as ``"self_Science_fiction_film_1"``.

    Returns ``source`` (``chosen``/``self``/``partner``/``no_passages_used``), ``title`` (underscores
    turned back into spaces, as ParlAI does; a title that had underscores cannot be told apart) and
    ``index`` (the sentence's position in its passage). Unknown shapes give ``source="unknown"``.
    """
    if key == NO_PASSAGES_USED:
        return {"source": NO_PASSAGES_USED}
    match = _SENTENCE_KEY.match(key)
    if match is None:
        return {"source": "unknown"}
    return {"source": match.group(1), "title": match.group(2).replace("_", " "), "index": match.group(3)}


def decode_checked_passage_key(key: str) -> dict[str, str]:
    """Decode a ``checked_passage`` key such as ``"chosen_topic_0_Science_fiction"`` or ``"self_3_Film"``.

    ``index`` is the passage's position among those shown; ``none`` and ``no_passages_used`` give
    only ``source``.
    """
    if key in (NO_PASSAGES_USED, "none"):
        return {"source": key}
    match = _PASSAGE_KEY.match(key)
    if match is None:
        return {"source": "unknown"}
    source = match.group(1) or match.group(2) or match.group(3)
    return {"source": source, "index": match.group(4), "title": match.group(5).replace("_", " ")}


def evidence_source(evidence: Evidence) -> dict[str, int | str | None]:
    """Where a knowledge sentence came from: ``from_turn`` (None for the topic's passage),
    ``passage`` (its position among the passages retrieved for that turn), ``title`` and ``sentence``.
    """
    if evidence.origin != "topic":
        match = _EVIDENCE_ID.match(evidence.id)
        if match is not None:
            turn, passage, title, sentence = match.groups()
            return {"from_turn": int(turn), "passage": int(passage), "title": title, "sentence": int(sentence)}
    title, _, sentence = evidence.id.rpartition("#")
    return {
        "from_turn": None,
        "passage": None,
        "title": title,
        "sentence": int(sentence) if sentence.isdigit() else None,
    }


def role_of(speaker: str) -> str | None:
    """The normalised role of a raw speaker string (``0_Wizard``, ``1_Apprentice``, ``wizard``, ...)."""
    lowered = speaker.lower()
    if "wizard" in lowered:
        return WIZARD
    if "apprentice" in lowered:
        return SEEKER
    return None


def parse(path: Path, *, split: str) -> Iterator[Dialogue]:
    """Stream the dialogues of one raw WoW file; any malformed record raises :class:`DataError`."""
    path = Path(path)
    for index, record in iter_json_list(path, check_depth=False):  # judged by _read_dialogue
        yield _dialogue(record, index, path, split)


def _passages(value: Any, path: Path, record: str, field: str) -> list[tuple[str, list[str]]]:
    """``retrieved_passages`` as ``[(title, sentences)]`` in file order, checked."""
    # A split has millions of these sentences: check all of a turn's at once, at C speed, and look
    # passage by passage (below) only to name a fault.
    if type(value) is list and all_of_type(value, dict):
        passages = [item for entry in value for item in entry.items()]
        lists = [sentences for _, sentences in passages]
        if all_of_type(lists, list) and all_of_type(chain.from_iterable(lists), str):
            return passages
    if not isinstance(value, list):
        raise DataError(f"expected a list, found {type(value).__name__}", path=path, record=record, field=field)
    passages = []
    for position, entry in enumerate(value):
        where = f"{field}[{position}]"
        if not isinstance(entry, dict):
            raise DataError(f"expected an object, found {type(entry).__name__}", path=path, record=record, field=where)
        for title, sentences in entry.items():
            if not isinstance(sentences, list):
                raise DataError(
                    f"expected a list of sentences, found {type(sentences).__name__}",
                    path=path,
                    record=record,
                    field=f"{where}.{title}",
                )
            require_items(sentences, str, path=path, record=record, field=f"{where}.{title}")
            passages.append((title, sentences))
    return passages


def _field(
    turn: dict[str, Any], key: str, kind: type | tuple[type, ...], path: Path, record: str, prefix: str, **options: Any
) -> Any:
    """``require`` on a turn, naming the field with the turn's position (``dialog[3].text``)."""
    try:
        return require(turn, key, kind, path=path, record=record, **options)
    except DataError as exc:
        raise DataError(exc.reason, path=path, record=record, field=f"{prefix}.{key}") from None


def _one_entry(turn: dict[str, Any], key: str, path: Path, record: str, field: str) -> tuple[str, str] | None:
    """The single ``(key, value)`` of ``checked_sentence``/``checked_passage``, or None when absent or empty."""
    value = _field(turn, key, dict, path, record, field, optional=True)
    if not value:
        return None
    for entry_value in value.values():
        if not isinstance(entry_value, str):
            raise DataError(
                f"expected a string, found {type(entry_value).__name__}",
                path=path,
                record=record,
                field=f"{field}.{key}",
            )
    return next(iter(value.items()))


def _dialogue(record: Any, index: int, path: Path, split: str) -> Dialogue:
    """One dialogue, its wizard turns' knowledge as :class:`Evidence` objects (the record path)."""
    dialogue, shown, chosen = _read_dialogue(record, index, path, split)
    for turn, passages, selected in zip(dialogue.turns, shown, chosen, strict=True):
        if not passages:
            continue
        evidence = turn.evidence
        for passage in passages:
            prefix, title, origin = passage.prefix, passage.title, passage.origin
            # Positional arguments in the field order of Evidence: millions are made per split.
            evidence += [Evidence(f"{prefix}{j}", text, title, origin) for j, text in enumerate(passage.sentences)]
        if selected is not None:
            evidence[selected].selected = True
    return dialogue


@dataclass(frozen=True, slots=True)
class ShownPassage:
    """Sentences shown together at a wizard turn: the topic's passage, or one retrieved passage.

    Evidence ``prefix + str(j)`` is sentence ``j``, with this title and origin.
    """

    prefix: str
    title: str
    origin: str
    sentences: list[str]


def _read_dialogue(
    record: Any, index: int, path: Path, split: str
) -> tuple[Dialogue, list[list[ShownPassage]], list[int | None]]:
    """A checked dialogue whose turns hold no evidence yet, with what each turn was shown (passages in
    ParlAI's order) and the position of the selected sentence among them (None: nothing selected)."""
    where = f"dialogue {index}"
    if not isinstance(record, dict):
        raise DataError(f"expected an object, found {type(record).__name__}", path=path, record=where)
    topic = require(record, "chosen_topic", str, path=path, record=where)
    topic_passage = require(record, "chosen_topic_passage", list, path=path, record=where)
    require_items(topic_passage, str, path=path, record=where, field="chosen_topic_passage")
    require(record, "persona", str, path=path, record=where, optional=True)
    require(record, "wizard_eval", (int, float), path=path, record=where, optional=True)
    raw_turns = require(record, "dialog", list, path=path, record=where)

    # First pass: check every turn and read its passages, so a wizard turn can look back.
    checked: list[_CheckedTurn] = []
    for position, turn in enumerate(raw_turns):
        field = f"dialog[{position}]"
        if not isinstance(turn, dict):
            raise DataError(f"expected an object, found {type(turn).__name__}", path=path, record=where, field=field)
        speaker = _field(turn, "speaker", str, path, where, field)
        text = _field(turn, "text", str, path, where, field)
        topics = _field(turn, "retrieved_topics", list, path, where, field, optional=True)
        candidates = _field(turn, "candidate_responses", list, path, where, field, optional=True)
        for name, values in (("retrieved_topics", topics), ("candidate_responses", candidates)):
            if values is not None:
                require_items(values, str, path=path, record=where, field=f"{field}.{name}")
        role = role_of(speaker)
        if role is None:
            raise DataError(
                f"unknown speaker {speaker!r} (expected a wizard or an apprentice)",
                path=path,
                record=where,
                field=f"{field}.speaker",
            )
        retrieved = _passages(turn.get("retrieved_passages", []), path, where, f"{field}.retrieved_passages")
        checked.append((turn, role, speaker, text, retrieved))
    # Walking every record to judge its depth cost a tenth of a full train's first load; the checked
    # fields cannot nest deeper than the layout above, so only a record with other fields is walked.
    unchecked = not _CHECKED_DIALOGUE_KEYS.issuperset(record) or any(
        not _CHECKED_TURN_KEYS[role].issuperset(turn) for turn, role, *_ in checked
    )
    if unchecked and deeper_than(record, MAX_JSON_DEPTH - 1):  # the file's top-level list is a level too
        raise DataError(f"JSON nested more than {MAX_JSON_DEPTH} levels deep", path=path, record=index)

    shown: set[tuple[int, int]] = set()  # (turn, passage position) pairs that some wizard turn shows
    topic_shown = ShownPassage(f"{topic}#", topic, "topic", topic_passage)  # the same at every wizard turn
    turns = []
    knowledge: list[list[ShownPassage]] = []
    chosen: list[int | None] = []
    for position, (turn, role, speaker, text, _) in enumerate(checked):
        shown_here: list[ShownPassage] = []
        labels: dict[str, list[str]] = {}
        selected = None
        if role == WIZARD:
            shown_here = _knowledge(topic_shown, checked, position, shown)
            labels, selected = _checked_labels(turn, shown_here, path, where, f"dialog[{position}]")
        raw = {key: value for key, value in turn.items() if key not in _HANDLED_TURN_KEYS}
        turns.append(Turn(position, role, speaker, text, [], labels, raw))
        knowledge.append(shown_here)
        chosen.append(selected)

    _keep_unshown_retrieved(turns, checked, shown)

    meta = {key: value for key, value in record.items() if key not in _HANDLED_DIALOGUE_KEYS}
    dialogue = Dialogue(id=f"{split}/{index}", dataset="wow", split=split, turns=turns, topic=topic, meta=meta)
    return dialogue, knowledge, chosen


def _knowledge(
    topic_shown: ShownPassage, checked: list[_CheckedTurn], position: int, shown: set[tuple[int, int]]
) -> list[ShownPassage]:
    """The passages ParlAI shows at the wizard turn ``position``, in its order."""
    passages = [topic_shown]
    titles = {topic_shown.title}
    # As ParlAI: the apprentice's turn just before, then the wizard's previous turn.
    for source_turn in (position - 1, position - 2):
        if source_turn < 0:
            continue
        _, role, _, _, retrieved = checked[source_turn]
        origin = "retrieved:seeker" if role == SEEKER else "retrieved:wizard"
        for k, (title, sentences) in enumerate(retrieved):
            if title in titles:
                continue
            titles.add(title)
            shown.add((source_turn, k))
            passages.append(ShownPassage(f"{source_turn}:{k}:{title}#", title, origin, sentences))
    return passages


def _checked_labels(
    turn: dict[str, Any], passages: list[ShownPassage], path: Path, record: str, field: str
) -> tuple[dict[str, list[str]], int | None]:
    """Decode the checked sentence and passage; find the selected sentence by ParlAI's rules.

    Returns the labels and the selected sentence's position among all the sentences of ``passages``.
    """
    sentence_entry = _one_entry(turn, "checked_sentence", path, record, field)
    passage_entry = _one_entry(turn, "checked_passage", path, record, field)
    return _labels_of(sentence_entry, passage_entry, [p.title for p in passages], [p.sentences for p in passages])


def _labels_of(
    sentence_entry: tuple[str, str] | None,
    passage_entry: tuple[str, str] | None,
    titles: list[str],
    sentence_lists: Sequence[list[str]],
    sizes: Sequence[int] | None = None,
) -> tuple[dict[str, list[str]], int | None]:
    """:func:`_checked_labels` once the checked sentence's and passage's single entries are read (the
    shown passages given as their ``titles`` and ``sentence_lists``)."""
    labels: dict[str, list[str]] = {}
    if passage_entry is not None:
        decoded = decode_checked_passage_key(passage_entry[0])
        labels["checked_passage_source"] = [decoded["source"]]
        if "title" in decoded:
            labels["checked_passage_title"] = [passage_entry[1]]
            labels["checked_passage_index"] = [decoded["index"]]
    if sentence_entry is None or sentence_entry[1] == NO_PASSAGES_USED or sentence_entry[0] == NO_PASSAGES_USED:
        labels["checked_source"] = [NO_PASSAGES_USED]
        labels["checked_sentence"] = [NO_PASSAGES_USED]
        labels["knowledge"] = [NO_PASSAGES_USED]
        return labels, None
    key, sentence = sentence_entry
    decoded = decode_checked_sentence_key(key)
    labels["checked_source"] = [decoded["source"]]
    if "title" in decoded:
        labels["checked_title"] = [decoded["title"]]
        labels["checked_index"] = [decoded["index"]]
    labels["checked_sentence"] = [sentence]
    selected = _parlai_passage(passage_entry[1] if passage_entry else "", decoded.get("title", ""), sentence,
                               titles, sentence_lists)
    if selected is None:  # the crowd worker's sentence is not among the sentences rebuilt for this turn
        labels["knowledge"] = ["not_found"]
        return labels, None
    labels["knowledge"] = ["found"]
    before = sum(sizes[:selected]) if sizes is not None else sum(len(sentence_lists[i]) for i in range(selected))
    return labels, before + sentence_lists[selected].index(sentence)


def _parlai_passage(
    passage_title: str, key_title: str, sentence: str, titles: list[str], sentence_lists: Sequence[list[str]]
) -> int | None:
    """The position among the shown passages of the one holding the checked ``sentence``, chosen as
    ParlAI's ``_get_chosen_title_and_sent`` chooses its title: the checked passage's title, else the
    title in the sentence's key, else the first passage holding the sentence; None when none holds it.

    The two named passages are looked at first (titles are distinct among a turn's passages): a wizard
    turn shows about 80 sentences, and scanning them all for every turn cost a twentieth of a full
    train's first load.
    """
    for title in (passage_title, key_title):
        if title and title in titles:
            position = titles.index(title)
            if sentence in sentence_lists[position]:
                return position
    return next((position for position, sentences in enumerate(sentence_lists) if sentence in sentences), None)


# -- the columnar path: what the cache stores, without an Evidence object per sentence -----------------

#: Dialogues handed to the cache at a time (the cache joins them into batches of its usual size). Since
#: the typed path keeps flat lists rather than objects, the fixed cost of a batch's Arrow and NumPy calls
#: weighs more than keeping the decoded JSON in the processor's cache: 64 a batch built a quarter-size
#: train in a tenth less time than 16; 128 and 256 no faster again.
_COLUMN_BATCH = 64
#: Sentences of distinct passages remembered to find repeats, at most (then it starts afresh, costing
#: only some sharing): about 50 MB of text. The full-size synthetic train has 216 thousand.
_REMEMBERED_SENTENCES = 1 << 19
_ORIGINS = ("topic", "retrieved:seeker", "retrieved:wizard")
_ORIGIN_CODES = {name: code for code, name in enumerate(_ORIGINS)}
_ORIGIN_CODE_ORDER = (_ORIGIN_CODES["topic"], _ORIGIN_CODES["retrieved:seeker"], _ORIGIN_CODES["retrieved:wizard"])


#: A dialogue read for the cache: the dialogue (its turns without evidence), the passages shown at each
#: turn and the position of the selected sentence among their sentences.
_ReadDialogue = tuple[Dialogue, list[list[ShownPassage]], list[int | None]]


def parse_columns(path: Path, *, split: str) -> Iterator[EvidenceBatch]:
    """Stream one raw WoW file as the cache stores it: dialogues and turns as records, and the knowledge
    of every wizard turn as columns (:class:`~utils._cache.EvidenceBatch`).

    The same checks and the same records as :func:`parse`; what differs is that no :class:`Evidence`
    object is made for the 5.4 million sentences of a full train file, and that each distinct passage
    (title and sentences) is stored once per split: the topic's passage is shown at every wizard turn,
    and the same articles' passages in many dialogues.

    Dialogues are first decoded by msgspec straight into typed records (:class:`_TypedDialogue`), which
    checks every field's type in C as it decodes (a passage's sentences are kept as their JSON text,
    checked where the dialogue is added: decoded, or found to be byte for byte a text that was); the
    first record that this cannot take as it is (a
    wrong type, an unknown field, a fault of the JSON, a lone surrogate, ...) hands the rest of the file
    over to the record path shared with :func:`parse` (:func:`_read_dialogue`), which reads it from that
    dialogue on and reports any fault in the same words, naming the file, record and field.
    """
    path = Path(path)
    if _loops is _native:
        warnings.warn(
            "utils.datasets.wow: the compiled parsing loops (_speedups.c) are not built in this install, "
            "so WoW files are parsed by the same loops in Python: the same records, a first load of a "
            f"split about {_NATIVE_SLOWDOWN} slower. Reinstalling the atlas where a C compiler is found "
            "builds them (pip install -e . from the atlas's folder).",
            SlowPathWarning,
            stacklevel=2,
        )
    knowledge = _KnowledgeColumns()
    typed = _TypedColumns(split, knowledge)
    handed_on = 0  # dialogues yielded by the typed path
    yielded_rows = 0  # passages rows in the batches yielded
    try:
        for index, record in enumerate(_typed_records(path)):
            typed.add(record, index)
            if typed.dialogues >= _COLUMN_BATCH:
                handed_on += typed.dialogues
                yield typed.batch()
                yielded_rows = knowledge.written
    except _HandOver:
        # The dialogues gathered since the last batch are read again, with the rest, by the record path;
        # the passages they stored are forgotten (their rows were never handed over).
        knowledge = _KnowledgeColumns(written=yielded_rows)
    else:
        if typed.dialogues:
            yield typed.batch()
        return
    batch: list[_ReadDialogue] = []
    for index, raw_record in iter_json_list(path, check_depth=False):  # judged by _read_dialogue
        if index < handed_on:
            continue
        batch.append(_read_dialogue(raw_record, index, path, split))
        if len(batch) >= _COLUMN_BATCH:
            yield knowledge.batch(batch)
            batch = []
    if batch:
        yield knowledge.batch(batch)



# -- the typed path: msgspec decodes and checks a dialogue in one go ---------------------------------


class _HandOver(Exception):
    """The typed path met something it does not take; the record path reads the file from there on."""


class _TypedTurn(msgspec.Struct, forbid_unknown_fields=True):
    """A turn as the file holds it, fields in the published files' order (``raw`` keeps that order)."""

    speaker: str
    text: str
    checked_sentence: dict[str, str] | UnsetType = UNSET
    checked_passage: dict[str, str] | UnsetType = UNSET
    # each passage's sentences as their JSON text: _loops.passage_rows compares most with the text of a
    # passage met before rather than decoding them (every text is decoded or found equal to one that was)
    retrieved_passages: list[dict[str, msgspec.Raw]] | UnsetType = UNSET
    retrieved_topics: list[str] | UnsetType = UNSET
    candidate_responses: list[str] | UnsetType = UNSET


class _TypedDialogue(msgspec.Struct, forbid_unknown_fields=True):
    """A dialogue as the file holds it (an integer beyond 64 bits or an infinite float is refused, so
    ``wizard_eval`` is what the standard library's decoder gives)."""

    chosen_topic: str
    dialog: list[_TypedTurn]
    chosen_topic_passage: msgspec.Raw  # as retrieved_passages' texts (decoded for ``meta``)
    persona: str | UnsetType = UNSET
    wizard_eval: int | float | UnsetType = UNSET


#: The turn fields kept in ``raw``, in the published files' order.
_RAW_TURN_FIELDS = ("checked_sentence", "checked_passage", "retrieved_topics", "candidate_responses")
#: Bytes read at a time by :func:`_typed_records` (WoW's records are ~60 KB): a window of a megabyte
#: holds many records, so that a record is rarely cut by its end, and little memory.
_TYPED_CHUNK = 1 << 20
#: A record longer than this goes the record path (only a malformed file has one): the window is not
#: grown without end looking for its end.
_LONGEST_TYPED_RECORD = 1 << 26
_JSON_SPACE = re.compile(rb"[ \t\n\r]*")
_decode_sentences = msgspec.json.Decoder(list[str]).decode


class _DecodedOnUse(Sequence[list[str]]):
    """Shown passages' sentences given as JSON texts, each decoded when read: a turn's labels read one
    or two of the passages it shows (:func:`_parlai_passage` looks at the named ones first)."""

    __slots__ = ("_read", "_texts")

    def __init__(self, texts: list[Any]) -> None:
        self._texts = texts
        self._read: dict[int, list[str]] = {}

    def __len__(self) -> int:
        return len(self._texts)

    def __getitem__(self, position: Any) -> Any:
        if not isinstance(position, int):
            raise TypeError("read one passage at a time")
        read = self._read.get(position)
        if read is None:
            read = self._read[position] = _decode_sentences(self._texts[position])
        return read
#: msgspec's message for a value followed by more text: the 1-based position of the first byte after
#: the value and its whitespace.
_TRAILING = re.compile(r"trailing characters \(byte (\d+)\)")


def _typed_records(path: Path) -> Iterator[_TypedDialogue]:
    """Each element of the file's top-level JSON list, decoded and type-checked by msgspec.

    The file is read a few megabytes at a time. Where a record ends is found by msgspec skipping over
    it (``msgspec.Raw``, no objects made): it stops at the first byte after the record and its
    whitespace. Raises :class:`_HandOver` at the first record or framing it does not take.
    """
    decode = msgspec.json.Decoder(_TypedDialogue).decode
    find_end = msgspec.json.Decoder(msgspec.Raw).decode
    with open(path, "rb") as handle:
        data = handle.read(_TYPED_CHUNK)
        eof = not data
        pos = _JSON_SPACE.match(data).end()  # type: ignore[union-attr]
        if data[pos : pos + 1] != b"[":
            raise _HandOver  # also a leading BOM: the record path drops it
        pos = _JSON_SPACE.match(data, pos + 1).end()  # type: ignore[union-attr]
        if data[pos : pos + 1] in (b"]", b""):
            raise _HandOver  # an empty list, or too little read: rare, left to the record path
        while True:
            try:
                find_end(memoryview(data)[pos:])
            except RecursionError:  # nested deeper than msgspec goes: the record path says how deep
                raise _HandOver from None
            except msgspec.DecodeError as exc:
                message = str(exc)
                trailing = _TRAILING.search(message)
                if trailing is None:  # cut by the window's end, or malformed
                    if "truncated" not in message or eof or len(data) - pos > _LONGEST_TYPED_RECORD:
                        raise _HandOver from None
                    chunk = handle.read(max(_TYPED_CHUNK, len(data) - pos))
                    data, pos, eof = data[pos:] + chunk, 0, not chunk
                    continue
                end = pos + int(trailing.group(1)) - 1  # the byte after the record and its whitespace
            else:  # the rest of the window is one value: the list's end is further on
                chunk = b"" if eof else handle.read(_TYPED_CHUNK)
                if not chunk:
                    raise _HandOver
                data, pos = data[pos:] + chunk, 0
                continue
            try:
                record = decode(memoryview(data)[pos:end])
            except (msgspec.MsgspecError, UnicodeError, RecursionError):
                raise _HandOver from None
            yield record
            separator = data[end : end + 1]
            if separator == b"]":
                break
            if separator != b",":
                raise _HandOver
            pos = _JSON_SPACE.match(data, end + 1).end()  # type: ignore[union-attr]
        rest = data[end + 1 :] + handle.read()
        if _JSON_SPACE.match(rest).end() != len(rest):  # type: ignore[union-attr]
            raise _HandOver


#: ``json``'s text where msgspec's differs (floats: ``1e+16`` against ``1e16``): the cache writes a value's
#: msgspec text unless it has ``null`` (msgspec's NaN), and then ``json``'s.
_encode_json = msgspec.json.Encoder().encode
_encode_json_as_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_NO_LABELS = b"{}"  # a seeker's turn's labels


def _json_text(value: dict[str, Any]) -> bytes:
    """The JSON text (UTF-8) the cache stores for ``value``, as it writes a Turn's ``labels`` and ``raw``
    and a Dialogue's ``meta`` (the typed-path test compares the stored texts of both paths)."""
    text = _encode_json(value)
    if b"null" in text:
        text = _encode_json_as_json(value).encode("utf-8")
    return text


def _text_column(texts: list[bytes]) -> pa.Array:
    """JSON texts (UTF-8 by construction: msgspec and ``json`` refuse lone surrogates) as a string column.

    Built from the texts joined and their lengths: ``pa.array`` converts a list an item at a time (a
    quarter-size train's 90 thousand texts: 19 ms, against 12 ms this way)."""
    data = b"".join(texts)
    if len(data) >= 2**31:  # beyond a string column's 32-bit offsets: Arrow says so in its own words
        return pa.array(texts, pa.binary()).view(pa.string())
    offsets = np.zeros(len(texts) + 1, dtype=np.int32)
    np.cumsum(np.fromiter(map(len, texts), dtype=np.int32, count=len(texts)), out=offsets[1:])
    return pa.Array.from_buffers(pa.string(), len(texts), [None, pa.py_buffer(offsets), pa.py_buffer(data)])


class _TypedColumns:
    """Typed dialogues gathered as the cache stores them: dialogues and turns as :class:`TurnColumns`
    (``meta``, ``labels`` and ``raw`` as JSON text) and the passages shown at each wizard turn as flat
    lists, for :class:`_KnowledgeColumns`. No Dialogue, Turn or ShownPassage object is made: building
    them, then reading them back into columns, took a third of a full train's first load.

    :meth:`add` is :func:`_read_dialogue` for a dialogue msgspec has already checked the types of; it
    raises :class:`_HandOver` where the record path would refuse the dialogue (before the batch is
    yielded, so that the record path reads the batch again).
    """

    def __init__(self, split: str, knowledge: _KnowledgeColumns) -> None:
        self.split = split
        self.knowledge = knowledge
        self._start()

    def _start(self) -> None:
        self.dialogues = 0
        self.ids: list[str] = []
        self.topics: list[str] = []
        self.metas: list[bytes] = []
        self.turn_counts: list[int] = []
        self.roles: list[str] = []
        self.speakers: list[str] = []
        self.texts: list[str] = []
        self.labels: list[bytes] = []
        self.raws: list[bytes] = []
        self.shown = _ShownColumns()

    def add(self, record: _TypedDialogue, index: int) -> None:
        topic, topic_text, turns = record.chosen_topic, record.chosen_topic_passage, record.dialog
        found_roles = [role_of(turn.speaker) for turn in turns]
        if None in found_roles:
            raise _HandOver  # the record path names the speaker
        roles = cast(list[str], found_roles)
        # _knowledge's passages at every wizard turn, and what each turn's ``raw`` keeps of its
        # retrieved passages (as _keep_unshown_retrieved); the passages' sentences as JSON texts
        titles, texts, prefixes, origins, counts, notes = _loops.shown_passages(
            [turn.retrieved_passages for turn in turns], roles, WIZARD, SEEKER,
            topic, topic_text, f"{topic}#", _ORIGIN_CODE_ORDER,
        )
        shown = self.shown
        try:
            topic_passage = _decode_sentences(topic_text)
            sizes = self.knowledge.place(titles, texts, shown)  # and checks every text
            unshown_of = [
                None if note is None or note[1] is None
                else [{title: _decode_sentences(text) for title, text in entry.items()} for entry in note[1]]
                for note in notes
            ]
        except (msgspec.MsgspecError, UnicodeError, RecursionError):
            raise _HandOver from None
        turn_labels = self.labels
        first_turn, first = len(shown.passage_counts), 0
        for position, count in enumerate(counts):
            if not count:  # not a wizard turn (a wizard turn shows the topic's passage at least)
                turn_labels.append(_NO_LABELS)
                continue
            turn, end = turns[position], first + count
            sentence, passage = turn.checked_sentence, turn.checked_passage
            labels, selected = _labels_of(
                next(iter(sentence.items())) if sentence else None,
                next(iter(passage.items())) if passage else None,
                titles[first:end],
                _DecodedOnUse(texts[first:end]),
                sizes[first:end],
            )
            if selected is not None:
                shown.selected.append((first_turn + position, selected))
            # msgspec checked every type: no float, so its text is the one _json_text gives
            turn_labels.append(_encode_json(labels))
            first = end
        shown.passage_counts += counts
        shown.titles += titles
        shown.prefixes += prefixes
        shown.origins += origins
        for turn, note, unshown in zip(turns, notes, unshown_of, strict=True):
            raw = {name: value for name in _RAW_TURN_FIELDS if (value := getattr(turn, name)) is not UNSET}
            if note is not None:
                if unshown:
                    raw["retrieved_passages_not_shown"] = unshown
                raw["retrieved_passage_count"] = note[0]
            self.raws.append(_encode_json(raw))  # no float here either

        meta: dict[str, Any] = {"chosen_topic": topic}
        if record.persona is not UNSET:
            meta["persona"] = record.persona
        if record.wizard_eval is not UNSET:
            meta["wizard_eval"] = record.wizard_eval
        meta["chosen_topic_passage"] = topic_passage
        self.ids.append(f"{self.split}/{index}")
        self.topics.append(topic)
        self.metas.append(_json_text(meta))
        self.turn_counts.append(len(turns))
        self.roles += roles
        self.speakers += [turn.speaker for turn in turns]
        self.texts += [turn.text for turn in turns]
        self.dialogues += 1

    def batch(self) -> EvidenceBatch:
        """The dialogues added since the last batch, as the cache stores them; starts a new batch."""
        count = self.dialogues
        turn_counts = np.array(self.turn_counts, dtype=np.int64)
        turn_total = int(turn_counts.sum())
        turn_index = np.arange(turn_total, dtype=np.int32) - np.repeat(
            (np.cumsum(turn_counts) - turn_counts).astype(np.int32), turn_counts
        )
        dialogues = TurnColumns(
            ids=self.ids,
            datasets=["wow"] * count,
            splits=[self.split] * count,
            topics=self.topics,
            metas=_text_column(self.metas),
            turn_counts=self.turn_counts,
            turn_index=turn_index,
            roles=self.roles,
            speakers=self.speakers,
            texts=self.texts,
            labels=_text_column(self.labels),
            raws=_text_column(self.raws),
        )
        batch = self.knowledge.batch_of(dialogues, self.shown)
        self._start()
        return batch


class _ShownColumns:
    """The passages shown at each turn of a batch, flat: every passage's title, sentences, evidence id
    prefix (evidence ``prefix + str(j)`` is sentence ``j``) and origin code, how many each turn shows,
    and the selected sentences as (turn, position among the turn's sentences)."""

    def __init__(self) -> None:
        self.titles: list[str] = []
        self.sentence_lists: list[list[str]] = []
        self.prefixes: list[str] = []
        self.origins: list[int] = []
        self.passage_counts: list[int] = []
        self.selected: list[tuple[int, int]] = []
        # what _KnowledgeColumns.place found for the first ``placed`` passages: their rows and sentence
        # counts (int64 bytes, a part per call) and the passages not stored before (title repeated per row)
        self.placed = 0
        self.rows: list[bytes] = []
        self.sizes: list[bytes] = []
        self.new_sentences: list[str] = []
        self.new_titles: list[str] = []
        self.title_repeats: list[int] = []

    def add(
        self, titles: list[str], sentence_lists: list[list[str]], prefixes: list[str], origins: list[int],
        selected: int | None,
    ) -> None:
        """The next turn's passages (none for a turn that shows nothing)."""
        if selected is not None:
            self.selected.append((len(self.passage_counts), selected))
        self.passage_counts.append(len(titles))
        self.titles += titles
        self.sentence_lists += sentence_lists
        self.prefixes += prefixes
        self.origins += origins


class _KnowledgeColumns:
    """Turns batches of read dialogues into evidence columns, numbering the distinct passages of a split."""

    def __init__(self, written: int = 0) -> None:
        # (title, sentence count, first sentence) -> the first passages row, the text or sentences stored
        # there and their count (_native.Entry)
        self._starts: dict[tuple[str, int, str], _native.Entry] = {}
        # title -> the same for the passage of that title stored or met last: looked at first (hashing
        # a title is cheaper than the key above), it finds most passages, an article's passage being
        # the same wherever it was retrieved
        self._by_title: dict[str, _native.Entry] = {}
        self._remembered = 0  # sentences held in ``_starts``
        self.written = written  # passages rows numbered so far

    def batch(self, batch: list[_ReadDialogue]) -> EvidenceBatch:
        """The record path's read dialogues as an evidence batch."""
        shown = _ShownColumns()
        for _, knowledge, chosen in batch:
            for passages, selected in zip(knowledge, chosen, strict=True):
                shown.add(
                    [passage.title for passage in passages],
                    [passage.sentences for passage in passages],
                    [passage.prefix for passage in passages],
                    [_ORIGIN_CODES[passage.origin] for passage in passages],
                    selected,
                )
        return self.batch_of([dialogue for dialogue, _, _ in batch], shown)

    def batch_of(self, dialogues: list[Dialogue] | TurnColumns, shown: _ShownColumns) -> EvidenceBatch:
        """``dialogues`` with the evidence rows of the passages ``shown`` at their turns."""
        if shown.placed < len(shown.titles):
            self.place(shown.titles[shown.placed :], shown.sentence_lists[shown.placed :], shown)
        # A full train shows a million passages: their rows and sizes come as bytes, and the turns'
        # counts are summed by NumPy.
        starts = np.frombuffer(b"".join(shown.rows), dtype=np.int64)
        sizes = np.frombuffer(b"".join(shown.sizes), dtype=np.int64)
        ends = np.cumsum(sizes)
        passage_counts = np.asarray(shown.passage_counts, dtype=np.int64)
        turn_ends = np.cumsum(passage_counts)
        bounds = np.concatenate(([0], ends))
        rows_before_turn = bounds[turn_ends - passage_counts]
        counts = (bounds[turn_ends] - rows_before_turn).tolist()
        row = int(bounds[-1])
        group = np.repeat(np.arange(len(sizes)), sizes)  # the passage each evidence row belongs to
        sentence = np.arange(row, dtype=np.int64) - np.repeat(ends - sizes, sizes)
        prefixes = pa.array(shown.prefixes, pa.string()).take(pa.array(group))
        ids = pc.binary_join_element_wise(prefixes, pa.array(sentence).cast(pa.string()), "")
        origin_codes = np.asarray(shown.origins, dtype=np.int32)
        origin = pa.DictionaryArray.from_arrays(pa.array(origin_codes[group], pa.int32()), pa.array(_ORIGINS))
        selected_mask = np.zeros(row, dtype=np.bool_)
        selected_mask[[int(rows_before_turn[turn]) + offset for turn, offset in shown.selected]] = True
        new = None
        if shown.new_sentences:
            # Titles and the (empty) metadata are taken from one string each rather than converted per sentence.
            title_of_row = np.repeat(np.arange(len(shown.new_titles)), shown.title_repeats)
            new = PassageTable(
                pa.array(shown.new_sentences, pa.string()),
                pa.array(shown.new_titles, pa.string()).take(pa.array(title_of_row)),
                pa.array(["{}"], pa.string()).take(pa.array(np.zeros(len(shown.new_sentences), dtype=np.int64))),
            )
        return EvidenceBatch(
            dialogues=dialogues,
            counts=counts,
            ids=ids,
            passage=pa.array((starts[group] + sentence).astype(np.int32), pa.int32()),
            origin=origin,
            selected=pa.array(selected_mask, pa.bool_()),
            passages=new,
        )

    def place(self, titles: list[str], values: list[Any], shown: _ShownColumns) -> memoryview:
        """Find or number the rows of shown passages (their sentences, or their JSON texts, which are
        checked), record them in ``shown``, and return their sentence counts."""
        rows, sizes, sentences, new_titles, repeats, self._remembered = _loops.passage_rows(
            titles, values, self._by_title, self._starts, self.written, self._remembered,
            _REMEMBERED_SENTENCES, _decode_sentences,
        )
        self.written += len(sentences)
        shown.placed += len(titles)
        shown.rows.append(rows)
        shown.sizes.append(sizes)
        shown.new_sentences += sentences
        shown.new_titles += new_titles
        shown.title_repeats += repeats
        return memoryview(sizes).cast("q")


def _keep_unshown_retrieved(turns: list[Turn], checked: list[_CheckedTurn], shown: set[tuple[int, int]]) -> None:
    """Keep in each turn's ``raw`` the retrieved passages the wizard was not shown, and how many
    were retrieved (both parsing paths share it, so their records stay identical)."""
    for position, (_, _, _, _, retrieved) in enumerate(checked):
        unshown = [{title: sentences} for k, (title, sentences) in enumerate(retrieved) if (position, k) not in shown]
        if unshown:
            turns[position].raw["retrieved_passages_not_shown"] = unshown
        if retrieved:
            turns[position].raw["retrieved_passage_count"] = len(retrieved)
