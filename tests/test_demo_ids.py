"""The WISE and JWHR demo samples borrow no real identity.

Its records have ids no real WISE record can have (above 1,000,000,000; WISE has about 1,900
conversations), and none of the ids or texts of the example conversation published in the authors'
data description (``WISE.md``, kept in ``../shared/seeds``) appears in it: the demo once reused that
example's conversation id, intent and first utterance and invented the rest. Likewise JWHR's demo
sessions have ids above 1,000,000,000 (the real ids run from 1 to about 1,300) and none is the
dataset card's example session.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import utils

REPO = Path(__file__).resolve().parents[1]
SEEDS = REPO.parent / "shared" / "seeds"
DEMO_FLOOR = 1_000_000_000


def _wise_card() -> str:
    cards = [path.read_text(encoding="utf-8") for path in sorted(SEEDS.glob("*.txt"))] if SEEDS.is_dir() else []
    found = [card for card in cards if '"conversation_id"' in card and "document_line.json" in card]
    if not found:
        pytest.skip(f"the WISE data description is not in {SEEDS}")
    return found[0]


def _published_ids(card: str) -> set[int]:
    """Every conversation, message and document id the card's examples show, passage ids included."""
    ids = {int(value) for value in re.findall(r'"(?:conversation_id|msg_id)":\s*(\d+)', card)}
    ids |= {int(value) for value in re.findall(r'"(\d+)-\d+"', card)}  # passage ids "<document>-<passage>"
    for block in re.findall(r'"(?:document_candidate|selected_document)":\s*\[([^\]]*)\]', card):
        ids |= {int(value) for value in re.findall(r"\d+", block)}
    ids |= {int(value) for value in re.findall(r'\{\s*"id":\s*(\d+),\s*"origin_link"', card)}  # a document's id
    return ids


def _published_texts(card: str) -> set[str]:
    texts = set(re.findall(r'"response":\s*"([^"]+)"', card))
    texts |= {text.split(" description:")[0] for text in re.findall(r'"intent":\s*"(intent:[^"]+)"', card)}
    return texts


def _demo_records() -> tuple[list[dict], list[dict]]:
    conversations, documents = [], []
    for split in utils.split_names("wise"):
        path = utils.load("wise", split).provenance.path  # offline, empty data directory: the demo sample
        assert utils.load("wise", split).provenance.is_demo
        conversations += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    documents_path = path.with_name("document_line.json")
    documents = [json.loads(line) for line in documents_path.read_text(encoding="utf-8").splitlines() if line]
    return conversations, documents


def _demo_ids(conversations: list[dict], documents: list[dict]) -> set[int]:
    ids = {conversation["conversation_id"] for conversation in conversations}
    for conversation in conversations:
        for turn in conversation["conversations"]:
            ids.add(turn["msg_id"])
            ids |= set(turn.get("document_candidate", [])) | set(turn.get("selected_document", []))
            for passage in [*turn.get("passage_candidate", []), *turn.get("selected_passage", [])]:
                ids.add(int(passage.split("-")[0]))
    return ids | {document["id"] for document in documents}


def test_wise_demo_ids_cannot_be_real_and_none_is_published() -> None:
    card = _wise_card()
    published = _published_ids(card)
    assert {11201, 11278, 3251, 46} <= published  # the parsing of the card found its example
    demo = _demo_ids(*_demo_records())
    assert min(demo) > DEMO_FLOOR, "a demo id in the range of real WISE ids"
    assert not demo & published


def test_wise_demo_reuses_no_text_of_the_published_example() -> None:
    card = _wise_card()
    published = _published_texts(card)
    assert "我想了解一些现代的舞蹈" in published and "intent:你想了解现代的一些舞蹈" in published
    conversations, _ = _demo_records()
    demo_texts = {turn["response"] for conversation in conversations for turn in conversation["conversations"]}
    demo_texts |= {conversation["intent"].split(" description:")[0] for conversation in conversations}
    assert not demo_texts & published


def _jwhr_card() -> str:
    cards = [path.read_text(encoding="utf-8") for path in sorted(SEEDS.glob("*.txt"))] if SEEDS.is_dir() else []
    found = [card for card in cards if '"references"' in card and "answered" in card and "Entry ID" in card]
    if not found:
        pytest.skip(f"the JWHR dataset card is not in {SEEDS}")
    return found[0]


def test_jwhr_demo_ids_cannot_be_real_and_none_is_the_cards_example(data_dir: Path) -> None:
    card = _jwhr_card()
    published = {int(value) for value in re.findall(r'"id":\s*(\d+)', card)}
    questions = set(re.findall(r'"question":\s*"([^"]+)"', card))
    assert 1 in published and questions  # the parsing of the card found its example
    demo = []
    for split in utils.split_names("jwhr"):
        path = utils.load("jwhr", split).provenance.path
        assert utils.load("jwhr", split).provenance.is_demo
        demo += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    ids = {record["id"] for record in demo}
    assert min(ids) > DEMO_FLOOR, "a demo id in the range of real JWHR ids"
    assert not ids & published and not {record["question"] for record in demo} & questions
