"""WISE statistics on the demo sample (counted by hand from utils/demo_data/wise)."""

from __future__ import annotations

import warnings

import pytest

import utils
from utils.formats.wise import (
    ACTIONS,
    AUTHORS_ACTION_VOCAB,
    AUTHORS_INTENT_VOCAB,
    INTENTS,
    UnknownLabelWarning,
    label_sets_frame,
    published_label,
    stored_form,
    vocab_entry,
)
from utils.formats.wise_documents import load_documents
from utils.stats import wise as st


@pytest.fixture
def splits() -> dict:
    return {name: utils.load("wise", name) for name in utils.split_names("wise")}


def test_published_label_sets() -> None:
    assert len(INTENTS) == 12 and len(ACTIONS) == 23
    assert stored_form("Answer-open-text") == ["Answer", "open-text"]
    assert stored_form("Clarify-Yes_no") == ["Clarify", "Yes_no"]
    assert stored_form("Unknown") == ["Unknown"]
    for name in [*INTENTS, *ACTIONS]:
        assert published_label(stored_form(name)) == name
    assert len(label_sets_frame()) == 35


def test_authors_vocab_is_the_published_sets_in_brackets() -> None:
    # data/WISE/intent.txt and action.txt of CaSE_WISE, first and last lines
    assert len(AUTHORS_INTENT_VOCAB) == 12 and len(AUTHORS_ACTION_VOCAB) == 23
    assert (AUTHORS_INTENT_VOCAB[0], AUTHORS_INTENT_VOCAB[-1]) == ("[Request-Rephrase]", "[Request-Recommendation]")
    assert (AUTHORS_ACTION_VOCAB[0], AUTHORS_ACTION_VOCAB[-1]) == ("[Clarify-Choice]", "[Revise]")
    assert tuple(f"[{name}]" for name in INTENTS) == AUTHORS_INTENT_VOCAB
    assert tuple(f"[{name}]" for name in ACTIONS) == AUTHORS_ACTION_VOCAB
    # the JSON stores ["Clarify", "Choice"]; the authors' loader looks up "[" + "-".join(...) + "]"
    assert vocab_entry(["Clarify", "Choice"]) == "[Clarify-Choice]"
    assert vocab_entry(["Answer", "fact-text"]) in AUTHORS_ACTION_VOCAB
    assert label_sets_frame().loc[0, "authors' vocab"] == "[Request-Rephrase]"


def test_split_sizes(splits: dict) -> None:
    sizes = st.split_sizes(splits)
    assert sizes.loc["train", "conversations"] == 3
    assert sizes.loc["train", "utterances"] == 32  # 6 + 5 + 5 user/system pairs
    assert sizes.loc["train", "turns"] == 16
    assert sizes.loc["test", "conversations"] == sizes.loc["test_seen", "conversations"] + 1


def test_reported_vs_reproduced_is_not_asserted_on_demo(splits: dict) -> None:
    table = st.reported_vs_reproduced(splits)
    assert list(table.index) == ["dialogues", "utterances", "turns_per_dialogue"]
    assert table.loc["dialogues", "reported"] == 1900
    assert table.loc["dialogues", "reproduced"] == 6  # train 3 + valid 1 + test 2
    # all three numbers are stated in WISE.md, cited as its own bibliography entry
    assert set(table["cite as"]) == {"ren2021wisedata"}
    assert not table["asserted"].any() and table["matches"].isna().all()


def test_turns_per_conversation_is_never_asserted(splits: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    values, _ = st._whole(splits)
    monkeypatch.setattr(st, "_whole", lambda _: (values, True))  # as if the full files were loaded
    table = st.reported_vs_reproduced(splits)
    assert table.loc[["dialogues", "utterances"], "asserted"].all()
    assert not table.loc["turns_per_dialogue", "asserted"]
    assert "not published" in table.loc["turns_per_dialogue", "note"]


def test_distributions_list_every_label_of_the_vocab(splits: dict) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnknownLabelWarning)  # the demo sample uses published labels only
        intents = st.intent_distribution(splits["train"])
        actions = st.action_distribution(splits["train"])
    assert list(intents.index) == list(INTENTS) and list(actions.index) == list(ACTIONS)
    assert intents.loc["Reveal", "count"] == 8 and intents["published"].all()
    assert intents.loc["Request-Rephrase", "count"] == 0  # absent from the demo train split, still listed
    assert intents.loc["Feedback-Good", "authors' vocab"] == "[Feedback-Good]"
    assert actions.loc["Answer-fact-text", "count"] == 4
    assert actions.loc["Answer-opinion-link", "count"] == 0
    assert actions["share"].sum() == pytest.approx(1.0)
    assert intents["count"].sum() == 16 and actions["count"].sum() == 16


def test_an_unknown_label_is_reported_not_dropped() -> None:
    labels = ["Reveal", "Confirm", "Reveal", "Confirm", "", "Reveal"]
    with pytest.warns(UnknownLabelWarning, match=r"2 intent label\(s\).*'Confirm' \(2\), '\(none\)' \(1\)"):
        table = st.label_distribution(labels, INTENTS, "intent")
    assert len(table) == 12 + 2
    assert list(table.index[-2:]) == ["Confirm", "(none)"]  # after the vocab, most frequent first
    assert table.loc["Confirm", "count"] == 2 and not table.loc["Confirm", "published"]
    assert table.loc["Confirm", "share"] == pytest.approx(2 / 6)
    assert table.loc["Confirm", "authors' vocab"] == ""
    assert table.loc["Reveal", "share"] == pytest.approx(3 / 6)
    assert table["count"].sum() == len(labels)


def test_candidates_and_citations(splits: dict) -> None:
    turns = st.system_turns(splits["train"])
    assert len(turns) == 16
    first = turns.iloc[0]
    assert (first["action"], first["query candidates"], first["selected queries"]) == ("Clarify-Choice", 4, 2)
    assert (first["passage candidates"], first["selected passages"]) == (5, 0)
    share = st.citation_share(splits["train"])
    assert share.loc["Clarify", "share"] == 0.0 and share.loc["Answer", "share"] == 1.0
    assert share.loc["all", "system utterances"] == 16 and share.loc["all", "cite passages"] == 11
    summary = st.candidate_summary(splits["train"])
    assert summary.loc["selected passages", "max"] == 3


def test_lengths_and_documents(splits: dict) -> None:
    lengths = st.response_lengths(splits["valid"])
    assert set(lengths.index) == {"user", "system"}
    assert lengths.loc["user", "count"] == 4
    documents = st.document_summary(load_documents())
    column = documents.columns[0]
    assert documents.loc["documents", column] == 12
    assert documents.loc["passages", column] == 27
    assert documents.loc["sentences", column] == 42


def test_utterances_frame(splits: dict) -> None:
    from utils.render.wise import demo_glosses

    frame = st.utterances_frame(splits["train"][0], glosses=demo_glosses())
    assert list(frame.columns) == ["speaker", "text", "intent or action", "selected passages", "English (gloss)"]
    assert frame.loc[1, "intent or action"] == "Clarify-Choice"
    assert frame.loc[3, "selected passages"] == "3251-1, 3251-2"
    assert frame.loc[0, "English (gloss)"].startswith("I'd like")
    assert "English (gloss)" not in st.utterances_frame(splits["train"][0]).columns
