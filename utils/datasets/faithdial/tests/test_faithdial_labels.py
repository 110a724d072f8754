"""FaithDial's BEGIN and VRM labels describe ``original_response``: the record, the viewer and the critic.

The dataset card's example (an edited turn) is the fixture: its labels, Partial Hallucination written
as ``["Hallucination", "Entailment"]`` and the VRM modes Disclosure + Question, fit the original
("... Can you imagine being on the road that long?"), not the rewrite. The authors' critic pairs every
label with ``original_response or response`` (McGill-NLP/FaithDial, ``models/critic_data.py``).
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path

import pytest

import utils
from utils.datasets.faithdial import baselines, stats
from utils.datasets.faithdial import parser as faithdial
from utils.datasets.faithdial.render import render, search_text
from utils.records import WIZARD, Turn

#: The wizard utterance of the dataset card's "Data Instance" example, verbatim.
CARD_HISTORY = [
    "Have you ever been to a concert? They're so fun!",
    "No I cannot as a bot. However, have you been to Madonna's? Her 10th concert was used to help her 13th "
    'album called "Rebel Heart".',
    "Yeah I've heard of it but never went or what it was for. Can you tell me more about it?",
]
CARD_KNOWLEDGE = (
    "It began on September 9, 2015, in Montreal, Canada, at the Bell Centre and concluded on March 20, 2016, "
    "in Sydney, Australia at Allphones Arena."
)
CARD_ORIGINAL = (
    "It started in September of 2015 and ran all the way through March of 2016. "
    "Can you imagine being on the road that long?"
)
CARD_RESPONSE = (
    "Sure. The concert started in September 9th of 2015 at Montreal, Canada. It continued till 20th of March "
    "of 2016, where it ended at Sydney, Australia."
)


def _card_utterance(**change: object) -> dict:
    record = {
        "history": CARD_HISTORY,
        "speaker": "Wizard",
        "knowledge": CARD_KNOWLEDGE,
        "original_response": CARD_ORIGINAL,
        "response": CARD_RESPONSE,
        "BEGIN": ["Hallucination", "Entailment"],
        "VRM": ["Disclosure", "Question"],
    }
    record.update(change)
    return record


def _parse(tmp_path: Path, *utterances: dict) -> utils.Dialogue:
    path = tmp_path / "train.json"
    path.write_text(json.dumps([{"utterances": list(utterances)}]), encoding="utf-8")
    (dialogue,) = faithdial.parse(path, split="train")
    return dialogue


def _wizard(dialogue: utils.Dialogue) -> list[Turn]:
    return [turn for turn in dialogue.turns if turn.role == WIZARD and not turn.raw.get("from_history")]


def _blocks(html: str) -> tuple[str, str]:
    """The two halves of an edited turn's side-by-side: (labelled original, faithful rewrite)."""
    side = html.split('class="atlas-sidebyside"', 1)[1].split('class="atlas-diff"', 1)[0]
    original, rewrite = side.split("the faithful rewrite", 1)
    return original, rewrite


# -- the record ------------------------------------------------------------------------------------


def test_card_example_labels_describe_the_original(tmp_path: Path) -> None:
    (turn,) = _wizard(_parse(tmp_path, _card_utterance()))
    assert turn.text == CARD_RESPONSE  # the conversation goes on with the rewrite
    assert turn.labels == {"BEGIN": ["Hallucination", "Entailment"], "VRM": ["Disclosure", "Question"]}
    assert turn.raw["labels_describe"] == "original_response"
    assert turn.raw["original_response"] == CARD_ORIGINAL
    assert faithdial.labelled_text(turn) == CARD_ORIGINAL
    assert faithdial.begin_class(turn.labels["BEGIN"]) == "Partial Hallucination"
    assert "labels_as_written" not in turn.raw  # nothing to clean in the card's lists


@pytest.mark.parametrize("original", ["", None, "   "])
def test_kept_turn_labels_describe_the_response(tmp_path: Path, original: str | None) -> None:
    (turn,) = _wizard(_parse(tmp_path, _card_utterance(original_response=original, BEGIN=["Entailment"])))
    assert turn.raw["labels_describe"] == "response"
    assert faithdial.labelled_text(turn) == CARD_RESPONSE


def test_missing_original_response_key_means_kept(tmp_path: Path) -> None:
    record = _card_utterance()
    del record["original_response"]
    (turn,) = _wizard(_parse(tmp_path, record))
    assert turn.raw["labels_describe"] == "response" and faithdial.labelled_text(turn) == CARD_RESPONSE


# -- VRM (and BEGIN) values cleaned ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "cleaned"),
    [
        ([" Edification"], ["Edification"]),
        ([""], []),
        (["Disclosure", "", " Question "], ["Disclosure", "Question"]),
        (["Edification", " Edification"], ["Edification"]),  # the same mode twice once stripped
        (["  ", "\t"], []),
        ([], []),
        (["Hallucination", "Entailment"], ["Hallucination", "Entailment"]),  # one judgement, kept whole
    ],
)
def test_normalise_labels(written: list[str], cleaned: list[str]) -> None:
    assert faithdial.normalise_labels(written) == cleaned


@pytest.mark.parametrize(
    ("begin", "expected"),
    [
        (["Hallucination", "Entailment"], "Partial Hallucination"),
        (["Entailment", "Hallucination"], "Partial Hallucination"),
        (["Partial Hallucination"], "Partial Hallucination"),
        (["Hallucination"], "Hallucination"),
        (["Generic", "Hallucination"], "Hallucination"),
        (["Entailment", "Uncooperative"], "Uncooperative"),
        (["Entailment"], "Entailment"),
        ([], None),
    ],
)
def test_begin_class(begin: list[str], expected: str | None) -> None:
    assert faithdial.begin_class(begin) == expected


def test_parser_cleans_vrm_and_keeps_the_lists_as_written(tmp_path: Path) -> None:
    turns = _wizard(
        _parse(
            tmp_path,
            _card_utterance(VRM=[" Edification", "", "Question"]),
            _card_utterance(history=[*CARD_HISTORY, CARD_RESPONSE, "Wow."], VRM=[""], BEGIN=[" Entailment"]),
        )
    )
    assert turns[0].labels["VRM"] == ["Edification", "Question"]
    assert turns[0].raw["labels_as_written"] == {"VRM": [" Edification", "", "Question"]}
    assert turns[1].labels == {"BEGIN": ["Entailment"], "VRM": []}
    assert turns[1].raw["labels_as_written"] == {"BEGIN": [" Entailment"], "VRM": [""]}


def test_parser_version_bumped() -> None:
    assert faithdial.PARSER_VERSION >= 2  # cached parses made before the labels were cleaned rebuild


# -- the viewer --------------------------------------------------------------------------------------


def test_card_example_renders_labels_with_the_original(tmp_path: Path) -> None:
    html = render(_parse(tmp_path, _card_utterance()), highlight=False)
    original, rewrite = _blocks(html)
    assert escape(CARD_ORIGINAL) in original and "original WoW response (labelled)" in original
    assert "BEGIN: Partial Hallucination" in original and "(written Hallucination + Entailment)" in original
    assert "VRM: Disclosure" in original and "VRM: Question" in original
    assert escape(CARD_RESPONSE) in rewrite
    assert "atlas-badge" not in rewrite and "BEGIN" not in rewrite and "VRM" not in rewrite
    # every badge of the turn is in the original's block: none elsewhere
    assert html.count('<span class="atlas-badge') == original.count('<span class="atlas-badge') == 3


def test_kept_turn_renders_labels_with_the_response(tmp_path: Path) -> None:
    html = render(_parse(tmp_path, _card_utterance(original_response="", BEGIN=["Entailment"])), highlight=False)
    assert "atlas-sidebyside" not in html
    assert "labels of this response:" in html and "the labels describe this response" in html
    assert "BEGIN: Entailment" in html and escape(CARD_RESPONSE) in html


def test_demo_sample_renders_labels_with_the_original() -> None:
    edited = kept = 0
    for dialogue in utils.load("faithdial", "train"):
        html = render(dialogue, highlight=False)
        turns = _wizard(dialogue)
        chunks = html.split('<div class="atlas-turn atlas-role-wizard">')[1:]
        assert len(chunks) == len(turns)
        for turn, chunk in zip(turns, chunks, strict=True):
            if turn.raw["labels_describe"] == "original_response":
                edited += 1
                original, rewrite = _blocks(chunk)
                assert escape(turn.raw["original_response"]) in original
                assert "atlas-badge" in original and "atlas-badge" not in rewrite
            else:
                kept += 1
                assert "labels of this response:" in chunk
            assert "VRM: <" not in chunk and "VRM:  " not in chunk  # empty and padded values are gone
    assert edited and kept


def test_search_text_finds_the_labelled_original(tmp_path: Path) -> None:
    text = search_text(_parse(tmp_path, _card_utterance()))
    assert CARD_ORIGINAL in text and CARD_RESPONSE in text


# -- the demo sample ------------------------------------------------------------------------------------


def test_demo_sample_holds_the_real_edge_cases() -> None:
    splits = [utils.load("faithdial", split) for split in ("train", "valid", "test")]
    turns = [turn for split in splits for dialogue in split for turn in _wizard(dialogue)]
    written = [turn.raw.get("labels_as_written", {}) for turn in turns]
    assert any(turn.labels["BEGIN"] == ["Hallucination", "Entailment"] for turn in turns)  # partial, as a list
    assert any(" Edification" in lists.get("VRM", []) for lists in written)  # a stray space
    assert any(lists.get("VRM") == [""] for lists in written)  # an empty string
    assert any(turn.raw["original_response"] == "" and turn.raw["labels_describe"] == "response" for turn in turns)
    assert any(
        turn.raw["labels_describe"] == "original_response" and turn.labels["BEGIN"] == ["Hallucination"]
        for turn in turns
    )
    assert all(value == value.strip() and value for turn in turns for value in turn.labels["VRM"])
    # the labels fit the text they describe: a Question mode only where that text asks one
    asking = [turn for turn in turns if "Question" in turn.labels["VRM"]]
    assert asking and all("?" in faithdial.labelled_text(turn) for turn in asking)


# -- the critic ------------------------------------------------------------------------------------------


def test_critic_positives_are_the_labelled_originals(tmp_path: Path) -> None:
    dialogue = _parse(
        tmp_path,
        _card_utterance(),  # edited, partial hallucination -> the original is a positive
        _card_utterance(
            history=[*CARD_HISTORY, CARD_RESPONSE, "Cool."],
            original_response="",
            response="It ended in Sydney.",
            BEGIN=["Entailment"],
        ),
        _card_utterance(
            history=[*CARD_HISTORY, CARD_RESPONSE, "Cool.", "It ended in Sydney.", "Ok."],
            original_response="Ok.",
            response="It ended at Allphones Arena.",
            BEGIN=["Generic"],  # neither class for the critic: left out, as the authors do
        ),
    )
    frame = stats.utterances([dialogue])
    test_set = baselines.critic_examples(frame)
    assert list(test_set["response"]) == [CARD_ORIGINAL, "It ended in Sydney."]
    assert list(test_set["hallucinated"]) == [1, 0]
    assert CARD_RESPONSE not in set(test_set["response"])
    training = baselines.critic_examples(frame, with_rewrites=True)
    assert list(training["response"]) == [CARD_ORIGINAL, "It ended in Sydney.", CARD_RESPONSE]
    assert list(training["hallucinated"]) == [1, 0, 0]
    assert list(training["source"]) == [baselines.LABELLED, baselines.LABELLED, baselines.REWRITE]


@pytest.mark.parametrize("split", ["train", "test"])
def test_demo_critic_positives_are_original_responses(split: str) -> None:
    frame = stats.utterances(utils.load("faithdial", split))
    examples = baselines.critic_examples(frame, with_rewrites=True)
    positives = examples[examples["hallucinated"] == 1]
    hallucinated = frame[frame["begin_class"].isin(stats.HALLUCINATED)]
    assert len(positives) == len(hallucinated) > 0
    assert set(positives["response"]) == set(hallucinated["labelled_response"])
    assert set(positives["response"]) <= set(frame.loc[frame["edited"], "original_response"])
    assert not set(positives["response"]) & set(frame.loc[frame["edited"], "response"])
