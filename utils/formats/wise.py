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

import pandas as pd

from ..errors import DataError
from ..records import SEEKER, WIZARD, Dialogue, Evidence, Turn
from ._io import iter_json_lines, require, require_items

PARSER_VERSION = 1

#: The document collection's file name; the parser looks for it beside the conversation file.
DOCUMENTS_FILENAME = "document_line.json"

ROLES = {"user": SEEKER, "system": WIZARD}

_USER_LISTS = ("intent",)
_SYSTEM_LISTS = ("state", "query_candidate", "action", "selected_query")
_SYSTEM_DOCUMENT_LISTS = ("document_candidate", "selected_document")
_SYSTEM_PASSAGE_LISTS = ("passage_candidate", "selected_passage")
_KNOWN_TURN_FIELDS = {"msg_id", "turn_id", "role", "response", *_USER_LISTS, *_SYSTEM_LISTS,
                      *_SYSTEM_DOCUMENT_LISTS, *_SYSTEM_PASSAGE_LISTS}
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
    obj: Any, path: Path, line_number: int, split: str, passages: dict[str, PassageInfo] | None
) -> Dialogue:
    record = f"line {line_number}"
    conversation_id = require(obj, "conversation_id", (int, str), path=path, record=record)
    record = f"line {line_number} (conversation {conversation_id})"
    utterances = require(obj, "conversations", list, path=path, record=record)
    search_intent = require(obj, "intent", str, path=path, record=record, optional=True, default="")
    topic, description = split_search_intent(search_intent)
    turns = [
        _turn(index, utterance, path, f"{record}, conversations[{index}]", passages)
        for index, utterance in enumerate(utterances)
    ]
    meta: dict[str, Any] = {
        "conversation_id": conversation_id,
        "search_intent": search_intent,
        "search_intent_description": description,
        "documents_resolved": passages is not None,
    }
    meta.update({key: value for key, value in obj.items() if key not in {"conversation_id", "conversations", "intent"}})
    return Dialogue(id=str(conversation_id), dataset="wise", split=split, turns=turns, topic=topic or None, meta=meta)


def _string_list(obj: dict, key: str, path: Path, record: str) -> list[str]:
    values = require(obj, key, list, path=path, record=record, optional=True, default=[])
    return list(require_items(values, str, path=path, record=record, field=key))


def _turn(
    index: int, obj: Any, path: Path, record: str, passages: dict[str, PassageInfo] | None
) -> Turn:
    speaker = require(obj, "role", str, path=path, record=record)
    if speaker not in ROLES:
        raise DataError(
            f"unknown role {speaker!r}; expected 'user' or 'system'", path=path, record=record, field="role"
        )
    text = require(obj, "response", str, path=path, record=record)
    raw: dict[str, Any] = {
        "msg_id": require(obj, "msg_id", (int, str), path=path, record=record, optional=True),
        "turn_id": require(obj, "turn_id", (int, str), path=path, record=record, optional=True),
    }
    raw.update({key: value for key, value in obj.items() if key not in _KNOWN_TURN_FIELDS})
    labels: dict[str, list[str]] = {}
    evidence: list[Evidence] = []
    if speaker == "user":
        labels["intent"] = _string_list(obj, "intent", path, record)
    else:
        if "action" not in obj:
            raise DataError("required field is missing", path=path, record=record, field="action")
        for key in _SYSTEM_LISTS:
            labels[key] = _string_list(obj, key, path, record)
        for key in _SYSTEM_DOCUMENT_LISTS:
            values = require(obj, key, list, path=path, record=record, optional=True, default=[])
            require_items(values, (int, str), path=path, record=record, field=key)
            labels[key] = [str(value) for value in values]
        evidence, labels["selected_passage"], unresolved = _passages(obj, path, record, passages)
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
