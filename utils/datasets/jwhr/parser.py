"""Parser of the Japanese Wikipedia Human Retrieval JSON Lines files (``answered``/``not_answered``).

One line is one QA session: ``id``, ``question``, an optional ``answer`` (``text`` and
``sentences``, each sentence with ``citations``, indices into ``references``) and ``references``,
the worker's retrieval trail in order. Each reference arrived either through the search box
(``search.keywords``) or by following a hyperlink on an earlier reference (``link.referrer``), and
usually holds the ``page`` visited with a ``quote`` or a worker-written ``summary`` (or neither, when
the page had nothing useful).

Mapping onto :mod:`utils.records`:

* a session is a :class:`Dialogue` with ``id = str(record id)``; ``meta`` holds the numeric ``id``,
  ``answered`` and the source ``line``;
* the question is a :data:`SEEKER` turn (speaker ``"question"``);
* the worker is a :data:`WIZARD` turn (speaker ``"answer"``) whose text is ``answer.text`` and whose
  evidence is the whole trail, one :class:`Evidence` per reference (``id`` = the reference index as a
  string, ``origin`` ``"search"`` or ``"link"``, ``text`` the quote or summary, ``selected`` when a
  sentence cites it). ``labels["citations"]`` has one entry per answer sentence: the cited reference
  ids joined by commas (``""`` for a sentence without citation); ``raw["sentences"]`` keeps the
  sentences verbatim. A session without an answer keeps its wizard turn with empty text, so the
  trail stays attached to the worker who walked it; ``meta["answered"]`` tells the two apart.

Variants that the dataset card does not document occur in the real files and are kept:

* a reference with ``not_found`` (``{"url": ...}`` of a search-result page that gave no article)
  instead of ``page``;
* a reference with neither ``page`` nor ``not_found``: one ``link`` step in the real files (session 23
  of ``answered.jsonl``, reference 4). It is kept, with ``meta["content"] == "no page"`` and the flag
  ``meta["page_missing"] = True``, so that the trail keeps its length and later referrers still point
  at the right step;
* page titles with surrounding whitespace (8 in the real files: 1 in ``answered.jsonl``, 7 in
  ``not_answered.jsonl``, mostly a trailing line break). The title is stripped; the title as written
  stays in ``meta["title_as_written"]``;
* a link ``referrer`` that does not point at an *earlier* step (it happens in the real data): kept and
  flagged with ``meta["referrer_is_earlier"] = False``. A referrer must still index an existing
  reference of the session.
"""

from __future__ import annotations

import codecs
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pyarrow as pa
from msgspec import UNSET, UnsetType

from ...errors import DataError
from ...formats import EvidenceBatch, PassageTable, TurnColumns, iter_json_lines, require, require_items
from ...records import SEEKER, WIZARD, Dialogue, Evidence, Turn

PARSER_VERSION = 2

#: Reference-level keys the card documents (plus ``not_found``, which the real files use).
_REFERENCE_KEYS = {"search", "link", "page", "not_found"}
_PAGE_KEYS = {"title", "url", "quote", "summary"}
_SESSION_KEYS = {"id", "question", "answer", "references"}

#: What a reference holds from its page (``Evidence.meta["content"]``).
QUOTE, SUMMARY, NOTHING, NOT_FOUND, NO_PAGE = "quote", "summary", "nothing", "not found", "no page"


def parse(path: Path, *, split: str) -> Iterator[Dialogue]:
    """Stream the sessions of one JWHR JSON Lines file as :class:`Dialogue` objects."""
    path = Path(path)
    for line_number, record in iter_json_lines(path):
        yield _session(record, path=path, line_number=line_number, split=split)


def _session(record: Any, *, path: Path, line_number: int, split: str) -> Dialogue:
    where = f"line {line_number}"
    record_id = require(record, "id", int, path=path, record=where)
    where = f"line {line_number} (id {record_id})"
    question = require(record, "question", str, path=path, record=where)
    references = require(record, "references", list, path=path, record=where)
    answer = require(record, "answer", dict, path=path, record=where, optional=True)

    sentences = _sentences(answer, len(references), path=path, record=where) if answer is not None else []
    cited_by: dict[int, list[int]] = {}
    for position, sentence in enumerate(sentences):
        for reference in sentence["citations"]:
            cited_by.setdefault(reference, []).append(position)

    evidence = [
        _reference(item, index, len(references), cited_by.get(index, []), path=path, record=where)
        for index, item in enumerate(references)
    ]
    seeker = Turn(index=0, role=SEEKER, speaker="question", text=question)
    if answer is not None:
        text = _field(answer, "text", str, path=path, record=where, prefix="answer")
        extra = {key: value for key, value in answer.items() if key not in ("text", "sentences")}
        raw: dict[str, Any] = {
            "sentences": sentences,
            "text_matches_sentences": text == "".join(s["text"] for s in sentences),
        }
        if extra:
            raw["answer_extra"] = extra
        labels = {"citations": [",".join(str(c) for c in s["citations"]) for s in sentences]}
    else:
        text, raw, labels = "", {}, {"citations": []}
    wizard = Turn(index=1, role=WIZARD, speaker="answer", text=text, evidence=evidence, labels=labels, raw=raw)

    meta: dict[str, Any] = {"id": record_id, "answered": answer is not None, "line": line_number}
    extra_fields = {key: value for key, value in record.items() if key not in _SESSION_KEYS}
    if extra_fields:
        meta["extra"] = extra_fields
    return Dialogue(id=str(record_id), dataset="jwhr", split=split, turns=[seeker, wizard], meta=meta)


def _sentences(answer: dict[str, Any], reference_count: int, *, path: Path, record: str) -> list[dict[str, Any]]:
    """The answer sentences, checked, with every citation an index into ``references``."""
    sentences = _field(answer, "sentences", list, path=path, record=record, prefix="answer")
    require_items(sentences, dict, path=path, record=record, field="answer.sentences")
    checked = []
    for position, sentence in enumerate(sentences):
        field = f"answer.sentences[{position}]"
        text = _field(sentence, "text", str, path=path, record=record, prefix=field)
        citations = _field(sentence, "citations", list, path=path, record=record, prefix=field)
        require_items(citations, int, path=path, record=record, field=f"{field}.citations")
        for slot, citation in enumerate(citations):
            if not 0 <= citation < reference_count:
                raise DataError(
                    f"cites reference {citation}, but the session has {reference_count} references",
                    path=path,
                    record=record,
                    field=f"{field}.citations[{slot}]",
                )
        item = dict(sentence)  # keeps any undocumented key a sentence may carry
        item["text"], item["citations"] = text, list(citations)
        checked.append(item)
    return checked


def _reference(
    item: Any, index: int, count: int, cited_by: list[int], *, path: Path, record: str
) -> Evidence:
    field = f"references[{index}]"
    if not isinstance(item, dict):
        raise DataError(f"expected an object, found {type(item).__name__}", path=path, record=record, field=field)
    search = _field(item, "search", dict, path=path, record=record, prefix=field, optional=True)
    link = _field(item, "link", dict, path=path, record=record, prefix=field, optional=True)
    if (search is None) == (link is None):
        which = "both" if search is not None else "neither"
        raise DataError(f"a reference needs exactly one of 'search' and 'link', found {which}",
                        path=path, record=record, field=field)
    meta: dict[str, Any] = {"index": index}
    if search is not None:
        origin = "search"
        keywords = _field(search, "keywords", list, path=path, record=record, prefix=f"{field}.search")
        meta["keywords"] = require_items(keywords, str, path=path, record=record, field=f"{field}.search.keywords")
    else:
        origin = "link"
        referrer = _field(link, "referrer", int, path=path, record=record, prefix=f"{field}.link")
        if not 0 <= referrer < count:
            raise DataError(
                f"link referrer {referrer} is not a reference of this session (it has {count})",
                path=path,
                record=record,
                field=f"{field}.link.referrer",
            )
        meta["referrer"] = referrer
        meta["referrer_is_earlier"] = referrer < index

    text, title = "", None
    page = _field(item, "page", dict, path=path, record=record, prefix=field, optional=True)
    not_found = _field(item, "not_found", dict, path=path, record=record, prefix=field, optional=True)
    if page is not None:
        written = _field(page, "title", str, path=path, record=record, prefix=f"{field}.page")
        title = written.strip()
        if title != written:
            meta["title_as_written"] = written
        meta["url"] = _field(page, "url", str, path=path, record=record, prefix=f"{field}.page")
        quote = _field(page, "quote", dict, path=path, record=record, prefix=f"{field}.page", optional=True)
        summary = _field(page, "summary", dict, path=path, record=record, prefix=f"{field}.page", optional=True)
        if summary is not None:
            meta["summary"] = _field(summary, "text", str, path=path, record=record, prefix=f"{field}.page.summary")
            meta["summary_method"] = _field(
                summary, "method", str, path=path, record=record, prefix=f"{field}.page.summary", optional=True
            )
        if quote is not None:
            # A quote is the page's own words, so it is the evidence text even when a summary exists.
            text = _field(quote, "text", str, path=path, record=record, prefix=f"{field}.page.quote")
            meta["content"] = QUOTE
        elif summary is not None:
            text = meta["summary"]
            meta["content"] = SUMMARY
        else:
            meta["content"] = NOTHING
        _keep_extra(meta, "page_extra", page, _PAGE_KEYS)
    elif not_found is not None:
        meta["content"] = NOT_FOUND
        meta["not_found_url"] = _field(
            not_found, "url", str, path=path, record=record, prefix=f"{field}.not_found", optional=True
        )
        _keep_extra(meta, "not_found_extra", not_found, {"url"})
    else:
        meta["content"] = NO_PAGE
        meta["page_missing"] = True
    meta["cited_by"] = cited_by
    _keep_extra(meta, "extra", item, _REFERENCE_KEYS)
    return Evidence(id=str(index), text=text, title=title, origin=origin, selected=bool(cited_by), meta=meta)


def _field(
    mapping: Any,
    key: str,
    kind: type | tuple[type, ...],
    *,
    path: Path,
    record: str,
    prefix: str,
    optional: bool = False,
) -> Any:
    """:func:`require` with the field named by its full dotted path (``references[2].link.referrer``)."""
    try:
        return require(mapping, key, kind, path=path, record=record, optional=optional)
    except DataError as exc:
        name = f"{prefix}.{exc.field}" if exc.field else prefix
        raise DataError(exc.reason, path=path, record=record, field=name) from None


def _keep_extra(meta: dict[str, Any], name: str, mapping: dict[str, Any], known: set[str]) -> None:
    extra = {key: value for key, value in mapping.items() if key not in known}
    if extra:
        meta[name] = extra


# -- the loader's fast path: msgspec decodes and checks a session in one go -------------------------


class _TypedSentence(msgspec.Struct, forbid_unknown_fields=True):
    text: str
    citations: list[int]


class _TypedAnswer(msgspec.Struct, forbid_unknown_fields=True):
    text: str
    sentences: list[_TypedSentence]


class _TypedSearch(msgspec.Struct, forbid_unknown_fields=True):
    keywords: list[str]


class _TypedLink(msgspec.Struct, forbid_unknown_fields=True):
    referrer: int


class _TypedQuote(msgspec.Struct, forbid_unknown_fields=True):
    text: str


class _TypedSummary(msgspec.Struct, forbid_unknown_fields=True):
    text: str
    method: str | UnsetType = UNSET


class _TypedPage(msgspec.Struct, forbid_unknown_fields=True):
    title: str
    url: str
    quote: _TypedQuote | UnsetType = UNSET
    summary: _TypedSummary | UnsetType = UNSET


class _TypedNotFound(msgspec.Struct, forbid_unknown_fields=True):
    url: str | UnsetType = UNSET


class _TypedReference(msgspec.Struct, forbid_unknown_fields=True):
    search: _TypedSearch | UnsetType = UNSET
    link: _TypedLink | UnsetType = UNSET
    page: _TypedPage | UnsetType = UNSET
    not_found: _TypedNotFound | UnsetType = UNSET


class _TypedSession(msgspec.Struct, forbid_unknown_fields=True):
    """A session as the card documents it. Unknown keys (kept by :func:`_session` under ``extra``), a
    ``null``, an integer beyond 64 bits and the like are refused, and the record path takes over."""

    id: int
    question: str
    references: list[_TypedReference]
    answer: _TypedAnswer | UnsetType = UNSET


_DECODE_SESSION = msgspec.json.Decoder(_TypedSession).decode
#: A surrogate escape (``\ud800``): the record path judges whether it is half of a pair.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


class _Refused(Exception):
    """A typed session breaks a rule of the format: the record path reports it."""


class _HandOver(Exception):
    """The typed path met a session it does not take; the record path reads the file from there on."""

    def __init__(self, line_number: int) -> None:
        super().__init__(f"line {line_number}")
        self.line_number = line_number


#: Sessions handed to the cache at a time (the cache joins them into record batches of its usual size).
_TYPED_BATCH = 512


def parse_columns(path: Path, *, split: str) -> Iterator[EvidenceBatch | Dialogue]:
    """The dialogues of :func:`parse`, for the loader: the same records, read and stored faster.

    Each line is decoded by msgspec straight into typed records (:class:`_TypedSession`), which
    checks every field's type in C. The first line that this does not take as it is (a wrong type, an
    unknown field, a fault of the JSON, a citation or referrer out of range, ...) hands the rest of
    the file over to the record path of :func:`parse`, which reads it from that line on and reports
    any fault in the same words, naming the file, line and field.

    The typed sessions reach the cache as columns (:class:`~utils._cache.EvidenceBatch` of
    :class:`~utils._cache.TurnColumns`), with no Dialogue, Turn or Evidence object made, and each
    reference its own passage row: a session's references are not repeated elsewhere, so the cache's
    search for repeated passages would find next to none, at a third of a small file's build.
    """
    path = Path(path)
    try:
        yield from _typed_batches(path, split)
    except _HandOver as handed_over:
        for line_number, record in iter_json_lines(path):
            if line_number >= handed_over.line_number:
                yield _session(record, path=path, line_number=line_number, split=split)


def _typed_batches(path: Path, split: str) -> Iterator[EvidenceBatch]:
    """The sessions of the file, decoded and checked by msgspec, as columns; :class:`_HandOver` at the
    first line this does not take (after the batch of the lines before it)."""
    columns = _SessionColumns(split)
    passages = 0  # passage rows written by earlier batches
    with open(path, "rb") as handle:  # split into lines as iter_json_lines does, so numbers agree
        for line_number, raw_line in enumerate(handle, start=1):
            if line_number == 1 and raw_line.startswith(codecs.BOM_UTF8):
                raw_line = raw_line[len(codecs.BOM_UTF8) :]
            if not raw_line.strip():  # blank as ASCII (other blank lines fail to decode: handed over)
                continue
            try:
                if _SURROGATE_ESCAPE.search(raw_line):
                    raise _Refused
                columns.add(_DECODE_SESSION(raw_line), line_number)
            except (_Refused, msgspec.MsgspecError, UnicodeError, RecursionError):
                refused = True
            else:
                refused = False
            if refused or len(columns.ids) >= _TYPED_BATCH:
                if columns.ids:
                    batch = columns.batch(passages)
                    passages += len(batch.ids)
                    yield batch
                    columns = _SessionColumns(split)
                if refused:
                    raise _HandOver(line_number)
    if columns.ids:
        yield columns.batch(passages)


_encode = msgspec.json.Encoder().encode  # writes what the cache's encoders write, for these values
_EMPTY = _encode({})


class _SessionColumns:
    """A batch of typed sessions as the cache stores them: a session's dialogue row, its two turns
    (question and answer) and one evidence row and passage per reference, ``meta``, ``labels`` and
    ``raw`` as JSON text. :meth:`add` takes a session whole or not at all (:class:`_Refused`)."""

    def __init__(self, split: str) -> None:
        self.split = split
        self.ids: list[str] = []
        self.metas: list[bytes] = []
        self.texts: list[str] = []  # two per session: the question, the answer
        self.labels: list[bytes] = []
        self.raws: list[bytes] = []
        self.counts: list[int] = []  # evidence rows per turn
        self.evidence_texts: list[str] = []
        self.titles: list[str | None] = []
        self.origins: list[str] = []
        self.selected: list[bool] = []
        self.evidence_metas: list[bytes] = []

    def add(self, record: _TypedSession, line_number: int) -> None:
        """:func:`_session` for a session msgspec has checked the types of (:class:`_Refused` where the
        record path would refuse it)."""
        references = record.references
        count = len(references)
        answer = record.answer
        cited_by: dict[int, list[int]] = {}
        sentences: list[dict[str, Any]] = []
        if answer is not UNSET:
            for position, sentence in enumerate(answer.sentences):
                citations = sentence.citations
                for citation in citations:
                    if not 0 <= citation < count:
                        raise _Refused  # the record path names the sentence and the citation
                    cited_by.setdefault(citation, []).append(position)
                sentences.append({"text": sentence.text, "citations": citations})
        rows = [_typed_reference(item, index, count, cited_by.get(index, [])) for index, item in enumerate(references)]
        if answer is not UNSET:
            text = answer.text
            matches = text == "".join([s["text"] for s in sentences])
            raw = _encode({"sentences": sentences, "text_matches_sentences": matches})
            labels = _encode({"citations": [",".join(map(str, s["citations"])) for s in sentences]})
        else:
            text, raw, labels = "", _EMPTY, _encode({"citations": []})
        self.ids.append(str(record.id))
        self.metas.append(_encode({"id": record.id, "answered": answer is not UNSET, "line": line_number}))
        self.texts += (record.question, text)
        self.labels += (_EMPTY, labels)
        self.raws += (_EMPTY, raw)
        self.counts += (0, count)
        for evidence_text, title, origin, meta in rows:
            self.evidence_texts.append(evidence_text)
            self.titles.append(title)
            self.origins.append(origin)
            self.selected.append(bool(meta["cited_by"]))
            self.evidence_metas.append(_encode(meta))

    def batch(self, first_passage: int) -> EvidenceBatch:
        """The batch's columns, its passages numbered from ``first_passage``."""
        sessions, rows = len(self.ids), len(self.origins)
        return EvidenceBatch(
            dialogues=TurnColumns(
                ids=self.ids,
                datasets=["jwhr"] * sessions,
                splits=[self.split] * sessions,
                topics=[None] * sessions,
                metas=_text_column(self.metas),
                turn_counts=[2] * sessions,
                turn_index=np.tile(np.array([0, 1], dtype=np.int32), sessions),
                roles=[SEEKER, WIZARD] * sessions,
                speakers=["question", "answer"] * sessions,
                texts=self.texts,
                labels=_text_column(self.labels),
                raws=_text_column(self.raws),
            ),
            counts=self.counts,
            ids=pa.array([str(index) for count in self.counts for index in range(count)], pa.string()),
            passage=pa.array(np.arange(first_passage, first_passage + rows, dtype=np.int32)),
            origin=pa.array(self.origins, pa.string()),
            selected=pa.array(self.selected, pa.bool_()),
            passages=PassageTable(
                pa.array(self.evidence_texts, pa.string()),
                pa.array(self.titles, pa.string()),
                _text_column(self.evidence_metas),
            ),
        )


def _text_column(texts: list[bytes]) -> pa.Array:
    """JSON texts (UTF-8 by construction: msgspec refuses lone surrogates) as a string column."""
    return pa.array(texts, pa.binary()).view(pa.string())


def _typed_reference(
    item: _TypedReference, index: int, count: int, cited_by: list[int]
) -> tuple[str, str | None, str, dict[str, Any]]:
    """:func:`_reference` for a typed reference: its text, title, origin and ``meta`` (the same keys
    in the same order)."""
    search, link = item.search, item.link
    meta: dict[str, Any] = {"index": index}
    if search is not UNSET and link is UNSET:
        origin = "search"
        meta["keywords"] = search.keywords
    elif link is not UNSET and search is UNSET:
        origin = "link"
        referrer = link.referrer
        if not 0 <= referrer < count:
            raise _Refused  # the record path names the reference
        meta["referrer"] = referrer
        meta["referrer_is_earlier"] = referrer < index
    else:
        raise _Refused  # both or neither: the record path says which
    text, title = "", None
    page, not_found = item.page, item.not_found
    if page is not UNSET:
        written = page.title
        title = written.strip()
        if title != written:
            meta["title_as_written"] = written
        meta["url"] = page.url
        quote, summary = page.quote, page.summary
        if summary is not UNSET:
            meta["summary"] = summary.text
            meta["summary_method"] = None if summary.method is UNSET else summary.method
        if quote is not UNSET:
            text = quote.text
            meta["content"] = QUOTE
        elif summary is not UNSET:
            text = summary.text
            meta["content"] = SUMMARY
        else:
            meta["content"] = NOTHING
    elif not_found is not UNSET:
        meta["content"] = NOT_FOUND
        meta["not_found_url"] = None if not_found.url is UNSET else not_found.url
    else:
        meta["content"] = NO_PAGE
        meta["page_missing"] = True
    meta["cited_by"] = cited_by
    return text, title, origin, meta


# -- reading a parsed session back ---------------------------------------------------------------
# The accessors below read the records this parser wrote; stats, baselines and the renderer share them.


@dataclass(frozen=True)
class Step:
    """One step of a worker's retrieval trail (one reference of the session)."""

    index: int
    origin: str
    title: str | None
    url: str | None
    content: str
    text: str
    keywords: tuple[str, ...] = ()
    referrer: int | None = None
    #: False when a link's referrer is not an earlier step (a recording slip in the real data)
    referrer_is_earlier: bool = True
    summary_method: str | None = None
    cited_by: tuple[int, ...] = field(default_factory=tuple)

    @property
    def cited(self) -> bool:
        return bool(self.cited_by)


@dataclass(frozen=True)
class Sentence:
    """One answer sentence and the reference indices it cites."""

    index: int
    text: str
    citations: tuple[int, ...]


def question(dialogue: Dialogue) -> str:
    """The session's question."""
    return dialogue.turns_by(SEEKER)[0].text


def answered(dialogue: Dialogue) -> bool:
    """True when the worker wrote an answer."""
    return bool(dialogue.meta.get("answered"))


def trail(dialogue: Dialogue) -> list[Step]:
    """The session's retrieval trail in the order the worker recorded it."""
    steps = []
    for evidence in dialogue.turns_by(WIZARD)[0].evidence:
        meta = evidence.meta
        steps.append(
            Step(
                index=int(meta.get("index", evidence.id)),
                origin=evidence.origin,
                title=evidence.title,
                url=meta.get("url") or meta.get("not_found_url"),
                content=meta.get("content", ""),
                text=evidence.text,
                keywords=tuple(meta.get("keywords", ())),
                referrer=meta.get("referrer"),
                referrer_is_earlier=meta.get("referrer_is_earlier", True),
                summary_method=meta.get("summary_method"),
                cited_by=tuple(meta.get("cited_by", ())),
            )
        )
    return steps


def sentences(dialogue: Dialogue) -> list[Sentence]:
    """The answer's sentences with their citations (empty for a session without an answer)."""
    raw = dialogue.turns_by(WIZARD)[0].raw.get("sentences", [])
    return [Sentence(i, item["text"], tuple(item["citations"])) for i, item in enumerate(raw)]


def reference_label_counts(dialogues: Iterable[Dialogue]) -> list[dict[str, object]]:
    """References per kind of content (quote, summary, ...), as ``atlas stats`` lists label counts (the
    declaration's ``extra_label_counts``: it lives here, beside the trail it reads, so that the
    declaration reaches no module that draws or compares)."""
    counts = Counter(str(step.content) for dialogue in dialogues for step in trail(dialogue))
    return [{"scheme": "reference content", "label": content, "count": n, "unit": "references"}
            for content, n in counts.most_common()]
