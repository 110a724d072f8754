"""WISE (Wizard of Search Engine): conversation line files and the document line file.

Each line of ``conversation_<split>_line.json`` is one conversation: ``conversation_id``, a list of
``conversations`` (utterances of the ``user`` and the ``system``) and ``intent``, the search intent
the user was given (``"intent:... description:..."``). User utterances carry their ``intent`` (a
list such as ``["Feedback", "Good"]``); system utterances carry the keyphrase ``state``, the query
candidates and selected queries, the ``action`` (a list such as ``["Answer", "open-text"]``), and
the document and passage candidates with the selected ones. Passage ids are ``"<document>-<passage>"``
(``"3251-8"`` is passage 8 of document 3251) and resolve to text in ``document_line.json``, one
document per line with its passages and their sentences.

Mapping to the common records: ``user`` -> :data:`~utils.records.SEEKER`, ``system`` ->
:data:`~utils.records.WIZARD`; every list field becomes a label (document ids as strings); the
passage candidates become :class:`~utils.records.Evidence` (``origin="passage"``) with ``selected``
set for the selected passages and the text and title taken from ``document_line.json`` when that
file sits next to the conversation file (it does in the data directory and in the demo sample).
``msg_id``, ``turn_id`` and any field this module does not know stay in :attr:`Turn.raw`.
"""

from __future__ import annotations

import functools
import re
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json

from ...errors import DataError
from ...formats import EvidenceBatch, FastPathDeclined, PassageTable, iter_json_lines, require, require_items
from ...records import SEEKER, WIZARD, Dialogue, Evidence, Turn

PARSER_VERSION = 1

#: The document collection's file name; the parser looks for it beside the conversation file.
DOCUMENTS_FILENAME = "document_line.json"

ROLES = {"user": SEEKER, "system": WIZARD}

_USER_LISTS = ("intent",)
_SYSTEM_LISTS = ("state", "query_candidate", "action", "selected_query")
_SYSTEM_DOCUMENT_LISTS = ("document_candidate", "selected_document")
_SYSTEM_PASSAGE_LISTS = ("passage_candidate", "selected_passage")
_KNOWN_TURN_FIELDS = frozenset({"msg_id", "turn_id", "role", "response", *_USER_LISTS, *_SYSTEM_LISTS,
                                *_SYSTEM_DOCUMENT_LISTS, *_SYSTEM_PASSAGE_LISTS})
_PASSAGE_ID = re.compile(r"([0-9]+)-([0-9]+)")  # ASCII digits only: \d admits full-width ones
_SEARCH_INTENT = re.compile(
    r"^\s*intent\s*[:：]\s*(?P<intent>.*?)\s*(?:description\s*[:：]\s*(?P<description>.*))?$", re.S
)


# -- passage ids ----------------------------------------------------------------------------------


def parse_passage_id(
    value: object, *, path: Path | str | None = None, record: str | int | None = None, field: str | None = None
) -> tuple[int, int]:
    """``"3251-8"`` -> ``(3251, 8)``: document 3251, passage 8.

    Anything else (not a string, a missing part, a non-digit, a third part) raises
    :class:`DataError` naming the file, record and field given.
    """
    if not isinstance(value, str):
        raise DataError(
            f"a passage id must be a string like '3251-8', found {type(value).__name__}",
            path=path, record=record, field=field,
        )
    match = _PASSAGE_ID.fullmatch(value)
    if match is None:
        raise DataError(
            f"malformed passage id {value!r}: expected '<document id>-<passage id>' such as '3251-8'",
            path=path, record=record, field=field,
        )
    return int(match.group(1)), int(match.group(2))


def format_passage_id(document: int, passage: int) -> str:
    """``(3251, 8)`` -> ``"3251-8"``, the form the conversation files use."""
    return f"{document}-{passage}"


def _is_unresolved_selection(value: object) -> bool:
    # The authors' loader (data/WISE/WISE.py) skips selected passages whose document part is empty
    # ("" or "-3"), so such entries are a known quirk of the selections, not a broken file.
    return isinstance(value, str) and value.split("-")[0] == ""


# -- the document file ----------------------------------------------------------------------------


@dataclass(slots=True)
class WisePassage:
    """One passage of a document: its id within the document and its sentences, in order."""

    id: int
    sentences: list[str]

    @property
    def text(self) -> str:
        # Chinese sentences end in their own punctuation, so they are joined without a separator.
        return "".join(self.sentences)


@dataclass(slots=True)
class WiseDocument:
    """One line of ``document_line.json``: a search result page split into passages."""

    id: int
    title: str
    abstract: str
    origin_link: str
    final_link: str
    passages: list[WisePassage] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def passage_ids(self) -> list[str]:
        """The passage ids of this document in the conversation files' form (``"3251-8"``)."""
        return [format_passage_id(self.id, passage.id) for passage in self.passages]


def iter_documents(path: Path) -> Iterator[WiseDocument]:
    """Stream ``document_line.json``, one validated :class:`WiseDocument` per line."""
    path = Path(path)
    for line_number, obj in iter_json_lines(path):
        yield _document(obj, path, f"line {line_number}")


def _document(obj: Any, path: Path, record: str) -> WiseDocument:
    doc_id = require(obj, "id", int, path=path, record=record)
    where = f"{record} (document {doc_id})"
    passages = []
    for p_index, item in enumerate(require(obj, "passages", list, path=path, record=where)):
        p_where = f"{where}, passages[{p_index}]"
        p_id = require(item, "id", int, path=path, record=p_where)
        passages.append(WisePassage(p_id, _sentence_texts(require(item, "sentences", list, path=path, record=p_where),
                                                          path, p_where)))
    known = {"id", "title", "abstract", "origin_link", "final_link", "passages"}
    return WiseDocument(
        id=doc_id,
        title=require(obj, "title", str, path=path, record=where, optional=True, default=""),
        abstract=require(obj, "abstract", str, path=path, record=where, optional=True, default=""),
        origin_link=require(obj, "origin_link", str, path=path, record=where, optional=True, default=""),
        final_link=require(obj, "final_link", str, path=path, record=where, optional=True, default=""),
        passages=passages,
        extra={key: value for key, value in obj.items() if key not in known},
    )


def _sentence_texts(items: list[Any], path: Path, record: str) -> list[str]:
    # A million sentences on full WISE: check them all at once and name the bad one only on failure.
    try:
        texts = [item["text"] for item in items]
    except (TypeError, KeyError):
        texts = None
    if texts is not None and all(type(text) is str for text in texts):
        return texts
    return [require(item, "text", str, path=path, record=f"{record}, sentences[{index}]")
            for index, item in enumerate(items)]


@dataclass(frozen=True, slots=True)
class PassageInfo:
    """What the parser needs of a passage: its text and its document's title."""

    text: str
    title: str


def read_passages(path: Path, wanted: set[str] | None = None) -> dict[str, PassageInfo]:
    """Passage id -> text and title from a document file, keeping only ``wanted`` ids when given.

    Streaming and filtering keep memory to the passages one split refers to, not the whole file.
    """
    found: dict[str, PassageInfo] = {}
    for document in iter_documents(path):
        for passage in document.passages:
            passage_id = format_passage_id(document.id, passage.id)
            if wanted is None or passage_id in wanted:
                found[passage_id] = PassageInfo(passage.text, document.title)
    return found


# -- conversations ---------------------------------------------------------------------------------


def companion_files(path: Path) -> list[Path]:
    """The document collection beside a conversation file, whose passages the parser resolves."""
    return [Path(path).with_name(DOCUMENTS_FILENAME)]


def parse(path: Path, *, split: str) -> Iterator[Dialogue]:
    """Stream the conversations of one ``conversation_<split>_line.json`` file as dialogues.

    When ``document_line.json`` sits beside the file, passage candidates get their text and their
    document's title from it (read once per process while the file is unchanged, see
    :func:`_passage_index`).
    """
    path = Path(path)
    documents = path.with_name(DOCUMENTS_FILENAME)
    passages: dict[str, PassageInfo] | None = None
    if documents.is_file() and documents.resolve() != path.resolve():
        passages = _passage_index(documents)
    for line_number, obj in iter_json_lines(path):
        yield _dialogue(obj, path, line_number, split, passages)


def _passage_index(path: Path) -> dict[str, PassageInfo]:
    """Every passage of a document file, remembered for the file's current content.

    The splits share one document file (93 MB on full WISE) and loading them all re-read it for
    each. Size and modification time alone can miss an edit of the same length within the clock's
    granularity, so a CRC of the bytes (a fraction of a second) completes the key.
    """
    resolved = path.resolve()
    stat = resolved.stat()
    checksum = 0
    with open(resolved, "rb") as handle:
        while chunk := handle.read(1 << 22):
            checksum = zlib.crc32(chunk, checksum)
    return _read_passage_index(str(resolved), stat.st_size, stat.st_mtime_ns, checksum)


@functools.lru_cache(maxsize=1)
def _read_passage_index(path: str, size: int, mtime_ns: int, checksum: int) -> dict[str, PassageInfo]:
    # The key's other parts only tell files apart: one file's passages (~150 MB on full WISE) are kept.
    return read_passages(Path(path))


def split_search_intent(text: str) -> tuple[str, str]:
    """``"intent:X description:Y"`` -> ``("X", "Y")``; text in another shape is returned whole as X."""
    match = _SEARCH_INTENT.match(text)
    if match is None:
        return text.strip(), ""
    return match.group("intent").strip(), (match.group("description") or "").strip()


def _dialogue(
    obj: Any,
    path: Path,
    line_number: int,
    split: str,
    passages: dict[str, PassageInfo] | None,
    sink: _CandidateColumns | None = None,
) -> Dialogue:
    record = f"line {line_number}"
    conversation_id = require(obj, "conversation_id", (int, str), path=path, record=record)
    record = f"line {line_number} (conversation {conversation_id})"
    utterances = require(obj, "conversations", list, path=path, record=record)
    search_intent = require(obj, "intent", str, path=path, record=record, optional=True, default="")
    topic, description = split_search_intent(search_intent)
    turns = [
        _turn(index, utterance, path, f"{record}, conversations[{index}]", passages, sink)
        for index, utterance in enumerate(utterances)
    ]
    meta: dict[str, Any] = {
        "conversation_id": conversation_id,
        "search_intent": search_intent,
        "search_intent_description": description,
        "documents_resolved": passages is not None if sink is None else sink.resolved,
    }
    meta.update({key: value for key, value in obj.items() if key not in {"conversation_id", "conversations", "intent"}})
    return Dialogue(id=str(conversation_id), dataset="wise", split=split, turns=turns, topic=topic or None, meta=meta)


_STRINGS = frozenset({str})
_IDS = _ID_TYPES = frozenset({int, str})  # not bool: a JSON true is not an id


def _string_list(obj: dict, key: str, path: Path, record: str) -> list[str]:
    values = obj.get(key)
    # Settled at C speed for well-formed lists (a system turn has about a hundred of them to check);
    # anything else goes through the checks that name the field.
    if type(values) is list and _STRINGS.issuperset(map(type, values)):
        return list(values)
    values = require(obj, key, list, path=path, record=record, optional=True, default=[])
    return list(require_items(values, str, path=path, record=record, field=key))


def _turn(
    index: int,
    obj: Any,
    path: Path,
    record: str,
    passages: dict[str, PassageInfo] | None,
    sink: _CandidateColumns | None = None,
) -> Turn:
    # The common case is settled by a type check; require() then only runs to name a problem.
    if type(obj) is not dict:
        require(obj, "role", str, path=path, record=record)
    speaker, text = obj.get("role"), obj.get("response")
    if type(speaker) is not str:
        speaker = require(obj, "role", str, path=path, record=record)
    if speaker not in ROLES:
        raise DataError(
            f"unknown role {speaker!r}; expected 'user' or 'system'", path=path, record=record, field="role"
        )
    if type(text) is not str:
        text = require(obj, "response", str, path=path, record=record)
    raw: dict[str, Any] = {"msg_id": obj.get("msg_id"), "turn_id": obj.get("turn_id")}
    for key, value in raw.items():
        if type(value) not in _ID_TYPES and (value is not None or key in obj):
            require(obj, key, (int, str), path=path, record=record, optional=True)
    if not _KNOWN_TURN_FIELDS.issuperset(obj):  # a field this module does not know (rare): kept in raw
        raw.update({key: value for key, value in obj.items() if key not in _KNOWN_TURN_FIELDS})
    labels: dict[str, list[str]] = {}
    evidence: list[Evidence] = []
    if speaker == "user":
        labels["intent"] = _string_list(obj, "intent", path, record)
    else:
        if "action" not in obj:
            raise DataError("required field is missing", path=path, record=record, field="action")
        for key in _SYSTEM_LISTS:
            values = obj.get(key)  # _string_list's first check, inline: a system turn has four such lists
            if type(values) is list and _STRINGS.issuperset(map(type, values)):
                labels[key] = list(values)
            else:
                labels[key] = _string_list(obj, key, path, record)
        for key in _SYSTEM_DOCUMENT_LISTS:
            values = obj.get(key)
            if not (type(values) is list and _IDS.issuperset(map(type, values))):
                values = require(obj, key, list, path=path, record=record, optional=True, default=[])
                require_items(values, (int, str), path=path, record=record, field=key)
            labels[key] = list(map(str, values))
        if sink is None:
            evidence, labels["selected_passage"], unresolved = _passages(obj, path, record, passages)
        else:  # the loader's fast path: the candidates go to columns, not to Evidence objects
            labels["selected_passage"], unresolved = sink.add(obj, path, record)
        if unresolved:
            raw["unresolved_selected_passage"] = unresolved
    return Turn(index=index, role=ROLES[speaker], speaker=speaker, text=text, evidence=evidence, labels=labels, raw=raw)


def _passages(
    obj: dict, path: Path, record: str, passages: dict[str, PassageInfo] | None
) -> tuple[list[Evidence], list[str], list[str]]:
    candidates = require(obj, "passage_candidate", list, path=path, record=record, optional=True, default=[])
    selected_raw = require(obj, "selected_passage", list, path=path, record=record, optional=True, default=[])
    # id -> (document, passage), parsed once: a turn lists about a hundred candidates.
    numbers: dict[str, tuple[int, int]] = {}
    for position, value in enumerate(candidates):
        numbers[value] = parse_passage_id(value, path=path, record=record, field=f"passage_candidate[{position}]")
    selected, unresolved = [], []
    for position, value in enumerate(selected_raw):
        if _is_unresolved_selection(value):
            unresolved.append(value)
            continue
        numbers[value] = parse_passage_id(value, path=path, record=record, field=f"selected_passage[{position}]")
        selected.append(value)
    chosen = set(selected)
    # A selected passage missing from the candidates is still shown (the authors' loader adds it).
    ordered = list(dict.fromkeys([*candidates, *selected]))
    in_candidates = set(candidates)
    evidence = [
        _evidence(pid, numbers[pid], pid in chosen, pid in in_candidates, passages) for pid in ordered
    ]
    return evidence, selected, unresolved


def _evidence(
    passage_id: str,
    numbers: tuple[int, int],
    selected: bool,
    in_candidates: bool,
    passages: dict[str, PassageInfo] | None,
) -> Evidence:
    info = passages.get(passage_id) if passages is not None else None
    meta: dict[str, Any] = {"document": numbers[0], "passage": numbers[1], "text_found": info is not None}
    if not in_candidates:
        meta["in_candidates"] = False
    # positional, in the field order of utils.records.Evidence: id, text, title, origin, selected, meta
    if info is None:
        return Evidence(passage_id, "", None, "passage", selected, meta)
    return Evidence(passage_id, info.text, info.title, "passage", selected, meta)


# -- the loader's fast path ---------------------------------------------------------------------------

#: The document file's fields as the loader's fast path reads them (Arrow's JSON reader refuses any
#: other field, a value of another type and a line that is not an object; it then declines).
_DOCUMENT_SCHEMA = pa.schema(
    [
        ("id", pa.int64()),
        ("origin_link", pa.string()),
        ("title", pa.string()),
        ("abstract", pa.string()),
        ("final_link", pa.string()),
        (
            "passages",
            pa.list_(
                pa.struct(
                    [
                        ("id", pa.int64()),
                        ("sentences", pa.list_(pa.struct([("id", pa.int64()), ("text", pa.string())]))),
                    ]
                )
            ),
        ),
    ]
)
# Batches of the fast path are large: each looks its candidates up in the whole collection at once
# (Arrow builds a hash table of the collection's 230 thousand ids for every look-up).
_FAST_BATCH_DIALOGUES = 4096
_FAST_BATCH_ROWS = 1_000_000


def parse_columns(path: Path, *, split: str) -> Iterator[PassageTable | EvidenceBatch]:
    """:func:`parse` for the loader's cache: the same dialogues, their passage candidates as columns.

    The document collection becomes one table of passages (read by Arrow's JSON reader) and every
    candidate a row pointing into it, so no passage text is copied per candidate and no object is
    made per candidate: on the full-size synthetic train file (1.4 million candidates) this is what
    keeps a first load near a plain ``json.load``. Anything unusual (a field of another type or
    unknown to the reader, a null, a malformed or repeated passage id) makes it decline with
    :class:`~utils._cache.FastPathDeclined`; the loader then builds the cache with :func:`parse`,
    which also reports whatever is wrong with the file.
    """
    path = Path(path)
    documents = path.with_name(DOCUMENTS_FILENAME)
    resolved = documents.is_file() and documents.resolve() != path.resolve()
    if resolved:
        passage_ids, table = _passage_columns(documents)
    else:
        passage_ids, table = pa.array([], pa.string()), PassageTable(*(pa.array([], pa.string()) for _ in range(3)))
    yield table
    sink = _CandidateColumns(resolved, passage_ids, table)
    batch: list[Dialogue] = []
    try:
        for line_number, obj in iter_json_lines(path):
            batch.append(_dialogue(obj, path, line_number, split, None, sink))
            if len(batch) >= _FAST_BATCH_DIALOGUES or sink.rows >= _FAST_BATCH_ROWS:
                yield sink.batch(batch)
                batch = []
        if batch:
            yield sink.batch(batch)
    except DataError as exc:  # parse finds it again and reports it
        raise FastPathDeclined(str(exc)) from exc


class _CandidateColumns:
    """The passage candidates of the system turns of a batch, gathered as lists, turned into columns.

    A candidate found in the collection, among the turn's candidates, points to the collection's
    row for its passage (which holds the metadata :func:`_evidence` gives it). Any other (a passage
    the collection lacks, a selected passage that is not a candidate) has metadata of its own: such
    rows are added to the passages table, each distinct one once.
    """

    def __init__(self, resolved: bool, passage_ids: pa.Array, passages: PassageTable) -> None:
        self.resolved = resolved
        self._passage_ids = passage_ids
        self._passages = passages
        self._size = len(passages.text)  # rows of the passages table so far
        self._others: dict[str, int] = {}  # the metadata of rows added, and their positions
        self._clear()

    def _clear(self) -> None:
        self._ids: list[str] = []
        self._counts: list[int] = []  # per system turn, in order
        self._selected: list[int] = []  # rows of selected passages
        self._outside: list[int] = []  # rows of selected passages missing from the candidates

    @property
    def rows(self) -> int:
        return len(self._ids)

    def add(self, obj: dict, path: Path, record: str) -> tuple[list[str], list[str]]:
        """Gather one system turn's candidates (as :func:`_passages` orders them); return its selected
        and unresolved selected passages."""
        candidates, selected_raw = obj.get("passage_candidate", []), obj.get("selected_passage", [])
        if not (type(candidates) is list and type(selected_raw) is list and _STRINGS.issuperset(map(type, candidates))):
            raise FastPathDeclined("a passage list for _passages to check item by item")
        selected: list[str] = []
        unresolved: list[str] = []
        for position, value in enumerate(selected_raw):
            if _is_unresolved_selection(value):
                unresolved.append(value)
                continue
            parse_passage_id(value, path=path, record=record, field=f"selected_passage[{position}]")
            selected.append(value)
        start = len(self._ids)
        if not selected:
            once = dict.fromkeys(candidates)  # in order, each once
            self._ids += once
            self._counts.append(len(once))
            return selected, unresolved
        ordered = list(dict.fromkeys(candidates))
        shown = set(ordered)
        outside = [value for value in dict.fromkeys(selected) if value not in shown]
        self._outside.extend(range(start + len(ordered), start + len(ordered) + len(outside)))
        ordered += outside
        # one look-up per selected passage: ordered.index() for each was quadratic in a turn that
        # selects many of many shown passages (issue 50)
        offsets = {value: offset for offset, value in enumerate(ordered)}
        self._selected.extend(start + offsets[value] for value in set(selected))
        self._ids += ordered
        self._counts.append(len(ordered))
        return selected, unresolved

    def batch(self, dialogues: list[Dialogue]) -> EvidenceBatch:
        """The gathered candidates of ``dialogues`` as an :class:`EvidenceBatch`; starts a new batch."""
        system = iter(self._counts)
        counts = [next(system) if turn.speaker == "system" else 0 for dialogue in dialogues for turn in dialogue.turns]
        ids = pa.array(self._ids, pa.string())
        size = len(ids)
        found = pc.index_in(ids, value_set=self._passage_ids)
        passage = np.array(pc.fill_null(found, -1).to_numpy(zero_copy_only=False), dtype=np.int32)  # written below
        selected = np.zeros(size, dtype=np.bool_)
        selected[self._selected] = True
        outside = np.zeros(size, dtype=np.bool_)
        outside[self._outside] = True
        others = np.flatnonzero((passage < 0) | outside)
        added = self._other_rows(ids.take(others), passage[others], outside[others], passage, others)
        self._clear()
        return EvidenceBatch(
            dialogues=dialogues,
            counts=counts,
            ids=ids,
            passage=pa.array(passage, pa.int32()),
            origin=pa.repeat(pa.scalar("passage", pa.string()), size),
            selected=pa.array(selected),
            passages=added,
        )

    def _other_rows(
        self, ids: pa.Array, found: np.ndarray, outside: np.ndarray, passage: np.ndarray, rows: np.ndarray
    ) -> PassageTable | None:
        """Point ``rows`` (candidates not found, selections outside the candidates) to rows of their own."""
        if not len(rows):
            return None
        # A candidate found in the collection has the collection's canonical id; the others are checked.
        if not pc.all(pc.match_substring_regex(ids, r"^[0-9]+-[0-9]+$")).as_py():
            raise FastPathDeclined("a malformed passage id")
        parts = pc.split_pattern(ids, "-", max_splits=1)
        try:  # a number beyond 64 bits is fine for parse, not for Arrow
            document, number = (pc.cast(pc.cast(pc.list_element(parts, k), pa.int64()), pa.string()) for k in (0, 1))
        except pa.ArrowInvalid as exc:
            raise FastPathDeclined(str(exc)) from exc
        # The JSON text of _evidence's meta, key for key.
        metas = pc.binary_join_element_wise(
            '{"document":',
            document,
            ',"passage":',
            number,
            ',"text_found":',
            pc.if_else(pa.array(found >= 0), "true", "false"),
            pc.if_else(pa.array(outside), ',"in_candidates":false', ""),
            "}",
            "",
        ).to_pylist()
        texts, titles, new_metas = [], [], []
        for row, meta, where in zip(rows.tolist(), metas, found.tolist(), strict=True):
            known = self._others.get(meta)
            if known is None:
                known = self._others[meta] = self._size
                self._size += 1
                texts.append("" if where < 0 else self._passages.text[where].as_py())
                titles.append(None if where < 0 else self._passages.title[where].as_py())
                new_metas.append(meta)
            passage[row] = known
        if not new_metas:
            return None
        return PassageTable(*(pa.array(column, pa.string()) for column in (texts, titles, new_metas)))


def _passage_columns(path: Path) -> tuple[pa.Array, PassageTable]:
    """Every passage of a document file as columns, read by Arrow: its id (``"3251-8"``), and its
    text, title and the metadata :func:`_evidence` gives a candidate showing it.

    Remembered for the file's current content, like :func:`_passage_index`. Declines on anything
    :func:`read_passages` would treat differently or refuse.
    """
    resolved = path.resolve()
    data = resolved.read_bytes()
    key = (str(resolved), len(data), resolved.stat().st_mtime_ns, zlib.adler32(data))
    if key not in _PASSAGE_COLUMNS:
        _PASSAGE_COLUMNS.clear()  # one file's passages are kept
        _PASSAGE_COLUMNS[key] = _read_passage_columns(data)
    return _PASSAGE_COLUMNS[key]


_PASSAGE_COLUMNS: dict[tuple[str, int, int, int], tuple[pa.Array, PassageTable]] = {}


def _read_passage_columns(data: bytes) -> tuple[pa.Array, PassageTable]:
    lines = _object_lines(data)
    if lines is None:
        raise FastPathDeclined("the document file is not one JSON object on every line")
    try:
        table = pa_json.read_json(
            pa.BufferReader(pa.py_buffer(data)),
            # One thread: the same time on two cores, and half the CPU time of the threaded reader. Blocks
            # of 1 MB (the default) are read faster than larger ones; a document over 1 MB makes it decline.
            read_options=pa_json.ReadOptions(use_threads=False),
            parse_options=pa_json.ParseOptions(explicit_schema=_DOCUMENT_SCHEMA, unexpected_field_behavior="error"),
        )
        table.validate(full=True)  # Arrow's reader does not check UTF-8 itself
    except (pa.ArrowException, ValueError) as exc:
        raise FastPathDeclined(f"Arrow's JSON reader: {exc}") from exc
    if table.num_rows != lines:  # two objects on a line
        raise FastPathDeclined("the document file is not one JSON object on every line")
    # A null is a field that is absent or null: read_passages tells those apart (and refuses a null).
    if any(column.null_count for column in table.columns):
        raise FastPathDeclined("a document field is missing or null")
    parts = [_passages_of(batch) for batch in table.to_batches()]
    ids, text, title, meta = (pa.chunked_array([part[k] for part in parts], pa.string()) for k in range(4))
    ids = ids.combine_chunks()
    if pc.count_distinct(ids).as_py() != len(ids):  # read_passages keeps the last of repeated ids
        raise FastPathDeclined("a passage id occurs twice in the document file")
    return ids, PassageTable(text, title, meta)


_LINE_NOT_AN_OBJECT = re.compile(rb"\n[^{]")


def _object_lines(data: bytes) -> int | None:
    """The number of lines of ``data`` when every one starts with ``{`` (none blank), else ``None``.

    Lines that :func:`~utils.formats._io.iter_json_lines` would skip or refuse (blank ones, a value
    that is not an object) are left to it: Arrow's JSON reader (pyarrow 26) crashes the process on a
    file whose first line is ``null``.
    """
    if not data.startswith(b"{") or _LINE_NOT_AN_OBJECT.search(data):
        return None
    return data.count(b"\n") + (not data.endswith(b"\n"))


def _passages_of(batch: pa.RecordBatch) -> tuple[pa.Array, pa.Array, pa.Array, pa.Array]:
    """The passages of a batch of documents: their ids, texts, titles and candidates' metadata."""
    passages = batch.column("passages")
    flat = passages.flatten()
    numbers, sentences = pc.struct_field(flat, "id"), pc.struct_field(flat, "sentences")
    items = pc.list_flatten(sentences)
    texts = pc.struct_field(items, "text")
    if flat.null_count or numbers.null_count or sentences.null_count or items.null_count or texts.null_count:
        raise FastPathDeclined("a passage or sentence field is missing or null")
    # A passage's sentences are consecutive in ``texts``, so its text (the sentences joined without a
    # separator, as WisePassage.text) is one stretch of their data: new offsets, no copy of the text.
    ends = np.cumsum(pc.list_value_length(sentences).to_numpy(zero_copy_only=False), dtype=np.int64)
    bounds = np.frombuffer(texts.buffers()[1], dtype=np.int32)[texts.offset : texts.offset + len(texts) + 1]
    offsets = bounds[np.concatenate(([0], ends))]
    text = pa.StringArray.from_buffers(len(flat), pa.py_buffer(offsets), texts.buffers()[2])
    owner = pc.list_parent_indices(passages)
    document = pc.cast(batch.column("id").take(owner), pa.string())
    number = pc.cast(numbers, pa.string())
    ids = pc.binary_join_element_wise(document, number, "-")
    meta = pc.binary_join_element_wise('{"document":', document, ',"passage":', number, ',"text_found":true}', "")
    return ids, text, batch.column("title").take(owner), meta


# -- labels as published ---------------------------------------------------------------------------


def published_label(parts: Iterable[str]) -> str:
    """A stored label list as the published name: ``["Answer", "open-text"]`` -> ``"Answer-open-text"``.

    The authors' code joins the list with ``-`` to look the label up in ``intent.txt`` /
    ``action.txt``; an empty list gives ``""``.
    """
    return "-".join(parts)


#: The 12 user intents as published with the dataset (``data/WISE/intent.txt`` of the authors'
#: repository), with a short English gloss written by the atlas.
INTENTS: dict[str, str] = {
    "Request-Rephrase": "asks the system to say it again in other words",
    "Chitchat": "small talk, not part of the search",
    "Revise": "changes or corrects what the user asked for before",
    "Reveal": "states an information need",
    "Interpret": "restates or refines an earlier request or answer in the user's own words",
    "Feedback-Perfect": "says the answer is exactly right",
    "Feedback-Good": "says the answer is good",
    "Feedback-Fair": "says the answer is so-so",
    "Feedback-Bad": "says the answer does not help",
    "Request-Summary": "asks for a summary",
    "Request-Link": "asks for a link",
    "Request-Recommendation": "asks for a recommendation",
}

#: The 23 system actions as published (``data/WISE/action.txt``), with an English gloss.
ACTIONS: dict[str, str] = {
    "Clarify-Choice": "asks the user to choose between options",
    "Clarify-Yes_no": "asks a yes/no question",
    "Clarify-Open": "asks an open question",
    "Recommend": "recommends something",
    "Answer-Summary": "answers with a summary",
    "Answer-Link": "answers with a link",
    "Answer-NoAnswer": "says no answer was found",
    "Answer-fact-list": "factual answer as a list",
    "Answer-fact-link": "factual answer as a link",
    "Answer-fact-text": "factual answer as text",
    "Answer-fact-steps": "factual answer as steps",
    "Answer-open-list": "open-ended answer as a list",
    "Answer-open-link": "open-ended answer as a link",
    "Answer-open-text": "open-ended answer as text",
    "Answer-open-steps": "open-ended answer as steps",
    "Answer-opinion-text": "opinion as text",
    "Answer-opinion-list": "opinion as a list",
    "Answer-opinion-link": "opinion as a link",
    "Unknown": "none of the above",
    "Request-Feedback": "asks the user for feedback",
    "Request-Rephrase": "asks the user to rephrase",
    "Chitchat": "small talk",
    "Revise": "corrects an earlier system turn",
}

#: The action groups the authors score query/passage selection, keyphrases and responses on.
SCORED_ACTION_GROUPS = ("Clarify", "Answer")

#: The label inventories of the authors' models, as their vocab files spell them, in file order:
#: ``data/WISE/intent.txt`` (12 user intents) and ``data/WISE/action.txt`` (23 system actions) of
#: PengjieRen/CaSE_WISE. Their data loader looks a turn's label up as ``"[" + "-".join(parts) + "]"``,
#: so ``["Clarify", "Choice"]`` in the JSON is ``[Clarify-Choice]`` here (:func:`vocab_entry`); a
#: label outside these lists has no class in their models (the loader raises ``KeyError``).
AUTHORS_INTENT_VOCAB: tuple[str, ...] = (
    "[Request-Rephrase]", "[Chitchat]", "[Revise]", "[Reveal]", "[Interpret]", "[Feedback-Perfect]",
    "[Feedback-Good]", "[Feedback-Fair]", "[Feedback-Bad]", "[Request-Summary]", "[Request-Link]",
    "[Request-Recommendation]",
)
AUTHORS_ACTION_VOCAB: tuple[str, ...] = (
    "[Clarify-Choice]", "[Clarify-Yes_no]", "[Clarify-Open]", "[Recommend]", "[Answer-Summary]",
    "[Answer-Link]", "[Answer-NoAnswer]", "[Answer-fact-list]", "[Answer-fact-link]", "[Answer-fact-text]",
    "[Answer-fact-steps]", "[Answer-open-list]", "[Answer-open-link]", "[Answer-open-text]",
    "[Answer-open-steps]", "[Answer-opinion-text]", "[Answer-opinion-list]", "[Answer-opinion-link]",
    "[Unknown]", "[Request-Feedback]", "[Request-Rephrase]", "[Chitchat]", "[Revise]",
)


def vocab_entry(parts: Iterable[str]) -> str:
    """A stored label list as the authors' vocab spells it: ``["Clarify", "Choice"]`` -> ``"[Clarify-Choice]"``."""
    return f"[{published_label(parts)}]"


class UnknownLabelWarning(UserWarning):
    """A label in the files that is not in the authors' intent or action vocab."""


def label_sets_frame() -> pd.DataFrame:
    """Both published label sets as one table: kind, published name, the authors' vocab entry, the
    stored list, English gloss."""
    rows = [
        {"kind": kind, "published name": name, "authors' vocab": vocab_entry(stored_form(name)),
         "stored as": stored_form(name), "gloss": gloss}
        for kind, labels in (("user intent", INTENTS), ("system action", ACTIONS))
        for name, gloss in labels.items()
    ]
    return pd.DataFrame(rows)


def stored_form(name: str) -> list[str]:
    """The list a published name is stored as: the first ``-`` separates the group from the rest.

    ``"Answer-open-text"`` -> ``["Answer", "open-text"]``, ``"Feedback-Good"`` ->
    ``["Feedback", "Good"]``, ``"Recommend"`` -> ``["Recommend"]``. (The data description shows
    ``["Answer", "open-text"]`` and ``["Clarify", "Choice"]``; joining with ``-`` inverts this.)
    """
    group, _, rest = name.partition("-")
    return [group, rest] if rest else [group]
