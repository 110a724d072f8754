"""WoW statistics on the demo sample (hand-counted) and on the real files where present."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import require_real_file

import utils
from utils.stats import wow as stats


def test_summary_of_demo_train_hand_counted() -> None:
    train = utils.load("wow", "train")
    values = stats.summary(train)
    # Lighthouse (6 turns, wizard first), Sourdough (6, apprentice first), Beekeeping (4, apprentice first)
    assert values["dialogues"] == 3
    assert values["utterances"] == 16
    assert values["topics"] == 3
    assert values["turns_per_dialogue"] == pytest.approx(16 / 3)
    assert values["wizard_turns"] == 8 and values["apprentice_turns"] == 8
    assert values["wizard_first_dialogues"] == 1
    assert values["wizard_examples_without_first_turn"] == 7
    assert values["no_passage_share"] == pytest.approx(1 / 8)
    assert values["checked_not_in_knowledge"] == 0
    # Lighthouse: 5 topic sentences at turn 0; +3 Fresnel +2 Shipwreck +3 keeper at turn 2 (the
    # apprentice's "Lighthouse" is the topic, kept once); turn 4: +2 Shipwreck +3 Fresnel +2 Tide.
    wizard = stats.wizard_turns(train)
    lighthouse = wizard[wizard["topic"] == "Lighthouse"]
    assert lighthouse["candidates"].tolist() == [6, 14, 16]


def test_kilt_summary_of_demo_dev() -> None:
    values = stats.kilt_summary(utils.load("wow_kilt", "dev"))
    assert values["examples"] == 3 and values["dialogues"] == 2
    assert values["answers"] == 3 and values["answers_without_provenance"] == 1
    assert values["utterances"] == 3 + 2 + 4


def test_topic_overlap_demo() -> None:
    train = utils.load("wow", "train")
    table = stats.topic_overlap(train, {"valid_seen": utils.load("wow", "valid_seen")})
    # Beekeeping is in train, Marathon is not
    assert table.loc["valid_seen", ["topics", "shared_with_train", "new"]].tolist() == [2, 1, 1]


def test_summary_table_has_every_split() -> None:
    splits = {"train": utils.load("wow", "train"), "kilt_dev": utils.load("wow_kilt", "dev")}
    table = stats.summary_table(splits)
    assert list(table.columns) == ["train", "kilt_dev"]
    assert table.loc["data", "train"] == "demo sample"
    assert table.loc["dialogues", "train"] == 3


def test_reported_table_never_asserts_demo() -> None:
    splits = {name: utils.load("wow", name) for name in stats.RAW_SPLITS}
    splits["kilt_dev"] = utils.load("wow_kilt", "dev")
    table = stats.reported_vs_reproduced(splits)
    assert len(table) == 18
    assert not table["asserted"].any()
    assert stats.failed_checks(table).empty
    assert table["status"].str.contains("demo sample").all()
    # utterances over the whole dataset = the sum over the five splits
    total = table[(table["statistic"] == "utterances") & (table["split"] == "all")]["reproduced"].item()
    assert total == sum(len(s.turns()) for name, s in splits.items() if name != "kilt_dev")


def test_reported_table_without_a_split() -> None:
    table = stats.reported_vs_reproduced({"train": utils.load("wow", "train")})
    missing = table[table["statistic"] == "examples"]
    assert missing["status"].item() == "not asserted: split not loaded"


@pytest.mark.realdata
def test_real_kilt_dev_is_asserted(real_data_dir: Path) -> None:
    require_real_file(real_data_dir, "wow/kilt/wow-dev-kilt.jsonl")
    table = stats.reported_vs_reproduced({"kilt_dev": utils.load("wow_kilt", "dev")})
    row = table[table["statistic"] == "examples"].iloc[0]
    assert row["asserted"] and row["matches"] and row["reproduced"] == 3054
    assert stats.failed_checks(table).empty


@pytest.mark.realdata
def test_real_train_sample_is_partial(real_data_dir: Path) -> None:
    require_real_file(real_data_dir, "wow/raw/train_sample.json")
    train = utils.load("wow", "train")
    if train.provenance.is_full:
        pytest.skip("the full train.json is present")
    values = stats.summary(train)
    assert values["dialogues"] == 5 and values["utterances"] == 48
    table = stats.reported_vs_reproduced({"train": train})
    assert not table["asserted"].any()
    assert (table[table["split"] == "train"]["status"] == "not asserted: partial").all()


def test_word_counts_match_whitespace_split() -> None:
    split = utils.load("wow", "valid_unseen")
    expected = [len(text.split()) for text in split.turns()["text"]]
    assert stats.word_counts(split).tolist() == expected
