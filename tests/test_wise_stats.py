"""WISE statistics on the demo sample (counted by hand from utils/demo_data/wise)."""

from __future__ import annotations

import pytest

import utils
from utils.formats.wise import ACTIONS, INTENTS, label_sets_frame, published_label, stored_form
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
    assert not table["asserted"].any() and table["matches"].isna().all()


def test_turns_per_conversation_is_never_asserted(splits: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    values, _ = st._whole(splits)
    monkeypatch.setattr(st, "_whole", lambda _: (values, True))  # as if the full files were loaded
    table = st.reported_vs_reproduced(splits)
    assert table.loc[["dialogues", "utterances"], "asserted"].all()
    assert not table.loc["turns_per_dialogue", "asserted"]
    assert "not published" in table.loc["turns_per_dialogue", "note"]


def test_distributions(splits: dict) -> None:
    intents = st.intent_distribution(splits["train"])
    assert intents.loc["Reveal", "count"] == 8 and intents["published"].all()
    actions = st.action_distribution(splits["train"])
    assert actions.loc["Answer-fact-text", "count"] == 4
    assert actions["share"].sum() == pytest.approx(1.0)


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
