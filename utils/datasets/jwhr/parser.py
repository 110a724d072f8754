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

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import DataError
from ...formats import iter_json_lines, require, require_items
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
