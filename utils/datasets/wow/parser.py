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

import re
from collections.abc import Iterable, Iterator
from itertools import chain
from pathlib import Path
from typing import Any

from ...errors import DataError
from ...formats._io import iter_json_list, require, require_items
from ...records import SEEKER, WIZARD, Dialogue, Evidence, Turn

PARSER_VERSION = 2

#: ParlAI's token for "the wizard used no passage".
NO_PASSAGES_USED = "no_passages_used"

#: ``checked_sentence`` key prefix -> the evidence origin it points to.
SOURCE_ORIGIN = {"chosen": "topic", "partner": "retrieved:seeker", "self": "retrieved:wizard"}

_EVIDENCE_ID = re.compile(r"^(\d+):(\d+):(.*)#(\d+)$", re.DOTALL)
_SENTENCE_KEY = re.compile(r"^(chosen|self|partner)_(.*)_(\d+)$", re.DOTALL)
_PASSAGE_KEY = re.compile(r"^(?:(chosen)_topic|(self)|(partner))_(\d+)_(.*)$", re.DOTALL)
_HANDLED_TURN_KEYS = {"speaker", "text", "retrieved_passages"}
_HANDLED_DIALOGUE_KEYS = {"dialog"}
#: A turn after the first pass: the turn, its role, speaker, text and ``[(title, sentences)]``.
_CheckedTurn = tuple[dict[str, Any], str, str, str, list[tuple[str, list[str]]]]


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
    for index, record in iter_json_list(path):
        yield _dialogue(record, index, path, split)


def _passages(value: Any, path: Path, record: str, field: str) -> list[tuple[str, list[str]]]:
    """``retrieved_passages`` as ``[(title, sentences)]`` in file order, checked."""
    # A split has millions of these sentences: check all of a turn's at once, at C speed, and look
    # passage by passage (below) only to name a fault.
    if type(value) is list and _all_of_type(value, dict):
        passages = [item for entry in value for item in entry.items()]
        lists = [sentences for _, sentences in passages]
        if _all_of_type(lists, list) and _all_of_type(chain.from_iterable(lists), str):
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


def _all_of_type(values: Iterable[Any], kind: type) -> bool:
    """True when every value is exactly of type ``kind`` (as decoded JSON values are)."""
    return set(map(type, values)) <= {kind}


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
        passages = _passages(turn.get("retrieved_passages", []), path, where, f"{field}.retrieved_passages")
        checked.append((turn, role, speaker, text, passages))

    shown: set[tuple[int, int]] = set()  # (turn, passage position) pairs that some wizard turn shows
    topic_ids = [f"{topic}#{j}" for j in range(len(topic_passage))]  # the same at every wizard turn
    turns = []
    for position, (turn, role, speaker, text, _) in enumerate(checked):
        evidence: list[Evidence] = []
        labels: dict[str, list[str]] = {}
        if role == WIZARD:
            evidence = _knowledge(topic, topic_passage, topic_ids, checked, position, shown)
            labels = _checked_labels(turn, evidence, path, where, f"dialog[{position}]")
        raw = {key: value for key, value in turn.items() if key not in _HANDLED_TURN_KEYS}
        turns.append(
            Turn(index=position, role=role, speaker=speaker, text=text, evidence=evidence, labels=labels, raw=raw)
        )

    for position, (_, _, _, _, passages) in enumerate(checked):
        unshown = [{title: sentences} for k, (title, sentences) in enumerate(passages) if (position, k) not in shown]
        if unshown:
            turns[position].raw["retrieved_passages_not_shown"] = unshown
        if passages:
            turns[position].raw["retrieved_passage_count"] = len(passages)

    meta = {key: value for key, value in record.items() if key not in _HANDLED_DIALOGUE_KEYS}
    return Dialogue(id=f"{split}/{index}", dataset="wow", split=split, turns=turns, topic=topic, meta=meta)


def _knowledge(
    topic: str,
    topic_passage: list[str],
    topic_ids: list[str],
    checked: list[_CheckedTurn],
    position: int,
    shown: set[tuple[int, int]],
) -> list[Evidence]:
    """The knowledge ParlAI shows at the wizard turn ``position``, one Evidence per sentence.

    A full split makes millions of these, so they are built with positional arguments (keywords
    cost twice as much) in the field order of :class:`~utils.records.Evidence`.
    """
    evidence = [Evidence(i, sentence, topic, "topic") for i, sentence in zip(topic_ids, topic_passage, strict=True)]
    titles = {topic}
    # As ParlAI: the apprentice's turn just before, then the wizard's previous turn.
    for source_turn in (position - 1, position - 2):
        if source_turn < 0:
            continue
        _, role, _, _, passages = checked[source_turn]
        origin = "retrieved:seeker" if role == SEEKER else "retrieved:wizard"
        for k, (title, sentences) in enumerate(passages):
            if title in titles:
                continue
            titles.add(title)
            shown.add((source_turn, k))
            prefix = f"{source_turn}:{k}:{title}#"
            evidence += [Evidence(f"{prefix}{j}", sentence, title, origin) for j, sentence in enumerate(sentences)]
    return evidence


def _checked_labels(
    turn: dict[str, Any], evidence: list[Evidence], path: Path, record: str, field: str
) -> dict[str, list[str]]:
    """Decode the checked sentence and passage, and mark the selected evidence (ParlAI's rules)."""
    labels: dict[str, list[str]] = {}
    sentence_entry = _one_entry(turn, "checked_sentence", path, record, field)
    passage_entry = _one_entry(turn, "checked_passage", path, record, field)
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
        return labels
    key, sentence = sentence_entry
    decoded = decode_checked_sentence_key(key)
    labels["checked_source"] = [decoded["source"]]
    if "title" in decoded:
        labels["checked_title"] = [decoded["title"]]
        labels["checked_index"] = [decoded["index"]]
    labels["checked_sentence"] = [sentence]
    matches = [item for item in evidence if item.text == sentence]  # one scan; titles are decided among these
    title = _parlai_title(passage_entry[1] if passage_entry else "", decoded.get("title", ""), matches)
    selected = next((item for item in matches if item.title == title), None)
    if selected is not None:
        selected.selected = True
        labels["knowledge"] = ["found"]
    else:  # the crowd worker's sentence is not among the sentences rebuilt for this turn
        labels["knowledge"] = ["not_found"]
    return labels


def _parlai_title(passage_title: str, key_title: str, matches: list[Evidence]) -> str:
    """ParlAI's ``_get_chosen_title_and_sent``: the checked passage's title, else the key's, else any
    (``matches`` are the evidence items whose text is the checked sentence)."""
    for title in (passage_title, key_title):
        if title and any(item.title == title for item in matches):
            return title
    found = next((item.title for item in matches), "")
    return found or ""
